//! The NVUE object model, as far as railyard configures it: one typed tree per switch, the single
//! source of both `startup.yaml` and `nv-set.sh`.
//!
//! Shapes follow NVUE's OpenAPI object model for Cumulus Linux 5.15 (the `x-defs` of the published
//! `openapi.json`): keyed collections are maps whose keys are strings (`'3': {}`), an identifier
//! that carries nothing is an empty map, a state written as a key is a map too (`link: {state:
//! {up: {}}}`), and enumerations are the strings the schema lists (`state: enabled`, but
//! `pfc-watchdog: {state: enable}`). `tests/render/nvue_schema.rs` validates every rendered file against
//! the 5.15 and 5.16 models generated from that specification.
//!
//! Each struct names the NVIDIA page that documents its commands; `docs/nvue.md` has the table.
//! Doc root: <https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-515/>.

use std::collections::BTreeMap;

use serde::Serialize;

/// An identifier that carries no attributes (`address: {10.0.0.1/32: {}}`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(super) struct Empty {}

/// Keys that carry nothing: a keyed collection written as a set (`vni: {'4001': {}}`).
pub(super) type Keys = BTreeMap<String, Empty>;

pub(super) fn keys<I: IntoIterator<Item = S>, S: ToString>(items: I) -> Keys {
    items
        .into_iter()
        .map(|k| (k.to_string(), Empty {}))
        .collect()
}

/// `state: enabled|disabled`, the CL 5.15 form of the former `enable: on|off`
/// (Whats-New/New-and-Changed-NVUE-Commands/, "On/Off").
#[derive(Clone, Copy, Debug, Serialize)]
pub(super) struct State {
    pub state: &'static str,
}

pub(super) const ENABLED: State = State { state: "enabled" };
pub(super) const DISABLED: State = State { state: "disabled" };

/// The root: `nv set <key> …` for every key below.
#[derive(Debug, Default, Serialize)]
pub(super) struct Tree {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bridge: Option<Bridge>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evpn: Option<State>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub interface: BTreeMap<String, Iface>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nve: Option<Nve>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos: Option<Qos>,
    #[serde(skip_serializing_if = "Router::is_empty")]
    pub router: Router,
    pub system: System,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vrf: BTreeMap<String, Vrf>,
}

// ---- interfaces: Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/ (type,
// description, link mtu, link state) and .../Switch-Port-Attributes/ (link breakout) ----

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Iface {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bridge: Option<IfBridge>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<IpFamily>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipv6: Option<IpFamily>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos: Option<IfQos>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router: Option<IfRouter>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// `interface vlan<id> vlan <id>`: the VLAN of a VLAN interface (`type svi`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vlan: Option<u16>,
    /// `interface <if> vrf <name>` (CL 5.15; formerly `ip vrf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrf: Option<String>,
}

// ---- Layer 2: Layer-2/Ethernet-Bridging/VLAN-aware-Bridge-Mode/ (bridge domain br_default,
// access and trunk ports) and Layer-2/Ethernet-Bridging/VLAN-aware-Bridge-Mode/ "VLAN Layer 3
// Addressing" (interface vlan<id> as an SVI) ----

/// `bridge domain <name> vlan <id>`: the VLANs of the switch's VLAN-aware bridge.
#[derive(Debug, Serialize)]
pub(super) struct Bridge {
    pub domain: BTreeMap<String, BridgeDomain>,
}

#[derive(Debug, Serialize)]
pub(super) struct BridgeDomain {
    pub vlan: Keys,
}

/// `interface <swp> bridge domain <name> access <id>` (untagged) or `… vlan <id>` (tagged).
#[derive(Debug, Serialize)]
pub(super) struct IfBridge {
    pub domain: BTreeMap<String, IfBridgeDomain>,
}

#[derive(Debug, Default, Serialize)]
pub(super) struct IfBridgeDomain {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<u16>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vlan: Keys,
}

#[derive(Debug, Default, Serialize)]
pub(super) struct Link {
    /// `link breakout <mode>`: a keyed mode (`2x: {}`), only on a cage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakout: Option<Keys>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// `link state up`: the state is a key (`state: {up: {}}`), not a value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Keys>,
}

/// `interface <if> ipv4|ipv6 address <prefix>`, `ipv4 dhcp-client state` (CL 5.15 "IP Interface"
/// changes; formerly `ip address`, `ip address dhcp`).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct IpFamily {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub address: Keys,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dhcp_client: Option<State>,
}

