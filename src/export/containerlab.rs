//! containerlab's topology file (`<name>.clab.yml`), checked against containerlab's JSON Schema
//! (srl-labs/containerlab `schemas/clab.schema.json`, in `tests/fixtures/containerlab/`).
//!
//! Nodes: every device of the lab plan (every Ethernet switch with a config, `--scale-down`
//! sampling as the virtual lab does, and the GPU nodes), of the kind its OS runs as
//! (`kinds.rs`), the image of `images.rs`, its management address from the address plan
//! (`mgmt-ipv4`, in one management network spanning them all). Configs: the rendered files
//! under `configs/<switch>/`, paths relative to the topology file (containerlab resolves them
//! so, "nodes" page): the file the OS's push driver installs as `startup-config` (NVUE
//! `startup.yaml`, SONiC `config_db.json`, EOS `startup-config`); an FRR switch runs as a
//! `linux` node with the FRR image and its `frr.conf` and a `daemons` file bound into
//! `/etc/frr` (`lab-examples/frr01`). The command renders those files beside the topology.
//! Links: one per cable of the lab plan, each end as the kind names the port, with the plan's
//! MTU. A comment header says what was sampled and what is not modelled.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

use serde::Serialize;

use super::images::Images;
use super::kinds::{self, Kind};
use super::{Export, ExportError};
use crate::design::Design;
use crate::labplan::{CableEnd, DAEMONS, LabPlan, Router};
use crate::output::{OutputFile, OutputGroup, path};

const DAEMONS_TEMPLATE: &str = include_str!("../../templates/export/frr-daemons.j2");

#[derive(Serialize)]
struct Topology {
    name: String,
    mgmt: Mgmt,
    topology: Body,
}

#[derive(Serialize)]
struct Mgmt {
    network: String,
    #[serde(rename = "ipv4-subnet", skip_serializing_if = "Option::is_none")]
    ipv4_subnet: Option<String>,
    #[serde(rename = "ipv4-gw", skip_serializing_if = "Option::is_none")]
    ipv4_gw: Option<String>,
}

#[derive(Serialize)]
struct Body {
    nodes: BTreeMap<String, Node>,
    links: Vec<Link>,
}

#[derive(Serialize)]
struct Node {
    kind: &'static str,
    image: String,
    #[serde(rename = "startup-config", skip_serializing_if = "Option::is_none")]
    startup_config: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    binds: Vec<String>,
    #[serde(rename = "mgmt-ipv4", skip_serializing_if = "Option::is_none")]
    mgmt_ipv4: Option<String>,
}

#[derive(Serialize)]
struct Link {
    endpoints: [String; 2],
    mtu: u32,
}

#[derive(Serialize)]
struct Daemon {
    name: &'static str,
    on: &'static str,
}

pub(super) fn files(lab: &LabPlan, i: &Design, images: &Images) -> Result<Export, ExportError> {
    let path = format!("{}.clab.yml", lab.lab);
    path::check(&path).map_err(|e| ExportError::new(&path, e.to_string()))?;
    let fail = |m: String| ExportError::new(&path, m);
    let platforms: BTreeMap<&str, _> = i
        .fabric
        .devices()
        .map(|d| (d.name.as_str(), d.platform))
        .collect();
    let kind_of = |name: &str| kinds::of(platforms.get(name).copied().flatten());
    let mut out = Export::default();
    let mut nodes = BTreeMap::new();
    for r in &lab.routers {
        let kind = kind_of(&r.name);
        let platform = platforms.get(r.name.as_str()).copied().flatten();
        let file = platform.map_or("frr.conf", |p| p.row().push.file);
        let config = format!("configs/{}/{file}", r.name);
        out.configs.push(config.clone());
        let mut node = Node {
            kind: kind.clab,
            image: images.clab(kind.key).to_string(),
            startup_config: None,
            binds: Vec::new(),
            mgmt_ipv4: v4(r.mgmt),
        };
        if kind.frr_binds {
            let daemons = format!("clab/{}/daemons", r.name);
            out.files.push(daemons_file(r, &daemons)?);
            node.binds = vec![
                format!("{config}:/etc/frr/frr.conf:ro"),
                format!("{daemons}:/etc/frr/daemons:ro"),
            ];
        } else {
            node.startup_config = Some(config);
        }
        nodes.insert(r.name.clone(), node);
    }
    let node_kind = kinds::of(None);
    for h in &lab.hosts {
        nodes.insert(
            h.name.clone(),
            Node {
                kind: node_kind.clab,
                image: images.clab(node_kind.key).to_string(),
                startup_config: None,
                binds: Vec::new(),
                mgmt_ipv4: v4(h.mgmt),
            },
        );
    }
    let endpoint = |e: &CableEnd| -> Result<String, ExportError> {
        let k: &Kind = kind_of(&e.device);
        let name = kinds::interface(k.clab_ports, e).map_err(&fail)?;
        Ok(format!("{}:{name}", e.device))
    };
    let links = lab
        .cables
        .iter()
        .map(|c| {
            Ok(Link {
                endpoints: [endpoint(&c.a)?, endpoint(&c.b)?],
                mtu: c.a.mtu.min(c.b.mtu),
            })
        })
        .collect::<Result<Vec<_>, ExportError>>()?;
    let addresses: Vec<Ipv4Addr> = nodes
        .values()
        .filter_map(|n| n.mgmt_ipv4.as_deref().and_then(|a| a.parse().ok()))
        .collect();
    let (subnet, gw) = mgmt_subnet(&addresses);
    let t = Topology {
        name: lab.lab.clone(),
        mgmt: Mgmt {
            network: format!("{}-mgmt", lab.lab),
            ipv4_subnet: subnet,
            ipv4_gw: gw,
        },
        topology: Body { nodes, links },
    };
    let yaml = crate::output::yaml::to_string(&t).map_err(|e| fail(e.to_string()))?;
    let mut text = String::new();
    let mut header = vec![format!(
        "railyard export of `{}` for containerlab: {}",
        lab.lab,
        lab.size()
    )];
    header.push(
        "startup configs: configs/<switch>/ beside this file, rendered by the same command".into(),
    );
    header.extend(super::scale_note(lab));
    for line in header {
        text.push_str("# ");
        text.push_str(&super::comment(&line));
        text.push('\n');
    }
    text.push_str(&yaml);
    out.files
        .push(OutputFile::new(OutputGroup::Plan, path, text));
    Ok(out)
}

