//! The spec as the user wrote it (format version 1). Every default is in `defaults.rs`, never
//! scattered downstream; fields that diagnostics point at keep their source span (`Sp<T>`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::tenants::{SharedServiceSpec, TenancySpec, TenantSpec};
use super::yaml::Sp;
use crate::catalog::Catalog;
use crate::model::ident::{
    DomainName, EnvName, Host, IfnameList, LabelPrefix, Name, NodePath, Text,
};
use crate::model::{Platform, Speed, Transport};

/// A GPU cluster: its scalable units and the networks that join them.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Spec format version; 1 is current.
    #[serde(default = "super::defaults::version")]
    pub version: Sp<u32>,
    /// Cluster name, used in file names and the `{cluster}` naming placeholder.
    pub name: Sp<Name>,
    /// Site or data-centre name, printed on cabling sheets.
    #[serde(default)]
    pub site: Option<Text>,
    pub scalable_units: SuSpec,
    pub compute: ComputeSpec,
    /// Storage fabric; absent when the nodes reach storage over the in-band network or not at all.
    #[serde(default)]
    pub storage: Option<AccessSpec>,
    /// In-band management network (user access, job submission, provisioning).
    #[serde(default)]
    pub inband: Option<InbandSpec>,
    /// Out-of-band management: every switch's management port and every node's BMC.
    #[serde(default)]
    pub oob: OobSpec,
    /// Device naming patterns.
    #[serde(default)]
    pub naming: NamingSpec,
    /// Rack layout, used for cable lengths and labels.
    #[serde(default)]
    pub racks: Option<RackSpec>,
    /// Cable length assumptions when no rack layout is given.
    #[serde(default)]
    pub cabling: CablingSpec,
    /// How links are built from parts: copper or optics, multimode or single-mode, vendor, spares.
    #[serde(default)]
    pub physical: PhysicalSpec,
    /// Extra or replacement hardware models.
    #[serde(default)]
    pub catalog: Catalog,
    /// Where each model of `catalog` is written (`switches.<name>` / `nodes.<name>` → the key's
    /// span), for diagnostics about the entries; filled by `spec::parse` from the YAML tree.
    #[serde(skip)]
    #[schemars(skip)]
    pub catalog_spans: std::collections::BTreeMap<String, crate::diag::Span>,
    /// Network OS per switch role.
    #[serde(default)]
    pub platforms: PlatformSpec,
    #[serde(default)]
    pub addressing: AddressingSpec,
    #[serde(default)]
    pub bgp: BgpSpec,
    #[serde(default)]
    pub roce: RoceSpec,
    #[serde(default)]
    pub services: ServicesSpec,
    /// Topology-aware scheduling outputs (Slurm, Kubernetes Kueue).
    #[serde(default)]
    pub scheduler: SchedulerSpec,
    /// How the deliverables people read are split (`report.html`, `cabling.xlsx`).
    #[serde(default)]
    pub report: ReportSpec,
    /// GPU-node side: NCCL settings and NIC values that differ from the fabric's.
    #[serde(default)]
    pub hosts: HostsSpec,
    /// Tenants (customers or projects): a VRF/L3VNI each on Ethernet, a PKey on InfiniBand.
    #[serde(default)]
    pub tenants: Vec<TenantSpec>,
    /// Services tenants may share: the only allowed leaks between tenants.
    #[serde(default)]
    pub shared_services: Vec<SharedServiceSpec>,
    #[serde(default)]
    pub tenancy: TenancySpec,
    /// Per-device exceptions to the computed plan (by device name), applied after allocation.
    /// Use sparingly: an override that breaks a BGP session is reported (RY0701) but rendered,
    /// so a lab can prove that verification catches it.
    #[serde(default)]
    pub overrides: std::collections::BTreeMap<Name, DeviceOverride>,
    /// How the switches are loaded, where the build must know it.
    #[serde(default)]
    pub push: PushSpec,
    /// Which findings this spec accepts: warnings it has reviewed and keeps.
    #[serde(default)]
    pub diagnostics: DiagnosticsSpec,
}

/// Findings the spec's authors have reviewed: a warning listed here is counted, not shown, and
/// does not fail `--strict`. Errors cannot be accepted.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct DiagnosticsSpec {
    /// Warning and advisory (info) codes to accept, e.g. `[RY0902]` once the node model's PCIe
    /// layout is reviewed: counted, not listed, never failing `--strict`; an error is never
    /// accepted. `railyard explain` lists the codes. Default: none.
    #[serde(default)]
    #[schemars(example = ["RY0501"])]
    pub allow: Vec<Sp<String>>,
}

/// How `railyard push` loads the switches, as far as the build must know it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct PushSpec {
    /// The network OSes whose switches are loaded with the generic `netconf` push driver
    /// (OpenConfig over NETCONF, candidate + confirmed commit): only their switches get
    /// `configs/<switch>/openconfig.xml`. Default: none; every OS has its own driver.
    #[serde(default)]
    pub netconf: Vec<Sp<Platform>>,
}

/// What one device may override.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct DeviceOverride {
    /// BGP ASN of this switch only (its peers keep expecting the planned one).
    #[serde(default)]
    pub asn: Option<Sp<u64>>,
    /// Loopback (router-id) of this switch, e.g. `10.0.0.99/32`.
    #[serde(default)]
    pub loopback: Option<Sp<String>>,
}

