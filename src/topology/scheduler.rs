//! The scheduler's view of the compute fabric: the graph reduced once to a tree of at most three
//! levels — leaf domain (a topology block), spine group (3-tier only), one root — from which
//! Slurm's topology.conf/topology.yaml and Kueue's topology are written (`artifacts`), and whose
//! blocks the failure-impact analysis names (`impact`), so they cannot disagree.
//!
//! The leaf domain is the SU in a rail-optimized fabric (every node touches all rail leaves of
//! its SU, so no single leaf holds a node) and the real leaf in a top-of-rack one. Domains key on
//! position (SU, leaf index), never on a plane's switch, so a twin-planar node appears once.

use std::collections::{BTreeMap, BTreeSet};

use super::Fabric;
use crate::model::{Network, Role, Tier};

/// What a scheduler "leaf switch" stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafLevel {
    /// Rail-optimized: a scalable unit (all its rail leaves together).
    Su,
    /// Top-of-rack: the leaf all of a node's NICs land on.
    Leaf,
}

/// The scheduler's view of the compute fabric. Only populated domains and groups are kept:
/// Slurm rejects a switch without children (and Kueue has nothing to label there).
#[derive(Clone, Debug)]
pub struct SchedulerTree {
    pub cluster: String,
    pub leaf_level: LeafLevel,
    pub tiers: u32,
    pub planes: u32,
    pub sus_per_group: u32,
    pub groups: Vec<BlockGroup>,
    /// The NVLink domains of a rack-scale cluster (`rack01`, …, trays in position order): the
    /// blocks Slurm's topology/block and Kueue's NVLink level are made of. Empty otherwise.
    pub nvlink: Vec<Block>,
    /// Trays per NVLink domain (the base block size); 0 without domains.
    pub trays_per_domain: u32,
}

/// The nodes under one spine group (3-tier) or under the one spine layer (2-tier).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockGroup {
    /// `group01`; `None` in a 2-tier fabric, where one spine layer joins every SU.
    pub name: Option<String>,
    pub domains: Vec<Block>,
}

/// A leaf domain and its nodes in position order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Block {
    /// `su01` (rail-optimized) or `su01-leaf02` (top-of-rack).
    pub name: String,
    pub nodes: Vec<String>,
}

