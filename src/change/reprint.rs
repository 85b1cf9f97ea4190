//! The labels a change needs printed (issue #39): for every cable the work order adds, moves or
//! re-fits, its two labels as the new build's `labels/<rack>.zpl` draw them, in work-order
//! order, so the technician prints one short job instead of a rack's whole file. A leg moved
//! onto a new harness keeps its label (its ends, part and leg do not change) and is not
//! reprinted; a removed cable has nothing to print.
//!
//! Read from the deliverables like the rest of `change`: each label format (`^XA` … `^XZ`) is
//! found by the cable id its QR code holds (`^FDMA,<id>^FS`, ZPL field data decoded by
//! `output::zpl::unfield`), and the file comment (`^FX`) of a file's first label dropped.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Files;
use super::cables::{Action, CableStep};
use super::cause::CauseKind;
use crate::output::zpl::unfield;

/// The labels to print and what could not be found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reprint {
    /// The ZPL to send to the printer as is.
    #[serde(skip)]
    pub zpl: String,
    /// Cable ids printed, in work-order order.
    pub cables: Vec<String>,
    /// Cable ids the new build's label files do not hold.
    pub missing: Vec<String>,
}

/// Whether a step changes what a cable's labels say.
pub fn relabels(s: &CableStep) -> bool {
    match s.action {
        Action::Remove => false,
        Action::Replace => s
            .cause
            .as_ref()
            .is_none_or(|c| c.kind != CauseKind::HarnessReordered),
        Action::Rename | Action::Move | Action::Add => true,
    }
}

/// The label formats of the new build's ZPL files, by the cable id of their QR code.
fn formats(new: &Files) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let zpl = new
        .iter()
        .filter(|(p, _)| p.starts_with("labels/") && p.ends_with(".zpl"));
    for (_, bytes) in zpl {
        let text = String::from_utf8_lossy(bytes);
        for block in text.split("^XA").filter(|b| !b.trim().is_empty()) {
            let Some(id) = block
                .split_once("^FDMA,")
                .and_then(|(_, rest)| rest.split_once("^FS"))
                .and_then(|(data, _)| unfield(data))
            else {
                continue;
            };
            let body = match (block.find("^FX"), block.find("^CI")) {
                (Some(fx), Some(ci)) if fx < ci => format!("{}{}", &block[..fx], &block[ci..]),
                _ => block.to_string(),
            };
            out.entry(id).or_default().push(format!("^XA{body}"));
        }
    }
    out
}

/// The labels the steps need, or `None` when the new side has no label files to take them from.
pub fn labels(new: &Files, steps: &[CableStep]) -> Option<Reprint> {
    let formats = formats(new);
    if formats.is_empty() {
        return None;
    }
    let mut r = Reprint::default();
    for s in steps.iter().filter(|s| relabels(s)) {
        let id = &s.cable.cable_id;
        match formats.get(id) {
            Some(blocks) => {
                blocks.iter().for_each(|b| r.zpl.push_str(b));
                r.cables.push(id.clone());
            }
            None => r.missing.push(id.clone()),
        }
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::cables::{Cable, End};

    fn step(action: Action, id: &str) -> CableStep {
        let end = || End {
            device: "d".into(),
            port: "p".into(),
            rack: "r".into(),
            slot: String::new(),
        };
        CableStep {
            action,
            cable: Cable {
                cable_id: id.into(),
                label: String::new(),
                a: end(),
                b: end(),
                tier: String::new(),
                fitted: BTreeMap::new(),
            },
            from: None,
            cause: None,
        }
    }

    #[test]
    fn only_the_stepped_cables_labels_are_taken_without_the_file_comment() {
        let zpl = "^XA^FXc labels^FS^CI28\n^FO6,4^BQN,2,3^FH^FDMA,c_5F1^FS\n^XZ\n\
                   ^XA^CI28\n^FO6,4^BQN,2,3^FH^FDMA,c_5F1^FS\n^XZ\n\
                   ^XA^CI28\n^FO6,4^BQN,2,3^FH^FDMA,c2^FS\n^XZ\n";
        let new: Files = [("labels/r1.zpl".to_string(), zpl.as_bytes().to_vec())].into();
        let r = labels(
            &new,
            &[
                step(Action::Remove, "c2"),
                step(Action::Add, "c_1"),
                step(Action::Move, "c9"),
            ],
        )
        .unwrap();
        assert_eq!(r.cables, ["c_1"]);
        assert_eq!(r.missing, ["c9"]);
        assert_eq!(r.zpl.matches("^XA").count(), 2);
        assert!(!r.zpl.contains("^FX"), "{}", r.zpl);
        assert!(labels(&Files::new(), &[]).is_none());
    }
}
