//! The SONiC renderer: `configs/<switch>/config_db.json` and `frr.conf`. Expectations come from
//! NVIDIA's lossless RoCE profile (Onyx "RoCE Commands": DSCP 26 on priority 3 with PFC and ECN,
//! CNP DSCP 48 on priority 6 strict), SONiC's table and key shapes (sonic-buildimage
//! `src/sonic-yang-models/doc/Configuration.md`) and from the cabling plan, not from
//! the renderer's own output.

use crate::common;
use crate::prereq;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use common::*;
use ipnet::IpNet;
use railyard::intent::DeviceIntent;
use railyard::output::OutputFile;
use serde_json::{Map, Value};

const SONIC: &str = "platforms: {default: sonic}\n";

fn lab_text() -> String {
    inventory("lab-small.yaml") + SONIC
}

fn lab() -> &'static [OutputFile] {
    static FILES: OnceLock<Vec<OutputFile>> = OnceLock::new();
    FILES.get_or_init(|| outputs(&lab_text()))
}

fn spx() -> &'static [OutputFile] {
    static FILES: OnceLock<Vec<OutputFile>> = OnceLock::new();
    FILES.get_or_init(|| outputs(&(inventory("spectrum-x-cloud.yaml") + SONIC)))
}

/// Three customers with storage VRFs on the Spectrum-X cloud (issue 4).
fn spx_tenants() -> &'static [OutputFile] {
    static FILES: OnceLock<Vec<OutputFile>> = OnceLock::new();
    FILES.get_or_init(|| outputs(&(inventory("spectrum-x-cloud-tenants.yaml") + SONIC)))
}

/// Four research projects and a shared Lustre service (`inventories/mdx-research-cloud.yaml`).
fn mdx_tenants() -> &'static [OutputFile] {
    static FILES: OnceLock<Vec<OutputFile>> = OnceLock::new();
    FILES.get_or_init(|| outputs(&(inventory("mdx-research-cloud.yaml") + SONIC)))
}

fn tenant_specs() -> [(&'static str, &'static [OutputFile]); 2] {
    [("spx-tenants", spx_tenants()), ("mdx", mdx_tenants())]
}

/// The switch's saved intent, the independent record of what it should carry.
fn intent(files: &[OutputFile], dev: &str) -> DeviceIntent {
    serde_saphyr::from_str(&file(files, &format!("intent/{dev}.yaml")))
        .unwrap_or_else(|e| panic!("intent/{dev}.yaml: {e}"))
}

/// A table that may be absent (absent = no rows; `config load` never gets `{}`).
fn rows(db: &Map<String, Value>, name: &str) -> Map<String, Value> {
    match db.get(name) {
        None => Map::new(),
        Some(Value::Object(m)) => {
            assert!(
                !m.is_empty(),
                "table {name} written empty: config load would delete it"
            );
            m.clone()
        }
        Some(other) => panic!("table {name} is not an object: {other}"),
    }
}

/// SONiC VRF name → its `vni` (None for a local VRF), from config_db's `VRF` table.
fn vrf_vnis(db: &Map<String, Value>) -> BTreeMap<String, Option<u32>> {
    rows(db, "VRF")
        .iter()
        .map(|(k, v)| {
            let vni = v
                .get("vni")
                .map(|n| n.as_str().expect("vni string").parse().expect("vni number"));
            (k.clone(), vni)
        })
        .collect()
}

/// Switches that got a SONiC config, by name.
fn switches(files: &[OutputFile]) -> Vec<String> {
    files
        .iter()
        .filter_map(|f| {
            f.path
                .strip_prefix("configs/")?
                .strip_suffix("/config_db.json")
        })
        .map(str::to_string)
        .collect()
}

fn config_db(files: &[OutputFile], dev: &str) -> Map<String, Value> {
    let text = file(files, &format!("configs/{dev}/config_db.json"));
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => m,
        Ok(other) => panic!("{dev}: config_db.json is not an object: {other}"),
        Err(e) => panic!("{dev}: config_db.json is not JSON: {e}"),
    }
}

fn frr(files: &[OutputFile], dev: &str) -> String {
    file(files, &format!("configs/{dev}/frr.conf"))
}

fn table<'a>(db: &'a Map<String, Value>, name: &str) -> &'a Map<String, Value> {
    db.get(name)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no table {name}"))
}

fn field<'a>(entry: &'a Value, name: &str) -> &'a str {
    entry
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string field {name} in {entry}"))
}

fn metadata(db: &Map<String, Value>) -> &Value {
    table(db, "DEVICE_METADATA")
        .get("localhost")
        .expect("DEVICE_METADATA.localhost")
}

/// The ports that are up: the cabled ones (every other port of the platform is written down).
fn up_ports(db: &Map<String, Value>) -> Vec<String> {
    table(db, "PORT")
        .iter()
        .filter(|(_, p)| field(p, "admin_status") == "up")
        .map(|(k, _)| k.clone())
        .collect()
}

/// One cable of `cabling.csv`, seen from `dev`: (local port, peer device, peer port, speed, tier).
struct Cable {
    port: String,
    peer: String,
    speed: String,
    tier: String,
}

fn cables(files: &[OutputFile], dev: &str) -> Vec<Cable> {
    let text = file(files, "cabling.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (ad, ap, bd, bp, sp, ti) = (
        col("a_device"),
        col("a_port"),
        col("b_device"),
        col("b_port"),
        col("speed"),
        col("tier"),
    );
    let mut out = Vec::new();
    for l in lines {
        let c: Vec<&str> = l.split(',').collect();
        for (me, mine, them) in [(ad, ap, bd), (bd, bp, ad)] {
            if c[me] == dev {
                out.push(Cable {
                    port: c[mine].to_string(),
                    peer: c[them].to_string(),
                    speed: c[sp].to_string(),
                    tier: c[ti].to_string(),
                });
            }
        }
    }
    out
}

/// Every port a QoS table is bound to, with the entry.
fn port_entries<'a>(db: &'a Map<String, Value>, name: &str) -> Vec<(&'a String, &'a Value)> {
    let ports = table(db, "PORT");
    let t = table(db, name);
    let out: Vec<_> = t.iter().filter(|(k, _)| ports.contains_key(*k)).collect();
    assert!(!out.is_empty(), "{name} binds no port");
    out
}

/// The DSCP map bound to the ports, as DSCP → TC.
fn bound_dscp_map(db: &Map<String, Value>) -> BTreeMap<u8, String> {
    let (_, qm) = port_entries(db, "PORT_QOS_MAP")[0];
    let name = field(qm, "dscp_to_tc_map");
    let map = table(db, "DSCP_TO_TC_MAP")
        .get(name)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("DSCP_TO_TC_MAP.{name} missing"));
    map.iter()
        .map(|(k, v)| {
            let dscp: u8 = k.parse().unwrap_or_else(|_| panic!("DSCP key {k}"));
            (dscp, v.as_str().expect("tc string").to_string())
        })
        .collect()
}

fn leaves(files: &[OutputFile]) -> Vec<String> {
    switches(files)
        .into_iter()
        .filter(|s| s.starts_with("leaf-"))
        .collect()
}

#[test]
fn every_switch_gets_a_json_config_db_and_an_frr_conf() {
    for files in [lab(), spx()] {
        let sw = switches(files);
        assert!(
            sw.iter().any(|s| s.starts_with("leaf-")),
            "no leaf rendered"
        );
        assert!(
            sw.iter().any(|s| s.starts_with("spine")),
            "no spine rendered"
        );
        for dev in &sw {
            let db = config_db(files, dev);
            // `config load` deletes a table given as {} (ConfigDBConnector::mod_config).
            for (name, t) in &db {
                let t = t
                    .as_object()
                    .unwrap_or_else(|| panic!("{dev}: {name} not a table"));
                assert!(
                    !t.is_empty(),
                    "{dev}: empty table {name} would wipe the switch's rows"
                );
            }
            assert_eq!(field(metadata(&db), "hostname"), dev);
            let conf = frr(files, dev);
            assert!(
                conf.lines().any(|l| l == format!("hostname {dev}")),
                "{dev}"
            );
            let raw = file(files, &format!("configs/{dev}/config_db.json"));
            assert!(
                raw.ends_with("}\n"),
                "{dev}: config_db.json ends with a newline"
            );
        }
    }
}

#[test]
fn routing_config_mode_reads_frr_conf_and_types_follow_the_tier() {
    for dev in switches(lab()) {
        let db = config_db(lab(), &dev);
        let md = metadata(&db);
        // docker-fpm-frr/docker_init.sh: only split-unified loads the single /etc/frr/frr.conf.
        assert_eq!(
            field(md, "docker_routing_config_mode"),
            "split-unified",
            "{dev}"
        );
        // buffers_config.j2: torrouter_server, leafrouter_torrouter, spinerouter_leafrouter.
        if dev.starts_with("leaf-") {
            assert_eq!(field(md, "type"), "ToRRouter", "{dev}");
        } else if dev.starts_with("spine") {
            assert_eq!(field(md, "type"), "LeafRouter", "{dev}");
        }
        let conf = frr(lab(), &dev);
        let router = conf.lines().find_map(|l| l.strip_prefix("router bgp "));
        let asn = md.get("bgp_asn").and_then(Value::as_str);
        assert_eq!(router, asn, "{dev}: DEVICE_METADATA bgp_asn vs frr.conf");
    }
}

