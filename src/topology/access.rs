//! Storage and in-band fabrics: node ports to leaf pairs by node position, leaves to spines.

use super::PortId;
use super::builder::{Builder, Identity};
use super::sizing::AccessPlan;
use crate::model::{Role, Tier};

pub fn expand(b: &mut Builder<'_>) {
    if let Some(a) = &b.sizing.storage {
        fabric(b, a, Role::StorageLeaf, Role::StorageSpine, "s");
    }
    if let Some(a) = &b.sizing.inband {
        fabric(b, a, Role::InbandLeaf, Role::InbandSpine, "i");
    }
}

fn fabric(b: &mut Builder<'_>, a: &AccessPlan, leaf_role: Role, spine_role: Role, tag: &str) {
    let net = a.network;
    let leaves: Vec<_> = (1..=a.groups * a.width)
        .map(|i| {
            let id = Identity {
                group: Some((i - 1) / a.width + 1),
                index: i,
                ..Identity::default()
            };
            b.add_device(leaf_role, net, &a.leaf_model, id)
        })
        .collect();
    let spines: Vec<_> = match &a.spine_model {
        Some(m) => (1..=a.spines)
            .map(|i| {
                b.add_device(
                    spine_role,
                    net,
                    m,
                    Identity {
                        index: i,
                        ..Identity::default()
                    },
                )
            })
            .collect(),
        None => Vec::new(),
    };
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
            let id = format!("{tag}-n{}-p{}", pos + 1, k + 1);
            b.add_link(
                id,
                net,
                Tier::NodeLeaf,
                None,
                None,
                (n, PortId::Nic(*port)),
                (leaf, lp),
                a.port_speed,
            );
        }
    }
    if let Some(down) = &a.spine_down {
        let lps = a.links_per_leaf_spine;
        for (li, leaf) in leaves.iter().enumerate() {
            for (si, spine) in spines.iter().enumerate() {
                for m in 0..lps {
                    let u = si as u32 * lps + m;
                    let lp = b.run_port(*leaf, &a.leaf_up, u);
                    let sp = b.run_port(*spine, down, li as u32 * lps + m);
                    let id = format!("{tag}-l{}-u{}", li + 1, u + 1);
                    b.add_link(
                        id,
                        net,
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
}
