//! The vendor-neutral intent of one switch: plain data, one field per config section, the same
//! section names as the templates (`templates/<platform>/<section>.j2`). It round-trips through
//! `intent/<device>.yaml`, so any platform can be re-rendered from a saved intent.

use std::net::{IpAddr, Ipv4Addr};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use crate::model::{Network, Platform, Role, Speed};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceIntent {
    pub hostname: String,
    pub role: Role,
    pub network: Network,
    pub platform: Platform,
    pub model: String,
    pub system: System,
    pub loopback: Loopback,
    /// Cages run split, in cage order.
    pub breakouts: Vec<Breakout>,
    /// Cabled data ports, in port order.
    pub interfaces: Vec<Interface>,
    pub bgp: Option<Bgp>,
    pub qos: Option<Qos>,
    pub adaptive_routing: Option<AdaptiveRouting>,
    /// EVPN control plane (present when the cluster has tenants on this switch's network).
    pub evpn: Option<Evpn>,
    /// Tenant VRFs with ports on this switch.
    pub vrfs: Vec<Vrf>,
    /// SONiC only: the platform and HWSKU whose vendor data give the full port table and the
    /// buffer templates (`catalog::sonic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sonic: Option<SonicTarget>,
    /// Layer 2 of the OOB switches and the OOB gateway: management VLANs and VLAN interfaces.
    #[serde(default)]
    pub l2: Option<Switching>,
}

/// The names SONiC knows the switch hardware by (`DEVICE_METADATA` `platform`, `hwsku`), and
/// how the cages nothing is cabled to yet are planned to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SonicTarget {
    pub platform: String,
    pub hwsku: String,
    /// The cages of the fabric plan's port runs, cabled yet or not (a spine's runs include the
    /// ports of SUs not built yet), with the split the plan gives them. SONiC writes every port
    /// of the switch: an idle cage of a run is written split as it will be cabled, so growing
    /// the cluster turns ports up instead of re-breaking cages out. Cages outside every run
    /// keep the HWSKU's default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planned: Vec<PlannedCage>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedCage {
    pub cage: u32,
    pub ports: u32,
    pub speed: Speed,
}

/// VLANs on an OOB switch: ports carry them untagged (access) or tagged (trunk, listed on the
/// interface); VLAN interfaces give the switch its own management address, or on the gateway
/// every subnet's gateway address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Switching {
    pub vlans: Vec<Vlan>,
    pub svis: Vec<Svi>,
    /// The switch's default route (an OOB switch: its subnet's gateway; the gateway: none).
    pub default_gateway: Option<Ipv4Addr>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vlan {
    pub id: u16,
    /// `mgmt-su01`, `mgmt-spine`, …
    pub name: String,
    pub subnet: IpNet,
}

/// A VLAN interface (`vlan<id>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Svi {
    pub vlan: u16,
    pub name: String,
    /// The VLAN's name (`mgmt-su01`).
    pub vlan_name: String,
    pub address: IpNet,
    /// This address is the subnet's gateway (the OOB gateway's interfaces).
    pub gateway: bool,
}

/// EVPN-VXLAN: spines relay the l2vpn-evpn family; leaves also originate from their VTEP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evpn {
    /// VXLAN tunnel source (leaves only).
    pub vtep: Option<IpNet>,
    /// Advertise the local VNIs (leaves).
    pub advertise_all_vni: bool,
}

/// A tenant VRF on one leaf: L3VNI (symmetric routing, type-5 routes), its VLAN on this leaf,
/// RD and RTs, member ports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vrf {
    pub name: String,
    pub tenant_id: u32,
    pub l3vni: u32,
    pub vlan: u32,
    pub rd: String,
    pub import: Vec<String>,
    pub export: Vec<String>,
    pub interfaces: Vec<String>,
    /// The tenant's host prefixes on this leaf, announced summary-only in the VRF.
    #[serde(default)]
    pub aggregates: Vec<IpNet>,
    /// Connected prefixes of the VRF let into its BGP (its own host links only).
    #[serde(default)]
    pub redistribute: Vec<PrefixRule>,
    #[serde(default)]
    pub redistribute_v6: Vec<PrefixRule>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct System {
    pub mgmt: Option<Mgmt>,
    pub ntp: Vec<String>,
    pub syslog: Vec<String>,
    pub dns: Vec<String>,
    pub snmp_traps: Vec<String>,
    pub domain: Option<String>,
}

