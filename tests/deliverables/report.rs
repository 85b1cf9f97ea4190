//! The deliverables people look at, checked by the programs that consume them:
//! - `report.html` opened in real headless Chromium over the DevTools protocol: no console
//!   error, no request leaves the file, the diagram draws every switch (or aggregate) once and
//!   one bundle per group of cables as `cabling.csv` groups them, and the print sheets paginate
//!   by rack. Screenshots and the printed PDF are kept under `target/report-artifacts/`.
//! - `cabling.xlsx` read back with calamine (an independent reader) and compared row by row
//!   with `cabling.csv`, and opened with openpyxl (the reader most Python tooling uses) for what
//!   a person sees: frozen header, filters, print titles, page setup, colours, widths, types.
//! - `labels/*.html` (on request, `--only labels`): two labels per cable with the text of
//!   `cabling.csv`, printed one per page, QR codes scanned by zbarimg (the default ZPL and CSV
//!   labels: tests/deliverables/labels.rs).

use crate::browser;
use crate::common;
use crate::prereq;
use crate::pyenv;

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use browser::{Browser, chromium};
use calamine::{Data, Reader, Xlsx};
use railyard::output::OutputFile;
use serde_json::{Value, json};

pub(crate) fn artifacts_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-artifacts");
    std::fs::create_dir_all(&d).expect("artifact dir");
    d
}

/// Build an example inventory (once per test binary, see `common::example_outputs`) and write
/// every output under `target/report-artifacts/<name>/`.
pub(crate) fn build(name: &str, inventory: &'static str) -> (PathBuf, &'static [OutputFile]) {
    let files = common::example_outputs(inventory);
    let dir = artifacts_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for f in files {
        let p = dir.join(&f.path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, &f.bytes).expect("write");
    }
    (dir, files)
}

fn csv_rows(
    files: &[railyard::output::OutputFile],
    path: &str,
) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let text = common::file(files, path);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.expect("record");
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect();
    (header, rows)
}

pub(crate) fn decode_base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// Pages of a PDF written by Chromium (Skia writes one `/Type /Page` dictionary per page).
pub(crate) fn pdf_pages(pdf: &[u8]) -> usize {
    let needle = b"/Type /Page";
    pdf.windows(needle.len() + 1)
        .filter(|w| &w[..needle.len()] == needle && w[needle.len()] != b's')
        .count()
}

/// The diagram's contract (see `src/report/diagram/mod.rs`), restated independently: the
/// bundle key of every `cabling.csv` row from the placement of its two devices.
fn expected_bundles(
    cables: &[BTreeMap<String, String>],
    placement: &BTreeMap<String, (String, String, String)>,
) -> BTreeMap<(String, String, String), usize> {
    let mut out = BTreeMap::new();
    for c in cables {
        let (a, b) = (&placement[&c["a_device"]], &placement[&c["b_device"]]);
        let lower_is_switch = !a.1.is_empty();
        let key = match (c["tier"].as_str(), c["network"].as_str()) {
            ("node-leaf", "compute") if !lower_is_switch => {
                (a.0.clone(), b.0.clone(), c["rail"].clone())
            }
            ("node-leaf", net) if !lower_is_switch => {
                (format!("s-{net}-{}", a.2), b.0.clone(), String::new())
            }
            ("mgmt", net) => (format!("s-{net}-{}", a.2), b.0.clone(), String::new()),
            _ => {
                let end = |p: &(String, String, String)| {
                    if p.1.is_empty() {
                        p.0.clone()
                    } else {
                        p.1.clone()
                    }
                };
                if end(a) == end(b) {
                    // Links inside one frame join the two switches.
                    (a.0.clone(), b.0.clone(), String::new())
                } else {
                    (end(a), end(b), String::new())
                }
            }
        };
        *out.entry(key).or_insert(0) += 1;
    }
    out
}

/// Open `report.html` of `inventory` in Chromium and check it; returns the browser for more.
fn check_report(inventory: &'static str, mode: &str) -> Option<Browser> {
    let test = format!("report_in_chromium[{inventory}]");
    let bin = chromium(&test)?;
    let name = inventory.trim_end_matches(".yaml");
    let (dir, files) = build(name, inventory);
    let mut browser = Browser::launch(&bin);
    browser.open(&dir.join("report.html"));

    let page = page_facts(&mut browser);
    assert_eq!(page["mode"], mode, "{inventory}: diagram mode");
    let plan: Value = serde_json::from_str(&common::file(files, "plan.json")).expect("plan");
    let plan_devices = plan["devices"].as_array().expect("devices").clone();
    let switches: Vec<&str> = plan_devices
        .iter()
        .filter(|d| !matches!(d["role"].as_str(), Some("node" | "appliance")))
        .filter_map(|d| d["name"].as_str())
        .collect();
    check_switch_boxes(inventory, mode, &page, &switches);
    let (_, cables) = csv_rows(files, "cabling.csv");
    check_bundles(inventory, &page, &cables);
    check_bundle_detail(inventory, &mut browser);
    save_diagram_screenshot(inventory, name, &mut browser);
    check_printed_sheets(inventory, name, &mut browser, &page, &cables, &switches);
    check_cable_parts(inventory, &mut browser, &cables);
    if cables.iter().any(|c| !c["a_rack"].is_empty()) {
        assert!(
            page["racks"].as_u64().unwrap_or(0) > 0,
            "{inventory}: rack elevations"
        );
    }
    check_self_contained(inventory, &browser, &dir);
    Some(browser)
}

/// #26 item 4: the cabling table shows how each cable is built (both modules, the cable or fibre
/// part, the splitter leg) as `cabling.csv` states it, read from the rendered table.
fn check_cable_parts(inventory: &str, browser: &mut Browser, cables: &[BTreeMap<String, String>]) {
    let shown: Value = serde_json::from_str(
        browser
            .eval(
                r#"JSON.stringify({
                head: Array.from(document.querySelectorAll('#cabling-table thead tr:first-child th')).map(t => t.textContent),
                rows: Array.from(document.querySelectorAll('#cabling-table tbody tr')).map(r => Array.from(r.children).map(td => td.textContent)),
            })"#,
            )
            .as_str()
            .expect("string"),
    )
    .expect("cabling table");
    let head: Vec<&str> = shown["head"]
        .as_array()
        .expect("head")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let col = |name: &str| {
        head.iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{inventory}: cabling table has no {name} column: {head:?}"))
    };
    let (id, am, part, leg, bm) = (
        col("cable_id"),
        col("a_module"),
        col("cable_part"),
        col("leg"),
        col("b_module"),
    );
    let by_id: BTreeMap<&str, &BTreeMap<String, String>> =
        cables.iter().map(|c| (c["cable_id"].as_str(), c)).collect();
    let rows = shown["rows"].as_array().expect("rows");
    assert!(!rows.is_empty(), "{inventory}: cabling table rows");
    for r in rows {
        let cell = |i: usize| r[i].as_str().unwrap_or("").to_string();
        let c = by_id[cell(id).as_str()];
        let want_part = match c["cable_count"].parse::<u32>() {
            Ok(n) if n > 1 => format!("{n} × {}", c["cable_part"]),
            _ => c["cable_part"].clone(),
        };
        assert_eq!(
            [cell(am), cell(part), cell(leg), cell(bm)],
            [
                c["a_module"].clone(),
                want_part,
                c["leg"].clone(),
                c["b_module"].clone()
            ],
            "{inventory}: cable {}",
            cell(id)
        );
    }
}