/// Scalable units: the repeated building block of nodes and their leaves.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct SuSpec {
    /// Number of SUs.
    pub count: Sp<u32>,
    /// Node positions per SU (32 in a DGX SuperPOD).
    pub nodes_per_su: Sp<u32>,
    /// Node model from the catalog.
    pub node_model: Sp<String>,
    /// Nodes actually installed per SU, in SU order; missing entries mean a full SU.
    #[serde(default)]
    pub populated: Option<Sp<Vec<u32>>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// NIC i of every node in an SU goes to the leaf serving rail i.
    #[default]
    RailOptimized,
    /// All NICs of a node go to its rack's leaf (hyperscaler style).
    TopOfRack,
}

impl Layout {
    /// The spec's spelling, as plan.json and the summary print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::RailOptimized => "rail-optimized",
            Layout::TopOfRack => "top-of-rack",
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The GPU-to-GPU fabric.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ComputeSpec {
    /// `ethernet` (RoCE, Spectrum-X) or `infiniband` (Quantum); default `ethernet`.
    #[serde(default = "super::defaults::transport")]
    pub transport: Transport,
    /// `rail-optimized` (NIC i of every node of an SU to the leaf of rail i, NVIDIA's reference
    /// architectures) or `top-of-rack` (all NICs of a node to its rack's leaf); default `rail-optimized`.
    #[serde(default)]
    pub layout: Layout,
    /// Rails; defaults to the node model's compute NIC count and must equal it.
    #[serde(default)]
    pub rails: Option<Sp<u32>>,
    /// Independent planes (2 = twin-planar: every NIC has a port into each plane).
    #[serde(default = "super::defaults::one")]
    pub planes: Sp<u32>,
    /// Node port speed; defaults to the compute NIC's speed.
    #[serde(default)]
    pub port_speed: Option<Sp<Speed>>,
    /// Leaf-spine (and spine-core) link speed; defaults to `port_speed`.
    #[serde(default)]
    pub uplink_speed: Option<Sp<Speed>>,
    /// Leaf downlink:uplink bandwidth, `1:1` for non-blocking.
    #[serde(default = "super::defaults::ratio")]
    pub oversubscription: Sp<String>,
    /// 2, 3, or absent for automatic (2-tier while the spine radix allows).
    #[serde(default)]
    pub tiers: Option<Sp<u32>>,
    /// The compute leaves: their model, rails or nodes per leaf, uplinks.
    pub leaf: LeafSpec,
    /// The compute spines: their model and count.
    pub spine: SpineSpec,
    /// The cores of a 3-tier fabric (needed when the spine radix cannot join every leaf).
    #[serde(default)]
    pub core: Option<CoreSpec>,
    /// Fabric-manager appliances (e.g. UFM) that take a node position's leaf ports.
    #[serde(default)]
    pub fabric_managers: Option<FabricManagerSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct LeafSpec {
    /// Switch model, a key of the catalog (`railyard catalog` lists the built-in ones), e.g. `sn5600`.
    pub model: Sp<String>,
    /// Rails served by one leaf (rail-optimized); default: as many as fit at the declared ratio.
    #[serde(default)]
    pub rails_per_leaf: Option<Sp<u32>>,
    /// Nodes per leaf (top-of-rack); default: as many as fit at the declared ratio.
    #[serde(default)]
    pub nodes_per_leaf: Option<Sp<u32>>,
    /// Uplinks per leaf; default: what the oversubscription ratio requires.
    #[serde(default)]
    pub uplinks: Option<Sp<u32>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct SpineSpec {
    /// Switch model, a key of the catalog, e.g. `sn5600` or `qm9700`.
    pub model: Sp<String>,
    /// Spines per plane (2-tier) or per spine group (3-tier); default: the fewest that connect
    /// every leaf evenly. Declare it to keep cabling stable as SUs are added.
    #[serde(default)]
    pub count: Option<Sp<u32>>,
    /// SUs per spine group in a 3-tier fabric.
    #[serde(default = "super::defaults::one")]
    pub sus_per_group: Sp<u32>,
    /// Spine port speed; must equal the leaf uplink speed.
    #[serde(default)]
    pub port_speed: Option<Sp<Speed>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct CoreSpec {
    /// Switch model, a key of the catalog.
    pub model: Sp<String>,
    /// Cores per plane; default: the fewest that connect every spine evenly.
    #[serde(default)]
    pub count: Option<Sp<u32>>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct FabricManagerSpec {
    /// Appliances, each with one compute port (on rails 1..count of the position).
    pub count: Sp<u32>,
    /// The SU and slot whose leaf ports they take; that position holds no node.
    pub su: Sp<u32>,
    /// The slot (node position, 1-based) within `su`.
    pub slot: Sp<u32>,
    /// Appliance model written on the cabling and BOM; default `ufm-appliance`.
    #[serde(default = "super::defaults::ufm_model")]
    pub model: String,
}

/// A storage or in-band fabric: node ports to leaf pairs (a node's ports alternate between the
/// two leaves of its pair), leaves to spines, spine groups to cores when the size needs a third
/// tier. A single pair without spines is joined by routed peer links.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct AccessSpec {
    /// Ethernet (default) or InfiniBand (e.g. a SuperPOD's IB storage fabric).
    #[serde(default = "super::defaults::transport")]
    pub transport: Transport,
    /// The nodes reach storage over RDMA (NVMe-oF over RoCE, GPUDirect Storage): every port of
    /// the storage fabric runs the RoCE class of `roce` (trust DSCP, PFC, ECN). Ethernet only.
    #[serde(default)]
    pub rdma: Sp<bool>,
    /// The leaves: model and count (leaf pairs; a node's ports alternate between the two).
    pub leaf: AccessSwitchSpec,
    /// Spines; needed once there is more than one leaf pair.
    #[serde(default)]
    pub spine: Option<AccessSpineSpec>,
    /// Cores of a 3-tier fabric: spine j of every spine group joins core group j.
    #[serde(default)]
    pub core: Option<AccessSwitchSpec>,
    /// 2, 3, or absent for automatic (2-tier while the spine radix allows, 3-tier with `core`).
    #[serde(default)]
    pub tiers: Option<Sp<u32>>,
    /// Node port speed; defaults to the node port's speed.
    #[serde(default)]
    pub port_speed: Option<Sp<Speed>>,
    /// Leaf-spine link speed; defaults to the fastest rate of the leaf.
    #[serde(default)]
    pub uplink_speed: Option<Sp<Speed>>,
    /// Leaf downlink:uplink bandwidth, `1:1` for non-blocking; default `1:1`.
    #[serde(default = "super::defaults::ratio")]
    pub oversubscription: Sp<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct AccessSwitchSpec {
    /// Switch model, a key of the catalog, e.g. `sn5600`.
    pub model: Sp<String>,
    /// Switch count; default: sized from the node count. Leaves: at least what the nodes need, a
    /// multiple of the leaf group (2 when nodes have two or more ports); extra leaves are built
    /// empty, room to grow without recabling the spines. Cores: a multiple of the spines per group.
    #[serde(default)]
    pub count: Option<Sp<u32>>,
}

/// Spines of a storage or in-band fabric.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct AccessSpineSpec {
    /// Switch model, a key of the catalog.
    pub model: Sp<String>,
    /// Spines (per spine group in a 3-tier fabric); default: the fewest that connect every leaf
    /// evenly. Declare it to keep cabling stable as the cluster grows.
    #[serde(default)]
    pub count: Option<Sp<u32>>,
    /// Leaves per spine group of a 3-tier fabric; default: as many as the spines' downlink half
    /// takes with one link per leaf and spine.
    #[serde(default)]
    pub leaves_per_group: Option<Sp<u32>>,
}

/// In-band management: converged onto the storage fabric, or a fabric of its own.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct InbandSpec {
    /// Carry in-band management on the storage fabric instead of switches of its own.
    #[serde(default)]
    pub converged_with_storage: Sp<bool>,
    /// Leaves of a dedicated in-band fabric (required unless converged).
    #[serde(default)]
    pub leaf: Option<AccessSwitchSpec>,
    /// Spines of the dedicated in-band fabric; needed once there is more than one leaf pair.
    #[serde(default)]
    pub spine: Option<AccessSpineSpec>,
    /// Cores of a 3-tier in-band fabric.
    #[serde(default)]
    pub core: Option<AccessSwitchSpec>,
    /// 2, 3, or absent for automatic (2-tier while the spine radix allows).
    #[serde(default)]
    pub tiers: Option<Sp<u32>>,
    /// Node port speed; defaults to the node's in-band port speed.
    #[serde(default)]
    pub port_speed: Option<Sp<Speed>>,
    /// Leaf-spine link speed; defaults to the fastest rate of the leaf.
    #[serde(default)]
    pub uplink_speed: Option<Sp<Speed>>,
    /// Leaf downlink:uplink bandwidth, `1:1` for non-blocking; default `1:1`.
    #[serde(default = "super::defaults::ratio")]
    pub oversubscription: Sp<String>,
}

impl InbandSpec {
    /// The dedicated fabric, when there is one.
    pub fn fabric(&self) -> Option<AccessSpec> {
        let leaf = self.leaf.clone()?;
        Some(AccessSpec {
            transport: Transport::Ethernet,
            rdma: Sp::default(),
            leaf,
            spine: self.spine.clone(),
            core: self.core.clone(),
            tiers: self.tiers.clone(),
            port_speed: self.port_speed.clone(),
            uplink_speed: self.uplink_speed.clone(),
            oversubscription: self.oversubscription.clone(),
        })
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct OobSpec {
    /// OOB switch model, a key of the catalog; default `sn2201` (48 × 1GbE + 4 × 100GbE).
    #[serde(default = "super::defaults::oob_model")]
    pub model: Sp<String>,
    /// OOB switches per SU; default: as many as the SU's BMC and switch management ports need.
    #[serde(default)]
    pub switches_per_su: Option<Sp<u32>>,
    /// Speed of each OOB switch's uplink to the gateway (a lane of a split uplink cage).
    #[serde(default = "super::defaults::oob_uplink_speed")]
    pub uplink_speed: Sp<Speed>,
    /// The router that holds every management subnet's gateway address (the first host of each
    /// subnet, on a VLAN interface per subnet) and routes between them; every OOB switch uplinks
    /// to it over an 802.1Q trunk. Default: a switch of the OOB model. Its own uplink to the
    /// site network is the site's design.
    #[serde(default)]
    pub gateway: OobGatewaySpec,
}

impl Default for OobSpec {
    fn default() -> Self {
        Self {
            model: super::defaults::oob_model(),
            switches_per_su: None,
            uplink_speed: super::defaults::oob_uplink_speed(),
            gateway: OobGatewaySpec::default(),
        }
    }
}

/// The OOB gateway: an L3 switch with one VLAN interface per management subnet.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct OobGatewaySpec {
    /// Switch model; default: the OOB switch model. It needs a port at `oob.uplink_speed` per
    /// OOB switch.
    #[serde(default)]
    pub model: Option<Sp<String>>,
}

/// Naming patterns. Placeholders: `{cluster}`, `{su}`, `{slot}`, `{node}`, `{plane}`, `{leaf}`,
/// `{rail}`, `{group}`, `{index}`; `{su:02}` pads to two digits. Defaults in `defaults.rs`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct NamingSpec {
    /// GPU nodes; default `gpu{node:03}`.
    #[serde(default)]
    pub node: Option<Sp<String>>,
    /// Compute leaves; default `leaf-su{su:02}-{leaf:02}` (two planes: `leaf-p{plane}-su{su:02}-{leaf:02}`).
    #[serde(default)]
    pub leaf: Option<Sp<String>>,
    /// Compute spines; default `spine{index:02}` (two planes: `spine-p{plane}-{index:02}`; 3-tier:
    /// `spine-g{group:02}-{index:02}`).
    #[serde(default)]
    pub spine: Option<Sp<String>>,
    /// Compute cores of a 3-tier fabric; default `core{index:02}` (two planes: `core-p{plane}-{index:02}`).
    #[serde(default)]
    pub core: Option<Sp<String>>,
    /// Fabric-manager appliances (UFM); default `ufm{index:02}`.
    #[serde(default)]
    pub fabric_manager: Option<Sp<String>>,
    /// Storage leaves; default `stor-leaf{index:02}`.
    #[serde(default)]
    pub storage_leaf: Option<Sp<String>>,
    /// Storage spines; default `stor-spine{index:02}` (3-tier: `stor-spine-g{group:02}-{index:02}`).
    #[serde(default)]
    pub storage_spine: Option<Sp<String>>,
    /// In-band leaves; default `inb-leaf{index:02}`.
    #[serde(default)]
    pub inband_leaf: Option<Sp<String>>,
    /// In-band spines; default `inb-spine{index:02}` (3-tier: `inb-spine-g{group:02}-{index:02}`).
    #[serde(default)]
    pub inband_spine: Option<Sp<String>>,
    /// OOB (management) switches; default `oob-su{su:02}-{index:02}`.
    #[serde(default)]
    pub oob: Option<Sp<String>>,
    /// OOB aggregation switches; default `oob-core{index:02}`.
    #[serde(default)]
    pub oob_core: Option<Sp<String>>,
    /// The OOB gateway; default `oob-gw{index:02}`.
    #[serde(default)]
    pub oob_gateway: Option<Sp<String>>,
    /// Storage cores of a 3-tier storage fabric; default `stor-core{index:02}`.
    #[serde(default)]
    pub storage_core: Option<Sp<String>>,
    /// In-band cores of a 3-tier in-band fabric; default `inb-core{index:02}`.
    #[serde(default)]
    pub inband_core: Option<Sp<String>>,
    /// NVLink switch trays of a rack-scale system's racks; default `rack{rack:02}-nvsw{index}`
    /// (the rack number padded to the cluster's rack count).
    #[serde(default)]
    pub nvlink_switch_tray: Option<Sp<String>>,
    /// Power shelves of a rack-scale system's racks; default `rack{rack:02}-psu{index}`.
    #[serde(default)]
    pub power_shelf: Option<Sp<String>>,
}

/// Rack layout: node racks per SU in a row, the SU's network rack at the row's end, spine and
/// core racks in a network row of their own.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct RackSpec {
    /// GPU nodes per rack (4 DGX H100 per rack in NVIDIA's SuperPOD RA).
    pub nodes_per_rack: Sp<u32>,
    /// Rack width in metres (cable run per rack position).
    #[serde(default = "super::defaults::rack_width")]
    pub rack_width_m: f64,
    /// Distance between rows in metres.
    #[serde(default = "super::defaults::row_pitch")]
    pub row_pitch_m: f64,
    /// Vertical runs and service loops added to every cable between racks, in metres.
    #[serde(default = "super::defaults::slack")]
    pub slack_m: f64,
    /// A cable within one rack (between U positions, with its service loop), in metres.
    #[serde(default = "super::defaults::in_rack")]
    pub in_rack_m: f64,
    /// Height of the overhead cable tray above the floor, in metres. When set, a cable between
    /// racks is routed up from each device to the tray and down again: two drops of the full
    /// tray height (the spec places devices in racks, not at U positions, so the longest drop,
    /// from the rack's bottom, is taken) plus the horizontal run, and `slack_m` then counts only
    /// the service loops. Unset: `slack_m` stands for the drops and the loops (as before).
    #[serde(default)]
    pub tray_height_m: Option<Sp<f64>>,
}

/// Cable lengths by tier when no rack layout is given, in metres.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct CablingSpec {
    /// Length of a node-to-leaf cable in metres, when no `racks:` layout is given.
    #[serde(default = "super::defaults::len_node_leaf")]
    pub node_leaf_m: f64,
    /// Length of a leaf-to-spine cable in metres, when no `racks:` layout is given.
    #[serde(default = "super::defaults::len_leaf_spine")]
    pub leaf_spine_m: f64,
    /// Length of a spine-to-core cable in metres, when no `racks:` layout is given.
    #[serde(default = "super::defaults::len_spine_core")]
    pub spine_core_m: f64,
    /// Length of a management (OOB) cable in metres, when no `racks:` layout is given.
    #[serde(default = "super::defaults::len_mgmt")]
    pub mgmt_m: f64,
}

impl Default for CablingSpec {
    fn default() -> Self {
        Self {
            node_leaf_m: super::defaults::len_node_leaf(),
            leaf_spine_m: super::defaults::len_leaf_spine(),
            spine_core_m: super::defaults::len_spine_core(),
            mgmt_m: super::defaults::len_mgmt(),
        }
    }
}

/// The physical-layer policy the link solver follows (`docs/physical.md`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct PhysicalSpec {
    /// Copper (DAC, then active copper) for runs up to this many metres, optics beyond.
    #[serde(default = "super::defaults::copper_max")]
    pub copper_max_m: Sp<f64>,
    /// Active optical cables for runs up to this many metres (within the lengths the AOC is sold
    /// in); unset, AOCs share `copper_max_m` with DAC and active copper. NVIDIA: "AOCs (Active
    /// Optical Cable) are used from 3 meters to about 100 meters" (cable management FAQ).
    #[serde(default)]
    #[schemars(example = 30.0)]
    pub aoc_max_m: Option<Sp<f64>>,
    /// Single-mode optics for runs longer than this; multimode up to it.
    #[serde(default = "super::defaults::singlemode_beyond")]
    pub singlemode_beyond_m: Sp<f64>,
    /// Prefer this vendor's parts where several fit.
    #[serde(default)]
    pub vendor: Option<Text>,
    /// Spare parts ordered on top of the count, in percent (rounded up per part).
    #[serde(default)]
    pub spares_percent: Sp<f64>,
    /// Patch panels every cable of a tier passes through (structured cabling). Copper cannot
    /// pass a panel, so such links take optics; each panel adds one patch cord per fibre.
    #[serde(default)]
    pub patch_panels: PatchPanels,
    /// Which parts may be ordered by what their number rests on: `any` (default), or
    /// `vendor-only`, which refuses a part whose number comes from a third-party listing
    /// (catalog `source_kind: third-party`), located here, naming the part's source link.
    #[serde(default)]
    #[schemars(example = &"vendor-only")]
    pub parts: Sp<PartsPolicy>,
}

