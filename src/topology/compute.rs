//! The compute fabric: nodes, rail (or top-of-rack) leaves, spines, cores, and their cables.

use petgraph::graph::NodeIndex;

use super::PortId;
use super::builder::{Builder, Identity};
use crate::model::{Network, Role, Tier};

/// Flat `PortId::Nic` index of compute NIC `rail`'s port for `plane` (both 0-based).
fn nic_port(b: &Builder<'_>, rail: u32, plane: u32) -> PortId {
    let m = &b.catalog.nodes[&b.sizing.node_model];
    let before: usize = m
        .compute
        .iter()
        .take(rail as usize)
        .map(|n| n.ports.len())
        .sum();
    PortId::Nic(u16::try_from(before + plane as usize).unwrap_or(u16::MAX))
}

type Ix = NodeIndex<u32>;

/// One plane's switches: leaves [su-1][leaf-1], spines [group-1][spine-1], cores
/// [core group-1][core-1] (core group j serves spine j of every group).
struct PlaneSwitches {
    leaves: Vec<Vec<Ix>>,
    spines: Vec<Vec<Ix>>,
    cores: Vec<Vec<Ix>>,
}

/// The compute fabric: nodes and fabric managers once, then per plane its switches and the
/// three cable tiers. Devices are added in this order, which fixes their graph indices.
pub fn expand(b: &mut Builder<'_>) {
    let nodes = add_nodes(b);
    let appliances = add_fabric_managers(b);
    let c = &b.sizing.compute;
    for plane in 1..=c.planes {
        let p = (c.planes > 1).then_some(plane);
        let sw = PlaneSwitches {
            leaves: add_leaves(b, p),
            spines: add_spines(b, p),
            cores: add_cores(b, p),
        };
        cable_nodes(b, plane, &nodes, &appliances, &sw);
        cable_leaves_to_spines(b, plane, &sw);
        cable_spines_to_cores(b, plane, &sw);
    }
}

/// Nodes by position; `None` where the position is empty.
fn add_nodes(b: &mut Builder<'_>) -> Vec<Option<Ix>> {
    let s = b.sizing;
    let (sus, nps) = (s.sus, s.nodes_per_su);
    let mut nodes = Vec::with_capacity((sus * nps) as usize);
    for su in 1..=sus {
        for slot in 1..=nps {
            nodes.push(s.is_populated(su, slot).then(|| {
                let id = Identity {
                    su: Some(su),
                    index: slot,
                    node: Some((su - 1) * nps + slot),
                    ..Identity::default()
                };
                b.add_device(Role::Node, Network::Compute, &s.node_model, id)
            }));
        }
    }
    nodes
}

/// Fabric-manager appliances (UFM), in the SU position the plan reserves for them.
fn add_fabric_managers(b: &mut Builder<'_>) -> Vec<Ix> {
    let s = b.sizing;
    (1..=s.fabric_managers)
        .map(|k| {
            let id = Identity {
                su: s.reserved.map(|r| r.0),
                index: k,
                ..Identity::default()
            };
            let model = b
                .spec
                .compute
                .fabric_managers
                .as_ref()
                .map_or("ufm-appliance", |f| f.model.as_str());
            b.add_device(Role::Appliance, Network::Compute, model, id)
        })
        .collect()
}

fn add_leaves(b: &mut Builder<'_>, p: Option<u32>) -> Vec<Vec<Ix>> {
    let c = &b.sizing.compute;
    (1..=b.sizing.sus)
        .map(|su| {
            (1..=c.leaves_per_su)
                .map(|l| {
                    let rails = if c.layout == "rail-optimized" {
                        ((l - 1) * c.rails_per_leaf + 1..=l * c.rails_per_leaf).collect()
                    } else {
                        Vec::new()
                    };
                    let id = Identity {
                        plane: p,
                        su: Some(su),
                        index: l,
                        leaf: Some(l),
                        rails,
                        ..Identity::default()
                    };
                    b.add_device(Role::Leaf, Network::Compute, &c.leaf_model, id)
                })
                .collect()
        })
        .collect()
}

fn add_spines(b: &mut Builder<'_>, p: Option<u32>) -> Vec<Vec<Ix>> {
    let c = &b.sizing.compute;
    (1..=c.groups)
        .map(|g| {
            (1..=c.spines_per_group)
                .map(|k| {
                    let id = Identity {
                        plane: p,
                        group: (c.tiers == 3).then_some(g),
                        index: k,
                        ..Identity::default()
                    };
                    b.add_device(Role::Spine, Network::Compute, &c.spine_model, id)
                })
                .collect()
        })
        .collect()
}

fn add_cores(b: &mut Builder<'_>, p: Option<u32>) -> Vec<Vec<Ix>> {
    let c = &b.sizing.compute;
    let Some(model) = c.core_model.as_ref().filter(|_| c.tiers == 3) else {
        return Vec::new();
    };
    (1..=c.spines_per_group)
        .map(|j| {
            (1..=c.cores_per_group)
                .map(|k| {
                    let id = Identity {
                        plane: p,
                        group: Some(j),
                        index: (j - 1) * c.cores_per_group + k,
                        ..Identity::default()
                    };
                    b.add_device(Role::Core, Network::Compute, model, id)
                })
                .collect()
        })
        .collect()
}

