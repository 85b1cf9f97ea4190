//! The NCCL tests of a rack-scale system (GB200/GB300 NVL72): the NVLink domain, not the 4-GPU
//! tray, is what the network sees as one "node".
//!
//! - Within one rack (one NVLink domain, multi-node NVLink): every rank reaches every other over
//!   NVLink, L = the GPU's NVLink bandwidth in one direction (NVIDIA prints it both ways: 1.8 TB/s
//!   → 900 GB/s). A ring AllReduce moves 2(n−1)/n · S over each rank's link, so busbw = L; an
//!   AlltoAll moves S(n−1)/n, so busbw = L too.
//! - Across racks: nccl.rs's derivation with the domain as the node: g = the domain's GPUs,
//!   B = the domain's compute NIC bandwidth (its trays' ports together). The ring still crosses
//!   each rank's NVLink once per step, so AllReduce busbw = min(B, L).
//!
//! NCCL uses NVLink across trays only with MNNVL (NCCL ≥ 2.25.2 for GB200 and the IMEX channels;
//! `hosts/nccl.env`). The efficiency applied is nccl.rs's assumption.

use std::collections::BTreeMap;

use super::model::NcclTest;
use super::model::PlanLink;
use super::nccl::{self, EFFICIENCY, MAX_BYTES, MIN_BYTES, sorted};
use crate::intent::host::HostIntents;
use crate::topology::{DomainPlan, Fabric};

/// Per rack, then per SU and the cluster (the scopes nccl.rs draws, with their uplink ratios),
/// each with its rack-scale expectation.
pub(super) fn tests(
    fabric: &Fabric,
    hosts: &HostIntents,
    d: &DomainPlan,
    links: &[PlanLink],
) -> Vec<NcclTest> {
    let (tray_gbps, scopes) = nccl::scopes(fabric, hosts, links);
    let tray_gbs = tray_gbps as f64 / 8.0;
    let gpus_per_tray = d.gpus / d.trays.max(1);
    let nvlink = f64::from(d.nvlink_gbytes_per_gpu) / 2.0;
    let mut racks: BTreeMap<u32, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for dev in fabric.devices() {
        if let (Some(n), true) = (dev.domain, hosts.nodes.contains_key(&dev.name)) {
            racks.entry(n).or_default().insert(dev.name.as_str());
        }
    }
    let mut out = Vec::new();
    for (n, trays) in racks.iter().filter(|(_, t)| t.len() > 1) {
        let ranks = trays.len() as u32 * gpus_per_tray;
        let why = format!(
            "one NVLink domain: L = {} GB/s per GPU both ways / 2 = {nvlink} GB/s; n = {ranks} ranks over NVLink (MNNVL); efficiency {EFFICIENCY}",
            d.nvlink_gbytes_per_gpu
        );
        for (binary, formula) in [
            ("all_reduce_perf", "busbw = L"),
            ("alltoall_perf", "busbw = L"),
        ] {
            out.push(test(
                binary,
                &fabric.domain_name(*n),
                sorted(trays),
                (gpus_per_tray, ranks),
                nvlink * EFFICIENCY,
                format!("{formula}; {why}"),
            ));
        }
    }
    for (scope, nodes, ratio) in &scopes {
        let ranks = nodes.len() as u32 * gpus_per_tray;
        let g = d.gpus.min(ranks);
        let b = tray_gbs * f64::from(g / gpus_per_tray.max(1)) * ratio;
        let (gf, nf) = (f64::from(g), f64::from(ranks));
        let why = format!(
            "the NVLink domain is the node: B = {tray_gbs} GB/s of compute NIC ports per tray × {} trays = {} GB/s{}, L = {nvlink} GB/s; n = {ranks} ranks, g = {g} per domain; efficiency {EFFICIENCY}",
            g / gpus_per_tray.max(1),
            tray_gbs * f64::from(g / gpus_per_tray.max(1)),
            if *ratio < 1.0 {
                format!(" × uplink ratio {ratio:.3}")
            } else {
                String::new()
            }
        );
        let a2a = if ranks > g {
            b * (nf - 1.0) / (gf * (nf - gf))
        } else {
            nvlink
        };
        for (binary, busbw, formula) in [
            ("all_reduce_perf", b.min(nvlink), "busbw = min(B, L)"),
            (
                "alltoall_perf",
                a2a.min(nvlink),
                "busbw = min(B·(n−1)/(g·(n−g)), L)",
            ),
        ] {
            out.push(test(
                binary,
                scope,
                nodes.clone(),
                (gpus_per_tray, ranks),
                busbw * EFFICIENCY,
                format!("{formula}; {why}"),
            ));
        }
    }
    out
}

fn test(
    binary: &str,
    scope: &str,
    nodes: Vec<String>,
    (per_node, ranks): (u32, u32),
    busbw: f64,
    derivation: String,
) -> NcclTest {
    NcclTest {
        id: format!("{}-{scope}", binary.trim_end_matches("_perf")),
        binary: binary.into(),
        scope: scope.to_string(),
        nodes,
        gpus_per_node: per_node,
        ranks,
        min_bytes: MIN_BYTES,
        max_bytes: MAX_BYTES,
        expected_busbw: (busbw * 100.0).round() / 100.0,
        derivation,
    }
}