/// `physical.parts`: the part sources a plan may order from (issue #42).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PartsPolicy {
    /// Every catalog part; a third-party part's BOM line says "confirm with the vendor".
    #[default]
    Any,
    /// Only parts with vendor text behind their number (and parts ordered by specification).
    VendorOnly,
}

/// Patch panels per tier (`physical.patch_panels`). NVIDIA's optics reaches assume at most two
/// in a link (NVIDIA cabling requirements: "two optical connector junctions or patch panels in
/// the link, a total of 4 ferule-to ferule connections"); more is RY1006.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct PatchPanels {
    /// Patch panels in every node-to-leaf link; default 0.
    #[serde(default)]
    pub node_leaf: Sp<u32>,
    /// Patch panels in every leaf-to-spine link; default 0.
    #[serde(default)]
    pub leaf_spine: Sp<u32>,
    /// Patch panels in every spine-to-core link; default 0.
    #[serde(default)]
    pub spine_core: Sp<u32>,
}

impl PatchPanels {
    /// The panels a link of `tier` passes (peer, management and OOB links: none).
    pub fn of(&self, tier: crate::model::Tier) -> u32 {
        use crate::model::Tier;
        match tier {
            Tier::NodeLeaf => self.node_leaf.value,
            Tier::LeafSpine => self.leaf_spine.value,
            Tier::SpineCore => self.spine_core.value,
            Tier::LeafLeaf | Tier::Mgmt | Tier::OobUplink => 0,
        }
    }

