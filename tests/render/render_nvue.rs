//! The NVIDIA Cumulus Linux (NVUE) renderer: `configs/<device>/nv-set.sh` and `startup.yaml`,
//! checked against the published facts (NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture; NVIDIA Cumulus Linux RoCE documentation; Cumulus Linux RoCE documentation; NVUE reference, Adaptive Routing; RFC 7938 §6; Cumulus Linux BGP documentation), not against the
//! program's own output; and the two files checked against each other, setting by setting.

use crate::common;
use crate::prereq;

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use common::*;
use ipnet::IpNet;
use railyard::diag::SourceFile;
use railyard::intent::{DeviceIntent, Intents, InterfaceKind};
use railyard::model::{Role, Speed};

fn with(base: &str, extra: &str) -> String {
    format!("{base}\n{extra}\n")
}

fn lab() -> String {
    inventory("lab-small.yaml")
}

fn spx() -> String {
    inventory("spectrum-x-cloud.yaml")
}

fn intents(text: &str) -> Intents {
    let c = railyard::compile(&SourceFile::new("spec.yaml", text));
    c.design.map(|d| d.intents).expect("spec compiles")
}

fn script(files: &[railyard::output::OutputFile], device: &str) -> String {
    file(files, &format!("configs/{device}/nv-set.sh"))
}

fn startup(files: &[railyard::output::OutputFile], device: &str) -> String {
    file(files, &format!("configs/{device}/startup.yaml"))
}

/// Every `nv set` line as its words, quotes removed (the shell's view of the line).
fn nv_set(script: &str) -> Vec<Vec<String>> {
    script
        .lines()
        .filter(|l| l.starts_with("nv set "))
        .map(|l| shell_words(l)[2..].to_vec())
        .collect()
}

/// Enough of the shell's word splitting for generated scripts: blanks, '…' and "…".
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '"' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '\\' => {
                in_word = true;
                if let Some(q) = chars.next() {
                    cur.push(q);
                }
            }
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// The settings of a startup file as `nv set` paths: keys down to a leaf value, or down to an
/// identifier that carries nothing (`{}`). Read with the YAML crate the project already uses.
fn startup_paths(yaml: &str) -> Vec<Vec<String>> {
    let docs: serde_json::Value = serde_saphyr::from_str(yaml).expect("startup.yaml is YAML");
    let docs = docs.as_array().expect("startup.yaml is a list");
    assert_eq!(docs.len(), 2, "a header entry, then a set entry");
    assert!(
        docs[0].get("header").is_some(),
        "first entry is `- header:`"
    );
    let set = docs[1].get("set").expect("a `set:` document");
    let mut out = Vec::new();
    flatten(set, &mut Vec::new(), &mut out);
    out
}

fn flatten(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        serde_json::Value::Object(m) if m.is_empty() => out.push(path.clone()),
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                path.push(k.clone());
                flatten(x, path, out);
                path.pop();
            }
        }
        serde_json::Value::String(s) => out.push([path.clone(), vec![s.clone()]].concat()),
        serde_json::Value::Number(n) => out.push([path.clone(), vec![n.to_string()]].concat()),
        other => panic!("unexpected {other} at {}", path.join(" ")),
    }
}

/// The values of one setting across the script: `nv set <prefix...> X` → X (the last word).
fn values(script: &str, prefix: &str) -> Vec<String> {
    let p: Vec<String> = prefix.split(' ').map(str::to_string).collect();
    nv_set(script)
        .into_iter()
        .filter(|w| w.len() == p.len() + 1 && w.starts_with(&p))
        .map(|w| w[p.len()].clone())
        .collect()
}

fn has(script: &str, line: &str) -> bool {
    script.lines().any(|l| l == line)
}

/// Interfaces whose description (the cabling peer) names a switch that has its own config.
fn uplinks(files: &[railyard::output::OutputFile], device: &str) -> BTreeSet<String> {
    let switches: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.path.strip_prefix("configs/"))
        .filter_map(|p| p.split('/').next())
        .map(str::to_string)
        .collect();
    let s = script(files, device);
    nv_set(&s)
        .into_iter()
        .filter(|w| w.len() == 4 && w[0] == "interface" && w[2] == "description")
        .filter(|w| {
            let peer = w[3].split(':').next().unwrap_or_default();
            switches.contains(peer)
        })
        .map(|w| w[1].clone())
        .collect()
}

#[test]
fn lab_switches_are_all_nvue_scripts_that_end_in_apply() {
    let files = outputs(&lab());
    for d in [
        "spine01",
        "spine02",
        "leaf-su01-01",
        "leaf-su01-02",
        "inb-leaf01",
    ] {
        let s = script(&files, d);
        assert!(s.starts_with("#!/usr/bin/env bash\n"), "{d}");
        assert!(
            s.contains("Cumulus Linux 5.15"),
            "{d}: the target release is stated"
        );
        assert!(has(&s, "set -euo pipefail"), "{d}");
        assert_eq!(
            s.lines().last(),
            Some("nv config apply --assume-yes"),
            "{d}"
        );
        assert!(has(&s, &format!("nv set system hostname {d}")), "{d}");
        assert!(startup(&files, d).starts_with("- header:\n"), "{d}");
    }
}

