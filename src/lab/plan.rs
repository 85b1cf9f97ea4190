//! What the lab creates and what `verify` expects, as plain data: a pure function of the
//! compiled spec and the files railyard rendered from it.
//!
//! Input: [`Compiled`] (fabric, allocation, intents), the rendered outputs and the
//! [`Selection`] of devices. Output: [`LabPlan`] (namespaces, veth pairs named as the cabling
//! plan's ports, FRR instances, host addresses and routes, tenant VRF namespaces, and the
//! expectations: planned BGP sessions, ECMP widths, tenant routes, tenant groups) and the
//! [`Configs`] to load, taken verbatim from the rendered `configs/<switch>/frr.conf`.
//! Invariants: names and values only; every list in name or cable order; interface names fit
//! the kernel's 15 characters (longer ones are mapped, and the mapping is recorded).

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use super::scale::{ScaleReport, Selection};
use super::{LabError, PREFIX, frr};
use crate::intent::{DeviceIntent, Intents};
use crate::model::{Role, Tier};
use crate::topology::Fabric;
use crate::{Compiled, OutputFile};

/// Router name → its rendered `frr.conf`, byte for byte.
pub type Configs = BTreeMap<String, String>;

/// Router name → its ports that exist in the lab (cabled to a kept device).
type PortsInLab = BTreeMap<String, BTreeSet<String>>;

/// Linux limits interface names to 15 bytes (IFNAMSIZ − 1).
pub const IFNAMSIZ_MAX: usize = 15;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabPlan {
    /// The spec's `name`.
    pub lab: String,
    pub routers: Vec<Router>,
    pub hosts: Vec<Host>,
    /// One veth pair per cable between two kept devices, in cabling-plan order.
    pub cables: Vec<Cable>,
    /// BGP sessions whose both ends are in the lab: each must be Established.
    pub sessions: Vec<Session>,
    /// Sessions configured towards devices `--scale-down` dropped: expected down.
    pub dropped_sessions: Vec<Session>,
    /// Per leaf and remote leaf: the ECMP width expected towards the remote loopback.
    pub ecmp: Vec<EcmpTarget>,
    /// Per leaf and tenant VRF: the remote prefixes it must and must not have.
    pub tenant_routes: Vec<VrfRoutes>,
    /// Tenant groups of the reachability matrix (empty when the spec has no tenants).
    pub groups: Vec<Group>,
    pub shared_services: Vec<Service>,
    /// Interface names mapped to fit the kernel's limit.
    pub renamed: Vec<Renamed>,
    pub scale: ScaleReport,
}

/// A switch: one namespace, one FRR instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Router {
    pub name: String,
    pub role: Role,
    pub ns: String,
    /// FRR daemons the config needs (`zebra`, `bgpd`, …).
    pub daemons: Vec<String>,
    pub asn: Option<u64>,
    pub loopback: Option<Ipv4Addr>,
    /// Tenant VRFs, each a namespace (FRR's namespace-as-VRF backend).
    pub vrfs: Vec<VrfNs>,
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

