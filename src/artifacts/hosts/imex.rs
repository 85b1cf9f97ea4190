//! `hosts/imex/<domain>/nodes_config.cfg`: the IMEX node list of each NVLink domain of a
//! rack-scale cluster, in the format of NVIDIA's "IMEX Service for NVLink Networks User's Guide"
//! (https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide, "Deployment Models",
//! "NVLink Domain Wide": each node's IMEX service "is configured with the list of IP addresses
//! of all compute nodes in the domain"; config option `IMEX_NODE_CONFIG_FILE`, default
//! `/etc/nvidia-imex/nodes_config.cfg`): one IP address per line, the same file on every tray
//! of the domain. Nothing else is in the file (the guide shows no comment syntax), so what it
//! is for is said in `hosts/nccl.env` and ARCHITECTURE.md.
//!
//! A tray's address is its in-band address from the addressing plan: the node end of its first
//! in-band cable (lowest port of the model; the storage network's when in-band is converged
//! with it). IMEX binds to whichever listed address the tray holds (`BIND_INTERFACE_IP` empty).

use std::collections::BTreeMap;

use crate::design::Design;
use crate::model::{Network, Role};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::PortId;

const TEMPLATE: &str = include_str!("../../../templates/hosts/imex_nodes_config.cfg.j2");

/// Where the guide's default config puts the file on each tray.
pub(super) const INSTALL_PATH: &str = "/etc/nvidia-imex/nodes_config.cfg";

/// Why no IMEX list is written for a rack-scale cluster, or `None` when they are.
pub(super) fn missing(design: &Design) -> Option<String> {
    let tree = &design.scheduler;
    let addrs = inband_addresses(design);
    let lacking: Vec<&str> = tree
        .nvlink
        .iter()
        .flat_map(|d| d.nodes.iter())
        .filter(|n| !addrs.contains_key(n.as_str()))
        .map(String::as_str)
        .collect();
    lacking.first().map(|first| {
        format!(
            "no IMEX node list (hosts/imex/): {} tray(s), e.g. `{}`, have no in-band address in \
             the plan; give the spec an `inband` network (or converge it with storage)",
            lacking.len(),
            first.escape_default()
        )
    })
}

/// One file per NVLink domain; none unless every tray of every domain has an in-band address.
pub(super) fn files(design: &Design) -> Result<Vec<OutputFile>, FileError> {
    let tree = &design.scheduler;
    if !tree.rack_scale() || missing(design).is_some() {
        return Ok(Vec::new());
    }
    let addrs = inband_addresses(design);
    let mut out = Vec::with_capacity(tree.nvlink.len());
    for d in &tree.nvlink {
        let path = format!("hosts/imex/{}/nodes_config.cfg", d.name);
        let addresses: Vec<String> = d
            .nodes
            .iter()
            .filter_map(|n| addrs.get(n.as_str()))
            .map(|a| a.to_string())
            .collect();
        let text = super::environment()
            .render_str(TEMPLATE, minijinja::context! { addresses => addresses })
            .in_file(&path)?;
        out.push(OutputFile::new(OutputGroup::Hosts, path, text));
    }
    Ok(out)
}

/// Compute node → the address (without prefix length) of its first in-band port.
fn inband_addresses(design: &Design) -> BTreeMap<&str, std::net::IpAddr> {
    let f = &design.fabric;
    let s = &f.sizing;
    let network = if s.inband_converged {
        Network::Storage
    } else if s.inband.is_some() {
        Network::Inband
    } else {
        return BTreeMap::new();
    };
    let mut first: BTreeMap<&str, (PortId, std::net::IpAddr)> = BTreeMap::new();
    for (i, l) in f.links_with_ids() {
        let node = f.device_of(&l.a);
        if l.network != network || node.role != Role::Node {
            continue;
        }
        let la = &design.allocation.links[i];
        let Some(addr) = la.a.or(la.a6) else {
            continue;
        };
        let e = first
            .entry(node.name.as_str())
            .or_insert((l.a.port, addr.addr()));
        if l.a.port < e.0 {
            *e = (l.a.port, addr.addr());
        }
    }
    first.into_iter().map(|(n, (_, a))| (n, a)).collect()
}
