//! SONiC: `config_db.json` for the switch's own tables, `frr.conf` for routing.
//!
//! `config_db.json` is serialized from the typed tables below, never templated. It is a partial
//! configuration for `config load`, which runs `sonic-cfggen -j <file> --write-to-db`
//! (sonic-utilities `config/main.py`), i.e. `ConfigDBConnector::mod_config` (sonic-swss-common
//! `configdb`): each entry is merged field by field into what the switch already holds, entries
//! and fields the file does not name are kept, and a table given as `{}` is deleted outright.
//! Hence:
//! - the platform's factory rows stay as the HWSKU generated them: PORT `lanes`/`alias`/`index`,
//!   DEVICE_METADATA `hwsku`/`platform`/`mac`, and the buffer tables; this file only names what
//!   the cluster decides;
//! - an empty table is never written (it would wipe the switch's own rows);
//! - a factory field the cluster wants off is written explicitly (`pfc_enable: ""`), because
//!   leaving it out would keep the factory value.
//!
//! Table and field names follow sonic-buildimage `src/sonic-yang-models/doc/Configuration.md`
//! and the yang models in `src/sonic-yang-models/yang-models/`, cited per table; the factory
//! QoS values being replaced are those of `files/build_templates/qos_config.j2`.
//!
//! `frr.conf` comes from `templates/sonic/frr.conf.j2`, which reuses the FRR sections; SONiC
//! reads it as is in `split-unified` routing-config mode (see [`ROUTING_CONFIG_MODE`]).
//!
//! EVPN-VXLAN tenancy (symmetric routing, one L3VNI per tenant VRF, no L2VNIs) is split the way
//! SONiC splits it (sonic-net/SONiC `doc/vxlan/EVPN/EVPN_VXLAN_HLD.md` §4.3, "Following
//! configurations are required for enabling EVPN L3 service"): the VTEP, the L3VNI's VLAN and its
//! VNI map, the VRF with its `vni` and the VLAN interface in that VRF are config_db rows (see
//! [`tenancy`]); the same VRF-to-VNI binding and the per-VRF BGP instance are FRR configuration in
//! `frr.conf`. A switch with tenant ports but no EVPN (the intent drops EVPN where there is no
//! BGP, e.g. a storage leaf pair without spines) gets its tenant VRFs as local VRFs: `VRF` rows
//! without `vni` and its ports bound to them, nothing of VXLAN. Merging has one more consequence
//! here: a tenant that leaves a switch keeps its
//! `VRF`/`VLAN`/`VXLAN_TUNNEL_MAP` rows until they are deleted (`config vrf del`, `config vxlan
//! map del`, `config vlan del`), and intfmgrd refuses to move a port that still has addresses
//! from one VRF to another (sonic-swss `cfgmgr/intfmgr.cpp`, `isIntfChangeVrf`), so re-homing a
//! port means removing its `INTERFACE` rows first.

use std::collections::{BTreeMap, BTreeSet};

use minijinja::{Environment, Value};
use serde::Serialize;

use super::{RenderError, template};
use crate::intent::{DeviceIntent, Qos};
use crate::model::Role;

/// `docker-fpm-frr/docker_init.sh`: `split` keeps one file per daemon (`bgpd.conf`,
/// `zebra.conf`, and it deletes `frr.conf`); `split-unified` loads the single integrated
/// `/etc/frr/frr.conf` and generates nothing from config_db. Both modes are in the
/// `docker_routing_config_mode` pattern of sonic-device_metadata.yang.
const ROUTING_CONFIG_MODE: &str = "split-unified";

/// Name of every QoS map this file defines. The factory maps are called `AZURE` and stay on the
/// switch untouched; ports are rebound to these.
const QOS_MAP: &str = "ROCE";
const ECN_PROFILE: &str = "ROCE_ECN";
const STRICT_SCHEDULER: &str = "STRICT";

/// The VTEP (`VXLAN_TUNNEL`) and the EVPN NVO naming it. sonic-vxlan.yang allows one
/// VXLAN_EVPN_NVO and at most two tunnels; `config vxlan add <vtepname> <src_ip>` and `config
/// vxlan evpn_nvo add <nvoname> <vtepname>` (EVPN_VXLAN_HLD.md §5.1.1) take any name.
const VTEP_NAME: &str = "vtep";
const NVO_NAME: &str = "nvo";

/// SONiC data VRFs are named `Vrf...`: sonic-vrf.yang's name pattern is `Vrf[a-zA-Z0-9_-]+`,
/// sonic-utilities `config vrf add` refuses other names and names over 15 characters, and
/// intfmgrd only waits for a VRF to come up when its name starts with `Vrf` (sonic-swss
/// `cfgmgr/intfmgr.cpp` `isIntfStateOk`: any other `vrf_name` is looked up as a port and the
/// interface is never bound). The intent's tenant names are kernel-safe but unprefixed.
const VRF_PREFIX: &str = "Vrf";
/// Linux IFNAMSIZ - 1, the limit `config vrf add` enforces.
const VRF_NAME_MAX: usize = 15;

