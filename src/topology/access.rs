//! Storage and in-band fabrics: node ports to leaf groups by node position, then whatever joins
//! the leaves — peer links within one pair, or the Clos tiers of `clos.rs` (spines, or spine
//! groups and cores). Ports and cable ids derive from identity (node position, leaf group), so
//! added node positions only append.

use petgraph::graph::NodeIndex;

use super::PortId;
use super::builder::{Builder, Identity};
use super::clos::{self, Tiers};
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
    match tiers(a, r) {
        Some(t) => {
            let switches = clos::add_switches(b, &t);
            clos::wire(b, &t, &leaves, &switches);
        }
        None => peer_links(b, a, r, &leaves),
    }
}

/// The spines (and cores) above the leaves; `None` for one leaf, or one pair joined by peer
/// links.
fn tiers<'p>(a: &'p AccessPlan, r: &Roles) -> Option<Tiers<'p>> {
    let (Some(spine_model), Some(spine_down)) = (&a.spine_model, &a.spine_down) else {
        return None;
    };
    Some(Tiers {
        network: a.network,
        plane: None,
        spine_role: r.spine,
        core_role: r.core,
        spine_model,
        core_model: a.core_model.as_deref(),
        tiers: a.tiers,
        groups: a.spine_groups,
        spines_per_group: a.spines,
        cores_per_group: a.cores_per_group,
        leaves_per_group: a.leaves_per_group,
        links_per_leaf_spine: a.links_per_leaf_spine,
        links_per_spine_core: a.links_per_spine_core,
        leaf_up: &a.leaf_up,
        spine_down,
        spine_up: a.spine_up.as_ref(),
        core_down: a.core_down.as_ref(),
        speed: a.uplink_speed,
        prefix: r.tag.to_string(),
        leaves_per_su: None,
    })
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
