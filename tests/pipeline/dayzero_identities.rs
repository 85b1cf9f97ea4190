//! Device identities (`railyard build --identities`, #45 item 1): the identity CSV read with
//! NetBox/Nautobot column names, hostile cells (a MAC with a line break, a serial with shell
//! metacharacters) refused at the boundary with a located RY1101, unknown devices (RY1102) and
//! duplicates (RY1103) refused, and the planned addresses unchanged by a build that reads them.
//! The switch names come from the build's own `addresses.csv`, read here as CSV (its `mgmt`
//! rows), not from the parser under test.

use railyard::dayzero::{Mac, Serial};
use railyard::diag::{Diagnostics, SourceFile};

use crate::common::{example_outputs, railyard_in};

const SPEC: &str = "lab-small.yaml";

/// The switches with a management address in the example's `addresses.csv`.
fn switches() -> Vec<String> {
    let files = example_outputs(SPEC);
    let text = crate::common::file(files, "addresses.csv");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (device, purpose) = (col("device"), col("purpose"));
    let mut out: Vec<String> = r
        .records()
        .map(|rec| rec.expect("row"))
        .filter(|rec| &rec[purpose] == "mgmt")
        .map(|rec| rec[device].to_owned())
        .collect();
    out.dedup();
    assert!(out.len() >= 4, "the example has switches: {out:?}");
    out
}

/// One sample identity file: NetBox's export columns (with an extra column ignored).
fn sample() -> String {
    let mut s = String::from("name,status,mac_address,serial\n");
    for (i, n) in switches().iter().enumerate() {
        s.push_str(&format!(
            "{n},active,1C-34-DA-00-00-{:02X},MT2300X{i:05}\n",
            i + 1
        ));
    }
    s
}

fn parse(text: &str) -> (railyard::dayzero::Identities, Vec<(String, usize, usize)>) {
    let c = railyard::compile(&SourceFile::new(SPEC, crate::common::inventory(SPEC)));
    let design = c.design.expect("the example compiles");
    let src = SourceFile::new("ids.csv", text);
    let mut diags = Diagnostics::default();
    let ids = railyard::dayzero::parse(&src, &design.fabric, &mut diags);
    let found = diags
        .sorted()
        .iter()
        .map(|d| {
            let (line, col) = d.span.map(|s| src.line_col(s.start)).expect("located");
            (d.code.id.to_owned(), line, col)
        })
        .collect();
    (ids, found)
}

#[test]
fn a_netbox_export_gives_every_switch_its_identity() {
    let (ids, diags) = parse(&sample());
    assert_eq!(diags, vec![]);
    let names: Vec<&String> = ids.0.keys().collect();
    let mut want = switches();
    want.sort();
    assert_eq!(names, want.iter().collect::<Vec<_>>());
    let first = &ids.0[&switches()[0]];
    assert_eq!(
        first.mac.map(|m| m.to_string()).as_deref(),
        Some("1c:34:da:00:00:01")
    );
    assert_eq!(
        first.serial.as_ref().map(Serial::as_str),
        Some("MT2300X00000")
    );
}

#[test]
fn hostile_cells_are_refused_where_they_stand() {
    let sw = switches();
    // A quoted cell may hold a line break; a serial may try a command substitution.
    let text = format!(
        "name,mac_address,serial\n{},\"1c:34:da:00:00:01\nreboot\",SN1\n{},1c:34:da:00:00:02,\"$(rm -rf /);x\"\n",
        sw[0], sw[1]
    );
    let (ids, diags) = parse(&text);
    assert!(ids.0.is_empty(), "nothing hostile admitted: {ids:?}");
    assert_eq!(
        diags,
        vec![
            ("RY1101".to_owned(), 2, sw[0].len() + 3),
            ("RY1101".to_owned(), 4, sw[1].len() + 21)
        ],
    );
}

#[test]
fn unknown_devices_and_duplicates_are_refused() {
    let sw = switches();
    let text = format!(
        "device,mac\nnot-a-switch,1c:34:da:00:00:09\n{a},1c:34:da:00:00:01\n{a},1c:34:da:00:00:02\n{b},1c34.da00.0001\n",
        a = sw[0],
        b = sw[1]
    );
    let (ids, diags) = parse(&text);
    assert_eq!(ids.0.len(), 1);
    assert_eq!(
        diags,
        vec![
            ("RY1102".to_owned(), 2, 1),
            ("RY1103".to_owned(), 4, 1),
            ("RY1103".to_owned(), 5, 1),
        ]
    );
}

#[test]
fn a_hostile_cell_is_reported_also_on_a_row_refused_for_its_name() {
    let sw = switches();
    let text = format!(
        "name,mac_address,serial
ghost,1c:34:da:00:00:01,\"SN;rm\"\n{a},1c:34:da:00:00:02,SN2\n{a},\"1c:34:da:00:00:03\nx\",SN3\n",
        a = sw[0]
    );
    let (_, diags) = parse(&text);
    assert_eq!(
        diags,
        vec![
            ("RY1102".to_owned(), 2, 1),
            ("RY1101".to_owned(), 2, 26),
            ("RY1103".to_owned(), 4, 1),
            ("RY1101".to_owned(), 4, sw[0].len() + 3),
        ]
    );
}

#[test]
fn mac_forms_and_refusals() {
    for ok in [
        "1c:34:da:01:02:03",
        "1C-34-DA-01-02-03",
        "1c34.da01.0203",
        "1c34da010203",
    ] {
        assert_eq!(
            Mac::parse(ok).map(|m| m.to_string()),
            Ok("1c:34:da:01:02:03".to_owned()),
            "{ok}"
        );
    }
    for bad in [
        "1c:34:da:01:02:03\n",
        "1c:34:da:01:02",
        "1c:34-da:01:02:03",
        "01:00:5e:00:00:01",
        "00:00:00:00:00:00",
        "1c:34:da:01:02:0g",
        "１c:34:da:01:02:03",
    ] {
        assert!(Mac::parse(bad).is_err(), "{bad:?} refused");
    }
    for bad in ["", "-rf", "SN 1", "SN;1", "SN`1`", &"A".repeat(65)] {
        assert!(Serial::parse(bad).is_err(), "{bad:?} refused");
    }
}

#[test]
fn build_reads_identities_and_plans_the_same_addresses() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("ids.csv"), sample()).expect("write");
    let out = railyard_in(
        dir.path(),
        &[
            "build",
            "--example",
            "lab-small",
            "-o",
            "out",
            "--identities",
            "ids.csv",
            "--only",
            "addresses",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let built = std::fs::read_to_string(dir.path().join("out/addresses.csv")).expect("addresses");
    assert_eq!(
        built,
        crate::common::file(example_outputs(SPEC), "addresses.csv")
    );

    std::fs::write(dir.path().join("bad.csv"), "name,serial\nghost,SN1\n").expect("write");
    let out = railyard_in(
        dir.path(),
        &[
            "build",
            "--example",
            "lab-small",
            "-o",
            "out2",
            "--identities",
            "bad.csv",
            "--format",
            "short",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv:2:1") && err.contains("RY1102"),
        "{err}"
    );
    assert!(!dir.path().join("out2").exists(), "nothing written");
}
