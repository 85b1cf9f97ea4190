//! A switch's intent as Arista AVD *structured config* (the `eos_cli_config_gen` data model),
//! written from the intent and AVD's data model, not from railyard's output. Shared by the
//! pyavd cross-check (`tests/render/eos_avd.rs`) and the side-by-side bench (`benches/scale.rs --avd`).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use railyard::intent::{DeviceIntent, GracefulRestartMode, InterfaceKind, QosMode};
use serde_json::{Value, json};

fn seconds(ms: u32) -> String {
    // EOS takes the PFC watchdog timers in seconds.
    let s = f64::from(ms) / 1000.0;
    let text = format!("{s}");
    text.trim_end_matches(".0").to_string()
}

/// The speed of a split cage's sub-port, as EOS names it: `<rate>g-<lanes>`.
fn split_speed(d: &DeviceIntent, port: &str) -> Option<String> {
    d.breakouts.iter().find_map(|b| {
        let prefix = b.port.rsplit_once('/')?.0;
        let cage = port.rsplit_once('/')?.0;
        // EOS names lanes only for the rates that come in several lane counts (50G and up);
        // a 10G or 25G sub-port takes its speed from the transceiver.
        (prefix == cage && b.speed.as_gbps() >= 50)
            .then(|| format!("{}g-{}", b.speed.as_gbps(), b.lanes_per_port))
    })
}

/// One switch's intent as AVD structured config.
pub fn structured_config(d: &DeviceIntent) -> Value {
    let mut sc = serde_json::Map::new();
    basics(&mut sc, d);
    sc.insert("ethernet_interfaces".into(), json!(ethernet_interfaces(d)));
    if let Some(l2) = &d.l2 {
        management_vlans(&mut sc, l2);
    }
    sc.insert("loopback_interfaces".into(), json!(loopbacks(d)));
    vrfs_and_static_routes(&mut sc, d);
    routing(&mut sc, d);
    services(&mut sc, &d.system);
    if let Some(b) = &d.bgp {
        policy(&mut sc, d, b);
        sc.insert("router_bgp".into(), router_bgp(d, b));
    }
    if let Some(q) = &d.qos {
        qos(&mut sc, q);
    }
    if let Some(vtep) = d.evpn.as_ref().and_then(|e| e.vtep) {
        sc.insert("vxlan_interface".into(), vxlan_interface(d, vtep));
    }
    Value::Object(sc)
}

/// The hostname and the basics AVD's eos_designs puts on every device.
fn basics(sc: &mut serde_json::Map<String, Value>, d: &DeviceIntent) {
    sc.insert("hostname".into(), json!(d.hostname));
    sc.insert("enable_password".into(), json!({"disabled": true}));
    sc.insert("aaa_root".into(), json!({"disabled": true}));
    sc.insert(
        "vlan_internal_order".into(),
        json!({"allocation": "ascending", "range": {"beginning": 1006, "ending": 1199}}),
    );
    sc.insert(
        "service_routing_protocols_model".into(),
        json!("multi-agent"),
    );
    // A routed switch runs no spanning tree; an OOB switch bridges its management VLANs (MSTP).
    let stp = if d.l2.is_some() { "mstp" } else { "none" };
    sc.insert("spanning_tree".into(), json!({"mode": stp}));
}

