//! The lab's switches: one namespace and one FRR instance each, its tenant VRFs each a
//! namespace of its own (FRR's namespace-as-VRF backend).

use std::net::{IpAddr, Ipv4Addr};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use super::cables::PortsInLab;
use super::daemons::daemons_of;
use super::names::{device_ns, vrf_ns};
use super::scale::Selection;
use crate::design::Design;
use crate::model::Role;

/// A switch: one namespace, one FRR instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Router {
    pub name: String,
    pub role: Role,
    pub ns: String,
    /// FRR daemons the config needs (`zebra`, `bgpd`, …), in start order.
    pub daemons: Vec<String>,
    pub asn: Option<u64>,
    pub loopback: Option<Ipv4Addr>,
    /// Tenant VRFs, each a namespace (FRR's namespace-as-VRF backend).
    pub vrfs: Vec<VrfNs>,
    /// The management port's address in the address plan (the lab does not model the
    /// management network; a topology export does).
    #[serde(default)]
    pub mgmt: Option<IpNet>,
}

/// A tenant VRF on one leaf.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VrfNs {
    pub vrf: String,
    pub ns: String,
    pub l3vni: u32,
    /// VXLAN source address (the leaf's VTEP); `None` when the switch runs no EVPN, which
    /// makes the VRF local to it.
    pub vtep: Option<Ipv4Addr>,
    /// The leaf's ports in this VRF that exist in the lab.
    pub interfaces: Vec<String>,
}

fn v4(n: Option<IpNet>) -> Option<Ipv4Addr> {
    match n?.addr() {
        IpAddr::V4(a) => Some(a),
        IpAddr::V6(_) => None,
    }
}

/// Every kept switch with an intent, in name order.
pub(super) fn routers(i: &Design, sel: &Selection, ports_in_lab: &PortsInLab) -> Vec<Router> {
    i.intents
        .devices
        .iter()
        .filter(|(name, _)| sel.keep.contains(*name))
        .map(|(name, d)| {
            let present = ports_in_lab.get(name);
            let vtep = d.evpn.as_ref().and_then(|e| v4(e.vtep));
            let vrfs = d
                .vrfs
                .iter()
                .map(|v| VrfNs {
                    vrf: v.name.clone(),
                    ns: vrf_ns(name, &v.name),
                    l3vni: v.l3vni,
                    vtep,
                    interfaces: v
                        .interfaces
                        .iter()
                        .filter(|i| present.is_some_and(|p| p.contains(*i)))
                        .cloned()
                        .collect(),
                })
                .collect();
            Router {
                name: name.clone(),
                role: d.role,
                ns: device_ns(name),
                daemons: daemons_of(d),
                asn: d.bgp.as_ref().map(|b| b.asn),
                loopback: v4(d.loopback.ipv4),
                vrfs,
                mgmt: i.allocation.devices.get(name).and_then(|a| a.mgmt),
            }
        })
        .collect()
}
