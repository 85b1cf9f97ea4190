//! One failure: the links it takes down (and those of leaves it isolates), the bandwidth each
//! group loses, the ECMP width left on each switch it touches, the nodes that lose a rail or
//! are cut off, and the scheduler blocks involved.

use std::collections::{BTreeMap, BTreeSet};

use super::index::{Edge, Index};
use super::{
    ApplianceLoss, BlockHit, EcmpChange, Failure, Group, Impact, Loss, NodeLoss, NvlinkLoss,
};
use crate::model::{Network, Role, Tier};
use crate::topology::Device;

pub(super) fn impact(ix: &Index<'_>, x: &Failure) -> Option<Impact> {
    let (mut down, failed): (BTreeSet<usize>, Option<&Device>) = match x {
        Failure::Switch(n) | Failure::Node(n) => {
            let d = *ix.devices.get(n.as_str())?;
            (ix.edges_of(n).iter().copied().collect(), Some(d))
        }
        // Its management cable, where the plan has the tray as a device.
        Failure::NvlinkSwitchTray(n) => (ix.edges_of(n).iter().copied().collect(), None),
        Failure::Link(id) => (BTreeSet::from([*ix.by_cable.get(id.as_str())?]), None),
        Failure::Rack(r) => (
            ix.racks
                .get(r)?
                .iter()
                .flat_map(|t| ix.edges_of(&t.name).iter().copied())
                .collect(),
            None,
        ),
    };
    let links_down = down.len();
    let nvlink = nvlink_loss(ix, x);
    let network = match (failed, down.first()) {
        (Some(d), _) => d.network,
        (None, Some(&e)) => ix.edges[e].link.network,
        (None, None) if nvlink.is_some() => Network::Compute,
        (None, None) => return None,
    };
    let failed_name = failed.map(|d| d.name.as_str());
    let ecmp = ecmp_changes(ix, &down, failed_name);
    // A leaf whose every uplink went down carries nothing beyond itself.
    let isolated: Vec<String> = ecmp
        .iter()
        .filter(|c| c.toward == UP && c.after == 0)
        .filter(|c| {
            ix.devices
                .get(c.switch.as_str())
                .is_some_and(|d| d.role.is_leaf())
        })
        .map(|c| c.switch.clone())
        .collect();
    for leaf in &isolated {
        down.extend(
            ix.edges_of(leaf)
                .iter()
                .filter(|&&e| ix.edges[e].link.tier == Tier::NodeLeaf),
        );
    }
    // Data bandwidth: a switch's own management port carries none.
    let gbps_down = down
        .iter()
        .map(|&e| ix.edges[e].link)
        .filter(|l| l.tier != Tier::Mgmt || network == Network::Oob)
        .map(|l| u64::from(l.speed.as_gbps()))
        .sum();
    let (rails_lost, cut_off, appliances) = node_losses(ix, &down);
    let blocks = blocks(ix, &down, &ecmp, &cut_off);
    Some(Impact {
        failure: x.clone(),
        role: failed.map(|d| d.role),
        network,
        links_down,
        gbps_down,
        isolated,
        losses: losses(ix, &down),
        ecmp,
        rails_lost,
        cut_off,
        appliances,
        blocks,
        nvlink,
    })
}

/// The rack (NVLink domain) name of a device of the plan.
fn domain_of(ix: &Index<'_>, name: &str) -> Option<String> {
    let n = ix.devices.get(name)?.domain?;
    ix.domain_names.get(&n).cloned()
}