#[test]
fn scripts_parse_as_bash() {
    if prereq::program("scripts_parse_as_bash", "bash", "bash").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = with(
        &lab(),
        "services: {ntp: [192.0.2.1], syslog: [192.0.2.2], dns: [192.0.2.53], snmp_traps: [192.0.2.162], domain: lab.example}",
    );
    for f in outputs(&spec)
        .iter()
        .filter(|f| f.path.ends_with("nv-set.sh"))
    {
        let p = dir.path().join(f.path.replace('/', "_"));
        std::fs::write(&p, &f.bytes).unwrap();
        let out = std::process::Command::new("bash")
            .arg("-n")
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.path,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// RFC 7938 §6; RFC 8950 (formerly RFC 5549): one eBGP session per uplink, unnumbered over the interface, and ECMP as wide
/// as the uplinks. lab-small: 4 nodes on a 1:1 leaf → 4 uplinks, 2 to each of 2 spines.
#[test]
fn lab_leaf_has_one_unnumbered_neighbour_per_uplink_and_ecmp_across_all() {
    let files = outputs(&lab());
    for leaf in ["leaf-su01-01", "leaf-su01-02"] {
        let s = script(&files, leaf);
        let up = uplinks(&files, leaf);
        assert_eq!(up.len(), 4, "{leaf}: 4 downlinks at 1:1");
        let peer_group_members: BTreeSet<String> = nv_set(&s)
            .into_iter()
            .filter(|w| w.len() == 8 && w[..5] == ["vrf", "default", "router", "bgp", "neighbor"])
            .filter(|w| w[6] == "peer-group" && w[7] == "fabric")
            .map(|w| w[5].clone())
            .collect();
        assert_eq!(
            peer_group_members, up,
            "{leaf}: a session on every uplink, none elsewhere"
        );
        for n in &up {
            assert!(
                has(
                    &s,
                    &format!("nv set vrf default router bgp neighbor {n} type unnumbered")
                ),
                "{leaf} {n}"
            );
        }
        assert_eq!(
            values(
                &s,
                "vrf default router bgp address-family ipv4-unicast multipaths ebgp"
            ),
            vec![up.len().to_string()],
            "{leaf}: ECMP width = uplink count"
        );
        assert!(has(
            &s,
            "nv set vrf default router bgp path-selection multipath aspath-ignore enabled"
        ));
    }
}

/// NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture: a Spectrum-X leaf has 32 cages split 2×400G as uplinks = 64 sessions, ECMP 64,
/// and every remote AS is the spines' shared ASN (RFC 7938 §5.2 and RFC 6996).
#[test]
fn spectrum_x_leaf_peers_on_all_64_uplinks_with_the_spine_asn() {
    let files = outputs(&spx());
    let s = script(&files, "leaf-su01-01");
    let up = uplinks(&files, "leaf-su01-01");
    assert_eq!(up.len(), 64);
    let remote: BTreeMap<String, String> = nv_set(&s)
        .into_iter()
        .filter(|w| w.len() == 8 && w[..5] == ["vrf", "default", "router", "bgp", "neighbor"])
        .filter(|w| w[6] == "remote-as")
        .map(|w| (w[5].clone(), w[7].clone()))
        .collect();
    assert_eq!(remote.keys().cloned().collect::<BTreeSet<_>>(), up);
    let spine_asn = values(&script(&files, "spine01"), "router bgp autonomous-system");
    let asns: BTreeSet<&String> = remote.values().collect();
    assert_eq!(asns.into_iter().cloned().collect::<Vec<_>>(), spine_asn);
    assert_eq!(
        values(
            &s,
            "vrf default router bgp address-family ipv4-unicast multipaths ebgp"
        ),
        vec!["64".to_string()]
    );
    // Cumulus Linux BGP documentation: BFD 3 × 300 ms through a profile on the peer group.
    for l in [
        "nv set router bfd profile fabric detect-multiplier 3",
        "nv set router bfd profile fabric min-rx-interval 300",
        "nv set router bfd profile fabric min-tx-interval 300",
        "nv set vrf default router bgp peer-group fabric bfd profile fabric",
    ] {
        assert!(has(&s, l), "{l}");
    }
}

/// NVIDIA Cumulus Linux RoCE documentation; Cumulus Linux RoCE documentation: DSCP 26 → switch priority 3 → TC 3 with PFC and ECN 150000/1500000 B;
/// CNP DSCP 48 → priority 6 → TC 6 strict; TC 0 and TC 3 DWRR 50 % each.
#[test]
fn roce_qos_is_the_nvidia_lossless_profile() {
    let files = outputs(&lab());
    let s = script(&files, "leaf-su01-01");
    for l in [
        "nv set qos roce state enabled",
        "nv set qos roce mode lossless",
        "nv set qos mapping default-global trust l3",
        "nv set qos mapping default-global dscp 26 switch-priority 3",
        "nv set qos mapping default-global dscp 48 switch-priority 6",
        "nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 3",
        "nv set qos egress-queue-mapping default-global switch-priority 6 traffic-class 6",
        "nv set qos congestion-control default-global traffic-class 3 ecn enable",
        "nv set qos congestion-control default-global traffic-class 3 min-threshold 150000",
        "nv set qos congestion-control default-global traffic-class 3 max-threshold 1500000",
        "nv set qos congestion-control default-global traffic-class 3 probability 100",
        "nv set qos egress-scheduler default-global traffic-class 6 mode strict",
        "nv set qos egress-scheduler default-global traffic-class 3 mode dwrr",
        "nv set qos egress-scheduler default-global traffic-class 3 bw-percent 50",
        "nv set qos egress-scheduler default-global traffic-class 0 mode dwrr",
        "nv set qos egress-scheduler default-global traffic-class 0 bw-percent 50",
    ] {
        assert!(has(&s, l), "missing: {l}");
    }
    assert_eq!(
        values(&s, "qos pfc default-global switch-priority"),
        vec!["3"],
        "PFC on priority 3 only"
    );
    assert!(
        values(
            &s,
            "qos egress-scheduler default-global traffic-class 6 bw-percent"
        )
        .is_empty(),
        "a strict class has no weight"
    );
    // Cumulus Linux RoCE documentation: the watchdog runs on every lossless (PFC) port, and only on physical ports.
    let wd: BTreeSet<String> = nv_set(&s)
        .into_iter()
        .filter(|w| {
            w.len() == 6
                && w[0] == "interface"
                && w[2..] == ["qos", "pfc-watchdog", "state", "enable"]
        })
        .map(|w| w[1].clone())
        .collect();
    let ports: BTreeSet<String> = nv_set(&s)
        .into_iter()
        .filter(|w| w.len() == 4 && w[0] == "interface" && w[2..] == ["type", "swp"])
        .map(|w| w[1].clone())
        .collect();
    assert_eq!(wd, ports, "every cabled port of a compute leaf is lossless");
    assert!(wd.iter().all(|p| p.starts_with("swp")));
    // The in-band network carries no RoCE.
    let inb = script(&files, "inb-leaf01");
    assert!(!inb.contains("qos roce"), "in-band leaf has no RoCE");
}

#[test]
fn a_non_default_dscp_is_really_configured() {
    let files = outputs(&with(&lab(), "roce: {dscp: 24}"));
    let s = script(&files, "leaf-su01-01");
    assert!(has(
        &s,
        "nv set qos mapping default-global dscp 24 switch-priority 3"
    ));
    assert!(values(&s, "qos mapping default-global dscp 26 switch-priority").is_empty());
}

/// Cumulus Linux RoCE documentation: lossy RoCE is ECN without PFC; the watchdog only exists on PFC ports.
#[test]
fn lossy_mode_keeps_ecn_and_drops_pfc_and_the_watchdog() {
    let files = outputs(&with(&lab(), "roce: {mode: lossy}"));
    let s = script(&files, "leaf-su01-01");
    assert!(has(&s, "nv set qos roce mode lossy"));
    assert!(has(
        &s,
        "nv set qos congestion-control default-global traffic-class 3 ecn enable"
    ));
    assert!(!s.contains("qos pfc "), "no PFC when lossy");
    assert!(!s.contains("pfc-watchdog"), "no watchdog without PFC");
    let y = startup(&files, "leaf-su01-01");
    assert!(!y.contains("pfc"), "{y}");
}

/// NVUE reference, Adaptive Routing: adaptive routing on Spectrum-4 (SN5600) layer-3 fabric ports at 400G/200G; never
/// on host ports; enabled globally too. The lab's Spectrum-2-era SN4600C gets none.
#[test]
fn adaptive_routing_on_spectrum_x_fabric_ports_only() {
    let spec = spx();
    let files = outputs(&spec);
    let i = intents(&spec);
    let fabric_devices: Vec<&DeviceIntent> = i
        .devices
        .values()
        .filter(|d| matches!(d.role, Role::Leaf | Role::Spine))
        .collect();
    assert_eq!(fabric_devices.len(), 12 + 8);
    for d in fabric_devices {
        let s = script(&files, &d.hostname);
        assert!(
            has(&s, "nv set router adaptive-routing state enabled"),
            "{}",
            d.hostname
        );
        let ar: BTreeSet<String> = nv_set(&s)
            .into_iter()
            .filter(|w| {
                w.len() == 6
                    && w[0] == "interface"
                    && w[2..] == ["router", "adaptive-routing", "state", "enabled"]
            })
            .map(|w| w[1].clone())
            .collect();
        let fabric_400g: BTreeSet<String> = d
            .interfaces
            .iter()
            .filter(|x| x.kind == InterfaceKind::Fabric && x.speed == Speed::gbps(400))
            .map(|x| x.name.clone())
            .collect();
        let hosts: BTreeSet<String> = d
            .interfaces
            .iter()
            .filter(|x| x.kind == InterfaceKind::Host)
            .map(|x| x.name.clone())
            .collect();
        assert!(!fabric_400g.is_empty());
        assert_eq!(ar, fabric_400g, "{}", d.hostname);
        assert!(
            ar.is_disjoint(&hosts),
            "{}: no AR on host ports",
            d.hostname
        );
    }
    let lab_files = outputs(&lab());
    for d in ["leaf-su01-01", "spine01"] {
        assert!(!script(&lab_files, d).contains("adaptive-routing"), "{d}");
    }
}

/// NVIDIA QM9700 and SN5000 user manuals, Interfaces; NVIDIA LinkX cable and transceiver data sheets: an SN5600 cage carrying 400G links is split 2x; the split ports are the
/// swpNs0/swpNs1 the interfaces use.
#[test]
fn spectrum_x_cages_are_split_2x_for_the_400g_ports() {
    let files = outputs(&spx());
    let s = script(&files, "leaf-su01-01");
    let split: BTreeSet<String> = nv_set(&s)
        .into_iter()
        .filter(|w| w.len() == 5 && w[0] == "interface" && w[2..4] == ["link", "breakout"])
        .map(|w| {
            assert_eq!(w[4], "2x");
            w[1].clone()
        })
        .collect();
    assert_eq!(split.len(), 64, "all 64 cages carry two 400G ports");
    for w in nv_set(&s)
        .into_iter()
        .filter(|w| w.len() == 4 && w[2] == "type" && w[3] == "swp")
    {
        let (cage, _) = w[1].rsplit_once('s').expect("a split port is swpNsM");
        assert!(split.contains(cage), "{} sits on a split cage", w[1]);
    }
}

/// RFC 8950 (formerly RFC 5549) counter-practice: numbered /31 fabric links. Sessions go to the peer's address on
/// each link, and that address shares the local /31.
#[test]
fn numbered_fabric_peers_by_address() {
    let files = outputs(&with(&lab(), "addressing: {fabric_links: 10.1.0.0/16}"));
    let pool: IpNet = "10.1.0.0/16".parse().unwrap();
    for leaf in ["leaf-su01-01", "spine01"] {
        let s = script(&files, leaf);
        let up = uplinks(&files, leaf);
        let local: Vec<IpNet> = up
            .iter()
            .flat_map(|i| values(&s, &format!("interface {i} ipv4 address")))
            .map(|a| a.parse().unwrap())
            .collect();
        assert_eq!(local.len(), up.len(), "{leaf}: every fabric port has a /31");
        let peers: Vec<IpAddr> = nv_set(&s)
            .into_iter()
            .filter(|w| w.len() == 8 && w[..5] == ["vrf", "default", "router", "bgp", "neighbor"])
            .filter(|w| w[6] == "type")
            .map(|w| {
                assert_eq!(w[7], "numbered");
                w[5].parse().expect("a numbered neighbour is an address")
            })
            .collect();
        assert_eq!(peers.len(), up.len(), "{leaf}");
        for p in &peers {
            assert!(pool.contains(p), "{p}");
            let link = local
                .iter()
                .find(|l| l.contains(p))
                .expect("peer on a local /31");
            assert_eq!(link.prefix_len(), 31);
            assert_ne!(link.addr(), *p, "the peer is the other end");
        }
    }
}

#[test]
fn management_and_services_live_in_the_management_vrf() {
    let spec = with(
        &lab(),
        "services: {ntp: [192.0.2.1], syslog: [192.0.2.2], dns: [192.0.2.53], snmp_traps: [192.0.2.162], domain: lab.example}",
    );
    let files = outputs(&spec);
    let i = intents(&spec);
    let d = &i.devices["leaf-su01-01"];
    let m = d.system.mgmt.as_ref().unwrap();
    let s = script(&files, "leaf-su01-01");
    for l in [
        format!("nv set interface {} vrf mgmt", m.interface),
        format!(
            "nv set interface {} ipv4 address {}",
            m.interface, m.address
        ),
        format!("nv set vrf mgmt router static 0.0.0.0/0 via {}", m.gateway),
        "nv set system ntp server 192.0.2.1 iburst enabled".into(),
        "nv set system ntp vrf mgmt".into(),
        "nv set system dns server 192.0.2.53 vrf mgmt".into(),
        "nv set system dns domain lab.example".into(),
        "nv set system syslog server 192.0.2.2 vrf mgmt".into(),
        "nv set system snmp-server state enabled".into(),
    ] {
        assert!(has(&s, &l), "missing: {l}");
    }
    // No secret in the spec or the outputs: the community comes from the environment.
    let trap = s
        .lines()
        .filter(|l| l.starts_with("nv set "))
        .find(|l| l.contains("trap-destination 192.0.2.162 vrf mgmt community-password"))
        .expect("trap line");
    assert!(trap.contains("\"${SNMP_TRAP_COMMUNITY}\""), "{trap}");
    assert!(
        s.contains(": \"${SNMP_TRAP_COMMUNITY:?"),
        "the script refuses to run without it"
    );
}

/// Compares the two files of every NVUE switch of one rendering, setting by setting: every
/// `nv set` line (as the shell splits it) is one path of the startup tree (as a YAML reader sees
/// it) and every path of the tree is one line. Returns how many switches were compared.
fn assert_same_settings(what: &str, files: &[railyard::output::OutputFile]) -> usize {
    let mut checked = 0;
    for dev in nvue_devices(files) {
        let lines = nv_set(&script(files, &dev));
        let set: BTreeSet<Vec<String>> = lines.iter().cloned().collect();
        assert_eq!(set.len(), lines.len(), "{what} {dev}: no line twice");
        let tree: BTreeSet<Vec<String>> =
            startup_paths(&startup(files, &dev)).into_iter().collect();
        let only_script: Vec<_> = set.difference(&tree).map(|w| w.join(" ")).collect();
        let only_yaml: Vec<_> = tree.difference(&set).map(|w| w.join(" ")).collect();
        assert!(
            only_script.is_empty() && only_yaml.is_empty(),
            "{what} {dev}: only in nv-set.sh: {only_script:#?}\nonly in startup.yaml: {only_yaml:#?}"
        );
        checked += 1;
    }
    checked
}

/// Every example spec under `inventories/`, as written: every NVUE switch has the same settings
/// in both files (0 paths on one side only).
#[test]
fn every_nvue_switch_of_every_example_has_the_same_settings_in_both_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("inventories/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    let mut examples = 0;
    let mut checked = 0;
    for name in &names {
        let n = assert_same_settings(name, &outputs(&inventory(name)));
        examples += usize::from(n > 0);
        checked += n;
    }
    assert!(examples >= 8, "only {examples} examples have NVUE switches");
    assert!(checked >= 120, "only {checked} switches compared");
    eprintln!("{checked} NVUE switches of {examples} examples: both files carry the same settings");
}

/// The same comparison across variants the examples do not exercise: numbered, dual-stack, VTEP
/// pool, lossy with a non-default DSCP, every management service, leaf ASN reuse.
#[test]
fn nv_set_and_startup_yaml_carry_the_same_settings_in_every_variant() {
    let variants = [
        with(
            &lab(),
            "addressing: {fabric_links: 192.168.0.0/16, loopbacks_v6: 'fd00:1::/64', fabric_links_v6: 'fd00:f::/48', gpu_v6: 'fd00:64::/48', vteps: 10.1.0.0/16}",
        ),
        with(
            &lab(),
            "roce: {mode: lossy, dscp: 24}\nservices: {ntp: [192.0.2.1, ntp.example], syslog: [192.0.2.2], dns: [192.0.2.53], snmp_traps: [192.0.2.162], domain: lab.example}",
        ),
        with(&spx(), "bgp: {reuse_leaf_asns: true}"),
    ];
    let checked: usize = variants
        .iter()
        .map(|spec| assert_same_settings("variant", &outputs(spec)))
        .sum();
    assert!(checked >= 2 * 5 + 22, "only {checked} devices compared");
}

/// `startup.yaml` is a literal NVUE startup file: a `- header:` entry (as `nv config show -o
/// yaml` writes it: model, `nvue-api-version: nvue_v1`, `rev-id: 1.0`, the release), then `- set:`;
/// a link state and a route-map action are keys (`state: {up: {}}`), and keyed collections have
/// string keys (`'3': {}`), as in NVUE's own output (CL 5.15 NVUE-CLI page, `nv config show`).
#[test]
fn startup_yaml_is_in_nvues_file_format() {
    let files = outputs(&lab());
    let y = startup(&files, "leaf-su01-01");
    let docs: serde_json::Value = serde_saphyr::from_str(&y).expect("YAML");
    let header = &docs[0]["header"];
    assert_eq!(header["nvue-api-version"], "nvue_v1");
    assert_eq!(header["rev-id"], 1.0);
    assert_eq!(header["version"], "Cumulus Linux 5.15.0");
    assert_eq!(header["model"], "SN4600C");
    let set = &docs[1]["set"];
    let port = uplinks(&files, "leaf-su01-01").into_iter().next().unwrap();
    assert_eq!(
        set["interface"][&port]["link"]["state"],
        serde_json::json!({"up": {}})
    );
    assert_eq!(
        set["router"]["policy"]["route-map"]["CONNECTED-TO-BGP"]["rule"]["10"]["action"],
        serde_json::json!({"permit": {}})
    );
    assert_eq!(
        set["qos"]["pfc"]["default-global"]["switch-priority"],
        serde_json::json!({"3": {}})
    );
    assert!(
        y.contains("\"3\": {}") || y.contains("'3': {}"),
        "keys stay strings"
    );
}

#[test]
fn dual_stack_adds_the_ipv6_family_only_when_ipv6_is_redistributed() {
    let files = outputs(&with(
        &lab(),
        "addressing: {loopbacks_v6: 'fd00:1::/64', fabric_links_v6: 'fd00:f::/48', gpu_v6: 'fd00:64::/48'}",
    ));
    let s = script(&files, "leaf-su01-01");
    assert!(has(
        &s,
        "nv set vrf default router bgp address-family ipv6-unicast state enabled"
    ));
    assert!(has(
        &s,
        "nv set router policy prefix-list CONNECTED-TO-BGP-V6 type ipv6"
    ));
    assert!(has(
        &s,
        "nv set vrf default router bgp address-family ipv6-unicast redistribute connected route-map CONNECTED-TO-BGP-V6"
    ));
    assert!(values(&s, "interface lo ipv6 address").len() == 1);
    let plain = script(&outputs(&lab()), "leaf-su01-01");
    assert!(
        !plain.contains("ipv6-unicast"),
        "IPv4-only fabrics have no IPv6 family"
    );
}

/// RFC 7938 §5.2 and RFC 6996: with leaf ASN reuse the leaves accept their own ASN once (allowas-in).
#[test]
fn leaf_asn_reuse_allows_the_own_asn_once() {
    let files = outputs(&with(&spx(), "bgp: {reuse_leaf_asns: true}"));
    let s = script(&files, "leaf-su01-01");
    assert!(has(
        &s,
        "nv set vrf default router bgp peer-group fabric address-family ipv4-unicast aspath allow-my-asn state enabled"
    ));
    assert!(has(
        &s,
        "nv set vrf default router bgp peer-group fabric address-family ipv4-unicast aspath allow-my-asn occurrences 1"
    ));
    let plain = script(&outputs(&spx()), "leaf-su01-01");
    assert!(!plain.contains("allow-my-asn"));
}

/// Connected routes reach BGP only through the prefix list built from the plan: the loopback
/// exactly, the host block up to its /31s; the block is announced summary-only.
#[test]
fn redistribution_is_gated_by_the_plan_prefix_list() {
    let spec = lab();
    let files = outputs(&spec);
    let i = intents(&spec);
    let d = &i.devices["leaf-su01-01"];
    let b = d.bgp.as_ref().unwrap();
    let s = script(&files, "leaf-su01-01");
    let matches = values(
        &s,
        "router policy prefix-list CONNECTED-TO-BGP rule 10 match",
    );
    let lo = d.loopback.ipv4.unwrap().to_string();
    assert_eq!(matches, vec![lo]);
    let host_rule = b
        .redistribute
        .iter()
        .find(|r| r.le == Some(31))
        .expect("host block");
    assert!(has(
        &s,
        &format!(
            "nv set router policy prefix-list CONNECTED-TO-BGP rule 20 match {} max-prefix-len 31",
            host_rule.prefix
        )
    ));
    assert!(has(
        &s,
        &format!(
            "nv set vrf default router bgp address-family ipv4-unicast aggregate-route {} summary-only enabled",
            host_rule.prefix
        )
    ));
    assert!(has(
        &s,
        "nv set vrf default router bgp address-family ipv4-unicast redistribute connected route-map CONNECTED-TO-BGP"
    ));
}

// ---------------------------------------------------------------------------------------------
// EVPN-VXLAN tenancy (Cumulus Linux EVPN documentation, Inter-subnet Routing; Juniper JVD for AI data centers with EVPN multitenancy (RoCE over VXLAN)), checked against `tenants/plan.yaml` and the intent.
// ---------------------------------------------------------------------------------------------

fn spx_tenants() -> String {
    inventory("spectrum-x-cloud-tenants.yaml")
}

fn mdx() -> String {
    inventory("mdx-research-cloud.yaml")
}

/// The tenant plan as the program writes it, read back as plain YAML.
fn plan(files: &[railyard::output::OutputFile]) -> serde_json::Value {
    serde_saphyr::from_str(&file(files, "tenants/plan.yaml")).expect("plan.yaml is YAML")
}

fn strings(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|x| x.as_str().expect("a string").to_string())
        .collect()
}

/// Devices with an NVUE script.
fn nvue_devices(files: &[railyard::output::OutputFile]) -> Vec<String> {
    files
        .iter()
        .filter_map(|f| f.path.strip_prefix("configs/"))
        .filter_map(|p| p.strip_suffix("/nv-set.sh"))
        .map(str::to_string)
        .collect()
}

/// Tenant VRFs of a script: those given an L3VNI.
fn tenant_vrfs(script: &str) -> BTreeMap<String, String> {
    nv_set(script)
        .into_iter()
        .filter(|w| w.len() == 5 && w[0] == "vrf" && w[2..4] == ["evpn", "vni"])
        .map(|w| (w[1].clone(), w[4].clone()))
        .collect()
}

/// Every `nv set vrf <name> …` name other than the underlay's and the management VRF's.
fn non_default_vrfs(script: &str, mgmt: &str) -> BTreeSet<String> {
    nv_set(script)
        .into_iter()
        .filter(|w| w.len() > 2 && w[0] == "vrf" && w[1] != "default" && w[1] != mgmt)
        .map(|w| w[1].clone())
        .collect()
}

/// Port → VRF as the script sets it (`interface <port> vrf <name>`), management port excluded.
fn port_vrfs(script: &str, mgmt: &str) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for w in nv_set(script) {
        if w.len() == 4 && w[0] == "interface" && w[2] == "vrf" && w[3] != mgmt {
            m.entry(w[1].clone()).or_default().push(w[3].clone());
        }
    }
    m
}

