//! Cable work from `cabling.csv` (columns read by name): which cables to remove, move and add.
//!
//! A cable is identified by its two ends (device and port, either order). A cable whose ends are
//! on both sides is untouched unless what is fitted changes (speed, media, length, cable part,
//! count, modules, leg: issue #39 item 4): then it is replaced, the old part out and the new
//! one in. Of the rest, a new cable with the id of an old one, or else
//! sharing one end with an old one, is that cable moved (one end kept, the other re-seated);
//! what is left is removed or added. Every cable id is one step (issue #39 item 6): ids pair
//! before shared ends do. Work order: every removal first (it frees the ports an addition or a
//! move may reuse), then the replacements, the moves, then the additions, each by rack and label so
//! a technician walks the rows once.

use std::collections::BTreeMap;

use serde::Serialize;

use super::table::Table;
use super::{ChangeError, Files, both};

pub const PATH: &str = "cabling.csv";

const COLUMNS: &[&str] = &[
    "cable_id", "label", "a_device", "a_port", "b_device", "b_port", "a_rack", "b_rack",
];

/// What is fitted between the two ends: a change in any of these is a replacement (an older
/// build without a column reads it as empty on both sides, so it compares).
pub const FITTED: &[&str] = &[
    "speed",
    "media",
    "length_m",
    "cable_part",
    "cable_count",
    "a_module",
    "b_module",
    "leg",
    "harness",
    "harness_m",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    Remove,
    /// Same ends, different fitting: the old cable (and modules) out, the new one in.
    Replace,
    /// Same physical ends and fitting, other port or rack names (a platform change): the cable
    /// stays; its labels are printed anew.
    Rename,
    Move,
    Add,
}

/// One end of a cable: device, port and the rack it is in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct End {
    pub device: String,
    pub port: String,
    pub rack: String,
    /// The port's physical identity on a switch (`slots.rs`), empty where unknown: a cable's
    /// identity, so a port renamed by a platform change is the same port.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub slot: String,
}

/// A cable as the cabling plan lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Cable {
    pub cable_id: String,
    pub label: String,
    pub a: End,
    pub b: End,
    /// The tier it runs in (`leaf-spine`, `node-leaf`, …; empty in a plan without the column).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tier: String,
    /// What is fitted, by [`FITTED`] column (empty cells left out).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fitted: BTreeMap<String, String>,
}

impl Cable {
    /// Its two ends as (device, port), in a fixed order: the cable's identity.
    fn ends(&self) -> ((&str, &str), (&str, &str)) {
        let (x, y) = (self.a.key(), self.b.key());
        if x <= y { (x, y) } else { (y, x) }
    }

    /// Its ends by the names the labels print (device, port, rack), in a fixed order: a cable
    /// listed the other way round is named the same.
    fn named(&self) -> [(&str, &str, &str); 2] {
        fn e(x: &End) -> (&str, &str, &str) {
            (&x.device, &x.port, &x.rack)
        }
        let (x, y) = (e(&self.a), e(&self.b));
        if x <= y { [x, y] } else { [y, x] }
    }

    /// Where a technician starts: the A end's rack, then the label.
    fn walk_key(&self) -> (&str, &str) {
        (&self.a.rack, &self.label)
    }
}

impl End {
    fn key(&self) -> (&str, &str) {
        let port = if self.slot.is_empty() {
            &self.port
        } else {
            &self.slot
        };
        (&self.device, port)
    }
}

/// One step of the work order. For a move, `cable` is where it goes and `from` where it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CableStep {
    pub action: Action,
    pub cable: Cable,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Cable>,
    /// Why the step is needed and how the design could have avoided it (replacements and
    /// moves; an addition or removal is its own reason).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
}

/// What caused a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CauseKind {
    /// A harness the leg is on is ordered anew (longer, or another part): the live leg moves
    /// onto the new harness.
    HarnessReordered,
    /// What is fitted on the cable itself changes (speed, media, part, modules, length).
    Refitted,
    /// One end is re-seated onto a device the old design does not have.
    ToNewDevice,
    /// One end leaves a device the new design does not have.
    FromRemovedDevice,
    /// One end stays on its device but on another port.
    PortChanged,
    /// The same physical ends under new port or rack names (a platform change).
    Renamed,
}

/// Why a step is needed, and how the design could have avoided it (`None`: nothing in the
/// spec would have, e.g. a part re-specified on purpose).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cause {
    pub kind: CauseKind,
    pub why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avoid: Option<String>,
}

