//! Out-of-band management: every node's BMC and every switch's management port.
//!
//! Each SU has its own OOB switches with a fixed block per position (node BMCs by slot, the SU's
//! compute leaves, then the storage and in-band leaves whose node group starts in the SU), so an
//! added SU never moves another SU's ports. Central devices (appliances, cores, spines) take the
//! ports SU 1 leaves free, then OOB core switches, tiers whose count is fixed by the design
//! first: cores, then spines, compute before storage before in-band. Every OOB switch uplinks to
//! the OOB gateway: SU s switch i on gateway port (s - 1) × switches per SU + i - 1 counted from
//! the first, OOB core k on port k counted from the last, so neither kind moves when the other
//! grows.

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
    let mut central: Vec<NodeIndex<u32>> = all
        .iter()
        .copied()
        .filter(|i| central_rank(b.graph[*i].role).is_some())
        .collect();
    // Stable sort: within a rank, graph (identity) order.
    central.sort_by_key(|i| central_rank(b.graph[*i].role));
    let spare_in_su1 = o.spare_in_su1(nps);
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

    let gateway = b.add_device(
        Role::OobGateway,
        Network::Oob,
        &o.gateway_model,
        Identity {
            index: 1,
            ..Identity::default()
        },
    );
    uplinks(b, gateway, &per_su, &cores);

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
        if let Some((su, sw, lane)) = rack_part_port(o, nps, d) {
            connect(b, dev, per_su[(su - 1) as usize][sw as usize], lane);
            continue;
        }
        let (su, slot) = match d.role {
            Role::Node => (d.su.unwrap_or(1), d.index - 1),
            Role::Leaf => (
                d.su.unwrap_or(1),
                nps + (d.plane.unwrap_or(1) - 1) * c.leaves_per_su + (d.index - 1),
            ),
            Role::StorageLeaf | Role::InbandLeaf => {
                let (a, at) = if d.role == Role::StorageLeaf {
                    (b.sizing.storage.as_ref(), o.storage_leaves_at)
                } else {
                    (b.sizing.inband.as_ref(), o.inband_leaves_at)
                };
                let Some(a) = a else { continue };
                access_leaf_slot(a, nps, at, d.index)
            }
            _ => continue,
        };
        let (sw, lane) = o.place(slot, nps);
        connect(b, dev, per_su[(su - 1) as usize][sw as usize], lane);
    }
    for (i, dev) in central.into_iter().enumerate() {
        let i = i as u32;
        if i < spare_in_su1 {
            let (sw, lane) = o.place(o.su_block + i, nps);
            connect(b, dev, per_su[0][sw as usize], lane);
        } else {
            let j = i - spare_in_su1;
            connect(b, dev, cores[(j / cap) as usize], j % cap);
        }
    }
}

/// A rack part's (SU, switch within the SU, lane): its rack's own switches, after the rack's
/// trays, NVLink switch trays before power shelves. `None` for any other device.
fn rack_part_port(
    o: &super::sizing::OobPlan,
    nps: u32,
    d: &super::Device,
) -> Option<(u32, u32, u32)> {
    let r = o.in_rack.filter(|_| d.role.is_rack_component())?;
    let per = (nps / r.trays.max(1)).max(1);
    let rack = (d.domain.unwrap_or(1) - 1) % per;
    let shelf = if d.role == Role::PowerShelf {
        r.nvlink_switch_trays
    } else {
        0
    };
    let (sw, lane) = r.place(rack, r.trays + shelf + d.index - 1);
    Some((d.su.unwrap_or(1), sw, lane))
}

/// Central devices, in the order they take OOB ports: appliances and cores (fixed by the design),
/// then spines; `None` for devices with a port in an SU block (or none).
fn central_rank(role: Role) -> Option<u8> {
    Some(match role {
        Role::Appliance => 0,
        Role::Core => 1,
        Role::StorageCore => 2,
        Role::InbandCore => 3,
        Role::Spine => 4,
        Role::StorageSpine => 5,
        Role::InbandSpine => 6,
        _ => return None,
    })
}

/// The SU and the slot in its block of a storage or in-band leaf (`index` 1-based): the SU where
/// its node group's first position lies, then the group's place among the groups starting in
/// that SU, then the leaf's place in its group.
fn access_leaf_slot(a: &super::sizing::AccessPlan, nps: u32, at: u32, index: u32) -> (u32, u32) {
    let (g, w) = ((index - 1) / a.width, (index - 1) % a.width);
    let npg = a.nodes_per_group.max(1);
    let su = g * npg / nps.max(1);
    // The first group that starts in this SU.
    let first = (su * nps).div_ceil(npg);
    (su + 1, at + (g - first) * a.width + w)
}

/// One trunk per OOB switch to the gateway, from the first lane of the switch's uplink run.
fn uplinks(
    b: &mut Builder<'_>,
    gateway: NodeIndex<u32>,
    per_su: &[Vec<NodeIndex<u32>>],
    cores: &[NodeIndex<u32>],
) {
    let o = &b.sizing.oob;
    let (up, down) = (o.uplink, o.gateway_down);
    let cap = down.capacity();
    let su_ports = u32::try_from(per_su.len()).unwrap_or(u32::MAX) * o.per_su;
    let core_ports = u32::try_from(cores.len()).unwrap_or(u32::MAX);
    if su_ports + core_ports > cap {
        b.gateway_overflow = Some((su_ports + core_ports, cap));
        return;
    }
    let slots = per_su
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, sw)| (*sw, i as u32))
        .chain(
            cores
                .iter()
                .enumerate()
                .map(|(k, sw)| (*sw, cap - 1 - k as u32)),
        )
        .collect::<Vec<_>>();
    for (sw, slot) in slots {
        let sp = b.run_port(sw, &up, 0);
        let gp = b.run_port(gateway, &down, slot);
        let id = format!("o-{}", b.graph[sw].name);
        b.add_link(
            id,
            Network::Oob,
            Tier::OobUplink,
            None,
            None,
            (sw, sp),
            (gateway, gp),
            up.speed,
        );
    }
}
