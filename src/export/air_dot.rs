//! NVIDIA Air's topology, DOT form (`air.dot`), as Air imports it (CumulusNetworks/docs,
//! `content/nvidia-air/Custom-Topology.md`, "DOT Syntax"): a node per device with `function`,
//! `os`, `cpu`, `memory` (MB) and `storage` (GB), and an edge `"a":"port" -- "b":"port"` per
//! cable. The same plan as the JSON form (`air.rs`), which Air recommends; this one is for Air
//! installations and tools that read DOT. Comments say what `--scale-down` sampled.

use super::air::Plan;
use super::dot::Graph;
use crate::output::{OutputFile, OutputGroup};

pub(super) const PATH: &str = "air.dot";

/// The DOT form of `p`.
pub(super) fn file(p: &Plan) -> OutputFile {
    let mut g = Graph::new(&p.title, &p.comments);
    for (name, n) in &p.nodes {
        g.node(
            name,
            &[
                ("function", n.function.to_string()),
                ("os", n.os.clone()),
                ("cpu", n.cpu.to_string()),
                ("memory", n.memory.to_string()),
                ("storage", n.storage.to_string()),
            ],
        );
    }
    for [a, b] in &p.links {
        g.edge((&a.node, &a.interface), (&b.node, &b.interface), &[]);
    }
    OutputFile::new(OutputGroup::Plan, PATH, g.finish())
}