/// sonic-pfcwd.yang: POLL_INTERVAL 100..1000 ms, and detection and restoration times must not be
/// shorter than it. sonic-utilities `pfcwd/main.py` polls every 200 ms by default.
const PFCWD_POLL_MIN_MS: u32 = 100;
const PFCWD_POLL_DEFAULT_MS: u32 = 200;

type Table<T> = BTreeMap<String, T>;

/// The whole file. Fields are in table-name order, as `config save` writes them; every table is
/// left out when empty, because `config load` deletes a table given as `{}`.
#[derive(Debug, Default, Serialize)]
struct ConfigDb {
    #[serde(rename = "DEVICE_METADATA")]
    device_metadata: BTreeMap<&'static str, DeviceMetadata>,
    #[serde(rename = "DNS_NAMESERVER", skip_serializing_if = "BTreeMap::is_empty")]
    dns_nameserver: Table<Empty>,
    #[serde(rename = "DSCP_TO_TC_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    dscp_to_tc_map: Table<BTreeMap<u8, String>>,
    #[serde(rename = "INTERFACE", skip_serializing_if = "BTreeMap::is_empty")]
    interface: Table<Interface>,
    #[serde(
        rename = "LOOPBACK_INTERFACE",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    loopback_interface: Table<Empty>,
    #[serde(
        rename = "MAP_PFC_PRIORITY_TO_QUEUE",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    map_pfc_priority_to_queue: Table<BTreeMap<u8, String>>,
    #[serde(rename = "MGMT_INTERFACE", skip_serializing_if = "BTreeMap::is_empty")]
    mgmt_interface: Table<MgmtInterface>,
    #[serde(rename = "MGMT_VRF_CONFIG", skip_serializing_if = "BTreeMap::is_empty")]
    mgmt_vrf_config: BTreeMap<&'static str, MgmtVrf>,
    #[serde(rename = "NTP_SERVER", skip_serializing_if = "BTreeMap::is_empty")]
    ntp_server: Table<Empty>,
    #[serde(rename = "PFC_WD", skip_serializing_if = "BTreeMap::is_empty")]
    pfc_wd: Table<PfcWd>,
    #[serde(rename = "PORT", skip_serializing_if = "BTreeMap::is_empty")]
    port: Table<Port>,
    #[serde(rename = "PORT_QOS_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    port_qos_map: Table<PortQosMap>,
    #[serde(rename = "QUEUE", skip_serializing_if = "BTreeMap::is_empty")]
    queue: Table<Queue>,
    #[serde(rename = "SCHEDULER", skip_serializing_if = "BTreeMap::is_empty")]
    scheduler: Table<Scheduler>,
    #[serde(rename = "SYSLOG_SERVER", skip_serializing_if = "BTreeMap::is_empty")]
    syslog_server: Table<SyslogServer>,
    #[serde(
        rename = "TC_TO_PRIORITY_GROUP_MAP",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    tc_to_priority_group_map: Table<BTreeMap<u8, String>>,
    #[serde(rename = "TC_TO_QUEUE_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    tc_to_queue_map: Table<BTreeMap<u8, String>>,
    #[serde(rename = "VLAN", skip_serializing_if = "BTreeMap::is_empty")]
    vlan: Table<Vlan>,
    #[serde(rename = "VLAN_INTERFACE", skip_serializing_if = "BTreeMap::is_empty")]
    vlan_interface: Table<VlanInterface>,
    #[serde(rename = "VRF", skip_serializing_if = "BTreeMap::is_empty")]
    vrf: Table<VrfEntry>,
    #[serde(rename = "VXLAN_EVPN_NVO", skip_serializing_if = "BTreeMap::is_empty")]
    vxlan_evpn_nvo: Table<EvpnNvo>,
    #[serde(rename = "VXLAN_TUNNEL", skip_serializing_if = "BTreeMap::is_empty")]
    vxlan_tunnel: Table<VxlanTunnel>,
    #[serde(
        rename = "VXLAN_TUNNEL_MAP",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    vxlan_tunnel_map: Table<VxlanTunnelMap>,
    #[serde(rename = "WRED_PROFILE", skip_serializing_if = "BTreeMap::is_empty")]
    wred_profile: Table<WredProfile>,
}

/// An entry whose key carries everything (`"Ethernet0|10.64.0.1/31": {}`).
#[derive(Debug, Default, Serialize)]
struct Empty {}