/// NVIDIA's DGX H100 BasePOD Ethernet fabric demo: a tenant VRF with its L3VNI exists exactly on the leaves carrying the tenant's
/// ports, with the plan's L3VNI, VLAN, per-leaf RD and import/export RTs, in a BGP instance with
/// the leaf's own ASN and router-id.
#[test]
fn tenant_vrfs_exist_only_where_the_plan_puts_their_ports_with_the_plan_values() {
    for spec in [spx_tenants(), mdx()] {
        let files = outputs(&spec);
        let i = intents(&spec);
        let p = plan(&files);
        let tenants = p["tenants"].as_array().expect("tenants");
        assert!(tenants.len() >= 3);
        // Device → the VRFs it must carry, from the plan.
        let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for t in tenants {
            let vrf = t["vrf"].as_str().unwrap();
            let ports = t["ports"].as_object().expect("ports by leaf");
            assert!(!ports.is_empty(), "{vrf} has ports");
            for (leaf, _) in ports {
                want.entry(leaf.clone())
                    .or_default()
                    .insert(vrf.to_string());
                let d = &i.devices[leaf];
                let s = script(&files, leaf);
                let v = |what: &str| values(&s, &format!("vrf {vrf} {what}"));
                if d.evpn.is_none() {
                    // A leaf without BGP (standalone storage leaves) keeps a local VRF, no L3VNI.
                    assert!(has(&s, &format!("nv set vrf {vrf} table auto")), "{leaf}");
                    assert!(v("evpn vni").is_empty(), "{leaf}");
                    assert!(s.contains("runs no BGP"), "{leaf}: the gap is stated");
                    continue;
                }
                assert_eq!(v("evpn vni"), vec![t["l3vni"].to_string()], "{leaf} {vrf}");
                assert_eq!(v("evpn vlan"), vec![t["vlan"].to_string()], "{leaf} {vrf}");
                assert!(has(&s, &format!("nv set vrf {vrf} evpn state enabled")));
                let Some(b) = &d.bgp else {
                    // A leaf without BGP (standalone storage leaves) keeps the VRF local.
                    assert!(v("router bgp autonomous-system").is_empty(), "{leaf}");
                    assert!(s.contains("runs no BGP"), "{leaf}: the gap is stated");
                    continue;
                };
                assert_eq!(v("router bgp autonomous-system"), vec![b.asn.to_string()]);
                assert_eq!(v("router bgp router-id"), vec![b.router_id.to_string()]);
                assert_eq!(
                    v("router bgp rd"),
                    vec![t["rd"][leaf.as_str()].as_str().unwrap().to_string()],
                    "{leaf} {vrf}: RD from the plan"
                );
                let set = |w: Vec<String>| w.into_iter().collect::<BTreeSet<_>>();
                assert_eq!(
                    set(v("router bgp route-import from-evpn route-target")),
                    strings(&t["import"]),
                    "{leaf} {vrf}: import RTs"
                );
                assert_eq!(
                    set(v("router bgp route-export to-evpn route-target")),
                    strings(&t["export"]),
                    "{leaf} {vrf}: export RTs"
                );
                for l in [
                    "router bgp state enabled",
                    "router bgp address-family ipv4-unicast state enabled",
                    "router bgp address-family ipv4-unicast redistribute connected state enabled",
                    "router bgp address-family ipv4-unicast route-export to-evpn state enabled",
                ] {
                    assert!(has(&s, &format!("nv set vrf {vrf} {l}")), "{leaf}: {l}");
                }
            }
        }
        for dev in nvue_devices(&files) {
            let s = script(&files, &dev);
            let mgmt = i.devices[&dev]
                .system
                .mgmt
                .as_ref()
                .map_or("mgmt".to_string(), |m| m.vrf.clone());
            let expected = want.get(&dev).cloned().unwrap_or_default();
            if i.devices[&dev].evpn.is_some() {
                let got: BTreeSet<String> = tenant_vrfs(&s).into_keys().collect();
                assert_eq!(got, expected, "{dev}: tenant VRFs");
            }
            assert_eq!(
                non_default_vrfs(&s, &mgmt),
                expected,
                "{dev}: no other VRF is configured"
            );
        }
    }
}

