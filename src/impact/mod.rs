//! Failure impact: what one switch (or one cable) failing costs the cluster, for every single
//! failure, ranked by blast radius. A pure stage beside `artifacts` and `labplan`: it reads the
//! fabric (links and their speeds), the tenant plan and the scheduler's topology blocks, and
//! returns typed values; the command line (`railyard impact`), the report's "failure domains"
//! section and the lab (`lab verify --fail`) print or check them.
//!
//! Rules (why each figure is computed as it is):
//! - A failed switch takes all of its links down; a failed cable takes itself down. A leaf left
//!   with no uplink by the failure is isolated too: its node links carry nothing beyond it.
//! - Bandwidth is counted per tier from link speeds: the node–leaf tier is the compute (or
//!   storage, in-band) bandwidth of the nodes; leaf–spine and spine–core the fabric's. Each
//!   group (rail, SU, plane, tenant) gets the speeds of the links that belong to it, so "one
//!   rail leaf of an SU down" is 1/rails of that SU's node–leaf bandwidth, as the DGX SuperPOD
//!   reference architecture's rail-optimized design has it (one leaf per rail per SU).
//! - ECMP width is counted in links, as BGP unnumbered (RFC 5549/RFC 7938 fabrics) runs one
//!   session, hence one next hop, per link: a leaf's uplinks toward the spines, a spine's toward
//!   the cores, a core's toward one spine group, a spine's toward one leaf. It is the figure
//!   `lab verify` reads from FRR (`show ip route … json` next hops).
//! - A node loses a rail when every link of that rail (one per plane) went down; it is cut off
//!   from a network when it has no link left on it. Only GPU nodes count as nodes: an appliance
//!   (UFM) that lost links is named apart, never counted among the nodes cut off.
//! - Blocks are the scheduler's (`topology` reduces the fabric to the Slurm/Kueue topology blocks
//!   once, [`crate::topology::SchedulerTree`]), so the names are the ones `topology.conf` uses.
//! - Ranking: compute nodes cut off (data networks), then bandwidth lost, then name.

mod failure;
mod index;
mod roles;
mod text;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::design::Design;
use crate::model::{Network, Role, Tier};
use crate::topology::Fabric;

pub use roles::{RoleSummary, by_role};
pub use text::to_text;

/// One failure to analyse.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "lowercase")]
pub enum Failure {
    /// A switch, by name.
    Switch(String),
    /// A cable, by cable id.
    Link(String),
    /// A compute node (a rack-scale system's tray), by name: every cable of it down.
    Node(String),
    /// A rack-scale system's rack (`rack01`): its NVLink domain and every tray in it.
    Rack(String),
    /// One NVLink switch tray of a rack (`rack01-nvsw3`): NVLink bandwidth only, no cable.
    #[serde(rename = "nvlink-switch-tray")]
    NvlinkSwitchTray(String),
}

impl Failure {
    /// What failed, where no device role says it (a cable, a rack, an NVLink switch tray).
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Switch(_) => "switch",
            Failure::Link(_) => "cable",
            Failure::Node(_) => "node",
            Failure::Rack(_) => "rack",
            Failure::NvlinkSwitchTray(_) => "nvlink-switch-tray",
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Failure::Switch(n)
            | Failure::Link(n)
            | Failure::Node(n)
            | Failure::Rack(n)
            | Failure::NvlinkSwitchTray(n) => n,
        }
    }
}

/// What a failure does to an NVLink domain (rack-scale systems). Each GPU has one NVLink to each
/// NVLink switch chip of its rack (GB200 RA: "18 NVL5 links … one dedicated NVL5 link … to each
/// one of the 18 switch chips"; "Each NVLink switch tray is equipped with 2 NVLink switch
/// chips"), so a switch tray lost takes its chips' links from every GPU of the rack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NvlinkLoss {
    pub domain: String,
    /// GPUs of the domain before the failure.
    pub gpus: u32,
    /// GPUs that left the domain (a tray or the rack down).
    pub gpus_lost: u32,
    /// NVLink bandwidth of each remaining GPU, GB/s, before and after; `None` where the sources
    /// do not give the switch chips per tray.
    pub per_gpu_gbytes: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_gpu_gbytes_after: Option<u32>,
}

/// The kind of group a loss is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupKind {
    Rail,
    Su,
    Plane,
    Tenant,
}

impl GroupKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupKind::Rail => "rail",
            GroupKind::Su => "su",
            GroupKind::Plane => "plane",
            GroupKind::Tenant => "tenant",
        }
    }
}