/// sonic-device_metadata.yang, container `localhost`.
#[derive(Debug, Serialize)]
struct DeviceMetadata {
    hostname: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    bgp_asn: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    device_type: Option<&'static str>,
    docker_routing_config_mode: &'static str,
    /// `enable|disable`; when `enable`, `pfcwd start_default` also arms the watchdog on ports
    /// listed in DEVICE_NEIGHBOR (none here), so the per-port PFC_WD rows below are what counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    default_pfcwd_status: Option<&'static str>,
}

/// sonic-port.yang. `lanes`, `alias` and `index` are mandatory there but belong to the platform:
/// they come from the HWSKU's `port_config.ini`/`hwsku.json` and stay on the switch because
/// `config load` merges fields. A split cage's sub-ports exist only once the HWSKU (e.g.
/// Mellanox-SN5600-O128 runs every cage as 2x400G) or `config interface breakout` created them.
#[derive(Debug, Serialize)]
struct Port {
    admin_status: &'static str,
    description: String,
    mtu: String,
    /// Mb/s (sonic-port.yang: "Port speed in Mbps").
    speed: String,
}

/// sonic-interface.yang: the bare `"<port>"` entry (INTERFACE_LIST) must exist for its
/// `"<port>|<prefix>"` entries (INTERFACE_IPPREFIX_LIST) to be valid.
#[derive(Debug, Default, Serialize)]
struct Interface {
    /// `enable` gives a routed port with no address its IPv6 link-local address, which is all
    /// BGP unnumbered (RFC 5549) needs (Configuration.md, "L3 Interfaces").
    #[serde(skip_serializing_if = "Option::is_none")]
    ipv6_use_link_local_only: Option<&'static str>,
    /// sonic-interface.yang `vrf_name`: the tenant VRF of a host port (a `VRF` key).
    #[serde(skip_serializing_if = "Option::is_none")]
    vrf_name: Option<String>,
}

/// sonic-vlan.yang VLAN_LIST: key `Vlan<id>`, `vlanid` equal to the id. The L3VNI's VLAN has no
/// members; it only gives the VNI an SVI in the tenant VRF.
#[derive(Debug, Serialize)]
struct Vlan {
    vlanid: String,
    description: String,
}

/// sonic-vlan.yang VLAN_INTERFACE_LIST: key `Vlan<id>`. The L3VNI SVI has no address (symmetric
/// routing needs none), so there is no `Vlan<id>|<prefix>` row.
#[derive(Debug, Serialize)]
struct VlanInterface {
    vrf_name: String,
}

/// sonic-vrf.yang VRF_LIST: `vni` (0..16777215, 0 = none) binds the L3VNI, what `config vrf
/// add_vrf_vni_map <vrf> <vni>` writes (EVPN_VXLAN_HLD.md §4.2.1 VRF_TABLE, §5.1.1). A local VRF
/// is the bare key, `{}` (ConfigDBConnector stores an empty entry as `NULL: NULL`, as `config vrf
/// add` does).
#[derive(Debug, Serialize)]
struct VrfEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    vni: Option<String>,
}

/// sonic-vxlan.yang VXLAN_TUNNEL_LIST: the VTEP, source address only (no `dst_ip`: EVPN
/// discovers the remote VTEPs; EVPN_VXLAN_HLD.md §4.3 "Configure VXLAN tunnel with SIP only").
#[derive(Debug, Serialize)]
struct VxlanTunnel {
    src_ip: String,
}

/// sonic-vxlan.yang VXLAN_EVPN_NVO_LIST: `source_vtep` names the VXLAN_TUNNEL used for the
/// BGP-EVPN discovered tunnels.
#[derive(Debug, Serialize)]
struct EvpnNvo {
    source_vtep: &'static str,
}

/// sonic-vxlan.yang VXLAN_TUNNEL_MAP_LIST: key `<tunnel>|<mapname>`, `vlan` as `Vlan<id>`, `vni`.
/// The map name is the one `config vxlan map add` generates, `map_<vni>_Vlan<id>`
/// (EVPN_VXLAN_HLD.md §5.1.2 and §5.3).
#[derive(Debug, Serialize)]
struct VxlanTunnelMap {
    vlan: String,
    vni: String,
}

/// Configuration.md "Management Interface": key `eth0|<address/len>`, gateway in `gwaddr`.
#[derive(Debug, Serialize)]
struct MgmtInterface {
    gwaddr: String,
}

/// sonic-mgmt_vrf.yang, container `vrf_global`.
#[derive(Debug, Serialize)]
struct MgmtVrf {
    #[serde(rename = "mgmtVrfEnabled")]
    mgmt_vrf_enabled: &'static str,
}

