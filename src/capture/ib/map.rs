//! Captured GUIDs → the plan's node ports. A GUID is accepted for a GPU node's compute port that
//! the cabling plan has; anything else is reported where the capture names it: a host or HCA the
//! plan does not have, a port cabled to another switch than the plan says (`ibnetdiscover` names
//! the peer switch), one port with two GUIDs, one GUID on two ports. Ports of appliances (UFM)
//! and of a node's other networks are skipped: the compute partitions do not name them.

use std::collections::BTreeMap;

use super::{CapturedPort, PortRef, Row};
use crate::diag::{Diagnostic, codes};
use crate::intent::host::{HostIntents, HostPort};
use crate::model::{Guid, PortGuids, Role};
use crate::topology::Fabric;

/// The result of matching captures against the plan.
#[derive(Debug, Default)]
pub struct Imported {
    pub guids: PortGuids,
    /// Captured ports that belong to no compute partition (appliances, storage/in-band HCAs).
    pub skipped: usize,
    /// Problems, each with the index of the capture file it points into.
    pub diagnostics: Vec<(usize, Diagnostic)>,
}

impl Imported {
    /// The port-GUID CSV rows, in node and port order.
    pub fn rows<'a>(&self, hosts: &'a HostIntents) -> Vec<Row<'a>> {
        let mut rows = Vec::new();
        for n in hosts.nodes.values() {
            for p in &n.ports {
                if let Some(g) = self.guids.get(&n.name, &p.port) {
                    rows.push(Row {
                        node: &n.name,
                        port: &p.port,
                        rdma: p.rdma.as_deref().unwrap_or(""),
                        guid: g.to_string(),
                        leaf: &p.leaf,
                        leaf_port: &p.leaf_port,
                        cable_id: &p.cable,
                    });
                }
            }
        }
        rows
    }
}

/// Device names in a node description such as `MF0;leaf-su01-01:MQM9700/U1`.
fn names_in(desc: &str) -> impl Iterator<Item = &str> {
    desc.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .filter(|s| !s.is_empty())
}

pub fn map(captured: &[CapturedPort], fabric: &Fabric, hosts: &HostIntents) -> Imported {
    let mut out = Imported::default();
    let roles: BTreeMap<&str, Role> = fabric
        .devices()
        .map(|d| (d.name.as_str(), d.role))
        .collect();
    let other_rdma: BTreeMap<&str, Vec<&str>> = fabric
        .devices()
        .filter(|d| d.role == Role::Node)
        .filter_map(|d| {
            let m = fabric.node_model(d)?;
            let names = m
                .storage
                .iter()
                .chain(&m.inband)
                .filter_map(|p| p.rdma.as_deref())
                .collect();
            Some((d.name.as_str(), names))
        })
        .collect();
    let mut by_guid: BTreeMap<Guid, (&str, &str, &CapturedPort)> = BTreeMap::new();
    let mut by_port: BTreeMap<(&str, &str), &CapturedPort> = BTreeMap::new();
    for c in captured {
        let mut fail = |msg: String, label: &str, help: &str| {
            out.diagnostics.push((
                c.file,
                Diagnostic::error(codes::CAPTURE_NOT_IN_PLAN, msg)
                    .at(Some(c.span), label)
                    .help(help.to_string()),
            ));
        };
        let Some(role) = roles.get(c.host.as_str()) else {
            fail(
                format!(
                    "GUID {} belongs to `{}`, which is not in the plan",
                    c.guid, c.host
                ),
                "unknown host",
                "capture only this cluster's fabric, or fix the host's node description",
            );
            continue;
        };
        if *role != Role::Node {
            out.skipped += 1;
            continue;
        }
        let Some(node) = hosts.nodes.get(&c.host) else {
            out.skipped += 1;
            continue;
        };
        let found: Option<&HostPort> = match &c.port {
            PortRef::Named(name) => node.ports.iter().find(|p| &p.port == name),
            PortRef::Hca { rdma, port } => node
                .ports
                .iter()
                .find(|p| p.rdma.as_deref() == Some(rdma.as_str()) && *port == 1),
        };
        let Some(p) = found else {
            let what = match &c.port {
                PortRef::Named(n) => format!("port `{n}`"),
                PortRef::Hca { rdma, port } => format!("`{rdma}` port {port}"),
            };
            if let PortRef::Hca { rdma, .. } = &c.port
                && other_rdma
                    .get(c.host.as_str())
                    .is_some_and(|v| v.contains(&rdma.as_str()))
            {
                out.skipped += 1;
                continue;
            }
            let cabled: Vec<String> = node
                .ports
                .iter()
                .map(|p| match &p.rdma {
                    Some(r) => format!("{} ({r})", p.port),
                    None => p.port.clone(),
                })
                .collect();
            fail(
                format!(
                    "GUID {} is for {what} of `{}`, which is no cabled compute port in the plan (cabled: {})",
                    c.guid,
                    c.host,
                    cabled.join(", ")
                ),
                "not in the plan",
                "check the node model's RDMA names (`ibdev2netdev`) or the host's cabling",
            );
            continue;
        };
        if let Some(peer) = &c.peer {
            let named: Vec<&str> = names_in(peer).filter(|n| roles.contains_key(n)).collect();
            if !named.is_empty() && !named.contains(&p.leaf.as_str()) {
                fail(
                    format!(
                        "`{}` {} is cabled to `{}` in the capture, but the plan cables it to `{}` {} (cable {})",
                        c.host,
                        p.port,
                        named.join(" "),
                        p.leaf,
                        p.leaf_port,
                        p.cable
                    ),
                    "miscabled",
                    "fix the cabling (`railyard cabling verify`) or the spec, then capture again",
                );
                continue;
            }
        }
        if let Some(prev) = by_port.get(&(c.host.as_str(), p.port.as_str())) {
            if prev.guid != c.guid {
                out.diagnostics.push((
                    c.file,
                    Diagnostic::error(
                        codes::CAPTURE_CONFLICT,
                        format!(
                            "`{}` {} has GUID {} here and {} elsewhere",
                            c.host, p.port, c.guid, prev.guid
                        ),
                    )
                    .at(Some(c.span), "second GUID")
                    .help(
                        "import one capture per fabric state; a replaced HCA needs a fresh capture",
                    ),
                ));
            }
            continue;
        }
        if let Some((h, port, prev)) = by_guid.get(&c.guid) {
            out.diagnostics.push((
                c.file,
                Diagnostic::error(
                    codes::CAPTURE_CONFLICT,
                    format!(
                        "GUID {} is given to `{}` {} and to `{h}` {port}",
                        c.guid, c.host, p.port
                    ),
                )
                .at(Some(c.span), "duplicate GUID")
                .help(format!(
                    "port GUIDs are unique; check the capture of `{}`",
                    prev.host
                )),
            ));
            continue;
        }
        by_port.insert((c.host.as_str(), p.port.as_str()), c);
        by_guid.insert(c.guid, (c.host.as_str(), p.port.as_str(), c));
        out.guids.0.insert((c.host.clone(), p.port.clone()), c.guid);
    }
    out
}
