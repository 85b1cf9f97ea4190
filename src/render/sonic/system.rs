//! The switch itself (DEVICE_METADATA), its management port and VRF, and the management-plane
//! services: NTP, syslog, DNS and SNMP traps.

use serde::Serialize;

use super::tables::{
    ConfigDb, DeviceMetadata, Empty, Key, MgmtInterface, MgmtPort, MgmtVrf, SyslogServer,
};
use crate::catalog::sonic::Hwsku;
use crate::intent::{DeviceIntent, SonicTarget};
use crate::model::Role;

/// `docker-fpm-frr/docker_init.sh`: `split` keeps one file per daemon (`bgpd.conf`,
/// `zebra.conf`, and it deletes `frr.conf`); `split-unified` loads the single integrated
/// `/etc/frr/frr.conf` and generates nothing from config_db. Both are in the
/// `docker_routing_config_mode` pattern of sonic-device_metadata.yang; both keep FRR's
/// configuration out of CONFIG_DB, and railyard writes one file.
pub const ROUTING_CONFIG_MODE: &str = "split-unified";

/// Whether the bgp container starts `bfdd`. sonic-buildimage
/// `dockers/docker-fpm-frr/frr/supervisord/supervisord.conf.common.j2`, rendered from CONFIG_DB
/// when the container starts (`docker_init.sh`), lists `[program:bfdd]` only when
/// `DEVICE_METADATA|localhost|frr_mgmt_framework_config` is `"true"`; without it `vtysh -b`
/// (the `vtysh_b` program that loads `frr.conf` in `split-unified`) fails on the `bfd` block and
/// the sessions run without BFD. The flag also swaps bgpcfgd (with staticroutebfd and bgpmon) for
/// frrcfgd and starts ospfd, pimd and pathd idle. It keeps this `frr.conf` in charge:
/// `docker_init.sh`'s `split-unified` branch generates nothing whatever the flag, and frrcfgd
/// replays CONFIG_DB into FRR at start only in `unified` mode (`frrcfgd.py`,
/// `BGPConfigDaemon.__init__`); afterwards it reacts to changes of its tables (BGP_*, VRF, ...),
/// of which railyard writes only VRF, whose `vni` it writes as `frr.conf` already has it.
/// So the flag is set exactly when `frr.conf` carries BFD (`templates/frr/bfd.j2`).
fn frr_mgmt_framework(d: &DeviceIntent) -> Option<&'static str> {
    d.bgp
        .as_ref()
        .is_some_and(|b| b.bfd.is_some())
        .then_some("true")
}

/// The placeholder the push stage fills from the environment; the community never enters the
/// spec or the build output.
const TRAP_COMMUNITY: &str = "${SNMP_TRAP_COMMUNITY}";

/// SONiC names tiers the Azure way: servers hang off a ToRRouter, ToRRouters off a LeafRouter,
/// LeafRouters off a SpineRouter (buffers_config.j2 cable table: `torrouter_server`,
/// `leafrouter_torrouter`, `spinerouter_leafrouter`; qos_config.j2 counts a LeafRouter's
/// ToRRouter neighbours as downlinks). A GPU leaf is the tier-0 switch, so it is a ToRRouter.
fn device_type(role: Role) -> Option<&'static str> {
    match role {
        Role::Leaf | Role::StorageLeaf | Role::InbandLeaf => Some("ToRRouter"),
        Role::Spine | Role::StorageSpine | Role::InbandSpine => Some("LeafRouter"),
        Role::Core | Role::StorageCore | Role::InbandCore => Some("SpineRouter"),
        Role::OobLeaf => Some("MgmtToRRouter"),
        // sonic-device_metadata.yang has no type for an OOB aggregation switch.
        Role::OobCore
        | Role::OobGateway
        | Role::Node
        | Role::Appliance
        | Role::NvlinkSwitchTray
        | Role::PowerShelf => None,
    }
}