/// What the page shows, read in the browser.
fn page_facts(browser: &mut Browser) -> Value {
    serde_json::from_str(
        browser
            .eval(
                r#"JSON.stringify({
                mode: document.getElementById('fabric').dataset.mode,
                nodes: Array.from(document.querySelectorAll('#fabric g.node')).map(g => [g.id, g.dataset.kind, Number(g.dataset.switches), g.dataset.device]),
                bundles: Array.from(document.querySelectorAll('#fabric g.bundle')).map(g => [g.dataset.from, g.dataset.to, g.dataset.rail, Number(g.dataset.count)]),
                devices: JSON.parse(document.getElementById('report-data').textContent).devices,
                cablingRows: document.querySelector('#cabling-table .pager span').textContent,
                sheets: document.querySelectorAll('#sheet-pages .sheet').length,
                racks: document.querySelectorAll('figure.rack').length,
            })"#,
            )
            .as_str()
            .expect("string"),
    )
    .expect("page facts")
}

/// One node per switch, or aggregates that together stand for every switch exactly once.
fn check_switch_boxes(inventory: &str, mode: &str, page: &Value, switches: &[&str]) {
    let nodes = page["nodes"].as_array().expect("nodes");
    let drawn: usize = nodes
        .iter()
        .map(|n| n[2].as_u64().unwrap_or(0) as usize)
        .sum();
    assert_eq!(drawn, switches.len(), "{inventory}: switches drawn");
    let ids: std::collections::BTreeSet<&str> =
        nodes.iter().filter_map(|n| n[0].as_str()).collect();
    assert_eq!(ids.len(), nodes.len(), "{inventory}: node ids unique");
    if mode == "detail" {
        let mut named: Vec<&str> = nodes
            .iter()
            .filter(|n| n[1] == "switch")
            .filter_map(|n| n[3].as_str())
            .collect();
        named.sort_unstable();
        let mut want = switches.to_vec();
        want.sort_unstable();
        assert_eq!(named, want, "{inventory}: one box per switch");
    } else {
        assert!(
            nodes.iter().any(|n| n[1] == "aggregate"),
            "{inventory}: aggregated boxes at scale"
        );
    }
}

/// One bundle per group of cables, the groups computed from cabling.csv.
fn check_bundles(inventory: &str, page: &Value, cables: &[BTreeMap<String, String>]) {
    let placement: BTreeMap<String, (String, String, String)> = page["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .map(|d| {
            let s = |i: usize| d[i].as_str().unwrap_or("").to_string();
            (s(0), (s(4), s(5), s(6)))
        })
        .collect();
    let want = expected_bundles(cables, &placement);
    let mut got: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for b in page["bundles"].as_array().expect("bundles") {
        let s = |i: usize| b[i].as_str().unwrap_or("").to_string();
        let prev = got.insert((s(0), s(1), s(2)), b[3].as_u64().unwrap_or(0) as usize);
        assert!(
            prev.is_none(),
            "{inventory}: bundle {:?} drawn twice",
            (s(0), s(1))
        );
    }
    assert_eq!(got, want, "{inventory}: bundles = cabling.csv grouped");
    assert!(
        page["cablingRows"]
            .as_str()
            .unwrap_or("")
            .ends_with(&format!("of {}", cables.len())),
        "{inventory}: cabling table holds every cable: {}",
        page["cablingRows"]
    );
}

/// Interaction: click the biggest bundle; its cable list appears.
fn check_bundle_detail(inventory: &str, browser: &mut Browser) {
    let detail = browser.eval(
        "(() => { const b = Array.from(document.querySelectorAll('#fabric g.bundle')).sort((x, y) => y.dataset.count - x.dataset.count)[0];
          b.dispatchEvent(new MouseEvent('click', {bubbles: true}));
          return document.querySelector('#bundle-detail .pager span').textContent; })()",
    );
    assert!(
        detail.as_str().unwrap_or("").contains("of "),
        "{inventory}: bundle detail lists cables: {detail}"
    );
}

/// Screenshot of the diagram as shown, and of the whole diagram at full size.
fn save_diagram_screenshot(inventory: &str, name: &str, browser: &mut Browser) {
    let area = clip(browser, "#diagram-view");
    let shot = browser.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true, "clip": area}),
    );
    let png = decode_base64(shot["data"].as_str().expect("png"));
    assert!(
        png.starts_with(b"\x89PNG"),
        "{inventory}: screenshot is a PNG"
    );
    std::fs::write(artifacts_dir().join(format!("{name}-diagram.png")), png).expect("write png");
}

