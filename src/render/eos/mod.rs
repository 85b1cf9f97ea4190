//! Arista EOS (`startup-config`). One template per running-config section under
//! `templates/eos/`, included by `eos/main.j2` in the order `show running-config` prints them
//! (AVD eos_cli_config_gen `eos-intended-config.j2`).
//!
//! The templates see the intent as `d` and the EOS-only values derived here as `eos`: the speed
//! token of split ports, the ECN threshold unit, the PFC watchdog timers in seconds, prefix-list
//! sequence numbers, the loopback and QoS profile names, the VXLAN source loopback and the
//! tenant VRFs in running-config (name) order. Nothing in the templates computes. `qos.rs` plans
//! the RoCE QoS, `policy.rs` the prefix lists and route maps.
//!
//! Tenancy (EVPN-VXLAN, Cumulus Linux EVPN documentation): pure type-5 routing with one L3VNI per tenant VRF, no L2VNIs.
//! Every compute switch with `DeviceIntent::evpn` activates the EVPN address family on its fabric
//! peer group; spines relay with the EVPN next hop unchanged; leaves also originate from
//! `interface Vxlan1` and carry one `vrf` block per tenant with ports on them.
//!
//! Assumed release: EOS 4.32 or later on a fixed-configuration switch with unicast tx-queues
//! (`uc-tx-queue`, Trident/Tomahawk-class). EOS has no adaptive routing, so
//! `DeviceIntent::adaptive_routing` is ignored (the intent layer already warned).

mod policy;
mod qos;

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;
use minijinja::{Environment, Value, context};
use serde::Serialize;

use super::{RenderError, template};
use crate::intent::{Breakout, DeviceIntent, Evpn, InterfaceKind};
use policy::{
    CONNECTED_V4, CONNECTED_V6, EXPORT_V4, EXPORT_V6, PrefixList, RouteMap, prefix_lists,
    route_maps, vrf_redistribute,
};
use qos::{QOS_PROFILE, QosPlan, qos_plan};

/// SNMP communities are secrets and never come from the spec; the push step substitutes this.
const SNMP_COMMUNITY: &str = "${SNMP_COMMUNITY}";
/// The VXLAN UDP destination port (Cumulus Linux EVPN documentation, Inter-subnet Routing), set explicitly as in AVD's generated configs.
const VXLAN_UDP_PORT: u16 = 4789;
/// EVPN route targets are extended communities; AVD sets `send-community` on its EVPN peer
/// groups.
const SEND_COMMUNITY: &str = "extended";

/// `vlan internal order ascending range 1006 1199`: AVD eos_designs' default
/// (`internal_vlan_order`), which its generated configs carry on every device.
const INTERNAL_VLANS: InternalVlans = InternalVlans {
    order: "ascending",
    first: 1006,
    last: 1199,
};

#[derive(Serialize)]
struct InternalVlans {
    order: &'static str,
    first: u16,
    last: u16,
}

#[derive(Serialize)]
struct Eos {
    internal_vlans: InternalVlans,
    /// `ip routing ipv6 interfaces` instead of `ip routing`: forward IPv4 over IPv6 next hops
    /// (RFC 5549) learned on interfaces that have no IPv4 address.
    ip_routing_ipv6_interfaces: bool,
    ipv6_unicast_routing: bool,
    /// VRF the management services are reached through; `None` is the default VRF.
    service_vrf: Option<String>,
    /// `ip name-server` always names its VRF, `default` included.
    name_server_vrf: String,
    snmp_community: &'static str,
    /// Per data port, by name.
    ports: BTreeMap<String, Port>,
    loopbacks: Vec<Loopback>,
    prefix_lists: Vec<PrefixList>,
    route_maps: Vec<RouteMap>,
    bgp: Option<BgpNames>,
    qos: Option<QosPlan>,
    /// `vrf instance` names: the management VRF and the tenant VRFs, by name.
    vrf_instances: Vec<String>,
    /// `[no] ip routing vrf <name>`, by name: tenant VRFs route, the management VRF does not.
    routing_vrfs: Vec<RoutingVrf>,
    /// Tenant VRFs with IPv6 on a port: `ipv6 unicast-routing vrf <name>`.
    ipv6_routing_vrfs: Vec<String>,
    /// `interface Vxlan1` (EVPN leaves: `DeviceIntent::evpn` with a VTEP).
    vxlan: Option<Vxlan>,
    /// The EVPN address family on the fabric peer group (every EVPN switch with BGP).
    evpn: Option<EvpnPlan>,
    /// `router bgp` → `vrf <name>` blocks, by name (leaves with BGP).
    bgp_vrfs: Vec<BgpVrf>,
}

