//! The cable labels a default build writes, read by what consumes them:
//! - `labels/<rack>.zpl` drawn by an offline ZPL renderer (zpl-renderer-js from the npm
//!   registry, a WebAssembly build of ingridhq/zebrash; pinned by `tests/zpl/package-lock.json`,
//!   installed by `scripts/zplenv.sh` under `target/zplenv`) as a 203-dpi Zebra printer would
//!   print them, and each QR code the printer draws (`^BQ`) decoded by zbarimg: it must be the
//!   cable id of the cable the plan (`cabling.csv`) puts on that label;
//! - `labels/<rack>.csv` read back by header as label software imports it (one row per label):
//!   two rows per cable of `cabling.csv`, each with both ends, the cable part, the splitter leg
//!   and each end's module as the cabling plan has them, in the rack of the cable's B end;
//! - the office-printer sheets `labels/<rack>.html` only on request (`--only labels`).
//!
//! One renderer process and one zbarimg process for every label drawn.

use crate::common;
use crate::prereq;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use railyard::output::{OutputFile, OutputGroup};

const EXAMPLE: &str = "spectrum-x-cloud.yaml";

/// Rows of a CSV file as maps from its header's names.
fn rows(files: &[OutputFile], path: &str) -> Vec<BTreeMap<String, String>> {
    let text = common::file(files, path);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    r.records()
        .map(|rec| {
            let rec = rec.expect("record");
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn label_files<'a>(files: &'a [OutputFile], ext: &str) -> Vec<&'a OutputFile> {
    files
        .iter()
        .filter(|f| f.path.starts_with("labels/") && f.path.ends_with(ext))
        .collect()
}

/// The directory of the pinned renderer, installed if needed; `None` when skipped on purpose.
fn renderer(test: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("scripts/zplenv.sh"))
        .output();
    let (ok, detail) = match &out {
        Ok(o) if o.status.success() => (true, String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(o) => (false, String::from_utf8_lossy(&o.stderr).into_owned()),
        Err(e) => (false, e.to_string()),
    };
    prereq::require(test, "zplenv", ok, &prereq::zplenv_hint(detail.trim()))
        .then(|| PathBuf::from(detail.trim()))
}

/// What zbarimg decodes in each image, by image path.
fn decode(zbarimg: &Path, pngs: &[PathBuf]) -> BTreeMap<PathBuf, Vec<String>> {
    let out = Command::new(zbarimg)
        .args(["--xml", "-q"])
        .args(pngs)
        .output()
        .expect("zbarimg runs");
    let xml = String::from_utf8_lossy(&out.stdout);
    let mut found = BTreeMap::new();
    for source in xml.split("<source href='").skip(1) {
        let (href, rest) = source.split_once('\'').expect("href");
        let data = rest
            .split("<data><![CDATA[")
            .skip(1)
            .filter_map(|d| d.split_once("]]></data>").map(|(v, _)| v.to_string()))
            .collect();
        found.insert(PathBuf::from(href), data);
    }
    found
}

/// The QR code the printer draws on each label is the cable id the plan puts on it: the first
/// four labels of two racks' files and the last label of one (a storage rack whose cables are
/// splitter legs), drawn by the renderer and scanned by zbarimg.
#[test]
fn zpl_labels_drawn_by_a_zpl_renderer_scan_to_the_plans_cable_ids() {
    let test = "zpl_labels_drawn_by_a_zpl_renderer_scan_to_the_plans_cable_ids";
    let (Some(zbarimg), Some(node)) = (
        prereq::program(test, "zbarimg", "zbar-tools"),
        prereq::program(test, "node", "nodejs"),
    ) else {
        return;
    };
    let Some(env) = renderer(test) else { return };
    let files = common::example_outputs(EXAMPLE);
    let dir = tempfile::tempdir().expect("tmp");
    // Two racks: the first compute rack and the last rack (storage, splitter legs).
    let zpl = label_files(files, ".zpl");
    assert!(zpl.len() >= 2, "label files: {}", zpl.len());
    let mut args = Vec::new();
    let mut expected: BTreeMap<String, (String, Vec<BTreeMap<String, String>>)> = BTreeMap::new();
    for (f, picks) in [(zpl[0], "0:4"), (zpl[zpl.len() - 1], "0:4")] {
        let p = dir.path().join(f.path.trim_start_matches("labels/"));
        std::fs::write(&p, &f.bytes).expect("write");
        let csv = f.path.replace(".zpl", ".csv");
        let stem = p.file_stem().expect("stem").to_string_lossy().into_owned();
        expected.insert(stem, (f.path.clone(), rows(files, &csv)));
        args.push(format!("{}:{picks}", p.display()));
    }
    // And the last label of the storage rack.
    let last = expected.values().last().expect("a rack").1.len() - 1;
    args.push(format!(
        "{}:{last}:1",
        dir.path()
            .join(zpl[zpl.len() - 1].path.trim_start_matches("labels/"))
            .display()
    ));
    let t = std::time::Instant::now();
    let run = Command::new(&node)
        .arg(env.join("render.cjs"))
        .arg(dir.path().join("png"))
        .args(&args)
        .current_dir(&env)
        .output()
        .expect("node runs");
    assert!(
        run.status.success(),
        "the renderer failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let drawn: Vec<(PathBuf, String, usize)> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| {
            let mut it = l.split('\t');
            let png = PathBuf::from(it.next().expect("png"));
            let src = it.next().expect("source").to_string();
            let i = it.next().expect("index").parse().expect("index");
            (png, src, i)
        })
        .collect();
    assert_eq!(drawn.len(), 9, "labels drawn: {drawn:?}");
    let pngs: Vec<PathBuf> = drawn.iter().map(|(p, _, _)| p.clone()).collect();
    let scanned = decode(&zbarimg, &pngs);
    eprintln!(
        "TIMING draw and scan {} labels: {:?}",
        pngs.len(),
        t.elapsed()
    );
    let plan = rows(files, "cabling.csv");
    let plan: BTreeMap<&str, &BTreeMap<String, String>> =
        plan.iter().map(|r| (r["cable_id"].as_str(), r)).collect();
    let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-artifacts/zpl-labels");
    let _ = std::fs::create_dir_all(&keep);
    for (png, src, i) in &drawn {
        let stem = Path::new(src).file_stem().expect("stem").to_string_lossy();
        let (path, labels) = &expected[stem.as_ref()];
        let _ = std::fs::copy(png, keep.join(png.file_name().expect("name")));
        // The i-th format of the file is the i-th row of its CSV (both one label per entry);
        // that row's cable is one the plan has, in this rack.
        let cable = &labels[*i]["cable_id"];
        let in_plan = plan.get(cable.as_str()).expect("a cable of the plan");
        assert_eq!(
            format!("labels/{}.zpl", in_plan["b_rack"]),
            *path,
            "{cable}: labelled in its B end's rack"
        );
        assert_eq!(
            scanned.get(png).map(Vec::as_slice),
            Some(std::slice::from_ref(cable)),
            "{path} label {i}: the printer's QR code scans to the cable id"
        );
    }
}

