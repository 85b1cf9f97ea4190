//! LLDP captures: the parsers of every accepted shape (lldpd `json0` and `json`, the local
//! chassis, NVUE interfaces and `nv show system`) and the comparison with a cabling plan.
//!
//! The input is the text of one capture file. It is verified against the plan of the built-in
//! example (`inventories/lab-small.yaml`), attributed to one of its leaves.
//!
//! Invariants checked:
//! - parsing is a function of the text, and the neighbour list is sorted without duplicates;
//! - a capture names its device exactly when the file does or one is given (`DEVICE=FILE`),
//!   and keeps every neighbour;
//! - the report does not depend on the order of the captures nor of the neighbours inside them
//!   (the cabling module's stated invariant), and its summary counts agree with its lists.

use std::sync::OnceLock;

use railyard::cabling::{self, Capture, ParseError};
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
            .fabric
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
}