/// The printed sheets: A4 landscape, one rack (or switch) per sheet.
fn check_printed_sheets(
    inventory: &str,
    name: &str,
    browser: &mut Browser,
    page: &Value,
    cables: &[BTreeMap<String, String>],
    switches: &[&str],
) {
    let pdf = browser.call(
        "Page.printToPDF",
        json!({"preferCSSPageSize": true, "printBackground": true}),
    );
    let pdf = decode_base64(pdf["data"].as_str().expect("pdf"));
    assert!(
        pdf.starts_with(b"%PDF"),
        "{inventory}: printToPDF gives a PDF"
    );
    std::fs::write(artifacts_dir().join(format!("{name}-sheets.pdf")), &pdf).expect("write pdf");
    let sheets = page["sheets"].as_u64().unwrap_or(0) as usize;
    if sheets == 0 {
        return;
    }
    assert_eq!(
        pdf_pages(&pdf),
        sheets,
        "{inventory}: one PDF page per sheet"
    );
    // Independently: every rack (or switch) gets ceil(cables touching it / 30) pages.
    let racks = cables.iter().any(|c| !c["a_rack"].is_empty());
    let mut per_loc: BTreeMap<String, usize> = BTreeMap::new();
    for c in cables {
        let mut locs = if racks {
            vec![c["a_rack"].clone(), c["b_rack"].clone()]
        } else {
            let is_switch = |d: &str| switches.contains(&d);
            [c["a_device"].clone(), c["b_device"].clone()]
                .into_iter()
                .filter(|d| is_switch(d))
                .collect()
        };
        locs.dedup();
        for l in locs.into_iter().filter(|l| !l.is_empty()) {
            *per_loc.entry(l).or_default() += 1;
        }
    }
    let want: usize = per_loc.values().map(|n| n.div_ceil(30)).sum();
    assert_eq!(sheets, want, "{inventory}: sheets per location");
    // A screenshot of the first printed page as the printer lays it out.
    browser.call("Emulation.setEmulatedMedia", json!({"media": "print"}));
    let area = clip(browser, "#sheet-pages .sheet");
    let first = browser.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true, "clip": area}),
    );
    std::fs::write(
        artifacts_dir().join(format!("{name}-sheet-page1.png")),
        decode_base64(first["data"].as_str().expect("png")),
    )
    .expect("write png");
    browser.call("Emulation.setEmulatedMedia", json!({"media": ""}));
}

/// No console errors; nothing loaded but the page itself and data: URLs.
fn check_self_contained(inventory: &str, browser: &Browser, dir: &Path) {
    let errors = browser.errors();
    assert!(
        errors.is_empty(),
        "{inventory}: console errors: {errors:#?}"
    );
    let outside: Vec<String> = browser
        .requests()
        .into_iter()
        .filter(|u| !u.starts_with("file://") && !u.starts_with("data:"))
        .collect();
    assert!(
        outside.is_empty(),
        "{inventory}: the page needed the network: {outside:?}"
    );
    let own = format!("file://{}", dir.join("report.html").display());
    let others: Vec<String> = browser
        .requests()
        .into_iter()
        .filter(|u| *u != own)
        .collect();
    assert!(
        others.is_empty(),
        "{inventory}: the page loaded other files: {others:?}"
    );
}

/// The CSS-pixel box of the first element matching `selector` (page coordinates).
pub(crate) fn clip(b: &mut Browser, selector: &str) -> Value {
    let r = b.eval(&format!(
        "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect();
            return {{x: r.left + window.scrollX, y: r.top + window.scrollY, width: Math.max(1, r.width), height: Math.max(1, r.height), scale: 1}}; }})()"
    ));
    assert!(r.is_object(), "no element {selector}");
    r
}

#[test]
fn superpod_report_in_chromium() {
    if let Some(mut browser) = check_report("dgx-superpod-h100.yaml", "detail") {
        check_failure_domains(&mut browser);
    }
}

/// The "failure domains" section as Chromium shows it on the SuperPOD example, against figures
/// worked out by hand from `inventories/dgx-superpod-h100.yaml` and the DGX SuperPOD H100 RA
/// (RA-11333-001, "Network Fabrics"): 4 SUs of 32 positions; SU 1's position 32 holds the 4 UFM
/// appliances (so SU 1 has 31 DGX), appliance k on compute leaf k of SU 1 with its one port;
/// every DGX has 8 × 400G compute ports, rail r on leaf r of its SU (`rails_per_leaf: 1`); a
/// QM9700 leaf has 32 ports down and 32 up (non-blocking).
/// - Worst single failure: no leaf cuts a DGX off (7 rails left), so the ranking goes by
///   bandwidth down, 32 node ports + 32 uplinks = 64 × 400 = 25,600 Gb/s for every rail leaf,
///   then by name: leaf-su01-01. Its 31 DGX lose rail 1; the UFM appliance on it has no other
///   link and is named apart, cut off, not counted among the nodes (issue #39 item 10).
/// - A typical rail leaf (SU 2–4): its SU's 32 DGX lose one rail, 0 cut off.
fn check_failure_domains(browser: &mut Browser) {
    let v: Value = serde_json::from_str(
        browser
            .eval(
                r##"JSON.stringify((() => {
                const s = document.getElementById('failure-domains');
                const cells = tr => Array.from(tr.children).map(c => c.innerText.trim());
                return {
                    nav: !!document.querySelector('nav a[href="#failure-domains"]'),
                    height: s ? s.getBoundingClientRect().height : 0,
                    rows: s ? Array.from(s.querySelectorAll('table.failure-ranking tbody tr')).map(cells) : [],
                    roles: s ? Array.from(s.querySelectorAll('table.failure-roles tbody tr')).map(cells) : [],
                };
            })())"##,
            )
            .as_str()
            .expect("string"),
    )
    .expect("failure domains");
    assert_eq!(v["nav"], true, "table of contents entry: {v}");
    assert!(
        v["height"].as_f64().unwrap_or(0.0) > 100.0,
        "section shown: {v}"
    );
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(20), "top 20: {v}");
    let first = &v["rows"][0];
    let cell = |i: usize| first[i].as_str().unwrap_or_default();
    // rank, switch, role, network, nodes cut off, nodes losing a rail, Gb/s down.
    assert_eq!(
        [0, 1, 2, 3, 5, 6].map(cell),
        ["1", "leaf-su01-01", "leaf", "compute", "31", "25,600"],
        "{v}"
    );
    // Nodes cut off: none; the appliance named apart in the same cell.
    let cut: Vec<&str> = cell(4).lines().map(str::trim).collect();
    assert_eq!(cut, ["0", "appliances: ufm01 (compute)"], "{v}");
    assert!(
        cell(7).contains("compute su01 node-leaf: 12,400 of 99,200 Gb/s (12.50%)"),
        "31 of SU 1's 248 DGX compute ports: {v}"
    );
    assert!(
        cell(9).contains("su01: 31 of 31 nodes degraded, 0 cut off"),
        "{v}"
    );
    let leaf = v["roles"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r[0] == "leaf")
        .expect("a leaf row");
    assert_eq!(leaf[1], "32", "4 SUs × 8 rail leaves: {v}");
    let typical = leaf[5].as_str().unwrap_or_default();
    assert!(
        typical.starts_with("0 nodes cut off, 32 lose a rail, 25,600 Gb/s down"),
        "a rail leaf of SU 2–4: {typical}"
    );
    let roles: Vec<&str> = v["roles"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r[0].as_str())
        .collect();
    for want in ["spine", "storage-leaf", "oob-leaf"] {
        assert!(roles.contains(&want), "{want} in {roles:?}");
    }
}

