//! Tenants as the operator writes them: who they are (a stable `id`), which nodes they get, and
//! the only leaks allowed between them (declared shared services).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::yaml::Sp;
use crate::model::ident::{Name, RouteTarget};

/// A customer or research project: a VRF with its own L3VNI on Ethernet, a partition key on
/// InfiniBand.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct TenantSpec {
    /// VRF name: letters, digits, `-`, `_`; at most 15 characters (a Linux interface name).
    pub name: Sp<Name>,
    /// Stable identity (1–4000): VNI, VLAN and PKey are offsets from it, so adding or removing
    /// another tenant never changes this one.
    pub id: Sp<u32>,
    pub nodes: NodeSelection,
    /// Give the tenant a VRF on the storage fabric too.
    #[serde(default)]
    pub storage: bool,
    /// Give the tenant a VRF on the in-band fabric too.
    #[serde(default)]
    pub inband: bool,
    /// Explicit L3VNI (default `tenancy.l3vni_base + id`).
    #[serde(default)]
    pub vni: Option<Sp<u32>>,
    /// Explicit VLAN for the L3VNI on the leaves (default `tenancy.vlan_base + id`).
    #[serde(default)]
    pub vlan: Option<Sp<u32>>,
    /// Explicit route target `ASN:value` (default `tenancy.rt_asn:<L3VNI>`).
    #[serde(default)]
    pub route_target: Option<Sp<RouteTarget>>,
    /// Shared services this tenant may reach (the only allowed leaks).
    #[serde(default)]
    pub shared_services: Vec<Sp<Name>>,
}

/// Which nodes a tenant gets. Exactly one key.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct NodeSelection {
    /// Whole SUs (1-based).
    #[serde(default)]
    pub sus: Option<Sp<Vec<u32>>>,
    /// Global node numbers, inclusive: `[1, 16]` is the first 16 node positions.
    #[serde(default)]
    pub range: Option<Sp<Vec<u32>>>,
    /// Node names.
    #[serde(default)]
    pub names: Option<Sp<Vec<Name>>>,
    /// A GPU count, placed on whole free nodes, SU by SU (rail- and SU-compact). Placement
    /// follows tenant ids: pin the result with `names` once a tenant is live.
    #[serde(default)]
    pub gpus: Option<Sp<u32>>,
}

/// A service every consuming tenant may reach (DNS, a storage gateway, a license server).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct SharedServiceSpec {
    pub name: Sp<Name>,
    /// Stable identity, in the same space as tenant ids.
    pub id: Sp<u32>,
    /// Prefixes the service announces to its consumers.
    #[serde(default)]
    pub prefixes: Vec<Sp<String>>,
}

/// Global tenancy knobs.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
// Unknown keys are reported by `keys.rs` (all at once), so the typed parse tolerates them.
#[schemars(deny_unknown_fields)]
pub struct TenancySpec {
    /// L3VNI = base + tenant id.
    #[serde(default = "super::defaults::l3vni_base")]
    pub l3vni_base: Sp<u32>,
    /// VLAN of the L3VNI on each leaf = base + tenant id (locally significant).
    #[serde(default = "super::defaults::vlan_base")]
    pub vlan_base: Sp<u32>,
    /// ASN part of every route target (a 2-byte ASN, so the value can carry a 24-bit VNI; one
    /// fixed RT per tenant works across a fabric where every leaf has its own ASN).
    #[serde(default = "super::defaults::rt_asn")]
    pub rt_asn: Sp<u32>,
    /// InfiniBand partition key = base + tenant id (15 bits; 0x7fff is the default partition).
    #[serde(default = "super::defaults::pkey_base")]
    pub pkey_base: Sp<u32>,
}

impl Default for TenancySpec {
    fn default() -> Self {
        Self {
            l3vni_base: super::defaults::l3vni_base(),
            vlan_base: super::defaults::vlan_base(),
            rt_asn: super::defaults::rt_asn(),
            pkey_base: super::defaults::pkey_base(),
        }
    }
}
