//! The compute fabric: nodes, rail (or top-of-rack) leaves, spines, cores, and their cables.

use petgraph::graph::NodeIndex;

use super::builder::{Builder, Identity};
use super::clos::{self, Tiers};
use super::{ComputePlan, PortId};
use crate::model::{Network, Role, Tier};
use crate::spec::Layout;

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

/// The compute fabric: nodes and fabric managers once, then per plane its switches and the
/// three cable tiers. Devices are added in this order, which fixes their graph indices.
pub fn expand(b: &mut Builder<'_>) {
    let nodes = add_nodes(b);
    let appliances = add_fabric_managers(b);
    let c = &b.sizing.compute;
    for plane in 1..=c.planes {
        let tiers = tiers(c, plane);
        // Leaves [su-1][leaf-1], flat.
        let leaves = add_leaves(b, tiers.plane);
        let switches = clos::add_switches(b, &tiers);
        cable_nodes(b, plane, &nodes, &appliances, &leaves);
        clos::wire(b, &tiers, &leaves, &switches);
    }
}

/// One plane's tiers above its leaves.
fn tiers(c: &ComputePlan, plane: u32) -> Tiers<'_> {
    Tiers {
        network: Network::Compute,
        plane: (c.planes > 1).then_some(plane),
        spine_role: Role::Spine,
        core_role: Role::Core,
        spine_model: &c.spine_model,
        core_model: c.core_model.as_deref(),
        tiers: c.tiers,
        groups: c.groups,
        spines_per_group: c.spines_per_group,
        cores_per_group: c.cores_per_group,
        leaves_per_group: c.sus_per_group * c.leaves_per_su,
        links_per_leaf_spine: c.links_per_leaf_spine,
        links_per_spine_core: c.links_per_spine_core,
        leaf_up: &c.leaf_up,
        spine_down: &c.spine_down,
        spine_up: c.spine_up.as_ref(),
        core_down: c.core_down.as_ref(),
        speed: c.uplink_speed,
        prefix: format!("c{plane}"),
        leaves_per_su: Some(c.leaves_per_su),
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
                    domain: s.domains.as_ref().map(|d| d.domain_of(su, slot)),
                    tray: s.domains.as_ref().map(|d| d.tray_of(slot)),
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

fn add_leaves(b: &mut Builder<'_>, p: Option<u32>) -> Vec<Ix> {
    let c = &b.sizing.compute;
    let mut leaves = Vec::with_capacity((b.sizing.sus * c.leaves_per_su) as usize);
    for su in 1..=b.sizing.sus {
        for l in 1..=c.leaves_per_su {
            let rails = match c.layout {
                Layout::RailOptimized => leaf_rails(c, l - 1),
                Layout::TopOfRack => Vec::new(),
            };
            let id = Identity {
                plane: p,
                su: Some(su),
                index: l,
                leaf: Some(l),
                rails,
                ..Identity::default()
            };
            leaves.push(b.add_device(Role::Leaf, Network::Compute, &c.leaf_model, id));
        }
    }
    leaves
}

/// Node → leaf: NIC `rail` of every node to its rail's leaf; in the reserved position, the fabric
/// managers take the first rails (plane 1 only).
fn cable_nodes(
    b: &mut Builder<'_>,
    plane: u32,
    nodes: &[Option<Ix>],
    appliances: &[Ix],
    leaves: &[Ix],
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
                let leaf_ix = leaves[((su - 1) * c.leaves_per_su + leaf) as usize];
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

/// The rails (1-based) whose ports land on rail-optimized leaf `leaf` (0-based, within the SU).
fn leaf_rails(c: &ComputePlan, leaf: u32) -> Vec<u32> {
    // Rail-optimized: `nodes_per_leaf` is the SU's slots, the length of one rail.
    let per_rail = c.nodes_per_leaf.max(1);
    let first = leaf * c.downlinks_per_leaf;
    let last = (first + c.downlinks_per_leaf)
        .min(c.rails * per_rail)
        .max(first + 1)
        - 1;
    (first / per_rail + 1..=last / per_rail + 1).collect()
}

/// The leaf (0-based, within the SU) and downlink lane for a node slot and rail (both 0-based).
///
/// Rail-optimized: the SU's node ports in rail order (rail 1 of every slot, then rail 2, …) fill
/// the leaves one after another, `downlinks_per_leaf` each. Where a leaf holds whole rails this
/// is NVIDIA's rail-per-leaf wiring (DGX SuperPOD H100: GPU i of all 32 nodes on leaf i; B300 XDR:
/// 72 nodes per leaf). Where one rail of the SU is longer than a leaf (an SU of 144 NVL72 trays
/// on 64-port leaves), the rail continues on the next leaf, so a rail's trays sit on
/// `leaves_per_rail` consecutive leaves in slot (= rack) order and every leaf port is used. The
/// GB200 RA's own figure of this wiring was not retrievable; this is the order a rail-aligned
/// fabric keeps rail traffic one hop apart within each leaf. Numbering is per SU, so adding an SU
/// moves no existing cable.
fn leaf_lane(c: &ComputePlan, slot: u32, rail: u32) -> (u32, u32) {
    match c.layout {
        Layout::RailOptimized => {
            let flat = rail * c.nodes_per_leaf + slot;
            (flat / c.downlinks_per_leaf, flat % c.downlinks_per_leaf)
        }
        Layout::TopOfRack => (
            slot / c.nodes_per_leaf,
            (slot % c.nodes_per_leaf) * c.rails + rail,
        ),
    }
}
