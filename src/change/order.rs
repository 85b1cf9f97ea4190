//! The work order's own sections (issue #39): a short summary first, then how the design could
//! have avoided the steps that disturb the cluster, then the cable steps themselves — each with
//! why it is needed, grouped on the page by phase and rack with a box to tick off.

use std::collections::BTreeMap;

use super::cables::{Action, Cable, CableStep};
use super::cause::CauseKind;
use super::layout::{Mark, Row, Section, row};
use super::swaps::PartSwap;
use super::{ChangeSet, reprint};

fn end(c: &Cable) -> String {
    format!(
        "{} {}:{} — {} {}:{}",
        c.a.rack, c.a.device, c.a.port, c.b.rack, c.b.device, c.b.port
    )
}

fn count(steps: &[CableStep], a: Action) -> usize {
    steps.iter().filter(|s| s.action == a).count()
}

/// The summary: what the work order asks of each trade, one line each.
pub fn summary(cs: &ChangeSet) -> Section {
    let s = &cs.cables;
    let legs = s
        .iter()
        .filter(|x| x.cause.as_ref().map(|c| c.kind) == Some(CauseKind::HarnessReordered))
        .count();
    let n = &cs.numbering;
    let order = cs.parts.iter().filter(|p| p.order_delta > 0).count();
    let over = cs.parts.iter().filter(|p| p.order_delta < 0).count();
    let lines = [
        (
            "cables",
            format!(
                "{} to remove, {} to replace ({legs} harness legs moved onto new harnesses), \
                 {} renamed (relabel only), {} to move, {} to add",
                count(s, Action::Remove),
                count(s, Action::Replace),
                count(s, Action::Rename),
                count(s, Action::Move),
                count(s, Action::Add)
            ),
        ),
        (
            "labels",
            format!(
                "{} cables to label (`diff --labels FILE` writes their ZPL)",
                s.iter().filter(|x| reprint::relabels(x)).count()
            ),
        ),
        (
            "switch configs",
            format!(
                "{} devices change, {} of them disruptively",
                cs.devices.len(),
                cs.devices.iter().filter(|d| d.disturbs()).count()
            ),
        ),
        (
            "numbering",
            format!("{} renumbered, {} gone", n.renumbered.len(), n.gone.len()),
        ),
        (
            "tenants",
            format!("{} membership changes", cs.tenants.len()),
        ),
        (
            "parts",
            format!(
                "{order} lines to order, {over} lines left over, {} swapped by replacements",
                cs.swaps.len()
            ),
        ),
        ("other files", format!("{} differ", cs.files.len())),
    ];
    let rows = lines
        .iter()
        .map(|(k, v)| row(Mark::Plain, &[k, v]))
        .collect();
    Section::new("Summary".into(), rows)
}

/// How the design could have avoided steps: one line per cause with advice, with its count.
pub fn avoidable(steps: &[CableStep]) -> Option<Section> {
    let mut advice: BTreeMap<&str, usize> = BTreeMap::new();
    for c in steps.iter().filter_map(|s| s.cause.as_ref()) {
        if let Some(a) = &c.avoid {
            *advice.entry(a.as_str()).or_default() += 1;
        }
    }
    if advice.is_empty() {
        return None;
    }
    let rows = advice
        .iter()
        .map(|(a, n)| row(Mark::Plain, &[&format!("{n} steps"), a]))
        .collect();
    Some(Section::new(
        "How the design could have avoided disturbing steps".into(),
        rows,
    ))
}

fn word(a: Action) -> &'static str {
    match a {
        Action::Remove => "remove",
        Action::Replace => "replace",
        Action::Rename => "rename",
        Action::Move => "move",
        Action::Add => "add",
    }
}

/// The cable steps, numbered in work order; each says why it is needed where a cause is known.
pub fn cables(steps: &[CableStep]) -> Section {
    let mut rows = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let n = (i + 1).to_string();
        let c = &s.cable;
        let why = s.cause.as_ref().map_or("", |c| c.why.as_str());
        let (mark, ends) = match (&s.action, &s.from) {
            (Action::Move, Some(f)) => (Mark::Disruptive, format!("{} (was {})", end(c), end(f))),
            (Action::Rename, Some(f)) => (Mark::Plain, format!("{} (was {})", end(c), end(f))),
            (Action::Replace, _) => (Mark::Disruptive, end(c)),
            (Action::Remove, _) => (Mark::Remove, end(c)),
            _ => (Mark::Add, end(c)),
        };
        let mut cells = vec![n.as_str(), word(s.action), &c.cable_id, &c.label, &ends];
        if !why.is_empty() {
            cells.push(why);
        }
        let mut r: Row = row(mark, &cells);
        let rack = if c.a.rack.is_empty() {
            "no rack"
        } else {
            &c.a.rack
        };
        r.group = format!("{} — rack {rack}", word(s.action));
        rows.push(r);
    }
    let mut out = Section::new(
        format!(
            "Cables: {} to remove, {} to replace, {} renamed, {} to move, {} to add (in this order)",
            count(steps, Action::Remove),
            count(steps, Action::Replace),
            count(steps, Action::Rename),
            count(steps, Action::Move),
            count(steps, Action::Add)
        ),
        rows,
    );
    out.checkoff = true;
    out
}

/// The parts the replacements take out and fit, by part number and length.
pub fn swaps(swaps: &[PartSwap]) -> Option<Section> {
    if swaps.is_empty() {
        return None;
    }
    let rows = swaps
        .iter()
        .map(|p| {
            let length = if p.length_m.is_empty() {
                String::new()
            } else {
                format!("{} m", p.length_m)
            };
            let counts = format!("{} out, {} in", p.out, p.fitted);
            row(Mark::Disruptive, &[&p.part, &length, &counts])
        })
        .collect();
    Some(Section::new(
        format!(
            "Parts the replacements swap: {} (counted even where the order totals cancel)",
            swaps.len()
        ),
        rows,
    ))
}
