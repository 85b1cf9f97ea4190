//! `hosts/nccl.env` and `hosts/nccl.json`: the NCCL environment of the cluster (variables as
//! NVIDIA/nccl reads them: `src/misc/utils.cc`, `src/transport/net_ib/`), one value per variable,
//! both files from the same typed [`NcclEnv`]; the env file from `templates/hosts/nccl.env.j2`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::catalog::NodeModel;
use crate::intent::host::{HostIntent, HostIntents};
use crate::model::Transport;
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};

/// One compute NIC port as NCCL sees it.
#[derive(Serialize)]
struct Hca {
    /// RDMA device (`mlx5_0`).
    rdma: String,
    /// HCA port number.
    port: u32,
    /// NCCL rail and plane ids, 0-based (as in `nccl-topo.xml`); no rail on top-of-rack fabrics.
    #[serde(skip_serializing_if = "Option::is_none")]
    rail: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plane: Option<u32>,
    /// Catalog port name and the leaf rail it is cabled to (1-based, as in `cabling.csv`).
    node_port: String,
    cabling_rail: u32,
}

/// The environment, in the order the env file prints it.
#[derive(Serialize)]
pub(super) struct NcclEnv {
    cluster: String,
    node_model: String,
    transport: Transport,
    /// Variable → value.
    pub(super) env: BTreeMap<String, String>,
    /// Compute NIC ports in `NCCL_IB_HCA` order (rail, then plane).
    hcas: Vec<Hca>,
    /// Why a variable is absent or what to check.
    pub(super) notes: Vec<String>,
}

/// `NCCL_IB_HCA` entries of one node, or `None` when a port has no RDMA name in the catalog
/// (a partial exact-match list would silently leave that rail unused).
fn hcas(node: &HostIntent, planes: u32, rails: bool, ids: bool) -> Option<Vec<Hca>> {
    node.ports
        .iter()
        .map(|p| {
            Some(Hca {
                rdma: p.rdma.clone()?,
                port: 1,
                rail: (rails && ids).then(|| p.rail.saturating_sub(1)),
                plane: p
                    .plane
                    .filter(|_| planes > 1 && ids)
                    .map(|x| x.saturating_sub(1)),
                node_port: p.port.clone(),
                cabling_rail: p.rail,
            })
        })
        .collect()
}

/// `name:port:rail[:plane]`. NVIDIA/nccl v2.30.7-1 (73cf112) is the first tag whose
/// `parseStringList` (src/misc/utils.cc) reads the rail and plane fields; the IB plugin hands them
/// to the topology (src/transport/net_ib/init.cc), which keeps a `rail`/`plane` nccl-topo.xml
/// already has (src/graph/topo.cc `xmlInitAttrInt` sets absent attributes only): no error when
/// they differ, so both are written equal. v2.30.4-1 and earlier read the port with `atoi` and
/// skip the rest of the entry, so the same line works there.
fn hca_entry(h: &Hca) -> String {
    let rail = h.rail.map(|r| r.to_string()).unwrap_or_default();
    match (h.plane, h.rail) {
        (Some(pl), _) => format!("{}:{}:{rail}:{pl}", h.rdma, h.port),
        (None, Some(_)) => format!("{}:{}:{rail}", h.rdma, h.port),
        (None, None) => format!("{}:{}", h.rdma, h.port),
    }
}