#[derive(Serialize)]
struct RoutingVrf {
    name: String,
    routed: bool,
}

#[derive(Serialize)]
struct Vxlan {
    /// The loopback that carries the VTEP address.
    source_interface: &'static str,
    udp_port: u16,
    /// `vxlan vrf <name> vni <l3vni>`, by VRF name.
    vrfs: Vec<VrfVni>,
    /// RoCE over VXLAN: DSCP and ECN carried between inner and outer header (VTEPs with a RoCE
    /// class only).
    qos: Option<VxlanQos>,
}

#[derive(Serialize)]
struct VrfVni {
    name: String,
    vni: u32,
}

#[derive(Serialize)]
struct VxlanQos {
    /// `vxlan qos ecn propagation`: ECN copied to the outer header on encapsulation and back to
    /// the inner one on decapsulation, so a CE mark set in the underlay reaches the receiver.
    ecn_propagation: bool,
    /// `vxlan qos dscp propagation encapsulation`: outer DSCP = inner DSCP, so the underlay
    /// classifies the tunnel traffic into the RoCE/CNP classes.
    dscp_propagation_encapsulation: bool,
}

#[derive(Serialize)]
struct EvpnPlan {
    peer_group: String,
    send_community: &'static str,
    /// `bgp next-hop-unchanged` in the EVPN family: a relaying spine passes the originating
    /// VTEP on as next hop instead of itself (eBGP rewrites it by default).
    next_hop_unchanged: bool,
}

#[derive(Serialize)]
struct BgpVrf {
    name: String,
    rd: String,
    import: Vec<String>,
    export: Vec<String>,
    router_id: std::net::Ipv4Addr,
    /// The tenant's host aggregates on this leaf, summary-only.
    aggregates: Vec<IpNet>,
    /// Route map gating `redistribute connected` (the VRF's own host links).
    redistribute: Option<String>,
}

#[derive(Serialize)]
struct Port {
    /// `speed` token of a split cage's sub-port (`400g-4`: 400G over 4 lanes).
    speed: Option<String>,
    /// IPv6 link-local only: the interface carries an unnumbered BGP session.
    ipv6_enable: bool,
    /// The interface carries a BGP session with BFD.
    bfd: bool,
    service_profile: Option<&'static str>,
}

#[derive(Serialize)]
struct Loopback {
    name: &'static str,
    description: &'static str,
    ipv4: Option<IpNet>,
    ipv6: Option<IpNet>,
}

#[derive(Serialize)]
struct BgpNames {
    redistribute_v4: Option<&'static str>,
    redistribute_v6: Option<&'static str>,
    /// Outbound route maps per family (leaves).
    export_v4: Option<&'static str>,
    export_v6: Option<&'static str>,
    /// `neighbor <group> maximum-accepted-routes` per family.
    limit_v4: Option<RouteLimit>,
    limit_v6: Option<RouteLimit>,
}

/// EOS's per-family route limit (`maximum-accepted-routes <limit> warning-limit …`, AVD
/// `address_family_ipv4.peer_groups[].maximum_accepted_routes`). Per family because the fabric
/// peer group also carries EVPN, whose routes the plan's limit does not count; EOS keeps the
/// session and refuses the routes beyond the limit. `warning-only` is limit 0 (unlimited) with
/// the warning at the plan's threshold.
#[derive(Serialize)]
struct RouteLimit {
    limit: u32,
    warning_percent: Option<u8>,
    warning_count: Option<u64>,
}

pub fn render(
    env: &Environment<'_>,
    d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    let eos = plan(d)?;
    let ctx = context! { d => Value::from_serialize(d), eos => Value::from_serialize(&eos) };
    let text = template(env, &d.hostname, "eos/main.j2", ctx)?;
    Ok(vec![("startup-config".into(), text)])
}