/// sonic-syslog.yang, SYSLOG_SERVER_LIST.
#[derive(Debug, Serialize)]
struct SyslogServer {
    /// `default|mgmt` or a data VRF; `mgmt` requires mgmtVrfEnabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    vrf: Option<&'static str>,
}

/// sonic-port-qos-map.yang. Map fields name entries of the map tables.
#[derive(Debug, Default, Serialize)]
struct PortQosMap {
    #[serde(skip_serializing_if = "Option::is_none")]
    dscp_to_tc_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tc_to_queue_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tc_to_pg_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pfc_to_queue_map: Option<&'static str>,
    /// Priorities with PFC, `"3"` or `"3,4"`; `""` turns PFC off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pfc_enable: Option<String>,
    /// Queues the PFC watchdog guards, same format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pfcwd_sw_enable: Option<String>,
}

/// sonic-wred-profile.yang: thresholds in bytes, probabilities in percent. With `ecn` set, WRED
/// marks ECN-capable packets instead of dropping them (the AZURE_LOSSLESS profile of
/// qos_config.j2 has the same shape). The newer separate `ecn_*_threshold` fields are left out:
/// released images do not know them.
#[derive(Debug, Serialize)]
struct WredProfile {
    wred_green_enable: &'static str,
    wred_yellow_enable: &'static str,
    wred_red_enable: &'static str,
    ecn: &'static str,
    green_min_threshold: String,
    green_max_threshold: String,
    yellow_min_threshold: String,
    yellow_max_threshold: String,
    red_min_threshold: String,
    red_max_threshold: String,
    green_drop_probability: String,
    yellow_drop_probability: String,
    red_drop_probability: String,
}

/// sonic-scheduler.yang: `type` DWRR|WRR|STRICT, `weight` 1..100.
#[derive(Debug, Serialize)]
struct Scheduler {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<String>,
}

/// sonic-queue.yang; key `<port>|<queue>`.
#[derive(Clone, Debug, Default, Serialize)]
struct Queue {
    #[serde(skip_serializing_if = "Option::is_none")]
    scheduler: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wred_profile: Option<&'static str>,
}

/// sonic-pfcwd.yang: per port `action`/`detection_time`/`restoration_time` (ms); the `GLOBAL` key
/// carries only POLL_INTERVAL.
#[derive(Debug, Default, Serialize)]
struct PfcWd {
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detection_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    restoration_time: Option<String>,
    #[serde(rename = "POLL_INTERVAL", skip_serializing_if = "Option::is_none")]
    poll_interval: Option<String>,
}

pub fn render(
    env: &Environment<'_>,
    d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    // Both files see the tenant VRFs under their SONiC names: config_db's `VRF` keys and FRR's
    // `vrf`/`router bgp .. vrf` must name the same kernel VRF device, which vrfmgrd creates.
    let d = &sonic_vrf_names(d)?;
    let mut json = serde_json::to_string_pretty(&config_db(d)).map_err(|e| RenderError {
        device: d.hostname.clone(),
        template: "config_db.json".into(),
        message: e.to_string(),
    })?;
    json.push('\n');
    let frr = template(
        env,
        &d.hostname,
        "sonic/frr.conf.j2",
        Value::from_serialize(d),
    )?;
    Ok(vec![
        ("config_db.json".into(), json),
        ("frr.conf".into(), frr),
    ])
}

/// The intent with every tenant VRF renamed to its SONiC name (see [`VRF_PREFIX`]): `Vrf` and
/// the tenant name, or `Vrf` and the tenant id when that would pass 15 characters (tenant names
/// may have 15). The rule depends on the tenant alone, so a tenant has one name on every switch.
fn sonic_vrf_names(d: &DeviceIntent) -> Result<DeviceIntent, RenderError> {
    let fail = |message: String| RenderError {
        device: d.hostname.clone(),
        template: "config_db.json".into(),
        message,
    };
    let names: BTreeMap<&str, String> = d
        .vrfs
        .iter()
        .map(|v| {
            let full = format!("{VRF_PREFIX}{}", v.name);
            let name = if full.len() <= VRF_NAME_MAX {
                full
            } else {
                format!("{VRF_PREFIX}{}", v.tenant_id)
            };
            (v.name.as_str(), name)
        })
        .collect();
    let distinct: BTreeSet<&String> = names.values().collect();
    if distinct.len() != names.len() {
        return Err(fail(format!(
            "tenant VRFs {:?} map to clashing SONiC VRF names {:?}",
            names.keys().collect::<Vec<_>>(),
            names.values().collect::<Vec<_>>()
        )));
    }
    let mut s = d.clone();
    for v in &mut s.vrfs {
        v.name = names[v.name.as_str()].clone();
    }
    for i in &mut s.interfaces {
        if let Some(vrf) = &mut i.vrf {
            *vrf = names.get(vrf.as_str()).cloned().ok_or_else(|| {
                fail(format!(
                    "port {} is in VRF `{vrf}`, which the switch does not carry",
                    i.name
                ))
            })?;
        }
    }
    Ok(s)
}