/// The NVLink domain's loss for a tray, a rack or an NVLink switch tray of a rack-scale system.
fn nvlink_loss(ix: &Index<'_>, x: &Failure) -> Option<NvlinkLoss> {
    let d = ix.domains?;
    let gpus_per_tray = d.gpus / d.trays.max(1);
    let (rack, gpus_lost) = match x {
        Failure::Node(n) => (domain_of(ix, n)?, gpus_per_tray),
        Failure::Rack(r) => (r.clone(), d.gpus),
        Failure::NvlinkSwitchTray(n) => (
            domain_of(ix, n).or_else(|| Some(n.split_once("-nvsw")?.0.to_string()))?,
            0,
        ),
        _ => return None,
    };
    let trays = ix.racks.get(&rack)?.iter().filter(|t| t.role == Role::Node);
    let installed = trays.count() as u32 * gpus_per_tray;
    let before = d.nvlink_gbytes_per_gpu;
    let after = match (x, d.nvlink_switch_chips_per_tray) {
        (Failure::NvlinkSwitchTray(_), Some(c)) => {
            let chips = c * d.nvlink_switch_trays;
            Some(before * (chips - c.min(chips)) / chips.max(1))
        }
        (Failure::NvlinkSwitchTray(_), None) => None,
        _ if gpus_lost >= installed => Some(0),
        _ => Some(before),
    };
    Some(NvlinkLoss {
        domain: rack,
        gpus: installed,
        gpus_lost: gpus_lost.min(installed),
        per_gpu_gbytes: before,
        per_gpu_gbytes_after: after,
    })
}

/// The destination class of a switch's ECMP group toward the tier above.
pub(super) const UP: &str = "up";

fn is_spine(r: Role) -> bool {
    matches!(r, Role::Spine | Role::StorageSpine | Role::InbandSpine)
}

fn is_core(r: Role) -> bool {
    matches!(r, Role::Core | Role::StorageCore | Role::InbandCore)
}

/// The ECMP group an inter-switch link belongs to, seen from `me`: `up` from the lower end; from
/// a core, the spine group below; otherwise the switch below (or the pair peer).
fn class(me: &str, e: &Edge<'_>) -> Option<String> {
    // A switch's management port is no data path: only OOB switches route over OOB links.
    if !e.a.role.is_switch() || !e.b.role.is_switch() || e.link.tier == Tier::Mgmt {
        return None;
    }
    if e.link.tier == Tier::LeafLeaf {
        let other = if e.a.name == me { e.b } else { e.a };
        return Some(other.name.clone());
    }
    if e.a.name == me {
        return Some(UP.to_string());
    }
    match e.a.group {
        Some(g) if is_core(e.b.role) && is_spine(e.a.role) => Some(format!("group{g:02}")),
        _ => Some(e.a.name.clone()),
    }
}

/// Per switch touching a link that went down (the failed one apart): each ECMP group whose width
/// changed, before and after.
fn ecmp_changes(ix: &Index<'_>, down: &BTreeSet<usize>, failed: Option<&str>) -> Vec<EcmpChange> {
    let touched: BTreeSet<&str> = down
        .iter()
        .flat_map(|&e| [ix.edges[e].a, ix.edges[e].b])
        .filter(|d| d.role.is_switch() && Some(d.name.as_str()) != failed)
        .map(|d| d.name.as_str())
        .collect();
    let mut out = Vec::new();
    for sw in touched {
        let mut widths: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for &e in ix.edges_of(sw) {
            let Some(c) = class(sw, &ix.edges[e]) else {
                continue;
            };
            let w = widths.entry(c).or_default();
            w.0 += 1;
            if !down.contains(&e) {
                w.1 += 1;
            }
        }
        out.extend(widths.into_iter().filter(|(_, (b, a))| b != a).map(
            |(toward, (before, after))| EcmpChange {
                switch: sw.to_string(),
                toward,
                before,
                after,
            },
        ));
    }
    out
}

/// Bandwidth lost per group, with the group's capacity.
fn losses(ix: &Index<'_>, down: &BTreeSet<usize>) -> Vec<Loss> {
    let mut lost: BTreeMap<Group, u64> = BTreeMap::new();
    for &e in down {
        let edge = &ix.edges[e];
        for g in ix.groups(edge) {
            *lost.entry(g).or_default() += u64::from(edge.link.speed.as_gbps());
        }
    }
    lost.into_iter()
        .map(|(group, lost_gbps)| {
            let capacity_gbps = ix.capacity.get(&group).copied().unwrap_or(lost_gbps);
            Loss {
                percent: percent(lost_gbps, capacity_gbps),
                group,
                lost_gbps,
                capacity_gbps,
            }
        })
        .collect()
}