/// A GPU node: one namespace with its NIC ports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub name: String,
    pub ns: String,
    pub tenant: Option<String>,
    pub ports: Vec<HostPort>,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cable {
    pub id: String,
    pub a: CableEnd,
    pub b: CableEnd,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CableEnd {
    pub device: String,
    /// The cabling plan's port name.
    pub port: String,
    pub ifname: String,
    /// Namespace the end lives in (a tenant VRF namespace for leaf ports in a VRF).
    pub ns: String,
    pub mtu: u32,
    /// This end's IPv4 address in the address plan (node ports and numbered links).
    pub address: Option<IpNet>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub router: String,
    /// FRR's name of the neighbour: the interface (unnumbered) or the peer address.
    pub neighbor: String,
    pub interface: String,
    pub local_asn: u64,
    pub remote_asn: u64,
    pub peer: String,
    pub peer_port: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EcmpTarget {
    pub leaf: String,
    pub peer_leaf: String,
    pub prefix: String,
    /// The leaf's uplink count in the lab.
    pub width: usize,
}

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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Renamed {
    pub device: String,
    pub port: String,
    pub ifname: String,
}

/// The name of the group of nodes in no tenant.
pub const NO_TENANT: &str = "(no tenant)";

/// Namespace of a device.
pub fn device_ns(device: &str) -> String {
    format!("{PREFIX}-{device}")
}

/// Namespace of a tenant VRF on a leaf (`.` never starts a device name's suffix, so the two
/// kinds never collide).
pub fn vrf_ns(leaf: &str, vrf: &str) -> String {
    format!("{PREFIX}.{leaf}.{vrf}")
}

/// The rendered FRR configs among the outputs.
pub fn configs_from(outputs: &[OutputFile]) -> Configs {
    outputs
        .iter()
        .filter_map(|f| {
            let rest = f.path.strip_prefix("configs/")?;
            let name = rest.strip_suffix("/frr.conf")?;
            Some((
                name.to_string(),
                String::from_utf8_lossy(&f.bytes).into_owned(),
            ))
        })
        .collect()
}

/// A kernel-safe interface name, unique on its device: the port name when it fits, else its
/// first characters and a counter.
fn ifname(port: &str, used: &mut BTreeSet<String>) -> String {
    let ok = |s: &str| {
        !s.is_empty()
            && s.len() <= IFNAMSIZ_MAX
            && s != "."
            && s != ".."
            && !s.contains(['/', ':'])
            && !s.chars().any(char::is_whitespace)
    };
    if ok(port) && used.insert(port.to_string()) {
        return port.to_string();
    }
    let stem: String = port
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(IFNAMSIZ_MAX - 4)
        .collect();
    for k in 0u32.. {
        let name = format!("{stem}-{k}");
        if used.insert(name.clone()) {
            return name;
        }
    }
    String::new()
}

/// Build the plan. Fails when the compile failed or railyard rendered no FRR config.
pub fn build(
    c: &Compiled,
    outputs: &[OutputFile],
    sel: &Selection,
) -> Result<(LabPlan, Configs), LabError> {
    let (Some(f), Some(intents), Some(spec)) = (&c.fabric, &c.intents, &c.spec) else {
        return Err(LabError::Plan(
            "the spec did not compile: fix the errors above first".into(),
        ));
    };
    let all = configs_from(outputs);
    let configs: Configs = all
        .into_iter()
        .filter(|(name, _)| sel.keep.contains(name))
        .collect();
    if configs.is_empty() {
        return Err(LabError::Plan(
            "railyard rendered no FRR config for this spec (no Ethernet switches?): nothing to boot"
                .into(),
        ));
    }
    for name in sel.keep.iter().filter(|n| intents.devices.contains_key(*n)) {
        if !configs.contains_key(name) {
            return Err(LabError::Plan(format!(
                "no rendered `configs/{name}/frr.conf` for switch `{name}` (is its platform frr?)"
            )));
        }
    }
    let mut renamed = Vec::new();
    let (cables, ports_in_lab) = cables(c, f, intents, sel, &mut renamed)?;
    let routers = routers(intents, &configs, &ports_in_lab);
    let pools = access_pools(spec);
    let hosts = hosts(f, intents, sel, &cables, &pools);
    let (sessions, dropped_sessions) = sessions(intents, sel);
    let ecmp = ecmp(intents, &routers, &sessions);
    let tenant_routes = tenant_routes(intents, &routers, &ports_in_lab);
    let (groups, shared_services) = tenancy(intents, &hosts);
    let plan = LabPlan {
        lab: spec.name.value.clone(),
        routers,
        hosts,
        cables,
        sessions,
        dropped_sessions,
        ecmp,
        tenant_routes,
        groups,
        shared_services,
        renamed,
        scale: sel.report.clone(),
    };
    Ok((plan, configs))
}

/// The veth pairs, and per router the ports that exist in the lab.
fn cables(
    c: &Compiled,
    f: &Fabric,
    intents: &Intents,
    sel: &Selection,
    renamed: &mut Vec<Renamed>,
) -> Result<(Vec<Cable>, PortsInLab), LabError> {
    let mut used: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut ports_in_lab: PortsInLab = BTreeMap::new();
    let mut out = Vec::new();
    let hosts = &intents.hosts.nodes;
    for (i, l) in f.links().enumerate() {
        if l.tier == Tier::Mgmt {
            continue;
        }
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        if !sel.keep.contains(&a.name) || !sel.keep.contains(&b.name) {
            continue;
        }
        let la = c.allocation.as_ref().and_then(|al| al.links.get(i));
        let mut ends = Vec::with_capacity(2);
        for (d, p, address, peer, peer_p) in [
            (a, l.a.port, la.and_then(|x| x.a), b, l.b.port),
            (b, l.b.port, la.and_then(|x| x.b), a, l.a.port),
        ] {
            let port = f.port_name(d, p);
            let names = used.entry(d.name.clone()).or_default();
            let name = ifname(&port, names);
            if name != port {
                renamed.push(Renamed {
                    device: d.name.clone(),
                    port: port.clone(),
                    ifname: name.clone(),
                });
            }
            let (ns, mtu) = match intents.devices.get(&d.name) {
                Some(di) => {
                    let iface = di.interfaces.iter().find(|x| x.name == port);
                    let ns = match iface.and_then(|x| x.vrf.as_deref()) {
                        Some(vrf) => vrf_ns(&d.name, vrf),
                        None => device_ns(&d.name),
                    };
                    ports_in_lab
                        .entry(d.name.clone())
                        .or_default()
                        .insert(port.clone());
                    // Every cabled switch port has an interface in the intent; the fallback is
                    // the switch ports' usual jumbo MTU.
                    (ns, iface.map_or(9216, |x| x.mtu))
                }
                None => {
                    let own = hosts
                        .get(&d.name)
                        .and_then(|h| h.ports.iter().find(|hp| hp.port == port))
                        .map(|hp| hp.mtu);
                    // Node ports outside the host plan (storage, in-band) take the switch port's.
                    let peer_port = f.port_name(peer, peer_p);
                    let switch = intents
                        .devices
                        .get(&peer.name)
                        .and_then(|di| di.interfaces.iter().find(|x| x.name == peer_port))
                        .map(|x| x.mtu);
                    (device_ns(&d.name), own.or(switch).unwrap_or(1500))
                }
            };
            ends.push(CableEnd {
                device: d.name.clone(),
                port,
                ifname: name,
                ns,
                mtu,
                address,
            });
        }
        let (Some(b_end), Some(a_end)) = (ends.pop(), ends.pop()) else {
            continue;
        };
        out.push(Cable {
            id: l.cable_id.clone(),
            a: a_end,
            b: b_end,
        });
    }
    if out.is_empty() {
        return Err(LabError::Plan(
            "no cable joins two lab devices: nothing to boot".into(),
        ));
    }
    Ok((out, ports_in_lab))
}

fn v4(n: Option<IpNet>) -> Option<Ipv4Addr> {
    match n?.addr() {
        IpAddr::V4(a) => Some(a),
        IpAddr::V6(_) => None,
    }
}

fn routers(intents: &Intents, configs: &Configs, ports_in_lab: &PortsInLab) -> Vec<Router> {
    configs
        .iter()
        .filter_map(|(name, conf)| {
            let d = intents.devices.get(name)?;
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
            Some(Router {
                name: name.clone(),
                role: d.role,
                ns: device_ns(name),
                daemons: frr::daemons_for(conf),
                asn: d.bgp.as_ref().map(|b| b.asn),
                loopback: v4(d.loopback.ipv4),
                vrfs,
            })
        })
        .collect()
}

/// The storage and in-band pools, the destinations of a node's routes on those networks.
fn access_pools(spec: &crate::spec::ClusterSpec) -> BTreeMap<String, IpNet> {
    let a = &spec.addressing;
    [("storage", &a.storage), ("inband", &a.inband)]
        .into_iter()
        .filter_map(|(n, p)| Some((n.to_string(), p.value.trim().parse().ok()?)))
        .collect()
}

/// Table of a node's storage or in-band port (the `k`-th such port): beside the rail tables.
const ACCESS_TABLE: u32 = 200;

fn hosts(
    f: &Fabric,
    intents: &Intents,
    sel: &Selection,
    cables: &[Cable],
    pools: &BTreeMap<String, IpNet>,
) -> Vec<Host> {
    let h = &intents.hosts;
    let owner = intents.tenants.tenant_of_node();
    let mut out = Vec::new();
    for d in f.devices().filter(|d| d.role == Role::Node) {
        if !sel.keep.contains(&d.name) {
            continue;
        }
        let planned = h.nodes.get(&d.name);
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
            let network = intents
                .devices
                .get(&peer.device)
                .map_or("compute", |x| x.network.as_str())
                .to_string();
            let mut routes = Vec::new();
            if let Some(hp) = hp {
                let table =
                    100 + hp.rail.saturating_sub(1) * h.planes.max(1) + hp.plane.unwrap_or(1);
                for (own, gw, pool) in [
                    (hp.address, hp.gateway, h.gpu_pool),
                    (hp.address_v6, hp.gateway_v6, h.gpu_pool_v6),
                ] {
                    if let (Some(own), Some(via), Some(to)) = (own, gw, pool) {
                        routes.push(HostRoute {
                            to,
                            via,
                            table,
                            from: own.addr(),
                        });
                    }
                }
            }
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
            ports.push(HostPort {
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
            });
        }
        out.push(Host {
            name: d.name.clone(),
            ns: device_ns(&d.name),
            tenant: owner.get(d.name.as_str()).map(|t| t.name.clone()),
            ports,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn sessions(intents: &Intents, sel: &Selection) -> (Vec<Session>, Vec<Session>) {
    let mut planned = Vec::new();
    let mut dropped = Vec::new();
    for (name, d) in &intents.devices {
        if !sel.keep.contains(name) {
            continue;
        }
        let Some(bgp) = &d.bgp else { continue };
        for n in &bgp.neighbors {
            let neighbor = match (bgp.unnumbered, n.address) {
                (false, Some(a)) => a.to_string(),
                _ => n.interface.clone(),
            };
            let s = Session {
                router: name.clone(),
                neighbor,
                interface: n.interface.clone(),
                local_asn: bgp.asn,
                remote_asn: n.remote_asn,
                peer: n.peer_device.clone(),
                peer_port: n.peer_port.clone(),
            };
            if sel.keep.contains(&n.peer_device) {
                planned.push(s);
            } else {
                dropped.push(s);
            }
        }
    }
    (planned, dropped)
}

fn is_leaf(r: Role) -> bool {
    matches!(r, Role::Leaf | Role::StorageLeaf | Role::InbandLeaf)
}

fn ecmp(intents: &Intents, routers: &[Router], sessions: &[Session]) -> Vec<EcmpTarget> {
    let leaves: Vec<(&Router, &DeviceIntent)> = routers
        .iter()
        .filter(|r| is_leaf(r.role) && r.asn.is_some() && r.loopback.is_some())
        .filter_map(|r| intents.devices.get(&r.name).map(|d| (r, d)))
        .collect();
    let mut out = Vec::new();
    for (r, d) in &leaves {
        let width = sessions.iter().filter(|s| s.router == r.name).count();
        if width == 0 {
            continue;
        }
        for (other, od) in &leaves {
            if other.name == r.name || od.network != d.network {
                continue;
            }
            let Some(lo) = other.loopback else { continue };
            out.push(EcmpTarget {
                leaf: r.name.clone(),
                peer_leaf: other.name.clone(),
                prefix: format!("{lo}/32"),
                width,
            });
        }
    }
    out
}

/// Whether a router takes part in EVPN (has a VTEP and BGP): only those exchange tenant routes.
fn evpn_leaf(intents: &Intents, r: &Router) -> bool {
    r.asn.is_some()
        && intents
            .devices
            .get(&r.name)
            .and_then(|d| d.evpn.as_ref())
            .is_some_and(|e| e.vtep.is_some())
}

/// Per EVPN leaf and VRF: the host prefixes other EVPN leaves of the same network announce —
/// each VRF's aggregates that cover a host port present in the lab — split into the VRF's own
/// tenant and everything else (other tenants and the default VRF).
fn tenant_routes(
    intents: &Intents,
    routers: &[Router],
    ports_in_lab: &PortsInLab,
) -> Vec<VrfRoutes> {
    // (leaf, network, vrf or None, prefix) of every announced host aggregate in the lab.
    let mut host_prefixes: Vec<(&str, crate::model::Network, Option<&str>, String)> = Vec::new();
    for r in routers.iter().filter(|r| evpn_leaf(intents, r)) {
        let Some(d) = intents.devices.get(&r.name) else {
            continue;
        };
        let present = ports_in_lab.get(&r.name);
        let ports: Vec<(Option<&str>, IpNet)> = d
            .interfaces
            .iter()
            .filter(|i| {
                i.kind == crate::intent::InterfaceKind::Host
                    && present.is_some_and(|p| p.contains(&i.name))
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
                host_prefixes.push((r.name.as_str(), d.network, vrf, agg.to_string()));
            }
        }
    }
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

fn tenancy(intents: &Intents, hosts: &[Host]) -> (Vec<Group>, Vec<Service>) {
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

impl LabPlan {
    /// Every namespace of the lab: devices, then tenant VRFs.
    pub fn namespaces(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .routers
            .iter()
            .map(|r| r.ns.clone())
            .chain(self.hosts.iter().map(|h| h.ns.clone()))
            .collect();
        v.extend(
            self.routers
                .iter()
                .flat_map(|r| r.vrfs.iter().map(|x| x.ns.clone())),
        );
        v
    }

    /// Whether any router has a tenant VRF.
    pub fn has_vrfs(&self) -> bool {
        self.routers.iter().any(|r| !r.vrfs.is_empty())
    }

    /// `5 routers, 4 nodes, 24 cables`.
    pub fn size(&self) -> String {
        let vrfs: usize = self.routers.iter().map(|r| r.vrfs.len()).sum();
        let mut s = format!(
            "{} routers, {} nodes, {} cables, {} planned BGP sessions",
            self.routers.len(),
            self.hosts.len(),
            self.cables.len(),
            self.sessions.len()
        );
        if vrfs > 0 {
            s.push_str(&format!(", {vrfs} tenant VRF namespaces"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use crate::lab::scale;
    use crate::model::Platform;

    fn plan_of(text: &str, scale_down: bool) -> (LabPlan, Configs) {
        let c = crate::compile_for_platform(&SourceFile::new("spec.yaml", text), Platform::Frr);
        let outputs = match c.outputs(&crate::render::Templates::default()) {
            Some(Ok(o)) => o,
            _ => panic!("spec did not render"),
        };
        let (Some(f), Some(i)) = (&c.fabric, &c.intents) else {
            panic!("spec did not compile");
        };
        let sel = scale::select(f, i, scale_down);
        match build(&c, &outputs, &sel) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn lab_small_plan_matches_the_cabling_plan() {
        let (p, configs) = plan_of(crate::LAB_SMALL, false);
        assert_eq!(p.lab, "lab-small");
        let names: Vec<&str> = p.routers.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "inb-leaf01",
                "leaf-su01-01",
                "leaf-su01-02",
                "spine01",
                "spine02"
            ]
        );
        assert_eq!(configs.len(), 5);
        assert!(configs["spine01"].contains("router bgp"));
        // 8 node-leaf + 8 leaf-spine + 4 in-band cables; OOB is not modelled.
        assert_eq!(p.cables.len(), 20);
        let c = &p.cables[0];
        assert_eq!(
            (c.a.device.as_str(), c.a.ifname.as_str()),
            ("gpu001", "ens1f0")
        );
        assert_eq!(
            (c.b.device.as_str(), c.b.ifname.as_str()),
            ("leaf-su01-01", "swp1")
        );
        assert_eq!(c.b.ns, "rylab-leaf-su01-01");
        // 2 leaves × 4 uplinks, seen from both ends.
        assert_eq!(p.sessions.len(), 16);
        assert!(p.dropped_sessions.is_empty());
        assert_eq!(p.ecmp.len(), 2);
        assert!(p.ecmp.iter().all(|e| e.width == 4));
        let g1 = &p.hosts[0];
        assert_eq!(g1.name, "gpu001");
        let nic = &g1.ports[0];
        assert_eq!(nic.ifname, "ens1f0");
        assert_eq!(
            nic.address.map(|a| a.to_string()).as_deref(),
            Some("10.64.0.0/31")
        );
        assert_eq!(nic.routes.len(), 1);
        assert_eq!(nic.routes[0].table, 101);
        assert!(p.groups.is_empty());
        let spine = p.routers.iter().find(|r| r.name == "spine01");
        assert_eq!(
            spine.map(|r| r.daemons.clone()),
            Some(vec![
                "zebra".into(),
                "bgpd".into(),
                "staticd".into(),
                "bfdd".into()
            ])
        );
    }

    #[test]
    fn storage_pair_vrfs_run_evpn_within_their_own_fabric() {
        let text = std::fs::read_to_string(format!(
            "{}/inventories/spectrum-x-cloud-tenants.yaml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap_or_default();
        let (p, _) = plan_of(&text, true);
        // The storage pair is joined by routed peer links, so its tenant VRFs are EVPN VRFs.
        let stor = p.routers.iter().find(|r| r.name == "stor-leaf01");
        assert!(
            stor.is_some_and(|r| !r.vrfs.is_empty() && r.vrfs.iter().all(|v| v.vtep.is_some()))
        );
        assert!(p.tenant_routes.iter().any(|t| t.leaf.starts_with("stor-")));
        // Each leaf expects prefixes of its own network only: the fabrics are separate.
        for t in &p.tenant_routes {
            let pool = if t.leaf.starts_with("stor-") {
                "10.32."
            } else {
                "10.64."
            };
            assert!(
                t.expect
                    .iter()
                    .chain(&t.forbid)
                    .all(|x| x.starts_with(pool)),
                "{t:?}"
            );
        }
    }

    #[test]
    fn long_port_names_are_mapped_and_recorded() {
        let mut used = BTreeSet::new();
        assert_eq!(ifname("swp1s0", &mut used), "swp1s0");
        let long = ifname("enp154s0f1np1extra", &mut used);
        assert!(long.len() <= IFNAMSIZ_MAX, "{long}");
        assert_eq!(long, "enp154s0f1n-0");
        assert_eq!(ifname("swp1s0", &mut used), "swp1s0-0");
    }

    #[test]
    fn tenant_ports_live_in_vrf_namespaces() {
        let text = std::fs::read_to_string(format!(
            "{}/inventories/mdx-research-cloud.yaml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap_or_default();
        let (p, _) = plan_of(&text, true);
        assert!(p.has_vrfs());
        let leaf = p
            .routers
            .iter()
            .find(|r| r.name == "leaf-su01-01")
            .map(|r| r.vrfs.clone())
            .unwrap_or_default();
        assert_eq!(leaf.len(), 1);
        assert_eq!(leaf[0].ns, "rylab.leaf-su01-01.llm-pretrain");
        assert_eq!(leaf[0].l3vni, 100_001);
        let to_gpu001 = p.cables.iter().find(|c| c.a.device == "gpu001");
        assert_eq!(
            to_gpu001.map(|c| c.b.ns.as_str()),
            Some("rylab.leaf-su01-01.llm-pretrain")
        );
        assert!(
            p.groups
                .iter()
                .any(|g| g.name == "llm-pretrain" && g.nodes.len() >= 2)
        );
        assert!(p.shared_services.iter().all(|s| !s.instantiated));
        let tr = p
            .tenant_routes
            .iter()
            .find(|t| t.leaf == "leaf-su01-01")
            .map(|t| (t.expect.len(), t.forbid.len()));
        assert!(tr.is_some_and(|(e, f)| e > 0 && f > 0), "{tr:?}");
    }
}
