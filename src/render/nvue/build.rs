//! Intent → NVUE tree: every NVUE-specific decision (names, rule numbers, timers, tokens) is taken
//! here, once, for both files.
//!
//! Tenancy (EVPN-VXLAN, symmetric routing with one L3VNI per tenant VRF, type-5 routes only):
//! relays carry the l2vpn-evpn family; VTEP leaves add `evpn`, `nve vxlan` (copying the RoCE DSCP
//! into the outer header), the tenant VRFs with their BGP instances, and the ports' VRFs.

use std::collections::BTreeMap;

use ipnet::IpNet;

use super::tree::*;
use crate::intent::{self, Bgp, DeviceIntent, GracefulRestartMode, QosMode};

/// Placeholder for the SNMP trap community: secrets never come from the spec. The script expands
/// it from the environment at run time; `startup.yaml` keeps it for push-time substitution.
pub(super) const SNMP_COMMUNITY_VAR: &str = "SNMP_TRAP_COMMUNITY";
pub(super) const SNMP_COMMUNITY: &str = "${SNMP_TRAP_COMMUNITY}";

/// Route maps (and their prefix lists) that gate `redistribute connected`; the FRR names.
const REDIST_V4: &str = "CONNECTED-TO-BGP";
const REDIST_V6: &str = "CONNECTED-TO-BGP-V6";
/// Route maps (and their prefix lists) of a leaf's outbound policy; the FRR names.
const EXPORT_V4: &str = "FABRIC-OUT";
const EXPORT_V6: &str = "FABRIC-OUT-V6";
/// The inbound route map that prefers global IPv6 next hops (`Bgp::ipv6_prefer_global`).
const PREFER_GLOBAL: &str = "FABRIC-IN-PREFER-GLOBAL";
/// The QoS profile NVUE applies to every port unless told otherwise.
const PROFILE: &str = "default-global";

/// VXLAN tunnel DSCP on a VTEP: the outer header copies the inner DSCP on encapsulation, and the
/// inner DSCP is left as the host set it on decapsulation, so RoCE (and its CNPs) keep their class
/// across the underlay. NVUE's default for both is `derive` (from the switch priority).
const ENCAP_DSCP: &str = "copy";
const DECAP_DSCP: &str = "preserve";

/// What the script says about the tree beyond the settings themselves.
#[derive(Debug, Default, serde::Serialize)]
pub(super) struct Notes {
    /// Tenant VRFs on a switch without BGP: they isolate locally but exchange no routes.
    pub vrfs_without_bgp: bool,
    /// The plan's PFC watchdog action when NVUE cannot do it (its watchdog always discards).
    pub unsupported_watchdog_action: Option<String>,
    /// The switch is a VTEP: the script explains the tunnel DSCP choice.
    pub vtep: bool,
    /// Environment variables the script needs (secret placeholders in the tree), with what each
    /// holds: the shell expands them, so the script fails before `nv set` while one is unset.
    pub secrets: BTreeMap<String, &'static str>,
}

/// The variable a whole-value `${NAME}` placeholder names.
pub(super) fn placeholder(value: &str) -> Option<&str> {
    value.strip_prefix("${")?.strip_suffix('}')
}

fn state(on: bool) -> &'static str {
    if on { "enabled" } else { "disabled" }
}

pub(super) fn tree(d: &DeviceIntent) -> (Tree, Notes) {
    let mut t = Tree {
        system: System {
            hostname: d.hostname.clone(),
            ..System::default()
        },
        ..Tree::default()
    };
    let mut notes = Notes::default();
    system(&mut t, d, &mut notes);
    interfaces(&mut t, d);
    switching(&mut t, d);
    if let Some(b) = &d.bgp {
        bgp(&mut t, b, d.evpn.is_some());
        if let Some(var) = b.password.as_deref().and_then(placeholder) {
            notes
                .secrets
                .insert(var.to_string(), "the BGP session password");
        }
        policy(&mut t, b, &d.vrfs);
    }
    if let Some(e) = &d.evpn {
        evpn(&mut t, e, &mut notes);
    }
    tenant_vrfs(&mut t, d, &mut notes);
    if let Some(q) = &d.qos {
        qos(&mut t, q, &mut notes);
    }
    if let Some(ar) = d.adaptive_routing.as_ref().filter(|a| !a.ports.is_empty()) {
        t.router.adaptive_routing = Some(ENABLED);
        for p in &ar.ports {
            iface(&mut t, p).router = Some(IfRouter {
                adaptive_routing: ENABLED,
            });
        }
    }
    (t, notes)
}