/// `interface <swp> qos pfc-watchdog state enable`: this one enumeration is still
/// `enable|disable` in 5.15 and 5.16 (Layer-1-and-Switch-Ports/Quality-of-Service/, "PFC Watchdog").
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct IfQos {
    pub pfc_watchdog: Toggle,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub(super) struct Toggle {
    pub state: &'static str,
}

/// `interface <swp> router adaptive-routing state enabled` (nvue-reference Adaptive-Routing).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct IfRouter {
    pub adaptive_routing: State,
}

// ---- global routing: router bgp, router bfd, router policy, router adaptive-routing ----

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Router {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive_routing: Option<State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bfd: Option<Bfd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bgp: Option<RouterBgp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
}

impl Router {
    fn is_empty(&self) -> bool {
        self.adaptive_routing.is_none()
            && self.bfd.is_none()
            && self.bgp.is_none()
            && self.policy.is_none()
    }
}

/// `router bfd state`, `router bfd profile <p> detect-multiplier|min-rx-interval|min-tx-interval`
/// (Layer-3/Bidirectional-Forwarding-Detection-BFD/).
#[derive(Debug, Serialize)]
pub(super) struct Bfd {
    pub profile: BTreeMap<String, BfdProfile>,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct BfdProfile {
    pub detect_multiplier: u32,
    pub min_rx_interval: u32,
    pub min_tx_interval: u32,
}

/// `router bgp autonomous-system|router-id|state` (Layer-3/Border-Gateway-Protocol-BGP/).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct RouterBgp {
    pub autonomous_system: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graceful_restart: Option<GracefulRestart>,
    pub router_id: String,
    pub state: &'static str,
}

/// `router bgp graceful-restart mode|restart-time|stale-routes-time`
/// (Layer-3/Border-Gateway-Protocol-BGP/Optional-BGP-Configuration/, "Graceful BGP Restart").
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct GracefulRestart {
    pub mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_time: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_routes_time: Option<u32>,
}

/// `router policy prefix-list|route-map` (Layer-3/Routing/Route-Filtering-and-Redistribution/).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Policy {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub prefix_list: BTreeMap<String, PrefixList>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub route_map: BTreeMap<String, RouteMap>,
}