    /// Every declared count with its key.
    pub fn all(&self) -> [(&'static str, &Sp<u32>); 3] {
        [
            ("node_leaf", &self.node_leaf),
            ("leaf_spine", &self.leaf_spine),
            ("spine_core", &self.spine_core),
        ]
    }
}

impl Default for PhysicalSpec {
    fn default() -> Self {
        Self {
            copper_max_m: super::defaults::copper_max(),
            aoc_max_m: None,
            singlemode_beyond_m: super::defaults::singlemode_beyond(),
            vendor: None,
            spares_percent: Sp::new(0.0),
            patch_panels: PatchPanels::default(),
            parts: Sp::default(),
        }
    }
}

/// Network OS per switch role. A role not named here runs its model's default OS (catalog `os`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct PlatformSpec {
    /// Every switch not named below.
    #[serde(default)]
    pub default: Option<Sp<Platform>>,
    /// Network OS of the compute leaves (`nvue`, `sonic`, `frr`, `eos`); default: `default`.
    #[serde(default)]
    pub leaf: Option<Sp<Platform>>,
    /// Network OS of the compute spines; default `default`.
    #[serde(default)]
    pub spine: Option<Sp<Platform>>,
    /// Network OS of the compute cores; default `default`.
    #[serde(default)]
    pub core: Option<Sp<Platform>>,
    /// Storage leaves and spines.
    #[serde(default)]
    pub storage: Option<Sp<Platform>>,
    /// In-band leaves and spines.
    #[serde(default)]
    pub inband: Option<Sp<Platform>>,
    /// OOB switches and the OOB gateway; default: the model's own OS (not `default`).
    #[serde(default)]
    pub oob: Option<Sp<Platform>>,
}

