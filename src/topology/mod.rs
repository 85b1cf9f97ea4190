//! Stage 2: [`ClusterSpec`] → [`Fabric`], the physical graph of devices, ports and cables.
//!
//! Input: the spec and the catalog. Output: every device (nodes, switches of all four networks) and
//! every cable, with ports chosen by identity. Invariants:
//! - Names, ports and cable ids derive from identity (plane, SU, slot, rail, leaf, index), never
//!   from a running counter, so growing the cluster leaves existing assignments unchanged.
//! - Graph indices never leave this module; downstream stages key on names.

mod access;
mod builder;
mod checks;
mod clos;
mod compute;
mod ids;
mod media;
mod naming;
mod oob;
mod platforms;
mod rack;
mod scheduler;
mod sizing;

use petgraph::graph::{NodeIndex, UnGraph};
use serde::Serialize;

use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::Diagnostics;
use crate::model::{Network, Platform, PortNaming, Role, Speed, Tier, Transport};
use crate::spec::ClusterSpec;

pub use ids::{DeviceId, LinkId, PerDevice, PerLink};
pub use media::row as rack_row;
pub use naming::is_safe_name;
pub use scheduler::{Block, BlockGroup, LeafLevel, SchedulerTree};
pub use sizing::{AccessPlan, CageRun, ComputePlan, DomainPlan, Sizing, fmt_ratio};

/// A port on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PortId {
    /// A switch cage run unsplit (`cage` is the front-panel number).
    Cage { cage: u16 },
    /// One logical port of a split cage (`lane` is 0-based).
    Lane { cage: u16, lane: u8 },
    /// A node or appliance data port: index into the model's flat port list.
    Nic(u16),
    /// The management or BMC port.
    Mgmt,
}

impl PortId {
    pub fn cage(self) -> Option<u16> {
        match self {
            PortId::Cage { cage } | PortId::Lane { cage, .. } => Some(cage),
            _ => None,
        }
    }
}

/// One cable end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    device: NodeIndex<u32>,
    pub port: PortId,
}

/// A device and its identity. Identity fields are 1-based, as printed.
#[derive(Clone, Debug, Serialize)]
pub struct Device {
    pub name: String,
    pub role: Role,
    pub network: Network,
    pub model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plane: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub su: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
    /// Position within its role (and SU or group); the slot for nodes.
    pub index: u32,
    /// Rails served (leaves of a rail-optimized fabric).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rails: Vec<u32>,
    /// NVLink domain (cluster-wide, 1-based) of a rack-scale node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rack: Option<String>,
    /// Network OS (switches on Ethernet networks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Lanes each cage is split into (switches only; 0 = unused, shown unsplit).
    #[serde(skip)]
    pub cage_lanes: Vec<u8>,
}

/// A cable. End `a` is the lower tier (node side), `b` the upper.
#[derive(Clone, Debug)]
pub struct Link {
    pub cable_id: String,
    pub network: Network,
    pub tier: Tier,
    pub plane: Option<u32>,
    /// Rail of a compute node-to-leaf cable (1-based).
    pub rail: Option<u32>,
    pub a: End,
    pub b: End,
    pub speed: Speed,
    /// Length class (metres) the configs use where a cable's length matters.
    pub length_m: f64,
    /// Routed run in metres; the physical stage orders parts from it.
    pub route_m: f64,
}

/// The expanded cluster.
#[derive(Clone, Debug)]
pub struct Fabric {
    pub name: String,
    pub site: Option<String>,
    pub catalog: Catalog,
    pub sizing: Sizing,
    graph: UnGraph<Device, Link, u32>,
    node_ports: std::collections::BTreeMap<String, Vec<String>>,
}

/// A cable end resolved to names, for output.
#[derive(Clone, Debug)]
pub struct NamedEnd<'a> {
    pub device: &'a Device,
    pub port: PortId,
    pub port_name: String,
}

impl Fabric {
    /// The name of NVLink domain `n` (1-based): `rack01`, zero-padded to the cluster's count so
    /// names sort as numbers. A rack-scale system's rack is one NVLink domain.
    pub fn domain_name(&self, n: u32) -> String {
        let total = self
            .sizing
            .domains
            .as_ref()
            .map_or(1, |d| d.per_su * self.sizing.sus);
        let width = total.max(1).to_string().len().max(2);
        format!("rack{n:0width$}")
    }

    pub fn devices(&self) -> impl Iterator<Item = &Device> {
        self.graph.node_weights()
    }

    pub fn links(&self) -> impl Iterator<Item = &Link> {
        self.graph.edge_weights()
    }

    pub fn device_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn link_count(&self) -> usize {
        self.graph.edge_count()
    }

