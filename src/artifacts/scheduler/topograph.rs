//! The node labels NVIDIA topograph writes for a rack-scale cluster
//! (https://docs.nvidia.com/topograph/reference/node-labels-and-annotations), written by railyard
//! from the plan so Kubernetes schedulers that read them work before topograph runs:
//! `network.topology.nvidia.com/accelerator` (the block: the NVLink domain), `…/leaf`,
//! `…/spine`, `…/core` (the tree, as in topology.conf's switch names).

use std::collections::BTreeMap;

use crate::artifacts::k8s::label_value;
use crate::topology::{BlockGroup, SchedulerTree};

pub(super) const PREFIX: &str = "network.topology.nvidia.com/";

/// Why the accelerator label is the domain's name and the GPU operator's label is absent.
pub(super) const NOTE: &str = "\
# `network.topology.nvidia.com/*` are NVIDIA topograph's labels: `accelerator` is the NVLink domain
# (the block), `leaf`/`spine`/`core` the tree of topology.conf. For NVLink (MNNVL) systems topograph
# sets `accelerator` to \"<ClusterUUID>.<CliqueID>\" from the fabric manager, which a plan cannot know:
# railyard writes the domain's name (rackNN) instead; topograph overwrites it when it runs.
# `nvidia.com/gpu.clique` is set by the GPU operator from the fabric and is not written here.
";

/// Tray name → its NVLink domain's name.
pub(super) fn racks(tree: &SchedulerTree) -> BTreeMap<&str, &str> {
    tree.nvlink
        .iter()
        .flat_map(|d| d.nodes.iter().map(|n| (n.as_str(), d.name.as_str())))
        .collect()
}

/// The topograph labels of a tray in leaf domain `leaf` (a label value) of `group`.
pub(super) fn labels(
    tree: &SchedulerTree,
    group: &BlockGroup,
    leaf: &str,
    rack: &str,
) -> Vec<(String, String)> {
    let mut v = vec![
        (format!("{PREFIX}accelerator"), rack.to_string()),
        (format!("{PREFIX}leaf"), leaf.to_string()),
    ];
    match &group.name {
        // 3-tier: the spine group, then the one core.
        Some(g) => {
            v.push((format!("{PREFIX}spine"), label_value(g)));
            v.push((format!("{PREFIX}core"), tree.root().to_string()));
        }
        None => v.push((format!("{PREFIX}spine"), tree.root().to_string())),
    }
    v
}