impl ClusterSpec {
    /// Where the spec picks the model of a role's switches (`None` for a default model).
    pub fn model_span(&self, role: crate::model::Role) -> Option<crate::diag::Span> {
        use crate::model::Role;
        let storage = self.storage.as_ref();
        let inband = self.inband.as_ref();
        let access = |a: Option<&AccessSwitchSpec>| a.and_then(|s| s.model.span);
        let spine = |a: Option<&AccessSpineSpec>| a.and_then(|s| s.model.span);
        match role {
            Role::Leaf => self.compute.leaf.model.span,
            Role::Spine => self.compute.spine.model.span,
            Role::Core => self.compute.core.as_ref().and_then(|c| c.model.span),
            Role::StorageLeaf => access(storage.map(|s| &s.leaf)),
            Role::StorageSpine => spine(storage.and_then(|s| s.spine.as_ref())),
            Role::StorageCore => access(storage.and_then(|s| s.core.as_ref())),
            Role::InbandLeaf => access(inband.and_then(|i| i.leaf.as_ref())),
            Role::InbandSpine => spine(inband.and_then(|i| i.spine.as_ref())),
            Role::InbandCore => access(inband.and_then(|i| i.core.as_ref())),
            Role::OobLeaf | Role::OobCore => self.oob.model.span,
            Role::OobGateway => self
                .oob
                .gateway
                .model
                .as_ref()
                .and_then(|m| m.span)
                .or(self.oob.model.span),
            Role::Node | Role::Appliance | Role::NvlinkSwitchTray | Role::PowerShelf => None,
        }
    }
}

