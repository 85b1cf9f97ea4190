//! NVIDIA Cumulus Linux through NVUE, Cumulus Linux 5.15 syntax (`state enabled`, `ipv4 address`,
//! `system ntp|dns|syslog`, BFD profiles): the release whose "New and Changed NVUE Commands" page
//! introduced those forms; 5.16 keeps them.
//!
//! Input: one [`DeviceIntent`]. Output: `nv-set.sh` (the `nv set` command list, from the
//! `templates/nvue/` templates) and `startup.yaml` (the same settings as the NVUE startup file,
//! serialized from the typed `Tree`). Both read one `View`, where every NVUE-specific decision
//! is taken (tokens, names, rule numbers, timers, quoting), so the two files cannot drift apart on a
//! decision; `tests/render_nvue.rs` checks that they carry the same settings.
//!
//! Tenancy (EVPN-VXLAN, symmetric routing with one L3VNI per tenant VRF, type-5 routes only):
//! relays carry the l2vpn-evpn family; VTEP leaves add `evpn`, `nve vxlan` (copying the RoCE DSCP
//! into the outer header), the tenant VRFs with their BGP instances, and the ports' VRFs.

use std::collections::BTreeMap;

use ipnet::IpNet;
use minijinja::{Environment, Value};
use serde::Serialize;

use super::{RenderError, template};
use crate::intent::{Bgp, DeviceIntent, Evpn, PrefixRule, Qos, QosMode, Vrf as TenantVrf};

/// The Cumulus Linux release the syntax targets; printed in the script header.
pub const RELEASE: &str = "5.15";

/// Placeholder for the SNMP trap community: secrets never come from the spec. The script expands
/// it from the environment at run time; `startup.yaml` keeps it for push-time substitution.
const SNMP_COMMUNITY_VAR: &str = "SNMP_TRAP_COMMUNITY";

/// Route maps (and their prefix lists) that gate `redistribute connected`; the FRR names.
const REDIST_V4: &str = "CONNECTED-TO-BGP";
const REDIST_V6: &str = "CONNECTED-TO-BGP-V6";
const PROFILE: &str = "default-global";

/// VXLAN tunnel DSCP on a VTEP: the outer header copies the inner DSCP on encapsulation, and the
/// inner DSCP is left as the host set it on decapsulation, so RoCE (and its CNPs) keep their class
/// across the underlay. NVUE's default for both is `derive` (from the switch priority).
const ENCAP_DSCP: &str = "copy";
const DECAP_DSCP: &str = "preserve";

pub fn render(
    env: &Environment<'_>,
    d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    let view = View::new(d);
    let ctx = minijinja::context! {
        d => Value::from_serialize(d),
        nv => Value::from_serialize(&view),
    };
    let script = template(env, &d.hostname, "nvue/main.j2", ctx)?;
    let startup = crate::spec::to_yaml(&vec![Doc {
        set: Tree::new(&view),
    }]);
    Ok(vec![
        ("nv-set.sh".into(), script),
        ("startup.yaml".into(), startup),
    ])
}

// ---------------------------------------------------------------------------------------------
// The view: every value both outputs print, decided once.
// ---------------------------------------------------------------------------------------------

/// Free text that reaches the shell: the raw value for YAML and a word safe for `bash`.
#[derive(Clone, Debug, Serialize)]
struct Text {
    raw: String,
    sh: String,
}

impl Text {
    fn new(s: &str) -> Self {
        Self {
            raw: s.to_string(),
            sh: shell_word(s),
        }
    }
}

/// One shell word: left bare when it holds only characters the shell does not interpret, else
/// single-quoted (names and descriptions come from the spec and may hold anything).
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.:/@+-,=%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn state(on: bool) -> &'static str {
    if on { "enabled" } else { "disabled" }
}

#[derive(Debug, Serialize)]
struct View {
    release: &'static str,
    hostname: Text,
    domain: Option<Text>,
    mgmt: Option<MgmtView>,
    /// VRF the management services (NTP, DNS, syslog, SNMP traps) reach their servers through.
    services_vrf: String,
    ntp: Vec<Text>,
    dns: Vec<Text>,
    syslog: Vec<Text>,
    snmp_traps: Vec<Text>,
    snmp_community: Text,
    snmp_community_var: &'static str,
    breakouts: Vec<BreakoutView>,
    loopback_v4: Vec<String>,
    loopback_v6: Vec<String>,
    interfaces: Vec<IfView>,
    bgp: Option<BgpView>,
    prefix_lists: Vec<PrefixListView>,
    route_maps: Vec<RouteMapView>,
    qos: Option<QosView>,
    ar_ports: Vec<String>,
    evpn: Option<EvpnView>,
    /// Tenant VRFs (leaves with tenant ports).
    vrfs: Vec<VrfView>,
}

#[derive(Debug, Serialize)]
struct MgmtView {
    interface: String,
    vrf: String,
    /// `ipv4` or `ipv6`: the NVUE container of the address.
    family: &'static str,
    address: String,
    default_route: &'static str,
    gateway: String,
}

#[derive(Debug, Serialize)]
struct BreakoutView {
    port: String,
    /// NVUE breakout mode id (`2x`, `4x`): the number of ports the cage splits into.
    mode: String,
}

#[derive(Debug, Serialize)]
struct IfView {
    name: String,
    description: Text,
    mtu: u32,
    ipv4: Option<String>,
    ipv6: Option<String>,
    /// Tenant VRF of a host port.
    vrf: Option<String>,
}