/// Node → leaf: NIC `rail` of every node to its rail's leaf; in the reserved position, the fabric
/// managers take the first rails (plane 1 only).
fn cable_nodes(
    b: &mut Builder<'_>,
    plane: u32,
    nodes: &[Option<Ix>],
    appliances: &[Ix],
    sw: &PlaneSwitches,
) {
    let s = b.sizing;
    let c = &s.compute;
    let p = (c.planes > 1).then_some(plane);
    let (sus, nps) = (s.sus, s.nodes_per_su);
    for su in 1..=sus {
        for slot in 1..=nps {
            let node = nodes[((su - 1) * nps + slot - 1) as usize];
            for rail in 0..c.rails {
                let (leaf, lane) = leaf_lane(c, slot - 1, rail);
                let leaf_ix = sw.leaves[(su - 1) as usize][leaf as usize];
                let (id, end) = if let Some(n) = node {
                    let id = format!("c{plane}-su{su}-n{slot}-r{}", rail + 1);
                    (id, (n, nic_port(b, rail, plane - 1)))
                } else if s.reserved == Some((su, slot))
                    && plane == 1
                    && (rail as usize) < appliances.len()
                {
                    let id = format!("c{plane}-ufm{}", rail + 1);
                    (id, (appliances[rail as usize], PortId::Nic(0)))
                } else {
                    continue;
                };
                let lp = b.run_port(leaf_ix, &c.leaf_down, lane);
                b.add_link(
                    id,
                    Network::Compute,
                    Tier::NodeLeaf,
                    p,
                    Some(rail + 1),
                    end,
                    (leaf_ix, lp),
                    c.port_speed,
                );
            }
        }
    }
}

/// Leaf → spine: uplink u = spine k × links-per-pair + m; on the spine, leaf q of the group takes
/// ports q × links-per-pair + m, so adding an SU only appends ports.
fn cable_leaves_to_spines(b: &mut Builder<'_>, plane: u32, sw: &PlaneSwitches) {
    let c = &b.sizing.compute;
    let p = (c.planes > 1).then_some(plane);
    let lps = c.links_per_leaf_spine;
    for su in 1..=b.sizing.sus {
        let g = (su - 1) / c.sus_per_group;
        let q0 = ((su - 1) % c.sus_per_group) * c.leaves_per_su;
        for l in 0..c.leaves_per_su {
            let leaf_ix = sw.leaves[(su - 1) as usize][l as usize];
            for k in 0..c.spines_per_group {
                let spine_ix = sw.spines[g as usize][k as usize];
                for m in 0..lps {
                    let u = k * lps + m;
                    let lp = b.run_port(leaf_ix, &c.leaf_up, u);
                    let sp = b.run_port(spine_ix, &c.spine_down, (q0 + l) * lps + m);
                    let id = format!("c{plane}-su{su}-l{}-u{}", l + 1, u + 1);
                    b.add_link(
                        id,
                        Network::Compute,
                        Tier::LeafSpine,
                        p,
                        None,
                        (leaf_ix, lp),
                        (spine_ix, sp),
                        c.uplink_speed,
                    );
                }
            }
        }
    }
}

/// Spine → core: spine k of every group to each core of core group k; group g takes ports
/// g × links-per-pair + m on the core, so adding a group only appends ports.
fn cable_spines_to_cores(b: &mut Builder<'_>, plane: u32, sw: &PlaneSwitches) {
    let c = &b.sizing.compute;
    let (Some(up), Some(down)) = (&c.spine_up, &c.core_down) else {
        return;
    };
    let p = (c.planes > 1).then_some(plane);
    let lpc = c.links_per_spine_core;
    for g in 0..c.groups {
        for k in 0..c.spines_per_group {
            let spine_ix = sw.spines[g as usize][k as usize];
            for (ci, core_ix) in sw.cores[k as usize].iter().enumerate() {
                for m in 0..lpc {
                    let u = ci as u32 * lpc + m;
                    let sp = b.run_port(spine_ix, up, u);
                    let cp = b.run_port(*core_ix, down, g * lpc + m);
                    let id = format!("c{plane}-g{}-s{}-u{}", g + 1, k + 1, u + 1);
                    b.add_link(
                        id,
                        Network::Compute,
                        Tier::SpineCore,
                        p,
                        None,
                        (spine_ix, sp),
                        (*core_ix, cp),
                        c.uplink_speed,
                    );
                }
            }
        }
    }
}

/// The leaf (0-based, within the SU) and downlink lane for a node slot and rail (both 0-based).
fn leaf_lane(c: &super::ComputePlan, slot: u32, rail: u32) -> (u32, u32) {
    if c.layout == "rail-optimized" {
        (
            rail / c.rails_per_leaf,
            (rail % c.rails_per_leaf) * c.nodes_per_leaf + slot,
        )
    } else {
        (
            slot / c.nodes_per_leaf,
            (slot % c.nodes_per_leaf) * c.rails + rail,
        )
    }
}