/// A group of links whose capacity a loss is measured against.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Group {
    pub network: Network,
    pub kind: GroupKind,
    /// `rail3`, `su02`, `plane1`, or the tenant's name.
    pub name: String,
    pub tier: Tier,
}

/// Bandwidth one group lost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Loss {
    #[serde(flatten)]
    pub group: Group,
    pub lost_gbps: u64,
    pub capacity_gbps: u64,
    /// `lost / capacity` in percent.
    pub percent: f64,
}

/// The ECMP width a switch has left toward one destination class.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct EcmpChange {
    pub switch: String,
    /// `up` (toward the tier above), `group01` (a core toward one spine group), or the name of the
    /// switch below (a spine toward one leaf, a leaf toward its pair peer).
    pub toward: String,
    pub before: usize,
    pub after: usize,
}

/// A node that lost something on one network.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct NodeLoss {
    pub node: String,
    pub network: Network,
    /// The rail lost (compute), `None` for a node cut off from the network.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rail: Option<u32>,
}

/// An appliance (a UFM fabric manager, a storage target on the compute fabric) that lost links:
/// named apart from the compute nodes and never counted among them (no job runs on it, no
/// scheduler block holds it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ApplianceLoss {
    pub appliance: String,
    pub network: Network,
    /// No link of the network left.
    pub cut_off: bool,
}

/// A scheduler block the failure touches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockHit {
    pub block: String,
    /// Nodes of the block that lost a link, or whose leaf lost uplinks.
    pub degraded: usize,
    pub cut_off: usize,
    pub nodes: usize,
}

/// What one failure costs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Impact {
    pub failure: Failure,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    pub network: Network,
    pub links_down: usize,
    /// Sum of the speeds of the links down (isolated leaves' node links included).
    pub gbps_down: u64,
    /// Leaves left without an uplink by the failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub isolated: Vec<String>,
    pub losses: Vec<Loss>,
    pub ecmp: Vec<EcmpChange>,
    /// Compute nodes (GPU servers) that lost a rail or were cut off; appliances are apart.
    pub rails_lost: Vec<NodeLoss>,
    pub cut_off: Vec<NodeLoss>,
    /// Appliances that lost links, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub appliances: Vec<ApplianceLoss>,
    pub blocks: Vec<BlockHit>,
    /// The NVLink domain's loss, for a rack-scale system's tray, rack or NVLink switch tray.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvlink: Option<NvlinkLoss>,
}

impl Impact {
    /// Compute nodes cut off from a data network (compute, storage, in-band): the first ranking
    /// key. Appliances are not nodes: [`Impact::appliances_cut_off`].
    pub fn data_cut_off(&self) -> usize {
        let nodes: BTreeSet<&str> = self
            .cut_off
            .iter()
            .filter(|n| n.network != Network::Oob)
            .map(|n| n.node.as_str())
            .collect();
        nodes.len()
    }

    /// Appliances cut off from a data network, by name (`ufm01 (compute)`).
    pub fn appliances_cut_off(&self) -> Vec<String> {
        self.appliances
            .iter()
            .filter(|a| a.cut_off && a.network != Network::Oob)
            .map(|a| format!("{} ({})", a.appliance, a.network.as_str()))
            .collect()
    }

    /// The narrowest ECMP group left, as a fraction of what it was (a switch's uplinks even when
    /// none are left; a group toward a switch below only while a path remains: a group to the
    /// failed switch itself is gone, not narrowed).
    pub fn worst_ecmp(&self) -> Option<&EcmpChange> {
        self.ecmp
            .iter()
            .filter(|c| c.after > 0 || c.toward == failure::UP)
            .min_by(|a, b| (a.after * b.before).cmp(&(b.after * a.before)))
    }
}

/// Every analysed failure, worst first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    pub cluster: String,
    pub impacts: Vec<Impact>,
}

/// A `--fail` name that is neither a switch nor a cable (`dev:port` included) of the fabric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName(pub String);

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is neither a switch, a node, a rack (`rack01`), an NVLink switch tray (`rack01-nvsw1`), a cable id nor a `device:port` of the fabric",
            self.0
        )
    }
}