/// The label-software import, read back by header: two rows per cable of the plan (A end and
/// B end), each with the ends, cable part, leg and modules `cabling.csv` gives the cable, in the
/// file of the cable's B-end rack.
#[test]
fn label_csv_rows_carry_the_plans_ends_parts_legs_and_modules() {
    let files = common::example_outputs(EXAMPLE);
    let plan = rows(files, "cabling.csv");
    let by_id: BTreeMap<&str, &BTreeMap<String, String>> =
        plan.iter().map(|r| (r["cable_id"].as_str(), r)).collect();
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in label_files(files, ".csv") {
        let rack = f
            .path
            .trim_start_matches("labels/")
            .trim_end_matches(".csv");
        for r in rows(files, &f.path) {
            seen.entry(r["cable_id"].clone())
                .or_default()
                .push(format!("{}@{rack}", r["end"]));
            let p = by_id[r["cable_id"].as_str()];
            let (a, b) = p["label"].split_once('/').expect("A/B label");
            let fields = [
                ("a_end", a),
                ("b_end", b),
                ("cable_part", &p["cable_part"]),
                ("leg", &p["leg"]),
                ("a_module", &p["a_module"]),
                ("b_module", &p["b_module"]),
                ("qr", &p["cable_id"]),
            ];
            for (col, want) in fields {
                assert_eq!(r[col], *want, "{} {}: {col}", r["cable_id"], r["end"]);
            }
            assert_eq!(p["b_rack"], rack, "{}: in its B end's rack", r["cable_id"]);
            // The printed lines say the same as the fields.
            assert!(r["line1"].starts_with(&r["cable_id"]) && r["line1"].ends_with(&r["end"]));
            assert_eq!(r["line2"], format!("A {a}"));
            assert_eq!(r["line3"], format!("B {b}"));
            if !p["leg"].is_empty() {
                assert!(r["line4"].ends_with(&format!("leg {}", p["leg"])), "{r:?}");
            }
        }
    }
    assert_eq!(seen.len(), plan.len(), "every cable of the plan labelled");
    for (id, ends) in &seen {
        let letters: Vec<&str> = ends.iter().map(|e| &e[..1]).collect();
        assert_eq!(letters, ["A", "B"], "{id}: an A and a B label ({ends:?})");
    }
    assert!(
        plan.iter().any(|p| !p["leg"].is_empty()),
        "the example has splitter legs"
    );
}

/// The HTML sheets for office printers are written only on request (`--only labels`), and
/// then alone: a default build has none.
#[test]
fn html_label_sheets_only_on_request() {
    let files = common::example_outputs("lab-small.yaml");
    assert!(label_files(files, ".html").is_empty(), "none by default");
    assert!(!label_files(files, ".zpl").is_empty());
    let sheets = common::outputs_of(&common::inventory("lab-small.yaml"), &[OutputGroup::Labels]);
    let html = label_files(&sheets, ".html");
    assert_eq!(
        html.len(),
        label_files(files, ".zpl").len(),
        "one sheet per label file"
    );
    assert!(
        sheets
            .iter()
            .all(|f| f.path.ends_with(".html") || f.path == "manifest.json"),
        "only the sheets: {:?}",
        sheets.iter().map(|f| &f.path).collect::<Vec<_>>()
    );
}