/// Ports: routed, at the intent's MTU, split speed, addresses, per-session BFD, RoCE profile.
fn ethernet_interfaces(d: &DeviceIntent) -> Vec<Value> {
    let bgp = d.bgp.as_ref();
    let unnumbered = bgp.is_some_and(|b| b.unnumbered);
    let sessions: BTreeSet<&str> = bgp
        .map(|b| b.neighbors.iter().map(|n| n.interface.as_str()).collect())
        .unwrap_or_default();
    let lossless: BTreeSet<&str> = d
        .qos
        .iter()
        .flat_map(|q| q.ports.iter().map(String::as_str))
        .collect();
    d.interfaces
        .iter()
        .map(|i| {
            let mut p = json!({
                "name": i.name,
                "description": format!("{} [{}]", i.description, i.cable),
                "shutdown": false,
                "mtu": i.mtu,
                "switchport": {"enabled": false},
            });
            // OOB ports bridge the management VLANs: access to a management port, trunk upwards.
            if let Some(v) = i.access_vlan {
                p["switchport"] = json!({"enabled": true, "mode": "access", "access_vlan": v});
            } else if !i.trunk_vlans.is_empty() {
                let ids: Vec<String> = i.trunk_vlans.iter().map(u16::to_string).collect();
                p["switchport"] = json!({"enabled": true, "mode": "trunk", "trunk": {"allowed_vlan": ids.join(",")}});
            }
            if let Some(s) = split_speed(d, &i.name) {
                p["speed"] = json!(s);
            }
            if let Some(v) = &i.vrf {
                p["vrf"] = json!(v);
            }
            if let Some(a) = i.ipv4 {
                p["ip_address"] = json!(a.to_string());
            }
            let session = i.kind == InterfaceKind::Fabric && sessions.contains(i.name.as_str());
            if let Some(f) = bgp.and_then(|b| b.bfd.as_ref()).filter(|_| session) {
                p["bfd"] = json!({"interval": f.interval_ms, "min_rx": f.interval_ms, "multiplier": f.multiplier});
            }
            if session && unnumbered {
                p["ipv6_enable"] = json!(true);
            }
            if let Some(a) = i.ipv6 {
                p["ipv6_address"] = json!(a.to_string());
            }
            if lossless.contains(i.name.as_str()) {
                p["service_profile"] = json!("ROCE");
            }
            p
        })
        .collect()
}

/// The management VLANs and their interfaces (the gateway's in every subnet).
fn management_vlans(sc: &mut serde_json::Map<String, Value>, l2: &railyard::intent::Switching) {
    sc.insert(
        "vlans".into(),
        json!(
            l2.vlans
                .iter()
                .map(|v| json!({"id": v.id, "name": v.name}))
                .collect::<Vec<_>>()
        ),
    );
    sc.insert(
        "vlan_interfaces".into(),
        json!(l2.svis.iter().map(|v| json!({
            "name": format!("Vlan{}", v.vlan),
            "description": format!("{} {}", v.vlan_name, if v.gateway { "gateway" } else { "management" }),
            "shutdown": false,
            "ip_address": v.address.to_string(),
        })).collect::<Vec<_>>()),
    );
}

fn loopbacks(d: &DeviceIntent) -> Vec<Value> {
    let mut loopbacks = Vec::new();
    if d.loopback.ipv4.is_some() || d.loopback.ipv6.is_some() {
        let mut l = json!({"name": "Loopback0", "description": "router-id", "shutdown": false});
        if let Some(a) = d.loopback.ipv4 {
            l["ip_address"] = json!(a.to_string());
        }
        if let Some(a) = d.loopback.ipv6 {
            l["ipv6_address"] = json!(a.to_string());
        }
        loopbacks.push(l);
    }
    if let Some(v) = d.loopback.vtep {
        loopbacks.push(json!({"name": "Loopback1", "description": "vtep", "shutdown": false, "ip_address": v.to_string()}));
    }
    loopbacks
}