fn parse(path: &str, bytes: &[u8]) -> Result<Vec<Cable>, ChangeError> {
    let t = Table::parse(path, bytes, COLUMNS)?;
    let end = |r: &super::table::Row<'_>, s: &str| End {
        device: r.get(&format!("{s}_device")).to_string(),
        port: r.get(&format!("{s}_port")).to_string(),
        rack: r.get(&format!("{s}_rack")).to_string(),
        slot: String::new(),
    };
    Ok(t.rows()
        .map(|r| Cable {
            cable_id: r.get("cable_id").to_string(),
            label: r.get("label").to_string(),
            a: end(&r, "a"),
            b: end(&r, "b"),
            tier: r.get("tier").to_string(),
            fitted: FITTED
                .iter()
                .map(|k| (k.to_string(), r.get(k).to_string()))
                .filter(|(_, v)| !v.is_empty())
                .collect(),
        })
        .collect())
}

/// Both cabling plans (none when neither side has one), each end with its physical identity
/// from its side's port maps.
pub fn plans(old: &Files, new: &Files) -> Result<(Vec<Cable>, Vec<Cable>), ChangeError> {
    let Some((o, n)) = both(old, new, PATH)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let placed = |bytes: &[u8], files: &Files, other: &Files| -> Result<Vec<Cable>, ChangeError> {
        let slots = super::slots::slots(files, other);
        let mut cables = parse(PATH, bytes)?;
        for c in &mut cables {
            for e in [&mut c.a, &mut c.b] {
                if let Some(s) = slots.get(&e.device).and_then(|p| p.get(&e.port)) {
                    e.slot = s.clone();
                }
            }
        }
        Ok(cables)
    };
    Ok((placed(o, old, new)?, placed(n, new, old)?))
}

/// The work order between two lists of cables.
pub fn steps(old: &[Cable], new: &[Cable]) -> Vec<CableStep> {
    let new_ends: BTreeMap<_, &Cable> = new.iter().map(|c| (c.ends(), c)).collect();
    let old_ends: BTreeMap<_, &Cable> = old.iter().map(|c| (c.ends(), c)).collect();
    let mut gone: Vec<&Cable> = old
        .iter()
        .filter(|c| !new_ends.contains_key(&c.ends()))
        .collect();
    let mut came: Vec<&Cable> = new
        .iter()
        .filter(|c| !old_ends.contains_key(&c.ends()))
        .collect();
    gone.sort_by(|x, y| x.walk_key().cmp(&y.walk_key()));
    came.sort_by(|x, y| x.walk_key().cmp(&y.walk_key()));
    let mut refitted: Vec<(&Cable, &Cable)> = new
        .iter()
        .filter_map(|c| old_ends.get(&c.ends()).map(|o| (*o, c)))
        .filter(|(o, c)| o.fitted != c.fitted)
        .collect();
    refitted.sort_by(|x, y| x.1.walk_key().cmp(&y.1.walk_key()));
    let mut renamed: Vec<(&Cable, &Cable)> = new
        .iter()
        .filter_map(|c| old_ends.get(&c.ends()).map(|o| (*o, c)))
        .filter(|(o, c)| o.fitted == c.fitted && o.named() != c.named())
        .collect();
    renamed.sort_by(|x, y| x.1.walk_key().cmp(&y.1.walk_key()));
    let (moves, gone, came) = pair_moves(gone, came);
    let step = |action, c: &Cable, from: Option<&Cable>| CableStep {
        action,
        cable: c.clone(),
        from: from.cloned(),
        cause: None,
    };
    let mut out: Vec<CableStep> = gone.iter().map(|c| step(Action::Remove, c, None)).collect();
    out.extend(
        refitted
            .iter()
            .map(|(f, t)| step(Action::Replace, t, Some(f))),
    );
    out.extend(
        renamed
            .iter()
            .map(|(f, t)| step(Action::Rename, t, Some(f))),
    );
    out.extend(moves.iter().map(|(f, t)| step(Action::Move, t, Some(f))));
    out.extend(came.iter().map(|c| step(Action::Add, c, None)));
    out
}

type Moves<'a> = Vec<(&'a Cable, &'a Cable)>;

