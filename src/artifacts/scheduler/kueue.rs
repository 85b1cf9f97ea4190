//! Kubernetes Kueue topology-aware scheduling (Kueue Topology Aware Scheduling documentation; kueue `apis/kueue/v1beta1`): a
//! `Topology` with levels broadest → narrowest and a `ResourceFlavor` pointing at it, plus the
//! node labels those levels read, as data and as a `kubectl label` script.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::artifacts::k8s::{dns_label, label_key, label_value, mapped_note, node_name};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{LeafLevel, SchedulerTree};

const API_VERSION: &str = "kueue.x-k8s.io/v1beta1";
/// Set by the kubelet; Kueue wants it as the lowest level (node hot-swap, taints respected).
const HOSTNAME: &str = "kubernetes.io/hostname";

const TOPOLOGY: &str = "scheduler/kueue/topology.yaml";
const NODE_LABELS: &str = "scheduler/kueue/node-labels.yaml";
const SCRIPT: &str = "scheduler/kueue/label-nodes.sh";

pub fn files(tree: &SchedulerTree, prefix: &str) -> Result<Vec<OutputFile>, FileError> {
    let keys = Keys::new(tree, prefix).in_file(TOPOLOGY)?;
    let cluster = Cluster::of(tree);
    let nodes = node_labels(tree, &keys, &cluster.name)?;
    Ok(vec![
        OutputFile::new(
            OutputGroup::Hosts,
            TOPOLOGY,
            topology_yaml(&cluster, &keys)?,
        ),
        OutputFile::new(
            OutputGroup::Hosts,
            NODE_LABELS,
            node_labels_yaml(&cluster, &nodes)?,
        ),
        OutputFile::new(OutputGroup::Hosts, SCRIPT, label_script(&cluster, &nodes)),
    ])
}

/// The cluster as the Kueue files name it: the `Topology` name and the cluster label's value
/// (an RFC 1123 label from the cluster name), with the comment line saying what it stands for
/// when it is not the name itself.
struct Cluster {
    name: String,
    /// The cluster's name in the spec.
    full: String,
    /// The cluster name as it can stand in a comment.
    text: String,
    note: String,
}

impl Cluster {
    fn of(tree: &SchedulerTree) -> Self {
        let cluster = &tree.cluster;
        let name = dns_label(cluster);
        Self {
            note: mapped_note("cluster", &name, cluster),
            text: crate::artifacts::printed::one_line(cluster),
            full: cluster.to_string(),
            name,
        }
    }
}

/// The label keys: one per tree level, plus the cluster label the ResourceFlavor selects on.
struct Keys {
    cluster: String,
    group: Option<String>,
    domain: String,
    /// The NVLink domain of a rack-scale cluster, below the leaf domain.
    nvlink: Option<String>,
}

impl Keys {
    fn new(tree: &SchedulerTree, prefix: &str) -> Result<Self, String> {
        let domain = match tree.leaf_level {
            LeafLevel::Su => "su",
            LeafLevel::Leaf => "leaf",
        };
        Ok(Self {
            cluster: label_key(prefix, "cluster")?,
            group: tree
                .three_tier()
                .then(|| label_key(prefix, "spine-group"))
                .transpose()?,
            domain: label_key(prefix, domain)?,
            nvlink: tree
                .rack_scale()
                .then(|| label_key(prefix, "nvlink-domain"))
                .transpose()?,
        })
    }