/// VRFs: the management VRF (not routed) and the tenants' (routed); the management port and
/// its services' reachability; static default routes.
fn vrfs_and_static_routes(sc: &mut serde_json::Map<String, Value>, d: &DeviceIntent) {
    let mut vrfs: Vec<Value> = d
        .vrfs
        .iter()
        .map(|v| json!({"name": v.name, "ip_routing": true}))
        .collect();
    let mut routes = Vec::new();
    if let Some(m) = &d.system.mgmt {
        vrfs.push(json!({"name": m.vrf, "ip_routing": false}));
        sc.insert(
            "management_interfaces".into(),
            json!([{"name": m.interface, "description": "oob management", "shutdown": false, "vrf": m.vrf, "ip_address": m.address.to_string()}]),
        );
        routes
            .push(json!({"vrf": m.vrf, "prefix": "0.0.0.0/0", "next_hop": m.gateway.to_string()}));
        sc.insert(
            "management_api_http".into(),
            json!({"enable_https": true, "enable_vrfs": [{"name": m.vrf}]}),
        );
        sc.insert(
            "management_ssh".into(),
            json!({"vrfs": [{"name": m.vrf, "enable": true}]}),
        );
    }
    // An OOB switch's default route points at its management subnet's gateway.
    if let Some(gw) = d.l2.as_ref().and_then(|l| l.default_gateway) {
        routes.push(json!({"prefix": "0.0.0.0/0", "next_hop": gw.to_string()}));
    }
    if !routes.is_empty() {
        sc.insert("static_routes".into(), json!(routes));
    }

    sc.insert("vrfs".into(), json!(vrfs));
    let v6_vrfs: Vec<&str> = d
        .vrfs
        .iter()
        .filter(|v| {
            d.interfaces
                .iter()
                .any(|i| i.vrf.as_deref() == Some(v.name.as_str()) && i.ipv6.is_some())
        })
        .map(|v| v.name.as_str())
        .collect();
    for v in sc["vrfs"].as_array_mut().unwrap() {
        if v6_vrfs.contains(&v["name"].as_str().unwrap()) {
            v["ipv6_routing"] = json!(true);
        }
    }
}

/// IPv4 routing (over IPv6 interfaces when unnumbered) and IPv6 routing.
fn routing(sc: &mut serde_json::Map<String, Value>, d: &DeviceIntent) {
    let unnumbered = d.bgp.as_ref().is_some_and(|b| b.unnumbered);
    if unnumbered {
        sc.insert("ip_routing_ipv6_interfaces".into(), json!(true));
    } else {
        sc.insert("ip_routing".into(), json!(true));
    }
    let any_v6 = d.loopback.ipv6.is_some() || d.interfaces.iter().any(|i| i.ipv6.is_some());
    if unnumbered || any_v6 {
        sc.insert("ipv6_unicast_routing".into(), json!(true));
    }
}

/// Services, in the management VRF.
fn services(sc: &mut serde_json::Map<String, Value>, s: &railyard::intent::System) {
    let vrf = s.mgmt.as_ref().map(|m| m.vrf.clone());
    if !s.ntp.is_empty() {
        let servers: Vec<Value> = s.ntp.iter().map(|n| json!({"name": n})).collect();
        let mut ntp = json!({"servers": servers});
        if let Some(v) = &vrf {
            ntp["vrf"] = json!(v);
        }
        sc.insert("ntp".into(), ntp);
    }
    if !s.syslog.is_empty() {
        let hosts: Vec<Value> = s.syslog.iter().map(|h| json!({"name": h})).collect();
        sc.insert(
            "logging".into(),
            json!({"vrfs": [{"name": vrf.clone().unwrap_or_else(|| "default".into()), "hosts": hosts}]}),
        );
    }
    if !s.dns.is_empty() {
        let servers: Vec<Value> = s.dns.iter().map(|a| json!({"ip_address": a})).collect();
        sc.insert(
            "ip_name_server".into(),
            json!({"vrfs": [{"name": vrf.clone().unwrap_or_else(|| "default".into()), "servers": servers}]}),
        );
    }
    if let Some(domain) = &s.domain {
        sc.insert("dns_domain".into(), json!(domain));
    }
    if !s.snmp_traps.is_empty() {
        let hosts: Vec<Value> = s
            .snmp_traps
            .iter()
            .map(|h| {
                let mut x = json!({"host": h, "version": "2c", "community": "${SNMP_COMMUNITY}"});
                if let Some(v) = &vrf {
                    x["vrf"] = json!(v);
                }
                x
            })
            .collect();
        sc.insert("snmp_server".into(), json!({"hosts": hosts}));
    }
}