/// `inband`: the node ports of the in-band network, when the spec has one.
pub(super) fn build(
    cluster: &str,
    h: &HostIntents,
    model: &NodeModel,
    inband: &[String],
    topo_written: bool,
    tenants: bool,
) -> NcclEnv {
    let mut env = BTreeMap::new();
    let mut notes = Vec::new();
    // The HCA list of the most common node (all nodes of a model normally agree).
    let per_node: BTreeMap<String, String> = h
        .nodes
        .iter()
        .map(|(n, node)| {
            let s = hcas(node, h.planes, h.rail_optimized, h.nccl_rails)
                .map(|v| v.iter().map(hca_entry).collect::<Vec<_>>().join(","))
                .unwrap_or_default();
            (n.clone(), s)
        })
        .collect();
    let common = super::group(&per_node).map(|(c, odd)| {
        if !odd.is_empty() {
            notes.push(format!(
                "{} node(s) have other NICs cabled (e.g. {}); they need their own NCCL_IB_HCA",
                odd.len(),
                odd[0].0
            ));
        }
        c.to_string()
    });
    let example = common
        .as_deref()
        .and_then(|c| per_node.iter().find(|(_, v)| v.as_str() == c))
        .and_then(|(n, _)| h.nodes.get(n));
    let hca_list = example
        .and_then(|n| hcas(n, h.planes, h.rail_optimized, h.nccl_rails))
        .unwrap_or_default();
    match common.filter(|c| !c.is_empty()) {
        // `=`: exact names, so `mlx5_1` does not also match `mlx5_10`.
        Some(c) => {
            env.insert("NCCL_IB_HCA".to_string(), format!("={c}"));
        }
        None => notes.push(format!(
            "NCCL_IB_HCA left out: node model `{}` names no RDMA device for every compute NIC",
            h.node_model
        )),
    }
    env.insert(
        "NCCL_SOCKET_IFNAME".into(),
        super::bootstrap::socket_ifname(h, inband, &mut notes),
    );
    // 0 on rail-optimized fabrics: rings and trees leave and enter every node on the same rail,
    // the one-hop leaf path; elsewhere NCCL's default (2) lets it cross NICs where faster.
    env.insert(
        "NCCL_CROSS_NIC".into(),
        if h.rail_optimized { "0" } else { "2" }.into(),
    );
    match (&h.nic_qos, h.transport) {
        (Some(q), _) => {
            env.insert("NCCL_IB_GID_INDEX".into(), h.gid_index.to_string());
            // DSCP × 4 + ECT(0): the class the switches treat as lossless RoCE.
            env.insert("NCCL_IB_TC".into(), q.tos.to_string());
        }
        (None, Some(Transport::Infiniband)) if tenants => notes.push(
            "InfiniBand tenants: the default partition is limited, so a job with this file (PKey \
             index 0) reaches no other node; run tenant jobs with hosts/tenants/<tenant>/nccl.env"
                .into(),
        ),
        (None, Some(Transport::Infiniband)) => notes.push(
            "NCCL_IB_PKEY left out: the spec defines no tenants, so every job uses the default \
             partition (PKey index 0, NCCL's default)"
                .into(),
        ),
        _ => {}
    }
    topo_file(h, topo_written, &mut env, &mut notes);
    if h.nccl_rails && h.rail_optimized {
        notes.push(
            "rail ids are explicit and equal in NCCL_IB_HCA (name:port:rail[:plane]) and \
             nccl-topo.xml (rail, plane); `hosts.nccl_rails: false` leaves them out"
                .into(),
        );
        notes.push(
            "NCCL 2.30.7 and later read both (a rail already in nccl-topo.xml is kept) and, with \
             NCCL_CROSS_NIC=0, keep each channel on one rail id; earlier releases ignore them and \
             pair NICs by GUID and port (github.com/NVIDIA/nccl tag v2.30.7-1: src/misc/utils.cc \
             parseStringList, src/graph/topo.cc ncclTopoAddNet, src/graph/search.cc \
             ncclTopoSearchCheckNet)"
                .into(),
        );
    }
    if let Some(p) = &model.pcie
        && !p.unverified.is_empty()
    {
        notes.push(format!(
            "UNVERIFIED figures of node model `{}`: {}",
            h.node_model,
            p.unverified.join("; ")
        ));
    }
    NcclEnv {
        cluster: cluster.to_string(),
        node_model: h.node_model.clone(),
        transport: h.transport.unwrap_or(Transport::Ethernet),
        env,
        hcas: hca_list,
        notes,
    }
}

/// `NCCL_TOPO_FILE` when the written `nccl-topo.xml` is verified, else why not.
fn topo_file(
    h: &HostIntents,
    topo_written: bool,
    env: &mut BTreeMap<String, String>,
    notes: &mut Vec<String>,
) {
    if topo_written && h.pcie_verified {
        env.insert("NCCL_TOPO_FILE".into(), h.nccl_topo_file.clone());
    } else if topo_written {
        notes.push(format!(
            "NCCL_TOPO_FILE left out: the PCIe layout of node model `{}` is not verified; \
             nccl-topo.xml is written for review only (a verified layout: railyard explain RY0902)",
            h.node_model
        ));
    } else {
        notes.push(format!(
            "NCCL_TOPO_FILE left out: node model `{}` has no usable `pcie` layout",
            h.node_model
        ));
    }
}

/// The order variables are printed in the env file.
pub(super) const ORDER: [&str; 8] = [
    "NCCL_IB_HCA",
    "NCCL_SOCKET_IFNAME",
    "NCCL_IB_GID_INDEX",
    "NCCL_IB_TC",
    "NCCL_CROSS_NIC",
    "NCCL_TOPO_FILE",
    "NCCL_IB_PKEY",
    "UCX_IB_PKEY",
];

#[derive(Serialize)]
struct Var<'a> {
    key: &'a str,
    value: &'a str,
}

/// The env file `path` of `env`, titled `title`, with `notes` before the variables.
pub(super) fn env_text(
    path: &str,
    title: &str,
    notes: &[String],
    env: &BTreeMap<String, String>,
) -> Result<String, FileError> {
    let vars: Vec<Var<'_>> = ORDER
        .iter()
        .filter_map(|k| env.get(*k).map(|v| Var { key: k, value: v }))
        .collect();
    super::environment()
        .render_str(
            TEMPLATE,
            minijinja::context! { title => title, notes => notes, vars => vars },
        )
        .in_file(path)
}

const TEMPLATE: &str = include_str!("../../../templates/hosts/nccl.env.j2");

pub fn files(
    cluster: &str,
    h: &HostIntents,
    model: &NodeModel,
    inband: &[String],
    topo_written: bool,
    tenants: bool,
    rack_notes: &[String],
) -> Result<Vec<OutputFile>, FileError> {
    const ENV: &str = "hosts/nccl.env";
    const JSON: &str = "hosts/nccl.json";
    let mut e = build(cluster, h, model, inband, topo_written, tenants);
    e.notes.extend(rack_notes.iter().cloned());
    let title = format!(
        "NCCL environment of cluster {} ({} nodes)",
        e.cluster, e.node_model
    );
    let text = env_text(ENV, &title, &e.notes, &e.env)?;
    let mut json = serde_json::to_vec_pretty(&e).in_file(JSON)?;
    json.push(b'\n');
    Ok(vec![
        OutputFile::new(OutputGroup::Hosts, ENV, text),
        OutputFile::new(OutputGroup::Hosts, JSON, json),
    ])
}
