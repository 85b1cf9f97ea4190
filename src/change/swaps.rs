//! The parts the replacements swap (issue #39): every replaced cable's old part out and new part
//! in, counted by part number and length, even where the bill of materials' totals cancel (a
//! harness swapped for one of the same length elsewhere, a module traded between two links).
//! A harness is counted once however many of its legs move; a module once per end it changes.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::cables::{Action, Cable, CableStep};

/// One part taken out or fitted by the replacements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartSwap {
    pub part: String,
    /// The length as ordered, in metres (empty for a module).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub length_m: String,
    /// How many come out of the running cluster.
    pub out: u64,
    /// How many go in.
    #[serde(rename = "in")]
    pub fitted: u64,
}

type Key = (String, String);

fn get<'c>(c: &'c Cable, k: &str) -> &'c str {
    c.fitted.get(k).map_or("", String::as_str)
}

/// The cable part of a cable as ordered: a harness leg's harness (once per harness), else the
/// cable itself, with its count.
fn cable_part<'c>(c: &'c Cable, harnesses: &mut BTreeSet<&'c str>) -> Option<(Key, u64)> {
    let part = get(c, "cable_part");
    if part.is_empty() {
        return None;
    }
    let harness = get(c, "harness");
    if !harness.is_empty() {
        return harnesses
            .insert(harness)
            .then(|| ((part.to_string(), get(c, "harness_m").to_string()), 1));
    }
    let n = get(c, "cable_count").parse().unwrap_or(1);
    Some(((part.to_string(), get(c, "length_m").to_string()), n))
}

/// Every part the replace steps take out and fit, by part number and length.
pub fn swaps(steps: &[CableStep]) -> Vec<PartSwap> {
    let mut counts: BTreeMap<Key, (u64, u64)> = BTreeMap::new();
    let (mut gone, mut came) = (BTreeSet::new(), BTreeSet::new());
    for s in steps.iter().filter(|s| s.action == Action::Replace) {
        let (Some(from), to) = (&s.from, &s.cable) else {
            continue;
        };
        let cable_changed = [
            "cable_part",
            "length_m",
            "cable_count",
            "harness",
            "harness_m",
        ]
        .iter()
        .any(|k| get(from, k) != get(to, k));
        if cable_changed {
            if let Some((k, n)) = cable_part(from, &mut gone) {
                counts.entry(k).or_default().0 += n;
            }
            if let Some((k, n)) = cable_part(to, &mut came) {
                counts.entry(k).or_default().1 += n;
            }
        }
        for end in ["a_module", "b_module"] {
            let (o, n) = (get(from, end), get(to, end));
            if o == n {
                continue;
            }
            if !o.is_empty() {
                counts.entry((o.to_string(), String::new())).or_default().0 += 1;
            }
            if !n.is_empty() {
                counts.entry((n.to_string(), String::new())).or_default().1 += 1;
            }
        }
    }
    counts
        .into_iter()
        .map(|((part, length_m), (out, fitted))| PartSwap {
            part,
            length_m,
            out,
            fitted,
        })
        .collect()
}