fn iface<'t>(t: &'t mut Tree, name: &str) -> &'t mut Iface {
    t.interface.entry(name.to_string()).or_default()
}

/// Management port and VRF, and the services reached through it.
fn system(t: &mut Tree, d: &DeviceIntent, notes: &mut Notes) {
    let s = &d.system;
    let vrf = s
        .mgmt
        .as_ref()
        .map_or_else(|| "default".to_string(), |m| m.vrf.clone());
    let in_vrf = |list: &[String]| -> BTreeMap<String, InVrf> {
        list.iter()
            .map(|x| (x.clone(), InVrf { vrf: vrf.clone() }))
            .collect()
    };
    if s.domain.is_some() || !s.dns.is_empty() {
        t.system.dns = Some(Dns {
            domain: s.domain.clone(),
            server: in_vrf(&s.dns),
        });
    }
    if !s.ntp.is_empty() {
        t.system.ntp = Some(Ntp {
            server: s
                .ntp
                .iter()
                .map(|x| {
                    (
                        x.clone(),
                        NtpServer {
                            iburst: state(true),
                        },
                    )
                })
                .collect(),
            vrf: vrf.clone(),
        });
    }
    if !s.syslog.is_empty() {
        t.system.syslog = Some(Syslog {
            server: in_vrf(&s.syslog),
        });
    }
    if !s.snmp_traps.is_empty() {
        notes
            .secrets
            .insert(SNMP_COMMUNITY_VAR.to_string(), "the SNMP trap community");
        let trap = || TrapDestination {
            vrf: BTreeMap::from([(
                vrf.clone(),
                TrapVrf {
                    community_password: BTreeMap::from([(
                        SNMP_COMMUNITY.to_string(),
                        TrapVersion { version: "2c" },
                    )]),
                },
            )]),
        };
        t.system.snmp_server = Some(Snmp {
            state: state(true),
            trap_destination: s.snmp_traps.iter().map(|x| (x.clone(), trap())).collect(),
        });
    }
    if let Some(m) = &s.mgmt {
        let i = iface(t, &m.interface);
        i.kind = Some("eth");
        i.vrf = Some(m.vrf.clone());
        // DHCP is on by default on the management port; a static address replaces it.
        let mut v4 = IpFamily {
            dhcp_client: Some(DISABLED),
            ..IpFamily::default()
        };
        match m.address {
            IpNet::V4(_) => v4.address = keys([m.address]),
            IpNet::V6(_) => {
                i.ipv6 = Some(IpFamily {
                    address: keys([m.address]),
                    ..IpFamily::default()
                });
            }
        }
        i.ipv4 = Some(v4);
        t.vrf
            .entry(m.vrf.clone())
            .or_default()
            .router
            .static_routes
            .insert(
                "0.0.0.0/0".to_string(),
                StaticRoute {
                    via: keys([m.gateway]),
                },
            );
    }
}

fn interfaces(t: &mut Tree, d: &DeviceIntent) {
    for b in &d.breakouts {
        // NVUE names the mode by the number of ports the cage splits into.
        iface(t, &b.port).link = Some(Link {
            breakout: Some(keys([format!("{}x", b.ports)])),
            ..Link::default()
        });
    }
    let lo = &d.loopback;
    let v4: Vec<IpNet> = lo.ipv4.iter().chain(&lo.vtep).copied().collect();
    let l = iface(t, "lo");
    l.kind = Some("loopback");
    if !v4.is_empty() {
        l.ipv4 = Some(IpFamily {
            address: keys(v4),
            ..IpFamily::default()
        });
    }
    if let Some(v6) = lo.ipv6 {
        l.ipv6 = Some(IpFamily {
            address: keys([v6]),
            ..IpFamily::default()
        });
    }
    for i in &d.interfaces {
        let e = iface(t, &i.name);
        e.kind = Some("swp");
        e.description = Some(i.description.clone());
        e.link = Some(Link {
            mtu: Some(i.mtu),
            state: Some(keys(["up"])),
            ..Link::default()
        });
        e.ipv4 = i.ipv4.map(|a| IpFamily {
            address: keys([a]),
            ..IpFamily::default()
        });
        e.ipv6 = i.ipv6.map(|a| IpFamily {
            address: keys([a]),
            ..IpFamily::default()
        });
        e.vrf.clone_from(&i.vrf);
    }
}

