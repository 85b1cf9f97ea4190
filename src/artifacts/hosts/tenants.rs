//! Per InfiniBand tenant, under `hosts/tenants/<tenant>/`:
//! - `nccl.env`: the cluster's NCCL environment plus `NCCL_IB_PKEY` = the PKey *index* of the
//!   tenant's key on its members' ports (1: see `intent/partitions.rs` for how OpenSM fills the
//!   table and what railyard cannot know) and `UCX_IB_PKEY` = the key itself (UCX takes the
//!   15-bit value, NCCL the index);
//! - `slurm-partition.conf`: the `PartitionName=` line placing jobs on exactly the tenant's nodes;
//! - `kueue.yaml` + `label-nodes.sh`: a Kueue `ResourceFlavor` selecting the tenant's node label
//!   (on the cluster's topology) and the `kubectl label` commands that set it. The flavor's name
//!   and the label value come from the names through the Kubernetes grammars
//!   (`artifacts/k8s.rs`); two tenants of one flavor name or label value are an error.

use std::collections::BTreeSet;

use serde::Serialize;

use super::super::scheduler::hostlist::compress;
use super::nccl_env::{NcclEnv, env_text};
use crate::artifacts::k8s::{dns_label, label_key, label_value, mapped_note, node_name};
use crate::design::Design;
use crate::intent::partitions::{Partition, Partitions};
use crate::output::{FileError, InFile};
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

fn env_file(path: &str, cluster: &str, base: &NcclEnv, p: &Partition) -> Result<String, FileError> {
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
    env_text(path, &title, &notes, &env)
}

fn slurm_file(path: &str, cluster: &str, p: &Partition) -> Result<String, FileError> {
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
        .in_file(path)
}

/// The Kubernetes names of the tenants' flavors and label values so far: a repeat is an error.
#[derive(Default)]
struct Taken {
    flavors: BTreeSet<String>,
    values: BTreeSet<String>,
}

fn kueue_files(
    inputs: &Design,
    p: &Partition,
    dir: &str,
    taken: &mut Taken,
) -> Result<Vec<OutputFile>, FileError> {
    let path = format!("{dir}/kueue.yaml");
    let key = label_key(&inputs.spec.scheduler.label_prefix.value, "tenant").in_file(&path)?;
    let cluster = &inputs.fabric.name;
    let flavor_text = format!("{cluster}-{}", p.name);
    let flavor_name = dns_label(&flavor_text);
    let value = label_value(&p.name);
    if !taken.flavors.insert(flavor_name.clone()) || !taken.values.insert(value.clone()) {
        return Err(FileError::new(
            &path,
            format!(
                "tenant `{}` has the Kubernetes name `{flavor_name}` or label value `{value}` \
                 of another tenant",
                p.name.escape_default()
            ),
        ));
    }
    let flavor = Flavor {
        api_version: "kueue.x-k8s.io/v1beta1",
        kind: "ResourceFlavor",
        metadata: Metadata {
            name: flavor_name.clone(),
        },
        spec: FlavorSpec {
            node_labels: [(key.clone(), value.clone())].into_iter().collect(),
            // The cluster's Topology, named as scheduler/kueue/topology.yaml names it.
            topology_name: dns_label(cluster),
        },
    };
    let yaml = crate::artifacts::printed::yaml(&path, &flavor)?;
    let tenant = crate::artifacts::printed::one_line(&p.name);
    let notes = mapped_note("ResourceFlavor name", &flavor_name, &flavor_text)
        + &mapped_note("tenant", &value, &p.name);
    let head = format!(
        "# railyard: Kueue ResourceFlavor of tenant {tenant} ({} node(s)); label the nodes with \
         label-nodes.sh,\n# then use the flavor in the tenant's ClusterQueue.\n{notes}",
        p.nodes.len()
    );
    let labels_path = format!("{dir}/label-nodes.sh");
    // Kubernetes names and label values are shell words as they are ([a-z0-9.-], `/`, `=`).
    let nodes = p
        .nodes
        .iter()
        .map(|n| node_name(n))
        .collect::<Result<Vec<String>, String>>()
        .in_file(&labels_path)?;
    let text = super::environment()
        .render_str(
            LABELS,
            minijinja::context! { tenant => tenant, nodes => nodes, key => key, value => value },
        )
        .in_file(&labels_path)?;
    Ok(vec![
        OutputFile::new(OutputGroup::Hosts, path, head + &yaml),
        OutputFile::new(OutputGroup::Hosts, labels_path, text),
    ])
}

pub fn files(
    inputs: &Design,
    parts: &Partitions,
    base: &NcclEnv,
) -> Result<Vec<OutputFile>, FileError> {
    let cluster = &inputs.fabric.name;
    let mut out = Vec::new();
    let mut taken = Taken::default();
    for p in &parts.partitions {
        let dir = format!("hosts/tenants/{}", p.name);
        let env = format!("{dir}/nccl.env");
        let text = env_file(&env, cluster, base, p)?;
        out.push(OutputFile::new(OutputGroup::Hosts, env, text));
        let slurm = format!("{dir}/slurm-partition.conf");
        let text = slurm_file(&slurm, cluster, p)?;
        out.push(OutputFile::new(OutputGroup::Hosts, slurm, text));
        out.extend(kueue_files(inputs, p, &dir, &mut taken)?);
    }
    Ok(out)
}