#[derive(Debug, Serialize)]
struct EvpnView {
    /// `evpn state enabled`: NVUE's switch for advertising the local VNIs (`advertise-all-vni`);
    /// VTEP leaves only, relays (spines) just carry the address family.
    advertise_all_vni: bool,
    /// VXLAN tunnel source address (VTEPs only), without its prefix length.
    vtep: Option<String>,
    encap_dscp: &'static str,
    decap_dscp: &'static str,
    /// The fabric peer group the l2vpn-evpn family is activated on; `None` without BGP.
    peer_group: Option<String>,
    /// Leaf ASN reuse: EVPN routes from a leaf sharing our ASN are accepted too.
    allow_my_asn: Option<u8>,
}

#[derive(Debug, Serialize)]
struct VrfView {
    name: String,
    l3vni: u32,
    /// VLAN of the L3VNI's internal SVI (`vlan<id>_l3`); NVUE picks one itself when unset.
    vlan: u32,
    /// `None` on a switch without BGP: the VRF then isolates locally but exchanges no routes.
    bgp: Option<TenantBgpView>,
    /// The switch runs EVPN, so the VRF gets its L3VNI.
    evpn: bool,
}

#[derive(Debug, Serialize)]
struct TenantBgpView {
    asn: u64,
    router_id: String,
    rd: Option<String>,
    import: Vec<String>,
    export: Vec<String>,
}

#[derive(Debug, Serialize)]
struct BgpView {
    asn: u64,
    router_id: String,
    peer_group: String,
    bfd: Option<BfdView>,
    multipaths: u32,
    aspath_ignore: bool,
    /// `allowas-in 1`: the local ASN may appear once in a received path (leaf ASN reuse).
    allow_my_asn: Option<u8>,
    neighbors: Vec<NeighborView>,
    v4: AfView,
    /// Only when IPv6 prefixes are redistributed.
    v6: Option<AfView>,
}

#[derive(Debug, Serialize)]
struct BfdView {
    profile: String,
    multiplier: u32,
    interval_ms: u32,
}

#[derive(Debug, Serialize)]
struct NeighborView {
    /// The interface (unnumbered) or the peer address (numbered).
    id: String,
    kind: &'static str,
    remote_as: u64,
    description: Text,
}

#[derive(Debug, Serialize)]
struct AfView {
    /// `ipv4-unicast` or `ipv6-unicast`.
    name: &'static str,
    route_map: Option<String>,
    aggregates: Vec<String>,
}

#[derive(Debug, Serialize)]
struct PrefixListView {
    name: String,
    /// `ipv4` or `ipv6`.
    family: &'static str,
    rules: Vec<PrefixRuleView>,
}

#[derive(Debug, Serialize)]
struct PrefixRuleView {
    id: u32,
    prefix: String,
    max_prefix_len: Option<u8>,
}

#[derive(Debug, Serialize)]
struct RouteMapView {
    name: String,
    rule: u32,
    family: &'static str,
    prefix_list: String,
}

#[derive(Debug, Serialize)]
struct QosView {
    profile: &'static str,
    mode: &'static str,
    trust: &'static str,
    dscp_map: Vec<DscpView>,
    queue_map: Vec<QueueView>,
    pfc: Vec<u8>,
    ecn: EcnView,
    scheduler: Vec<SchedView>,
    watchdog: Option<WatchdogView>,
    watchdog_ports: Vec<String>,
}

#[derive(Debug, Serialize)]
struct DscpView {
    dscp: u8,
    switch_priority: u8,
}

#[derive(Debug, Serialize)]
struct QueueView {
    switch_priority: u8,
    traffic_class: u8,
}

#[derive(Debug, Serialize)]
struct EcnView {
    traffic_class: u8,
    min_threshold: u32,
    max_threshold: u32,
    probability: u8,
}

#[derive(Debug, Serialize)]
struct SchedView {
    traffic_class: u8,
    mode: &'static str,
    bw_percent: Option<u8>,
}

#[derive(Debug, Serialize)]
struct WatchdogView {
    polling_interval_ms: u32,
    robustness: u32,
    /// The NVUE watchdog always discards on a storm; a different intent action is reported here.
    action: String,
    action_supported: bool,
}