/// Cumulus Linux's one VLAN-aware bridge.
const BRIDGE: &str = "br_default";

/// OOB switches and the OOB gateway: the management VLANs on the bridge, access ports untagged
/// in their VLAN, the uplink trunk tagged in every VLAN, a VLAN interface per subnet the switch
/// has an address in (the gateway: every subnet's first address), and the switch's default route
/// to its subnet's gateway.
fn switching(t: &mut Tree, d: &DeviceIntent) {
    let Some(l2) = &d.l2 else { return };
    t.bridge = Some(Bridge {
        domain: BTreeMap::from([(
            BRIDGE.to_string(),
            BridgeDomain {
                vlan: keys(l2.vlans.iter().map(|v| v.id)),
            },
        )]),
    });
    for i in &d.interfaces {
        if i.access_vlan.is_none() && i.trunk_vlans.is_empty() {
            continue;
        }
        iface(t, &i.name).bridge = Some(IfBridge {
            domain: BTreeMap::from([(
                BRIDGE.to_string(),
                IfBridgeDomain {
                    access: i.access_vlan,
                    vlan: keys(&i.trunk_vlans),
                },
            )]),
        });
    }
    for s in &l2.svis {
        let e = iface(t, &s.name);
        e.kind = Some("svi");
        e.vlan = Some(s.vlan);
        e.description = Some(s.vlan_name.clone());
        e.ipv4 = Some(IpFamily {
            address: keys([s.address]),
            ..IpFamily::default()
        });
    }
    if let Some(gw) = l2.default_gateway {
        t.vrf
            .entry("default".to_string())
            .or_default()
            .router
            .static_routes
            .insert("0.0.0.0/0".to_string(), StaticRoute { via: keys([gw]) });
    }
}

/// The underlay: one instance in the default VRF, one peer group carrying every session, BFD
/// through a profile on the peer group (CL 5.15 has no per-peer `bfd enable`).
fn bgp(t: &mut Tree, b: &Bgp, evpn: bool) {
    t.router.bgp = Some(router_bgp(b));
    if let Some(f) = &b.bfd {
        t.router.bfd = Some(bfd_profile(f));
    }
    // The IPv6 family exists only when IPv6 prefixes are redistributed.
    let v6 = !b.redistribute_v6.is_empty();
    let instance = VrfBgp {
        address_family: AddressFamilies {
            ipv4_unicast: unicast(b, REDIST_V4, &b.redistribute, false),
            ipv6_unicast: v6.then(|| unicast(b, REDIST_V6, &b.redistribute_v6, true)),
            l2vpn_evpn: evpn.then_some(ENABLED),
        },
        autonomous_system: None,
        neighbor: neighbors(b),
        path_selection: b.multipath_relax.then(|| PathSelection {
            multipath: Multipath {
                aspath_ignore: state(true),
            },
        }),
        peer_group: BTreeMap::from([(b.peer_group.clone(), peer_group(b, v6, evpn))]),
        rd: None,
        route_export: None,
        route_import: None,
        router_id: None,
        state: state(true),
    };
    t.vrf.entry("default".to_string()).or_default().router.bgp = Some(instance);
}

/// `router bgp`: the ASN, router-id and graceful restart.
fn router_bgp(b: &Bgp) -> RouterBgp {
    let gr = &b.graceful_restart;
    let timers = gr.mode != GracefulRestartMode::Disabled;
    RouterBgp {
        autonomous_system: b.asn,
        graceful_restart: Some(GracefulRestart {
            mode: match gr.mode {
                GracefulRestartMode::HelperOnly => "helper-only",
                GracefulRestartMode::Full => "full",
                GracefulRestartMode::Disabled => "off",
            },
            restart_time: timers.then_some(gr.restart_time_s),
            stale_routes_time: timers.then_some(gr.stale_path_time_s),
        }),
        router_id: b.router_id.to_string(),
        state: state(true),
    }
}

/// `router bfd`: the one profile the peer group uses.
fn bfd_profile(f: &intent::Bfd) -> Bfd {
    Bfd {
        profile: BTreeMap::from([(
            f.profile.clone(),
            BfdProfile {
                detect_multiplier: f.multiplier,
                min_rx_interval: f.interval_ms,
                min_tx_interval: f.interval_ms,
            },
        )]),
        state: state(true),
    }
}