/// Redistribution policy: connected routes pass the plan's prefix list only.
fn policy(sc: &mut serde_json::Map<String, Value>, d: &DeviceIntent, b: &railyard::intent::Bgp) {
    let seqs = |rules: &[railyard::intent::PrefixRule]| -> Vec<Value> {
        rules
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let le = r.le.map(|l| format!(" le {l}")).unwrap_or_default();
                json!({"sequence": 10 * (k + 1), "action": format!("permit {}{le}", r.prefix)})
            })
            .collect()
    };
    // Redistribution (default VRF, then each tenant VRF by name) and the leaf's outbound
    // policy: each list with a route map of the same name matching it.
    let mut vrfs: Vec<&railyard::intent::Vrf> = d.vrfs.iter().collect();
    vrfs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut lists: Vec<(bool, String, &[railyard::intent::PrefixRule])> = vec![
        (false, "CONNECTED-TO-BGP".into(), &b.redistribute),
        (true, "CONNECTED-TO-BGP-V6".into(), &b.redistribute_v6),
        (false, "FABRIC-OUT".into(), &b.export),
        (true, "FABRIC-OUT-V6".into(), &b.export_v6),
    ];
    for v in &vrfs {
        lists.push((
            false,
            format!("CONNECTED-TO-BGP-{}", v.name),
            &v.redistribute,
        ));
    }
    let (mut v4, mut v6, mut maps) = (Vec::new(), Vec::new(), Vec::new());
    for (ipv6, name, rules) in lists.into_iter().filter(|l| !l.2.is_empty()) {
        let list = json!({"name": name, "sequence_numbers": seqs(rules)});
        let family = if ipv6 { "ipv6" } else { "ip" };
        maps.push(json!({"name": name, "sequence_numbers": [{"sequence": 10, "type": "permit", "match": [format!("{family} address prefix-list {name}")]}]}));
        if ipv6 { v6.push(list) } else { v4.push(list) }
    }
    if !v4.is_empty() {
        sc.insert("prefix_lists".into(), json!(v4));
    }
    if !v6.is_empty() {
        sc.insert("ipv6_prefix_lists".into(), json!(v6));
    }
    sc.insert("route_maps".into(), json!(maps));
}

/// The VTEP: source loopback, UDP port, the tenant VRFs' L3VNIs, DSCP/ECN propagation.
fn vxlan_interface(d: &DeviceIntent, vtep: ipnet::IpNet) -> Value {
    let source = if d.loopback.vtep == Some(vtep) {
        "Loopback1"
    } else {
        "Loopback0"
    };
    let mut vrfs: Vec<&railyard::intent::Vrf> = d.vrfs.iter().collect();
    vrfs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut vxlan = json!({
        "source_interface": source,
        "udp_port": 4789,
        "vrfs": vrfs.iter().map(|v| json!({"name": v.name, "vni": v.l3vni})).collect::<Vec<_>>(),
    });
    if d.qos.is_some() {
        vxlan["qos"] = json!({"dscp_propagation_encapsulation": true, "ecn_propagation": true});
    }
    json!({"vxlan1": {"vxlan": vxlan}})
}

fn router_bgp(d: &DeviceIntent, b: &railyard::intent::Bgp) -> Value {
    let mut r = json!({
        "as": b.asn.to_string(),
        "router_id": b.router_id.to_string(),
        "maximum_paths": {"paths": b.maximum_paths, "ecmp": b.maximum_paths},
        "bgp": {"default": {"ipv4_unicast": false}},
        "peer_groups": [peer_group(d, b)],
    });
    if let Some(p) = &b.password {
        // Documented difference: AVD's data model takes only encrypted session passwords (types 7
        // and 8a, whose type-7 form EOS salts with the neighbour's name); railyard writes type 0
        // (clear text) with the `${NAME}` placeholder that `railyard push` fills in, so the
        // password never passes through railyard's output. The line goes through `eos_cli`, AVD's
        // raw lines of the `router bgp` block, still rendered by AVD.
        r["eos_cli"] = json!(format!("neighbor {} password 0 {p}", b.peer_group));
    }
    match b.graceful_restart.mode {
        GracefulRestartMode::Full => {
            r["graceful_restart"] = json!({
                "enabled": true,
                "restart_time": b.graceful_restart.restart_time_s,
                "stalepath_time": b.graceful_restart.stale_path_time_s,
            });
        }
        GracefulRestartMode::Disabled => {
            r["graceful_restart_helper"] = json!({"enabled": false});
        }
        // EOS runs as a graceful-restart helper by default.
        GracefulRestartMode::HelperOnly => {}
    }
    if b.multipath_relax {
        // Documented difference: AVD 6.4's data model has no key for EOS's `bgp bestpath as-path
        // multipath-relax` (ECMP over paths of equal length through different ASNs); it goes
        // through `bgp_defaults`, AVD's list of plain `router bgp` lines, still rendered by AVD.
        r["bgp_defaults"] = json!(["bgp bestpath as-path multipath-relax"]);
    }
    neighbors(&mut r, b);
    r["aggregate_addresses"] = json!(
        b.aggregates
            .iter()
            .map(|a| json!({"prefix": a.to_string(), "summary_only": true}))
            .collect::<Vec<_>>()
    );
    if !b.redistribute.is_empty() {
        r["redistribute"] =
            json!({"connected": {"enabled": true, "route_map": "CONNECTED-TO-BGP"}});
    }
    unicast_families(&mut r, b);
    if let Some(e) = &d.evpn {
        evpn(&mut r, d, b, e);
    }
    r
}

