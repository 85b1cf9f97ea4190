//! Shared vocabulary used by every stage: speeds, roles, networks, tiers, media.

mod guid;
pub mod ident;
mod platform;
mod signal;
mod speed;

pub use guid::{Guid, PortGuids};
pub use platform::{Delivery, Platform, PlatformRow, PortNaming, Vendor, adaptive_routing_support};
pub use signal::{
    AssemblyKind, Connector, FibreKind, FibreMedia, Fits, Grade, LaneRate, Signal, Top,
};
pub use speed::Speed;

use serde::{Deserialize, Serialize};

/// Which of the cluster's physically separate networks a device or link belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    Compute,
    Storage,
    Inband,
    Oob,
}

impl Network {
    pub fn as_str(self) -> &'static str {
        match self {
            Network::Compute => "compute",
            Network::Storage => "storage",
            Network::Inband => "inband",
            Network::Oob => "oob",
        }
    }
}

/// The job of a device in the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A GPU server.
    Node,
    /// An attached appliance that is not a GPU node (e.g. UFM fabric manager).
    Appliance,
    Leaf,
    Spine,
    Core,
    StorageLeaf,
    StorageSpine,
    /// Top tier of a 3-tier storage fabric.
    StorageCore,
    InbandLeaf,
    InbandSpine,
    /// Top tier of a 3-tier in-band fabric.
    InbandCore,
    /// OOB access switch of an SU (node BMCs, switch management ports).
    OobLeaf,
    /// OOB switch for the central devices' management ports that do not fit in SU 1.
    OobCore,
    /// The router holding every management subnet's gateway address; the OOB switches uplink to it.
    OobGateway,
    /// An NVLink switch tray of a rack-scale system: in the plan for its management port (the
    /// NVLink cabling inside the rack is the rack's own).
    NvlinkSwitchTray,
    /// A power shelf of a rack-scale system: in the plan for its management port.
    PowerShelf,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Node => "node",
            Role::Appliance => "appliance",
            Role::Leaf => "leaf",
            Role::Spine => "spine",
            Role::Core => "core",
            Role::StorageLeaf => "storage-leaf",
            Role::StorageSpine => "storage-spine",
            Role::StorageCore => "storage-core",
            Role::InbandLeaf => "inband-leaf",
            Role::InbandSpine => "inband-spine",
            Role::InbandCore => "inband-core",
            Role::OobLeaf => "oob-leaf",
            Role::OobCore => "oob-core",
            Role::OobGateway => "oob-gateway",
            Role::NvlinkSwitchTray => "nvlink-switch-tray",
            Role::PowerShelf => "power-shelf",
        }
    }

    /// A switch of one of railyard's networks (configs, ports, uplinks). An NVLink switch tray is
    /// none: its NVLink side is the rack's, its management port a host's.
    pub fn is_switch(self) -> bool {
        !matches!(
            self,
            Role::Node | Role::Appliance | Role::NvlinkSwitchTray | Role::PowerShelf
        )
    }

    /// A component of a rack-scale system's rack other than its compute trays.
    pub fn is_rack_component(self) -> bool {
        matches!(self, Role::NvlinkSwitchTray | Role::PowerShelf)
    }

    /// A switch of the out-of-band management network.
    pub fn is_oob(self) -> bool {
        matches!(self, Role::OobLeaf | Role::OobCore | Role::OobGateway)
    }

    /// The lowest tier of a routed fabric (host ports).
    pub fn is_leaf(self) -> bool {
        matches!(self, Role::Leaf | Role::StorageLeaf | Role::InbandLeaf)
    }
}

/// Where a link sits in its network's hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// Node or appliance port to a leaf.
    NodeLeaf,
    LeafSpine,
    SpineCore,
    /// Between the two leaves of a storage or in-band pair that has no spines.
    LeafLeaf,
    /// A management or BMC port to an OOB switch.
    Mgmt,
    /// An OOB switch to the OOB gateway.
    OobUplink,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::NodeLeaf => "node-leaf",
            Tier::LeafSpine => "leaf-spine",
            Tier::SpineCore => "spine-core",
            Tier::LeafLeaf => "leaf-leaf",
            Tier::Mgmt => "mgmt",
            Tier::OobUplink => "oob-uplink",
        }
    }
}

/// Cable media, spelled as NetBox cable types so the cabling plan imports directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Media {
    /// Passive copper (direct-attach), up to a few metres.
    DacPassive,
    /// Active copper (signal conditioning in the ends), a few metres more than passive.
    Acc,
    /// Active optical cable (optics built into the ends).
    Aoc,
    /// Multimode fibre OM3.
    MmfOm3,
    /// Multimode fibre (MPO-12 to SR4 optics), up to 50 m at 400G.
    MmfOm4,
    /// Single-mode fibre (DR4 optics up to 100 m, FR4 beyond).
    SmfOs2,
    /// Twisted pair for 1G management.
    Cat6,
}

impl Media {
    pub fn as_str(self) -> &'static str {
        match self {
            Media::DacPassive => "dac-passive",
            Media::Acc => "dac-active",
            Media::Aoc => "aoc",
            Media::MmfOm3 => "mmf-om3",
            Media::MmfOm4 => "mmf-om4",
            Media::SmfOs2 => "smf-os2",
            Media::Cat6 => "cat6",
        }
    }
}

/// Physical connector form of a port cage.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    Osfp,
    Qsfp112,
    QsfpDd,
    Qsfp56,
    Qsfp28,
    Sfp28,
    SfpPlus,
    Rj45,
}

impl Form {
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Osfp => "OSFP",
            Form::Qsfp112 => "QSFP112",
            Form::QsfpDd => "QSFP-DD",
            Form::Qsfp56 => "QSFP56",
            Form::Qsfp28 => "QSFP28",
            Form::Sfp28 => "SFP28",
            Form::SfpPlus => "SFP+",
            Form::Rj45 => "RJ45",
        }
    }
}

/// Compute fabric transport.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// RoCEv2 over Ethernet.
    Ethernet,
    Infiniband,
}
