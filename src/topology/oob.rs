//! Out-of-band management: every node's BMC and every switch's management port.
//!
//! Each SU has its own OOB switches with a fixed block per position (node BMCs by slot, then the
//! SU's compute leaves), so an added SU never moves another SU's ports. Central devices (spines,
//! cores, storage and in-band switches, appliances) take the ports SU 1 leaves free, then OOB core
//! switches.

use petgraph::graph::NodeIndex;

use super::PortId;
use super::builder::{Builder, Identity};
use crate::model::{Network, Role, Tier};

pub fn expand(b: &mut Builder<'_>) {
    let o = &b.sizing.oob;
    let c = &b.sizing.compute;
    let cap = o.access.capacity();
    let nps = b.sizing.nodes_per_su;
    let all: Vec<NodeIndex<u32>> = b.graph.node_indices().collect();
    let central: Vec<NodeIndex<u32>> = all
        .iter()
        .copied()
        .filter(|i| !matches!(b.graph[*i].role, Role::Node | Role::Leaf))
        .collect();
    let spare_in_su1 = o.per_su * cap - o.su_block;
    let core_count = (central.len() as u32)
        .saturating_sub(spare_in_su1)
        .div_ceil(cap);

    let mut per_su: Vec<Vec<NodeIndex<u32>>> = Vec::new();
    for su in 1..=b.sizing.sus {
        per_su.push(
            (1..=o.per_su)
                .map(|i| {
                    b.add_device(
                        Role::OobLeaf,
                        Network::Oob,
                        &o.model,
                        Identity {
                            su: Some(su),
                            index: i,
                            ..Identity::default()
                        },
                    )
                })
                .collect(),
        );
    }
    let cores: Vec<NodeIndex<u32>> = (1..=core_count)
        .map(|i| {
            b.add_device(
                Role::OobCore,
                Network::Oob,
                &o.model,
                Identity {
                    index: i,
                    ..Identity::default()
                },
            )
        })
        .collect();

    let access = o.access;
    let connect = |b: &mut Builder<'_>, dev: NodeIndex<u32>, sw: NodeIndex<u32>, lane: u32| {
        let sp = b.run_port(sw, &access, lane);
        let id = format!("m-{}", b.graph[dev].name);
        b.add_link(
            id,
            Network::Oob,
            Tier::Mgmt,
            None,
            None,
            (dev, PortId::Mgmt),
            (sw, sp),
            access.speed,
        );
    };
    for dev in all {
        let d = &b.graph[dev];
        let slot = match d.role {
            Role::Node => d.index - 1,
            Role::Leaf => nps + (d.plane.unwrap_or(1) - 1) * c.leaves_per_su + (d.index - 1),
            _ => continue,
        };
        let su = d.su.unwrap_or(1);
        let sw = per_su[(su - 1) as usize][(slot / cap) as usize];
        connect(b, dev, sw, slot % cap);
    }
    for (i, dev) in central.into_iter().enumerate() {
        let i = i as u32;
        if i < spare_in_su1 {
            let slot = o.su_block + i;
            connect(b, dev, per_su[0][(slot / cap) as usize], slot % cap);
        } else {
            let j = i - spare_in_su1;
            connect(b, dev, cores[(j / cap) as usize], j % cap);
        }
    }
}