fn v4(net: Option<ipnet::IpNet>) -> Option<String> {
    match net?.addr() {
        IpAddr::V4(a) => Some(a.to_string()),
        IpAddr::V6(_) => None,
    }
}

/// The smallest IPv4 subnet holding every management address, and a gateway for the bridge
/// that is none of them (the subnet's last host address not in use): docker gives the bridge
/// the first address otherwise, which the plan may have handed to a device.
fn mgmt_subnet(addresses: &[Ipv4Addr]) -> (Option<String>, Option<String>) {
    let (Some(lo), Some(hi)) = (
        addresses.iter().map(|a| u32::from(*a)).min(),
        addresses.iter().map(|a| u32::from(*a)).max(),
    ) else {
        return (None, None);
    };
    // At least a /30, so the subnet has room for a gateway besides one device.
    let prefix = (lo ^ hi).leading_zeros().min(30);
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    let net = lo & mask;
    let broadcast = net | !mask;
    let used: std::collections::BTreeSet<u32> = addresses.iter().map(|a| u32::from(*a)).collect();
    let gw = (net + 1..broadcast).rev().find(|a| !used.contains(a));
    let subnet = format!("{}/{prefix}", Ipv4Addr::from(net));
    (Some(subnet), gw.map(|g| Ipv4Addr::from(g).to_string()))
}

/// `/etc/frr/daemons` of an FRR switch: each daemon the lab knows, on when its intent needs it.
fn daemons_file(r: &Router, path: &str) -> Result<OutputFile, ExportError> {
    let daemons: Vec<Daemon> = DAEMONS
        .iter()
        .map(|d| Daemon {
            name: d,
            on: if r.daemons.iter().any(|x| x == d) {
                "yes"
            } else {
                "no"
            },
        })
        .collect();
    // The switch-config environment: strict undefined, the line formatter, a fuel limit.
    let env = crate::render::Templates::default().environment();
    let text = env
        .render_str(
            DAEMONS_TEMPLATE,
            minijinja::context! { device => &r.name, daemons => daemons },
        )
        .map_err(|e| ExportError::new(path, e.to_string()))?;
    Ok(OutputFile::new(OutputGroup::Plan, path, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_management_subnet_spans_every_address_and_the_gateway_is_free() {
        let a: Vec<Ipv4Addr> = ["10.0.0.1", "10.0.1.7", "10.0.0.254"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let (s, gw) = mgmt_subnet(&a);
        assert_eq!(s.as_deref(), Some("10.0.0.0/23"));
        assert_eq!(gw.as_deref(), Some("10.0.1.254"));
        let one = ["192.168.0.5".parse().unwrap()];
        assert_eq!(mgmt_subnet(&one).0.as_deref(), Some("192.168.0.4/30"));
        assert_eq!(mgmt_subnet(&[]), (None, None));
    }
}