impl PlatformSpec {
    /// The spec's choice for a switch role (its own key, else `default`).
    pub fn for_role(&self, role: crate::model::Role) -> Option<&Sp<Platform>> {
        use crate::model::Role;
        let own = match role {
            Role::Leaf => self.leaf.as_ref(),
            Role::Spine => self.spine.as_ref(),
            Role::Core => self.core.as_ref(),
            Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => self.storage.as_ref(),
            Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => self.inband.as_ref(),
            Role::OobLeaf | Role::OobCore | Role::OobGateway => self.oob.as_ref(),
            Role::Node | Role::Appliance | Role::NvlinkSwitchTray | Role::PowerShelf => None,
        };
        own.or(self.default.as_ref())
    }
}

/// Address pools (IPv4 unless the key says `_v6`). Every allocation is an offset computed from a
/// device's or port's identity, so growing the cluster never renumbers what exists.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct AddressingSpec {
    /// Switch loopbacks (/32 each; router-id and BGP source).
    #[serde(default = "super::defaults::loopbacks")]
    pub loopbacks: Sp<String>,
    /// IPv6 loopbacks (/128 each), when the underlay carries IPv6 too.
    #[serde(default)]
    pub loopbacks_v6: Option<Sp<String>>,
    /// Leaf-spine and spine-core links: `unnumbered` (BGP over IPv6 link-local, RFC 5549; no IPv4
    /// on fabric links) or a pool carved into /31s.
    #[serde(default = "super::defaults::fabric_links")]
    pub fabric_links: Sp<String>,
    /// IPv6 /127s on fabric links (numbered IPv6 sessions are not used; addresses only).
    #[serde(default)]
    pub fabric_links_v6: Option<Sp<String>>,
    /// VXLAN tunnel endpoints of the leaves (/32 each); needed once tenants use EVPN.
    #[serde(default)]
    pub vteps: Option<Sp<String>>,
    /// GPU NIC ports: a routed /31 per NIC port, one aggregate block per leaf.
    #[serde(default = "super::defaults::gpu_pool")]
    pub gpu: Sp<String>,
    /// IPv6 pool of the GPU NIC ports (a /127 per port), when the GPU network is dual-stack.
    #[serde(default)]
    pub gpu_v6: Option<Sp<String>>,
    /// Storage NIC ports: a routed /31 per port, one aggregate block per storage leaf.
    #[serde(default = "super::defaults::storage_pool")]
    pub storage: Sp<String>,
    /// In-band NIC ports: a routed /31 per port, one aggregate block per in-band leaf.
    #[serde(default = "super::defaults::inband_pool")]
    pub inband: Sp<String>,
    /// Management addresses: one subnet per SU (its leaves, OOB switches and BMCs) and one per
    /// central role (spines, cores, storage, in-band, fabric managers).
    #[serde(default = "super::defaults::oob_pool")]
    pub oob: Sp<String>,
    /// Prefix length of each management subnet.
    #[serde(default = "super::defaults::oob_subnet")]
    pub oob_subnet: Sp<u8>,
}

impl Default for AddressingSpec {
    fn default() -> Self {
        Self {
            loopbacks: super::defaults::loopbacks(),
            loopbacks_v6: None,
            fabric_links: super::defaults::fabric_links(),
            fabric_links_v6: None,
            vteps: None,
            gpu: super::defaults::gpu_pool(),
            gpu_v6: None,
            storage: super::defaults::storage_pool(),
            inband: super::defaults::inband_pool(),
            oob: super::defaults::oob_pool(),
            oob_subnet: super::defaults::oob_subnet(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AsnScheme {
    /// RFC 6996 4-byte private range 4200000000–4294967294.
    #[default]
    #[serde(rename = "private-4byte")]
    Private4Byte,
    /// RFC 6996 2-byte private range 64512–65534 (1023 ASNs).
    #[serde(rename = "private-2byte")]
    Private2Byte,
}

/// Graceful restart (RFC 4724) on the fabric sessions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GracefulRestart {
    /// Keep a restarting peer's routes while it comes back, never ask peers to keep ours: the
    /// ECMP fabric routes around a restarting switch, and a switch whose forwarding plane may not
    /// survive a control-plane restart must not have its stale routes kept (Cumulus default).
    #[default]
    HelperOnly,
    /// Restarting and helper: for switches whose forwarding plane keeps forwarding while bgpd
    /// restarts (preserve-fw-state).
    Full,
    Disabled,
}

/// What a session does when its peer sends more prefixes than the plan allows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MaxPrefixAction {
    /// Tear the session down and retry after `restart_minutes`: a leaking switch is cut off,
    /// the rest of the fabric is protected.
    #[default]
    Restart,
    /// Only log.
    WarningOnly,
}

/// Maximum-prefix on every fabric session, sized from the plan (see `intent/bgp.rs`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct MaxPrefixSpec {
    /// Limit = the prefixes the fabric carries at full build-out × (100 + margin) %.
    #[serde(default = "super::defaults::max_prefix_margin")]
    pub margin_percent: Sp<u32>,
    #[serde(default)]
    pub action: MaxPrefixAction,
    /// Minutes before a session torn down by `action: restart` comes back; default 5.
    #[serde(default = "super::defaults::max_prefix_restart")]
    pub restart_minutes: Sp<u32>,
}

impl Default for MaxPrefixSpec {
    fn default() -> Self {
        Self {
            margin_percent: super::defaults::max_prefix_margin(),
            action: MaxPrefixAction::default(),
            restart_minutes: super::defaults::max_prefix_restart(),
        }
    }
}

/// The eBGP underlay (RFC 7938): one ASN per leaf, one per spine group, one for the cores.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct BgpSpec {
    /// `private-4byte` (RFC 6996, 4200000000–4294967294, default) or `private-2byte` (64512–65534).
    #[serde(default)]
    pub asn_scheme: Sp<AsnScheme>,
    /// Give the leaves of every SU the same ASNs (RFC 7938 §5.2.2) and accept them back with
    /// allowas-in; saves ASNs in large fabrics.
    #[serde(default)]
    pub reuse_leaf_asns: Sp<bool>,
    /// BFD on every underlay session.
    #[serde(default = "super::defaults::yes")]
    pub bfd: bool,
    /// BFD transmit and receive interval in milliseconds; default 300.
    #[serde(default = "super::defaults::bfd_interval")]
    pub bfd_interval_ms: Sp<u32>,
    /// Missed BFD packets before a session is down; default 3.
    #[serde(default = "super::defaults::bfd_multiplier")]
    pub bfd_multiplier: Sp<u32>,
    /// Peers outside the fabric (border routers, firewalls): checked against the fabric's ASNs.
    #[serde(default)]
    pub external_peers: Vec<ExternalPeer>,
    #[serde(default)]
    pub graceful_restart: Sp<GracefulRestart>,
    #[serde(default)]
    pub max_prefix: MaxPrefixSpec,
    /// Name of the environment variable that holds the fabric sessions' TCP-MD5 password
    /// (RFC 2385). The configs carry `${NAME}`; `railyard push` fills it in. Never the password.
    #[serde(default)]
    pub auth_env: Option<Sp<EnvName>>,
    /// GTSM (RFC 5082): accept fabric sessions only from directly connected peers (TTL 255).
    /// Both ends must run it, so it is off by default.
    #[serde(default)]
    pub gtsm: Sp<bool>,
}