fn config_db(d: &DeviceIntent) -> ConfigDb {
    let mut db = ConfigDb::default();
    db.device_metadata.insert(
        "localhost",
        DeviceMetadata {
            hostname: d.hostname.clone(),
            bgp_asn: d.bgp.as_ref().map(|b| b.asn.to_string()),
            device_type: device_type(d.role),
            docker_routing_config_mode: ROUTING_CONFIG_MODE,
            default_pfcwd_status: d.qos.as_ref().map(|q| match q.pfc_watchdog {
                Some(_) => "enable",
                None => "disable",
            }),
        },
    );
    ports(d, &mut db);
    interfaces(d, &mut db);
    tenancy(d, &mut db);
    system(d, &mut db);
    if let Some(q) = &d.qos {
        qos(d, q, &mut db);
    }
    db
}

/// SONiC names tiers the Azure way: servers hang off a ToRRouter, ToRRouters off a LeafRouter,
/// LeafRouters off a SpineRouter (buffers_config.j2 cable table: `torrouter_server`,
/// `leafrouter_torrouter`, `spinerouter_leafrouter`; qos_config.j2 counts a LeafRouter's
/// ToRRouter neighbours as downlinks). A GPU leaf is the tier-0 switch, so it is a ToRRouter.
/// The type picks the HWSKU's `buffers_defaults_t0/t1/t2.j2` when QoS is regenerated.
fn device_type(role: Role) -> Option<&'static str> {
    match role {
        Role::Leaf | Role::StorageLeaf | Role::InbandLeaf => Some("ToRRouter"),
        Role::Spine | Role::StorageSpine | Role::InbandSpine => Some("LeafRouter"),
        Role::Core | Role::StorageCore | Role::InbandCore => Some("SpineRouter"),
        Role::OobLeaf => Some("MgmtToRRouter"),
        // sonic-device_metadata.yang has no type for an OOB aggregation switch; keep the factory's.
        Role::OobCore | Role::OobGateway | Role::Node | Role::Appliance => None,
    }
}

fn ports(d: &DeviceIntent, db: &mut ConfigDb) {
    for i in &d.interfaces {
        db.port.insert(
            i.name.clone(),
            Port {
                admin_status: "up",
                description: format!("{} [{}]", i.description, i.cable),
                mtu: i.mtu.to_string(),
                speed: (u64::from(i.speed.as_gbps()) * 1000).to_string(),
            },
        );
    }
}

fn interfaces(d: &DeviceIntent, db: &mut ConfigDb) {
    let unnumbered: BTreeSet<&str> = match &d.bgp {
        Some(b) if b.unnumbered => b.neighbors.iter().map(|n| n.interface.as_str()).collect(),
        _ => BTreeSet::new(),
    };
    for i in &d.interfaces {
        let addrs: Vec<_> = i.ipv4.iter().chain(i.ipv6.iter()).collect();
        let link_local = addrs.is_empty() && unnumbered.contains(i.name.as_str());
        if addrs.is_empty() && !link_local && i.vrf.is_none() {
            continue;
        }
        // A tenant port names its VRF on the bare entry (Configuration.md "L3 Interfaces" with
        // `vrf_name`; what `config interface vrf bind` writes); its addresses then live there.
        db.interface.insert(
            i.name.clone(),
            Interface {
                ipv6_use_link_local_only: link_local.then_some("enable"),
                vrf_name: i.vrf.clone(),
            },
        );
        for a in addrs {
            db.interface
                .insert(format!("{}|{a}", i.name), Interface::default());
        }
    }

    // sonic-loopback-interface.yang: like INTERFACE, the bare name entry comes first. The VTEP
    // address shares Loopback0 with the router address, as on the other platforms' `lo`; the
    // VXLAN source must be a local address (`show vxlan interface` reports the loopback holding
    // it, EVPN_VXLAN_HLD.md §5.1.2). A VTEP equal to the router address is the same key.
    let lo = &d.loopback;
    let evpn_vtep = d.evpn.as_ref().and_then(|e| e.vtep);
    let addrs: Vec<_> = lo
        .ipv4
        .iter()
        .chain(&lo.vtep)
        .chain(&evpn_vtep)
        .chain(&lo.ipv6)
        .collect();
    if !addrs.is_empty() {
        db.loopback_interface.insert("Loopback0".into(), Empty {});
        for a in addrs {
            db.loopback_interface
                .insert(format!("Loopback0|{a}"), Empty {});
        }
    }
}