/// A unicast family of the instance: aggregates, multipath, `redistribute connected` through
/// `route_map` when there are prefixes to redistribute.
fn unicast(b: &Bgp, route_map: &str, rules: &[intent::PrefixRule], v6: bool) -> Unicast {
    Unicast {
        aggregate_route: aggregates(&b.aggregates, v6),
        multipaths: Some(Multipaths {
            ebgp: b.maximum_paths,
        }),
        redistribute: (!rules.is_empty()).then(|| Redistribute {
            connected: Connected {
                route_map: Some(route_map.to_string()),
                state: state(true),
            },
        }),
        route_export: None,
        state: state(true),
    }
}

/// The peer group carrying every session: its families, BFD profile, password and GTSM.
fn peer_group(b: &Bgp, v6: bool, evpn: bool) -> PeerGroup {
    let limit = |f: fn(&intent::MaxPrefix) -> u32| b.max_prefix.as_ref().map(f);
    PeerGroup {
        address_family: PeerGroupFamilies {
            ipv4_unicast: peer_family(
                b,
                limit(|m| m.ipv4),
                (!b.export.is_empty()).then_some(EXPORT_V4),
            ),
            ipv6_unicast: v6.then(|| {
                peer_family(
                    b,
                    limit(|m| m.ipv6),
                    (!b.export_v6.is_empty()).then_some(EXPORT_V6),
                )
            }),
            // EVPN routes' next hops are VTEP addresses: no route map.
            l2vpn_evpn: evpn.then(|| PeerGroupFamily {
                policy: None,
                ..peer_family(b, None, None)
            }),
        },
        bfd: b.bfd.as_ref().map(|f| PeerGroupBfd {
            profile: f.profile.clone(),
        }),
        password: b.password.clone(),
        ttl_security: b.gtsm.then(|| TtlSecurity {
            hops: 1,
            state: state(true),
        }),
    }
}

/// A unicast family's route maps: the leaf's outbound export, and inbound the global IPv6 next
/// hop preference.
fn peer_policy(b: &Bgp, export: Option<&str>) -> Option<PeerPolicy> {
    let map = |m: &str| Outbound {
        route_map: m.to_string(),
    };
    let inbound = b.ipv6_prefer_global.then(|| map(PREFER_GLOBAL));
    let outbound = export.map(map);
    (inbound.is_some() || outbound.is_some()).then_some(PeerPolicy { inbound, outbound })
}

/// A family of the peer group. `allowas-in 1`: with leaf ASN reuse a leaf accepts routes
/// carrying its own ASN once. Unicast families add the plan's prefix limit and, on leaves, the
/// outbound policy.
fn peer_family(b: &Bgp, limit: Option<u32>, export: Option<&str>) -> PeerGroupFamily {
    PeerGroupFamily {
        aspath: b.allowas_in.then(|| AsPath {
            allow_my_asn: AllowMyAsn {
                occurrences: 1,
                state: state(true),
            },
        }),
        policy: peer_policy(b, export),
        prefix_limits: b
            .max_prefix
            .as_ref()
            .zip(limit.filter(|&n| n > 0))
            .map(|(m, maximum)| PrefixLimits {
                inbound: PrefixLimitsInbound {
                    maximum,
                    reestablish_wait: m.restart_minutes,
                    warning_only: m.restart_minutes.is_none().then_some(state(true)),
                    warning_threshold: m.warning_percent,
                },
            }),
        state: state(true),
    }
}

/// The sessions: numbered ones keyed by the peer's address, unnumbered ones by the interface.
fn neighbors(b: &Bgp) -> BTreeMap<String, Neighbor> {
    b.neighbors
        .iter()
        .map(|n| {
            let (id, kind) = match n.address {
                Some(a) => (a.to_string(), "numbered"),
                None => (n.interface.clone(), "unnumbered"),
            };
            let neighbor = Neighbor {
                description: format!("{}:{}", n.peer_device, n.peer_port),
                peer_group: b.peer_group.clone(),
                remote_as: n.remote_asn,
                kind,
            };
            (id, neighbor)
        })
        .collect()
}

/// `aggregate-route <prefix> summary-only` for the aggregates of one family.
fn aggregates(nets: &[IpNet], v6: bool) -> BTreeMap<String, Aggregate> {
    nets.iter()
        .filter(|a| matches!(a, IpNet::V6(_)) == v6)
        .map(|a| {
            let summary = Aggregate {
                summary_only: state(true),
            };
            (a.to_string(), summary)
        })
        .collect()
}

/// The route map gating a tenant VRF's `redistribute connected` (the FRR name).
fn vrf_redist(v: &intent::Vrf) -> String {
    format!("{REDIST_V4}-{}", v.name)
}