#[derive(Debug, Serialize)]
pub(super) struct PrefixList {
    pub rule: BTreeMap<u32, PrefixListRule>,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// A prefix-list rule's action is a value (`action: permit`), unlike a route-map rule's.
#[derive(Debug, Serialize)]
pub(super) struct PrefixListRule {
    pub action: &'static str,
    #[serde(rename = "match")]
    pub matches: BTreeMap<String, PrefixMatch>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PrefixMatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_prefix_len: Option<u8>,
}

#[derive(Debug, Serialize)]
pub(super) struct RouteMap {
    pub rule: BTreeMap<u32, RouteMapRule>,
}

/// A route-map rule's action is a key (`action: {permit: {}}`).
#[derive(Debug, Serialize)]
pub(super) struct RouteMapRule {
    pub action: Keys,
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matches: Option<RouteMapMatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<RouteMapSet>,
}

/// `... rule <id> set ipv6-nexthop-prefer-global enabled` (REF `Set-and-Unset-Commands/Router/`;
/// introduced in Cumulus Linux 5.1 as `on|off`, `enabled|disabled` in the 5.15 and 5.16 object
/// models, which `tests/render/nvue_schema.rs` checks).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct RouteMapSet {
    pub ipv6_nexthop_prefer_global: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct RouteMapMatch {
    pub ip_prefix_list: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

// ---- system: hostname, DNS, NTP, syslog, SNMP ----

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct System {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dns: Option<Dns>,
    /// Quick-Start-Guide/ (`system hostname`).
    pub hostname: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ntp: Option<Ntp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snmp_server: Option<Snmp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syslog: Option<Syslog>,
}

/// `system dns domain`, `system dns server <ip> vrf <vrf>` (CL 5.15 moved DNS under `system`).
#[derive(Debug, Default, Serialize)]
pub(super) struct Dns {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub server: BTreeMap<String, InVrf>,
}

#[derive(Debug, Serialize)]
pub(super) struct InVrf {
    pub vrf: String,
}

/// `system ntp server <id> iburst enabled`, `system ntp vrf <vrf>`
/// (System-Configuration/Date-and-Time/Network-Time-Protocol-NTP/).
#[derive(Debug, Serialize)]
pub(super) struct Ntp {
    pub server: BTreeMap<String, NtpServer>,
    pub vrf: String,
}

#[derive(Debug, Serialize)]
pub(super) struct NtpServer {
    pub iburst: &'static str,
}

/// `system syslog server <id> vrf <vrf>` (Monitoring-and-Troubleshooting/Syslog/).
#[derive(Debug, Serialize)]
pub(super) struct Syslog {
    pub server: BTreeMap<String, InVrf>,
}

/// `system snmp-server state enabled`, `trap-destination <ip> vrf <vrf> community-password <pw>
/// version 2c` (Monitoring-and-Troubleshooting/Simple-Network-Management-Protocol-SNMP/).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Snmp {
    pub state: &'static str,
    pub trap_destination: BTreeMap<String, TrapDestination>,
}

#[derive(Debug, Serialize)]
pub(super) struct TrapDestination {
    pub vrf: BTreeMap<String, TrapVrf>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct TrapVrf {
    pub community_password: BTreeMap<String, TrapVersion>,
}

#[derive(Debug, Serialize)]
pub(super) struct TrapVersion {
    pub version: &'static str,
}

// ---- VXLAN: Network-Virtualization/Ethernet-Virtual-Private-Network-EVPN/Basic-Configuration/
// (`nve vxlan state|source address`) and Network-Virtualization/VXLAN-Tunnel-DSCP/ ----

#[derive(Debug, Serialize)]
pub(super) struct Nve {
    pub vxlan: Vxlan,
}

#[derive(Debug, Serialize)]
pub(super) struct Vxlan {
    pub decapsulation: TunnelDscp,
    pub encapsulation: TunnelDscp,
    pub source: VxlanSource,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct TunnelDscp {
    pub dscp: DscpAction,
}

#[derive(Debug, Serialize)]
pub(super) struct DscpAction {
    pub action: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct VxlanSource {
    pub address: String,
}

// ---- VRFs: Layer-3/VRFs/ (management VRF, `table auto`), Layer-3/Routing/Static-Routing/,
// Network-Virtualization/Ethernet-Virtual-Private-Network-EVPN/Inter-subnet-Routing/ ----

#[derive(Debug, Default, Serialize)]
pub(super) struct Vrf {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evpn: Option<VrfEvpn>,
    #[serde(skip_serializing_if = "VrfRouter::is_empty")]
    pub router: VrfRouter,
    /// `auto` creates a VRF that has no L3VNI (a local tenant VRF on a switch without EVPN).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<&'static str>,
}

/// A tenant VRF's L3VNI: `vni` is a keyed collection in NVUE, `vlan` a plain value.
#[derive(Debug, Serialize)]
pub(super) struct VrfEvpn {
    pub state: &'static str,
    pub vlan: u32,
    pub vni: Keys,
}

#[derive(Debug, Default, Serialize)]
pub(super) struct VrfRouter {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bgp: Option<VrfBgp>,
    #[serde(rename = "static", skip_serializing_if = "BTreeMap::is_empty")]
    pub static_routes: BTreeMap<String, StaticRoute>,
}

impl VrfRouter {
    fn is_empty(&self) -> bool {
        self.bgp.is_none() && self.static_routes.is_empty()
    }
}

#[derive(Debug, Serialize)]
pub(super) struct StaticRoute {
    pub via: Keys,
}

/// BGP in one VRF: the underlay instance in `default` (neighbours, peer group, path selection) or
/// a tenant instance (own ASN and router-id, RD, RTs to and from EVPN).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct VrfBgp {
    pub address_family: AddressFamilies,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autonomous_system: Option<u64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub neighbor: BTreeMap<String, Neighbor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_selection: Option<PathSelection>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub peer_group: BTreeMap<String, PeerGroup>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_export: Option<ToEvpn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_import: Option<FromEvpn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router_id: Option<String>,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct ToEvpn {
    pub to_evpn: RouteTargets,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct FromEvpn {
    pub from_evpn: RouteTargets,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct RouteTargets {
    pub route_target: Keys,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct AddressFamilies {
    pub ipv4_unicast: Unicast,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipv6_unicast: Option<Unicast>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l2vpn_evpn: Option<State>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Unicast {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub aggregate_route: BTreeMap<String, Aggregate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipaths: Option<Multipaths>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redistribute: Option<Redistribute>,
    /// Type-5 export of the VRF's BGP routes (tenant VRFs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_export: Option<AfToEvpn>,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct AfToEvpn {
    pub to_evpn: State,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Aggregate {
    pub summary_only: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct Multipaths {
    pub ebgp: u32,
}

#[derive(Debug, Serialize)]
pub(super) struct Redistribute {
    pub connected: Connected,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Connected {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_map: Option<String>,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Neighbor {
    pub description: String,
    pub peer_group: String,
    pub remote_as: u64,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct PathSelection {
    pub multipath: Multipath,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Multipath {
    pub aspath_ignore: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PeerGroup {
    pub address_family: PeerGroupFamilies,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bfd: Option<PeerGroupBfd>,
    /// TCP-MD5 (RFC 2385): the `${NAME}` placeholder push fills from the environment
    /// (Optional-BGP-Configuration/, "BGP Authentication").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// GTSM (RFC 5082), "BGP TTL Security" on the same page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_security: Option<TtlSecurity>,
}

#[derive(Debug, Serialize)]
pub(super) struct TtlSecurity {
    pub hops: u8,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PeerGroupFamilies {
    pub ipv4_unicast: PeerGroupFamily,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipv6_unicast: Option<PeerGroupFamily>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l2vpn_evpn: Option<PeerGroupFamily>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PeerGroupFamily {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aspath: Option<AsPath>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PeerPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_limits: Option<PrefixLimits>,
    pub state: &'static str,
}

/// `... address-family ipv4-unicast policy inbound|outbound route-map`
/// (Route-Filtering-and-Redistribution/).
#[derive(Debug, Serialize)]
pub(super) struct PeerPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbound: Option<Outbound>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbound: Option<Outbound>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Outbound {
    pub route_map: String,
}

/// `... address-family ipv4-unicast prefix-limits inbound maximum|warning-threshold|
/// reestablish-wait|warning-only` (Optional-BGP-Configuration/, "Maximum Prefixes").
#[derive(Debug, Serialize)]
pub(super) struct PrefixLimits {
    pub inbound: PrefixLimitsInbound,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct PrefixLimitsInbound {
    pub maximum: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reestablish_wait: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning_only: Option<&'static str>,
    pub warning_threshold: u8,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct AsPath {
    pub allow_my_asn: AllowMyAsn,
}

#[derive(Debug, Serialize)]
pub(super) struct AllowMyAsn {
    pub occurrences: u8,
    pub state: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct PeerGroupBfd {
    pub profile: String,
}

// ---- QoS: Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/ (`qos
// roce`) and Layer-1-and-Switch-Ports/Quality-of-Service/ (the `default-global` profiles) ----

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Qos {
    pub congestion_control: BTreeMap<&'static str, CongestionControl>,
    pub egress_queue_mapping: BTreeMap<&'static str, QueueMapping>,
    pub egress_scheduler: BTreeMap<&'static str, Scheduler>,
    pub mapping: BTreeMap<&'static str, Mapping>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pfc: BTreeMap<&'static str, Pfc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_watchdog: Option<Watchdog>,
    pub roce: Roce,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct CongestionControl {
    pub traffic_class: BTreeMap<u8, EcnClass>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct EcnClass {
    pub ecn: &'static str,
    pub max_threshold: u32,
    pub min_threshold: u32,
    pub probability: u8,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct QueueMapping {
    pub switch_priority: BTreeMap<u8, ToTrafficClass>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct ToTrafficClass {
    pub traffic_class: u8,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Scheduler {
    pub traffic_class: BTreeMap<u8, SchedulerClass>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct SchedulerClass {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_percent: Option<u8>,
    pub mode: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct Mapping {
    pub dscp: BTreeMap<u8, ToSwitchPriority>,
    pub trust: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct ToSwitchPriority {
    pub switch_priority: u8,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Pfc {
    pub rx: &'static str,
    pub switch_priority: Keys,
    pub tx: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Watchdog {
    pub polling_interval: u32,
    pub robustness: u32,
}

#[derive(Debug, Serialize)]
pub(super) struct Roce {
    pub mode: &'static str,
    pub state: &'static str,
}