#[test]
fn spectrum_x_report_with_racks_and_print_sheets_in_chromium() {
    check_report("spectrum-x-cloud.yaml", "detail");
}

#[test]
fn twin_planar_report_in_chromium() {
    check_report("spectrum-x-twin-planar.yaml", "detail");
}

#[test]
fn aggregated_report_in_chromium() {
    check_report("dgx-b200-16su.yaml", "per-su");
}

// ---- the workbook --------------------------------------------------------------------------

fn cell_text(d: &Data) -> String {
    match d {
        Data::Empty => String::new(),
        Data::String(s) => s.clone(),
        Data::Float(f) if f.fract() == 0.0 => format!("{}", *f as i64),
        Data::Float(f) => format!("{f}"),
        Data::Int(i) => i.to_string(),
        other => other.to_string(),
    }
}

fn sheet(wb: &mut Xlsx<Cursor<Vec<u8>>>, name: &str) -> Vec<Vec<String>> {
    let range = wb
        .worksheet_range(name)
        .unwrap_or_else(|e| panic!("sheet {name}: {e}"));
    range
        .rows()
        .map(|r| r.iter().map(cell_text).collect())
        .collect()
}

fn csv_table(files: &[railyard::output::OutputFile], path: &str) -> Vec<Vec<String>> {
    let text = common::file(files, path);
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    r.records()
        .map(|rec| rec.expect("record").iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn workbook_rows_equal_the_csv_files() {
    let files = common::example_outputs("spectrum-x-cloud.yaml");
    let bytes = files
        .iter()
        .find(|f| f.path == "cabling.xlsx")
        .expect("cabling.xlsx")
        .bytes
        .clone();
    let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(bytes)).expect("xlsx opens");
    let names = wb.sheet_names();
    for want in [
        "Summary",
        "Cabling",
        "Port maps",
        "Node ports",
        "BOM",
        "Addresses",
    ] {
        assert!(names.iter().any(|n| n == want), "sheet {want} in {names:?}");
    }
    let csv = csv_table(files, "cabling.csv");
    let xl = sheet(&mut wb, "Cabling");
    assert_eq!(xl.len(), csv.len(), "one row per cable plus the header");
    for (i, (x, c)) in xl.iter().zip(&csv).enumerate() {
        assert_eq!(x, c, "Cabling row {i}");
    }
    // Every rack has its sheet with exactly the cables that touch it.
    let header = &csv[0];
    let (ar, br) = (
        header.iter().position(|h| h == "a_rack").expect("a_rack"),
        header.iter().position(|h| h == "b_rack").expect("b_rack"),
    );
    let racks: std::collections::BTreeSet<&String> = csv[1..]
        .iter()
        .flat_map(|r| [&r[ar], &r[br]])
        .filter(|r| !r.is_empty())
        .collect();
    assert!(racks.len() > 3, "the spec has racks");
    for rack in racks {
        let want: Vec<&Vec<String>> = csv[1..]
            .iter()
            .filter(|r| &r[ar] == rack || &r[br] == rack)
            .collect();
        let got = sheet(&mut wb, &format!("Rack {rack}"));
        assert_eq!(got[0], *header, "rack {rack} header");
        assert_eq!(got.len() - 1, want.len(), "rack {rack} rows");
        for (g, w) in got[1..].iter().zip(want) {
            assert_eq!(g, w, "rack {rack}");
        }
    }
    for (sheet_name, path) in [
        ("BOM", "bom.csv"),
        ("Addresses", "addresses.csv"),
        ("Node ports", "portmaps/nodes.csv"),
    ] {
        assert_eq!(
            sheet(&mut wb, sheet_name),
            csv_table(files, path),
            "{sheet_name}"
        );
    }
    // Port maps: every switch's CSV, prefixed with the switch name.
    let ports = sheet(&mut wb, "Port maps");
    let mut n = 1;
    let mut maps: Vec<&railyard::output::OutputFile> = files
        .iter()
        .filter(|f| {
            f.path.starts_with("portmaps/")
                && f.path.ends_with(".csv")
                && f.path != "portmaps/nodes.csv"
        })
        .collect();
    maps.sort_by_key(|f| f.path.clone());
    let total: usize = maps
        .iter()
        .map(|f| csv_table(files, &f.path).len() - 1)
        .sum();
    assert_eq!(ports.len() - 1, total, "every port of every switch");
    for row in &ports[1..] {
        let switch = &row[0];
        let map = csv_table(files, &format!("portmaps/{switch}.csv"));
        assert!(
            map[1..].contains(&row[1..].to_vec()),
            "port row {row:?} is in portmaps/{switch}.csv"
        );
        n += 1;
    }
    assert_eq!(n, ports.len());
}

/// The design's colours (tailwind-like shades: header slate, one pale fill per tier).
const HEADER_FILL: &str = "FF1F2937";
const TIER_FILLS: [(&str, &str); 4] = [
    ("node-leaf", "FFDBEAFE"),
    ("leaf-spine", "FFD1FAE5"),
    ("spine-core", "FFFEF3C7"),
    ("mgmt", "FFE5E7EB"),
];

/// Column letters of 0-based index `i` (A, B, …, Z, AA, …).
fn column(i: usize) -> String {
    let (mut n, mut s) = (i + 1, Vec::new());
    while n > 0 {
        s.push(b'A' + ((n - 1) % 26) as u8);
        n = (n - 1) / 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap()
}

#[test]
fn workbook_formatting_as_openpyxl_reads_it() {
    let Some(python) = pyenv::python("workbook_formatting_as_openpyxl_reads_it") else {
        return;
    };
    let files = common::example_outputs("spectrum-x-cloud.yaml");
    let wb = openpyxl_read(&python, files);
    assert_eq!(wb["title"], "railyard cabling workbook");
    let sheets = wb["sheets"].as_array().unwrap();
    let by_name = |n: &str| {
        sheets
            .iter()
            .find(|s| s["name"] == n)
            .unwrap_or_else(|| panic!("sheet {n}"))
    };
    assert_eq!(sheets[0]["name"], "Summary", "Summary first");
    check_summary_sheet(&sheets[0], files);
    let csv = csv_table(files, "cabling.csv");
    for s in sheets.iter().skip(1) {
        check_table_sheet(s);
    }
    check_cabling_sheet(by_name("Cabling"), &csv);
}

/// What a purchase order needs beyond `bom.csv` is named, each with why (issue #46's list: power
/// cords, PDUs, rails, licences, patch panels, label stock), and every switch and node line
/// either carries a sourced part (a source kind) or says it is a model and where to read why.
#[test]
fn bom_names_what_an_order_needs_beyond_it() {
    let files = common::example_outputs("spectrum-x-cloud.yaml");
    let excluded = csv_table(files, "bom-not-included.csv");
    assert_eq!(excluded[0], ["item", "why"]);
    for want in [
        "power cord",
        "pdu",
        "rail",
        "licence",
        "patch panel",
        "label stock",
    ] {
        let row = excluded[1..]
            .iter()
            .find(|r| r[0].to_lowercase().contains(want))
            .unwrap_or_else(|| panic!("{want} not listed: {excluded:?}"));
        assert!(row[1].len() > 20, "{want}: a reason, not {:?}", row[1]);
    }
    let bom = csv_table(files, "bom.csv");
    let col = |n: &str| bom[0].iter().position(|h| h == n).unwrap();
    let (cat, kind, note) = (col("category"), col("source_kind"), col("note"));
    let models: Vec<&Vec<String>> = bom[1..]
        .iter()
        .filter(|r| r[cat] == "switch" || r[cat] == "node")
        .collect();
    assert!(models.len() >= 2, "{bom:?}");
    for r in models {
        assert!(
            !r[kind].is_empty() || r[note].contains("bom-not-included.csv"),
            "{r:?}"
        );
    }
}

/// The workbook as openpyxl reads it (`xlsx_read.py`'s JSON).
fn openpyxl_read(python: &Path, files: &[railyard::output::OutputFile]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("cabling.xlsx");
    std::fs::write(
        &book,
        &files
            .iter()
            .find(|f| f.path == "cabling.xlsx")
            .unwrap()
            .bytes,
    )
    .unwrap();
    let out = Command::new(python)
        .arg(pyenv::script("xlsx_read.py"))
        .arg(&book)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "openpyxl refused the workbook: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Summary: figures as numbers, names as text kept as text.
fn check_summary_sheet(sheet: &Value, files: &[railyard::output::OutputFile]) {
    let summary: Value = serde_json::from_str(&common::file(files, "summary.json")).unwrap();
    let cells: Vec<&Value> = sheet["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .collect();
    let value_of = |key: &str| {
        let at = cells.iter().position(|c| c["value"] == key).unwrap();
        cells[at + 1]
    };
    assert_eq!(value_of("GPUs")["value"], summary["gpus"]);
    assert_eq!(value_of("GPUs")["type"], "int");
    assert_eq!(value_of("cluster")["value"], summary["cluster"]);
    assert_eq!(value_of("cluster")["format"], "@");
}

/// Every table: header bold white on slate, frozen, filtered over exactly its rows, printed
/// landscape one page wide with the header on every page.
fn check_table_sheet(s: &Value) {
    let name = s["name"].as_str().unwrap();
    let rows = s["rows"].as_array().unwrap();
    let head = rows[0].as_array().unwrap();
    for h in head {
        assert_eq!(
            (&h["bold"], &h["font"], &h["fill"]),
            (&json!(true), &json!("FFFFFFFF"), &json!(HEADER_FILL)),
            "{name} header {h}"
        );
    }
    let last = format!("{}{}", column(head.len() - 1), rows.len());
    assert_eq!(s["filter"], format!("A1:{last}"), "{name}");
    assert_eq!(s["freeze"], "A2", "{name}");
    assert_eq!(s["titles"], "$1:$1", "{name}");
    assert_eq!(s["orientation"], "landscape", "{name}");
    assert_eq!(
        (&s["fit_to_page"], &s["fit_height"]),
        (&json!(true), &json!(0)),
        "{name}"
    );
    // Wide enough for the header and its filter button, at most 60 characters.
    for (i, h) in head.iter().enumerate() {
        let w = s["widths"][column(i)]
            .as_f64()
            .unwrap_or_else(|| panic!("{name} width {i}"));
        let chars = h["value"].as_str().unwrap().chars().count() as f64;
        assert!(w >= chars + 3.0 && w <= 61.0, "{name} column {i}: {w}");
    }
}

/// Cabling: the CSV's rows, each cell filled with its tier's colour; lengths as numbers.
fn check_cabling_sheet(cabling: &Value, csv: &[Vec<String>]) {
    let header = &csv[0];
    assert_eq!(cabling["tab"], "FF2563EB");
    let rows = cabling["rows"].as_array().unwrap();
    assert_eq!(rows.len(), csv.len(), "a row per cable and the header");
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let (tier, length, label) = (col("tier"), col("length_m"), col("label"));
    let mut tiers_seen = std::collections::BTreeSet::new();
    for (row, want) in rows.iter().zip(csv).skip(1) {
        let fill = TIER_FILLS
            .iter()
            .find(|(t, _)| *t == want[tier])
            .map(|(_, f)| *f);
        tiers_seen.insert(want[tier].clone());
        let cells = row.as_array().unwrap();
        for c in cells {
            assert_eq!(c["fill"].as_str(), fill, "{} ({})", c["ref"], want[tier]);
        }
        let by_col = |i: usize| {
            let r = column(i);
            cells.iter().find(|c| {
                c["ref"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches(char::is_numeric)
                    == r
            })
        };
        let len = by_col(length).expect("a length");
        assert!(
            matches!(len["type"].as_str(), Some("int" | "float")),
            "{len}"
        );
        assert_eq!(len["value"].as_f64(), want[length].parse::<f64>().ok());
        assert_eq!(by_col(label).expect("a label")["value"], want[label]);
    }
    assert!(tiers_seen.len() >= 3, "{tiers_seen:?}");
    let longest = csv[1..]
        .iter()
        .map(|r| r[label].chars().count())
        .max()
        .unwrap();
    let w = cabling["widths"][column(label)].as_f64().unwrap();
    assert!(
        w >= (longest.min(60) + 1) as f64,
        "label column {w} for {longest} characters"
    );
}

// ---- determinism and labels ------------------------------------------------------------------

#[test]
fn deliverables_are_byte_identical_on_rebuild() {
    let spec = common::inventory("spectrum-x-cloud.yaml");
    let src = railyard::diag::SourceFile::new("spec.yaml", spec);
    let first = railyard::compile(&src)
        .report_outputs()
        .expect("compiles")
        .expect("writes");
    // A clock-dependent field (the workbook's creation time) would differ after a second.
    std::thread::sleep(Duration::from_millis(1100));
    let second = railyard::compile(&src)
        .report_outputs()
        .expect("compiles")
        .expect("writes");
    assert_eq!(first.len(), second.len());
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a.path, b.path);
        assert!(a.bytes == b.bytes, "{} differs between two builds", a.path);
    }
    let paths: Vec<&str> = first.iter().map(|f| f.path.as_str()).collect();
    for want in ["report.html", "cabling.xlsx", "manifest.json"] {
        assert!(paths.contains(&want), "{want} in {paths:?}");
    }
    assert!(paths.iter().any(|p| p.starts_with("labels/")));
}

/// The office-printer label sheets of an example (`build --only labels`), rendered once per
/// test binary and written under `target/report-artifacts/<name>/`.
fn build_sheets(name: &str, inventory: &'static str) -> (PathBuf, &'static [OutputFile]) {
    type Cell = std::sync::OnceLock<Vec<OutputFile>>;
    static MEMO: std::sync::Mutex<BTreeMap<&'static str, &'static Cell>> =
        std::sync::Mutex::new(BTreeMap::new());
    let cell: &'static Cell = MEMO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(inventory)
        .or_insert_with(|| Box::leak(Box::default()));
    let files = cell.get_or_init(|| {
        common::outputs_of(
            &common::inventory(inventory),
            &[railyard::output::OutputGroup::Labels],
        )
    });
    let dir = artifacts_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for f in files {
        let p = dir.join(&f.path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
        std::fs::write(&p, &f.bytes).expect("write");
    }
    (dir, files)
}

/// The text content of every `<div class="line…">` inside one label's markup.
fn label_lines(label: &str) -> Vec<String> {
    label
        .split("<div class=\"line")
        .skip(1)
        .map(|s| {
            let body = &s[s.find('>').map_or(0, |i| i + 1)..];
            let text = &body[..body.find("</div>").unwrap_or(body.len())];
            text.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&")
        })
        .collect()
}

#[test]
fn two_labels_per_cable_with_the_csv_label_text() {
    for inventory in ["spectrum-x-cloud.yaml", "lab-small.yaml"] {
        let files = common::example_outputs(inventory);
        let (_, cables) = csv_rows(files, "cabling.csv");
        let by_id: BTreeMap<&str, &str> = cables
            .iter()
            .map(|c| (c["cable_id"].as_str(), c["label"].as_str()))
            .collect();
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let (_, sheets) = build_sheets(&format!("sheets-{inventory}"), inventory);
        for f in sheets.iter().filter(|f| f.path.ends_with(".html")) {
            let html = String::from_utf8(f.bytes.clone()).expect("utf-8");
            assert!(
                html.contains("size: 2in 1.5in"),
                "{}: page = label stock",
                f.path
            );
            for label in html.split("<div class=\"label\"").skip(1) {
                let attr = |name: &str| {
                    let s =
                        &label[label.find(&format!("{name}=\"")).expect(name) + name.len() + 2..];
                    s[..s.find('"').expect("quote")].to_string()
                };
                let (id, end) = (attr("data-cable"), attr("data-end"));
                let lines = label_lines(label);
                assert_eq!(lines.len(), 2, "{id} {end}: two text lines");
                assert_eq!(
                    lines.concat(),
                    by_id[id.as_str()],
                    "{id} {end}: label text as in cabling.csv"
                );
                assert!(label.contains("class=\"qr\""), "{id} {end}: QR code");
                seen.entry(id).or_default().push(end);
            }
        }
        assert_eq!(
            seen.len(),
            cables.len(),
            "{inventory}: every cable labelled"
        );
        for (id, ends) in &seen {
            assert_eq!(
                ends,
                &["A", "B"],
                "{inventory}: {id} has an A and a B label"
            );
        }
    }
}

#[test]
fn label_sheet_prints_one_label_per_page_in_chromium() {
    let Some(bin) = chromium("label_sheet_prints_one_label_per_page_in_chromium") else {
        return;
    };
    let (dir, files) = build_sheets("labels-lab-small", "lab-small.yaml");
    let file = files
        .iter()
        .find(|f| f.path.starts_with("labels/leaf"))
        .expect("a leaf's labels");
    let labels = String::from_utf8_lossy(&file.bytes)
        .matches("class=\"label\"")
        .count();
    let mut browser = Browser::launch(&bin);
    browser.load(&dir.join(&file.path));
    let pdf = browser.call("Page.printToPDF", json!({"preferCSSPageSize": true}));
    let pdf = decode_base64(pdf["data"].as_str().expect("pdf"));
    std::fs::write(artifacts_dir().join("labels-lab-small.pdf"), &pdf).expect("write");
    assert_eq!(pdf_pages(&pdf), labels, "one page per label");
    // 2.00 in × 1.50 in = 144 pt × 108 pt.
    let text = String::from_utf8_lossy(&pdf);
    assert!(
        text.contains("/MediaBox [0 0 144 108]"),
        "label-sized pages"
    );
    let errors = browser.errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}

/// The QR code of a label is what a scanner reads: Chromium draws the label sheet, zbarimg
/// decodes each code from the screenshot, and it must be the label's cable id, on the A-end label
/// (which draws the path) and on the B-end label (which reuses it).
#[test]
fn label_qr_codes_scan_to_the_cable_id() {
    let test = "label_qr_codes_scan_to_the_cable_id";
    let Some(bin) = chromium(test) else { return };
    let Some(zbar) = prereq::program(test, "zbarimg", "zbar-tools") else {
        return;
    };
    let (dir, files) = build_sheets("labels-qr", "spectrum-x-cloud.yaml");
    let file = files
        .iter()
        .find(|f| f.path.starts_with("labels/"))
        .expect("a label sheet");
    let mut browser = Browser::launch(&bin);
    browser.load(&dir.join(&file.path));
    let count = browser.eval("document.querySelectorAll('.label').length");
    let count = count.as_u64().expect("label count");
    assert!(count >= 4, "{}: labels to scan", file.path);
    // The first two cables (four labels) and the last label of the sheet.
    let mut scanned = 0;
    for k in [0, 1, 2, 3, count - 1] {
        let area = browser.eval(&format!(
            "(() => {{ const l = document.querySelectorAll('.label')[{k}];
                const r = l.querySelector('svg.qr').getBoundingClientRect();
                return {{x: r.left + window.scrollX - 8, y: r.top + window.scrollY - 8,
                         width: r.width + 16, height: r.height + 16, scale: 4,
                         cable: l.dataset.cable, end: l.dataset.end}}; }})()"
        ));
        let cable = area["cable"].as_str().expect("data-cable").to_string();
        let end = area["end"].as_str().expect("data-end").to_string();
        let shot = browser.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true,
                   "clip": {"x": area["x"], "y": area["y"], "width": area["width"],
                            "height": area["height"], "scale": 4}}),
        );
        let png = decode_base64(shot["data"].as_str().expect("png"));
        let path = artifacts_dir().join(format!("label-qr-{k}.png"));
        std::fs::write(&path, png).expect("write png");
        let out = Command::new(&zbar)
            .args(["--raw", "-q", "-Sdisable", "-Sqrcode.enable"])
            .arg(&path)
            .output()
            .expect("zbarimg runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text.trim_end(),
            cable,
            "{} label {k} ({cable} end {end}): the QR code scans to the cable id ({})",
            file.path,
            path.display()
        );
        scanned += 1;
    }
    assert_eq!(scanned, 5);
    let errors = browser.errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}