/// The isolation proof on the rendered script: every port the plan gives a tenant is put in that
/// tenant's VRF, once; no other data port is put in any VRF.
#[test]
fn every_tenant_port_is_in_its_vrf_and_no_other() {
    for spec in [spx_tenants(), mdx()] {
        let files = outputs(&spec);
        let i = intents(&spec);
        let p = plan(&files);
        let mut want: BTreeMap<(String, String), String> = BTreeMap::new();
        for t in p["tenants"].as_array().unwrap() {
            let vrf = t["vrf"].as_str().unwrap();
            for (leaf, ports) in t["ports"].as_object().unwrap() {
                for port in strings(ports) {
                    let prev = want.insert((leaf.clone(), port.clone()), vrf.to_string());
                    assert!(prev.is_none(), "{leaf}:{port} owned twice in the plan");
                }
            }
        }
        let mut got: BTreeMap<(String, String), String> = BTreeMap::new();
        for dev in nvue_devices(&files) {
            let d = &i.devices[&dev];
            let mgmt = d.system.mgmt.as_ref().map_or("mgmt", |m| m.vrf.as_str());
            for (port, vrfs) in port_vrfs(&script(&files, &dev), mgmt) {
                assert_eq!(vrfs.len(), 1, "{dev}:{port} set into {vrfs:?}");
                let intf = d
                    .interfaces
                    .iter()
                    .find(|x| x.name == port)
                    .unwrap_or_else(|| panic!("{dev}:{port} is a cabled port"));
                assert_eq!(
                    intf.kind,
                    InterfaceKind::Host,
                    "{dev}:{port}: only host ports"
                );
                got.insert((dev.clone(), port), vrfs[0].clone());
            }
        }
        assert_eq!(got, want);
        // The startup file says the same (checked in general by the equivalence test; here on
        // one port directly).
        let ((leaf, port), vrf) = want.iter().next().unwrap();
        let y = startup(&files, leaf);
        let tree: BTreeSet<Vec<String>> = startup_paths(&y).into_iter().collect();
        assert!(tree.contains(&vec![
            "interface".to_string(),
            port.clone(),
            "vrf".to_string(),
            vrf.clone()
        ]));
    }
}

