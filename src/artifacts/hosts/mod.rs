//! Host-side artifacts of the GPU nodes, from the host intent (`intent/host.rs`):
//! - `hosts/<model>/nccl-topo.xml` (and `hosts/nodes/<node>/nccl-topo.xml` where a node differs
//!   from the rest of its model): NCCL topology file;
//! - `hosts/nccl.env`, `hosts/nccl.json`: NCCL environment of the cluster;
//! - `hosts/tenants/<tenant>/`: per InfiniBand tenant its NCCL environment (PKey index) and
//!   scheduler placement (Slurm partition, Kueue flavor and node labels);
//! - `hosts/nodes/<node>/netplan.yaml`: compute NIC addresses, MTU and rail routes (RoCE only);
//! - `hosts/imex/<domain>/nodes_config.cfg` (rack-scale clusters): the IMEX node list of each
//!   NVLink domain (the trays' in-band addresses), installed as `/etc/nvidia-imex/nodes_config.cfg`;
//! - `hosts/<model>/roce.sh` (or per node where values differ): NIC RoCE QoS and congestion
//!   control.
//!
//! A file is written for the model when all its nodes would get the same text, so a cluster of
//! identical nodes ships one file per model; only the odd nodes get a file of their own.

mod bootstrap;
mod imex;
mod mnnvl;
mod nccl_env;
mod nccl_topo;
mod netplan;
mod roce_script;
mod tenants;

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior};

use crate::design::Design;
use crate::model::Transport;
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};

/// The environment the host templates render in: strict undefined, as for switch configs.
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    env.set_formatter(crate::output::line::formatter);
    env
}

/// Per-node texts → (the model's text, nodes whose text differs from it). The model's text is the
/// most common one (ties: the one of the first node by name), so one odd node does not move the
/// whole model to per-node files.
pub(super) fn group(texts: &BTreeMap<String, String>) -> Option<(&str, Vec<(&str, &str)>)> {
    let mut counts: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (node, t) in texts {
        counts.entry(t.as_str()).or_insert((0, node.as_str())).0 += 1;
    }
    let (common, _) = counts
        .iter()
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then_with(|| b.1.1.cmp(a.1.1)))?;
    let odd = texts
        .iter()
        .filter(|(_, t)| t.as_str() != *common)
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    Some((common, odd))
}

/// Model file plus per-node files for the odd nodes, as output files.
fn grouped(model: &str, file: &str, texts: &BTreeMap<String, String>) -> Vec<OutputFile> {
    let Some((common, odd)) = group(texts) else {
        return Vec::new();
    };
    let mut v = vec![OutputFile::new(
        OutputGroup::Hosts,
        format!("hosts/{model}/{file}"),
        common,
    )];
    v.extend(
        odd.into_iter().map(|(n, t)| {
            OutputFile::new(OutputGroup::Hosts, format!("hosts/nodes/{n}/{file}"), t)
        }),
    );
    v
}

/// Every host-side file of the cluster; none when it has no GPU nodes.
pub fn files(inputs: &Design) -> Result<Vec<OutputFile>, FileError> {
    let h = &inputs.intents.hosts;
    let (Some(transport), Some(model)) =
        (h.transport, inputs.fabric.catalog.nodes.get(&h.node_model))
    else {
        return Ok(Vec::new());
    };
    if h.nodes.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut topo_written = false;
    if h.pcie_ok {
        // Every node or none: a node whose file cannot be written is the model file's error.
        let path = format!("hosts/{}/nccl-topo.xml", h.node_model);
        let mut texts = BTreeMap::new();
        for (n, node) in &h.nodes {
            let text = nccl_topo::render(
                &h.node_model,
                model,
                transport,
                h.rail_optimized && h.nccl_rails,
                h.nccl_rails,
                node,
            )
            .map_err(|e| format!("node `{}`: {e}", n.escape_default()))
            .in_file(&path)?;
            texts.insert(n.clone(), text);
        }
        out.extend(grouped(&h.node_model, "nccl-topo.xml", &texts));
        topo_written = !texts.is_empty();
    }
    let partitions = inputs.intents.partitions.as_ref();
    let inband = inband_ports(inputs, model);
    let rack_notes = mnnvl::notes(inputs);
    out.extend(nccl_env::files(
        &inputs.fabric.name,
        h,
        model,
        &inband,
        topo_written,
        partitions.is_some(),
        &rack_notes,
    )?);
    if let Some(p) = partitions {
        let mut env = nccl_env::build(&inputs.fabric.name, h, model, &inband, topo_written, true);
        env.notes.extend(rack_notes.iter().cloned());
        out.extend(tenants::files(inputs, p, &env)?);
    }
    out.extend(imex::files(inputs)?);
    if transport == Transport::Ethernet {
        out.extend(netplan::files(h, model)?);
        let texts = roce_script::render_all(h, model)?;
        out.extend(grouped(&h.node_model, "roce.sh", &texts));
    }
    Ok(out)
}

/// The variables of `hosts/nccl.json` as [`files`] renders them; empty without GPU nodes.
pub fn nccl_env(design: &Design) -> Result<BTreeMap<String, String>, FileError> {
    const JSON: &str = "hosts/nccl.json";
    let Some(file) = files(design)?.into_iter().find(|f| f.path == JSON) else {
        return Ok(BTreeMap::new());
    };
    #[derive(serde::Deserialize)]
    struct Env {
        env: BTreeMap<String, String>,
    }
    serde_json::from_slice::<Env>(&file.bytes)
        .map(|e| e.env)
        .map_err(|e| FileError::new(JSON, e))
}

/// The node ports that carry the in-band network: its own ports, or the storage ports when the
/// two networks are converged; none without an in-band network.
fn inband_ports(inputs: &Design, model: &crate::catalog::NodeModel) -> Vec<String> {
    let s = &inputs.fabric.sizing;
    let ports = if s.inband_converged {
        &model.storage
    } else if s.inband.is_some() {
        &model.inband
    } else {
        return Vec::new();
    };
    ports
        .iter()
        .flat_map(|p| p.ports.iter().map(|n| n.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_text_goes_to_the_model_and_odd_nodes_get_their_own() {
        let texts: BTreeMap<String, String> = [("a", "x"), ("b", "y"), ("c", "x")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let (common, odd) = group(&texts).expect("non-empty");
        assert_eq!(common, "x");
        assert_eq!(odd, vec![("b", "y")]);
    }
}