#[test]
fn report_command_writes_the_deliverables_and_no_progress_when_not_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("rep");
    let run = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("report")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories/spectrum-x-cloud.yaml"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("railyard runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "exit {:?}: {stderr}", run.status);
    for f in [
        "report.html",
        "cabling.xlsx",
        "manifest.json",
        "labels/A09.zpl",
        "labels/A09.csv",
    ] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    assert!(
        !out.join("cabling.csv").exists(),
        "report writes only the deliverables"
    );
    // stderr is a pipe here: the progress spinner and bar must not draw.
    assert!(
        !stderr.contains('\r') && !stderr.contains("compiling") && !stderr.contains("files ["),
        "progress drawn on a non-terminal: {stderr:?}"
    );
    assert!(stderr.contains("wrote"), "{stderr}");
}

// ---- per-pod report and workbooks (above `report.per_pod_above_gpus`) ----------------------

/// The 16k-GPU bench fabric (`tests/fixtures/pods/bench-64.yaml`): 64 SUs in spine groups of 4.
fn bench_16k() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pods/bench-64.yaml"),
    )
    .expect("bench spec")
}

/// Open `path` and return the milliseconds from navigation to the page's script being done.
fn timed_open(browser: &mut Browser, path: &Path) -> u128 {
    let t = std::time::Instant::now();
    browser.open(path);
    t.elapsed().as_millis()
}

