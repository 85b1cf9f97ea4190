//! `railyard diff` over random pairs of generated specs (issue #39): every cable whose ends or
//! fitting differ between the two `cabling.csv` files is in exactly one step of the work order
//! (and no other cable in any), and every file that differs between the two builds is accounted
//! for — read by meaning or listed by path. The expectation comes from the two builds' bytes
//! and their CSV parsed here, never from the diff's own output.
//!
//! Pairs: two unrelated clusters, a cluster grown by one SU, and a cluster whose tenants are
//! another's. `PROPTEST_CASES` raises the case count.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use railyard::change::cables::Action;
use railyard::change::{self, Files};
use railyard::diag::SourceFile;
use railyard::render::Templates;

use crate::spec_generator::{Cluster, cases, cluster};

/// A spec's files as `diff` reads them, or `None` when the spec does not compile.
fn build(c: &Cluster) -> Option<Files> {
    let text = c.yaml();
    let compiled = railyard::compile(&SourceFile::new("gen.yaml", text.as_str()));
    let files = compiled.outputs(&Templates::default())?.ok()?;
    Some(
        files
            .into_iter()
            .filter(|f| change::reads(&f.path))
            .map(|f| (f.path, f.bytes))
            .collect(),
    )
}

type Ends = (String, String);

/// The columns a cable's step does not follow: its identity (id, ends) and what it serves.
/// Every other column of `cabling.csv` (one added later included) is what is fitted or printed
/// on its labels, and a change in it is a step (a re-fit, or a rename: new labels).
const PLACE: &[&str] = &[
    "cable_id", "a_device", "a_port", "b_device", "b_port", "network", "tier", "plane", "rail",
];

/// `cabling.csv` rows by their two ends (either order): the row's fitting columns.
fn cabling(files: &Files) -> BTreeMap<Ends, Vec<String>> {
    let mut r = csv::Reader::from_reader(&files["cabling.csv"][..]);
    let head: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    let col = |row: &csv::StringRecord, name: &str| {
        head.iter()
            .position(|h| h == name)
            .and_then(|i| row.get(i))
            .unwrap_or("")
            .to_string()
    };
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            let a = format!("{}:{}", col(&rec, "a_device"), col(&rec, "a_port"));
            let b = format!("{}:{}", col(&rec, "b_device"), col(&rec, "b_port"));
            let fitting = head
                .iter()
                .filter(|h| !PLACE.contains(&h.as_str()))
                .map(|k| col(&rec, k))
                .collect();
            ((a.clone().min(b.clone()), a.max(b)), fitting)
        })
        .collect()
}

fn ends_of(c: &change::cables::Cable) -> Ends {
    let a = format!("{}:{}", c.a.device, c.a.port);
    let b = format!("{}:{}", c.b.device, c.b.port);
    (a.clone().min(b.clone()), a.max(b))
}

fn check(old: &Files, new: &Files) -> Result<(), TestCaseError> {
    let cs = change::compare(old, new)
        .map_err(|e| TestCaseError::fail(format!("cannot compare: {e:?}")))?;
    let (oc, nc) = (cabling(old), cabling(new));
    // Each side's rows the steps name: the old cable of a removal, replacement or move; the
    // new cable of a replacement, move or addition.
    let mut old_named: BTreeMap<Ends, usize> = BTreeMap::new();
    let mut new_named: BTreeMap<Ends, usize> = BTreeMap::new();
    for s in &cs.cables {
        let (o, n) = match s.action {
            Action::Remove => (Some(&s.cable), None),
            Action::Add => (None, Some(&s.cable)),
            Action::Replace | Action::Rename | Action::Move => (s.from.as_ref(), Some(&s.cable)),
        };
        prop_assert!(
            s.action == Action::Add || o.is_some(),
            "{s:?} has no old cable"
        );
        o.into_iter()
            .for_each(|c| *old_named.entry(ends_of(c)).or_default() += 1);
        n.into_iter()
            .for_each(|c| *new_named.entry(ends_of(c)).or_default() += 1);
    }
    for (side, rows, other, named) in [("old", &oc, &nc, &old_named), ("new", &nc, &oc, &new_named)]
    {
        for (k, fitting) in rows {
            let differs = other.get(k) != Some(fitting);
            let times = named.get(k).copied().unwrap_or(0);
            prop_assert_eq!(
                times,
                usize::from(differs),
                "{} cable {:?} (differs: {}) is named by {} steps",
                side,
                k,
                differs,
                times
            );
        }
    }
    prop_assert!(
        named_only_rows(&old_named, &oc) && named_only_rows(&new_named, &nc),
        "a step names a cable its side's cabling.csv does not have"
    );
    let listed: BTreeSet<&str> = cs.files.iter().map(|f| f.path.as_str()).collect();
    let by_meaning = |p: &str| {
        p.starts_with("configs/")
            || p.starts_with("intent/")
            || ["cabling.csv", "addresses.csv", "bom.csv"].contains(&p)
    };
    for p in old.keys().chain(new.keys()) {
        if old.get(p) != new.get(p) {
            prop_assert!(
                by_meaning(p) || listed.contains(p.as_str()),
                "{p} differs and the diff does not say so"
            );
        }
    }
    if old == new {
        prop_assert!(cs.is_empty(), "the same build twice is a change: {cs:?}");
    }
    Ok(())
}

fn named_only_rows(named: &BTreeMap<Ends, usize>, rows: &BTreeMap<Ends, Vec<String>>) -> bool {
    named.keys().all(|k| rows.contains_key(k))
}

/// The second spec of a pair: another cluster, this one grown by an SU, or this one with the
/// other's tenants.
fn pair() -> impl Strategy<Value = (Cluster, Cluster)> {
    (cluster(), cluster(), 0u8..3).prop_map(|(a, b, how)| match how {
        0 => (a, b),
        1 => {
            let mut grown = a.clone();
            grown.sus += 1;
            (a, grown)
        }
        _ => {
            let mut retenanted = a.clone();
            retenanted.tenants = b.tenants;
            (a, retenanted)
        }
    })
}

#[test]
fn every_differing_cable_is_one_step_and_every_differing_file_is_said() {
    let mut runner = TestRunner::new(Config {
        cases: cases(12),
        failure_persistence: None,
        ..Config::default()
    });
    let compared = std::cell::Cell::new(0usize);
    let result = runner.run(&pair(), |(a, b)| {
        let (Some(old), Some(new)) = (build(&a), build(&b)) else {
            return Ok(());
        };
        compared.set(compared.get() + 1);
        check(&old, &new)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let compared = compared.get();
    eprintln!("{compared} pairs compared");
    assert!(compared > 0, "no generated pair compiled on both sides");
}