    pub fn device_of(&self, end: &End) -> &Device {
        &self.graph[end.device]
    }

    /// Every device with its id, in device order.
    pub fn devices_with_ids(&self) -> impl Iterator<Item = (DeviceId, &Device)> {
        self.graph
            .node_weights()
            .enumerate()
            .map(|(i, d)| (DeviceId::new(i), d))
    }

    /// Every cable with its id, in cable order.
    pub fn links_with_ids(&self) -> impl Iterator<Item = (LinkId, &Link)> {
        self.graph
            .edge_weights()
            .enumerate()
            .map(|(i, l)| (LinkId::new(i), l))
    }

    pub fn device(&self, id: DeviceId) -> &Device {
        &self.graph[NodeIndex::new(id.index())]
    }

    pub fn link(&self, id: LinkId) -> &Link {
        &self.graph[petgraph::graph::EdgeIndex::new(id.index())]
    }

    /// The id of an end's device.
    pub fn device_id(&self, end: &End) -> DeviceId {
        DeviceId::new(end.device.index())
    }

    pub fn switch_model(&self, d: &Device) -> Option<&SwitchModel> {
        self.catalog.switches.get(d.model.as_str())
    }

    pub fn node_model(&self, d: &Device) -> Option<&NodeModel> {
        self.catalog.nodes.get(d.model.as_str())
    }

    pub fn named(&self, end: &End) -> NamedEnd<'_> {
        let device = self.device_of(end);
        NamedEnd {
            device,
            port: end.port,
            port_name: self.port_name(device, end.port),
        }
    }

    /// The name the device's OS gives a port.
    pub fn port_name(&self, d: &Device, p: PortId) -> String {
        match p {
            PortId::Mgmt => match d.role {
                Role::Node => self
                    .node_model(d)
                    .and_then(|m| m.bmc.ports.first().map(|p| p.to_string()))
                    .unwrap_or_else(|| "bmc".into()),
                Role::Appliance => "bmc".into(),
                _ => {
                    let own = self
                        .switch_model(d)
                        .map_or_else(|| "mgmt".to_string(), |m| m.mgmt_port.to_string());
                    d.platform.map_or(own.clone(), |p| p.mgmt_port(&own))
                }
            },
            PortId::Nic(i) => match d.role {
                Role::Appliance => format!("ib{i}"),
                _ => self
                    .node_ports
                    .get(&d.model)
                    .and_then(|v| v.get(usize::from(i)).cloned())
                    .unwrap_or_else(|| format!("port{i}")),
            },
            PortId::Cage { cage } | PortId::Lane { cage, .. } => {
                let Some(m) = self.switch_model(d) else {
                    return format!("{cage}");
                };
                let Some(g) = m
                    .port_groups
                    .iter()
                    .find(|g| u32::from(cage) >= g.first && u32::from(cage) < g.first + g.count)
                else {
                    return format!("{cage}");
                };
                if let Some(name) = d.platform.and_then(|pl| {
                    let lanes = d
                        .cage_lanes
                        .get(usize::from(cage) - 1)
                        .copied()
                        .unwrap_or(1);
                    let lane = match p {
                        PortId::Lane { lane, .. } => u32::from(lane),
                        _ => 0,
                    };
                    let (cage, lanes) = (u32::from(cage), u32::from(lanes.max(1)));
                    match pl.row().ports {
                        // The vendor's platform data names SONiC ports; a model without it is
                        // reported by the intent stage (RY0110) and renders nothing.
                        PortNaming::VendorData => m
                            .sonic_platform()
                            .and_then(|(sp, _)| sp.port_name(cage, lane, lanes)),
                        rule => rule.name(g.form, cage, lane, lanes),
                    }
                }) {
                    return name;
                }
                match p {
                    PortId::Lane { lane, .. } => {
                        expand_port_pattern(&g.split_name, cage.into(), lane.into())
                    }
                    _ => expand_port_pattern(&g.name, cage.into(), 0),
                }
            }
        }
    }

    /// TIA-606-style label: near end then far end, each `[rack.]device:port`.
    pub fn label(&self, l: &Link) -> String {
        let (a, b) = (self.device_of(&l.a), self.device_of(&l.b));
        label_of(
            a,
            &self.port_name(a, l.a.port),
            b,
            &self.port_name(b, l.b.port),
        )
    }

    /// The length in bytes of [`Fabric::label`], without building it (checked on every cable).
    pub fn label_len(&self, l: &Link) -> usize {
        let end = |d: &Device, port: PortId| {
            d.rack.as_ref().map_or(0, |r| r.len() + 1)
                + d.name.len()
                + 1
                + self.port_name(d, port).len()
        };
        end(self.device_of(&l.a), l.a.port) + 1 + end(self.device_of(&l.b), l.b.port)
    }

    /// The transport of the network a switch role belongs to; `None` when that network is absent.
    pub fn transport_of(&self, role: Role) -> Option<Transport> {
        let s = &self.sizing;
        match role {
            Role::Leaf | Role::Spine | Role::Core => Some(s.compute.transport),
            Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => {
                s.storage.as_ref().map(|a| a.transport)
            }
            Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => {
                s.inband.as_ref().map(|a| a.transport)
            }
            Role::OobLeaf | Role::OobCore | Role::OobGateway => Some(Transport::Ethernet),
            Role::Node | Role::Appliance | Role::NvlinkSwitchTray | Role::PowerShelf => None,
        }
    }

    /// Neighbours of a device by name (for checks and tests).
    pub fn neighbours(&self, name: &str) -> Vec<&Device> {
        let Some(ix) = self
            .graph
            .node_indices()
            .find(|i| self.graph[*i].name == name)
        else {
            return Vec::new();
        };
        let mut v: Vec<&Device> = self.graph.neighbors(ix).map(|n| &self.graph[n]).collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v.dedup_by(|a, b| a.name == b.name);
        v
    }
}