/// The 16k index and one pod page in Chromium: every link of the index resolves to a written
/// file, the pod grid fits a 1280 × 800 window with every pod box at least 100 px wide, each
/// page opens without an error; the pod page and workbook hold exactly the cables with an end in
/// the pod (its devices read from plan.json: SUs 1–4 and spine group 1).
#[test]
fn per_pod_report_at_16k_in_chromium() {
    let Some(bin) = chromium("per_pod_report_at_16k_in_chromium") else {
        return;
    };
    let t = std::time::Instant::now();
    let files = common::outputs_of(
        &bench_16k(),
        &[
            railyard::output::OutputGroup::Report,
            railyard::output::OutputGroup::Plan,
            railyard::output::OutputGroup::Cabling,
        ],
    );
    eprintln!("16k report build: {} ms", t.elapsed().as_millis());
    let dir = artifacts_dir().join("pods-16k");
    let _ = std::fs::remove_dir_all(&dir);
    for f in &files {
        let p = dir.join(&f.path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, &f.bytes).expect("write");
    }
    // 64 SUs / 4 SUs per spine group = 16 pods, and the cores and shared switches.
    for k in 1..=16 {
        for p in [
            format!("report/pod{k}.html"),
            format!("workbooks/pod{k}.xlsx"),
        ] {
            assert!(dir.join(&p).is_file(), "{p} written");
        }
    }
    assert!(dir.join("report/central.html").is_file());

    let mut browser = Browser::launch(&bin);
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}),
    );
    let ms = timed_open(&mut browser, &dir.join("report.html"));
    eprintln!("16k index: {ms} ms to loaded and drawn");
    let links: Vec<String> = serde_json::from_value(browser.eval(
        "Array.from(document.querySelectorAll('a')).map(a => a.getAttribute('href')).filter(h => h && !h.startsWith('#'))",
    ))
    .expect("links");
    assert!(links.len() >= 34, "a pod page and workbook each: {links:?}");
    for l in &links {
        assert!(dir.join(l).is_file(), "index link {l} resolves to a file");
    }
    let geometry = browser.eval(
        "(() => { const s = document.getElementById('pod-grid').getBoundingClientRect();
            const w = Array.from(document.querySelectorAll('#pod-grid a.pod rect')).map(r => r.getBoundingClientRect().width);
            return {svg: s.width, view: document.documentElement.clientWidth, pods: w.length, min: Math.min(...w)}; })()",
    );
    eprintln!("16k pod grid: {geometry}");
    assert_eq!(geometry["pods"], 16, "one box per pod: {geometry}");
    assert!(
        geometry["svg"].as_f64() <= geometry["view"].as_f64(),
        "the grid fits the window: {geometry}"
    );
    assert!(
        geometry["min"].as_f64().unwrap_or(0.0) >= 100.0,
        "pod boxes readable: {geometry}"
    );
    let area = clip(&mut browser, "#diagram");
    let shot = browser.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true, "clip": area}),
    );
    let png = decode_base64(shot["data"].as_str().expect("png"));
    assert!(png.starts_with(b"\x89PNG"));
    std::fs::write(artifacts_dir().join("pods-16k-index.png"), png).expect("write png");

    let ms = timed_open(&mut browser, &dir.join("report/pod1.html"));
    eprintln!("16k pod page: {ms} ms to loaded and drawn");
    let expected = pod1_cables(&files);
    let shown = browser.eval("window.railyardReport.cables");
    assert_eq!(shown, json!(expected.len()), "pod 1's cables on its page");
    let errors = browser.errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");

    let book = std::fs::read(dir.join("workbooks/pod1.xlsx")).expect("pod workbook");
    let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(book)).expect("xlsx");
    let ids: std::collections::BTreeSet<String> = sheet(&mut wb, "Cabling")
        .into_iter()
        .skip(1)
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(ids, expected, "pod 1's workbook holds its cables");
}

