//! Storage and in-band fabrics: node ports to leaf groups by node position, then whatever joins
//! the leaves — peer links within one pair, spines, or spine groups and cores. Ports and cable ids
//! derive from identity (leaf, spine group, spine, uplink), so added node positions only append.

use petgraph::graph::NodeIndex;

use super::PortId;
use super::builder::{Builder, Identity};
use super::sizing::AccessPlan;
use crate::model::{Role, Tier};

/// The roles of one access fabric's tiers and the tag of its cable ids.
struct Roles {
    leaf: Role,
    spine: Role,
    core: Role,
    tag: &'static str,
}

pub fn expand(b: &mut Builder<'_>) {
    if let Some(a) = &b.sizing.storage {
        let roles = Roles {
            leaf: Role::StorageLeaf,
            spine: Role::StorageSpine,
            core: Role::StorageCore,
            tag: "s",
        };
        fabric(b, a, &roles);
    }
    if let Some(a) = &b.sizing.inband {
        let roles = Roles {
            leaf: Role::InbandLeaf,
            spine: Role::InbandSpine,
            core: Role::InbandCore,
            tag: "i",
        };
        fabric(b, a, &roles);
    }
}

fn fabric(b: &mut Builder<'_>, a: &AccessPlan, r: &Roles) {
    let net = a.network;
    let leaves: Vec<_> = (1..=a.leaves())
        .map(|i| {
            let id = Identity {
                group: Some((i - 1) / a.width + 1),
                index: i,
                ..Identity::default()
            };
            b.add_device(r.leaf, net, &a.leaf_model, id)
        })
        .collect();
    nodes(b, a, r, &leaves);
    match a.tiers {
        1 => peer_links(b, a, r, &leaves),
        2 => two_tier(b, a, r, &leaves),
        _ => three_tier(b, a, r, &leaves),
    }
}

/// Node ports alternate over the leaves of the node's group, by node position.
fn nodes(b: &mut Builder<'_>, a: &AccessPlan, r: &Roles, leaves: &[NodeIndex<u32>]) {
    // Nodes were added first, in position order: find them by identity, not by order.
    let nodes: Vec<_> = b
        .graph
        .node_indices()
        .filter(|i| b.graph[*i].role == Role::Node)
        .collect();
    let nps = b.sizing.nodes_per_su;
    for n in nodes {
        let (su, slot) = (b.graph[n].su.unwrap_or(1), b.graph[n].index);
        let pos = (su - 1) * nps + (slot - 1);
        let (group, within) = (pos / a.nodes_per_group, pos % a.nodes_per_group);
        for (k, port) in a.node_ports.iter().enumerate() {
            let k = k as u32;
            let leaf = leaves[(group * a.width + k % a.width) as usize];
            let lane = within * a.lanes_per_node + k / a.width;
            let lp = b.run_port(leaf, &a.leaf_down, lane);
            let id = format!("{}-n{}-p{}", r.tag, pos + 1, k + 1);
            b.add_link(
                id,
                a.network,
                Tier::NodeLeaf,
                None,
                None,
                (n, PortId::Nic(*port)),
                (leaf, lp),
                a.port_speed,
            );
        }
    }
}

/// One pair without spines: peer link m joins uplink port m of both leaves.
fn peer_links(b: &mut Builder<'_>, a: &AccessPlan, r: &Roles, leaves: &[NodeIndex<u32>]) {
    for (g, pair) in leaves.chunks(2).enumerate() {
        let [first, second] = pair else { continue };
        for m in 0..a.peer_links {
            let p1 = b.run_port(*first, &a.leaf_up, m);
            let p2 = b.run_port(*second, &a.leaf_up, m);
            let id = format!("{}-g{}-p{}", r.tag, g + 1, m + 1);
            b.add_link(
                id,
                a.network,
                Tier::LeafLeaf,
                None,
                None,
                (*first, p1),
                (*second, p2),
                a.uplink_speed,
            );
        }
    }
}

