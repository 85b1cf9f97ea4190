//! Why a cable step is needed and, where a design choice caused it, how the design could have
//! avoided it (issue #39): the work order says it per step so a reviewer can tell growth that
//! had to disturb the cluster from growth a different spec would have kept add-only.
//!
//! Read from the two cabling plans alone: a harness re-ordered longer (the same legs, a longer
//! `harness_m`), an end re-seated onto a device the old design did not have (uplinks re-spread
//! over new spines) or off one the new design drops, a port renamed on the same device, or what
//! is fitted re-specified.

use std::collections::BTreeSet;

use super::cables::{Action, Cable, CableStep, End};
pub use super::cables::{Cause, CauseKind};

/// The advice when growth re-orders a harness: sized for the final cluster from the start.
const FINAL_SIZE: &str = "declare the final `scalable_units.count` now, with `populated:` for \
the nodes installed, so every harness is ordered at its final length and growth only adds legs";

/// The advice when uplinks are re-spread over spines that growth adds.
const FINAL_SPINES: &str = "declare the final spine `count` now (extra spines are built and \
cabled from the start), with `populated:` for the nodes installed, so growth never re-spreads \
existing uplinks";

/// The devices a cabling plan names.
fn devices(cables: &[Cable]) -> BTreeSet<&str> {
    cables
        .iter()
        .flat_map(|c| [c.a.device.as_str(), c.b.device.as_str()])
        .collect()
}

/// Fill in every step's cause.
pub fn explain(steps: &mut [CableStep], old: &[Cable], new: &[Cable]) {
    let (before, after) = (devices(old), devices(new));
    for s in steps.iter_mut() {
        s.cause = match (s.action, &s.from) {
            (Action::Replace, Some(from)) => Some(replaced(from, &s.cable)),
            (Action::Move, Some(from)) => moved(from, &s.cable, &before, &after),
            (Action::Rename, Some(from)) => Some(Cause {
                kind: CauseKind::Renamed,
                why: format!(
                    "the same cable on the same cage and lane, under new names: {} → {}",
                    from.label, s.cable.label
                ),
                avoid: None,
            }),
            _ => None,
        };
    }
}

fn replaced(from: &Cable, to: &Cable) -> Cause {
    let own = |c: &Cable| {
        c.fitted
            .iter()
            .filter(|(k, _)| !k.starts_with("harness"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    let get = |c: &Cable, k: &str| c.fitted.get(k).cloned().unwrap_or_default();
    if own(from) == own(to) {
        let (h, m0, m1) = (
            get(to, "harness"),
            get(from, "harness_m"),
            get(to, "harness_m"),
        );
        return Cause {
            kind: CauseKind::HarnessReordered,
            why: format!(
                "its harness {h} is ordered anew ({m0} m → {m1} m, a new leg runs further): \
                 this live leg moves onto the new harness"
            ),
            avoid: Some(FINAL_SIZE.into()),
        };
    }
    let changed: Vec<String> = from
        .fitted
        .keys()
        .chain(to.fitted.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|k| from.fitted.get(*k) != to.fitted.get(*k))
        .map(|k| {
            let shown = |c: &Cable| Some(get(c, k)).filter(|v| !v.is_empty());
            let (o, n) = (shown(from), shown(to));
            format!(
                "{k} {} → {}",
                o.as_deref().unwrap_or("none"),
                n.as_deref().unwrap_or("none")
            )
        })
        .collect();
    // A cable that becomes (or stops being) a harness leg: growth filled a cage a straight
    // cable had to itself; sized for the final cluster, the harness is there from the start.
    let avoid = (get(from, "harness") != get(to, "harness")).then(|| FINAL_SIZE.to_string());
    Cause {
        kind: CauseKind::Refitted,
        why: format!("what is fitted changes: {}", changed.join(", ")),
        avoid,
    }
}

/// Whether a cable runs up the fabric (leaf to spine, spine to core): where growth re-spreads.
fn uplink(c: &Cable) -> bool {
    matches!(c.tier.as_str(), "leaf-spine" | "spine-core")
}

fn moved(
    from: &Cable,
    to: &Cable,
    before: &BTreeSet<&str>,
    after: &BTreeSet<&str>,
) -> Option<Cause> {
    let same = |x: &End, y: &End| x.device == y.device && x.port == y.port;
    // The end that changed: the one the old and the new cable do not share.
    let (old_end, new_end) = if same(&from.a, &to.a) {
        (&from.b, &to.b)
    } else if same(&from.a, &to.b) {
        (&from.b, &to.a)
    } else if same(&from.b, &to.a) {
        (&from.a, &to.b)
    } else {
        (&from.a, &to.a)
    };
    let respread = (uplink(from) || uplink(to)).then(|| FINAL_SPINES.to_string());
    let seat = format!(
        "{}:{} → {}:{}",
        old_end.device, old_end.port, new_end.device, new_end.port
    );
    let (kind, why, avoid) = if !before.contains(new_end.device.as_str()) {
        let why = format!("re-seated onto a device the old design does not have ({seat})");
        (CauseKind::ToNewDevice, why, respread)
    } else if !after.contains(old_end.device.as_str()) {
        let why = format!("{} goes: re-seated ({seat})", old_end.device);
        (CauseKind::FromRemovedDevice, why, respread)
    } else if old_end.device == new_end.device {
        // On an uplink, the spine's ports are dealt out by the leaf count: growth re-deals them.
        let why = format!("the port changes on {} ({seat})", new_end.device);
        (CauseKind::PortChanged, why, respread)
    } else {
        (
            CauseKind::PortChanged,
            format!("re-seated ({seat})"),
            respread,
        )
    };
    Some(Cause { kind, why, avoid })
}