/// The cable ids of `cabling.csv` with an end on a device of pod 1: SUs 1–4, and the compute
/// spines of spine group 1 (plan.json's `su` and `group`).
fn pod1_cables(files: &[OutputFile]) -> std::collections::BTreeSet<String> {
    let plan: Value = serde_json::from_str(&common::file(files, "plan.json")).expect("plan");
    let pod: std::collections::BTreeSet<&str> = plan["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .filter(|d| {
            d["su"].as_u64().is_some_and(|s| (1..=4).contains(&s))
                || (d["role"] == "spine" && d["group"] == 1)
        })
        .filter_map(|d| d["name"].as_str())
        .collect();
    let (_, cables) = csv_rows(files, "cabling.csv");
    cables
        .iter()
        .filter(|c| pod.contains(c["a_device"].as_str()) || pod.contains(c["b_device"].as_str()))
        .map(|c| c["cable_id"].clone())
        .collect()
}

/// Records what a build rendered and carries over what the previous one recorded.
#[derive(Default)]
struct RecordingMemo {
    before: BTreeMap<String, [u8; 32]>,
    now: std::sync::Mutex<BTreeMap<String, [u8; 32]>>,
    reused: std::sync::Mutex<Vec<String>>,
}

impl railyard::output::Memo for RecordingMemo {
    fn reuse(&self, unit: &str, inputs: &[u8; 32]) -> bool {
        let same = self.before.get(unit) == Some(inputs);
        if same {
            self.reused.lock().expect("lock").push(unit.to_string());
            self.now.lock().expect("lock").insert(unit.into(), *inputs);
        }
        same
    }
    fn record(&self, unit: &str, inputs: &[u8; 32], _: Vec<String>) {
        self.now.lock().expect("lock").insert(unit.into(), *inputs);
    }
}