/// DEVICE_METADATA|localhost. `mac` is left out on purpose: it is the switch's own base MAC
/// (from its EEPROM), which no spec knows. `config reload` fills it in when the file has none
/// (sonic-utilities `config/main.py`, `load_sysinfo_if_missing` → `sonic-cfggen -H -k <hwsku>`);
/// that step also writes the HWSKU's default PORT rows first, which are harmless here because
/// every carried HWSKU boots its cages unsplit and this file names each cage's first port.
pub fn metadata(d: &DeviceIntent, target: &SonicTarget, hwsku: &Hwsku, db: &mut ConfigDb) {
    db.device_metadata.insert(
        "localhost",
        DeviceMetadata {
            bgp_asn: d.bgp.as_ref().map(|b| b.asn.to_string()),
            buffer_model: "traditional",
            create_only_config_db_buffers: hwsku.create_only_config_db_buffers.then_some("true"),
            default_pfcwd_status: d.qos.as_ref().map(|q| match q.pfc_watchdog {
                Some(_) => "enable",
                None => "disable",
            }),
            docker_routing_config_mode: ROUTING_CONFIG_MODE,
            frr_mgmt_framework_config: frr_mgmt_framework(d),
            hostname: d.hostname.clone(),
            hwsku: target.hwsku.clone(),
            platform: target.platform.clone(),
            device_type: device_type(d.role),
        },
    );
}

/// Management port, its VRF and the management-plane services.
pub fn management(d: &DeviceIntent, db: &mut ConfigDb) {
    let s = &d.system;
    if let Some(m) = &s.mgmt {
        db.mgmt_interface.insert(
            Key(format!("{}|{}", m.interface, m.address)),
            MgmtInterface {
                gwaddr: m.gateway.to_string(),
            },
        );
        db.mgmt_port.insert(
            Key(m.interface.clone()),
            MgmtPort {
                admin_status: "up",
                alias: m.interface.clone(),
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
        db.ntp_server.insert(Key(n.clone()), Empty {});
    }
    // Syslog picks its VRF per server; the collectors sit on the management network.
    let syslog_vrf = s.mgmt.as_ref().map(|_| "mgmt");
    for n in &s.syslog {
        db.syslog_server
            .insert(Key(n.clone()), SyslogServer { vrf: syslog_vrf });
    }
    // Configuration.md "Static DNS".
    for n in &s.dns {
        db.dns_nameserver.insert(Key(n.clone()), Empty {});
    }
}

/// `snmp_trap.json`: the SNMP trap receiver, in its own file because SONiC's only table for it,
/// SNMP_TRAP_CONFIG (written by `config snmptrap modify`, read by docker-snmp's
/// `snmpd.conf.j2`), has no YANG model, and `config reload` refuses a file with a table that has
/// none (sonic-utilities `config/main.py`, `config_file_yang_validation`: "Config tables are
/// missing yang models"). `config load` merges it without that check. The table holds one
/// receiver per SNMP version; the first receiver gets SNMPv2c traps (RY0114 reports the rest).
#[derive(Debug, Serialize)]
pub struct SnmpTrapFile {
    #[serde(rename = "SNMP_TRAP_CONFIG")]
    pub snmp_trap_config: std::collections::BTreeMap<&'static str, TrapDest>,
}

#[derive(Debug, Serialize)]
pub struct TrapDest {
    #[serde(rename = "Community")]
    pub community: &'static str,
    #[serde(rename = "DestIp")]
    pub dest_ip: String,
    #[serde(rename = "DestPort")]
    pub dest_port: &'static str,
    /// `mgmt`, or `None` (the string `config snmptrap modify` writes for the default VRF).
    pub vrf: &'static str,
}

pub fn snmp_traps(d: &DeviceIntent) -> Option<SnmpTrapFile> {
    let first = d.system.snmp_traps.first()?;
    let dest = TrapDest {
        community: TRAP_COMMUNITY,
        dest_ip: first.clone(),
        dest_port: "162",
        vrf: if d.system.mgmt.is_some() {
            "mgmt"
        } else {
            "None"
        },
    };
    Some(SnmpTrapFile {
        snmp_trap_config: [("v2TrapDest", dest)].into_iter().collect(),
    })
}