impl Default for BgpSpec {
    fn default() -> Self {
        Self {
            asn_scheme: Sp::default(),
            reuse_leaf_asns: Sp::default(),
            bfd: true,
            bfd_interval_ms: super::defaults::bfd_interval(),
            bfd_multiplier: super::defaults::bfd_multiplier(),
            external_peers: Vec::new(),
            graceful_restart: Sp::default(),
            max_prefix: MaxPrefixSpec::default(),
            auth_env: None,
            gtsm: Sp::default(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ExternalPeer {
    /// The peer's name, as the configs' descriptions show it.
    pub name: Name,
    /// The peer's ASN: must not be one the fabric uses.
    pub asn: Sp<u64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RoceMode {
    /// PFC on the RoCE priority plus ECN (the NVIDIA default).
    #[default]
    Lossless,
    /// ECN only, no PFC.
    Lossy,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Toggle {
    /// On where the platform, ASIC and port speed support it.
    #[default]
    Auto,
    Enabled,
    Disabled,
}

/// RoCEv2 QoS of the Ethernet compute fabric (NVIDIA Cumulus Linux RoCE documentation), and the fabric MTU.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct RoceSpec {
    /// `lossless` (PFC on the RoCE priority plus ECN, NVIDIA's default) or `lossy` (ECN only).
    #[serde(default)]
    pub mode: RoceMode,
    /// DSCP of RoCE data (26 = AF31).
    #[serde(default = "super::defaults::roce_dscp")]
    pub dscp: Sp<u8>,
    /// Switch priority (and traffic class) of RoCE data; PFC runs on it in lossless mode.
    #[serde(default = "super::defaults::roce_priority")]
    pub priority: Sp<u8>,
    /// DSCP of congestion notification packets (48 = CS6).
    #[serde(default = "super::defaults::cnp_dscp")]
    pub cnp_dscp: Sp<u8>,
    /// Strict priority of CNPs.
    #[serde(default = "super::defaults::cnp_priority")]
    pub cnp_priority: Sp<u8>,
    /// ECN marking starts at this queue depth (bytes).
    #[serde(default = "super::defaults::ecn_min")]
    pub ecn_min_bytes: Sp<u32>,
    /// ECN marks with `ecn_probability` percent at this depth (bytes).
    #[serde(default = "super::defaults::ecn_max")]
    pub ecn_max_bytes: Sp<u32>,
    /// ECN marking probability at `ecn_max_bytes`, in percent (1–100).
    #[serde(default = "super::defaults::ecn_probability")]
    pub ecn_probability: Sp<u8>,
    /// DWRR weight (percent) of the RoCE class; the default class gets the rest.
    #[serde(default = "super::defaults::roce_weight")]
    pub roce_weight: Sp<u8>,
    /// PFC watchdog on lossless ports.
    #[serde(default = "super::defaults::yes")]
    pub pfc_watchdog: bool,
    /// PFC watchdog: how long a queue may stay paused before it is declared stuck, ms (100–5000).
    #[serde(default = "super::defaults::pfcwd_ms")]
    pub pfc_watchdog_detection_ms: Sp<u32>,
    /// PFC watchdog: how long a stuck queue drops before it is restored, ms (100–60000).
    #[serde(default = "super::defaults::pfcwd_ms")]
    pub pfc_watchdog_restoration_ms: Sp<u32>,
    /// Switch MTU of fabric and GPU ports.
    #[serde(default = "super::defaults::mtu")]
    pub mtu: Sp<u32>,
    /// MTU of the nodes' compute NICs.
    #[serde(default = "super::defaults::host_mtu")]
    pub host_mtu: Sp<u32>,
    /// Adaptive routing on fabric-facing routed ports (Spectrum-4, NVUE, 200G/400G).
    #[serde(default)]
    pub adaptive_routing: Sp<Toggle>,
}

impl Default for RoceSpec {
    fn default() -> Self {
        Self {
            mode: RoceMode::default(),
            dscp: super::defaults::roce_dscp(),
            priority: super::defaults::roce_priority(),
            cnp_dscp: super::defaults::cnp_dscp(),
            cnp_priority: super::defaults::cnp_priority(),
            ecn_min_bytes: super::defaults::ecn_min(),
            ecn_max_bytes: super::defaults::ecn_max(),
            ecn_probability: super::defaults::ecn_probability(),
            roce_weight: super::defaults::roce_weight(),
            pfc_watchdog: true,
            pfc_watchdog_detection_ms: super::defaults::pfcwd_ms(),
            pfc_watchdog_restoration_ms: super::defaults::pfcwd_ms(),
            mtu: super::defaults::mtu(),
            host_mtu: super::defaults::host_mtu(),
            adaptive_routing: Sp::default(),
        }
    }
}

/// Management-plane services every switch is pointed at. No secrets: SNMP communities and users
/// are supplied at push time from the environment, never from the spec.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ServicesSpec {
    #[serde(default)]
    pub ntp: Vec<Sp<Host>>,
    #[serde(default)]
    pub syslog: Vec<Sp<Host>>,
    /// Name servers, by address.
    #[serde(default)]
    pub dns: Vec<Sp<std::net::IpAddr>>,
    /// SNMP trap receivers.
    #[serde(default)]
    pub snmp_traps: Vec<Sp<Host>>,
    /// Domain name appended to device names.
    #[serde(default)]
    pub domain: Option<DomainName>,
}

/// Scheduler topology: label keys for Kubernetes, names for Slurm switches.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct SchedulerSpec {
    /// Prefix of the Kubernetes node-label keys (`<prefix>/spine-group`, `<prefix>/su`).
    #[serde(default = "super::defaults::label_prefix")]
    pub label_prefix: Sp<LabelPrefix>,
}

impl Default for SchedulerSpec {
    fn default() -> Self {
        Self {
            label_prefix: super::defaults::label_prefix(),
        }
    }
}

/// The report and workbook: one page and one workbook while the fabric is small, an index and
/// one page and workbook per pod above a size (a page holding a whole 16k-GPU fabric is 12.6 MB
/// and needs 4 s in Chromium to a first paint).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ReportSpec {
    /// Above this many GPUs, `report.html` is an index linking `report/<pod>.html` and
    /// `cabling.xlsx` a fabric summary beside `workbooks/<pod>.xlsx`; default 8192.
    #[serde(default = "super::defaults::per_pod_above_gpus")]
    pub per_pod_above_gpus: u64,
}

impl Default for ReportSpec {
    fn default() -> Self {
        Self {
            per_pod_above_gpus: super::defaults::per_pod_above_gpus(),
        }
    }
}

/// The GPU nodes' side of the compute fabric (NVIDIA MLNX_OFED/DOCA QoS documentation; NCCL environment variable documentation). The NIC QoS values default to
/// the fabric's `roce` settings; an override describes NICs that really are set differently, and
/// railyard reports every disagreement with the switches instead of silently falling back to a
/// lossy class.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct HostsSpec {
    /// DSCP the NICs mark RoCE data with; default `roce.dscp`.
    #[serde(default)]
    pub nic_roce_dscp: Option<Sp<u8>>,
    /// Priority the NICs map RoCE data to; default `roce.priority`.
    #[serde(default)]
    pub nic_roce_priority: Option<Sp<u8>>,
    /// Priorities with PFC on the NICs; default the switches' (`roce.priority` when lossless).
    #[serde(default)]
    pub nic_pfc_priorities: Option<Sp<Vec<u8>>>,
    /// MTU of the compute NICs; default `roce.host_mtu`.
    #[serde(default)]
    pub nic_mtu: Option<Sp<u32>>,
    /// `NCCL_IB_GID_INDEX` on RoCE: 3 is the RoCEv2 IPv4 entry on ConnectX; -1 lets NCCL ≥ 2.21
    /// pick the RoCEv2 GID itself.
    #[serde(default = "super::defaults::gid_index")]
    pub gid_index: Sp<i32>,
    /// `NCCL_SOCKET_IFNAME`: the interfaces NCCL bootstraps over (usually the in-band one, e.g.
    /// `=bond0`).
    #[serde(default = "super::defaults::socket_ifname")]
    pub socket_ifname: Sp<IfnameList>,
    /// Where the nodes install `nccl-topo.xml` (`NCCL_TOPO_FILE`).
    #[serde(default = "super::defaults::nccl_topo_file")]
    pub nccl_topo_file: Sp<NodePath>,
    /// Write explicit rail/plane ids into `nccl-topo.xml` and `NCCL_IB_HCA`. NCCL 2.30.7 and
    /// later read them (NVIDIA/nccl v2.30.7-1, `parseStringList`, `ncclTopoAddNet`); earlier
    /// releases ignore them. Turn this off to leave rails to NCCL (it then pairs NICs by GUID and
    /// port).
    #[serde(default = "super::defaults::yes")]
    pub nccl_rails: bool,
}

impl Default for HostsSpec {
    fn default() -> Self {
        Self {
            nic_roce_dscp: None,
            nic_roce_priority: None,
            nic_pfc_priorities: None,
            nic_mtu: None,
            gid_index: super::defaults::gid_index(),
            socket_ifname: super::defaults::socket_ifname(),
            nccl_topo_file: super::defaults::nccl_topo_file(),
            nccl_rails: true,
        }
    }
}