/// Pair each new cable with the old one it moves: same cable id first, else a shared end.
/// Returns the moves (old, new) and the unpaired old and new cables, each list still in walk
/// order.
fn pair_moves<'a>(
    gone: Vec<&'a Cable>,
    came: Vec<&'a Cable>,
) -> (Moves<'a>, Vec<&'a Cable>, Vec<&'a Cable>) {
    let mut taken = vec![false; gone.len()];
    let by_id: BTreeMap<&str, usize> = gone
        .iter()
        .enumerate()
        .map(|(i, c)| (c.cable_id.as_str(), i))
        .collect();
    let mut by_end: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (i, c) in gone.iter().enumerate().rev() {
        by_end.insert(c.a.key(), i);
        by_end.insert(c.b.key(), i);
    }
    // Ids first, over every new cable, so an id a later cable pairs by shared end is never
    // also an addition of its own (one cable id, one step).
    let mut pair: Vec<Option<usize>> = came
        .iter()
        .map(|c| {
            let i = by_id.get(c.cable_id.as_str()).copied()?;
            (!std::mem::replace(&mut taken[i], true)).then_some(i)
        })
        .collect();
    let new_ids: std::collections::BTreeSet<&str> =
        came.iter().map(|c| c.cable_id.as_str()).collect();
    for (c, p) in came.iter().zip(pair.iter_mut()) {
        if p.is_some() {
            continue;
        }
        *p = [c.a.key(), c.b.key()]
            .iter()
            .filter_map(|k| by_end.get(k).copied())
            // An old cable whose id comes back elsewhere is that cable, not this one.
            .find(|&i| !taken[i] && !new_ids.contains(gone[i].cable_id.as_str()));
        if let Some(i) = *p {
            taken[i] = true;
        }
    }
    let mut moves = Vec::new();
    let mut added = Vec::new();
    for (c, p) in came.into_iter().zip(pair) {
        match p {
            Some(i) => moves.push((gone[i], c)),
            None => added.push(c),
        }
    }
    let removed = gone
        .into_iter()
        .zip(taken)
        .filter_map(|(c, t)| (!t).then_some(c))
        .collect();
    (moves, removed, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cable(id: &str, a: (&str, &str), b: (&str, &str)) -> Cable {
        let end = |(d, p): (&str, &str)| End {
            device: d.into(),
            port: p.into(),
            rack: "R1".into(),
            slot: String::new(),
        };
        Cable {
            cable_id: id.into(),
            label: format!("{}:{}/{}:{}", a.0, a.1, b.0, b.1),
            a: end(a),
            b: end(b),
            tier: String::new(),
            fitted: BTreeMap::new(),
        }
    }

    #[test]
    fn same_ends_either_way_round_is_no_work() {
        let old = vec![cable("c1", ("n1", "p1"), ("l1", "s1"))];
        let new = vec![cable("other", ("l1", "s1"), ("n1", "p1"))];
        assert!(steps(&old, &new).is_empty());
    }

    #[test]
    fn removals_come_before_moves_and_additions() {
        let old = vec![
            cable("c1", ("n1", "p1"), ("l1", "s1")),
            cable("c2", ("n2", "p1"), ("l1", "s2")),
        ];
        let new = vec![
            // c1 keeps its node end, its leaf end moves to s9.
            cable("c1", ("n1", "p1"), ("l1", "s9")),
            // A new cable into the port c2 freed.
            cable("c3", ("n3", "p1"), ("l1", "s2")),
        ];
        let s = steps(&old, &new);
        let acts: Vec<(Action, &str)> = s
            .iter()
            .map(|x| (x.action, x.cable.cable_id.as_str()))
            .collect();
        // c3 shares l1:s2 with the removed c2: a move of c2 by the shared-end rule.
        assert_eq!(acts, vec![(Action::Move, "c1"), (Action::Move, "c3")]);
        assert_eq!(s[0].from.as_ref().unwrap().b.port, "s1");
        let old = vec![cable("c2", ("n2", "p1"), ("l1", "s2"))];
        let new = vec![cable("c4", ("n4", "p1"), ("l4", "s2"))];
        let acts: Vec<Action> = steps(&old, &new).iter().map(|x| x.action).collect();
        assert_eq!(acts, vec![Action::Remove, Action::Add]);
    }

    #[test]
    fn same_ends_with_a_new_fitting_is_one_replacement() {
        let mut old = cable("c1", ("n1", "p1"), ("l1", "s1"));
        old.fitted.insert("speed".into(), "100G".into());
        let mut new = old.clone();
        new.fitted.insert("speed".into(), "800G".into());
        let s = steps(&[old], &[new]);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].action, Action::Replace);
        assert_eq!(s[0].from.as_ref().unwrap().fitted["speed"], "100G");
    }

    #[test]
    fn an_id_that_moves_is_not_also_a_move_source_elsewhere() {
        // c1's leaf end moves to s9; a new c2 lands on c1's old node end. By shared end alone c2
        // would take c1 (c1 then an addition): the id pairs first.
        let old = vec![cable("c1", ("n1", "p1"), ("l1", "s1"))];
        let new = vec![
            cable("c2", ("n1", "p1"), ("l2", "s1")),
            cable("c1", ("n5", "p1"), ("l1", "s9")),
        ];
        let s = steps(&old, &new);
        let ids: Vec<(Action, &str)> = s
            .iter()
            .map(|x| (x.action, x.cable.cable_id.as_str()))
            .collect();
        assert_eq!(ids, vec![(Action::Move, "c1"), (Action::Add, "c2")]);
    }
}
