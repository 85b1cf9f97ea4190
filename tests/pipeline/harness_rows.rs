//! A breakout harness's legs end in one row (issue #46 item 6): a harness fans out at one point,
//! so a split connector whose links reach into several rows breaks out at a patch panel in its
//! own rack, the harness ordered at the in-rack length and each leg on a duplex cord of its own.
//! Checked on spectrum-x-cloud's OOB uplinks (three SUs, three rows, one gateway cage) and, as a
//! property, on generated fabrics with rack layouts: every leg that runs on a splitter part of
//! the catalog ends in the same row as the other legs of its harness. Rows are read off the rack
//! names of `cabling.csv` (`A09`: row A; `N0-04`: the network row), parts off `bom.csv`.

use std::collections::{BTreeMap, BTreeSet};

use proptest::test_runner::{Config, TestRunner};
use railyard::diag::SourceFile;
use railyard::model::FibreKind;
use railyard::render::Templates;

use crate::common::{inventory, outputs};
use crate::spec_generator::{cases, cluster};

/// A rack's row by its name: its letters (`A09` → `A`), or the network row (`N0-04` → `N0`).
fn row(rack: &str) -> String {
    match rack.split_once('-') {
        Some((r, _)) => r.to_string(),
        None => rack.chars().take_while(char::is_ascii_alphabetic).collect(),
    }
}

fn cabling(files: &[railyard::output::OutputFile]) -> Vec<BTreeMap<String, String>> {
    table(files, "cabling.csv")
}

/// The catalog's splitter (harness) fibre families.
fn splitters() -> BTreeSet<String> {
    railyard::catalog::builtin()
        .fibres
        .iter()
        .filter(|(_, f)| f.kind == FibreKind::Splitter)
        .map(|(n, _)| n.to_string())
        .collect()
}

/// The far end's row of each leg that runs on a splitter part, by harness.
fn harness_rows(rows: &[BTreeMap<String, String>]) -> BTreeMap<String, BTreeSet<String>> {
    let split = splitters();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in rows.iter().filter(|r| !r["harness"].is_empty()) {
        if !split.contains(&r["cable_part"]) || r["a_rack"].is_empty() {
            continue;
        }
        // The far end is the one that is not the harness's own device.
        let hub = r["harness"].split(':').next().unwrap_or_default();
        let far = if r["a_device"] == hub {
            &r["b_rack"]
        } else {
            &r["a_rack"]
        };
        out.entry(r["harness"].clone())
            .or_default()
            .insert(row(far));
    }
    out
}

#[test]
fn oob_uplinks_from_three_rows_break_out_at_a_panel() {
    let files = outputs(&inventory("spectrum-x-cloud.yaml"));
    let rows = cabling(&files);
    let uplinks: Vec<_> = rows.iter().filter(|r| r["tier"] == "oob-uplink").collect();
    let far_rows: BTreeSet<String> = uplinks.iter().map(|r| row(&r["a_rack"])).collect();
    assert_eq!(far_rows.len(), 3, "three SUs, three rows: {far_rows:?}");
    // One gateway cage split four ways, so one harness; every uplink on a cord of its own.
    let harnesses: BTreeSet<&str> = uplinks.iter().map(|r| r["harness"].as_str()).collect();
    assert_eq!(harnesses.len(), 1);
    let split = splitters();
    for r in &uplinks {
        assert!(
            !split.contains(&r["cable_part"]),
            "{r:?} runs on the harness across rows"
        );
    }
    // The BOM: the harness at the in-rack length (the spec's `racks.in_rack_m`, default 2 m)
    // and a duplex cord per uplink at that uplink's own run.
    let bom = table(&files, "bom.csv");
    let part = |p: String| bom.iter().filter(move |l| l["part"] == p);
    let h: Vec<_> = part("GEN-MPO12-UPC-4LC-OM4".into()).collect();
    assert_eq!(h.len(), 1, "{h:?}");
    assert!(h[0]["description"].ends_with(", 2 m"), "{:?}", h[0]);
    for r in &uplinks {
        let length = format!(", {} m", r["length_m"]);
        assert!(
            part(r["cable_part"].clone()).any(|l| l["description"].ends_with(&length)),
            "no {} of {} m in the BOM",
            r["cable_part"],
            r["length_m"]
        );
    }
}

/// A CSV file's rows as column → cell.
fn table(files: &[railyard::output::OutputFile], path: &str) -> Vec<BTreeMap<String, String>> {
    let f = files.iter().find(|f| f.path == path).expect(path);
    let mut r = csv::Reader::from_reader(&f.bytes[..]);
    r.deserialize().map(|x| x.expect("row")).collect()
}

#[test]
fn no_harness_leg_crosses_rows_in_generated_fabrics() {
    let mut runner = TestRunner::new(Config {
        cases: cases(16),
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&cluster(), |c| {
        let text = c.yaml();
        let compiled = railyard::compile(&SourceFile::new("gen.yaml", text.as_str()));
        let Some(Ok(files)) = compiled.outputs(&Templates::default()) else {
            return Ok(());
        };
        for (h, rows) in harness_rows(&cabling(&files)) {
            proptest::prop_assert!(
                rows.len() == 1,
                "harness {} ends in rows {:?}\n{}",
                h,
                rows,
                text
            );
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
