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
    let plan = Plan::new(fabric, hosts);
    let mut seen = Seen::default();
    for c in captured {
        let p = match plan.port_of(c) {
            Found::Port(p) => p,
            Found::Skipped => {
                out.skipped += 1;
                continue;
            }
            Found::Rejected(d) => {
                out.diagnostics.push((c.file, d));
                continue;
            }
        };
        if let Some(d) = plan.miscabled(c, p) {
            out.diagnostics.push((c.file, d));
            continue;
        }
        match seen.admit(c, p) {
            Admitted::New => {
                out.guids.0.insert((c.host.clone(), p.port.clone()), c.guid);
            }
            Admitted::Conflict(d) => out.diagnostics.push((c.file, d)),
            Admitted::Again => {}
        }
    }
    out
}

/// What the plan says about the devices a capture names.
struct Plan<'a> {
    hosts: &'a HostIntents,
    roles: BTreeMap<&'a str, Role>,
    /// Per GPU node, the RDMA names of its storage and in-band HCAs.
    other_rdma: BTreeMap<&'a str, Vec<&'a str>>,
}

/// Where a captured port lands in the plan.
enum Found<'a> {
    /// A cabled compute port of a GPU node.
    Port(&'a HostPort),
    /// A port no compute partition names (an appliance's, another network's).
    Skipped,
    Rejected(Diagnostic),
}

impl<'a> Plan<'a> {
    fn new(fabric: &'a Fabric, hosts: &'a HostIntents) -> Self {
        let roles = fabric
            .devices()
            .map(|d| (d.name.as_str(), d.role))
            .collect();
        let other_rdma = fabric
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
        Plan {
            hosts,
            roles,
            other_rdma,
        }
    }

    fn port_of(&self, c: &CapturedPort) -> Found<'a> {
        let Some(role) = self.roles.get(c.host.as_str()) else {
            return Found::Rejected(not_in_plan(
                c,
                format!(
                    "GUID {} belongs to `{}`, which is not in the plan",
                    c.guid, c.host
                ),
                "unknown host",
                "capture only this cluster's fabric, or fix the host's node description",
            ));
        };
        if *role != Role::Node {
            return Found::Skipped;
        }
        let Some(node) = self.hosts.nodes.get(&c.host) else {
            return Found::Skipped;
        };
        let found: Option<&HostPort> = match &c.port {
            PortRef::Named(name) => node.ports.iter().find(|p| &p.port == name),
            PortRef::Hca { rdma, port } => node
                .ports
                .iter()
                .find(|p| p.rdma.as_deref() == Some(rdma.as_str()) && *port == 1),
        };
        match found {
            Some(p) => Found::Port(p),
            None => self.uncabled(c, &node.ports),
        }
    }

    /// A port of a GPU node that is no cabled compute port: another network's HCA, or a mistake.
    fn uncabled(&self, c: &CapturedPort, ports: &[HostPort]) -> Found<'a> {
        let what = match &c.port {
            PortRef::Named(n) => format!("port `{n}`"),
            PortRef::Hca { rdma, port } => format!("`{rdma}` port {port}"),
        };
        if let PortRef::Hca { rdma, .. } = &c.port
            && self
                .other_rdma
                .get(c.host.as_str())
                .is_some_and(|v| v.contains(&rdma.as_str()))
        {
            return Found::Skipped;
        }
        let cabled: Vec<String> = ports
            .iter()
            .map(|p| match &p.rdma {
                Some(r) => format!("{} ({r})", p.port),
                None => p.port.clone(),
            })
            .collect();
        Found::Rejected(not_in_plan(
            c,
            format!(
                "GUID {} is for {what} of `{}`, which is no cabled compute port in the plan (cabled: {})",
                c.guid,
                c.host,
                cabled.join(", ")
            ),
            "not in the plan",
            "check the node model's RDMA names (`ibdev2netdev`) or the host's cabling",
        ))
    }

    /// The capture names the peer switch (`ibnetdiscover`) and it is not the planned leaf.
    fn miscabled(&self, c: &CapturedPort, p: &HostPort) -> Option<Diagnostic> {
        let peer = c.peer.as_ref()?;
        let named: Vec<&str> = names_in(peer)
            .filter(|n| self.roles.contains_key(n))
            .collect();
        if named.is_empty() || named.contains(&p.leaf.as_str()) {
            return None;
        }
        Some(not_in_plan(
            c,
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
        ))
    }
}

/// A captured port the plan does not have.
fn not_in_plan(c: &CapturedPort, msg: String, label: &str, help: &str) -> Diagnostic {
    Diagnostic::error(codes::CAPTURE_NOT_IN_PLAN, msg)
        .at(Some(c.span), label)
        .help(help.to_string())
}

/// What became of a captured port the plan has.
enum Admitted {
    New,
    /// The port already has this GUID (two captures of one fabric).
    Again,
    Conflict(Diagnostic),
}

/// The ports and GUIDs accepted so far.
#[derive(Default)]
struct Seen<'a> {
    by_guid: BTreeMap<Guid, (&'a str, &'a str, &'a CapturedPort)>,
    by_port: BTreeMap<(&'a str, &'a str), &'a CapturedPort>,
}

impl<'a> Seen<'a> {
    /// Accepts `c` for `p` unless the port already has a GUID or the GUID is already another
    /// port's.
    fn admit(&mut self, c: &'a CapturedPort, p: &'a HostPort) -> Admitted {
        if let Some(prev) = self.by_port.get(&(c.host.as_str(), p.port.as_str())) {
            if prev.guid == c.guid {
                return Admitted::Again;
            }
            return Admitted::Conflict(
                Diagnostic::error(
                    codes::CAPTURE_CONFLICT,
                    format!(
                        "`{}` {} has GUID {} here and {} elsewhere",
                        c.host, p.port, c.guid, prev.guid
                    ),
                )
                .at(Some(c.span), "second GUID")
                .help("import one capture per fabric state; a replaced HCA needs a fresh capture"),
            );
        }
        if let Some((h, port, prev)) = self.by_guid.get(&c.guid) {
            return Admitted::Conflict(
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
            );
        }
        self.by_port.insert((c.host.as_str(), p.port.as_str()), c);
        self.by_guid
            .insert(c.guid, (c.host.as_str(), p.port.as_str(), c));
        Admitted::New
    }
}
