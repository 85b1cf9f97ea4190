//! The typed CONFIG_DB tables railyard writes. Table, key and field names are those of
//! sonic-buildimage `src/sonic-yang-models/yang-models/sonic-*.yang` (cited per table); values
//! are strings, as CONFIG_DB stores them.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

/// A CONFIG_DB key, ordered the way `config save` writes them (sonic-cfggen `sort_data`,
/// natsort): `Ethernet8` before `Ethernet16`, `Ethernet8|3` before `Ethernet8|10`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key(pub String);

impl From<String> for Key {
    fn from(s: String) -> Self {
        Key(s)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Self {
        Key(s.to_string())
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        crate::output::natural::cmp(&self.0, &other.0).then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub type Table<T> = BTreeMap<Key, T>;

/// The whole file, tables in name order. An empty table is left out.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct ConfigDb {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub breakout_cfg: Table<BreakoutCfg>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_pg: Table<BufferProfileRef>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_pool: Table<BufferPool>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_port_egress_profile_list: Table<ProfileList>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_port_ingress_profile_list: Table<ProfileList>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_profile: Table<BufferProfile>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_queue: Table<BufferProfileRef>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cable_length: Table<Table<String>>,
    pub device_metadata: BTreeMap<&'static str, DeviceMetadata>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub device_neighbor: Table<DeviceNeighbor>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub dns_nameserver: Table<Empty>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub dscp_to_tc_map: Table<BTreeMap<u8, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub interface: Table<Interface>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub loopback_interface: Table<Empty>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub map_pfc_priority_to_queue: Table<BTreeMap<u8, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub mgmt_interface: Table<MgmtInterface>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub mgmt_port: Table<MgmtPort>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub mgmt_vrf_config: BTreeMap<&'static str, MgmtVrf>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub ntp_server: Table<Empty>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pfc_priority_to_priority_group_map: Table<BTreeMap<u8, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pfc_wd: Table<PfcWd>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub port: Table<Port>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub port_qos_map: Table<PortQosMap>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub queue: Table<Queue>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub scheduler: Table<Scheduler>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub syslog_server: Table<SyslogServer>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tc_to_priority_group_map: Table<BTreeMap<u8, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tc_to_queue_map: Table<BTreeMap<u8, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vlan: Table<Vlan>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vlan_interface: Table<VlanInterface>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vrf: Table<VrfEntry>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vxlan_evpn_nvo: Table<EvpnNvo>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vxlan_tunnel: Table<VxlanTunnel>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vxlan_tunnel_map: Table<VxlanTunnelMap>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub wred_profile: Table<WredProfile>,
}

/// An entry whose key carries everything (`"Ethernet0|10.64.0.1/31": {}`).
#[derive(Debug, Default, Serialize)]
pub struct Empty {}

/// sonic-device_metadata.yang, container `localhost`.
#[derive(Debug, Serialize)]
pub struct DeviceMetadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bgp_asn: Option<String>,
    /// Always `traditional` here: buffers are the static tables below, not computed on the box.
    pub buffer_model: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub create_only_config_db_buffers: Option<&'static str>,
    /// `enable|disable`; with `enable`, `pfcwd start_default` arms the watchdog on the
    /// DEVICE_NEIGHBOR ports with its defaults, which the per-port PFC_WD rows replace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_pfcwd_status: Option<&'static str>,
    pub docker_routing_config_mode: &'static str,
    /// `"true"` when `frr.conf` has a `bfd` block: the bgp container's supervisord starts
    /// `bfdd` only then (`system::FRR_MGMT_FRAMEWORK`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frr_mgmt_framework_config: Option<&'static str>,
    pub hostname: String,
    pub hwsku: String,
    pub platform: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub device_type: Option<&'static str>,
}

/// sonic-port.yang PORT_LIST. `lanes`, `alias`, `index`, `subport` and `fec` are what SONiC's
/// own breakout writes for the port (`portconfig.py` `BreakoutCfg.get_config`).
#[derive(Debug, Serialize)]
pub struct Port {
    /// Advertised speeds (Mb/s), with `autoneg` on (`link::autoneg`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adv_speeds: Option<String>,
    pub admin_status: &'static str,
    pub alias: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoneg: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fec: Option<&'static str>,
    pub index: String,
    pub lanes: String,
    pub mtu: String,
    /// Mb/s (sonic-port.yang: "Port speed in Mbps").
    pub speed: String,
    pub subport: String,
}

/// sonic-breakout_cfg.yang: the mode of each cage, one of its `platform.json` modes.
#[derive(Debug, Serialize)]
pub struct BreakoutCfg {
    pub brkout_mode: String,
}

/// sonic-device_neighbor.yang: the cabling plan's peer of each cabled port (what LLDP should
/// report, and what the buffer and QoS templates call an active port).
#[derive(Debug, Serialize)]
pub struct DeviceNeighbor {
    pub name: String,
    pub port: String,
}

/// sonic-interface.yang: the bare `"<port>"` entry (INTERFACE_LIST) must exist for its
/// `"<port>|<prefix>"` entries (INTERFACE_IPPREFIX_LIST) to be valid.
#[derive(Debug, Default, Serialize)]
pub struct Interface {
    /// `enable` gives a routed port with no address its IPv6 link-local address, which is all
    /// BGP unnumbered (RFC 5549) needs (Configuration.md, "L3 Interfaces").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipv6_use_link_local_only: Option<&'static str>,
    /// The tenant VRF of a host port (a `VRF` key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrf_name: Option<String>,
}

/// sonic-vlan.yang VLAN_LIST: key `Vlan<id>`, `vlanid` equal to the id.
#[derive(Debug, Serialize)]
pub struct Vlan {
    pub description: String,
    pub vlanid: String,
}

/// sonic-vlan.yang VLAN_INTERFACE_LIST.
#[derive(Debug, Serialize)]
pub struct VlanInterface {
    pub vrf_name: String,
}

/// sonic-vrf.yang VRF_LIST; `vni` binds an L3VNI, a local VRF is the bare key.
#[derive(Debug, Serialize)]
pub struct VrfEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vni: Option<String>,
}