impl View {
    fn new(d: &DeviceIntent) -> Self {
        let mgmt = d.system.mgmt.as_ref().map(|m| MgmtView {
            interface: m.interface.clone(),
            vrf: m.vrf.clone(),
            family: family(&m.address),
            address: m.address.to_string(),
            default_route: "0.0.0.0/0",
            gateway: m.gateway.to_string(),
        });
        let services_vrf = mgmt
            .as_ref()
            .map_or_else(|| "default".to_string(), |m| m.vrf.clone());
        let texts = |v: &[String]| v.iter().map(|s| Text::new(s)).collect::<Vec<_>>();
        let lo = &d.loopback;
        let (prefix_lists, route_maps) = d.bgp.as_ref().map(policy).unwrap_or_default();
        Self {
            release: RELEASE,
            hostname: Text::new(&d.hostname),
            domain: d.system.domain.as_deref().map(Text::new),
            mgmt,
            services_vrf,
            ntp: texts(&d.system.ntp),
            dns: texts(&d.system.dns),
            syslog: texts(&d.system.syslog),
            snmp_traps: texts(&d.system.snmp_traps),
            snmp_community: Text {
                raw: format!("${{{SNMP_COMMUNITY_VAR}}}"),
                sh: format!("\"${{{SNMP_COMMUNITY_VAR}}}\""),
            },
            snmp_community_var: SNMP_COMMUNITY_VAR,
            breakouts: d
                .breakouts
                .iter()
                .map(|b| BreakoutView {
                    port: b.port.clone(),
                    mode: format!("{}x", b.ports),
                })
                .collect(),
            loopback_v4: lo
                .ipv4
                .iter()
                .chain(&lo.vtep)
                .map(IpNet::to_string)
                .collect(),
            loopback_v6: lo.ipv6.iter().map(IpNet::to_string).collect(),
            interfaces: d
                .interfaces
                .iter()
                .map(|i| IfView {
                    name: i.name.clone(),
                    description: Text::new(&i.description),
                    mtu: i.mtu,
                    ipv4: i.ipv4.map(|a| a.to_string()),
                    ipv6: i.ipv6.map(|a| a.to_string()),
                    vrf: i.vrf.clone(),
                })
                .collect(),
            bgp: d.bgp.as_ref().map(bgp),
            prefix_lists,
            route_maps,
            qos: d.qos.as_ref().map(qos),
            ar_ports: d
                .adaptive_routing
                .as_ref()
                .map(|a| a.ports.clone())
                .unwrap_or_default(),
            evpn: d.evpn.as_ref().map(|e| evpn(e, d.bgp.as_ref())),
            vrfs: d
                .vrfs
                .iter()
                .map(|v| tenant_vrf(v, d.bgp.as_ref(), d.evpn.is_some()))
                .collect(),
        }
    }
}

fn evpn(e: &Evpn, b: Option<&Bgp>) -> EvpnView {
    EvpnView {
        advertise_all_vni: e.advertise_all_vni,
        vtep: e.vtep.map(|v| v.addr().to_string()),
        encap_dscp: ENCAP_DSCP,
        decap_dscp: DECAP_DSCP,
        peer_group: b.map(|b| b.peer_group.clone()),
        allow_my_asn: b.and_then(|b| b.allowas_in.then_some(1)),
    }
}

/// A tenant VRF's BGP instance runs in the device ASN with the device router-id, as in FRR
/// (`router bgp <asn> vrf <name>`).
fn tenant_vrf(v: &TenantVrf, b: Option<&Bgp>, evpn: bool) -> VrfView {
    VrfView {
        evpn,
        name: v.name.clone(),
        l3vni: v.l3vni,
        vlan: v.vlan,
        bgp: b.map(|b| TenantBgpView {
            asn: b.asn,
            router_id: b.router_id.to_string(),
            rd: (!v.rd.is_empty()).then(|| v.rd.clone()),
            import: v.import.clone(),
            export: v.export.clone(),
        }),
    }
}

fn family(net: &IpNet) -> &'static str {
    match net {
        IpNet::V4(_) => "ipv4",
        IpNet::V6(_) => "ipv6",
    }
}

fn bgp(b: &Bgp) -> BgpView {
    let af = |name, list: &str, rules: &[PrefixRule], v6: bool| AfView {
        name,
        route_map: (!rules.is_empty()).then(|| list.to_string()),
        aggregates: b
            .aggregates
            .iter()
            .filter(|a| matches!(a, IpNet::V6(_)) == v6)
            .map(IpNet::to_string)
            .collect(),
    };
    BgpView {
        asn: b.asn,
        router_id: b.router_id.to_string(),
        peer_group: b.peer_group.clone(),
        bfd: b.bfd.as_ref().map(|f| BfdView {
            profile: f.profile.clone(),
            multiplier: f.multiplier,
            interval_ms: f.interval_ms,
        }),
        multipaths: b.maximum_paths,
        aspath_ignore: b.multipath_relax,
        allow_my_asn: b.allowas_in.then_some(1),
        neighbors: b
            .neighbors
            .iter()
            .map(|n| NeighborView {
                id: n
                    .address
                    .map_or_else(|| n.interface.clone(), |a| a.to_string()),
                kind: if n.address.is_some() {
                    "numbered"
                } else {
                    "unnumbered"
                },
                remote_as: n.remote_asn,
                description: Text::new(&format!("{}:{}", n.peer_device, n.peer_port)),
            })
            .collect(),
        v4: af("ipv4-unicast", REDIST_V4, &b.redistribute, false),
        v6: (!b.redistribute_v6.is_empty())
            .then(|| af("ipv6-unicast", REDIST_V6, &b.redistribute_v6, true)),
    }
}

/// Prefix lists and route maps behind `redistribute connected`: rule numbers step by 10 so a
/// hand-added rule fits between two generated ones.
fn policy(b: &Bgp) -> (Vec<PrefixListView>, Vec<RouteMapView>) {
    let mut lists = Vec::new();
    let mut maps = Vec::new();
    for (name, family, rules) in [
        (REDIST_V4, "ipv4", &b.redistribute),
        (REDIST_V6, "ipv6", &b.redistribute_v6),
    ] {
        if rules.is_empty() {
            continue;
        }
        lists.push(PrefixListView {
            name: name.to_string(),
            family,
            rules: (10..)
                .step_by(10)
                .zip(rules)
                .map(|(id, r)| PrefixRuleView {
                    id,
                    prefix: r.prefix.to_string(),
                    max_prefix_len: r.le,
                })
                .collect(),
        });
        maps.push(RouteMapView {
            name: name.to_string(),
            rule: 10,
            family,
            prefix_list: name.to_string(),
        });
    }
    (lists, maps)
}