    /// Topology levels, broadest first, hostname last.
    fn levels(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.group.iter().map(String::as_str).collect();
        v.push(&self.domain);
        v.extend(self.nvlink.as_deref());
        v.push(HOSTNAME);
        v
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Object<S> {
    api_version: &'static str,
    kind: &'static str,
    metadata: Metadata,
    spec: S,
}

#[derive(Serialize)]
struct Metadata {
    name: String,
}

#[derive(Serialize)]
struct TopologySpec {
    levels: Vec<Level>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Level {
    node_label: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FlavorSpec {
    /// Kueue requires at least one node label on a flavor with a topology.
    node_labels: BTreeMap<String, String>,
    topology_name: String,
}

/// One node and the labels the scheduler topology needs on it.
#[derive(Serialize)]
struct NodeLabels {
    name: String,
    labels: BTreeMap<String, String>,
}

/// Every node's labels; a node whose name Kubernetes cannot carry, or two nodes of one
/// Kubernetes name, are an error.
fn node_labels(
    tree: &SchedulerTree,
    keys: &Keys,
    cluster: &str,
) -> Result<Vec<NodeLabels>, FileError> {
    let mut out = Vec::with_capacity(tree.node_count());
    let mut seen = std::collections::BTreeSet::new();
    let racks = super::topograph::racks(tree);
    for (g, d) in tree.domains() {
        let domain = label_value(&d.name);
        let group = g.name.as_deref().map(label_value);
        for n in &d.nodes {
            let name = node_name(n).in_file(NODE_LABELS)?;
            if !seen.insert(name.clone()) {
                return Err(FileError::new(
                    NODE_LABELS,
                    format!("two nodes are Kubernetes node `{name}`"),
                ));
            }
            let mut labels = BTreeMap::new();
            labels.insert(keys.cluster.clone(), cluster.to_string());
            if let (Some(k), Some(v)) = (&keys.group, &group) {
                labels.insert(k.clone(), v.clone());
            }
            labels.insert(keys.domain.clone(), domain.clone());
            if let (Some(k), Some(rack)) = (&keys.nvlink, racks.get(n.as_str())) {
                let rack = label_value(rack);
                labels.insert(k.clone(), rack.clone());
                labels.extend(super::topograph::labels(tree, g, &domain, &rack));
            }
            out.push(NodeLabels { name, labels });
        }
    }
    Ok(out)
}

fn topology_yaml(cluster: &Cluster, keys: &Keys) -> Result<String, FileError> {
    let name = cluster.name.clone();
    let topology = Object {
        api_version: API_VERSION,
        kind: "Topology",
        metadata: Metadata { name: name.clone() },
        spec: TopologySpec {
            levels: keys
                .levels()
                .into_iter()
                .map(|l| Level {
                    node_label: l.to_string(),
                })
                .collect(),
        },
    };
    // The flavor's name from the cluster's text, so that it too is at most 63 characters.
    let flavor_text = format!("{}-tas", cluster.full);
    let flavor_name = dns_label(&flavor_text);
    let flavor_note = mapped_note("ResourceFlavor name", &flavor_name, &flavor_text);
    let flavor = Object {
        api_version: API_VERSION,
        kind: "ResourceFlavor",
        metadata: Metadata { name: flavor_name },
        spec: FlavorSpec {
            node_labels: BTreeMap::from([(keys.cluster.clone(), name.clone())]),
            topology_name: name,
        },
    };
    let mut out = format!(
        "# Kueue topology-aware scheduling for cluster `{}`, generated by railyard {}.\n\
         # Levels broadest -> narrowest; nodes carry these labels (node-labels.yaml, label-nodes.sh).\n\
         # Use the ResourceFlavor in a ClusterQueue (Kueue feature gate TopologyAwareScheduling,\n# alpha since v0.9). Apply with `kubectl apply -f topology.yaml` after labelling the nodes.\n{}{flavor_note}",
        cluster.text,
        env!("CARGO_PKG_VERSION"),
        cluster.note
    );
    out.push_str(&crate::artifacts::printed::yaml(TOPOLOGY, &topology)?);
    out.push_str("---\n");
    out.push_str(&crate::artifacts::printed::yaml(TOPOLOGY, &flavor)?);
    Ok(out)
}

fn node_labels_yaml(cluster: &Cluster, nodes: &[NodeLabels]) -> Result<String, FileError> {
    let mut out = format!(
        "# Node labels for Kueue topology-aware scheduling, cluster `{}` ({} nodes).\n\
         # `{HOSTNAME}` is set by the kubelet and must equal the node name.\n{}{}",
        cluster.text,
        nodes.len(),
        cluster.note,
        if nodes.iter().any(|n| n
            .labels
            .keys()
            .any(|k| k.starts_with(super::topograph::PREFIX)))
        {
            super::topograph::NOTE
        } else {
            ""
        }
    );
    out.push_str(&crate::artifacts::printed::yaml(NODE_LABELS, &nodes)?);
    Ok(out)
}

/// The `kubectl label` commands; every word through the one shell quoting (the names and
/// labels are Kubernetes tokens already, which the shell takes as they are).
fn label_script(cluster: &Cluster, nodes: &[NodeLabels]) -> String {
    let quote = crate::output::shell::quote;
    let mut out = format!(
        "#!/usr/bin/env bash\n\
         # Label the nodes of cluster `{}` for Kueue topology-aware scheduling ({} nodes).\n\
         # Generated by railyard {}; idempotent (--overwrite).\n{}\
         set -euo pipefail\n",
        cluster.text,
        nodes.len(),
        env!("CARGO_PKG_VERSION"),
        cluster.note
    );
    for n in nodes {
        let mut line = format!("kubectl label node {}", quote(&n.name));
        for (k, v) in &n.labels {
            line.push(' ');
            line.push_str(&quote(&format!("{k}={v}")));
        }
        line.push_str(" --overwrite\n");
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_prefix_that_is_no_dns_subdomain_is_an_error() {
        let tree = SchedulerTree {
            cluster: "c".into(),
            leaf_level: LeafLevel::Su,
            tiers: 2,
            planes: 1,
            sus_per_group: 1,
            groups: Vec::new(),
            nvlink: Vec::new(),
            trays_per_domain: 0,
        };
        let e = files(&tree, "Bad Prefix").err().unwrap();
        assert_eq!(e.path, TOPOLOGY);
        assert!(e.reason.contains("not a DNS subdomain"), "{e}");
    }
}
