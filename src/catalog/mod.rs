//! Hardware models: switch port layouts and breakouts, node GPUs and NICs.
//!
//! The built-in models live as YAML under `catalog/` at the crate root and are embedded at build
//! time; a spec may add or replace models under its own `catalog:` key.

mod builtin;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::{Form, Platform, Speed, Transport};

pub use builtin::builtin;

/// Every hardware model known to a build: built-ins plus the spec's own.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    #[serde(default)]
    pub switches: BTreeMap<String, SwitchModel>,
    #[serde(default)]
    pub nodes: BTreeMap<String, NodeModel>,
}

impl Catalog {
    /// Overlay `other` on `self`: a model of the same name in `other` replaces the built-in one.
    pub fn extended_with(&self, other: &Catalog) -> Catalog {
        let mut out = self.clone();
        out.switches
            .extend(other.switches.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.nodes
            .extend(other.nodes.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }
}

/// A switch model: its cages, how they break out, how its OS names ports.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchModel {
    pub vendor: String,
    pub description: String,
    /// The transports the model's ports speak.
    pub transport: Vec<Transport>,
    /// Rack units.
    pub ru: u32,
    /// Name of the dedicated management (OOB) port.
    pub mgmt_port: String,
    /// Switch ASIC (`spectrum-4`), which decides features such as adaptive routing.
    #[serde(default)]
    pub asic: Option<String>,
    /// Network OS the model ships with; a spec may choose another under `platforms`.
    #[serde(default)]
    pub os: Option<Platform>,
    /// Data port groups, in front-panel order.
    pub port_groups: Vec<PortGroup>,
    /// Where the figures come from.
    #[serde(default)]
    pub source: String,
}

/// A run of identical cages.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortGroup {
    /// Front-panel number of the first cage in this group.
    pub first: u32,
    pub count: u32,
    pub form: Form,
    /// Full cage rate.
    pub speed: Speed,
    /// Supported modes as `<ports>x<speed>`, e.g. `2x400G`. `1x<speed>` is the unsplit cage.
    pub breakouts: Vec<String>,
    /// OS name of an unsplit cage: `{cage}` is the front-panel number.
    pub name: String,
    /// OS name of a split port: `{cage}`, `{lane}` (0-based) or `{lane1}` (1-based).
    pub split_name: String,
}

impl PortGroup {
    /// Logical ports per cage when run at `speed`, if the model lists that breakout.
    pub fn lanes_at(&self, speed: Speed) -> Option<u32> {
        self.breakouts.iter().find_map(|b| {
            let (n, s) = b.split_once('x')?;
            let n: u32 = n.parse().ok()?;
            let s: Speed = s.parse().ok()?;
            (s == speed).then_some(n)
        })
    }
}

impl SwitchModel {
    /// The first port group that can run `speed`, with its lanes per cage.
    pub fn group_for(&self, speed: Speed) -> Option<(usize, u32)> {
        self.port_groups
            .iter()
            .enumerate()
            .find_map(|(i, g)| g.lanes_at(speed).map(|l| (i, l)))
    }

    pub fn total_cages(&self) -> u32 {
        self.port_groups.iter().map(|g| g.count).sum()
    }
}

/// A server model: GPUs and the ports it brings to each network.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeModel {
    pub vendor: String,
    pub description: String,
    pub gpus: u32,
    pub gpu_model: String,
    pub ru: u32,
    /// Compute NICs in rail order: NIC i serves rail i.
    pub compute: Vec<NodePort>,
    /// Storage fabric ports.
    #[serde(default)]
    pub storage: Vec<NodePort>,
    /// In-band management ports (usually a bonded pair).
    #[serde(default)]
    pub inband: Vec<NodePort>,
    /// The BMC port, cabled to the OOB network.
    pub bmc: NodePort,
    #[serde(default)]
    pub source: String,
}

/// One NIC port (or, for compute NICs, one NIC with a port per plane).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodePort {
    /// Port names; a compute NIC lists one per plane it can serve.
    pub ports: Vec<String>,
    /// Highest rate of the port.
    pub speed: Speed,
    /// Other rates the port can run at.
    #[serde(default)]
    pub also: Vec<Speed>,
    pub form: Form,
    /// Physical cage: ports that share a cage share one (twin-port) transceiver.
    #[serde(default)]
    pub cage: Option<String>,
    /// RDMA device name (`mlx5_0`).
    #[serde(default)]
    pub rdma: Option<String>,
    /// NUMA node the NIC hangs off.
    #[serde(default)]
    pub numa: Option<u32>,
}

impl NodePort {
    pub fn supports(&self, speed: Speed) -> bool {
        self.speed == speed || self.also.contains(&speed)
    }
}