fn qos(q: &Qos) -> QosView {
    let lossless = q.mode == QosMode::Lossless && !q.pfc_priorities.is_empty();
    // NVUE only runs the watchdog on ports with PFC, so a lossy plan has none.
    let watchdog = q.pfc_watchdog.as_ref().filter(|_| lossless).map(|w| {
        // The NVUE watchdog restores after one quiet polling interval and mitigates after
        // `robustness` paused intervals: poll at the restoration time, count up to the detection
        // time. Ranges from the NVUE reference: polling 100-5000 ms, robustness 1-1000.
        let poll = w.restoration_ms.clamp(100, 5000);
        let robustness = w.detection_ms.div_ceil(poll).clamp(1, 1000);
        WatchdogView {
            polling_interval_ms: poll,
            robustness,
            action_supported: w.action == "drop",
            action: w.action.clone(),
        }
    });
    let mut scheduler: Vec<SchedView> = q
        .ets
        .iter()
        .map(|e| SchedView {
            traffic_class: e.traffic_class,
            mode: "dwrr",
            bw_percent: Some(e.weight),
        })
        .chain(q.strict_traffic_classes.iter().map(|&tc| SchedView {
            traffic_class: tc,
            mode: "strict",
            bw_percent: None,
        }))
        .collect();
    scheduler.sort_by_key(|s| s.traffic_class);
    QosView {
        profile: PROFILE,
        mode: match q.mode {
            QosMode::Lossless => "lossless",
            QosMode::Lossy => "lossy",
        },
        trust: "l3",
        dscp_map: vec![
            DscpView {
                dscp: q.roce.dscp,
                switch_priority: q.roce.priority,
            },
            DscpView {
                dscp: q.cnp.dscp,
                switch_priority: q.cnp.priority,
            },
        ],
        queue_map: vec![
            QueueView {
                switch_priority: q.roce.priority,
                traffic_class: q.roce.traffic_class,
            },
            QueueView {
                switch_priority: q.cnp.priority,
                traffic_class: q.cnp.traffic_class,
            },
        ],
        pfc: if lossless {
            q.pfc_priorities.clone()
        } else {
            Vec::new()
        },
        ecn: EcnView {
            traffic_class: q.ecn.traffic_class,
            min_threshold: q.ecn.min_bytes,
            max_threshold: q.ecn.max_bytes,
            probability: q.ecn.probability,
        },
        scheduler,
        watchdog_ports: if watchdog.is_some() {
            q.ports.clone()
        } else {
            Vec::new()
        },
        watchdog,
    }
}

// ---------------------------------------------------------------------------------------------
// startup.yaml: the NVUE object tree (`/etc/nvue.d/startup.yaml` is a list of one `set:` document).
// Keyed collections are maps; an identifier with nothing under it is an empty map, as NVUE writes.
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct Doc {
    set: Tree,
}

/// An identifier that carries no attributes (`address: {10.0.0.1/32: {}}`).
#[derive(Clone, Copy, Default, Serialize)]
struct Empty {}

#[derive(Clone, Copy, Serialize)]
struct State {
    state: &'static str,
}

const ENABLED: State = State { state: "enabled" };

#[derive(Default, Serialize)]
struct Tree {
    #[serde(skip_serializing_if = "Option::is_none")]
    evpn: Option<State>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    interface: BTreeMap<String, Iface>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nve: Option<Nve>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qos: Option<TQos>,
    #[serde(skip_serializing_if = "Router::is_empty")]
    router: Router,
    system: System,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    vrf: BTreeMap<String, Vrf>,
}

#[derive(Default, Serialize)]
#[serde(rename_all = "kebab-case")]
struct Iface {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<Link>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ipv4: Option<IpFamily>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ipv6: Option<IpFamily>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vrf: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qos: Option<IfQos>,
    #[serde(skip_serializing_if = "Option::is_none")]
    router: Option<IfRouter>,
}

#[derive(Default, Serialize)]
struct Link {
    #[serde(skip_serializing_if = "Option::is_none")]
    breakout: Option<BTreeMap<String, Empty>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mtu: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'static str>,
}