fn spine_identity(a: &AccessPlan, group: u32, index: u32) -> Identity {
    Identity {
        group: (a.tiers == 3).then_some(group),
        index,
        ..Identity::default()
    }
}

/// Leaf uplink u = spine k × links-per-pair + m; on the spine, leaf q of its spine group takes
/// ports q × links-per-pair + m, so added leaves only append ports.
fn leaf_spine_links(
    b: &mut Builder<'_>,
    a: &AccessPlan,
    r: &Roles,
    leaves: &[NodeIndex<u32>],
    spines: &[Vec<NodeIndex<u32>>],
) {
    let Some(down) = &a.spine_down else { return };
    let lps = a.links_per_leaf_spine;
    for (li, leaf) in leaves.iter().enumerate() {
        let li = li as u32;
        let (g, q) = (li / a.leaves_per_group, li % a.leaves_per_group);
        let Some(group) = spines.get(g as usize) else {
            continue;
        };
        for (si, spine) in group.iter().enumerate() {
            for m in 0..lps {
                let u = si as u32 * lps + m;
                let lp = b.run_port(*leaf, &a.leaf_up, u);
                let sp = b.run_port(*spine, down, q * lps + m);
                let id = format!("{}-l{}-u{}", r.tag, li + 1, u + 1);
                b.add_link(
                    id,
                    a.network,
                    Tier::LeafSpine,
                    None,
                    None,
                    (*leaf, lp),
                    (*spine, sp),
                    a.uplink_speed,
                );
            }
        }
    }
}

fn two_tier(b: &mut Builder<'_>, a: &AccessPlan, r: &Roles, leaves: &[NodeIndex<u32>]) {
    let Some(model) = &a.spine_model else { return };
    let spines: Vec<_> = (1..=a.spines)
        .map(|i| b.add_device(r.spine, a.network, model, spine_identity(a, 1, i)))
        .collect();
    leaf_spine_links(b, a, r, leaves, &[spines]);
}

/// Spine groups of `leaves_per_group` leaves; spine k of every group joins core group k, whose
/// core c takes group g's links on ports g × links-per-pair + m.
fn three_tier(b: &mut Builder<'_>, a: &AccessPlan, r: &Roles, leaves: &[NodeIndex<u32>]) {
    let (Some(spine_model), Some(core_model), Some(up), Some(down)) =
        (&a.spine_model, &a.core_model, &a.spine_up, &a.core_down)
    else {
        return;
    };
    let spines: Vec<Vec<_>> = (1..=a.spine_groups)
        .map(|g| {
            (1..=a.spines)
                .map(|i| b.add_device(r.spine, a.network, spine_model, spine_identity(a, g, i)))
                .collect()
        })
        .collect();
    let cores: Vec<Vec<_>> = (1..=a.spines)
        .map(|j| {
            (1..=a.cores_per_group)
                .map(|k| {
                    let id = Identity {
                        group: Some(j),
                        index: (j - 1) * a.cores_per_group + k,
                        ..Identity::default()
                    };
                    b.add_device(r.core, a.network, core_model, id)
                })
                .collect()
        })
        .collect();
    leaf_spine_links(b, a, r, leaves, &spines);
    let lpc = a.links_per_spine_core;
    for (g, group) in spines.iter().enumerate() {
        let g = g as u32;
        for (k, spine) in group.iter().enumerate() {
            for (ci, core) in cores[k].iter().enumerate() {
                for m in 0..lpc {
                    let u = ci as u32 * lpc + m;
                    let sp = b.run_port(*spine, up, u);
                    let cp = b.run_port(*core, down, g * lpc + m);
                    let id = format!("{}-g{}-s{}-u{}", r.tag, g + 1, k + 1, u + 1);
                    b.add_link(
                        id,
                        a.network,
                        Tier::SpineCore,
                        None,
                        None,
                        (*spine, sp),
                        (*core, cp),
                        a.uplink_speed,
                    );
                }
            }
        }
    }
}