impl SchedulerTree {
    /// The one top switch: the spine layer of a 2-tier fabric, the core layer of a 3-tier one.
    pub fn root(&self) -> &'static str {
        if self.three_tier() { "core" } else { "spine" }
    }

    pub fn three_tier(&self) -> bool {
        self.tiers >= 3
    }

    pub fn domains(&self) -> impl Iterator<Item = (&BlockGroup, &Block)> {
        self.groups
            .iter()
            .flat_map(|g| g.domains.iter().map(move |d| (g, d)))
    }

    pub fn node_count(&self) -> usize {
        self.domains().map(|(_, d)| d.nodes.len()).sum()
    }

    /// Reduce the compute fabric to the scheduler tree. Membership is read from the cables
    /// (node → leaf, leaf → spine and its group), falling back to the sizing arithmetic only for
    /// a device without such a cable, so the files describe the graph that was actually built.
    pub fn of(f: &Fabric) -> SchedulerTree {
        let s = &f.sizing;
        let c = &s.compute;
        let leaf_level = if c.layout == crate::spec::Layout::TopOfRack {
            LeafLevel::Leaf
        } else {
            LeafLevel::Su
        };
        let three_tier = c.tiers >= 3;

        // Leaf positions (SU, leaf index) each node is cabled to; the same in every plane.
        let mut node_leaves: BTreeMap<&str, BTreeSet<(u32, u32)>> = BTreeMap::new();
        // Spine groups each leaf position's uplinks reach.
        let mut leaf_groups: BTreeMap<(u32, u32), BTreeSet<u32>> = BTreeMap::new();
        for l in f.links().filter(|l| l.network == Network::Compute) {
            let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
            match l.tier {
                Tier::NodeLeaf if a.role == Role::Node => {
                    if let Some(su) = b.su {
                        node_leaves
                            .entry(a.name.as_str())
                            .or_default()
                            .insert((su, b.index));
                    }
                }
                Tier::LeafSpine => {
                    if let (Some(su), Some(g)) = (a.su, b.group) {
                        leaf_groups.entry((su, a.index)).or_default().insert(g);
                    }
                }
                _ => {}
            }
        }

        let width_su = width(s.sus);
        let width_leaf = width(c.leaves_per_su);
        let width_group = width(c.groups);
        // Domain position → its nodes, each keyed by its own position so output follows it.
        let mut placed: BTreeMap<DomainKey, Vec<NodeKey>> = BTreeMap::new();
        for d in f
            .devices()
            .filter(|d| d.role == Role::Node && d.network == Network::Compute)
        {
            let leaves = node_leaves.get(d.name.as_str());
            let first = leaves.and_then(|p| p.first().copied());
            let su = first.map(|p| p.0).or(d.su).unwrap_or(1);
            let leaf = match leaf_level {
                LeafLevel::Su => 0,
                LeafLevel::Leaf => first.map_or_else(
                    || (d.index.max(1) - 1) / c.nodes_per_leaf.max(1) + 1,
                    |p| p.1,
                ),
            };
            let group = if three_tier {
                leaves
                    .into_iter()
                    .flatten()
                    .filter(|p| leaf_level == LeafLevel::Leaf || p.0 == su)
                    .filter_map(|p| leaf_groups.get(p))
                    .flatten()
                    .next()
                    .copied()
                    .unwrap_or_else(|| (su.max(1) - 1) / c.sus_per_group.max(1) + 1)
            } else {
                0
            };
            placed.entry((group, su, leaf)).or_default().push((
                d.su.unwrap_or(su),
                d.index,
                d.name.clone(),
            ));
        }

        let mut groups: Vec<BlockGroup> = Vec::new();
        for ((group, su, leaf), mut nodes) in placed {
            nodes.sort();
            let name = match leaf_level {
                LeafLevel::Su => format!("su{su:0width_su$}"),
                LeafLevel::Leaf => format!("su{su:0width_su$}-leaf{leaf:0width_leaf$}"),
            };
            let domain = Block {
                name,
                nodes: nodes.into_iter().map(|n| n.2).collect(),
            };
            let group_name = three_tier.then(|| format!("group{group:0width_group$}"));
            match groups.last_mut() {
                Some(g) if g.name == group_name => g.domains.push(domain),
                _ => groups.push(BlockGroup {
                    name: group_name,
                    domains: vec![domain],
                }),
            }
        }
        SchedulerTree {
            cluster: f.name.clone(),
            leaf_level,
            tiers: c.tiers,
            planes: c.planes,
            sus_per_group: c.sus_per_group,
            groups,
            nvlink: nvlink_domains(f),
            trays_per_domain: s.domains.as_ref().map_or(0, |d| d.trays),
        }
    }

    /// Whether the cluster is rack-scale (its nodes are in NVLink domains).
    pub fn rack_scale(&self) -> bool {
        !self.nvlink.is_empty()
    }
}

/// The NVLink domains of the compute nodes, `rackNN` (the domain number is cluster-wide and
/// stable when SUs are added, so is the name), trays in position order. Empty when no node has
/// a domain.
fn nvlink_domains(f: &Fabric) -> Vec<Block> {
    let mut by_domain: BTreeMap<u32, Vec<NodeKey>> = BTreeMap::new();
    for d in f
        .devices()
        .filter(|d| d.role == Role::Node && d.network == Network::Compute)
    {
        if let Some(n) = d.domain {
            by_domain
                .entry(n)
                .or_default()
                .push((d.su.unwrap_or(1), d.index, d.name.clone()));
        }
    }
    by_domain
        .into_iter()
        .map(|(n, mut trays)| {
            trays.sort();
            Block {
                name: f.domain_name(n),
                nodes: trays.into_iter().map(|t| t.2).collect(),
            }
        })
        .collect()
}

/// A leaf domain's position: (spine group or 0 in 2-tier, SU, leaf index or 0 for a whole SU).
type DomainKey = (u32, u32, u32);
/// A node's position and name: (SU, slot, name).
type NodeKey = (u32, u32, String);

/// Digits for zero-padded ordinals: at least two (`su01`), more when the count needs them, so
/// names sort the same as numbers.
fn width(count: u32) -> usize {
    count.max(1).to_string().len().max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_grow_past_99() {
        assert_eq!(width(1), 2);
        assert_eq!(width(16), 2);
        assert_eq!(width(100), 3);
    }
}