#[derive(Default, Serialize)]
#[serde(rename_all = "kebab-case")]
struct IpFamily {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    address: BTreeMap<String, Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dhcp_client: Option<State>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct IfQos {
    pfc_watchdog: State,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct IfRouter {
    adaptive_routing: State,
}

#[derive(Default, Serialize)]
#[serde(rename_all = "kebab-case")]
struct Router {
    #[serde(skip_serializing_if = "Option::is_none")]
    adaptive_routing: Option<State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bfd: Option<TBfd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bgp: Option<RouterBgp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    policy: Option<Policy>,
}

impl Router {
    fn is_empty(&self) -> bool {
        self.adaptive_routing.is_none()
            && self.bfd.is_none()
            && self.bgp.is_none()
            && self.policy.is_none()
    }
}

#[derive(Serialize)]
struct TBfd {
    state: &'static str,
    profile: BTreeMap<String, BfdProfile>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct BfdProfile {
    detect_multiplier: u32,
    min_rx_interval: u32,
    min_tx_interval: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct RouterBgp {
    autonomous_system: u64,
    router_id: String,
    state: &'static str,
}

#[derive(Default, Serialize)]
#[serde(rename_all = "kebab-case")]
struct Policy {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    prefix_list: BTreeMap<String, PrefixList>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    route_map: BTreeMap<String, RouteMap>,
}

#[derive(Serialize)]
struct PrefixList {
    rule: BTreeMap<u32, PrefixListRule>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct PrefixListRule {
    action: &'static str,
    #[serde(rename = "match")]
    matches: BTreeMap<String, PrefixMatch>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct PrefixMatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_prefix_len: Option<u8>,
}

#[derive(Serialize)]
struct RouteMap {
    rule: BTreeMap<u32, RouteMapRule>,
}

#[derive(Serialize)]
struct RouteMapRule {
    action: &'static str,
    #[serde(rename = "match")]
    matches: RouteMapMatch,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct RouteMapMatch {
    ip_prefix_list: String,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Default, Serialize)]
#[serde(rename_all = "kebab-case")]
struct System {
    hostname: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    dns: Option<Dns>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ntp: Option<Ntp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snmp_server: Option<Snmp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    syslog: Option<Syslog>,
}

#[derive(Default, Serialize)]
struct Dns {
    #[serde(skip_serializing_if = "Option::is_none")]
    domain: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    server: BTreeMap<String, InVrf>,
}

#[derive(Serialize)]
struct InVrf {
    vrf: String,
}

#[derive(Serialize)]
struct Ntp {
    server: BTreeMap<String, NtpServer>,
    vrf: String,
}

#[derive(Serialize)]
struct NtpServer {
    iburst: &'static str,
}

#[derive(Serialize)]
struct Syslog {
    server: BTreeMap<String, InVrf>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Snmp {
    state: &'static str,
    trap_destination: BTreeMap<String, TrapDestination>,
}

#[derive(Serialize)]
struct TrapDestination {
    vrf: BTreeMap<String, TrapVrf>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct TrapVrf {
    community_password: BTreeMap<String, TrapVersion>,
}

#[derive(Serialize)]
struct TrapVersion {
    version: &'static str,
}

#[derive(Serialize)]
struct Nve {
    vxlan: Vxlan,
}

#[derive(Serialize)]
struct Vxlan {
    decapsulation: TunnelDscp,
    encapsulation: TunnelDscp,
    source: VxlanSource,
    state: &'static str,
}

#[derive(Serialize)]
struct TunnelDscp {
    dscp: DscpAction,
}

#[derive(Serialize)]
struct DscpAction {
    action: &'static str,
}

#[derive(Serialize)]
struct VxlanSource {
    address: String,
}

#[derive(Default, Serialize)]
struct Vrf {
    #[serde(skip_serializing_if = "Option::is_none")]
    evpn: Option<VrfEvpn>,
    /// `auto` creates a VRF that has no L3VNI (a local tenant VRF on a switch without EVPN).
    #[serde(skip_serializing_if = "Option::is_none")]
    table: Option<&'static str>,
    #[serde(skip_serializing_if = "VrfRouter::is_empty")]
    router: VrfRouter,
}

/// A tenant VRF's L3VNI: `vni` is a keyed collection in NVUE, `vlan` a plain value.
#[derive(Serialize)]
struct VrfEvpn {
    state: &'static str,
    vlan: u32,
    vni: BTreeMap<u32, Empty>,
}

#[derive(Default, Serialize)]
struct VrfRouter {
    #[serde(skip_serializing_if = "Option::is_none")]
    bgp: Option<VrfBgp>,
    #[serde(rename = "static", skip_serializing_if = "BTreeMap::is_empty")]
    static_routes: BTreeMap<String, StaticRoute>,
}

impl VrfRouter {
    fn is_empty(&self) -> bool {
        self.bgp.is_none() && self.static_routes.is_empty()
    }
}

#[derive(Serialize)]
struct StaticRoute {
    via: BTreeMap<String, Empty>,
}

/// BGP in one VRF: the underlay instance in `default` (neighbours, peer group, path selection) or
/// a tenant instance (own ASN and router-id, RD, RTs to and from EVPN).
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct VrfBgp {
    address_family: AddressFamilies,
    #[serde(skip_serializing_if = "Option::is_none")]
    autonomous_system: Option<u64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    neighbor: BTreeMap<String, Neighbor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_selection: Option<PathSelection>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    peer_group: BTreeMap<String, PeerGroup>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    route_export: Option<ToEvpn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    route_import: Option<FromEvpn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    router_id: Option<String>,
    state: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ToEvpn {
    to_evpn: RouteTargets,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct FromEvpn {
    from_evpn: RouteTargets,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct RouteTargets {
    route_target: BTreeMap<String, Empty>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct AddressFamilies {
    ipv4_unicast: Unicast,
    #[serde(skip_serializing_if = "Option::is_none")]
    ipv6_unicast: Option<Unicast>,
    #[serde(skip_serializing_if = "Option::is_none")]
    l2vpn_evpn: Option<State>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Unicast {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    aggregate_route: BTreeMap<String, Aggregate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    multipaths: Option<Multipaths>,
    #[serde(skip_serializing_if = "Option::is_none")]
    redistribute: Option<Redistribute>,
    /// Type-5 export of the VRF's BGP routes (tenant VRFs).
    #[serde(skip_serializing_if = "Option::is_none")]
    route_export: Option<AfToEvpn>,
    state: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct AfToEvpn {
    to_evpn: State,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Aggregate {
    summary_only: &'static str,
}

#[derive(Serialize)]
struct Multipaths {
    ebgp: u32,
}

#[derive(Serialize)]
struct Redistribute {
    connected: Connected,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Connected {
    #[serde(skip_serializing_if = "Option::is_none")]
    route_map: Option<String>,
    state: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Neighbor {
    description: String,
    peer_group: String,
    remote_as: u64,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct PathSelection {
    multipath: Multipath,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Multipath {
    aspath_ignore: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct PeerGroup {
    address_family: PeerGroupFamilies,
    #[serde(skip_serializing_if = "Option::is_none")]
    bfd: Option<PeerGroupBfd>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct PeerGroupFamilies {
    ipv4_unicast: PeerGroupUnicast,
    #[serde(skip_serializing_if = "Option::is_none")]
    ipv6_unicast: Option<PeerGroupUnicast>,
    #[serde(skip_serializing_if = "Option::is_none")]
    l2vpn_evpn: Option<PeerGroupUnicast>,
}

#[derive(Serialize)]
struct PeerGroupUnicast {
    #[serde(skip_serializing_if = "Option::is_none")]
    aspath: Option<AsPath>,
    state: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct AsPath {
    allow_my_asn: AllowMyAsn,
}

#[derive(Serialize)]
struct AllowMyAsn {
    occurrences: u8,
    state: &'static str,
}

#[derive(Serialize)]
struct PeerGroupBfd {
    profile: String,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct TQos {
    congestion_control: BTreeMap<&'static str, CongestionControl>,
    egress_queue_mapping: BTreeMap<&'static str, QueueMapping>,
    egress_scheduler: BTreeMap<&'static str, Scheduler>,
    mapping: BTreeMap<&'static str, Mapping>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pfc: BTreeMap<&'static str, Pfc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pfc_watchdog: Option<Watchdog>,
    roce: Roce,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct CongestionControl {
    traffic_class: BTreeMap<u8, EcnClass>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct EcnClass {
    ecn: &'static str,
    max_threshold: u32,
    min_threshold: u32,
    probability: u8,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct QueueMapping {
    switch_priority: BTreeMap<u8, ToTrafficClass>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ToTrafficClass {
    traffic_class: u8,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Scheduler {
    traffic_class: BTreeMap<u8, SchedulerClass>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct SchedulerClass {
    #[serde(skip_serializing_if = "Option::is_none")]
    bw_percent: Option<u8>,
    mode: &'static str,
}

#[derive(Serialize)]
struct Mapping {
    dscp: BTreeMap<u8, ToSwitchPriority>,
    trust: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ToSwitchPriority {
    switch_priority: u8,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Pfc {
    rx: &'static str,
    switch_priority: BTreeMap<u8, Empty>,
    tx: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Watchdog {
    polling_interval: u32,
    robustness: u32,
}

#[derive(Serialize)]
struct Roce {
    mode: &'static str,
    state: &'static str,
}

impl Tree {
    fn new(v: &View) -> Self {
        let mut t = Tree {
            system: System {
                hostname: v.hostname.raw.clone(),
                ..System::default()
            },
            ..Tree::default()
        };
        t.system_services(v);
        t.interfaces(v);
        if let Some(b) = &v.bgp {
            t.bgp(b, v.evpn.as_ref());
        }
        if let Some(e) = &v.evpn {
            t.evpn(e);
        }
        t.tenant_vrfs(v);
        t.policy(v);
        if let Some(q) = &v.qos {
            t.qos(q);
        }
        if !v.ar_ports.is_empty() {
            t.router.adaptive_routing = Some(ENABLED);
            for p in &v.ar_ports {
                t.iface(p).router = Some(IfRouter {
                    adaptive_routing: ENABLED,
                });
            }
        }
        t
    }

    fn iface(&mut self, name: &str) -> &mut Iface {
        self.interface.entry(name.to_string()).or_default()
    }

    fn system_services(&mut self, v: &View) {
        let vrf = &v.services_vrf;
        let in_vrf = |s: &[Text]| {
            s.iter()
                .map(|x| (x.raw.clone(), InVrf { vrf: vrf.clone() }))
                .collect::<BTreeMap<_, _>>()
        };
        if v.domain.is_some() || !v.dns.is_empty() {
            self.system.dns = Some(Dns {
                domain: v.domain.as_ref().map(|d| d.raw.clone()),
                server: in_vrf(&v.dns),
            });
        }
        if !v.ntp.is_empty() {
            self.system.ntp = Some(Ntp {
                server: v
                    .ntp
                    .iter()
                    .map(|s| {
                        (
                            s.raw.clone(),
                            NtpServer {
                                iburst: state(true),
                            },
                        )
                    })
                    .collect(),
                vrf: vrf.clone(),
            });
        }
        if !v.syslog.is_empty() {
            self.system.syslog = Some(Syslog {
                server: in_vrf(&v.syslog),
            });
        }
        if !v.snmp_traps.is_empty() {
            let trap = || TrapDestination {
                vrf: BTreeMap::from([(
                    vrf.clone(),
                    TrapVrf {
                        community_password: BTreeMap::from([(
                            v.snmp_community.raw.clone(),
                            TrapVersion { version: "2c" },
                        )]),
                    },
                )]),
            };
            self.system.snmp_server = Some(Snmp {
                state: state(true),
                trap_destination: v
                    .snmp_traps
                    .iter()
                    .map(|s| (s.raw.clone(), trap()))
                    .collect(),
            });
        }
        if let Some(m) = &v.mgmt {
            let addr = IpFamily {
                address: BTreeMap::from([(m.address.clone(), Empty {})]),
                ..IpFamily::default()
            };
            let i = self.iface(&m.interface);
            i.kind = Some("eth");
            i.vrf = Some(m.vrf.clone());
            // DHCP is on by default on the management port; a static address replaces it.
            i.ipv4 = Some(IpFamily {
                dhcp_client: Some(State {
                    state: state(false),
                }),
                ..IpFamily::default()
            });
            match m.family {
                "ipv4" => {
                    if let Some(f) = i.ipv4.as_mut() {
                        f.address = addr.address;
                    }
                }
                _ => i.ipv6 = Some(addr),
            }
            self.vrf
                .entry(m.vrf.clone())
                .or_default()
                .router
                .static_routes
                .insert(
                    m.default_route.to_string(),
                    StaticRoute {
                        via: BTreeMap::from([(m.gateway.clone(), Empty {})]),
                    },
                );
        }
    }

    fn interfaces(&mut self, v: &View) {
        for b in &v.breakouts {
            self.iface(&b.port).link = Some(Link {
                breakout: Some(BTreeMap::from([(b.mode.clone(), Empty {})])),
                ..Link::default()
            });
        }
        let addresses = |list: &[String]| IpFamily {
            address: list.iter().map(|a| (a.clone(), Empty {})).collect(),
            ..IpFamily::default()
        };
        let lo = self.iface("lo");
        lo.kind = Some("loopback");
        if !v.loopback_v4.is_empty() {
            lo.ipv4 = Some(addresses(&v.loopback_v4));
        }
        if !v.loopback_v6.is_empty() {
            lo.ipv6 = Some(addresses(&v.loopback_v6));
        }
        for i in &v.interfaces {
            let e = self.iface(&i.name);
            e.kind = Some("swp");
            e.description = Some(i.description.raw.clone());
            e.link = Some(Link {
                mtu: Some(i.mtu),
                state: Some("up"),
                ..Link::default()
            });
            e.ipv4 = i.ipv4.as_ref().map(|a| addresses(std::slice::from_ref(a)));
            e.ipv6 = i.ipv6.as_ref().map(|a| addresses(std::slice::from_ref(a)));
            e.vrf.clone_from(&i.vrf);
        }
    }

    fn bgp(&mut self, b: &BgpView, evpn: Option<&EvpnView>) {
        self.router.bgp = Some(RouterBgp {
            autonomous_system: b.asn,
            router_id: b.router_id.clone(),
            state: state(true),
        });
        if let Some(f) = &b.bfd {
            self.router.bfd = Some(TBfd {
                state: state(true),
                profile: BTreeMap::from([(
                    f.profile.clone(),
                    BfdProfile {
                        detect_multiplier: f.multiplier,
                        min_rx_interval: f.interval_ms,
                        min_tx_interval: f.interval_ms,
                    },
                )]),
            });
        }
        let unicast = |af: &AfView| Unicast {
            aggregate_route: af
                .aggregates
                .iter()
                .map(|a| {
                    (
                        a.clone(),
                        Aggregate {
                            summary_only: state(true),
                        },
                    )
                })
                .collect(),
            multipaths: Some(Multipaths { ebgp: b.multipaths }),
            redistribute: af.route_map.as_ref().map(|rm| Redistribute {
                connected: Connected {
                    route_map: Some(rm.clone()),
                    state: state(true),
                },
            }),
            route_export: None,
            state: state(true),
        };
        let pg_unicast = || PeerGroupUnicast {
            aspath: b.allow_my_asn.map(|n| AsPath {
                allow_my_asn: AllowMyAsn {
                    occurrences: n,
                    state: state(true),
                },
            }),
            state: state(true),
        };
        let peer_group = PeerGroup {
            address_family: PeerGroupFamilies {
                ipv4_unicast: pg_unicast(),
                ipv6_unicast: b.v6.as_ref().map(|_| pg_unicast()),
                l2vpn_evpn: evpn.map(|_| pg_unicast()),
            },
            bfd: b.bfd.as_ref().map(|f| PeerGroupBfd {
                profile: f.profile.clone(),
            }),
        };
        let vrf_bgp = VrfBgp {
            address_family: AddressFamilies {
                ipv4_unicast: unicast(&b.v4),
                ipv6_unicast: b.v6.as_ref().map(unicast),
                l2vpn_evpn: evpn.map(|_| ENABLED),
            },
            autonomous_system: None,
            neighbor: b
                .neighbors
                .iter()
                .map(|n| {
                    (
                        n.id.clone(),
                        Neighbor {
                            description: n.description.raw.clone(),
                            peer_group: b.peer_group.clone(),
                            remote_as: n.remote_as,
                            kind: n.kind,
                        },
                    )
                })
                .collect(),
            path_selection: b.aspath_ignore.then(|| PathSelection {
                multipath: Multipath {
                    aspath_ignore: state(true),
                },
            }),
            peer_group: BTreeMap::from([(b.peer_group.clone(), peer_group)]),
            rd: None,
            route_export: None,
            route_import: None,
            router_id: None,
            state: state(true),
        };
        self.vrf
            .entry("default".to_string())
            .or_default()
            .router
            .bgp = Some(vrf_bgp);
    }

    fn evpn(&mut self, e: &EvpnView) {
        if e.advertise_all_vni {
            self.evpn = Some(ENABLED);
        }
        if let Some(vtep) = &e.vtep {
            let dscp = |action| TunnelDscp {
                dscp: DscpAction { action },
            };
            self.nve = Some(Nve {
                vxlan: Vxlan {
                    decapsulation: dscp(e.decap_dscp),
                    encapsulation: dscp(e.encap_dscp),
                    source: VxlanSource {
                        address: vtep.clone(),
                    },
                    state: state(true),
                },
            });
        }
    }

    fn tenant_vrfs(&mut self, v: &View) {
        let targets = |rts: &[String]| RouteTargets {
            route_target: rts.iter().map(|rt| (rt.clone(), Empty {})).collect(),
        };
        for t in &v.vrfs {
            let vrf = self.vrf.entry(t.name.clone()).or_default();
            if t.evpn {
                vrf.evpn = Some(VrfEvpn {
                    state: state(true),
                    vlan: t.vlan,
                    vni: BTreeMap::from([(t.l3vni, Empty {})]),
                });
            } else {
                vrf.table = Some("auto");
            }
            vrf.router.bgp = t.bgp.as_ref().filter(|_| t.evpn).map(|b| VrfBgp {
                address_family: AddressFamilies {
                    ipv4_unicast: Unicast {
                        aggregate_route: BTreeMap::new(),
                        multipaths: None,
                        redistribute: Some(Redistribute {
                            connected: Connected {
                                route_map: None,
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
                rd: b.rd.clone(),
                route_export: (!b.export.is_empty()).then(|| ToEvpn {
                    to_evpn: targets(&b.export),
                }),
                route_import: (!b.import.is_empty()).then(|| FromEvpn {
                    from_evpn: targets(&b.import),
                }),
                router_id: Some(b.router_id.clone()),
                state: state(true),
            });
        }
    }

    fn policy(&mut self, v: &View) {
        if v.prefix_lists.is_empty() && v.route_maps.is_empty() {
            return;
        }
        let mut p = Policy::default();
        for l in &v.prefix_lists {
            let rule = l
                .rules
                .iter()
                .map(|r| {
                    (
                        r.id,
                        PrefixListRule {
                            action: "permit",
                            matches: BTreeMap::from([(
                                r.prefix.clone(),
                                PrefixMatch {
                                    max_prefix_len: r.max_prefix_len,
                                },
                            )]),
                        },
                    )
                })
                .collect();
            p.prefix_list.insert(
                l.name.clone(),
                PrefixList {
                    rule,
                    kind: l.family,
                },
            );
        }
        for m in &v.route_maps {
            p.route_map.insert(
                m.name.clone(),
                RouteMap {
                    rule: BTreeMap::from([(
                        m.rule,
                        RouteMapRule {
                            action: "permit",
                            matches: RouteMapMatch {
                                ip_prefix_list: m.prefix_list.clone(),
                                kind: m.family,
                            },
                        },
                    )]),
                },
            );
        }
        self.router.policy = Some(p);
    }

    fn qos(&mut self, q: &QosView) {
        self.qos = Some(TQos {
            congestion_control: BTreeMap::from([(
                q.profile,
                CongestionControl {
                    traffic_class: BTreeMap::from([(
                        q.ecn.traffic_class,
                        EcnClass {
                            ecn: "enable",
                            max_threshold: q.ecn.max_threshold,
                            min_threshold: q.ecn.min_threshold,
                            probability: q.ecn.probability,
                        },
                    )]),
                },
            )]),
            egress_queue_mapping: BTreeMap::from([(
                q.profile,
                QueueMapping {
                    switch_priority: q
                        .queue_map
                        .iter()
                        .map(|m| {
                            (
                                m.switch_priority,
                                ToTrafficClass {
                                    traffic_class: m.traffic_class,
                                },
                            )
                        })
                        .collect(),
                },
            )]),
            egress_scheduler: BTreeMap::from([(
                q.profile,
                Scheduler {
                    traffic_class: q
                        .scheduler
                        .iter()
                        .map(|s| {
                            (
                                s.traffic_class,
                                SchedulerClass {
                                    bw_percent: s.bw_percent,
                                    mode: s.mode,
                                },
                            )
                        })
                        .collect(),
                },
            )]),
            mapping: BTreeMap::from([(
                q.profile,
                Mapping {
                    dscp: q
                        .dscp_map
                        .iter()
                        .map(|m| {
                            (
                                m.dscp,
                                ToSwitchPriority {
                                    switch_priority: m.switch_priority,
                                },
                            )
                        })
                        .collect(),
                    trust: q.trust,
                },
            )]),
            pfc: if q.pfc.is_empty() {
                BTreeMap::new()
            } else {
                BTreeMap::from([(
                    q.profile,
                    Pfc {
                        rx: "enable",
                        switch_priority: q.pfc.iter().map(|&p| (p, Empty {})).collect(),
                        tx: "enable",
                    },
                )])
            },
            pfc_watchdog: q.watchdog.as_ref().map(|w| Watchdog {
                polling_interval: w.polling_interval_ms,
                robustness: w.robustness,
            }),
            roce: Roce {
                mode: q.mode,
                state: state(true),
            },
        });
        for p in &q.watchdog_ports {
            self.iface(p).qos = Some(IfQos {
                pfc_watchdog: ENABLED,
            });
        }
    }
}