/// The management port lives in its own VRF so data-plane routes never leak into it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mgmt {
    pub interface: String,
    pub vrf: String,
    pub address: IpNet,
    pub gateway: Ipv4Addr,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loopback {
    pub ipv4: Option<IpNet>,
    pub ipv6: Option<IpNet>,
    pub vtep: Option<IpNet>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Breakout {
    pub cage: u32,
    /// OS name of the unsplit cage.
    pub port: String,
    /// `<ports>x<speed>`, e.g. `2x400G`.
    pub mode: String,
    /// Logical ports the cage splits into.
    pub ports: u32,
    /// Electrical lanes each logical port uses (an 8-lane OSFP split 2× gives 4).
    pub lanes_per_port: u32,
    pub speed: Speed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InterfaceKind {
    /// Switch-to-switch, routed, carries BGP.
    Fabric,
    /// To a node's NIC (or an appliance), routed /31.
    Host,
    /// An OOB switch port to a management or BMC port: untagged in `access_vlan`.
    Access,
    /// Between an OOB switch and the OOB gateway: 802.1Q, tagged in `trunk_vlans`.
    Trunk,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interface {
    pub name: String,
    pub kind: InterfaceKind,
    /// `<peer device>:<peer port>`, from the cabling plan.
    pub description: String,
    pub peer_device: String,
    pub peer_port: String,
    pub cable: String,
    /// Length of the cable in metres, from the cabling plan (lossless headroom depends on it).
    #[serde(default)]
    pub cable_length_m: f64,
    pub speed: Speed,
    pub mtu: u32,
    pub ipv4: Option<IpNet>,
    pub ipv6: Option<IpNet>,
    /// In the lossless RoCE class (PFC, ECN, trust DSCP).
    pub lossless: bool,
    pub adaptive_routing: bool,
    /// Tenant VRF of the port; `None` = default VRF.
    pub vrf: Option<String>,
    /// The VLAN of an access port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_vlan: Option<u16>,
    /// The VLANs of a trunk, in id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trunk_vlans: Vec<u16>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bgp {
    pub asn: u64,
    pub router_id: Ipv4Addr,
    /// Sessions run over IPv6 link-local with IPv4 routes on IPv6 next hops (RFC 5549).
    pub unnumbered: bool,
    /// ECMP width: the uplink count (leaves), else the widest bundle to one neighbour.
    pub maximum_paths: u32,
    pub multipath_relax: bool,
    /// Accept routes carrying our own ASN (leaf ASN reuse, RFC 7938 §5.2.2).
    pub allowas_in: bool,
    pub bfd: Option<Bfd>,
    pub peer_group: String,
    pub neighbors: Vec<Neighbor>,
    /// Connected IPv4 prefixes redistributed into BGP (loopback, VTEP, host /31s).
    pub redistribute: Vec<PrefixRule>,
    /// Connected IPv6 prefixes redistributed into BGP (loopback, host /127s).
    pub redistribute_v6: Vec<PrefixRule>,
    /// Aggregates announced instead of their more-specifics.
    pub aggregates: Vec<IpNet>,
    /// Graceful restart (RFC 4724) on the fabric sessions.
    #[serde(default)]
    pub graceful_restart: GracefulRestart,
    /// Prefixes a fabric session accepts before it acts: sized from the plan (see `bgp.rs`).
    #[serde(default)]
    pub max_prefix: Option<MaxPrefix>,
    /// Outbound policy: the only IPv4 prefixes this switch advertises to the fabric (a leaf: its
    /// loopback, VTEP and host aggregates, so it is never transit). Empty: no outbound filter.
    #[serde(default)]
    pub export: Vec<PrefixRule>,
    #[serde(default)]
    pub export_v6: Vec<PrefixRule>,
    /// TCP-MD5 password of every fabric session: a `${NAME}` placeholder the push stage fills
    /// from the environment, never a value.
    #[serde(default)]
    pub password: Option<String>,
    /// GTSM (RFC 5082): sessions only from peers one hop away (TTL 255).
    #[serde(default)]
    pub gtsm: bool,
    /// Install the peers' global IPv6 next hops rather than their link-local ones (an inbound
    /// route map with `ipv6-nexthop-prefer-global`): parallel sessions to one router under
    /// adaptive routing on links with global IPv6 addresses (`intent::bgp::prefer_global`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ipv6_prefer_global: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GracefulRestartMode {
    /// Keep a restarting peer's routes; never ask peers to keep ours.
    #[default]
    HelperOnly,
    /// Restarting and helper, forwarding state preserved across a bgpd restart.
    Full,
    Disabled,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GracefulRestart {
    pub mode: GracefulRestartMode,
    /// Seconds a peer keeps our routes while we restart (advertised; RFC 4724 §3).
    pub restart_time_s: u32,
    /// Seconds we keep a restarting peer's stale routes at most.
    pub stale_path_time_s: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaxPrefix {
    /// IPv4 unicast prefixes accepted per fabric session.
    pub ipv4: u32,
    /// IPv6 unicast prefixes accepted per fabric session (0: the family carries none).
    pub ipv6: u32,
    /// Percent of the limit at which a warning is logged.
    pub warning_percent: u8,
    /// Minutes before a session torn down at the limit retries; `None`: only warn.
    pub restart_minutes: Option<u32>,
    /// How the limit was sized, for the reviewer.
    pub basis: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bfd {
    pub profile: String,
    pub interval_ms: u32,
    pub multiplier: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Neighbor {
    /// Local interface of the session.
    pub interface: String,
    /// Peer address when numbered; `None` for unnumbered sessions.
    pub address: Option<IpAddr>,
    pub remote_asn: u64,
    pub peer_device: String,
    pub peer_port: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefixRule {
    pub prefix: IpNet,
    /// Longest prefix matched, when longer than `prefix` itself (host /31s inside a block).
    pub le: Option<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QosMode {
    Lossless,
    Lossy,
}

/// The RoCE class plan (NVIDIA Cumulus Linux RoCE documentation): trust DSCP, RoCE on one PFC priority with ECN, CNPs strict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Qos {
    pub mode: QosMode,
    pub roce: TrafficClass,
    pub cnp: TrafficClass,
    /// Priorities with PFC (empty when lossy).
    pub pfc_priorities: Vec<u8>,
    pub ecn: Ecn,
    /// DWRR weights (percent) per traffic class; CNP's class is strict and not listed.
    pub ets: Vec<EtsWeight>,
    pub strict_traffic_classes: Vec<u8>,
    pub pfc_watchdog: Option<PfcWatchdog>,
    /// Ports in the RoCE class (trust DSCP, ECN; PFC on `pfc_priorities` when lossless).
    pub ports: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrafficClass {
    pub dscp: u8,
    pub priority: u8,
    pub traffic_class: u8,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ecn {
    pub traffic_class: u8,
    pub min_bytes: u32,
    pub max_bytes: u32,
    pub probability: u8,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EtsWeight {
    pub traffic_class: u8,
    pub weight: u8,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PfcWatchdog {
    pub detection_ms: u32,
    pub restoration_ms: u32,
    pub action: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveRouting {
    pub ports: Vec<String>,
}

/// The InfiniBand side: what the subnet manager needs (NVIDIA InfiniBand cluster bring-up procedure, Adaptive Routing). InfiniBand switches take no
/// per-switch configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubnetManager {
    /// `compute` or `storage`.
    pub network: Network,
    pub routing_engine: String,
    pub adaptive_routing: bool,
    /// Top-tier switches by name, for the operator to resolve to GUIDs (`root_guid_file`).
    pub roots: Vec<String>,
    pub switches: u32,
    pub hosts: u32,
}
