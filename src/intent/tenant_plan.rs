//! The tenant plan as the renderers see it: `tenants/plan.yaml` is this value serialized, so
//! `render` needs nothing from `tenancy`. Field for field the plan `tenancy` computed (same names,
//! same order, hence the same YAML); a copy rather than a re-export so that the stage order holds:
//! `tenancy` → `intent` → `render`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Network;
use crate::tenancy::{SharedService, Tenant, TenantPlan};

#[derive(Clone, Debug, Default, Serialize)]
pub struct TenantPlanView {
    pub tenants: Vec<TenantView>,
    pub shared_services: Vec<SharedServiceView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TenantView {
    pub name: String,
    pub id: u32,
    pub vrf: String,
    pub l3vni: u32,
    pub vlan: u32,
    pub route_target: String,
    pub import: Vec<String>,
    pub export: Vec<String>,
    pub rd: BTreeMap<String, String>,
    pub nodes: Vec<String>,
    pub ports: BTreeMap<String, Vec<String>>,
    pub networks: Vec<Network>,
    pub shared_services: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pkey: Option<String>,
    pub nic_ports: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SharedServiceView {
    pub name: String,
    pub id: u32,
    pub route_target: String,
    pub import: Vec<String>,
    pub prefixes: Vec<String>,
    pub consumers: Vec<String>,
}

impl From<&Tenant> for TenantView {
    fn from(t: &Tenant) -> Self {
        Self {
            name: t.name.clone(),
            id: t.id,
            vrf: t.vrf.clone(),
            l3vni: t.l3vni,
            vlan: t.vlan,
            route_target: t.route_target.clone(),
            import: t.import.clone(),
            export: t.export.clone(),
            rd: t.rd.clone(),
            nodes: t.nodes.clone(),
            ports: t.ports.clone(),
            networks: t.networks.clone(),
            shared_services: t.shared_services.clone(),
            pkey: t.pkey.clone(),
            nic_ports: t.nic_ports.clone(),
        }
    }
}

impl From<&SharedService> for SharedServiceView {
    fn from(s: &SharedService) -> Self {
        Self {
            name: s.name.clone(),
            id: s.id,
            route_target: s.route_target.clone(),
            import: s.import.clone(),
            prefixes: s.prefixes.clone(),
            consumers: s.consumers.clone(),
        }
    }
}

impl From<&TenantPlan> for TenantPlanView {
    fn from(p: &TenantPlan) -> Self {
        Self {
            tenants: p.tenants.iter().map(TenantView::from).collect(),
            shared_services: p
                .shared_services
                .iter()
                .map(SharedServiceView::from)
                .collect(),
        }
    }
}