#[test]
fn keys_have_the_sonic_shapes() {
    for files in [lab(), spx()] {
        for dev in switches(files) {
            let db = config_db(files, &dev);
            let ports = table(&db, "PORT");
            let is_port = |p: &str| ports.contains_key(p);

            for key in table(&db, "INTERFACE").keys() {
                match key.split_once('|') {
                    None => assert!(is_port(key), "{dev}: INTERFACE {key} is no PORT"),
                    Some((p, prefix)) => {
                        assert!(is_port(p), "{dev}: INTERFACE {key}");
                        assert!(prefix.parse::<IpNet>().is_ok(), "{dev}: INTERFACE {key}");
                        // sonic-interface.yang: the bare port entry must exist too.
                        assert!(table(&db, "INTERFACE").contains_key(p), "{dev}: {key}");
                    }
                }
            }
            let lo = table(&db, "LOOPBACK_INTERFACE");
            assert!(lo.contains_key("Loopback0"), "{dev}");
            for key in lo.keys().filter(|k| *k != "Loopback0") {
                let prefix = key.strip_prefix("Loopback0|").expect("Loopback0|prefix");
                assert!(prefix.parse::<IpNet>().is_ok(), "{dev}: {key}");
            }
            for key in table(&db, "MGMT_INTERFACE").keys() {
                let prefix = key.strip_prefix("eth0|").expect("eth0|prefix");
                assert!(prefix.parse::<IpNet>().is_ok(), "{dev}: {key}");
            }
            if dev.starts_with("leaf-") || dev.starts_with("spine") {
                for key in table(&db, "QUEUE").keys() {
                    let (p, q) = key.split_once('|').expect("QUEUE key Port|queue");
                    assert!(is_port(p), "{dev}: QUEUE {key}");
                    assert!(q.parse::<u8>().is_ok_and(|q| q < 8), "{dev}: QUEUE {key}");
                }
                for key in table(&db, "PORT_QOS_MAP").keys() {
                    assert!(is_port(key) || key == "global", "{dev}: PORT_QOS_MAP {key}");
                }
                for key in table(&db, "PFC_WD").keys() {
                    assert!(is_port(key) || key == "GLOBAL", "{dev}: PFC_WD {key}");
                }
            }
        }
    }
}

#[test]
fn ports_match_the_cabling_plan_with_speed_in_mbps() {
    for files in [lab(), spx()] {
        for dev in switches(files) {
            let db = config_db(files, &dev);
            let ports = table(&db, "PORT");
            let cabled: BTreeMap<String, Cable> = cables(files, &dev)
                .into_iter()
                .filter(|c| c.port != "eth0")
                .map(|c| (c.port.clone(), c))
                .collect();
            let up: BTreeSet<String> = up_ports(&db).into_iter().collect();
            assert_eq!(
                up,
                cabled.keys().cloned().collect(),
                "{dev}: the ports up are the cabled data ports"
            );
            let neighbors = table(&db, "DEVICE_NEIGHBOR");
            assert_eq!(
                neighbors.keys().cloned().collect::<BTreeSet<_>>(),
                up,
                "{dev}: DEVICE_NEIGHBOR names every cabled port"
            );
            for (name, p) in ports {
                let Some(c) = cabled.get(name) else {
                    // `config reload` flushes CONFIG_DB: an idle port is written, and down.
                    assert_eq!(field(p, "admin_status"), "down", "{dev} {name}");
                    assert!(p.get("description").is_none(), "{dev} {name}");
                    continue;
                };
                let gbps: u64 = c.speed.trim_end_matches('G').parse().expect("speed");
                assert_eq!(field(p, "speed"), (gbps * 1000).to_string(), "{dev} {name}");
                assert_eq!(field(p, "mtu"), "9216", "{dev} {name}");
                assert!(field(p, "description").contains(&c.peer), "{dev} {name}");
                assert_eq!(field(&neighbors[name], "name"), c.peer, "{dev} {name}");
            }
        }
    }
}