/// Tenant VRFs, and EVPN-VXLAN on a VTEP (FACTS §5.1: symmetric routing through one L3VNI per
/// tenant VRF, type-5 routes only). A relay (spine, core: `vtep` = None) only carries the
/// l2vpn-evpn family, which is FRR configuration; it gets no row here. A switch with tenant VRFs
/// and no VTEP gets them as local VRFs (`VRF|<vrf>` with no `vni`) and nothing else.
///
/// The rows are the ones EVPN_VXLAN_HLD.md §4.3 lists for an EVPN L3 service, each what one
/// `config` command writes (§5.1.1: `vxlan add`, `vxlan evpn_nvo add`, `vxlan map add`, `vrf
/// add_vrf_vni_map`; and the general `vlan add`, `interface vrf bind Vlan<id>`);
/// `config load` writes them at once (intfmgrd, for one, retries a `vrf_name` binding until the
/// VRF is up: `cfgmgr/intfmgr.cpp` `doIntfGeneralTask`):
/// - `VXLAN_TUNNEL|vtep` `src_ip` and `VXLAN_EVPN_NVO|nvo` `source_vtep` — the VTEP;
/// - `VLAN|Vlan<id>` `vlanid` and `VXLAN_TUNNEL_MAP|vtep|map_<vni>_Vlan<id>` — "Configure
///   L3VNI-VLAN mapping for the given NVO" (§5.2.3: the VNI-VLAN map must exist before the
///   VRF-VNI map, "since VNI should be both L2 and L3");
/// - `VRF|<vrf>` `vni` — "Configure L3VNI under the corresponding SONiC VRF config";
/// - `VLAN_INTERFACE|Vlan<id>` `vrf_name` — "Configure VRF on VLAN interface associated with the
///   VLAN" (the HLD spells the field `vrf-name`; sonic-vlan.yang and intfmgrd read `vrf_name`).
///   §4.3.9: VRF routes become type-5 routes only "if corresponding VRF is configured with L3VNI
///   and corresponding IRB VLAN is present and belongs to the corresponding VRF".
///
/// The tenant ports' `vrf_name` is written with their addresses in [`interfaces`].
///
/// RoCE over VXLAN: config_db has no outer-DSCP setting for a VXLAN tunnel. sonic-vxlan.yang
/// VXLAN_TUNNEL has only `src_ip`, `dst_ip` and `ttl_mode` (the DSCP/ECN modes and QoS maps of
/// Configuration.md "Tunnel" belong to the IP-in-IP `TUNNEL` table), and sonic-swss
/// `orchagent/vxlanorch.cpp` `create_tunnel` sets no `SAI_TUNNEL_ATTR_ENCAP_DSCP_MODE`,
/// `..._DECAP_DSCP_MODE` or ECN mode. The SAI defaults therefore apply (opencomputeproject/SAI
/// `inc/saitunnel.h`): DSCP `SAI_TUNNEL_DSCP_MODE_UNIFORM_MODEL` both ways — the inner DSCP is
/// copied into the outer header on encapsulation and from it on decapsulation — and ECN
/// `SAI_TUNNEL_ENCAP_ECN_MODE_STANDARD` (RFC 6040 §4.1, copy from inner) /
/// `SAI_TUNNEL_DECAP_ECN_MODE_STANDARD` (RFC 6040 §4.2, a CE mark on the outer header reaches
/// the inner one). So the RoCE DSCP rides in the outer header, where the fabric ports' DSCP map
/// ([`qos`], trusted on every cabled port) puts it in the lossless class on every hop, and ECN
/// marks set in the underlay reach the receiving NIC. Nothing is written for it; whether a given
/// vendor SAI honours the default for VXLAN is not something config_db can state or check.
fn tenancy(d: &DeviceIntent, db: &mut ConfigDb) {
    let vtep = d.evpn.as_ref().and_then(|e| e.vtep);
    if let Some(vtep) = vtep {
        db.vxlan_tunnel.insert(
            VTEP_NAME.into(),
            VxlanTunnel {
                src_ip: vtep.addr().to_string(),
            },
        );
        db.vxlan_evpn_nvo.insert(
            NVO_NAME.into(),
            EvpnNvo {
                source_vtep: VTEP_NAME,
            },
        );
    }
    for v in &d.vrfs {
        db.vrf.insert(
            v.name.clone(),
            VrfEntry {
                vni: vtep.map(|_| v.l3vni.to_string()),
            },
        );
        if vtep.is_none() {
            continue;
        }
        let vlan = format!("Vlan{}", v.vlan);
        db.vlan.insert(
            vlan.clone(),
            Vlan {
                vlanid: v.vlan.to_string(),
                description: format!("L3VNI {} of tenant VRF {}", v.l3vni, v.name),
            },
        );
        db.vlan_interface.insert(
            vlan.clone(),
            VlanInterface {
                vrf_name: v.name.clone(),
            },
        );
        db.vxlan_tunnel_map.insert(
            format!("{VTEP_NAME}|map_{}_{vlan}", v.l3vni),
            VxlanTunnelMap {
                vlan,
                vni: v.l3vni.to_string(),
            },
        );
    }
}