/// sonic-vxlan.yang VXLAN_TUNNEL_LIST.
#[derive(Debug, Serialize)]
pub struct VxlanTunnel {
    pub src_ip: String,
}

/// sonic-vxlan.yang VXLAN_EVPN_NVO_LIST.
#[derive(Debug, Serialize)]
pub struct EvpnNvo {
    pub source_vtep: &'static str,
}

/// sonic-vxlan.yang VXLAN_TUNNEL_MAP_LIST: key `<tunnel>|<mapname>`.
#[derive(Debug, Serialize)]
pub struct VxlanTunnelMap {
    pub vlan: String,
    pub vni: String,
}

/// sonic-mgmt_interface.yang: key `eth0|<address/len>`.
#[derive(Debug, Serialize)]
pub struct MgmtInterface {
    pub gwaddr: String,
}

/// sonic-mgmt_port.yang.
#[derive(Debug, Serialize)]
pub struct MgmtPort {
    pub admin_status: &'static str,
    pub alias: String,
}

/// sonic-mgmt_vrf.yang, container `vrf_global`.
#[derive(Debug, Serialize)]
pub struct MgmtVrf {
    #[serde(rename = "mgmtVrfEnabled")]
    pub mgmt_vrf_enabled: &'static str,
}

/// sonic-syslog.yang SYSLOG_SERVER_LIST.
#[derive(Debug, Serialize)]
pub struct SyslogServer {
    /// `default|mgmt` or a data VRF; `mgmt` requires mgmtVrfEnabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrf: Option<&'static str>,
}

/// sonic-port-qos-map.yang. Map fields name entries of the map tables.
#[derive(Debug, Default, Serialize)]
pub struct PortQosMap {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dscp_to_tc_map: Option<&'static str>,
    /// Priorities with PFC, `"3"` or `"3,4"`; `""` turns PFC off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_enable: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_to_pg_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_to_queue_map: Option<&'static str>,
    /// Queues the PFC watchdog guards, same format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfcwd_sw_enable: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tc_to_pg_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tc_to_queue_map: Option<&'static str>,
}

/// sonic-wred-profile.yang: thresholds in bytes, probabilities in percent. With `ecn` set, WRED
/// marks ECN-capable packets instead of dropping them.
#[derive(Debug, Serialize)]
pub struct WredProfile {
    pub ecn: &'static str,
    pub green_drop_probability: String,
    pub green_max_threshold: String,
    pub green_min_threshold: String,
    pub red_drop_probability: String,
    pub red_max_threshold: String,
    pub red_min_threshold: String,
    pub wred_green_enable: &'static str,
    pub wred_red_enable: &'static str,
    pub wred_yellow_enable: &'static str,
    pub yellow_drop_probability: String,
    pub yellow_max_threshold: String,
    pub yellow_min_threshold: String,
}

/// sonic-scheduler.yang: `type` DWRR|WRR|STRICT, `weight` 1..100.
#[derive(Debug, Serialize)]
pub struct Scheduler {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<String>,
}

/// sonic-queue.yang; key `<port>|<queue>`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Queue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wred_profile: Option<&'static str>,
}

/// sonic-pfcwd.yang: per port `action`/`detection_time`/`restoration_time` (ms); the `GLOBAL`
/// key carries only POLL_INTERVAL.
#[derive(Debug, Default, Serialize)]
pub struct PfcWd {
    #[serde(rename = "POLL_INTERVAL", skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detection_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restoration_time: Option<String>,
}

/// sonic-buffer-pool.yang.
#[derive(Debug, Serialize)]
pub struct BufferPool {
    pub mode: &'static str,
    pub size: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// sonic-buffer-profile.yang. A lossless PG profile carries xon/xoff; the threshold field is
/// `dynamic_th` or `static_th` after its pool's mode.
#[derive(Debug, Serialize)]
pub struct BufferProfile {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_th: Option<String>,
    pub pool: &'static str,
    pub size: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_th: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xoff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xon: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xon_offset: Option<String>,
}

/// sonic-buffer-pg.yang / sonic-buffer-queue.yang: `<port>|<pg or queue range>` → profile.
#[derive(Debug, Serialize)]
pub struct BufferProfileRef {
    pub profile: String,
}

/// sonic-buffer-port-{ingress,egress}-profile-list.yang; CONFIG_DB stores the list comma-joined.
#[derive(Debug, Serialize)]
pub struct ProfileList {
    pub profile_list: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_like_config_save() {
        let mut v: Vec<Key> = [
            "Ethernet16",
            "Ethernet8|10",
            "Ethernet8|3",
            "Ethernet100",
            "Ethernet8",
        ]
        .into_iter()
        .map(Key::from)
        .collect();
        v.sort();
        let names: Vec<&str> = v.iter().map(|k| k.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "Ethernet8",
                "Ethernet8|3",
                "Ethernet8|10",
                "Ethernet16",
                "Ethernet100"
            ]
        );
    }
}