/// `platform.json` of a vendored platform, read directly (not through railyard's parser).
fn platform_json(platform: &str) -> Value {
    let path = format!(
        "{}/catalog/sonic/{platform}/platform.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).expect("platform.json")).expect("JSON")
}

#[test]
fn every_cage_of_the_platform_is_written_with_a_mode_it_offers() {
    for files in [lab(), spx()] {
        for dev in switches(files) {
            let db = config_db(files, &dev);
            let pj = platform_json(field(metadata(&db), "platform"));
            let cages = pj["interfaces"].as_object().expect("interfaces");
            let cfg = table(&db, "BREAKOUT_CFG");
            assert_eq!(
                cfg.keys().collect::<BTreeSet<_>>(),
                cages.keys().collect::<BTreeSet<_>>(),
                "{dev}: one BREAKOUT_CFG per front-panel cage"
            );
            for (cage, mode) in cfg {
                let modes = cages[cage]["breakout_modes"].as_object().expect("modes");
                assert!(
                    modes.contains_key(field(mode, "brkout_mode")),
                    "{dev} {cage}: {mode}"
                );
            }
        }
    }
}

#[test]
fn spectrum_x_split_cages_run_two_400g_ports() {
    let files = spx();
    for dev in leaves(files) {
        let db = config_db(files, &dev);
        let ports = table(&db, "PORT");
        // An SN5600 cage split 2x400G (Cumulus SN5600 breakout table); SONiC names a cage's
        // sub-ports by lane offset, 8 lanes per OSFP cage (Mellanox-SN5600-O128 port_config.ini:
        // Ethernet0, Ethernet4).
        for p in ["Ethernet0", "Ethernet4"] {
            assert_eq!(field(&ports[p], "speed"), "400000", "{dev} {p}");
        }
        for name in up_ports(&db) {
            let n: u32 = name
                .trim_start_matches("Ethernet")
                .parse()
                .expect("EthernetN");
            assert_eq!(n % 4, 0, "{dev}: {name} is not a 2x400G sub-port");
        }
    }
}

#[test]
fn every_interface_port_exists_and_fabric_links_are_unnumbered() {
    for files in [lab(), spx()] {
        for dev in leaves(files) {
            let db = config_db(files, &dev);
            let ports = table(&db, "PORT");
            let intf = table(&db, "INTERFACE");
            for key in intf.keys() {
                let p = key.split('|').next().unwrap_or(key);
                assert!(ports.contains_key(p), "{dev}: INTERFACE {key} has no PORT");
            }
            for c in cables(files, &dev) {
                let prefixes: Vec<&String> = intf
                    .keys()
                    .filter(|k| k.starts_with(&format!("{}|", c.port)))
                    .collect();
                match c.tier.as_str() {
                    // BGP unnumbered (RFC 8950 next hops) rides IPv6 link-local, no address.
                    "leaf-spine" => {
                        assert!(prefixes.is_empty(), "{dev} {}: {prefixes:?}", c.port);
                        let e = intf.get(&c.port).expect("fabric port in INTERFACE");
                        assert_eq!(field(e, "ipv6_use_link_local_only"), "enable");
                    }
                    // GPU ports are routed /31s (RFC 3021).
                    "node-leaf" => {
                        assert_eq!(prefixes.len(), 1, "{dev} {}", c.port);
                        let net: IpNet = prefixes[0]
                            .split_once('|')
                            .map(|(_, p)| p.parse().expect("prefix"))
                            .expect("Port|prefix");
                        assert_eq!(net.prefix_len(), 31, "{dev} {}", c.port);
                    }
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn dscp_map_sends_roce_to_tc3_and_cnp_to_tc6_and_nothing_else() {
    for files in [lab(), spx()] {
        for dev in leaves(files) {
            let db = config_db(files, &dev);
            let m = bound_dscp_map(&db);
            assert_eq!(
                m.keys().copied().collect::<Vec<_>>(),
                (0..64).collect::<Vec<u8>>()
            );
            for (dscp, tc) in &m {
                let want = match dscp {
                    26 => "3",
                    48 => "6",
                    _ => "0",
                };
                assert_eq!(tc, want, "{dev}: DSCP {dscp}");
            }
            // The switch-wide default map is ours too, not AZURE's (26 → TC 1).
            let global = &table(&db, "PORT_QOS_MAP")["global"];
            assert!(table(&db, "DSCP_TO_TC_MAP").contains_key(field(global, "dscp_to_tc_map")));
        }
    }
}

#[test]
fn pfc_runs_on_priority_3_only() {
    for dev in switches(lab()) {
        if !(dev.starts_with("leaf-") || dev.starts_with("spine")) {
            continue;
        }
        let db = config_db(lab(), &dev);
        let maps = [
            ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
            ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
            ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
            ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
        ];
        for (port, qm) in port_entries(&db, "PORT_QOS_MAP") {
            assert_eq!(field(qm, "pfc_enable"), "3", "{dev} {port}");
            assert_eq!(field(qm, "pfcwd_sw_enable"), "3", "{dev} {port}");
            for (f, t) in maps {
                assert!(
                    table(&db, t).contains_key(field(qm, f)),
                    "{dev} {port}: {f}"
                );
            }
            let tc_q = &table(&db, "TC_TO_QUEUE_MAP")[field(qm, "tc_to_queue_map")];
            assert_eq!(field(tc_q, "3"), "3", "{dev}: RoCE TC 3 → queue 3");
            assert_eq!(field(tc_q, "6"), "6", "{dev}: CNP TC 6 → queue 6");
            let pg = &table(&db, "TC_TO_PRIORITY_GROUP_MAP")[field(qm, "tc_to_pg_map")];
            assert_eq!(field(pg, "3"), "3", "{dev}: lossless TC 3 has PG 3");
            let pfc_q = &table(&db, "MAP_PFC_PRIORITY_TO_QUEUE")[field(qm, "pfc_to_queue_map")];
            assert_eq!(
                field(pfc_q, "3"),
                "3",
                "{dev}: PFC priority 3 pauses queue 3"
            );
        }
    }
}

#[test]
fn roce_queue_marks_ecn_between_150k_and_1500k_bytes() {
    for files in [lab(), spx()] {
        for dev in leaves(files) {
            let db = config_db(files, &dev);
            let queues = table(&db, "QUEUE");
            for port in up_ports(&db) {
                let q3 = &queues[&format!("{port}|3")];
                let w = &table(&db, "WRED_PROFILE")[field(q3, "wred_profile")];
                assert_eq!(field(w, "ecn"), "ecn_all", "{dev} {port}");
                assert_eq!(field(w, "wred_green_enable"), "true");
                assert_eq!(field(w, "green_min_threshold"), "150000");
                assert_eq!(field(w, "green_max_threshold"), "1500000");
                assert_eq!(field(w, "green_drop_probability"), "100");
                for other in ["0", "6"] {
                    let q = &queues[&format!("{port}|{other}")];
                    assert!(q.get("wred_profile").is_none(), "{dev} {port}|{other}");
                }
            }
        }
    }
}

#[test]
fn ets_shares_tc0_and_tc3_and_cnp_is_strict() {
    let db = config_db(lab(), "leaf-su01-01");
    let queues = table(&db, "QUEUE");
    let sched = table(&db, "SCHEDULER");
    for port in up_ports(&db) {
        for q in ["0", "3"] {
            let s = &sched[field(&queues[&format!("{port}|{q}")], "scheduler")];
            assert_eq!(field(s, "type"), "DWRR", "{port}|{q}");
            assert_eq!(field(s, "weight"), "50", "{port}|{q}");
        }
        let s = &sched[field(&queues[&format!("{port}|6")], "scheduler")];
        assert_eq!(field(s, "type"), "STRICT", "{port}|6");
    }
}

#[test]
fn pfc_watchdog_drops_after_200ms_and_restores_after_200ms() {
    for files in [lab(), spx()] {
        for dev in leaves(files) {
            let db = config_db(files, &dev);
            assert_eq!(field(metadata(&db), "default_pfcwd_status"), "enable");
            let wd = table(&db, "PFC_WD");
            for port in up_ports(&db) {
                let e = &wd[&port];
                assert_eq!(field(e, "action"), "drop", "{dev} {port}");
                assert_eq!(field(e, "detection_time"), "200", "{dev} {port}");
                assert_eq!(field(e, "restoration_time"), "200", "{dev} {port}");
            }
            // sonic-pfcwd.yang: 100..1000, and no longer than the detection/restoration times.
            let poll: u32 = field(&wd["GLOBAL"], "POLL_INTERVAL").parse().expect("ms");
            assert!((100..=200).contains(&poll), "{dev}: POLL_INTERVAL {poll}");
        }
    }
}

#[test]
fn roce_dscp_24_moves_the_lossless_mapping() {
    let files = outputs(&(lab_text() + "roce: {dscp: 24}\n"));
    for dev in leaves(&files) {
        let db = config_db(&files, &dev);
        let m = bound_dscp_map(&db);
        assert_eq!(m[&24], "3", "{dev}: RoCE DSCP 24 → TC 3");
        assert_eq!(m[&26], "0", "{dev}: DSCP 26 is ordinary traffic now");
        assert_eq!(m[&48], "6", "{dev}: CNP unchanged");
        for (_, qm) in port_entries(&db, "PORT_QOS_MAP") {
            assert_eq!(field(qm, "pfc_enable"), "3", "{dev}");
        }
    }
}

#[test]
fn lossy_mode_turns_pfc_off_but_keeps_ecn_and_trust() {
    let files = outputs(&(lab_text() + "roce: {mode: lossy}\n"));
    for dev in leaves(&files) {
        let db = config_db(&files, &dev);
        assert_eq!(field(metadata(&db), "default_pfcwd_status"), "disable");
        // Written empty rather than left out: buffermgrd reads the field to decide PFC per port.
        for (port, qm) in port_entries(&db, "PORT_QOS_MAP") {
            assert_eq!(field(qm, "pfc_enable"), "", "{dev} {port}");
            assert_eq!(field(qm, "pfcwd_sw_enable"), "", "{dev} {port}");
        }
        if let Some(wd) = db.get("PFC_WD").and_then(Value::as_object) {
            assert!(
                wd.keys().all(|k| k == "GLOBAL"),
                "{dev}: watchdog on a lossy port"
            );
        }
        assert_eq!(bound_dscp_map(&db)[&26], "3", "{dev}");
        let queues = table(&db, "QUEUE");
        for port in up_ports(&db) {
            let q3 = &queues[&format!("{port}|3")];
            let w = &table(&db, "WRED_PROFILE")[field(q3, "wred_profile")];
            assert_eq!(field(w, "ecn"), "ecn_all", "{dev} {port}");
        }
    }
}

#[test]
fn spine_frr_peers_every_leaf_facing_port_with_that_leafs_asn() {
    for files in [lab(), spx()] {
        let asn_of = |leaf: &str| {
            let db = config_db(files, leaf);
            field(metadata(&db), "bgp_asn").to_string()
        };
        let conf = frr(files, "spine01");
        let expected: Vec<(String, String)> = cables(files, "spine01")
            .into_iter()
            .filter(|c| c.tier == "leaf-spine")
            .map(|c| (c.port, asn_of(&c.peer)))
            .collect();
        assert!(!expected.is_empty());
        let sessions: Vec<&str> = conf
            .lines()
            .filter_map(|l| l.strip_prefix(" neighbor "))
            .filter_map(|l| l.strip_suffix(" interface peer-group fabric"))
            .collect();
        assert_eq!(
            sessions.len(),
            expected.len(),
            "one session per leaf-facing port"
        );
        for (port, asn) in &expected {
            assert!(sessions.contains(&port.as_str()), "no session on {port}");
            let line = format!(" neighbor {port} remote-as {asn}");
            assert!(conf.lines().any(|l| l == line), "missing `{line}`");
        }
    }
}

#[test]
fn frr_conf_leaves_addresses_and_the_mgmt_vrf_to_config_db() {
    for dev in switches(lab()) {
        let conf = frr(lab(), &dev);
        for l in conf.lines() {
            assert!(!l.starts_with("interface "), "{dev}: `{l}`");
            assert!(!l.starts_with("vrf "), "{dev}: `{l}`");
            assert!(!l.trim_start().starts_with("ip address"), "{dev}: `{l}`");
        }
        let db = config_db(lab(), &dev);
        let mgmt = table(&db, "MGMT_INTERFACE");
        assert_eq!(mgmt.len(), 1, "{dev}");
        for e in mgmt.values() {
            assert!(
                field(e, "gwaddr").parse::<std::net::Ipv4Addr>().is_ok(),
                "{dev}"
            );
        }
        let vrf = &table(&db, "MGMT_VRF_CONFIG")["vrf_global"];
        assert_eq!(field(vrf, "mgmtVrfEnabled"), "true", "{dev}");
    }
}

#[test]
fn services_land_in_their_tables() {
    let spec = lab_text()
        + "services: {ntp: ['10.255.0.1'], syslog: ['10.255.0.2'], dns: ['10.255.0.3']}\n";
    let files = outputs(&spec);
    for dev in switches(&files) {
        let db = config_db(&files, &dev);
        assert!(table(&db, "NTP_SERVER").contains_key("10.255.0.1"), "{dev}");
        assert!(
            table(&db, "DNS_NAMESERVER").contains_key("10.255.0.3"),
            "{dev}"
        );
        let s = &table(&db, "SYSLOG_SERVER")["10.255.0.2"];
        // sonic-syslog.yang: `mgmt` is valid only with the management VRF enabled.
        assert_eq!(field(s, "vrf"), "mgmt", "{dev}");
    }
}

#[test]
fn snmp_traps_go_to_their_own_file_with_the_community_as_a_placeholder() {
    let spec = lab_text() + "services: {snmp_traps: ['10.255.0.9', '10.255.0.10']}\n";
    let c = railyard::compile(&railyard::diag::SourceFile::new("spec.yaml", spec.clone()));
    let warned: Vec<_> = c
        .diagnostics
        .sorted()
        .iter()
        .filter(|d| d.code.id == "RY0114")
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(
        warned.len(),
        1,
        "one RY0114 for the second receiver: {warned:?}"
    );
    let files = outputs(&spec);
    for dev in switches(&files) {
        // config reload refuses a table without a YANG model; SNMP_TRAP_CONFIG has none.
        assert!(
            !config_db(&files, &dev).contains_key("SNMP_TRAP_CONFIG"),
            "{dev}"
        );
        let text = file(&files, &format!("configs/{dev}/snmp_trap.json"));
        let v: Value = serde_json::from_str(&text).expect("JSON");
        let dest = &v["SNMP_TRAP_CONFIG"]["v2TrapDest"];
        assert_eq!(dest["DestIp"], "10.255.0.9", "{dev}");
        assert_eq!(dest["DestPort"], "162", "{dev}");
        assert_eq!(dest["vrf"], "mgmt", "{dev}");
        // The push stage substitutes `${NAME}` from the environment; no secret is in the build.
        assert_eq!(dest["Community"], "${SNMP_TRAP_COMMUNITY}", "{dev}");
        assert_eq!(v.as_object().map(Map::len), Some(1), "{dev}: one table");
    }
    let quiet = outputs(&lab_text());
    assert!(!quiet.iter().any(|f| f.path.ends_with("/snmp_trap.json")));
}

#[test]
fn metadata_names_the_vendor_platform_and_hwsku_and_no_mac() {
    for files in [lab(), spx()] {
        for dev in switches(files) {
            let db = config_db(files, &dev);
            let md = metadata(&db);
            let platform = field(md, "platform");
            // sonic-buildimage device/mellanox/<platform>/default_sku: "<HWSKU> <topology>".
            let default_sku = std::fs::read_to_string(format!(
                "{}/catalog/sonic/{platform}/default_sku",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap_or_else(|e| panic!("{dev}: {platform}: {e}"));
            assert_eq!(
                Some(field(md, "hwsku")),
                default_sku.split_whitespace().next(),
                "{dev}"
            );
            assert_eq!(field(md, "buffer_model"), "traditional", "{dev}");
            // The box's own MAC: `config reload` loads it when the file has none.
            assert!(md.get("mac").is_none(), "{dev}");
        }
    }
    let db = config_db(spx(), "leaf-su01-01");
    assert_eq!(field(metadata(&db), "platform"), "x86_64-nvidia_sn5600-r0");
    let db = config_db(lab(), "leaf-su01-01");
    assert_eq!(field(metadata(&db), "platform"), "x86_64-mlnx_msn4600c-r0");
}

#[test]
fn frr_conf_carries_the_fpm_lines_the_bgp_container_would_append() {
    for dev in switches(lab()) {
        let conf = frr(lab(), &dev);
        // docker-fpm-frr/docker_init.sh (split-unified) appends both unless the first is there.
        assert!(
            conf.lines().any(|l| l == "no fpm use-next-hop-groups"),
            "{dev}"
        );
        assert!(conf.lines().any(|l| l == "fpm address 127.0.0.1"), "{dev}");
    }
}

/// `pg_profile_lookup.ini` of a vendored HWSKU, read directly: (speed, cable) → (size, xon, xoff, th).
fn pg_lookup(platform: &str, hwsku: &str) -> BTreeMap<(String, String), [String; 4]> {
    let path = format!(
        "{}/catalog/sonic/{platform}/{hwsku}/pg_profile_lookup.ini",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .expect("pg_profile_lookup.ini")
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<String> = l.split_whitespace().map(str::to_string).collect();
            (
                (f[0].clone(), f[1].clone()),
                [f[2].clone(), f[3].clone(), f[4].clone(), f[5].clone()],
            )
        })
        .collect()
}

/// Cabling-plan length of each of `dev`'s ports, in metres.
fn cable_lengths(files: &[OutputFile], dev: &str) -> BTreeMap<String, f64> {
    let text = file(files, "cabling.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (ad, ap, bd, bp, len) = (
        col("a_device"),
        col("a_port"),
        col("b_device"),
        col("b_port"),
        col("length_m"),
    );
    let mut out = BTreeMap::new();
    for l in lines {
        let c: Vec<&str> = l.split(',').collect();
        for (d, p) in [(ad, ap), (bd, bp)] {
            if c[d] == dev {
                out.insert(c[p].to_string(), c[len].parse().expect("length"));
            }
        }
    }
    out
}

fn metres(cable: &str) -> f64 {
    cable.trim_end_matches('m').parse().expect("<n>m")
}

/// buffermgrd (sonic-swss cfgmgr/buffermgr.cpp, doSpeedUpdateTask) makes a lossless PG profile
/// `pg_lossless_<speed>_<cable>_profile` from the HWSKU's lookup table and points the port's
/// `<port>|<pfc_enable>` PG at it. The file must already hold exactly that, with the cable length
/// the cabling plan gives (rounded up to a length the table has).
#[test]
fn lossless_headroom_is_the_lookup_row_for_the_planned_cable() {
    let mut checked = 0;
    for files in [lab(), spx()] {
        for dev in leaves(files) {
            let db = config_db(files, &dev);
            let md = metadata(&db);
            let lookup = pg_lookup(field(md, "platform"), field(md, "hwsku"));
            let lengths = cable_lengths(files, &dev);
            let cable_of = &table(&db, "CABLE_LENGTH")["AZURE"];
            let profiles = table(&db, "BUFFER_PROFILE");
            for port in up_ports(&db) {
                let speed = field(&table(&db, "PORT")[&port], "speed").to_string();
                let cable = field(cable_of, &port).to_string();
                let planned = lengths[&port];
                // The shortest tabulated length at this speed that covers the cable.
                let want = lookup
                    .keys()
                    .filter(|(s, c)| *s == speed && metres(c) >= planned)
                    .min_by(|a, b| metres(&a.1).total_cmp(&metres(&b.1)))
                    .map(|(_, c)| c.clone())
                    .unwrap_or_else(|| panic!("{dev} {port}: no row for {speed} over {planned} m"));
                assert_eq!(cable, want, "{dev} {port}: planned {planned} m");
                let pfc = field(&table(&db, "PORT_QOS_MAP")[&port], "pfc_enable");
                assert_eq!(pfc, "3", "{dev} {port}");
                let name = format!("pg_lossless_{speed}_{cable}_profile");
                assert_eq!(
                    field(&table(&db, "BUFFER_PG")[&format!("{port}|3")], "profile"),
                    name,
                    "{dev} {port}"
                );
                let p = &profiles[&name];
                let [size, xon, xoff, th] = &lookup[&(speed.clone(), cable.clone())];
                for (f, want) in [
                    ("size", size),
                    ("xon", xon),
                    ("xoff", xoff),
                    ("dynamic_th", th),
                ] {
                    assert_eq!(field(p, f), want, "{dev} {name} {f}");
                }
                assert_eq!(field(p, "pool"), "ingress_lossless_pool", "{dev} {name}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "{checked} lossless ports checked");
}

/// Renders the HWSKU's own buffer templates (`buffers_defaults_<t0|t1>.j2`, which import
/// `buffers_defaults_objects.j2`) with Python's jinja2, calling the four macros that
/// sonic-buildimage `files/build_templates/buffers_config.j2` calls for the traditional buffer
/// model, with its active ports (those with a DEVICE_NEIGHBOR) and inactive ones (the rest).
fn sonic_buffer_templates(
    hwsku_dir: &str,
    topo: &str,
    active: &[String],
    inactive: &[String],
) -> Value {
    const HARNESS: &str = r#"
import json, sys, jinja2
a = json.load(sys.stdin)
env = jinja2.Environment(loader=jinja2.FileSystemLoader(a["dir"]), trim_blocks=True)
t = env.from_string(
    "{% import 'buffers_defaults_" + a["topo"] + ".j2' as defs with context %}{\n"
    "{{ defs.generate_buffer_pool_and_profiles_with_inactive_ports(inactive) }}\n"
    "{{ defs.generate_profile_lists_with_inactive_ports(active, inactive) }},\n"
    "{{ defs.generate_pg_profiles_with_inactive_ports(active, inactive) }},\n"
    "{{ defs.generate_queue_buffers_with_inactive_ports(active, inactive) }}\n}"
)
print(t.render(active=",".join(a["active"]), inactive=",".join(a["inactive"])))
"#;
    let input =
        serde_json::json!({"dir": hwsku_dir, "topo": topo, "active": active, "inactive": inactive});
    jinja2_json(HARNESS, &input)
}

/// Runs a Python jinja2 harness with `input` as JSON on stdin; its stdout, read as JSON.
fn jinja2_json<T: serde::de::DeserializeOwned>(harness: &str, input: &Value) -> T {
    let mut child = Command::new("python3")
        .args(["-c", harness])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("python3");
    assert!(
        out.status.success(),
        "jinja2: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the templates gave no JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn has_jinja2(test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import jinja2"])
        .status()
        .is_ok_and(|s| s.success());
    prereq::require(
        test,
        "python3-jinja2",
        ok,
        "apt-get install -y --no-install-recommends python3-jinja2",
    )
}

#[test]
fn buffers_are_what_the_hwskus_own_templates_render() {
    if !has_jinja2("buffers_are_what_the_hwskus_own_templates_render") {
        return;
    }
    let mut checked = 0;
    for files in [lab(), spx(), mdx_tenants()] {
        for dev in switches(files) {
            let db = config_db(files, &dev);
            let md = metadata(&db);
            // buffers_config.j2: ToRRouter → _t0, LeafRouter → _t1.
            let topo = match field(md, "type") {
                "ToRRouter" => "t0",
                "LeafRouter" => "t1",
                other => panic!("{dev}: type {other} not in a 2-tier example"),
            };
            let dir = format!(
                "{}/catalog/sonic/{}/{}",
                env!("CARGO_MANIFEST_DIR"),
                field(md, "platform"),
                field(md, "hwsku")
            );
            let active: Vec<String> = table(&db, "DEVICE_NEIGHBOR").keys().cloned().collect();
            let inactive: Vec<String> = table(&db, "PORT")
                .keys()
                .filter(|p| !active.contains(p))
                .cloned()
                .collect();
            let want = sonic_buffer_templates(&dir, topo, &active, &inactive);
            for t in [
                "BUFFER_POOL",
                "BUFFER_PORT_INGRESS_PROFILE_LIST",
                "BUFFER_PORT_EGRESS_PROFILE_LIST",
                "BUFFER_QUEUE",
            ] {
                assert_eq!(&Value::Object(table(&db, t).clone()), &want[t], "{dev} {t}");
            }
            // buffermgrd's lossless profiles and PGs come on top (checked above).
            let ours = |t: &str, keep: &dyn Fn(&String) -> bool| -> Value {
                Value::Object(
                    table(&db, t)
                        .iter()
                        .filter(|(k, _)| keep(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            };
            assert_eq!(
                ours("BUFFER_PROFILE", &|k| !k.starts_with("pg_lossless_")),
                want["BUFFER_PROFILE"],
                "{dev}"
            );
            assert_eq!(
                ours("BUFFER_PG", &|k| k.ends_with("|0")),
                want["BUFFER_PG"],
                "{dev}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} switches checked");
}

/// railyard reproduces one buffer template; every carried HWSKU must use exactly that one.
#[test]
fn every_carried_hwsku_shares_the_buffer_template_railyard_reproduces() {
    let root = format!("{}/catalog/sonic", env!("CARGO_MANIFEST_DIR"));
    let mut texts = BTreeMap::new();
    for platform in std::fs::read_dir(&root).expect("catalog/sonic") {
        let platform = platform.expect("entry").path();
        if !platform.is_dir() {
            continue;
        }
        for sku in std::fs::read_dir(&platform).expect("platform dir") {
            let sku = sku.expect("entry").path();
            if let Ok(t) = std::fs::read_to_string(sku.join("buffers_defaults_objects.j2")) {
                texts.insert(sku.display().to_string(), t);
            }
        }
    }
    assert!(texts.len() >= 5, "{texts:?}");
    let first = texts.values().next().expect("one").clone();
    for (sku, t) in &texts {
        assert_eq!(t, &first, "{sku} has another buffer template");
    }
}

/// Every CONFIG_DB row as `TABLE|key` → fields (CABLE_LENGTH's map split per port).
fn rows_of(db: &Map<String, Value>) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for (t, rows) in db {
        for (k, v) in rows.as_object().expect("table") {
            if t == "CABLE_LENGTH" {
                for (port, len) in v.as_object().expect("map") {
                    out.insert(format!("{t}|{k}|{port}"), len.clone());
                }
            } else {
                out.insert(format!("{t}|{k}"), v.clone());
            }
        }
    }
    out
}

/// Growing the Spectrum-X cloud from 3 to 4 SUs (its spines are declared for 4) changes no
/// byte of an existing leaf's files and, on a spine, only rows of the ports the new SU cables:
/// the spine's reserved cages are already split as planned, so nothing is re-broken out.
#[test]
fn growing_by_an_su_only_turns_up_the_new_ports_of_a_spine() {
    let spec = |sus: u32| {
        inventory("spectrum-x-cloud.yaml").replace("count: 3", &format!("count: {sus}")) + SONIC
    };
    let (three, four) = (outputs(&spec(3)), outputs(&spec(4)));
    let mut spines = 0;
    for dev in switches(&three) {
        let (a, b) = (config_db(&three, &dev), config_db(&four, &dev));
        if dev.starts_with("leaf-") {
            assert_eq!(
                file(&three, &format!("configs/{dev}/config_db.json")),
                file(&four, &format!("configs/{dev}/config_db.json")),
                "{dev}"
            );
            assert_eq!(frr(&three, &dev), frr(&four, &dev), "{dev}");
            continue;
        }
        let old_up: BTreeSet<String> = up_ports(&a).into_iter().collect();
        let new_ports: BTreeSet<String> = up_ports(&b)
            .into_iter()
            .filter(|p| !old_up.contains(p))
            .collect();
        assert_eq!(
            table(&a, "PORT").keys().collect::<Vec<_>>(),
            table(&b, "PORT").keys().collect::<Vec<_>>(),
            "{dev}: the same ports exist before and after"
        );
        assert_eq!(
            table(&a, "BREAKOUT_CFG"),
            table(&b, "BREAKOUT_CFG"),
            "{dev}"
        );
        let (ra, rb) = (rows_of(&a), rows_of(&b));
        for (row, v) in &ra {
            let port = row.split('|').find(|p| table(&a, "PORT").contains_key(*p));
            if port.is_some_and(|p| new_ports.contains(p)) {
                continue;
            }
            assert_eq!(rb.get(row), Some(v), "{dev}: {row} changed");
        }
        if dev.starts_with("spine") {
            assert!(
                !new_ports.is_empty(),
                "{dev}: the new SU cables no spine port"
            );
            spines += 1;
        }
    }
    assert_eq!(spines, 8, "every spine checked");
}

/// `inventories/sonic-rail-cluster.yaml`: every Ethernet switch is SONiC on its vendor data, the
/// half-populated SU's leaves keep their idle node ports down, and the rack layout gives the
/// lossless ports two headroom classes (in-row and cross-row cables).
#[test]
fn the_sonic_rail_cluster_example() {
    let files = outputs(&inventory("sonic-rail-cluster.yaml"));
    let sw = switches(&files);
    assert_eq!(sw.len(), 36, "{sw:?}");
    let mut cable_classes = BTreeSet::new();
    for dev in &sw {
        let db = config_db(&files, dev);
        let md = metadata(&db);
        let want = if dev.starts_with("inb-") {
            ("x86_64-mlnx_msn4600c-r0", "ACS-MSN4600C")
        } else {
            ("x86_64-nvidia_sn5600-r0", "ACS-SN5600")
        };
        assert_eq!((field(md, "platform"), field(md, "hwsku")), want, "{dev}");
        assert!(
            files
                .iter()
                .any(|f| f.path == format!("configs/{dev}/snmp_trap.json")),
            "{dev}"
        );
        if dev.starts_with("leaf-") {
            for port in up_ports(&db) {
                cable_classes
                    .insert(field(&table(&db, "CABLE_LENGTH")["AZURE"], &port).to_string());
            }
        }
    }
    // SU 3 holds 16 of 32 nodes: half of each leaf's node ports are idle.
    let full = config_db(&files, "leaf-su01-01");
    let half = config_db(&files, "leaf-su03-01");
    assert_eq!(up_ports(&full).len(), 128);
    assert_eq!(up_ports(&half).len(), 96);
    assert_eq!(table(&full, "PORT").len(), table(&half, "PORT").len());
    assert_eq!(
        cable_classes,
        BTreeSet::from(["5m".to_string(), "40m".to_string()])
    );
}

/// A breakout the SONiC platform lacks, or a model with no SONiC data: `build` reports the located
/// diagnostic and writes nothing (the output directory stays as it was).
#[test]
fn sonic_mistakes_stop_the_build_before_any_output() {
    for (spec, code, line) in [
        ("101-sonic-breakout.yaml", "RY0111", ":9:"),
        ("100-sonic-no-platform-data.yaml", "RY0110", ":7:"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("earlier.txt"), "from an earlier build").unwrap();
        let path = format!("{}/tests/diagnostics/{spec}", env!("CARGO_MANIFEST_DIR"));
        let run = Command::new(env!("CARGO_BIN_EXE_railyard"))
            .args(["build", &path, "-o"])
            .arg(&out)
            .args(["--format", "short"])
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{spec}: {stderr}");
        assert!(
            stderr.lines().any(|l| l.contains(code) && l.contains(line)),
            "{spec}: {stderr}"
        );
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["earlier.txt"], "{spec}");
        assert_eq!(
            std::fs::read_to_string(out.join("earlier.txt")).unwrap(),
            "from an earlier build"
        );
    }
}

/// The port maps railyard hands the cabling team name the same ports the switch will have: every
/// data port of a SONiC switch's port map is a PORT of its config_db, a cabled one up, with the
/// same peer (DEVICE_NEIGHBOR) and speed.
#[test]
fn port_maps_and_config_db_name_the_same_ports() {
    let rail = outputs(&inventory("sonic-rail-cluster.yaml"));
    let mut rows = 0;
    for files in [lab(), spx(), rail.as_slice()] {
        for dev in switches(files) {
            let db = config_db(files, &dev);
            let ports = table(&db, "PORT");
            let neighbors = table(&db, "DEVICE_NEIGHBOR");
            let text = file(files, &format!("portmaps/{dev}.csv"));
            let mut lines = text.lines();
            let header: Vec<&str> = lines.next().expect("header").split(',').collect();
            let col = |n: &str| header.iter().position(|h| *h == n).expect(n);
            let (port, speed, peer) = (col("port"), col("speed"), col("peer_device"));
            for l in lines {
                let c: Vec<&str> = l.split(',').collect();
                if c[port] == "eth0" {
                    continue;
                }
                let p = ports
                    .get(c[port])
                    .unwrap_or_else(|| panic!("{dev}: port map names {} (no PORT)", c[port]));
                if !c[peer].is_empty() {
                    assert_eq!(field(p, "admin_status"), "up", "{dev} {}", c[port]);
                    assert_eq!(field(&neighbors[c[port]], "name"), c[peer], "{dev}");
                    let gbps: u64 = c[speed].trim_end_matches('G').parse().expect("speed");
                    assert_eq!(field(p, "speed"), (gbps * 1000).to_string(), "{dev}");
                }
                rows += 1;
            }
        }
    }
    assert!(rows >= 3000, "{rows} port-map rows checked");
}

// ---------------------------------------------------------------------------------------------
// EVPN-VXLAN tenancy (symmetric IRB, RFC 9135/9136; sonic-net/SONiC
// doc/vxlan/EVPN/EVPN_VXLAN_HLD.md §4.3 lists
// the config_db rows of an L3VNI: VXLAN_TUNNEL, VXLAN_EVPN_NVO, VLAN, VXLAN_TUNNEL_MAP, VRF vni,
// VLAN_INTERFACE vrf_name). Expectations come from the saved intent files.

/// sonic-vrf.yang: `Vrf[a-zA-Z0-9_-]+`; sonic-utilities `config vrf add`: at most 15 characters.
fn is_sonic_vrf_name(n: &str) -> bool {
    n.len() <= 15
        && n.strip_prefix("Vrf").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

/// The SONiC name a tenant VRF must get: `Vrf<name>`, or `Vrf<id>` when that is too long.
fn sonic_vrf(v: &railyard::intent::Vrf) -> String {
    let full = format!("Vrf{}", v.name);
    if full.len() <= 15 {
        full
    } else {
        format!("Vrf{}", v.tenant_id)
    }
}

/// Whether the switch originates VXLAN (a VTEP) according to its intent.
fn is_vtep(d: &DeviceIntent) -> bool {
    d.evpn.as_ref().is_some_and(|e| e.vtep.is_some())
}

const VXLAN_TABLES: [&str; 5] = [
    "VLAN",
    "VLAN_INTERFACE",
    "VXLAN_TUNNEL",
    "VXLAN_EVPN_NVO",
    "VXLAN_TUNNEL_MAP",
];

#[test]
fn tenant_vteps_get_the_l3vni_tables_of_the_evpn_hld() {
    for (spec, files) in tenant_specs() {
        let mut vteps = 0;
        for dev in switches(files) {
            let want = intent(files, &dev);
            let Some(vtep) = want.evpn.as_ref().and_then(|e| e.vtep) else {
                continue;
            };
            if want.vrfs.is_empty() {
                continue;
            }
            vteps += 1;
            let db = config_db(files, &dev);

            // The VTEP: one tunnel with the VTEP address, one NVO naming it.
            let tunnels = rows(&db, "VXLAN_TUNNEL");
            assert_eq!(tunnels.len(), 1, "{spec} {dev}: VXLAN_TUNNEL");
            let (tunnel, t) = tunnels.iter().next().unwrap();
            assert_eq!(field(t, "src_ip"), vtep.addr().to_string(), "{spec} {dev}");
            let nvos = rows(&db, "VXLAN_EVPN_NVO");
            assert_eq!(
                nvos.len(),
                1,
                "{spec} {dev}: VXLAN_EVPN_NVO (max-elements 1)"
            );
            let nvo = nvos.values().next().unwrap();
            assert_eq!(field(nvo, "source_vtep"), tunnel, "{spec} {dev}");
            // The VXLAN source is a local address: on Loopback0.
            assert!(
                table(&db, "LOOPBACK_INTERFACE").contains_key(&format!("Loopback0|{vtep}")),
                "{spec} {dev}: VTEP {vtep} not on Loopback0"
            );

            // One VRF, VLAN, VLAN interface and VNI map per tenant VRF of the intent.
            let vrfs = vrf_vnis(&db);
            let vlans = rows(&db, "VLAN");
            let svis = rows(&db, "VLAN_INTERFACE");
            let maps = rows(&db, "VXLAN_TUNNEL_MAP");
            for t in [&vlans, &svis, &maps] {
                assert_eq!(t.len(), want.vrfs.len(), "{spec} {dev}");
            }
            assert_eq!(vrfs.len(), want.vrfs.len(), "{spec} {dev}");
            // The L3VNI SVI is unnumbered: no `Vlan<id>|<prefix>` row.
            assert!(svis.keys().all(|k| !k.contains('|')), "{spec} {dev}");
            for v in &want.vrfs {
                let (name, _) = vrfs
                    .iter()
                    .find(|(_, vni)| **vni == Some(v.l3vni))
                    .unwrap_or_else(|| panic!("{spec} {dev}: no VRF with vni {}", v.l3vni));
                assert!(is_sonic_vrf_name(name), "{spec} {dev}: VRF name {name}");
                assert_eq!(*name, sonic_vrf(v), "{spec} {dev}: tenant {}", v.name);
                let vlan = format!("Vlan{}", v.vlan);
                assert_eq!(
                    field(&vlans[&vlan], "vlanid"),
                    v.vlan.to_string(),
                    "{spec} {dev}"
                );
                assert_eq!(
                    field(&svis[&vlan], "vrf_name"),
                    name,
                    "{spec} {dev}: {vlan}"
                );
                let key = format!("{tunnel}|map_{}_{vlan}", v.l3vni);
                let m = maps
                    .get(&key)
                    .unwrap_or_else(|| panic!("{spec} {dev}: no VXLAN_TUNNEL_MAP {key}"));
                assert_eq!(field(m, "vlan"), vlan, "{spec} {dev}: {key}");
                assert_eq!(field(m, "vni"), v.l3vni.to_string(), "{spec} {dev}: {key}");
            }
        }
        assert!(vteps >= 5, "{spec}: only {vteps} VTEPs with tenants");
    }
}

#[test]
fn each_tenant_vrf_exists_only_on_the_leaves_carrying_its_ports() {
    for (spec, files) in tenant_specs() {
        let all = switches(files);
        let intents: BTreeMap<String, DeviceIntent> =
            all.iter().map(|d| (d.clone(), intent(files, d))).collect();
        // Every tenant of the spec, by L3VNI (the same on every switch).
        let tenants: BTreeMap<u32, railyard::intent::Vrf> = intents
            .values()
            .flat_map(|d| d.vrfs.iter().map(|v| (v.l3vni, v.clone())))
            .collect();
        // Tenant → switches with a port in it, from the intent files' ports.
        let mut carriers: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
        // Tenant → switches whose config_db defines its VRF.
        let mut defined: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
        for (dev, want) in &intents {
            for i in &want.interfaces {
                let Some(vrf) = &i.vrf else { continue };
                let v = want
                    .vrfs
                    .iter()
                    .find(|v| &v.name == vrf)
                    .unwrap_or_else(|| panic!("{spec} {dev}: port {} in unknown {vrf}", i.name));
                carriers.entry(v.l3vni).or_default().insert(dev.clone());
            }
            for (name, vni) in vrf_vnis(&config_db(files, dev)) {
                let (l3vni, _) = tenants
                    .iter()
                    .find(|(_, t)| sonic_vrf(t) == name)
                    .unwrap_or_else(|| panic!("{spec} {dev}: VRF {name} is no tenant"));
                if let Some(vni) = vni {
                    assert_eq!(vni, *l3vni, "{spec} {dev}: {name}");
                }
                defined.entry(*l3vni).or_default().insert(dev.clone());
            }
        }
        assert!(
            carriers.len() >= 3,
            "{spec}: {} tenants with ports",
            carriers.len()
        );
        assert_eq!(defined, carriers, "{spec}: VRFs vs tenant ports");
        for (vni, devs) in &carriers {
            assert!(
                devs.len() < all.len(),
                "{spec}: tenant {vni} is everywhere, the test proves nothing"
            );
        }
    }
}

#[test]
fn every_tenant_port_carries_its_vrf_name_and_keeps_its_address() {
    for (spec, files) in tenant_specs() {
        let mut tenant_ports = 0;
        for dev in switches(files) {
            let want = intent(files, &dev);
            let db = config_db(files, &dev);
            let vrfs = vrf_vnis(&db);
            let intf = table(&db, "INTERFACE");
            for i in &want.interfaces {
                let bound = intf.get(&i.name).and_then(|e| e.get("vrf_name"));
                let Some(vrf) = &i.vrf else {
                    assert!(bound.is_none(), "{spec} {dev}: {} is in no tenant", i.name);
                    continue;
                };
                tenant_ports += 1;
                let v = want.vrfs.iter().find(|v| &v.name == vrf).unwrap();
                let bound = bound
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| panic!("{spec} {dev}: {} has no vrf_name", i.name));
                assert_eq!(bound, sonic_vrf(v), "{spec} {dev}: {}", i.name);
                assert!(vrfs.contains_key(bound), "{spec} {dev}: {bound} undefined");
                for a in i.ipv4.iter().chain(&i.ipv6) {
                    assert!(
                        intf.contains_key(&format!("{}|{a}", i.name)),
                        "{spec} {dev}: {} lost {a}",
                        i.name
                    );
                }
            }
        }
        assert!(
            tenant_ports >= 50,
            "{spec}: only {tenant_ports} tenant ports"
        );
    }
}

#[test]
fn switches_without_tenants_get_no_vrf_or_vxlan_tables_and_relays_carry_evpn() {
    for (spec, files) in tenant_specs() {
        let mut relays = 0;
        for dev in switches(files) {
            let want = intent(files, &dev);
            if !want.vrfs.is_empty() {
                continue;
            }
            let db = config_db(files, &dev);
            for t in VXLAN_TABLES.iter().chain(&["VRF"]) {
                assert!(!db.contains_key(*t), "{spec} {dev}: {t}");
            }
            for (k, e) in table(&db, "INTERFACE") {
                assert!(e.get("vrf_name").is_none(), "{spec} {dev}: {k}");
            }
            let conf = frr(files, &dev);
            assert!(!conf.lines().any(|l| l.starts_with("vrf ")), "{spec} {dev}");
            assert!(!conf.contains("advertise-all-vni"), "{spec} {dev}");
            // A spine relays the EVPN routes of the leaves: the family is on, nothing originates.
            if want.evpn.is_some() {
                relays += 1;
                let af = block(&conf, " address-family l2vpn evpn")
                    .unwrap_or_else(|| panic!("{spec} {dev}: no l2vpn evpn"));
                let group = &want.bgp.as_ref().unwrap().peer_group;
                let line = format!("  neighbor {group} activate");
                assert!(af.contains(&line.as_str()), "{spec} {dev}");
            }
        }
        assert!(relays >= 2, "{spec}: {relays} EVPN relays");
    }
    // Without tenants nothing changes: the plain Spectrum-X cloud has no tenancy rows at all.
    for dev in switches(spx()) {
        let db = config_db(spx(), &dev);
        for t in VXLAN_TABLES.iter().chain(&["VRF"]) {
            assert!(!db.contains_key(*t), "spx {dev}: {t}");
        }
    }
}

/// The intent keeps tenant VRFs without EVPN where there is no BGP (a single in-band leaf, no
/// spines, no peer): local VRFs, ports bound, no VNI and nothing of VXLAN.
#[test]
fn tenant_vrfs_without_evpn_stay_local() {
    static FILES: OnceLock<Vec<OutputFile>> = OnceLock::new();
    let files = FILES.get_or_init(|| {
        outputs(
            &(lab_text()
                + "tenants: [{name: t1, id: 1, nodes: {names: [gpu001, gpu002]}, inband: true}]
"),
        )
    });
    let mut local = 0;
    for dev in switches(files) {
        let want = intent(files, &dev);
        if want.vrfs.is_empty() || is_vtep(&want) {
            continue;
        }
        local += 1;
        let db = config_db(files, &dev);
        let vrfs = vrf_vnis(&db);
        let names: BTreeSet<String> = want.vrfs.iter().map(sonic_vrf).collect();
        assert_eq!(
            vrfs.keys().cloned().collect::<BTreeSet<_>>(),
            names,
            "{dev}"
        );
        assert!(
            vrfs.values().all(Option::is_none),
            "{dev}: a VNI without a VTEP"
        );
        for t in VXLAN_TABLES {
            assert!(!db.contains_key(t), "{dev}: {t}");
        }
        let conf = frr(files, &dev);
        for n in &names {
            assert_eq!(block(&conf, &format!("vrf {n}")), Some(vec![]), "{dev}");
        }
        assert!(!conf.contains("l2vpn evpn"), "{dev}");
    }
    assert!(local >= 1, "{local} switches with local tenant VRFs");
}

/// The lines of the block opened by `head` up to its closing `exit`.
fn block<'a>(conf: &'a str, head: &str) -> Option<Vec<&'a str>> {
    let mut lines = conf.lines().skip_while(|l| *l != head);
    lines.next()?;
    Some(
        lines
            .take_while(|l| *l != "exit" && *l != "exit-vrf" && *l != " exit-address-family")
            .collect(),
    )
}

#[test]
fn frr_conf_binds_each_tenant_vrf_to_its_l3vni_and_exports_type5_routes() {
    for (spec, files) in tenant_specs() {
        let mut instances = 0;
        for dev in switches(files) {
            let want = intent(files, &dev);
            if want.vrfs.is_empty() || !is_vtep(&want) {
                continue;
            }
            let conf = frr(files, &dev);
            let db = config_db(files, &dev);
            // Originating VTEP: the default instance advertises the local VNIs.
            let af = block(&conf, " address-family l2vpn evpn")
                .unwrap_or_else(|| panic!("{spec} {dev}: no l2vpn evpn family"));
            assert!(af.contains(&"  advertise-all-vni"), "{spec} {dev}");
            let asn = want.bgp.as_ref().expect("a VTEP runs BGP").asn;
            for v in &want.vrfs {
                // The same VRF name as config_db: one kernel VRF, made by vrfmgrd.
                let name = sonic_vrf(v);
                assert_eq!(
                    vrf_vnis(&db).get(&name),
                    Some(&Some(v.l3vni)),
                    "{spec} {dev}"
                );
                let vrf = block(&conf, &format!("vrf {name}"))
                    .unwrap_or_else(|| panic!("{spec} {dev}: no `vrf {name}`"));
                assert_eq!(vrf, [format!(" vni {}", v.l3vni).as_str()], "{spec} {dev}");
                let head = format!("router bgp {asn} vrf {name}");
                assert!(conf.lines().any(|l| l == head), "{spec} {dev}: no `{head}`");
                let inst: Vec<&str> = conf
                    .lines()
                    .skip_while(|l| *l != head)
                    .take_while(|l| *l != "exit")
                    .collect();
                let has = |l: String| assert!(inst.contains(&l.as_str()), "{spec} {dev}: `{l}`");
                has(format!("  rd {}", v.rd));
                for rt in &v.import {
                    has(format!("  route-target import {rt}"));
                }
                for rt in &v.export {
                    has(format!("  route-target export {rt}"));
                }
                has("  advertise ipv4 unicast".into());
                instances += 1;
            }
        }
        assert!(instances >= 5, "{spec}: {instances} tenant BGP instances");
    }
}

#[test]
fn real_frr_accepts_the_tenant_frr_confs() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (spec, files) in tenant_specs() {
        for f in files.iter().filter(|f| f.path.ends_with("/frr.conf")) {
            let what = format!("{spec} {}", f.path);
            vtysh_accepts(dir.path(), &format!("{spec}-{}", f.path), &f.bytes, &what);
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} FRR configs checked");
}

/// RoCE over VXLAN (issue 4). SONiC has no outer-DSCP knob for a VXLAN tunnel: sonic-vxlan.yang
/// VXLAN_TUNNEL knows `src_ip`, `dst_ip`, `ttl_mode`, and orchagent's VXLAN tunnel keeps the SAI
/// default DSCP mode, uniform (inner DSCP copied to the outer header). What the renderer must
/// get right is therefore the classification of the outer header: every fabric port of a VTEP
/// trusts DSCP with the RoCE class, and PFC runs there on the RoCE priority.
#[test]
fn roce_class_covers_the_vxlan_outer_header_on_vtep_uplinks() {
    for (spec, files) in tenant_specs() {
        let mut uplinks = 0;
        for dev in switches(files) {
            let want = intent(files, &dev);
            if !is_vtep(&want) {
                continue;
            }
            let db = config_db(files, &dev);
            for t in rows(&db, "VXLAN_TUNNEL").values() {
                let fields: BTreeSet<&str> =
                    t.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(fields, BTreeSet::from(["src_ip"]), "{spec} {dev}");
            }
            let Some(q) = &want.qos else {
                continue;
            };
            let dscp = bound_dscp_map(&db);
            assert_eq!(
                dscp[&q.roce.dscp],
                q.roce.traffic_class.to_string(),
                "{spec} {dev}"
            );
            let qm = table(&db, "PORT_QOS_MAP");
            let pfc = q
                .pfc_priorities
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(",");
            for i in want
                .interfaces
                .iter()
                .filter(|i| i.kind == railyard::intent::InterfaceKind::Fabric)
            {
                let e = &qm[&i.name];
                assert_eq!(
                    field(e, "dscp_to_tc_map"),
                    "ROCE",
                    "{spec} {dev} {}",
                    i.name
                );
                assert_eq!(field(e, "pfc_enable"), pfc, "{spec} {dev} {}", i.name);
                uplinks += 1;
            }
        }
        assert!(uplinks >= 20, "{spec}: {uplinks} VTEP uplinks checked");
    }
}

#[test]
fn a_tenant_name_too_long_for_a_sonic_vrf_falls_back_to_its_id() {
    // 15 characters is a valid tenant name; `Vrf` + 15 is not a valid SONiC VRF name.
    let spec =
        inventory("spectrum-x-cloud-tenants.yaml").replace("cust-a", "customer-alpha1") + SONIC;
    let files = outputs(&spec);
    let mut seen = 0;
    for dev in switches(&files) {
        let want = intent(&files, &dev);
        let Some(v) = want.vrfs.iter().find(|v| v.name == "customer-alpha1") else {
            continue;
        };
        seen += 1;
        let db = config_db(&files, &dev);
        let name = format!("Vrf{}", v.tenant_id);
        assert!(vrf_vnis(&db).contains_key(&name), "{dev}");
        assert!(vrf_vnis(&db).keys().all(|n| is_sonic_vrf_name(n)), "{dev}");
        let conf = frr(&files, &dev);
        assert!(conf.lines().any(|l| l == format!("vrf {name}")), "{dev}");
    }
    assert!(seen >= 2, "{seen} switches carry the renamed tenant");
}

/// The bgp container's process list as its start-up renders it: sonic-buildimage
/// `dockers/docker-fpm-frr/frr/supervisord/supervisord.conf.j2` (and the `critical_processes.j2`
/// beside it), vendored in `tests/fixtures/sonic-frr/`, rendered by Python's jinja2 with CONFIG_DB
/// as the variables, as `docker_init.sh` does with `sonic-cfggen -d -t`. One process renders every
/// switch's pair. Returns, per switch, (supervisord.conf, critical_processes).
fn bgp_container_programs(dbs: &[(String, Map<String, Value>)]) -> Vec<(String, String)> {
    const HARNESS: &str = r#"
import json, sys, jinja2
a = json.load(sys.stdin)
# sonic-cfggen: a FileSystemLoader over the template's directory, trim_blocks.
env = jinja2.Environment(loader=jinja2.FileSystemLoader(a["dir"]), trim_blocks=True)
out = []
for db in a["dbs"]:
    out.append([env.get_template(t).render(**db)
                for t in ("supervisord.conf.j2", "critical_processes.j2")])
print(json.dumps(out))
"#;
    let dir = format!("{}/tests/fixtures/sonic-frr", env!("CARGO_MANIFEST_DIR"));
    let list: Vec<&Map<String, Value>> = dbs.iter().map(|(_, db)| db).collect();
    let input = serde_json::json!({"dir": dir, "dbs": list});
    jinja2_json(HARNESS, &input)
}

/// `[program:NAME]` sections of a supervisord.conf: name → its `key=value` lines.
fn programs(conf: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut all: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current = None;
    for line in conf.lines().map(str::trim) {
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = section.strip_prefix("program:").map(str::to_string);
            if let Some(name) = &current {
                all.entry(name.clone()).or_default();
            }
        } else if let (Some(name), Some((k, v))) = (&current, line.split_once('=')) {
            all.get_mut(name)
                .expect("section")
                .insert(k.to_string(), v.to_string());
        }
    }
    all
}

/// Issue 27: `frr.conf` carries `bfd` and `neighbor fabric bfd`, and the switch's own start-up
/// must run bfdd for them. In `split-unified` the `vtysh_b` program loads `frr.conf` once bgpd
/// runs; bfdd must be a program that starts (supervisord's dependent-startup plugin starts
/// `dependent_startup=true` programs once what they wait for runs) and a critical process. A
/// switch without BFD keeps SONiC's default process set (bgpcfgd).
#[test]
fn the_bgp_container_starts_bfdd_when_frr_conf_has_bfd() {
    if !has_jinja2("the_bgp_container_starts_bfdd_when_frr_conf_has_bfd") {
        return;
    }
    let no_bfd = outputs(&(lab_text() + "bgp: {bfd: false}\n"));
    let mut dbs = Vec::new();
    let mut wants = Vec::new();
    for files in [lab(), spx(), &no_bfd[..]] {
        for dev in switches(files) {
            let conf = frr(files, &dev);
            let bfd = conf.lines().any(|l| l == "bfd")
                && conf.lines().any(|l| l == " neighbor fabric bfd");
            wants.push((dev.clone(), bfd));
            dbs.push((dev.clone(), config_db(files, &dev)));
        }
    }
    assert!(wants.iter().any(|w| w.1) && wants.iter().any(|w| !w.1));
    let rendered = bgp_container_programs(&dbs);
    for ((dev, bfd), (sup, critical)) in wants.iter().zip(&rendered) {
        let p = programs(sup);
        let vtysh = p
            .get("vtysh_b")
            .unwrap_or_else(|| panic!("{dev}: no vtysh -b"));
        assert_eq!(vtysh["command"], "/usr/bin/vtysh -b", "{dev}");
        let critical: Vec<&str> = critical.lines().map(str::trim).collect();
        if *bfd {
            let b = p
                .get("bfdd")
                .unwrap_or_else(|| panic!("{dev}: frr.conf has bfd, supervisord runs no bfdd"));
            assert!(b["command"].starts_with("/usr/lib/frr/bfdd "), "{dev}");
            assert_eq!(b["dependent_startup"], "true", "{dev}: bfdd never started");
            assert_eq!(b["dependent_startup_wait_for"], "zebra:running", "{dev}");
            assert!(critical.contains(&"program:bfdd"), "{dev}");
        } else {
            assert!(!p.contains_key("bfdd"), "{dev}");
            assert!(p.contains_key("bgpcfgd"), "{dev}: SONiC's default set");
        }
    }
}

/// Issue 27: Cumulus Linux 5.15, Switch Port Attributes ("Auto-negotiation with the Spectrum-4
/// Switch"): a Spectrum-4 switch connected to another with PAM4 modulation must auto-negotiate.
/// A lane carries PAM4 from 50G up (IEEE 802.3cd/ck); the lanes are the platform's
/// (`platform.json`, in the PORT row). Every cabled switch-to-switch port with PAM4 lanes
/// negotiates, advertising only its planned speed (both ends are railyard's); host ports and NRZ
/// ports keep the SAI's default (no `autoneg`).
#[test]
fn switch_to_switch_pam4_ports_auto_negotiate_their_planned_speed() {
    let mut on = 0;
    for files in [lab(), spx()] {
        let switches: BTreeSet<String> = switches(files).into_iter().collect();
        for dev in &switches {
            let db = config_db(files, dev);
            let peers = rows(&db, "DEVICE_NEIGHBOR");
            for (name, p) in table(&db, "PORT") {
                let lanes = field(p, "lanes").split(',').count() as u32;
                let speed: u32 = field(p, "speed").parse().expect("speed");
                let to_switch = peers
                    .get(name)
                    .is_some_and(|n| switches.contains(field(n, "name")));
                let pam4 = speed / lanes >= 50_000;
                if to_switch && pam4 {
                    assert_eq!(
                        p.get("autoneg").and_then(Value::as_str),
                        Some("on"),
                        "{dev} {name}"
                    );
                    assert_eq!(field(p, "adv_speeds"), field(p, "speed"), "{dev} {name}");
                    on += 1;
                } else {
                    assert!(p.get("autoneg").is_none(), "{dev} {name}");
                    assert!(p.get("adv_speeds").is_none(), "{dev} {name}");
                }
            }
        }
    }
    assert!(on > 100, "{on} PAM4 fabric ports");
}