/// Prefix lists and route maps behind `redistribute connected` (default and tenant VRFs) and
/// behind a leaf's outbound policy: rule numbers step by 10 so a hand-added rule fits between two
/// generated ones.
fn policy(t: &mut Tree, b: &Bgp, vrfs: &[intent::Vrf]) {
    let mut p = Policy::default();
    let tenant: Vec<(String, &[intent::PrefixRule])> = vrfs
        .iter()
        .map(|v| (vrf_redist(v), v.redistribute.as_slice()))
        .collect();
    let lists = [
        (REDIST_V4, "ipv4", b.redistribute.as_slice()),
        (REDIST_V6, "ipv6", b.redistribute_v6.as_slice()),
        (EXPORT_V4, "ipv4", b.export.as_slice()),
        (EXPORT_V6, "ipv6", b.export_v6.as_slice()),
    ]
    .into_iter()
    .chain(tenant.iter().map(|(n, r)| (n.as_str(), "ipv4", *r)));
    for (name, family, rules) in lists {
        if rules.is_empty() {
            continue;
        }
        let rule = (10..)
            .step_by(10)
            .zip(rules)
            .map(|(id, r)| {
                let matches = BTreeMap::from([(
                    r.prefix.to_string(),
                    PrefixMatch {
                        max_prefix_len: r.le,
                    },
                )]);
                (
                    id,
                    PrefixListRule {
                        action: "permit",
                        matches,
                    },
                )
            })
            .collect();
        p.prefix_list
            .insert(name.to_string(), PrefixList { rule, kind: family });
        let rule = RouteMapRule {
            action: keys(["permit"]),
            matches: Some(RouteMapMatch {
                ip_prefix_list: name.to_string(),
                kind: family,
            }),
            set: None,
        };
        p.route_map.insert(
            name.to_string(),
            RouteMap {
                rule: BTreeMap::from([(10, rule)]),
            },
        );
    }
    if b.ipv6_prefer_global {
        let rule = RouteMapRule {
            action: keys(["permit"]),
            matches: None,
            set: Some(RouteMapSet {
                ipv6_nexthop_prefer_global: "enabled",
            }),
        };
        p.route_map.insert(
            PREFER_GLOBAL.to_string(),
            RouteMap {
                rule: BTreeMap::from([(10, rule)]),
            },
        );
    }
    if !p.prefix_list.is_empty() || !p.route_map.is_empty() {
        t.router.policy = Some(p);
    }
}

/// `evpn state enabled` on VTEPs (NVUE's switch for advertising the local VNIs); relays (spines)
/// only carry the address family, set with the underlay.
fn evpn(t: &mut Tree, e: &intent::Evpn, notes: &mut Notes) {
    if e.advertise_all_vni {
        t.evpn = Some(ENABLED);
    }
    if let Some(vtep) = e.vtep {
        notes.vtep = true;
        let dscp = |action| TunnelDscp {
            dscp: DscpAction { action },
        };
        t.nve = Some(Nve {
            vxlan: Vxlan {
                decapsulation: dscp(DECAP_DSCP),
                encapsulation: dscp(ENCAP_DSCP),
                source: VxlanSource {
                    address: vtep.addr().to_string(),
                },
                state: state(true),
            },
        });
    }
}

/// Tenant VRFs: with EVPN an L3VNI (its VLAN from the plan, so the SVI is the same on every leaf)
/// and a BGP instance in the device ASN and router-id exporting connected routes as type-5; without
/// EVPN a local VRF (`table auto`).
fn tenant_vrfs(t: &mut Tree, d: &DeviceIntent, notes: &mut Notes) {
    let evpn = d.evpn.is_some();
    notes.vrfs_without_bgp = !d.vrfs.is_empty() && d.bgp.is_none();
    for v in &d.vrfs {
        let vrf = t.vrf.entry(v.name.clone()).or_default();
        if !evpn {
            vrf.table = Some("auto");
            continue;
        }
        vrf.evpn = Some(VrfEvpn {
            state: state(true),
            vlan: v.vlan,
            vni: keys([v.l3vni]),
        });
        let Some(b) = &d.bgp else {
            continue;
        };
        let targets = |rts: &[String]| RouteTargets {
            route_target: keys(rts),
        };
        vrf.router.bgp = Some(VrfBgp {
            address_family: AddressFamilies {
                ipv4_unicast: Unicast {
                    aggregate_route: aggregates(&v.aggregates, false),
                    multipaths: None,
                    redistribute: Some(Redistribute {
                        connected: Connected {
                            route_map: (!v.redistribute.is_empty()).then(|| vrf_redist(v)),
                            state: state(true),
                        },
                    }),
                    route_export: Some(AfToEvpn { to_evpn: ENABLED }),
                    state: state(true),
                },
                ipv6_unicast: None,
                l2vpn_evpn: None,
            },
            autonomous_system: Some(b.asn),
            neighbor: BTreeMap::new(),
            path_selection: None,
            peer_group: BTreeMap::new(),
            rd: (!v.rd.is_empty()).then(|| v.rd.clone()),
            route_export: (!v.export.is_empty()).then(|| ToEvpn {
                to_evpn: targets(&v.export),
            }),
            route_import: (!v.import.is_empty()).then(|| FromEvpn {
                from_evpn: targets(&v.import),
            }),
            router_id: Some(b.router_id.to_string()),
            state: state(true),
        });
    }
}