fn plan(d: &DeviceIntent) -> Result<Eos, RenderError> {
    // A numbered session without a peer address would render as a neighbour called `none`.
    if let Some(b) = &d.bgp
        && !b.unnumbered
        && let Some(n) = b.neighbors.iter().find(|n| n.address.is_none())
    {
        return Err(RenderError {
            device: d.hostname.clone(),
            template: "eos/router-bgp.j2".into(),
            message: format!(
                "numbered BGP session on `{}` has no peer address",
                n.interface
            ),
        });
    }
    let unnumbered = d.bgp.as_ref().is_some_and(|b| b.unnumbered);
    let vxlan = match &d.evpn {
        Some(Evpn {
            vtep: Some(vtep), ..
        }) => Some(vxlan(d, *vtep)?),
        _ => None,
    };
    let any_v6 = d.loopback.ipv6.is_some() || d.interfaces.iter().any(|i| i.ipv6.is_some());
    let service_vrf = d.system.mgmt.as_ref().map(|m| m.vrf.clone());
    Ok(Eos {
        internal_vlans: INTERNAL_VLANS,
        ip_routing_ipv6_interfaces: unnumbered,
        ipv6_unicast_routing: unnumbered || any_v6,
        name_server_vrf: service_vrf.clone().unwrap_or_else(|| "default".into()),
        service_vrf,
        snmp_community: SNMP_COMMUNITY,
        ports: ports(d),
        loopbacks: loopbacks(d),
        prefix_lists: prefix_lists(d),
        route_maps: route_maps(d),
        bgp: d.bgp.as_ref().map(|b| BgpNames {
            redistribute_v4: (!b.redistribute.is_empty()).then_some(CONNECTED_V4),
            redistribute_v6: (!b.redistribute_v6.is_empty()).then_some(CONNECTED_V6),
            export_v4: (!b.export.is_empty()).then_some(EXPORT_V4),
            export_v6: (!b.export_v6.is_empty()).then_some(EXPORT_V6),
            limit_v4: route_limit(b, b.max_prefix.as_ref().map(|m| m.ipv4)),
            limit_v6: route_limit(b, b.max_prefix.as_ref().map(|m| m.ipv6)),
        }),
        qos: d.qos.as_ref().map(|q| qos_plan(d, q)).transpose()?,
        vrf_instances: vrf_instances(d),
        routing_vrfs: routing_vrfs(d),
        ipv6_routing_vrfs: ipv6_routing_vrfs(d),
        vxlan,
        evpn: evpn_plan(d),
        bgp_vrfs: bgp_vrfs(d)?,
    })
}