/// The failures to analyse: the names given (switches, cable ids, `device:port`), or every
/// switch of a data network (OOB switches carry management, not job traffic: name them to
/// include them), plus every link of a data network between two switches or a node and a leaf
/// with `links`. Every unknown name is returned at once.
pub fn failures(
    f: &Fabric,
    names: &[String],
    links: bool,
) -> Result<Vec<Failure>, Vec<UnknownName>> {
    let mut out = BTreeSet::new();
    let mut unknown = Vec::new();
    if names.is_empty() {
        out.extend(
            f.devices()
                .filter(|d| d.role.is_switch() && d.network != Network::Oob)
                .map(|d| Failure::Switch(d.name.clone())),
        );
        // A rack-scale system's racks fail as a whole too (power, cooling, the NVLink spine).
        let racks: BTreeSet<u32> = f.devices().filter_map(|d| d.domain).collect();
        out.extend(racks.into_iter().map(|n| Failure::Rack(f.domain_name(n))));
    }
    for n in names {
        match resolve(f, n) {
            Some(x) => {
                out.insert(x);
            }
            None => unknown.push(UnknownName(n.clone())),
        }
    }
    if links && names.is_empty() {
        out.extend(
            f.links()
                .filter(|l| l.network != Network::Oob && l.tier != Tier::Mgmt)
                .map(|l| Failure::Link(l.cable_id.clone())),
        );
    }
    if unknown.is_empty() {
        Ok(out.into_iter().collect())
    } else {
        Err(unknown)
    }
}

/// A name as a switch, a node, a rack or NVLink switch tray, a cable id, or a `device:port` end
/// of a cable.
fn resolve(f: &Fabric, name: &str) -> Option<Failure> {
    if let Some(d) = f.devices().find(|d| d.name == name) {
        if d.role.is_switch() {
            return Some(Failure::Switch(name.to_string()));
        }
        if d.role == Role::Node {
            return Some(Failure::Node(name.to_string()));
        }
        if d.role == Role::NvlinkSwitchTray {
            return Some(Failure::NvlinkSwitchTray(name.to_string()));
        }
    }
    if let Some(x) = rack_part(f, name) {
        return Some(x);
    }
    if f.links().any(|l| l.cable_id == name) {
        return Some(Failure::Link(name.to_string()));
    }
    let (dev, port) = name.rsplit_once(':')?;
    f.links()
        .find(|l| {
            [&l.a, &l.b].into_iter().any(|e| {
                let n = f.named(e);
                n.device.name == dev && n.port_name == port
            })
        })
        .map(|l| Failure::Link(l.cable_id.clone()))
}

/// `rack07` (a rack with trays installed) or `rack07-nvsw3` (one of its NVLink switch trays).
fn rack_part(f: &Fabric, name: &str) -> Option<Failure> {
    let d = f.sizing.domains.as_ref()?;
    let racks: BTreeSet<u32> = f.devices().filter_map(|x| x.domain).collect();
    let (rack, tray) = match name.split_once("-nvsw") {
        Some((r, k)) => (r, Some(k.parse::<u32>().ok()?)),
        None => (name, None),
    };
    let n = racks.into_iter().find(|n| f.domain_name(*n) == rack)?;
    match tray {
        None => Some(Failure::Rack(f.domain_name(n))),
        Some(k) if (1..=d.nvlink_switch_trays).contains(&k) => {
            Some(Failure::NvlinkSwitchTray(name.to_string()))
        }
        Some(_) => None,
    }
}

/// Analyse each failure and rank them: nodes cut off, then bandwidth lost, then name.
/// `scope`: only these devices (and the links between them), e.g. a scaled-down lab's; all when
/// `None`.
pub fn analyse(
    design: &Design,
    scope: Option<&BTreeSet<String>>,
    failures: &[Failure],
) -> Analysis {
    let ix = index::Index::build(design, scope);
    let mut impacts: Vec<Impact> = failures
        .iter()
        .filter_map(|x| failure::impact(&ix, x))
        .collect();
    impacts.sort_by(|a, b| {
        b.data_cut_off()
            .cmp(&a.data_cut_off())
            .then(b.gbps_down.cmp(&a.gbps_down))
            .then(a.failure.cmp(&b.failure))
    });
    Analysis {
        cluster: design.fabric.name.clone(),
        impacts,
    }
}

/// The group names a capacity is summed under, shared by the index and the losses.
pub(crate) fn group_names(kind: GroupKind, n: u32, width: usize) -> String {
    format!("{}{n:0width$}", kind.as_str())
}

/// `BTreeMap` of group → capacity in Gb/s.
pub(crate) type Capacities = BTreeMap<Group, u64>;