/// Management port, its VRF and the management-plane services.
fn system(d: &DeviceIntent, db: &mut ConfigDb) {
    let s = &d.system;
    if let Some(m) = &s.mgmt {
        db.mgmt_interface.insert(
            format!("{}|{}", m.interface, m.address),
            MgmtInterface {
                gwaddr: m.gateway.to_string(),
            },
        );
        // SONiC's management VRF is always called `mgmt` (sonic-syslog.yang and sonic-ntp.yang
        // accept no other name), whatever the intent calls it.
        db.mgmt_vrf_config.insert(
            "vrf_global",
            MgmtVrf {
                mgmt_vrf_enabled: "true",
            },
        );
    }
    // Configuration.md "NTP Global Configuration": with the management VRF enabled and no
    // `NTP.global.vrf`, NTP already runs in it. sonic-ntp.yang defaults make `{}` a plain
    // iburst server.
    for n in &s.ntp {
        db.ntp_server.insert(n.clone(), Empty {});
    }
    // Syslog picks its VRF per server; the collectors sit on the management network.
    let syslog_vrf = s.mgmt.as_ref().map(|_| "mgmt");
    for n in &s.syslog {
        db.syslog_server
            .insert(n.clone(), SyslogServer { vrf: syslog_vrf });
    }
    // Configuration.md "Static DNS".
    for n in &s.dns {
        db.dns_nameserver.insert(n.clone(), Empty {});
    }
    // SNMP trap receivers are not written: SNMP_TRAP_CONFIG (written by `config snmptrap modify`,
    // read by docker-snmp/snmpd.conf.j2) holds one receiver per SNMP version, and each needs a
    // `Community`, which railyard keeps out of the spec. They are set at push time with
    // `config snmptrap modify 2 <ip> -v mgmt -c <community>`.
}