/// NVIDIA's DGX H100 BasePOD Ethernet fabric demo: every EVPN switch activates l2vpn-evpn on the default VRF and the fabric peer
/// group; spines only relay (no VTEP, no `evpn state`, no VRF); leaves are VTEPs sourcing VXLAN
/// from the planned VTEP address on the loopback. Switches outside EVPN get none of it.
#[test]
fn spines_relay_evpn_without_vrfs_and_leaves_source_vxlan_from_their_vtep() {
    for spec in [spx_tenants(), mdx()] {
        let files = outputs(&spec);
        let i = intents(&spec);
        let mut spines = 0;
        for dev in nvue_devices(&files) {
            let d = &i.devices[&dev];
            let s = script(&files, &dev);
            let mgmt = d.system.mgmt.as_ref().map_or("mgmt", |m| m.vrf.as_str());
            let af = "nv set vrf default router bgp address-family l2vpn-evpn state enabled";
            let pg = "nv set vrf default router bgp peer-group fabric address-family l2vpn-evpn state enabled";
            let Some(e) = &d.evpn else {
                assert!(!s.contains("evpn"), "{dev}: outside EVPN");
                assert!(!s.contains(" nve "), "{dev}: outside EVPN");
                continue;
            };
            if d.bgp.is_some() {
                assert!(has(&s, af), "{dev}");
                assert!(has(&s, pg), "{dev}");
            }
            match e.vtep {
                None => {
                    assert!(matches!(d.role, Role::Spine | Role::Core), "{dev}");
                    spines += 1;
                    assert!(d.bgp.is_some(), "{dev}: a relay runs BGP");
                    assert!(
                        non_default_vrfs(&s, mgmt).is_empty(),
                        "{dev}: no tenant VRF"
                    );
                    assert!(port_vrfs(&s, mgmt).is_empty(), "{dev}: no port in a VRF");
                    assert!(!s.contains(" nve "), "{dev}: not a VTEP");
                    assert!(!has(&s, "nv set evpn state enabled"), "{dev}");
                }
                Some(vtep) => {
                    assert!(has(&s, "nv set evpn state enabled"), "{dev}");
                    assert!(has(&s, "nv set nve vxlan state enabled"), "{dev}");
                    assert_eq!(
                        values(&s, "nve vxlan source address"),
                        vec![vtep.addr().to_string()],
                        "{dev}"
                    );
                    assert!(
                        values(&s, "interface lo ipv4 address").contains(&vtep.to_string()),
                        "{dev}: the VTEP address is on the loopback"
                    );
                }
            }
        }
        assert!(spines >= 2, "spines checked");
    }
    // No tenants, no EVPN.
    let lab_files = outputs(&lab());
    for dev in nvue_devices(&lab_files) {
        let s = script(&lab_files, &dev);
        assert!(!s.contains("evpn") && !s.contains(" nve "), "{dev}");
    }
}

