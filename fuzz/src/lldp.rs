//! LLDP captures: the parsers of every accepted shape (lldpd `json0` and `json`, the local
//! chassis, NVUE interfaces and `nv show system`) and the comparison with a cabling plan.
//!
//! The input is the text of one capture file. It is verified against the plan of the built-in
//! example (`inventories/lab-small.yaml`), attributed to one of its leaves.
//!
//! Invariants checked:
//! - parsing is a function of the text, and the neighbour list is sorted without duplicates;
//! - the streaming reader (`parse_reader`, what the CLI uses) reads what the text parser reads
//!   (the size limit is the CLI's bounded reader's, tested with it);
//! - a capture names its device exactly when the file does or one is given (`DEVICE=FILE`),
//!   and keeps every neighbour;
//! - the report does not depend on the order of the captures nor of the neighbours inside them
//!   (the cabling module's stated invariant), and its summary counts agree with its lists;
//! - the status means what it says: FAIL exactly when there is a finding, PASS only with nothing
//!   left unverified and something observed, never PASS for a capture of an unknown device.

use std::sync::OnceLock;

use railyard::cabling::{self, Capture, ParseError, Report, Status};
use railyard::diag::SourceFile;
use railyard::model::Role;
use railyard::topology::Fabric;

const LAB_SMALL: &str = include_str!("../../inventories/lab-small.yaml");

/// The plan the captures are checked against, and two of its leaves.
fn plan() -> &'static (Fabric, String, String) {
    static PLAN: OnceLock<(Fabric, String, String)> = OnceLock::new();
    PLAN.get_or_init(|| {
        let c = railyard::compile(&SourceFile::new("lab-small.yaml", LAB_SMALL));
        let fabric = c
            .design
            .map(|d| d.fabric)
            .unwrap_or_else(|| panic!("lab-small.yaml does not compile"));
        let leaves: Vec<String> = fabric
            .devices()
            .filter(|d| d.role == Role::Leaf)
            .map(|d| d.name.clone())
            .collect();
        let first = leaves.first().cloned().unwrap_or_default();
        let second = leaves.get(1).cloned().unwrap_or_else(|| first.clone());
        (fabric, first, second)
    })
}

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = cabling::parse(&text);
    let again = cabling::parse(&text);
    let parsed = match (parsed, again) {
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "parsing the same text failed differently");
            let _ = a.to_string();
            return;
        }
        (Ok(a), Ok(b)) => {
            assert_eq!(a.neighbours, b.neighbours, "parsing is not deterministic");
            assert_eq!(a.local_device, b.local_device);
            a
        }
        _ => panic!("parsing the same text succeeded once and failed once"),
    };
    assert!(
        parsed.neighbours.windows(2).all(|w| w[0] < w[1]),
        "neighbours not sorted and unique"
    );
    if std::str::from_utf8(data).is_ok() {
        streamed_as_text(data, &parsed);
    }

    let (fabric, leaf, other) = plan();
    match cabling::capture("fuzz.json", &text, None) {
        Ok(c) => assert_eq!(Some(&c.device), parsed.local_device.as_ref()),
        Err(e) => {
            assert_eq!(e, ParseError::NoLocalDevice);
            assert!(parsed.local_device.is_none());
        }
    }
    let given = |device: &str| -> Capture {
        let c = cabling::capture("fuzz.json", &text, Some(device))
            .unwrap_or_else(|e| panic!("parsed once, then refused as a capture: {e}"));
        assert_eq!(c.device, device);
        assert_eq!(c.observations.len(), parsed.neighbours.len());
        c
    };
    let a = given(leaf);
    let b = given(other);
    let stranger = given("not-in-the-plan");
    let r = cabling::verify(fabric, &[stranger]);
    assert_eq!(
        r.status,
        Status::Incomplete,
        "an unknown device's capture passed"
    );

    let report = cabling::verify(fabric, &[a.clone(), b.clone()]);
    let mut a_rev = a.clone();
    a_rev.observations.reverse();
    let swapped = cabling::verify(fabric, &[b, a_rev]);
    assert_eq!(
        report.to_json(),
        swapped.to_json(),
        "the report depends on the order of captures or neighbours"
    );
    let s = &report.summary;
    assert_eq!(s.correct, report.correct.len(), "summary.correct disagrees");
    assert_eq!(
        s.miswired + s.missing + s.unexpected,
        report.findings.len(),
        "summary counts disagree with the findings"
    );
    let _ = report.cables_to_fix();
    status_means_what_it_says(&report);
}

fn streamed_as_text(data: &[u8], parsed: &cabling::Parsed) {
    let streamed = cabling::parse_reader(data)
        .unwrap_or_else(|e| panic!("the text parsed, the stream did not: {e}"));
    assert_eq!(
        streamed.neighbours, parsed.neighbours,
        "stream and text differ"
    );
    assert_eq!(streamed.local_device, parsed.local_device);
    assert_eq!(streamed.format, parsed.format);
}

fn status_means_what_it_says(r: &Report) {
    let s = &r.summary;
    assert_eq!(s.not_verified, r.not_verified.len());
    assert_eq!(s.in_scope + s.out_of_scope, s.planned_cables);
    assert_eq!(r.status == Status::Fail, !r.findings.is_empty());
    if r.status == Status::Pass {
        assert!(r.gaps.is_empty() && s.not_verified == 0 && s.neighbour_entries > 0);
        assert!(
            s.correct >= s.in_scope,
            "PASS with a planned cable in scope not seen"
        );
    }
    assert_eq!(
        r.status == Status::Incomplete,
        r.findings.is_empty() && !r.gaps.is_empty()
    );
}