/// The peer group every session uses.
fn peer_group(d: &DeviceIntent, b: &railyard::intent::Bgp) -> Value {
    let mut pg = json!({"name": b.peer_group});
    if b.bfd.is_some() {
        pg["bfd"] = json!(true);
    }
    if b.allowas_in {
        pg["allowas_in"] = json!({"enabled": true, "times": 1});
    }
    if b.gtsm {
        pg["ttl_maximum_hops"] = json!(1);
    }
    if d.evpn.is_some() {
        // Route targets are extended communities.
        pg["send_community"] = json!("extended");
    }
    pg
}

/// The sessions: on interfaces when unnumbered, else to the peers' addresses.
fn neighbors(r: &mut Value, b: &railyard::intent::Bgp) {
    if b.unnumbered {
        r["neighbor_interfaces"] = json!(
            b.neighbors
                .iter()
                .map(|n| json!({"name": n.interface, "peer_group": b.peer_group, "remote_as": n.remote_asn.to_string()}))
                .collect::<Vec<_>>()
        );
    } else {
        r["neighbors"] = json!(
            b.neighbors
                .iter()
                .map(|n| json!({
                    "ip_address": n.address.expect("numbered").to_string(),
                    "peer_group": b.peer_group,
                    "remote_as": n.remote_asn.to_string(),
                    "description": format!("{}:{}", n.peer_device, n.peer_port),
                }))
                .collect::<Vec<_>>()
        );
    }
}

/// The IPv4 and IPv6 unicast families.
fn unicast_families(r: &mut Value, b: &railyard::intent::Bgp) {
    let limits = b.max_prefix.as_ref();
    let mut v4 = family(b, &b.export, "FABRIC-OUT", limits.map(|m| m.ipv4));
    if b.unnumbered {
        v4["next_hop"] = json!({"address_family_ipv6": {"enabled": true, "originate": true}});
    }
    r["address_family_ipv4"] = json!({"peer_groups": [v4]});
    if !b.redistribute_v6.is_empty() {
        r["address_family_ipv6"] = json!({
            "peer_groups": [family(b, &b.export_v6, "FABRIC-OUT-V6", limits.map(|m| m.ipv6))],
            "redistribute": {"connected": {"enabled": true, "route_map": "CONNECTED-TO-BGP-V6"}},
        });
    }
}

/// Per family: the outbound policy and the plan's route limit (EOS counts accepted routes per
/// family, so EVPN on the same sessions is not counted).
fn family(
    b: &railyard::intent::Bgp,
    export: &[railyard::intent::PrefixRule],
    map: &str,
    limit: Option<u32>,
) -> Value {
    let mut pg = json!({"name": b.peer_group, "activate": true});
    if !export.is_empty() {
        pg["route_map_out"] = json!(map);
    }
    if let (Some(m), Some(n)) = (&b.max_prefix, limit.filter(|&n| n > 0)) {
        pg["maximum_accepted_routes"] = match m.restart_minutes {
            Some(_) => json!({"limit": n, "warning_limit": {"percent": m.warning_percent}}),
            // Warning only: no limit, a warning at the threshold.
            None => {
                json!({"limit": 0, "warning_limit": {"count": (n as u64 * m.warning_percent as u64).div_ceil(100)}})
            }
        };
    }
    pg
}