/// The label of a cable between two named ports.
pub fn label_of(a: &Device, a_port: &str, b: &Device, b_port: &str) -> String {
    let end = |d: &Device, p: &str| match &d.rack {
        Some(r) => format!("{r}.{}:{p}", d.name),
        None => format!("{}:{p}", d.name),
    };
    format!("{}/{}", end(a, a_port), end(b, b_port))
}

/// A catalog port pattern with `{cage}`, `{lane}` (0-based) and `{lane1}` (1-based) filled in,
/// in one pass: every cable end of a fabric is named this way, several times per build.
fn expand_port_pattern(pattern: &str, cage: u32, lane: u32) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let (value, used) = if after.starts_with("{cage}") {
            (cage, "{cage}".len())
        } else if after.starts_with("{lane1}") {
            (lane + 1, "{lane1}".len())
        } else if after.starts_with("{lane}") {
            (lane, "{lane}".len())
        } else {
            out.push('{');
            rest = &after[1..];
            continue;
        };
        // Writing an integer into a String cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut out, format_args!("{value}"));
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// Flat port-name list of a node model: compute NIC ports (NIC order, then plane order), storage
/// ports, in-band ports. `PortId::Nic(i)` indexes into it.
pub fn flat_node_ports(m: &NodeModel) -> Vec<String> {
    m.compute
        .iter()
        .chain(&m.storage)
        .chain(&m.inband)
        .flat_map(|p| p.ports.iter().map(|p| p.to_string()))
        .collect()
}

/// Expand the spec into the fabric graph. Returns `None` when sizing failed; every problem found
/// is in `diags`.
pub fn build(spec: &ClusterSpec, builtin: &Catalog, diags: &mut Diagnostics) -> Option<Fabric> {
    let catalog = builtin.extended_with(&spec.catalog);
    checks::catalog(&spec.catalog, &spec.catalog_spans, diags);
    platforms::check(spec, diags);
    let sizing = sizing::plan(spec, &catalog, diags)?;
    let names = naming::patterns(spec, &sizing, diags)?;
    let mut b = builder::Builder::new(spec, &catalog, &sizing, &names);
    compute::expand(&mut b);
    access::expand(&mut b);
    rack::expand(&mut b);
    oob::expand(&mut b);
    let (graph, problems) = b.finish();
    let node_ports = catalog
        .nodes
        .iter()
        .map(|(k, m)| (k.to_string(), flat_node_ports(m)))
        .collect();
    let fabric = Fabric {
        name: spec.name.value.to_string(),
        site: spec.site.as_ref().map(|s| s.to_string()),
        catalog,
        sizing,
        graph,
        node_ports,
    };
    checks::fabric(spec, &fabric, &names, &problems, diags);
    platforms::check_missing(spec, &fabric, diags);
    platforms::check_vendor(spec, &fabric, diags);
    Some(fabric)
}

#[cfg(test)]
mod tests {
    #[test]
    fn port_patterns_expand_like_successive_replacement() {
        for (pattern, cage, lane) in [
            ("swp{cage}", 12, 0),
            ("swp{cage}s{lane}", 3, 1),
            ("Ethernet{cage}/{lane1}", 64, 3),
            ("p{lane}{lane1}{cage}{x}{", 7, 0),
            ("", 1, 1),
        ] {
            let slow = pattern
                .replace("{cage}", &cage.to_string())
                .replace("{lane1}", &(lane + 1).to_string())
                .replace("{lane}", &lane.to_string());
            assert_eq!(super::expand_port_pattern(pattern, cage, lane), slow);
        }
    }
}