/// FACTS §2.3: the RoCE class replaces SONiC's AZURE defaults. Every cabled port of the switch
/// gets the class (trust DSCP, queues, ECN); PFC and its watchdog go on the lossless ports only.
fn qos(d: &DeviceIntent, q: &Qos, db: &mut ConfigDb) {
    let name = || QOS_MAP.to_string();

    // Priority → traffic class, as the intent maps it (identity unless the class says otherwise).
    let tc_of_priority = |p: u8| {
        if p == q.roce.priority {
            q.roce.traffic_class
        } else if p == q.cnp.priority {
            q.cnp.traffic_class
        } else {
            p
        }
    };

    // The four map tables are `{<map name>: {"<from>": "<to>"}}` (Configuration.md
    // DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP, MAP_PFC_PRIORITY_TO_QUEUE).
    // All 64 DSCPs explicit: RoCE and CNP to their classes, everything else to TC 0. The AZURE
    // map would send DSCP 26 (RoCE) to TC 1, a lossy queue.
    let dscp: BTreeMap<u8, String> = (0u8..64)
        .map(|v| {
            let tc = if v == q.roce.dscp {
                q.roce.traffic_class
            } else if v == q.cnp.dscp {
                q.cnp.traffic_class
            } else {
                0
            };
            (v, tc.to_string())
        })
        .collect();
    db.dscp_to_tc_map.insert(name(), dscp);

    // One queue per traffic class.
    db.tc_to_queue_map
        .insert(name(), (0u8..8).map(|tc| (tc, tc.to_string())).collect());

    // A lossless class needs its own priority group, numbered after its PFC priority: the PG
    // that sends PAUSE for that priority. Lossy classes share PG 0.
    // Buffers stay the platform's: buffers_config.j2 already makes PGs 3-4 lossless on every
    // port (BUFFER_PG `"<port>|3-4"` with a lossless profile, or `NULL` = headroom computed from
    // speed and cable length under the dynamic buffer model), so a PFC priority of 3 or 4 needs
    // no buffer change. Likewise PORT_QOS_MAP `pfc_to_pg_map` keeps the factory AZURE map
    // (3→3, 4→4), which qos_config.j2 writes on Mellanox and Barefoot ASICs only; the intent does
    // not name the ASIC, so this file writes no PFC_PRIORITY_TO_PRIORITY_GROUP_MAP.
    let lossless_pg: BTreeMap<u8, u8> = q
        .pfc_priorities
        .iter()
        .map(|&p| (tc_of_priority(p), p))
        .collect();
    db.tc_to_priority_group_map.insert(
        name(),
        (0u8..8)
            .map(|tc| (tc, lossless_pg.get(&tc).copied().unwrap_or(0).to_string()))
            .collect(),
    );

    // PFC frames received for a priority pause the queue its traffic class uses.
    db.map_pfc_priority_to_queue.insert(
        name(),
        (0u8..8)
            .map(|p| (p, tc_of_priority(p).to_string()))
            .collect(),
    );

    let e = &q.ecn;
    db.wred_profile.insert(
        ECN_PROFILE.into(),
        WredProfile {
            wred_green_enable: "true",
            wred_yellow_enable: "true",
            wred_red_enable: "true",
            ecn: "ecn_all",
            green_min_threshold: e.min_bytes.to_string(),
            green_max_threshold: e.max_bytes.to_string(),
            yellow_min_threshold: e.min_bytes.to_string(),
            yellow_max_threshold: e.max_bytes.to_string(),
            red_min_threshold: e.min_bytes.to_string(),
            red_max_threshold: e.max_bytes.to_string(),
            green_drop_probability: e.probability.to_string(),
            yellow_drop_probability: e.probability.to_string(),
            red_drop_probability: e.probability.to_string(),
        },
    );

    // Schedulers are named after what they do: sonic-scheduler.yang marks `type` and `weight`
    // create-only, so a changed weight must be a new scheduler, not an edit of the factory's
    // `scheduler.0`/`scheduler.1` or of an earlier push's.
    let mut per_queue: BTreeMap<u8, Queue> = BTreeMap::new();
    for w in &q.ets {
        let sched = format!("DWRR_{}", w.weight);
        db.scheduler.insert(
            sched.clone(),
            Scheduler {
                kind: "DWRR",
                weight: Some(w.weight.to_string()),
            },
        );
        per_queue.entry(w.traffic_class).or_default().scheduler = Some(sched);
    }
    for &tc in &q.strict_traffic_classes {
        db.scheduler.insert(
            STRICT_SCHEDULER.into(),
            Scheduler {
                kind: "STRICT",
                weight: None,
            },
        );
        per_queue.entry(tc).or_default().scheduler = Some(STRICT_SCHEDULER.into());
    }
    per_queue.entry(e.traffic_class).or_default().wred_profile = Some(ECN_PROFILE);

    let lossless: BTreeSet<&str> = q.ports.iter().map(String::as_str).collect();
    let pfc = list(&q.pfc_priorities);
    // qos_config.j2 guards the same queues it makes lossless.
    let pfcwd_queues = match q.pfc_watchdog {
        Some(_) => list(
            &q.pfc_priorities
                .iter()
                .map(|&p| tc_of_priority(p))
                .collect::<Vec<_>>(),
        ),
        None => String::new(),
    };

    db.port_qos_map.insert(
        "global".into(),
        PortQosMap {
            dscp_to_tc_map: Some(QOS_MAP),
            ..PortQosMap::default()
        },
    );
    for i in &d.interfaces {
        let is_lossless = lossless.contains(i.name.as_str());
        db.port_qos_map.insert(
            i.name.clone(),
            PortQosMap {
                dscp_to_tc_map: Some(QOS_MAP),
                tc_to_queue_map: Some(QOS_MAP),
                tc_to_pg_map: Some(QOS_MAP),
                pfc_to_queue_map: Some(QOS_MAP),
                pfc_enable: Some(if is_lossless {
                    pfc.clone()
                } else {
                    String::new()
                }),
                pfcwd_sw_enable: Some(if is_lossless {
                    pfcwd_queues.clone()
                } else {
                    String::new()
                }),
            },
        );
        for (tc, entry) in &per_queue {
            db.queue.insert(format!("{}|{tc}", i.name), entry.clone());
        }
    }

    if let Some(wd) = &q.pfc_watchdog {
        for p in d
            .interfaces
            .iter()
            .filter(|i| lossless.contains(i.name.as_str()))
        {
            db.pfc_wd.insert(
                p.name.clone(),
                PfcWd {
                    action: Some(wd.action.clone()),
                    detection_time: Some(wd.detection_ms.to_string()),
                    restoration_time: Some(wd.restoration_ms.to_string()),
                    poll_interval: None,
                },
            );
        }
        let poll = PFCWD_POLL_DEFAULT_MS
            .min(wd.detection_ms)
            .min(wd.restoration_ms)
            .max(PFCWD_POLL_MIN_MS);
        db.pfc_wd.insert(
            "GLOBAL".into(),
            PfcWd {
                poll_interval: Some(poll.to_string()),
                ..PfcWd::default()
            },
        );
    }
}

/// `[3, 4]` → `"3,4"`, the list format of PORT_QOS_MAP.
fn list(v: &[u8]) -> String {
    v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}