/// The EVPN family and the tenant VRFs' BGP instances.
fn evpn(r: &mut Value, d: &DeviceIntent, b: &railyard::intent::Bgp, e: &railyard::intent::Evpn) {
    let mut af = json!({"peer_groups": [{"name": b.peer_group, "activate": true}]});
    // A relay (no VTEP) passes the originating VTEP on as next hop.
    if e.vtep.is_none() {
        af["next_hop_unchanged"] = json!(true);
    }
    r["address_family_evpn"] = af;
    let mut vrfs: Vec<&railyard::intent::Vrf> = d.vrfs.iter().collect();
    vrfs.sort_by(|a, b| a.name.cmp(&b.name));
    r["vrfs"] = json!(
        vrfs.iter()
            .map(|v| json!({
                "name": v.name,
                "rd": v.rd,
                "route_targets": {
                    "import": [{"address_family": "evpn", "route_targets": v.import}],
                    "export": [{"address_family": "evpn", "route_targets": v.export}],
                },
                "router_id": b.router_id.to_string(),
                "aggregate_addresses": v.aggregates.iter().filter(|a| a.addr().is_ipv4())
                    .map(|a| json!({"prefix": a.to_string(), "summary_only": true}))
                    .collect::<Vec<_>>(),
                "redistribute": {"connected": if v.redistribute.is_empty() {
                    json!({"enabled": true})
                } else {
                    json!({"enabled": true, "route_map": format!("CONNECTED-TO-BGP-{}", v.name)})
                }},
            }))
            .collect::<Vec<_>>()
    );
}

fn qos(sc: &mut serde_json::Map<String, Value>, q: &railyard::intent::Qos) {
    // Egress queues: ETS weights, strict classes, ECN on the RoCE class (thresholds in bytes).
    let mut queues: BTreeMap<u8, Value> = BTreeMap::new();
    for e in &q.ets {
        queues.insert(
            e.traffic_class,
            json!({"id": e.traffic_class, "priority": "no priority", "bandwidth_percent": e.weight}),
        );
    }
    for &tc in &q.strict_traffic_classes {
        queues.insert(tc, json!({"id": tc, "priority": "priority strict"}));
    }
    let ecn = queues
        .entry(q.ecn.traffic_class)
        .or_insert_with(|| json!({"id": q.ecn.traffic_class, "priority": "no priority"}));
    ecn["random_detect"] = json!({"ecn": {"threshold": {
        "units": "bytes", "min": q.ecn.min_bytes, "max": q.ecn.max_bytes,
        "max_probability": q.ecn.probability}}});
    let mut profile = json!({
        "name": "ROCE",
        "trust": "dscp",
        "uc_tx_queues": queues.into_values().collect::<Vec<_>>(),
    });
    let lossless = q.mode == QosMode::Lossless && !q.pfc_priorities.is_empty();
    if lossless {
        profile["priority_flow_control"] = json!({
            "enabled": true,
            "priorities": q.pfc_priorities.iter().map(|p| json!({"priority": p, "no_drop": true})).collect::<Vec<_>>(),
        });
        if q.pfc_watchdog.is_some() {
            profile["priority_flow_control"]["watchdog"] = json!({"enabled": true});
        }
    }
    sc.insert("qos_profiles".into(), json!([profile]));
    let mut maps: BTreeMap<u8, String> = BTreeMap::new();
    for c in [&q.roce, &q.cnp] {
        maps.insert(
            c.dscp,
            format!("{} to traffic-class {}", c.dscp, c.traffic_class),
        );
    }
    sc.insert(
        "qos".into(),
        json!({"map": {"dscp": maps.into_values().collect::<Vec<_>>()}}),
    );
    if let Some(w) = &q.pfc_watchdog {
        sc.insert(
            "priority_flow_control".into(),
            json!({"watchdog": {
                "action": w.action,
                "timeout": seconds(w.detection_ms),
                "recovery_time": seconds(w.restoration_ms),
            }}),
        );
    }
}