/// Tenant VRFs sorted by name, as AVD's templates emit them (`natural_sort('name')`).
fn tenant_vrfs(d: &DeviceIntent) -> Vec<&crate::intent::Vrf> {
    let mut v: Vec<_> = d.vrfs.iter().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

fn vrf_instances(d: &DeviceIntent) -> Vec<String> {
    let mut names: Vec<String> = d.vrfs.iter().map(|v| v.name.clone()).collect();
    names.extend(d.system.mgmt.as_ref().map(|m| m.vrf.clone()));
    names.sort();
    names.dedup();
    names
}

fn routing_vrfs(d: &DeviceIntent) -> Vec<RoutingVrf> {
    let mut out: Vec<RoutingVrf> = d
        .vrfs
        .iter()
        .map(|v| RoutingVrf {
            name: v.name.clone(),
            routed: true,
        })
        .collect();
    out.extend(d.system.mgmt.as_ref().map(|m| RoutingVrf {
        name: m.vrf.clone(),
        routed: false,
    }));
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn ipv6_routing_vrfs(d: &DeviceIntent) -> Vec<String> {
    tenant_vrfs(d)
        .into_iter()
        .filter(|v| {
            d.interfaces
                .iter()
                .any(|i| i.vrf.as_deref() == Some(v.name.as_str()) && i.ipv6.is_some())
        })
        .map(|v| v.name.clone())
        .collect()
}

/// `interface Vxlan1` of a VTEP. The source is the loopback the intent put the VTEP address on:
/// Loopback1 with a VTEP pool, else the router loopback.
fn vxlan(d: &DeviceIntent, vtep: IpNet) -> Result<Vxlan, RenderError> {
    let source_interface = if d.loopback.vtep == Some(vtep) {
        "Loopback1"
    } else if d.loopback.ipv4 == Some(vtep) {
        "Loopback0"
    } else {
        return Err(RenderError {
            device: d.hostname.clone(),
            template: "eos/vxlan-interface.j2".into(),
            message: format!("VTEP address {vtep} is on no loopback"),
        });
    };
    Ok(Vxlan {
        source_interface,
        udp_port: VXLAN_UDP_PORT,
        vrfs: tenant_vrfs(d)
            .into_iter()
            .map(|v| VrfVni {
                name: v.name.clone(),
                vni: v.l3vni,
            })
            .collect(),
        qos: d.qos.as_ref().map(|_| VxlanQos {
            ecn_propagation: true,
            dscp_propagation_encapsulation: true,
        }),
    })
}

fn evpn_plan(d: &DeviceIntent) -> Option<EvpnPlan> {
    let (e, b) = (d.evpn.as_ref()?, d.bgp.as_ref()?);
    Some(EvpnPlan {
        peer_group: b.peer_group.clone(),
        send_community: SEND_COMMUNITY,
        next_hop_unchanged: e.vtep.is_none(),
    })
}

fn bgp_vrfs(d: &DeviceIntent) -> Result<Vec<BgpVrf>, RenderError> {
    let Some(b) = &d.bgp else {
        return Ok(Vec::new());
    };
    tenant_vrfs(d)
        .into_iter()
        .map(|v| {
            // An EVPN VRF needs its own RD (Cumulus Linux EVPN documentation, Inter-subnet Routing); an empty one is an intent bug.
            if v.rd.is_empty() {
                return Err(RenderError {
                    device: d.hostname.clone(),
                    template: "eos/router-bgp.j2".into(),
                    message: format!("tenant VRF `{}` has no route distinguisher", v.name),
                });
            }
            Ok(BgpVrf {
                name: v.name.clone(),
                rd: v.rd.clone(),
                import: v.import.clone(),
                export: v.export.clone(),
                router_id: b.router_id,
                aggregates: v
                    .aggregates
                    .iter()
                    .filter(|a| a.addr().is_ipv4())
                    .copied()
                    .collect(),
                redistribute: (!v.redistribute.is_empty()).then(|| vrf_redistribute(v)),
            })
        })
        .collect()
}

fn ports(d: &DeviceIntent) -> BTreeMap<String, Port> {
    let speeds = breakout_speeds(d);
    let (session_ifs, unnumbered, bfd) = match &d.bgp {
        Some(b) => (
            b.neighbors.iter().map(|n| n.interface.as_str()).collect(),
            b.unnumbered,
            b.bfd.is_some(),
        ),
        None => (BTreeSet::new(), false, false),
    };
    let lossless: BTreeSet<&str> = d
        .qos
        .iter()
        .flat_map(|q| q.ports.iter().map(String::as_str))
        .collect();
    d.interfaces
        .iter()
        .map(|i| {
            let session = i.kind == InterfaceKind::Fabric && session_ifs.contains(i.name.as_str());
            let port = Port {
                speed: speeds.get(&i.name).cloned(),
                ipv6_enable: session && unnumbered,
                bfd: session && bfd,
                service_profile: lossless.contains(i.name.as_str()).then_some(QOS_PROFILE),
            };
            (i.name.clone(), port)
        })
        .collect()
}

/// Speed tokens of the cabled sub-ports of split cages. EOS splits a cage by setting the
/// sub-ports' speed to `<rate>g-<lanes>`: 2x400G on an 8-lane OSFP is `400g-4` on `EthernetN/1`
/// and `EthernetN/5`, which also says which lanes each sub-port owns.
fn breakout_speeds(d: &DeviceIntent) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for b in &d.breakouts {
        // The unsplit cage's name is its first sub-port's: `Ethernet<cage>/1`.
        let Some(cut) = b.port.rfind('/') else {
            continue;
        };
        let prefix = &b.port[..=cut];
        let members: Vec<(&str, u32)> = d
            .interfaces
            .iter()
            .filter_map(|i| Some((i.name.as_str(), i.name.strip_prefix(prefix)?.parse().ok()?)))
            .collect();
        let Some(token) = speed_token(b, b.lanes_per_port) else {
            continue;
        };
        for (name, _) in members {
            out.insert(name.to_string(), token.clone());
        }
    }
    out
}

/// `<rate>g-<lanes>`, the form confirmed for 50G-and-up lanes (`400g-4`, `200g-2`, `100g-2`,
/// `100g-1`). Single-lane 10G/25G sub-ports use other keywords that were not confirmed, so they
/// get no `speed` line.
fn speed_token(b: &Breakout, lanes: u32) -> Option<String> {
    let gbps = b.speed.as_gbps();
    (gbps >= 50).then(|| format!("{gbps}g-{lanes}"))
}

fn loopbacks(d: &DeviceIntent) -> Vec<Loopback> {
    let mut out = Vec::new();
    if d.loopback.ipv4.is_some() || d.loopback.ipv6.is_some() {
        out.push(Loopback {
            name: "Loopback0",
            description: "router-id",
            ipv4: d.loopback.ipv4,
            ipv6: d.loopback.ipv6,
        });
    }
    if let Some(vtep) = d.loopback.vtep {
        out.push(Loopback {
            name: "Loopback1",
            description: "vtep",
            ipv4: Some(vtep),
            ipv6: None,
        });
    }
    out
}

fn route_limit(b: &crate::intent::Bgp, limit: Option<u32>) -> Option<RouteLimit> {
    let m = b.max_prefix.as_ref()?;
    let limit = limit.filter(|&n| n > 0)?;
    Some(match m.restart_minutes {
        Some(_) => RouteLimit {
            limit,
            warning_percent: Some(m.warning_percent),
            warning_count: None,
        },
        None => RouteLimit {
            limit: 0,
            warning_percent: None,
            warning_count: Some((u64::from(limit) * u64::from(m.warning_percent)).div_ceil(100)),
        },
    })
}