/// Issue 4 / Juniper JVD for AI data centers with EVPN multitenancy (RoCE over VXLAN): RoCE QoS still applies inside VXLAN — the VTEP copies the inner DSCP to
/// the outer header (NVUE's default `derive` would take it from the switch priority) and keeps
/// the inner DSCP on decapsulation, so the spines classify RoCE and CNPs by the same DSCP.
#[test]
fn vteps_copy_the_roce_dscp_into_the_vxlan_header() {
    let files = outputs(&spx_tenants());
    let s = script(&files, "leaf-su01-01");
    assert!(has(&s, "nv set nve vxlan encapsulation dscp action copy"));
    assert!(has(
        &s,
        "nv set nve vxlan decapsulation dscp action preserve"
    ));
    assert!(has(
        &s,
        "nv set qos mapping default-global dscp 26 switch-priority 3"
    ));
    let spine = script(&files, "spine01");
    assert!(!spine.contains("dscp action"), "no tunnel on a relay");
    assert!(has(&spine, "nv set qos mapping default-global trust l3"));
}

/// Leaf ASN reuse: EVPN routes from another leaf carrying the same ASN must be accepted in the
/// l2vpn-evpn family as well as in the unicast one.
#[test]
fn leaf_asn_reuse_also_allows_the_own_asn_in_evpn() {
    let files = outputs(&with(&spx_tenants(), "bgp: {reuse_leaf_asns: true}"));
    let s = script(&files, "leaf-su01-01");
    for l in [
        "nv set vrf default router bgp peer-group fabric address-family l2vpn-evpn aspath allow-my-asn state enabled",
        "nv set vrf default router bgp peer-group fabric address-family l2vpn-evpn aspath allow-my-asn occurrences 1",
    ] {
        assert!(has(&s, l), "missing: {l}");
    }
}

