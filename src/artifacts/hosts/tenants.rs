//! Per InfiniBand tenant, under `hosts/tenants/<tenant>/`:
//! - `nccl.env`: the cluster's NCCL environment plus `NCCL_IB_PKEY` = the PKey *index* of the
//!   tenant's key on its members' ports (1: see `intent/partitions.rs` for how OpenSM fills the
//!   table and what railyard cannot know) and `UCX_IB_PKEY` = the key itself (UCX takes the
//!   15-bit value, NCCL the index);
//! - `slurm-partition.conf`: the `PartitionName=` line placing jobs on exactly the tenant's nodes;
//! - `kueue.yaml` + `label-nodes.sh`: a Kueue `ResourceFlavor` selecting the tenant's node label
//!   (on the cluster's topology) and the `kubectl label` commands that set it.

use serde::Serialize;

use super::super::scheduler::hostlist::compress;
use super::super::scheduler::k8s_name;
use super::Inputs;
use super::nccl_env::{NcclEnv, env_text};
use crate::catalog::is_token;
use crate::intent::partitions::{Partition, Partitions};
use crate::output::{OutputFile, OutputGroup};

const SLURM: &str = include_str!("../../../templates/hosts/slurm-partition.conf.j2");
const LABELS: &str = include_str!("../../../templates/hosts/label-nodes.sh.j2");

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Flavor {
    api_version: &'static str,
    kind: &'static str,
    metadata: Metadata,
    spec: FlavorSpec,
}

#[derive(Serialize)]
struct Metadata {
    name: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FlavorSpec {
    node_labels: std::collections::BTreeMap<String, String>,
    /// The cluster's Kueue `Topology` (scheduler/kueue/topology.yaml).
    topology_name: String,
}

fn env_file(cluster: &str, base: &NcclEnv, p: &Partition) -> Option<String> {
    let mut env = base.env.clone();
    env.insert("NCCL_IB_PKEY".into(), p.pkey_index.to_string());
    env.insert("UCX_IB_PKEY".into(), p.pkey.clone());
    let mut notes = vec![
        format!(
            "InfiniBand partition `{}` = PKey {}. OpenSM keeps the default key 0x7fff at index 0 of \
             every port and gives a port's further keys the next free indices from 1; these nodes \
             are members of the default (limited) and of this key only, so {} (full member) sits \
             at index {} once the subnet manager has loaded tenants/partitions.conf.",
            p.name, p.pkey, p.pkey_full, p.pkey_index
        ),
        format!(
            "Check on a node: `cat /sys/class/infiniband/<rdma>/ports/1/pkeys/{}` prints {}. \
             railyard cannot see indices a running OpenSM gave out before (a node moved from \
             another tenant keeps that key's index until OpenSM restarts), partitions added \
             outside partitions.conf, or SR-IOV guests' tables; if the check differs, set \
             NCCL_IB_PKEY to the index that holds {}.",
            p.pkey_index, p.pkey_full, p.pkey_full
        ),
    ];
    notes.extend(
        base.notes
            .iter()
            .filter(|n| !n.starts_with("InfiniBand tenants:"))
            .cloned(),
    );
    let title = format!(
        "NCCL environment of tenant {} on cluster {cluster} ({} node(s): {})",
        p.name,
        p.nodes.len(),
        compress(&p.nodes)
    );
    env_text(&title, &notes, &env)
}

fn slurm_file(cluster: &str, p: &Partition) -> Option<String> {
    super::environment()
        .render_str(
            SLURM,
            minijinja::context! {
                tenant => p.name,
                cluster => cluster,
                node_count => p.nodes.len(),
                nodes => compress(&p.nodes),
                pkey => p.pkey,
                pkey_index => p.pkey_index,
            },
        )
        .ok()
}

fn kueue_files(inputs: &Inputs<'_>, p: &Partition) -> Vec<OutputFile> {
    let key = format!("{}/tenant", inputs.spec.scheduler.label_prefix.value);
    let cluster = k8s_name(&inputs.fabric.name);
    let flavor = Flavor {
        api_version: "kueue.x-k8s.io/v1beta1",
        kind: "ResourceFlavor",
        metadata: Metadata {
            name: format!("{cluster}-{}", k8s_name(&p.name)),
        },
        spec: FlavorSpec {
            node_labels: [(key.clone(), p.name.clone())].into_iter().collect(),
            topology_name: cluster,
        },
    };
    let yaml = crate::artifacts::yaml(&flavor);
    let head = format!(
        "# railyard: Kueue ResourceFlavor of tenant {} ({} node(s)); label the nodes with \
         label-nodes.sh,\n# then use the flavor in the tenant's ClusterQueue.\n",
        p.name,
        p.nodes.len()
    );
    let dir = format!("hosts/tenants/{}", p.name);
    let mut out = vec![OutputFile::new(
        OutputGroup::Hosts,
        format!("{dir}/kueue.yaml"),
        head + &yaml,
    )];
    // Node names and tenant names are plain tokens (checked by topology and tenancy); anything
    // else would not be a safe shell word and is left out.
    let nodes: Vec<&str> = p
        .nodes
        .iter()
        .map(String::as_str)
        .filter(|n| is_token(n))
        .collect();
    if is_token(&p.name)
        && is_token(&key.replace('/', ""))
        && let Ok(text) = super::environment().render_str(
            LABELS,
            minijinja::context! { tenant => p.name, nodes => nodes, key => key, value => p.name },
        )
    {
        out.push(OutputFile::new(
            OutputGroup::Hosts,
            format!("{dir}/label-nodes.sh"),
            text,
        ));
    }
    out
}

pub fn files(inputs: &Inputs<'_>, parts: &Partitions, base: &NcclEnv) -> Vec<OutputFile> {
    let cluster = &inputs.fabric.name;
    let mut out = Vec::new();
    for p in &parts.partitions {
        let dir = format!("hosts/tenants/{}", p.name);
        if let Some(t) = env_file(cluster, base, p) {
            out.push(OutputFile::new(
                OutputGroup::Hosts,
                format!("{dir}/nccl.env"),
                t,
            ));
        }
        if let Some(t) = slurm_file(cluster, p) {
            out.push(OutputFile::new(
                OutputGroup::Hosts,
                format!("{dir}/slurm-partition.conf"),
                t,
            ));
        }
        out.extend(kueue_files(inputs, p));
    }
    out
}