fn qos(t: &mut Tree, q: &intent::Qos, notes: &mut Notes) {
    let lossless = q.mode == QosMode::Lossless && !q.pfc_priorities.is_empty();
    // NVUE only runs the watchdog on ports with PFC, so a lossy plan has none.
    let watchdog = q.pfc_watchdog.as_ref().filter(|_| lossless).map(|w| {
        // The NVUE watchdog restores after one quiet polling interval and mitigates after
        // `robustness` paused intervals: poll at the restoration time, count up to the detection
        // time. Ranges from the NVUE reference: polling 100-5000 ms, robustness 1-1000.
        let poll = w.restoration_ms.clamp(100, 5000);
        if w.action != "drop" {
            notes.unsupported_watchdog_action = Some(w.action.clone());
        }
        Watchdog {
            polling_interval: poll,
            robustness: w.detection_ms.div_ceil(poll).clamp(1, 1000),
        }
    });
    let mut scheduler = BTreeMap::new();
    for e in &q.ets {
        scheduler.insert(
            e.traffic_class,
            SchedulerClass {
                bw_percent: Some(e.weight),
                mode: "dwrr",
            },
        );
    }
    for &tc in &q.strict_traffic_classes {
        scheduler.insert(
            tc,
            SchedulerClass {
                bw_percent: None,
                mode: "strict",
            },
        );
    }
    let classes = [&q.roce, &q.cnp];
    t.qos = Some(Qos {
        congestion_control: BTreeMap::from([(
            PROFILE,
            CongestionControl {
                traffic_class: BTreeMap::from([(
                    q.ecn.traffic_class,
                    EcnClass {
                        ecn: "enable",
                        max_threshold: q.ecn.max_bytes,
                        min_threshold: q.ecn.min_bytes,
                        probability: q.ecn.probability,
                    },
                )]),
            },
        )]),
        egress_queue_mapping: BTreeMap::from([(
            PROFILE,
            QueueMapping {
                switch_priority: classes
                    .iter()
                    .map(|c| {
                        (
                            c.priority,
                            ToTrafficClass {
                                traffic_class: c.traffic_class,
                            },
                        )
                    })
                    .collect(),
            },
        )]),
        egress_scheduler: BTreeMap::from([(
            PROFILE,
            Scheduler {
                traffic_class: scheduler,
            },
        )]),
        mapping: BTreeMap::from([(
            PROFILE,
            Mapping {
                dscp: classes
                    .iter()
                    .map(|c| {
                        (
                            c.dscp,
                            ToSwitchPriority {
                                switch_priority: c.priority,
                            },
                        )
                    })
                    .collect(),
                trust: "l3",
            },
        )]),
        pfc: if lossless {
            BTreeMap::from([(
                PROFILE,
                Pfc {
                    rx: "enable",
                    switch_priority: keys(&q.pfc_priorities),
                    tx: "enable",
                },
            )])
        } else {
            BTreeMap::new()
        },
        pfc_watchdog: watchdog,
        roce: Roce {
            mode: match q.mode {
                QosMode::Lossless => "lossless",
                QosMode::Lossy => "lossy",
            },
            state: state(true),
        },
    });
    if t.qos.as_ref().is_some_and(|q| q.pfc_watchdog.is_some()) {
        for p in &q.ports {
            iface(t, p).qos = Some(IfQos {
                pfc_watchdog: Toggle { state: "enable" },
            });
        }
    }
}