/// A 3-tier fabric grown by one SU (7 → 8, in pod 2) renders again pod 2's page and workbook,
/// the index and the summary workbook, and carries pod 1's over; a small fabric (lab-small)
/// keeps one page and one workbook.
#[test]
fn one_su_more_renders_only_its_pod() {
    let spec = |sus: u32| {
        format!(
            "name: grow\nscalable_units: {{count: {sus}, nodes_per_su: 32, node_model: dgx-h100}}\n\
             compute:\n  leaf: {{model: sn5600, rails_per_leaf: 2}}\n  spine: {{model: sn5600, sus_per_group: 4}}\n  \
             tiers: 3\n  core: {{model: sn5600}}\nreport: {{per_pod_above_gpus: 0}}\n"
        )
    };
    let build = |sus: u32, before: BTreeMap<String, [u8; 32]>| {
        let c = railyard::compile(&railyard::diag::SourceFile::new("grow.yaml", spec(sus)));
        let memo = RecordingMemo {
            before,
            ..RecordingMemo::default()
        };
        let paths = std::sync::Mutex::new(Vec::new());
        let only = railyard::output::Selection::of(&[railyard::output::OutputGroup::Report]);
        c.emit(
            &railyard::render::Templates::default(),
            &only,
            &|f: OutputFile| paths.lock().expect("lock").push(f.path),
            &memo,
        )
        .expect("compiles")
        .expect("renders");
        let mut paths = paths.into_inner().expect("paths");
        paths.sort();
        (paths, memo)
    };
    let (first, memo) = build(7, BTreeMap::new());
    for p in [
        "report.html",
        "report/pod1.html",
        "report/pod2.html",
        "workbooks/pod1.xlsx",
    ] {
        assert!(first.contains(&p.to_string()), "{p} in {first:?}");
    }
    let (second, memo) = build(8, memo.now.into_inner().expect("memo"));
    let reused = memo.reused.into_inner().expect("reused");
    for unit in ["report/pod1.html", "workbooks/pod1.xlsx"] {
        assert!(reused.contains(&unit.to_string()), "{unit} carried over");
        assert!(!second.contains(&unit.to_string()), "{unit} not rendered");
    }
    for p in [
        "report.html",
        "cabling.xlsx",
        "report/pod2.html",
        "workbooks/pod2.xlsx",
    ] {
        assert!(second.contains(&p.to_string()), "{p} rendered again");
    }
    let small = common::example_outputs("lab-small.yaml");
    assert!(
        !small
            .iter()
            .any(|f| f.path.starts_with("report/") || f.path.starts_with("workbooks/")),
        "lab-small keeps one page and one workbook"
    );
}

/// The buyer sees a third-party part number wherever the BOM is shown (issue #42): the
/// workbook's BOM sheet (read with calamine) and the report page carry the line's source kind and
/// "confirm with the vendor before ordering", for the XDR parts of `dgx-b300-xdr.yaml`.
#[test]
fn workbook_and_report_mark_third_party_part_numbers() {
    let files = common::example_outputs("dgx-b300-xdr.yaml");
    let bytes = files
        .iter()
        .find(|f| f.path == "cabling.xlsx")
        .expect("cabling.xlsx")
        .bytes
        .clone();
    let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(bytes)).expect("xlsx opens");
    let bom = sheet(&mut wb, "BOM");
    let header = &bom[0];
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (part, kind, note) = (col("part"), col("source_kind"), col("note"));
    let marked: Vec<&Vec<String>> = bom[1..]
        .iter()
        .filter(|r| r[kind] == "third-party")
        .collect();
    assert!(
        marked.iter().any(|r| r[part] == "980-9IAH1-00XM00"),
        "{bom:?}"
    );
    for r in &marked {
        assert_eq!(r[note], "confirm with the vendor before ordering", "{r:?}");
    }
    let page = common::file(files, "report.html");
    assert!(page.contains("980-9IAT0-00XM00"));
    assert!(page.contains("confirm with the vendor before ordering"));
}

/// Every count of the workbook is a number a spreadsheet sums (#46: `spares` and `order` were
/// stored as text, so a sum was 0): the BOM sheet's `quantity`, `spares` and `order` columns,
/// summed by openpyxl, equal the same columns of `bom.csv` summed here.
#[test]
fn workbook_counts_sum_to_the_csvs_totals() {
    let Some(python) = pyenv::python("workbook_counts_sum_to_the_csvs_totals") else {
        return;
    };
    let files = common::example_outputs("spectrum-x-cloud.yaml");
    let wb = openpyxl_read(&python, files);
    let csv = csv_table(files, "bom.csv");
    let sheet = wb["sheets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "BOM")
        .expect("a BOM sheet");
    let rows = sheet["rows"].as_array().unwrap();
    let header: Vec<&str> = rows[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["value"].as_str().unwrap())
        .collect();
    for column in ["quantity", "spares", "order"] {
        let at = header.iter().position(|h| *h == column).unwrap();
        let col = format!("{}", (b'A' + at as u8) as char);
        let mut sum = 0i64;
        for r in &rows[1..] {
            for c in r.as_array().unwrap() {
                if c["ref"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches(char::is_numeric)
                    == col
                {
                    assert_eq!(c["type"], "int", "{column} {}: {}", c["ref"], c["value"]);
                    sum += c["value"].as_i64().unwrap();
                }
            }
        }
        let ci = csv[0].iter().position(|h| h == column).unwrap();
        let want: i64 = csv[1..].iter().map(|r| r[ci].parse::<i64>().unwrap()).sum();
        assert_eq!(sum, want, "{column}");
        assert!(want > 0 || column == "spares", "{column}");
    }
}
