//! The spec as the user wrote it (format version 1). Every default is in `defaults.rs`, never
//! scattered downstream; fields that diagnostics point at keep their source span (`Sp<T>`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::yaml::Sp;
use crate::catalog::Catalog;
use crate::model::{Speed, Transport};

/// A GPU cluster: its scalable units and the networks that join them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Spec format version; 1 is current.
    #[serde(default = "super::defaults::version")]
    pub version: Sp<u32>,
    /// Cluster name, used in file names and the `{cluster}` naming placeholder.
    pub name: Sp<String>,
    /// Site or data-centre name, printed on cabling sheets.
    #[serde(default)]
    pub site: Option<String>,
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
    /// Extra or replacement hardware models.
    #[serde(default)]
    pub catalog: Catalog,
}

/// Scalable units: the repeated building block of nodes and their leaves.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// NIC i of every node in an SU goes to the leaf serving rail i.
    #[default]
    RailOptimized,
    /// All NICs of a node go to its rack's leaf (hyperscaler style).
    TopOfRack,
}

/// The GPU-to-GPU fabric.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct ComputeSpec {
    #[serde(default = "super::defaults::transport")]
    pub transport: Transport,
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
    pub leaf: LeafSpec,
    pub spine: SpineSpec,
    #[serde(default)]
    pub core: Option<CoreSpec>,
    /// Fabric-manager appliances (e.g. UFM) that take a node position's leaf ports.
    #[serde(default)]
    pub fabric_managers: Option<FabricManagerSpec>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct LeafSpec {
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

#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct SpineSpec {
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

#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct CoreSpec {
    pub model: Sp<String>,
    /// Cores per plane; default: the fewest that connect every spine evenly.
    #[serde(default)]
    pub count: Option<Sp<u32>>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct FabricManagerSpec {
    /// Appliances, each with one compute port (on rails 1..count of the position).
    pub count: Sp<u32>,
    /// The SU and slot whose leaf ports they take; that position holds no node.
    pub su: Sp<u32>,
    pub slot: Sp<u32>,
    #[serde(default = "super::defaults::ufm_model")]
    pub model: String,
}

/// A storage or in-band Ethernet fabric: node ports to leaf pairs, leaves to spines.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct AccessSpec {
    /// Ethernet (default) or InfiniBand (e.g. a SuperPOD's IB storage fabric).
    #[serde(default = "super::defaults::transport")]
    pub transport: Transport,
    pub leaf: AccessSwitchSpec,
    /// Spines; needed once there is more than one leaf pair.
    #[serde(default)]
    pub spine: Option<AccessSwitchSpec>,
    /// Node port speed; defaults to the node port's speed.
    #[serde(default)]
    pub port_speed: Option<Sp<Speed>>,
    /// Leaf-spine link speed; defaults to the fastest rate of the leaf.
    #[serde(default)]
    pub uplink_speed: Option<Sp<Speed>>,
    #[serde(default = "super::defaults::ratio")]
    pub oversubscription: Sp<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct AccessSwitchSpec {
    pub model: Sp<String>,
    /// Switch count; default: sized from the node count.
    #[serde(default)]
    pub count: Option<Sp<u32>>,
}

/// In-band management: converged onto the storage fabric, or a fabric of its own.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct InbandSpec {
    /// Carry in-band management on the storage fabric instead of switches of its own.
    #[serde(default)]
    pub converged_with_storage: Sp<bool>,
    /// Leaves of a dedicated in-band fabric (required unless converged).
    #[serde(default)]
    pub leaf: Option<AccessSwitchSpec>,
    #[serde(default)]
    pub spine: Option<AccessSwitchSpec>,
    #[serde(default)]
    pub port_speed: Option<Sp<Speed>>,
    #[serde(default)]
    pub uplink_speed: Option<Sp<Speed>>,
    #[serde(default = "super::defaults::ratio")]
    pub oversubscription: Sp<String>,
}

impl InbandSpec {
    /// The dedicated fabric, when there is one.
    pub fn fabric(&self) -> Option<AccessSpec> {
        let leaf = self.leaf.clone()?;
        Some(AccessSpec {
            transport: Transport::Ethernet,
            leaf,
            spine: self.spine.clone(),
            port_speed: self.port_speed.clone(),
            uplink_speed: self.uplink_speed.clone(),
            oversubscription: self.oversubscription.clone(),
        })
    }
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct OobSpec {
    #[serde(default = "super::defaults::oob_model")]
    pub model: Sp<String>,
    /// OOB switches per SU; default: as many as the SU's BMC and switch management ports need.
    #[serde(default)]
    pub switches_per_su: Option<Sp<u32>>,
}

impl Default for OobSpec {
    fn default() -> Self {
        Self {
            model: super::defaults::oob_model(),
            switches_per_su: None,
        }
    }
}

/// Naming patterns. Placeholders: `{cluster}`, `{su}`, `{slot}`, `{node}`, `{plane}`, `{leaf}`,
/// `{rail}`, `{group}`, `{index}`; `{su:02}` pads to two digits. Defaults in `defaults.rs`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct NamingSpec {
    #[serde(default)]
    pub node: Option<Sp<String>>,
    #[serde(default)]
    pub leaf: Option<Sp<String>>,
    #[serde(default)]
    pub spine: Option<Sp<String>>,
    #[serde(default)]
    pub core: Option<Sp<String>>,
    #[serde(default)]
    pub fabric_manager: Option<Sp<String>>,
    #[serde(default)]
    pub storage_leaf: Option<Sp<String>>,
    #[serde(default)]
    pub storage_spine: Option<Sp<String>>,
    #[serde(default)]
    pub inband_leaf: Option<Sp<String>>,
    #[serde(default)]
    pub inband_spine: Option<Sp<String>>,
    #[serde(default)]
    pub oob: Option<Sp<String>>,
    #[serde(default)]
    pub oob_core: Option<Sp<String>>,
}

/// Rack layout: node racks per SU in a row, the SU's network rack at the row's end, spine and
/// core racks in a network row of their own.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct RackSpec {
    pub nodes_per_rack: Sp<u32>,
    /// Rack width in metres (cable run per rack position).
    #[serde(default = "super::defaults::rack_width")]
    pub rack_width_m: f64,
    /// Distance between rows in metres.
    #[serde(default = "super::defaults::row_pitch")]
    pub row_pitch_m: f64,
    /// Vertical runs and service loops added to every cable, in metres.
    #[serde(default = "super::defaults::slack")]
    pub slack_m: f64,
}

/// Cable lengths by tier when no rack layout is given, in metres.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct CablingSpec {
    #[serde(default = "super::defaults::len_node_leaf")]
    pub node_leaf_m: f64,
    #[serde(default = "super::defaults::len_leaf_spine")]
    pub leaf_spine_m: f64,
    #[serde(default = "super::defaults::len_spine_core")]
    pub spine_core_m: f64,
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
