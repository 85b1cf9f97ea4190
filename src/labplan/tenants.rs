//! What the lab's tenants must show: per EVPN leaf and tenant VRF the remote host prefixes it
//! must and must not hold, the groups of the reachability matrix, and the shared services.

use std::collections::BTreeSet;

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use super::cables::PortsInLab;
use super::hosts::Host;
use super::routers::Router;
use crate::intent::{Intents, InterfaceKind};
use crate::model::Network;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VrfRoutes {
    pub leaf: String,
    pub vrf: String,
    /// Host prefixes of the same tenant behind other leaves.
    pub expect: Vec<String>,
    /// Host prefixes of other tenants (and of the default VRF) behind other leaves.
    pub forbid: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Tenant name, or `(no tenant)` for nodes in the default VRF.
    pub name: String,
    pub tenant: Option<String>,
    pub nodes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Service {
    pub name: String,
    pub route_target: String,
    pub consumers: Vec<String>,
    /// Whether any rendered VRF exports the service's RT (i.e. the service exists somewhere).
    pub instantiated: bool,
}

/// The name of the group of nodes in no tenant.
pub const NO_TENANT: &str = "(no tenant)";

/// Whether a router takes part in EVPN (has a VTEP and BGP): only those exchange tenant routes.
fn evpn_leaf(intents: &Intents, r: &Router) -> bool {
    r.asn.is_some()
        && intents
            .devices
            .get(&r.name)
            .and_then(|d| d.evpn.as_ref())
            .is_some_and(|e| e.vtep.is_some())
}

/// (leaf, network, vrf or None, prefix) of every announced host aggregate in the lab: each
/// VRF's aggregates (and the default VRF's) that cover a host port present in the lab.
fn host_prefixes<'a>(
    intents: &'a Intents,
    routers: &'a [Router],
    ports_in_lab: &PortsInLab,
) -> Vec<(&'a str, Network, Option<&'a str>, String)> {
    let mut out = Vec::new();
    for r in routers.iter().filter(|r| evpn_leaf(intents, r)) {
        let Some(d) = intents.devices.get(&r.name) else {
            continue;
        };
        let present = ports_in_lab.get(&r.name);
        let ports: Vec<(Option<&str>, IpNet)> = d
            .interfaces
            .iter()
            .filter(|i| {
                i.kind == InterfaceKind::Host && present.is_some_and(|p| p.contains(&i.name))
            })
            .filter_map(|i| Some((i.vrf.as_deref(), i.ipv4?)))
            .collect();
        let default = d.bgp.iter().flat_map(|b| &b.aggregates).map(|a| (None, a));
        let tenant = d
            .vrfs
            .iter()
            .flat_map(|v| v.aggregates.iter().map(|a| (Some(v.name.as_str()), a)));
        for (vrf, agg) in default.chain(tenant) {
            if agg.addr().is_ipv4()
                && ports
                    .iter()
                    .any(|(pv, a)| *pv == vrf && agg.contains(&a.addr()))
            {
                out.push((r.name.as_str(), d.network, vrf, agg.to_string()));
            }
        }
    }
    out
}

/// Per EVPN leaf and VRF: the host prefixes other EVPN leaves of the same network announce,
/// split into the VRF's own tenant and everything else (other tenants and the default VRF).
pub(super) fn tenant_routes(
    intents: &Intents,
    routers: &[Router],
    ports_in_lab: &PortsInLab,
) -> Vec<VrfRoutes> {
    let host_prefixes = host_prefixes(intents, routers, ports_in_lab);
    let mut out = Vec::new();
    for r in routers.iter().filter(|r| evpn_leaf(intents, r)) {
        let Some(network) = intents.devices.get(&r.name).map(|d| d.network) else {
            continue;
        };
        for v in &r.vrfs {
            let mut expect = Vec::new();
            let mut forbid = Vec::new();
            for (leaf, net, vrf, p) in &host_prefixes {
                if *leaf == r.name || *net != network {
                    continue;
                }
                if *vrf == Some(v.vrf.as_str()) {
                    expect.push(p.clone());
                } else {
                    forbid.push(p.clone());
                }
            }
            out.push(VrfRoutes {
                leaf: r.name.clone(),
                vrf: v.vrf.clone(),
                expect,
                forbid,
            });
        }
    }
    out
}

/// The groups of the reachability matrix (each tenant's kept nodes, then the nodes in no
/// tenant) and the shared services; both empty when the spec has no tenants.
pub(super) fn groups(intents: &Intents, hosts: &[Host]) -> (Vec<Group>, Vec<Service>) {
    let plan = &intents.tenants;
    if plan.tenants.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut groups: Vec<Group> = plan
        .tenants
        .iter()
        .map(|t| Group {
            name: t.name.clone(),
            tenant: Some(t.name.clone()),
            nodes: hosts
                .iter()
                .filter(|h| h.tenant.as_deref() == Some(t.name.as_str()))
                .map(|h| h.name.clone())
                .collect(),
        })
        .collect();
    let rest: Vec<String> = hosts
        .iter()
        .filter(|h| h.tenant.is_none())
        .map(|h| h.name.clone())
        .collect();
    if !rest.is_empty() {
        groups.push(Group {
            name: NO_TENANT.into(),
            tenant: None,
            nodes: rest,
        });
    }
    let exports: BTreeSet<&str> = intents
        .devices
        .values()
        .flat_map(|d| {
            d.vrfs
                .iter()
                .flat_map(|v| v.export.iter().map(String::as_str))
        })
        .collect();
    let services = plan
        .shared_services
        .iter()
        .map(|s| Service {
            name: s.name.clone(),
            route_target: s.route_target.clone(),
            consumers: s.consumers.clone(),
            instantiated: exports.contains(s.route_target.as_str()),
        })
        .collect();
    (groups, services)
}
