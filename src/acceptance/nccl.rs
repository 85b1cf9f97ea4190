//! The NCCL tests: `all_reduce_perf` and `alltoall_perf` (github.com/NVIDIA/nccl-tests) on the
//! nodes of each SU and on the whole cluster, one rank per GPU, with the NCCL environment
//! railyard renders for the nodes, and the bus bandwidth each must reach.
//!
//! Expected busbw, from nccl-tests' own definitions (doc/PERFORMANCE.md): AllReduce busbw =
//! algbw · 2(n−1)/n, AlltoAll busbw = algbw · (n−1)/n, n ranks. With g GPUs per node and B the
//! node's network bandwidth (the sum of its compute NIC ports, GB/s), NVLink inside the node
//! being faster:
//! - AllReduce: a ring moves 2(n−1)/n · S through every node's NICs, so t = 2(n−1)/n · S / B
//!   and busbw = B.
//! - AlltoAll: g ranks each send S·(n−g)/n out of the node, t = g·S·(n−g)/(n·B), so
//!   algbw = n·B/(g·(n−g)) and busbw = B·(n−1)/(g·(n−g)).
//!
//! Across SUs the traffic also crosses the spines: the figure is scaled by the leaves' uplink to
//! downlink bandwidth when that is below 1. The efficiency applied on top is an assumption (no
//! vendor figure), stated in the plan.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{LinkKind, NcclTest, PlanLink};
use crate::intent::host::HostIntents;
use crate::topology::Fabric;

/// Fraction of the derived bus bandwidth a test must reach.
pub const EFFICIENCY: f64 = 0.8;
/// Message sizes: from 1 GiB to 8 GiB (the large sizes where busbw is flat).
pub(super) const MIN_BYTES: u64 = 1 << 30;
pub(super) const MAX_BYTES: u64 = 8 << 30;

/// A test scope: its name (`su1`, `cluster`), its nodes, and the uplink ratio its traffic meets.
pub(super) type Scope = (String, Vec<String>, f64);

/// The NCCL tests of the cluster: per SU with more than one node, and across SUs when there are
/// several.
pub fn tests(fabric: &Fabric, hosts: &HostIntents, links: &[PlanLink]) -> Vec<NcclTest> {
    let gpus = fabric
        .catalog
        .nodes
        .get(hosts.node_model.as_str())
        .map_or(0, |m| m.gpus);
    if gpus == 0 {
        return Vec::new();
    }
    let (node_gbps, scopes) = scopes(fabric, hosts, links);
    let node_gbs = node_gbps as f64 / 8.0;
    let mut out = Vec::new();
    for (scope, nodes, ratio) in scopes {
        let n = nodes.len() as u32 * gpus;
        let (g, nf) = (f64::from(gpus), f64::from(n));
        let b = node_gbs * ratio;
        let reduce = b * EFFICIENCY;
        let a2a = b * (nf - 1.0) / (g * (nf - g)) * EFFICIENCY;
        let base = format!(
            "B = {node_gbps} Gb/s of compute NIC ports per node / 8 = {node_gbs} GB/s{}; \
             n = {n} ranks, g = {gpus} per node; efficiency {EFFICIENCY}",
            if ratio < 1.0 {
                format!(" × uplink ratio {ratio:.3}")
            } else {
                String::new()
            }
        );
        for (binary, busbw, formula) in [
            ("all_reduce_perf", reduce, "busbw = B"),
            ("alltoall_perf", a2a, "busbw = B·(n−1)/(g·(n−g))"),
        ] {
            out.push(NcclTest {
                id: format!("{}-{scope}", binary.trim_end_matches("_perf")),
                binary: binary.into(),
                scope: scope.clone(),
                nodes: nodes.clone(),
                gpus_per_node: gpus,
                ranks: n,
                min_bytes: MIN_BYTES,
                max_bytes: MAX_BYTES,
                expected_busbw: (busbw * 100.0).round() / 100.0,
                derivation: format!("{formula}; {base}"),
            });
        }
    }
    out
}

/// A node's compute bandwidth in Gb/s, and the scopes: each SU with more than one node, then the
/// whole cluster when it has several SUs.
pub(super) fn scopes(
    fabric: &Fabric,
    hosts: &HostIntents,
    links: &[PlanLink],
) -> (u64, Vec<Scope>) {
    let mut by_su: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
    for d in fabric.devices() {
        if hosts.nodes.contains_key(&d.name) {
            by_su
                .entry(d.su.unwrap_or(0))
                .or_default()
                .insert(d.name.as_str());
        }
    }
    // The node's network bandwidth: the most common node (all nodes of a model normally agree).
    let node_gbps = hosts
        .nodes
        .values()
        .map(|n| {
            n.ports
                .iter()
                .map(|p| u64::from(p.speed.as_gbps()))
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    let mut scopes: Vec<Scope> = by_su
        .iter()
        .filter(|(_, n)| n.len() > 1)
        .map(|(su, n)| (format!("su{su}"), sorted(n), 1.0))
        .collect();
    if by_su.len() > 1 {
        let all: BTreeSet<&str> = by_su.values().flatten().copied().collect();
        scopes.push(("cluster".into(), sorted(&all), uplink_ratio(links).min(1.0)));
    }
    (node_gbps, scopes)
}

pub(super) fn sorted(names: &BTreeSet<&str>) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    v.sort_by(|a, b| crate::output::natural::cmp(a, b));
    v
}

/// The lowest uplink : downlink bandwidth of any leaf with node ports.
fn uplink_ratio(links: &[PlanLink]) -> f64 {
    let mut per_leaf: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for l in links {
        match l.kind {
            LinkKind::NodeLeaf => per_leaf.entry(&l.b).or_default().0 += u64::from(l.gbps),
            LinkKind::LeafSpine => per_leaf.entry(&l.a).or_default().1 += u64::from(l.gbps),
        }
    }
    per_leaf
        .values()
        .filter(|(down, _)| *down > 0)
        .map(|(down, up)| *up as f64 / *down as f64)
        .fold(f64::INFINITY, f64::min)
}