/// The tenant variants through the same setting-by-setting comparison of the two files, and bash.
#[test]
fn tenant_specs_keep_nv_set_and_startup_yaml_equal() {
    let variants = [
        spx_tenants(),
        mdx(),
        with(&spx_tenants(), "bgp: {reuse_leaf_asns: true}"),
    ];
    let checked: usize = variants
        .iter()
        .map(|spec| assert_same_settings("tenants", &outputs(spec)))
        .sum();
    assert!(checked >= 2 * 22 + 13, "only {checked} devices compared");
    let Some(bash) = prereq::program(
        "tenant_specs_keep_nv_set_and_startup_yaml_equal",
        "bash",
        "bash",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let files = outputs(&spx_tenants());
    for dev in ["leaf-su01-01", "spine01", "stor-leaf01"] {
        let p = dir.path().join(format!("{dev}.sh"));
        std::fs::write(&p, script(&files, dev)).unwrap();
        let out = std::process::Command::new(&bash)
            .arg("-n")
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{dev}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Issue 12, OOB switches on NVUE (the SN2201's own OS): every management and BMC cable lands on
/// an access port in the VLAN that addresses.csv gives the device at its other end; each OOB
/// switch's VLAN interface holds its own address from addresses.csv with a default route to that
/// subnet's gateway; its uplink is a trunk tagged in every VLAN it carries; the gateway holds the
/// first address of every management subnet. Checked on the cabling plan and the address plan,
/// not on the intent.
#[test]
fn oob_switches_bridge_the_management_vlans() {
    let files = outputs(&lab());
    let csv = |path: &str| csv_rows(&files, path);
    // (device, interface) → (address, gateway, vlan) from `gateway <ip> vlan <id>`.
    let mut mgmt: BTreeMap<(String, String), (String, String, String)> = BTreeMap::new();
    let mut gateway_addrs = BTreeSet::new();
    for r in csv("addresses.csv") {
        let words: Vec<&str> = r[6].split_whitespace().collect();
        match (r[4].as_str(), words.as_slice()) {
            ("mgmt" | "bmc", ["gateway", gw, "vlan", vlan]) => {
                mgmt.insert(
                    (r[0].clone(), r[1].clone()),
                    (r[2].clone(), gw.to_string(), vlan.to_string()),
                );
            }
            ("mgmt-gateway", _) => {
                gateway_addrs.insert(r[2].clone());
            }
            _ => {}
        }
    }
    assert!(
        !gateway_addrs.is_empty(),
        "the gateway's addresses are in the plan"
    );
    let set = |dev: &str| -> BTreeSet<String> {
        nv_set(&script(&files, dev))
            .into_iter()
            .map(|w| format!("nv set {}", w.join(" ")))
            .collect()
    };
    let mut access_ports = 0;
    for r in csv("cabling.csv") {
        let (a, ap, b, bp, tier) = (&r[2], &r[3], &r[4], &r[5], &r[10]);
        let lines = set(b);
        match tier.as_str() {
            "mgmt" => {
                let (_, _, vlan) = &mgmt[&(a.clone(), ap.clone())];
                let want = format!("nv set interface {bp} bridge domain br_default access {vlan}");
                assert!(lines.contains(&want), "{b}: {want}");
                access_ports += 1;
            }
            "oob-uplink" => {
                // The OOB switch's trunk carries every VLAN it has an access port in.
                let own = set(a);
                let vlans: BTreeSet<&str> = own
                    .iter()
                    .filter_map(|l| l.split(" bridge domain br_default access ").nth(1))
                    .collect();
                assert!(!vlans.is_empty(), "{a}");
                for v in vlans {
                    for (dev, port) in [(a, ap), (b, bp)] {
                        let want =
                            format!("nv set interface {port} bridge domain br_default vlan {v}");
                        assert!(set(dev).contains(&want), "{dev}: {want}");
                    }
                }
                // Its own management address on the VLAN interface, and its default route.
                let (own_if, (addr, gw, vlan)) = mgmt
                    .iter()
                    .find(|((d, _), _)| d == a)
                    .map(|((_, i), v)| (i.clone(), v.clone()))
                    .unwrap_or_else(|| panic!("{a} has a management address"));
                assert_eq!(own_if, format!("vlan{vlan}"));
                for want in [
                    format!("nv set interface {own_if} type svi"),
                    format!("nv set interface {own_if} vlan {vlan}"),
                    format!("nv set interface {own_if} ipv4 address {addr}"),
                    format!("nv set vrf default router static 0.0.0.0/0 via {gw}"),
                ] {
                    assert!(own.contains(&want), "{a}: {want}");
                }
                // The gateway holds each subnet's first address on that VLAN's interface.
                let gw_lines = set(b);
                for g in &gateway_addrs {
                    assert!(
                        gw_lines
                            .iter()
                            .any(|l| l.ends_with(&format!("ipv4 address {g}"))),
                        "{b}: {g}"
                    );
                }
            }
            _ => {}
        }
    }
    assert!(access_ports >= 6, "{access_ports} management cables");
}

// ---------------------------------------------------------------------------------------------
// BGP hardening (docs/bgp.md; RFC 4724, RFC 2385, RFC 5082; Cumulus Linux "Optional BGP
// Configuration": graceful restart, maximum prefixes, TTL security, MD5 authentication).
// ---------------------------------------------------------------------------------------------

const PG: &str = "vrf default router bgp peer-group fabric";

/// Spectrum-X cloud: 8 spines × 128 ports ÷ 64 uplinks per leaf = 16 leaves at full build-out,
/// each announcing 2 prefixes (loopback, host aggregate), plus 8 spine loopbacks = 40 prefixes;
/// the default 100 % margin makes the limit 80 on every fabric session, leaf and spine alike.
#[test]
fn fabric_sessions_are_hardened_with_limits_sized_from_the_build_out() {
    let spec = spx();
    let files = outputs(&spec);
    let i = intents(&spec);
    for dev in ["leaf-su01-01", "spine01"] {
        let s = script(&files, dev);
        let limits = format!("{PG} address-family ipv4-unicast prefix-limits inbound");
        assert_eq!(values(&s, &format!("{limits} maximum")), ["80"], "{dev}");
        assert_eq!(values(&s, &format!("{limits} warning-threshold")), ["80"]);
        assert_eq!(values(&s, &format!("{limits} reestablish-wait")), ["5"]);
        assert_eq!(
            values(&s, "router bgp graceful-restart mode"),
            ["helper-only"]
        );
        assert_eq!(
            values(&s, "router bgp graceful-restart restart-time"),
            ["120"]
        );
        assert_eq!(
            values(&s, "router bgp graceful-restart stale-routes-time"),
            ["360"]
        );
        assert!(values(&s, &format!("{PG} password")).is_empty());
    }
    // A leaf announces only its loopback and host aggregate; a spine is transit and unfiltered.
    let leaf = script(&files, "leaf-su01-01");
    assert_eq!(
        values(
            &leaf,
            &format!("{PG} address-family ipv4-unicast policy outbound route-map")
        ),
        ["FABRIC-OUT"]
    );
    let d = &i.devices["leaf-su01-01"];
    let mut want = vec![d.loopback.ipv4.unwrap().to_string()];
    want.extend(
        d.bgp
            .as_ref()
            .unwrap()
            .aggregates
            .iter()
            .map(|a| a.to_string()),
    );
    assert_eq!(
        list_matches(&leaf, "FABRIC-OUT"),
        want.into_iter().collect::<BTreeSet<_>>()
    );
    let spine = script(&files, "spine01");
    assert!(!spine.contains("FABRIC-OUT"));
}

/// `bgp.auth_env` puts a placeholder in the config, never a value; the script refuses to run
/// while the variable is unset and hands NVUE the value when it is set (run under bash with `nv`
/// replaced by a function that records its arguments).
#[test]
fn session_password_is_a_placeholder_the_script_expands_and_gtsm_is_one_hop() {
    let spec = with(
        &lab(),
        "bgp: {auth_env: BGP_FABRIC_PASSWORD, gtsm: true, graceful_restart: full, max_prefix: {action: warning-only}}",
    );
    let files = outputs(&spec);
    let s = script(&files, "leaf-su01-01");
    assert_eq!(
        values(&s, &format!("{PG} password")),
        ["${BGP_FABRIC_PASSWORD}"]
    );
    assert!(has(
        &s,
        &format!("nv set {PG} password \"${{BGP_FABRIC_PASSWORD}}\"")
    ));
    assert_eq!(values(&s, &format!("{PG} ttl-security hops")), ["1"]);
    assert_eq!(values(&s, &format!("{PG} ttl-security state")), ["enabled"]);
    assert_eq!(values(&s, "router bgp graceful-restart mode"), ["full"]);
    let limits = format!("{PG} address-family ipv4-unicast prefix-limits inbound");
    assert_eq!(values(&s, &format!("{limits} warning-only")), ["enabled"]);
    assert!(values(&s, &format!("{limits} reestablish-wait")).is_empty());
    let y = startup(&files, "leaf-su01-01");
    assert!(y.contains("password: ${BGP_FABRIC_PASSWORD}"), "{y}");
    assert!(!y.contains("hunter2") && !s.contains("hunter2"));

    if prereq::program(
        "session_password_is_a_placeholder_the_script_expands_and_gtsm_is_one_hop",
        "bash",
        "bash",
    )
    .is_none()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nv-set.sh");
    std::fs::write(&path, &s).unwrap();
    std::fs::write(dir.path().join("startup.yaml"), &y).unwrap();
    let run = |password: Option<&str>| {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c")
            .arg(r#"nv() { printf '%s\n' "$*"; }; export -f nv; bash "$0""#)
            .arg(&path)
            .env_remove("BGP_FABRIC_PASSWORD");
        if let Some(p) = password {
            cmd.env("BGP_FABRIC_PASSWORD", p);
        }
        cmd.output().unwrap()
    };
    let unset = run(None);
    assert!(!unset.status.success());
    assert!(unset.stdout.is_empty(), "nothing is set before the check");
    assert!(String::from_utf8_lossy(&unset.stderr).contains("export BGP_FABRIC_PASSWORD"));
    let set = run(Some("hunter2 with spaces"));
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let out = String::from_utf8(set.stdout).unwrap();
    assert!(
        out.lines()
            .any(|l| l == format!("set {PG} password hunter2 with spaces"))
    );
    assert!(out.lines().last() == Some("config apply --assume-yes"));
}

/// The prefixes a prefix list's rules match (`router policy prefix-list <name> rule <n> match <p>`).
fn list_matches(script: &str, list: &str) -> BTreeSet<String> {
    nv_set(script)
        .into_iter()
        .filter(|w| {
            w.len() >= 8 && w[..4] == ["router", "policy", "prefix-list", list] && w[6] == "match"
        })
        .map(|w| w[7].clone())
        .collect()
}

/// In a tenant build each tenant VRF announces its own ports' aggregate and lets in only its own
/// host links; the default VRF's lists name none of them (docs/bgp.md, RY0710).
#[test]
fn tenant_vrfs_aggregate_and_filter_their_own_prefixes() {
    let spec = spx_tenants();
    let files = outputs(&spec);
    let i = intents(&spec);
    let mut seen = 0;
    for d in i.devices.values().filter(|d| !d.vrfs.is_empty()) {
        let s = script(&files, &d.hostname);
        for v in &d.vrfs {
            let base = format!("vrf {} router bgp address-family ipv4-unicast", v.name);
            let aggs: BTreeSet<String> = nv_set(&s)
                .into_iter()
                .filter(|w| w.join(" ").starts_with(&format!("{base} aggregate-route ")))
                .map(|w| w[7].clone())
                .collect();
            let want: BTreeSet<String> = v.aggregates.iter().map(|a| a.to_string()).collect();
            assert_eq!(aggs, want, "{} {}", d.hostname, v.name);
            assert!(!want.is_empty());
            let map = format!("CONNECTED-TO-BGP-{}", v.name);
            assert_eq!(
                values(&s, &format!("{base} redistribute connected route-map")),
                std::slice::from_ref(&map)
            );
            let listed = list_matches(&s, &map);
            let want: BTreeSet<String> = v
                .redistribute
                .iter()
                .map(|r| r.prefix.to_string())
                .collect();
            assert_eq!(listed, want);
            // The default VRF's lists never name a tenant subnet.
            for agg in &v.aggregates {
                for list in ["CONNECTED-TO-BGP", "FABRIC-OUT"] {
                    let hit = list_matches(&s, list)
                        .iter()
                        .filter_map(|p| p.parse::<IpNet>().ok())
                        .any(|n| agg.contains(&n));
                    assert!(!hit, "{} {list} names {agg}", d.hostname);
                }
            }
            seen += 1;
        }
    }
    assert!(seen >= 4, "tenant VRFs checked: {seen}");
}

/// Issue 27: `nv-set.sh` applies the whole tree as one revision, `nv config replace
/// <startup.yaml>` + `nv config apply` (Cumulus Linux NVUE-CLI page: "Replaces the pending
/// configuration with the specified YAML configuration file"), instead of one NVUE request per
/// `nv set` line; the secrets, placeholders in `startup.yaml`, are filled into the pending
/// revision in between; `--nv-set` still runs the readable lines. Run under bash with `nv`
/// replaced by a function that records its words.
#[test]
fn nv_set_sh_applies_startup_yaml_in_one_replace_and_fills_the_secrets() {
    let test = "nv_set_sh_applies_startup_yaml_in_one_replace_and_fills_the_secrets";
    if prereq::program(test, "bash", "bash").is_none() {
        return;
    }
    let spec = with(
        &lab(),
        "bgp: {auth_env: BGP_FABRIC_PASSWORD}\nservices: {snmp_traps: [192.0.2.162]}",
    );
    let files = outputs(&spec);
    let dev = "leaf-su01-01";
    let (s, y) = (script(&files, dev), startup(&files, dev));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nv-set.sh"), &s).unwrap();
    std::fs::write(dir.path().join("startup.yaml"), &y).unwrap();
    let run = |args: &[&str]| -> Vec<Vec<String>> {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(r#"nv() { local IFS=$'\x1f'; printf '%s\n' "$*"; }; export -f nv; bash "$@""#)
            .arg("run")
            .arg(dir.path().join("nv-set.sh"))
            .args(args)
            .current_dir("/")
            .env("BGP_FABRIC_PASSWORD", "pw with 'quote'")
            .env("SNMP_TRAP_COMMUNITY", "comm $x")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\x1f').map(str::to_string).collect())
            .collect()
    };
    let calls = run(&[]);
    let file = dir.path().join("startup.yaml");
    assert_eq!(
        calls[0],
        ["config", "replace", file.to_str().unwrap()],
        "{calls:?}"
    );
    assert_eq!(calls.last().unwrap(), &["config", "apply", "--assume-yes"]);
    let lines = nv_set(&s);
    assert!(
        lines.len() > 100 && calls.len() <= 6,
        "{} calls",
        calls.len()
    );
    // Between them, only the secrets: each set path is a startup.yaml path with the value for
    // the placeholder, and an unset removes a placeholder identifier startup.yaml has.
    let paths = startup_paths(&y);
    let mut filled = BTreeSet::new();
    for c in &calls[1..calls.len() - 1] {
        let (verb, path) = c.split_first().unwrap();
        let secret = |w: &String| w == "pw with 'quote'" || w == "comm $x";
        let as_written: Vec<String> = path
            .iter()
            .map(|w| match w.as_str() {
                "pw with 'quote'" => "${BGP_FABRIC_PASSWORD}".to_string(),
                "comm $x" => "${SNMP_TRAP_COMMUNITY}".to_string(),
                _ => w.clone(),
            })
            .collect();
        match verb.as_str() {
            "set" => {
                assert!(path.iter().any(secret), "{c:?}");
                assert!(paths.contains(&as_written), "{c:?} is no startup.yaml path");
                filled.extend(path.iter().filter(|w| secret(w)).cloned());
            }
            "unset" => {
                assert!(path.last().unwrap().starts_with("${"), "{c:?}");
                assert!(paths.iter().any(|p| p.starts_with(path)), "{c:?}");
            }
            _ => panic!("unexpected {c:?}"),
        }
    }
    assert_eq!(filled.len(), 2, "both secrets: {calls:?}");
    // The readable form runs every line, then applies.
    let slow = run(&["--nv-set"]);
    assert_eq!(slow.len(), lines.len() + 1);
    assert!(slow[..lines.len()].iter().all(|c| c[0] == "set"));
    // Without startup.yaml beside it, the script stops before touching NVUE.
    std::fs::remove_file(&file).unwrap();
    let out = std::process::Command::new("bash")
        .arg(dir.path().join("nv-set.sh"))
        .env("BGP_FABRIC_PASSWORD", "x")
        .env("SNMP_TRAP_COMMUNITY", "x")
        .output();
    let out = out.unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no startup.yaml"));
}

/// Issue 27, `ipv6-nexthop-prefer-global` (Cumulus Linux adaptive-routing page, "IPv6 Next Hop
/// Preference": for parallel peerings to one router with adaptive routing on). A Spectrum-X leaf
/// has parallel sessions to each spine on one cage's split ports, all unnumbered, over interfaces
/// with no global IPv6 address: FRR then sends its link-local address as both the global and the
/// link-local next hop (FRRouting/frr bgpd/bgp_zebra.c `bgp_nexthop_set`), so preferring the
/// global one selects the same address on the same interface, and railyard writes no such route
/// map (`docs/platforms.md`). This pins the premise: should an AR fabric ever peer numbered or
/// carry global IPv6 on its links, this fails and the decision must be revisited.
#[test]
fn parallel_ar_sessions_are_unnumbered_so_prefer_global_has_nothing_to_select() {
    let spec = spx();
    let files = outputs(&spec);
    let i = intents(&spec);
    let mut parallel = 0;
    for d in i.devices.values().filter(|d| d.role == Role::Leaf) {
        let s = script(&files, &d.hostname);
        assert!(has(&s, "nv set router adaptive-routing state enabled"));
        let b = d.bgp.as_ref().expect("bgp");
        assert!(b.unnumbered, "{}", d.hostname);
        let mut per_peer: BTreeMap<&str, usize> = BTreeMap::new();
        for n in &b.neighbors {
            *per_peer.entry(n.peer_device.as_str()).or_default() += 1;
            assert!(
                has(
                    &s,
                    &format!("nv set {PG_NEIGHBOR} {} type unnumbered", n.interface)
                ),
                "{} {}",
                d.hostname,
                n.interface
            );
        }
        parallel += per_peer.values().filter(|&&c| c > 1).count();
        for x in d
            .interfaces
            .iter()
            .filter(|x| x.kind == InterfaceKind::Fabric)
        {
            assert!(x.ipv6.is_none(), "{} {}: a global IPv6", d.hostname, x.name);
        }
        assert!(!startup(&files, &d.hostname).contains("ipv6-nexthop-prefer-global"));
    }
    assert!(parallel > 0, "the premise: parallel sessions to one spine");
}

const PG_NEIGHBOR: &str = "vrf default router bgp neighbor";

/// Issue 27: the case the Cumulus Linux advice is for. With global IPv6 addresses on the fabric
/// links (`addressing.fabric_links_v6`), FRR sends the link's global address beside the
/// link-local one (FRRouting/frr bgpd/bgp_zebra.c `bgp_nexthop_set`) and installs the
/// link-local one unless told otherwise; every switch running adaptive routing with parallel
/// sessions to one neighbour then prefers the global next hop on everything it learns from the
/// fabric (route map `set ipv6-nexthop-prefer-global enabled`, applied inbound on the unicast
/// families; NVUE reference, route-map `set ipv6-nexthop-prefer-global`). Without adaptive
/// routing (lab-small) nothing changes.
#[test]
fn global_ipv6_links_under_adaptive_routing_prefer_the_global_next_hop() {
    const V6: &str = "addressing: {fabric_links_v6: 'fd00:f::/48'}";
    let spec = with(&spx(), V6);
    let files = outputs(&spec);
    let i = intents(&spec);
    let map = "router policy route-map FABRIC-IN-PREFER-GLOBAL rule 10";
    let mut checked = 0;
    for d in i
        .devices
        .values()
        .filter(|d| matches!(d.role, Role::Leaf | Role::Spine))
    {
        let s = script(&files, &d.hostname);
        assert!(has(&s, "nv set router adaptive-routing state enabled"));
        assert!(
            has(&s, &format!("nv set {map} action permit")),
            "{}",
            d.hostname
        );
        assert!(has(
            &s,
            &format!("nv set {map} set ipv6-nexthop-prefer-global enabled")
        ));
        let inbound = values(
            &s,
            &format!("{PG} address-family ipv4-unicast policy inbound route-map"),
        );
        assert_eq!(inbound, ["FABRIC-IN-PREFER-GLOBAL"], "{}", d.hostname);
        // Not on EVPN, whose next hops are VTEP addresses.
        assert!(
            values(
                &s,
                &format!("{PG} address-family l2vpn-evpn policy inbound route-map")
            )
            .is_empty()
        );
        checked += 1;
    }
    assert_eq!(checked, 12 + 8);
    let lab_files = outputs(&with(&lab(), V6));
    for d in ["leaf-su01-01", "spine01"] {
        assert!(!script(&lab_files, d).contains("prefer-global"), "{d}");
    }
}