/// `part` of `whole` in percent, rounded to 0.01 (0 of nothing is 0).
pub(super) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    (part as f64 * 10_000.0 / whole as f64).round() / 100.0
}

/// Nodes and appliances touching a link that went down: a node loses a rail when no link of it
/// is left, and is cut off from a network when no link of the network is left; an appliance is
/// named with whether it was cut off.
fn node_losses(
    ix: &Index<'_>,
    down: &BTreeSet<usize>,
) -> (Vec<NodeLoss>, Vec<NodeLoss>, Vec<ApplianceLoss>) {
    let ends: BTreeSet<(&str, bool)> = down
        .iter()
        .map(|&e| ix.edges[e].a)
        .filter(|d| !d.role.is_switch())
        .map(|d| (d.name.as_str(), d.role == Role::Node))
        .collect();
    let mut rails = Vec::new();
    let mut cut = Vec::new();
    let mut appliances = Vec::new();
    for (n, is_node) in ends {
        // (network, rail) → (links, links left); rail `None` is the whole network.
        let mut count: BTreeMap<(Network, Option<u32>), (usize, usize)> = BTreeMap::new();
        for &e in ix.edges_of(n) {
            let l = ix.edges[e].link;
            let up = usize::from(!down.contains(&e));
            let rail = l.rail.map(|r| (l.network, Some(r)));
            for key in std::iter::once((l.network, None)).chain(rail) {
                let c = count.entry(key).or_default();
                c.0 += 1;
                c.1 += up;
            }
        }
        for ((network, rail), (links, left)) in count {
            if !is_node {
                if rail.is_none() && left < links {
                    appliances.push(ApplianceLoss {
                        appliance: n.to_string(),
                        network,
                        cut_off: left == 0,
                    });
                }
                continue;
            }
            let loss = NodeLoss {
                node: n.to_string(),
                network,
                rail,
            };
            match (rail, left) {
                (None, 0) => cut.push(loss),
                (Some(_), 0) => rails.push(loss),
                _ => {}
            }
        }
    }
    // A node cut off from a network lost its rails there too; say it once, as cut off.
    rails.retain(|r: &NodeLoss| {
        !cut.iter()
            .any(|c| c.node == r.node && c.network == r.network)
    });
    (rails, cut, appliances)
}

/// The scheduler blocks holding a node that lost a link, or whose leaf lost uplinks.
fn blocks(
    ix: &Index<'_>,
    down: &BTreeSet<usize>,
    ecmp: &[EcmpChange],
    cut_off: &[NodeLoss],
) -> Vec<BlockHit> {
    let mut degraded: BTreeSet<&str> = down
        .iter()
        .map(|&e| ix.edges[e].a)
        .filter(|d| !d.role.is_switch())
        .map(|d| d.name.as_str())
        .collect();
    for c in ecmp.iter().filter(|c| c.toward == UP) {
        for &e in ix.edges_of(&c.switch) {
            let edge = &ix.edges[e];
            if edge.link.tier == Tier::NodeLeaf {
                degraded.insert(edge.a.name.as_str());
            }
        }
    }
    let cut: BTreeSet<&str> = cut_off
        .iter()
        .filter(|c| c.network != Network::Oob)
        .map(|c| c.node.as_str())
        .collect();
    let mut hits: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for n in &degraded {
        if let Some(b) = ix.block_of.get(n) {
            let h = hits.entry(b).or_default();
            h.0 += 1;
            h.1 += usize::from(cut.contains(n));
        }
    }
    hits.into_iter()
        .map(|(b, (degraded, cut_off))| BlockHit {
            block: b.to_string(),
            degraded,
            cut_off,
            nodes: ix.block_size.get(b).copied().unwrap_or(0),
        })
        .collect()
}
