//! The lab's GPU nodes: a namespace each, its NIC ports addressed and routed as the host plan
//! says (rails), or as the address plan says (storage and in-band ports).

use std::collections::BTreeMap;
use std::net::IpAddr;

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use super::cables::{Cable, CableEnd};
use super::names::device_ns;
use super::scale::Selection;
use crate::design::Design;
use crate::intent::host::{self, HostIntents};
use crate::model::Role;

/// A GPU node: one namespace with its NIC ports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub name: String,
    pub ns: String,
    pub tenant: Option<String>,
    pub ports: Vec<HostPort>,
    /// The BMC's address in the address plan (the lab does not model the management network;
    /// a topology export does).
    #[serde(default)]
    pub mgmt: Option<IpNet>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostPort {
    /// Kernel interface name (the cabling plan's port name unless mapped).
    pub ifname: String,
    /// The cabling plan's port name.
    pub port: String,
    pub network: String,
    pub rail: Option<u32>,
    pub plane: Option<u32>,
    pub address: Option<IpNet>,
    pub gateway: Option<IpAddr>,
    pub address_v6: Option<IpNet>,
    pub gateway_v6: Option<IpAddr>,
    /// Rail routing as in the host plan's netplan: the GPU supernet via this port's leaf, in a
    /// table of its own selected by the port's source address.
    pub routes: Vec<HostRoute>,
    pub mtu: u32,
    pub leaf: String,
    pub leaf_port: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostRoute {
    pub to: IpNet,
    pub via: IpAddr,
    pub table: u32,
    /// Source address of the rule selecting the table.
    pub from: IpAddr,
}

/// The storage and in-band pools, the destinations of a node's routes on those networks.
fn access_pools(i: &Design) -> BTreeMap<String, IpNet> {
    let a = &i.spec.addressing;
    [("storage", &a.storage), ("inband", &a.inband)]
        .into_iter()
        .filter_map(|(n, p)| Some((n.to_string(), p.value.trim().parse().ok()?)))
        .collect()
}

/// Table of a node's storage or in-band port (the `k`-th such port): beside the rail tables.
const ACCESS_TABLE: u32 = 200;

/// Every kept GPU node, in name order, with its ports in cable order.
pub(super) fn hosts(i: &Design, sel: &Selection, cables: &[Cable]) -> Vec<Host> {
    let pools = access_pools(i);
    let owner = i.intents.tenants.tenant_of_node();
    let mut out = Vec::new();
    for d in i.fabric.devices().filter(|d| d.role == Role::Node) {
        if !sel.keep.contains(&d.name) {
            continue;
        }
        let planned = i.intents.hosts.nodes.get(&d.name);
        let mut ports = Vec::new();
        let mut access_ports = 0;
        for c in cables {
            let (me, peer) = if c.a.device == d.name {
                (&c.a, &c.b)
            } else if c.b.device == d.name {
                (&c.b, &c.a)
            } else {
                continue;
            };
            let hp = planned.and_then(|p| p.ports.iter().find(|x| x.port == me.port));
            let network = i
                .intents
                .devices
                .get(&peer.device)
                .map_or("compute", |x| x.network.as_str())
                .to_string();
            let mut routes = hp
                .map(|hp| rail_routes(&i.intents.hosts, hp))
                .unwrap_or_default();
            // Compute ports from the host plan; storage and in-band ports from the address plan,
            // each with its network's pool via its leaf in a table of its own (as the rails), so
            // replies leave by the port the request came in on.
            let (address, gateway) = match hp {
                Some(hp) => (hp.address, hp.gateway),
                None => (me.address, peer.address.map(|a| a.addr())),
            };
            if hp.is_none()
                && let (Some(own), Some(via), Some(to)) = (address, gateway, pools.get(&network))
            {
                access_ports += 1;
                routes.push(HostRoute {
                    to: *to,
                    via,
                    table: ACCESS_TABLE + access_ports,
                    from: own.addr(),
                });
            }
            ports.push(host_port(me, peer, hp, network, (address, gateway), routes));
        }
        out.push(Host {
            name: d.name.clone(),
            ns: device_ns(&d.name),
            tenant: owner.get(d.name.as_str()).map(|t| t.name.clone()),
            ports,
            mgmt: i.allocation.devices.get(&d.name).and_then(|a| a.mgmt),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A rail port's routes: the GPU supernet (v4 and v6) via its leaf, in the rail's table.
fn rail_routes(h: &HostIntents, hp: &host::HostPort) -> Vec<HostRoute> {
    let table = 100 + hp.rail.saturating_sub(1) * h.planes.max(1) + hp.plane.unwrap_or(1);
    [
        (hp.address, hp.gateway, h.gpu_pool),
        (hp.address_v6, hp.gateway_v6, h.gpu_pool_v6),
    ]
    .into_iter()
    .filter_map(|(own, gw, pool)| {
        Some(HostRoute {
            to: pool?,
            via: gw?,
            table,
            from: own?.addr(),
        })
    })
    .collect()
}

fn host_port(
    me: &CableEnd,
    peer: &CableEnd,
    hp: Option<&host::HostPort>,
    network: String,
    (address, gateway): (Option<IpNet>, Option<IpAddr>),
    routes: Vec<HostRoute>,
) -> HostPort {
    HostPort {
        ifname: me.ifname.clone(),
        port: me.port.clone(),
        network,
        rail: hp.map(|x| x.rail),
        plane: hp.and_then(|x| x.plane),
        address,
        gateway,
        address_v6: hp.and_then(|x| x.address_v6),
        gateway_v6: hp.and_then(|x| x.gateway_v6),
        routes,
        mtu: me.mtu,
        leaf: peer.device.clone(),
        leaf_port: peer.port.clone(),
    }
}
