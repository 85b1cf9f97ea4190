//! Addressing, intent and switch configs, checked against the reference facts (NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture,
//! §2, §3, §4) — the expected values are the published ones, not the program's output — plus the
//! real FRR parser on every generated FRR configuration.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use common::*;
use railyard::diag::SourceFile;
use railyard::intent::{DeviceIntent, Intents, InterfaceKind, QosMode};
use railyard::model::{Network, Role};

fn with(base: &str, extra: &str) -> String {
    format!("{base}\n{extra}\n")
}

fn spx(sus: u32) -> String {
    inventory("spectrum-x-cloud.yaml").replace("count: 3", &format!("count: {sus}"))
}

fn role(i: &Intents, r: Role) -> Vec<&DeviceIntent> {
    i.devices.values().filter(|d| d.role == r).collect()
}

#[test]
fn spectrum_x_leaf_peers_with_every_spine_and_ecmp_spans_all_uplinks() {
    let i = intents(&spx(3));
    let spines: BTreeSet<&str> = role(&i, Role::Spine)
        .iter()
        .map(|d| d.hostname.as_str())
        .collect();
    assert_eq!(
        spines.len(),
        8,
        "NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture: 8 SN5600 spines"
    );
    for leaf in role(&i, Role::Leaf) {
        let bgp = leaf.bgp.as_ref().expect("leaf runs BGP");
        let peers: BTreeSet<&str> = bgp
            .neighbors
            .iter()
            .map(|n| n.peer_device.as_str())
            .collect();
        assert_eq!(
            peers, spines,
            "{} must peer with every spine",
            leaf.hostname
        );
        // NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture: 32 cages split 2×400G = 64 uplinks per leaf, 8 per spine, one session each.
        assert_eq!(bgp.neighbors.len(), 64, "{}", leaf.hostname);
        assert_eq!(
            bgp.maximum_paths, 64,
            "ECMP width = uplinks ({})",
            leaf.hostname
        );
        assert!(bgp.multipath_relax);
        let host_ports = leaf
            .interfaces
            .iter()
            .filter(|x| x.kind == InterfaceKind::Host)
            .count();
        assert_eq!(host_ports, 64, "2 rails × 32 nodes per leaf");
    }
    for spine in role(&i, Role::Spine) {
        let bgp = spine.bgp.as_ref().unwrap();
        // 3 SUs × 4 leaves × 8 links per leaf-spine pair.
        assert_eq!(bgp.neighbors.len(), 96);
        assert_eq!(bgp.maximum_paths, 8, "the widest bundle to one leaf");
    }
}

#[test]
fn asns_follow_rfc7938_unique_leaves_shared_spines() {
    let i = intents(&spx(3));
    let leaf_asns: Vec<u64> = role(&i, Role::Leaf)
        .iter()
        .map(|d| d.bgp.as_ref().unwrap().asn)
        .collect();
    let unique: BTreeSet<u64> = leaf_asns.iter().copied().collect();
    assert_eq!(unique.len(), leaf_asns.len(), "one ASN per leaf");
    let spine_asns: BTreeSet<u64> = role(&i, Role::Spine)
        .iter()
        .map(|d| d.bgp.as_ref().unwrap().asn)
        .collect();
    assert_eq!(spine_asns.len(), 1, "one ASN per spine group");
    // RFC 6996 4-byte private range.
    for a in unique.iter().chain(&spine_asns) {
        assert!((4_200_000_000..=4_294_967_294).contains(a), "{a}");
    }
    assert!(unique.is_disjoint(&spine_asns));
    // Every session's remote ASN is the peer's own ASN.
    for d in i.devices.values().filter(|d| d.network == Network::Compute) {
        for n in &d.bgp.as_ref().unwrap().neighbors {
            assert_eq!(
                n.remote_asn,
                i.devices[&n.peer_device].bgp.as_ref().unwrap().asn
            );
        }
    }
}

#[test]
fn leaf_asn_reuse_repeats_per_su_with_allowas_in() {
    let i = intents(&with(&spx(3), "bgp: {reuse_leaf_asns: true}"));
    let mut by_index: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for l in role(&i, Role::Leaf) {
        let b = l.bgp.as_ref().unwrap();
        assert!(b.allowas_in, "RFC 7938 §5.2.2 needs allowas-in");
        let idx = l.hostname.rsplit('-').next().unwrap().to_string();
        by_index.entry(idx).or_default().insert(b.asn);
    }
    assert_eq!(by_index.len(), 4);
    assert!(by_index.values().all(|s| s.len() == 1), "{by_index:?}");
}

#[test]
fn roce_qos_is_the_nvidia_lossless_profile() {
    let i = intents(&spx(3));
    for d in i.devices.values().filter(|d| d.network == Network::Compute) {
        let q = d
            .qos
            .as_ref()
            .expect("compute switches carry the RoCE class");
        assert_eq!(q.mode, QosMode::Lossless);
        assert_eq!(
            (q.roce.dscp, q.roce.priority, q.roce.traffic_class),
            (26, 3, 3),
            "NVIDIA Cumulus Linux RoCE documentation"
        );
        assert_eq!((q.cnp.dscp, q.cnp.priority), (48, 6));
        assert_eq!(q.pfc_priorities, vec![3], "PFC on priority 3 only");
        assert_eq!(q.strict_traffic_classes, vec![6], "CNP strict");
        assert_eq!(
            (q.ecn.min_bytes, q.ecn.max_bytes, q.ecn.probability),
            (150_000, 1_500_000, 100)
        );
        let w: BTreeMap<u8, u8> = q.ets.iter().map(|e| (e.traffic_class, e.weight)).collect();
        assert_eq!(w, BTreeMap::from([(0, 50), (3, 50)]));
        let wd = q.pfc_watchdog.as_ref().unwrap();
        assert_eq!((wd.detection_ms, wd.restoration_ms), (200, 200));
        assert_eq!(
            q.ports.len(),
            d.interfaces.len(),
            "every data port is lossless"
        );
    }
    // Storage and in-band switches are not in the RoCE class.
    assert!(
        i.devices
            .values()
            .filter(|d| d.network != Network::Compute)
            .all(|d| d.qos.is_none())
    );
}

#[test]
fn lossy_mode_drops_pfc_but_keeps_ecn() {
    let i = intents(&with(
        &spx(3),
        "roce: {mode: lossy, ecn_min_bytes: 40000, ecn_max_bytes: 200000}",
    ));
    let q = role(&i, Role::Leaf)[0].qos.as_ref().unwrap();
    assert_eq!(q.mode, QosMode::Lossy);
    assert!(q.pfc_priorities.is_empty() && q.pfc_watchdog.is_none());
    assert_eq!((q.ecn.min_bytes, q.ecn.max_bytes), (40_000, 200_000));
}

#[test]
fn adaptive_routing_on_spectrum4_fabric_ports_only() {
    let i = intents(&spx(3));
    for d in i.devices.values().filter(|d| d.network == Network::Compute) {
        for x in &d.interfaces {
            // NVUE reference, Adaptive Routing: Spectrum-4, 400G, routed fabric ports; not host ports.
            assert_eq!(
                x.adaptive_routing,
                x.kind == InterfaceKind::Fabric,
                "{}:{}",
                d.hostname,
                x.name
            );
        }
    }
    // Spectrum-3 (the lab's SN4600C) gets none.
    let lab = intents(&inventory("lab-small.yaml"));
    assert!(lab.devices.values().all(|d| d.adaptive_routing.is_none()));
    let off = intents(&with(&spx(3), "roce: {adaptive_routing: disabled}"));
    assert!(off.devices.values().all(|d| d.adaptive_routing.is_none()));
}

/// RY0707: AR is each switch's choice on its own egress ports (NVUE reference, Adaptive
/// Routing); a SONiC leaf under NVUE spines hashes its uplinks. One warning for the fabric, at
/// the `platforms` entry that chose SONiC, naming both sides; none on a uniform fabric or when
/// the design turns AR off.
#[test]
fn adaptive_routing_on_part_of_the_fabric_is_one_located_warning() {
    fn mixed(text: &str) -> Vec<railyard::diag::Diagnostic> {
        let c = railyard::compile(&SourceFile::new("spec.yaml", text));
        assert!(c.design.is_some(), "compiles");
        c.diagnostics
            .sorted()
            .into_iter()
            .filter(|d| d.code.id == "RY0707")
            .cloned()
            .collect()
    }
    assert!(mixed(&spx(3)).is_empty(), "all-NVUE Spectrum-X");
    let spec = with(&spx(3), "platforms: {leaf: sonic, spine: nvue}");
    let found = mixed(&spec);
    assert_eq!(found.len(), 1, "{found:?}");
    let i = intents(&spec);
    let (leaves, spines) = (role(&i, Role::Leaf).len(), role(&i, Role::Spine).len());
    let m = &found[0].message;
    assert!(
        m.contains(&format!("runs on {spines} compute switch(es)")),
        "{m}"
    );
    assert!(m.contains(&format!("not on {leaves} other(s)")), "{m}");
    assert!(m.contains(&format!("and {} more", leaves - 3)), "{m}");
    assert!(m.contains("`sonic`"), "{m}");
    let span = found[0].span.expect("located");
    let at = usize::try_from(span.start).unwrap();
    assert!(
        spec[at..].starts_with("sonic"),
        "points at the leaf's platform"
    );
    let off = with(&spec, "roce: {adaptive_routing: disabled}");
    assert!(
        mixed(&off).is_empty(),
        "AR off is an explicit hash-only design"
    );
}

#[test]
fn host_ports_are_routed_31s_nic_even_switch_odd_inside_the_leaf_block() {
    let i = intents(&spx(3));
    let mut seen = BTreeSet::new();
    for leaf in role(&i, Role::Leaf) {
        let block = leaf.bgp.as_ref().unwrap().aggregates[0];
        assert_eq!(
            block.prefix_len(),
            25,
            "64 host ports (2 rails × 32 nodes) × 2 addresses = a /25"
        );
        for x in leaf
            .interfaces
            .iter()
            .filter(|x| x.kind == InterfaceKind::Host)
        {
            let p = x.ipv4.expect("host ports are numbered");
            assert_eq!(p.prefix_len(), 31);
            assert!(block.contains(&p.addr()));
            let IpAddr::V4(a) = p.addr() else { panic!() };
            assert_eq!(
                u32::from(a) % 2,
                1,
                "NVIDIA's DGX H100 BasePOD Ethernet fabric demo (NVIDIA Air; github.com/berkinkartal/cumulus_ansible_modules): switch .1, NIC .0"
            );
            assert!(seen.insert(a), "address {a} used twice");
        }
        // Unnumbered by default: no IPv4 on fabric links (RFC 5549).
        assert!(
            leaf.interfaces
                .iter()
                .filter(|x| x.kind == InterfaceKind::Fabric)
                .all(|x| x.ipv4.is_none())
        );
    }
    let first = &i.devices["leaf-su01-01"];
    assert_eq!(
        first.bgp.as_ref().unwrap().aggregates[0].to_string(),
        "10.64.0.0/25"
    );
    assert_eq!(
        i.devices["leaf-su01-02"].bgp.as_ref().unwrap().aggregates[0].to_string(),
        "10.64.0.128/25"
    );
    assert_eq!(
        i.devices["leaf-su02-01"].bgp.as_ref().unwrap().aggregates[0].to_string(),
        "10.64.2.0/25"
    );
    assert_eq!(first.loopback.ipv4.unwrap().to_string(), "10.0.0.1/32");
}

#[test]
fn numbered_fabric_links_agree_on_both_ends() {
    let i = intents(&with(
        &spx(3),
        "addressing: {fabric_links: 192.168.0.0/16, fabric_links_v6: 'fd00:f::/48', loopbacks_v6: 'fd00:1::/64'}",
    ));
    let mut sessions = 0;
    for d in i.devices.values().filter(|d| d.network == Network::Compute) {
        let b = d.bgp.as_ref().unwrap();
        assert!(!b.unnumbered);
        for n in &b.neighbors {
            let peer = &i.devices[&n.peer_device];
            let pif = peer
                .interfaces
                .iter()
                .find(|x| x.name == n.peer_port)
                .unwrap();
            let mine = d.interfaces.iter().find(|x| x.name == n.interface).unwrap();
            let (a, b) = (mine.ipv4.unwrap(), pif.ipv4.unwrap());
            assert_eq!(Some(b.addr()), n.address);
            assert_eq!(a.network(), b.network(), "one /31 per link");
            assert_ne!(a.addr(), b.addr());
            assert_eq!(mine.ipv6.unwrap().prefix_len(), 127);
            sessions += 1;
        }
        assert!(d.loopback.ipv6.is_some());
    }
    assert_eq!(
        sessions,
        2 * 3 * 4 * 64,
        "every leaf-spine link counted from both ends"
    );
}

#[test]
fn growing_spectrum_x_by_one_su_renumbers_nothing() {
    for extra in [
        "",
        "platforms: {default: frr}",
        "platforms: {default: sonic}",
    ] {
        let three = outputs(&with(&spx(3), extra));
        let four = outputs(&with(&spx(4), extra));
        let map = |v: &[railyard::output::OutputFile]| -> BTreeMap<String, String> {
            v.iter()
                .filter(|f| f.path.starts_with("configs/") || f.path.starts_with("intent/"))
                .map(|f| (f.path.clone(), String::from_utf8(f.bytes.clone()).unwrap()))
                .collect()
        };
        let (a, b) = (map(&three), map(&four));
        assert!(a.len() < b.len());
        for (path, text) in &a {
            let new = b.get(path).unwrap_or_else(|| panic!("{path} vanished"));
            if path.contains("/leaf-su") {
                // A compute leaf of an existing SU: not one byte may change.
                let first = text.lines().zip(new.lines()).position(|(a, b)| a != b);
                assert!(
                    text == new,
                    "{path} changed when an SU was added ({extra}); first differing line {first:?}"
                );
            } else if path.ends_with("/config_db.json") {
                // SONiC writes every port of a switch, cabled or not: a port the new SU cables
                // changes its row (admin_status, cable length) rather than gaining lines.
                // render_sonic.rs `growing_by_an_su_only_turns_up_the_new_ports_of_a_spine`
                // checks row by row that nothing else changes.
                continue;
            } else {
                // Spines (and storage leaves taking the new nodes) may only gain lines.
                let old: BTreeSet<&str> = text.lines().collect();
                let now: BTreeSet<&str> = new.lines().collect();
                let lost: Vec<&&str> = old.difference(&now).take(5).collect();
                assert!(
                    lost.is_empty(),
                    "{path} lost lines when growing ({extra}): {lost:?}"
                );
            }
        }
    }
}

#[test]
fn infiniband_fabrics_get_the_subnet_manager_side() {
    let files = outputs(&inventory("dgx-superpod-h100.yaml"));
    let conf = file(&files, "configs/subnet-manager-compute/opensm.conf");
    assert!(
        conf.lines().any(|l| l == "routing_engine ar_updn"),
        "NVIDIA InfiniBand cluster bring-up procedure, Adaptive Routing\n{conf}"
    );
    let roots = file(&files, "configs/subnet-manager-compute/root-switches.txt");
    let names: Vec<&str> = roots.lines().filter(|l| !l.starts_with('#')).collect();
    let spines = count_role(&compile_inventory("dgx-superpod-h100.yaml"), Role::Spine);
    assert_eq!(names.len(), spines, "the spines are the updn roots");
    // No per-switch config for InfiniBand switches; the Ethernet in-band switches get one.
    assert!(
        !files
            .iter()
            .any(|f| f.path.starts_with("configs/leaf-") || f.path.starts_with("configs/spine"))
    );
    assert!(
        files
            .iter()
            .any(|f| f.path.starts_with("configs/inb-leaf01/"))
    );
}

#[test]
fn management_addresses_sit_in_per_su_and_per_role_subnets() {
    let i = intents(&spx(3));
    let m = |n: &str| i.devices[n].system.mgmt.as_ref().unwrap().clone();
    // Zone 16 + SU - 1 of 172.16.0.0/12 in /23s: SU 1 → 172.16.32.0/23, SU 2 → 172.16.34.0/23.
    assert_eq!(
        m("leaf-su01-01").address.network().to_string(),
        "172.16.32.0"
    );
    assert_eq!(
        m("leaf-su02-01").address.network().to_string(),
        "172.16.34.0"
    );
    assert_eq!(m("leaf-su01-01").gateway.to_string(), "172.16.32.1");
    assert_eq!(m("spine01").address.network().to_string(), "172.16.2.0");
    assert_eq!(m("leaf-su01-01").vrf, "mgmt");
    // Every switch has its own management address: data switches on their management port,
    // OOB switches on their management VLAN's interface; the OOB gateway holds every subnet's
    // first address instead.
    let mut all = BTreeSet::new();
    let mut count = 0;
    for d in i.devices.values() {
        let own: Vec<IpAddr> = match (&d.system.mgmt, &d.l2) {
            (Some(m), _) => vec![m.address.addr()],
            (None, Some(l2)) => l2
                .svis
                .iter()
                .filter(|s| !s.gateway)
                .map(|s| s.address.addr())
                .collect(),
            (None, None) => panic!("{} has no management address", d.hostname),
        };
        count += own.len();
        all.extend(own);
    }
    assert_eq!(all.len(), count);
    assert_eq!(count, i.devices.len() - 1, "all but the gateway");
}

/// The FRR from Debian's `frr` package must load every FRR configuration railyard writes: the
/// `frr` platform and SONiC's routing half, numbered and unnumbered, IPv4 and IPv6.
#[test]
fn real_frr_accepts_every_generated_config() {
    let dir = tempfile::tempdir().unwrap();
    let variants = [
        // OOB switches and the OOB gateway on FRR too, and every BGP hardening option.
        with(
            &inventory("lab-small.yaml"),
            "platforms: {default: frr, oob: frr}\nbgp: {auth_env: BGP_PW, gtsm: true, graceful_restart: full, max_prefix: {action: warning-only}}",
        ),
        with(
            &inventory("dgx-superpod-h100.yaml"),
            "platforms: {inband: frr, oob: frr}\nbgp: {graceful_restart: disabled}",
        ),
        with(&inventory("lab-small.yaml"), "platforms: {default: frr}"),
        with(&inventory("lab-small.yaml"), "platforms: {default: sonic}"),
        with(
            &spx(3),
            "platforms: {default: frr}\nbgp: {reuse_leaf_asns: true}",
        ),
        with(&spx(3), "platforms: {default: sonic}"),
        with(
            &inventory("lab-small.yaml"),
            "platforms: {default: frr}\naddressing: {fabric_links: 192.168.0.0/16, loopbacks_v6: 'fd00:1::/64', fabric_links_v6: 'fd00:f::/48', gpu_v6: 'fd00:64::/48', vteps: 10.1.0.0/16}",
        ),
        with(
            &inventory("mdx-research-cloud.yaml"),
            "platforms: {default: frr}",
        ),
        with(
            &inventory("mdx-research-cloud.yaml"),
            "platforms: {default: sonic}",
        ),
        with(
            &inventory("spectrum-x-cloud-tenants.yaml"),
            "platforms: {default: frr, oob: frr}",
        ),
        with(
            &inventory("spectrum-x-cloud-tenants.yaml"),
            "platforms: {default: sonic}",
        ),
    ];
    let mut checked = 0;
    for (k, spec) in variants.iter().enumerate() {
        for f in outputs(spec)
            .iter()
            .filter(|f| f.path.ends_with("/frr.conf"))
        {
            let what = format!("{} (variant {k})", f.path);
            vtysh_accepts(dir.path(), &format!("{k}-{}", f.path), &f.bytes, &what);
            checked += 1;
        }
    }
    eprintln!("real FRR accepted {checked} generated configs");
    assert!(
        checked >= 5 + 5 + 20 + 20,
        "only {checked} FRR configs checked"
    );
}

/// lab-small with FRR on every switch (the template override tests).
fn frr_lab() -> railyard::Compiled {
    railyard::compile(&SourceFile::new(
        "lab",
        with(&inventory("lab-small.yaml"), "platforms: {default: frr}"),
    ))
}

#[test]
fn a_template_bug_is_an_error_not_an_empty_string() {
    let c = frr_lab();
    let mut t = railyard::render::Templates::default();
    t.overrides.insert(
        "frr/system.j2".into(),
        "{{ system.no_such_field }}\n".into(),
    );
    let Err(railyard::BuildError::Render(err)) = c.outputs(&t).unwrap() else {
        panic!("a render error");
    };
    assert_eq!(err.template, "frr/system.j2", "{}", err.message);
    assert!(err.message.contains("undefined"), "{}", err.message);
    // An override that works replaces the built-in file by file.
    let mut t = railyard::render::Templates::default();
    t.overrides
        .insert("frr/system.j2".into(), "! site banner\n".into());
    let files = c.outputs(&t).unwrap().unwrap();
    let conf = file(&files, "configs/spine01/frr.conf");
    assert!(conf.contains("! site banner") && conf.contains("router bgp"));
}

/// A template override is the user's code: nested loops that would run for days (10^10 steps)
/// stop at the fuel limit as an error naming the template and the limit, not a hang.
#[test]
fn a_template_that_never_ends_is_stopped_at_its_limit() {
    let c = frr_lab();
    let mut t = railyard::render::Templates::default();
    t.overrides.insert(
        "frr/system.j2".into(),
        "{% for i in range(100000) %}{% for j in range(100000) %}{% set x = i * j %}\
         {% endfor %}{% endfor %}\n"
            .into(),
    );
    let Err(railyard::BuildError::Render(err)) = c.outputs(&t).expect("compiles") else {
        panic!("a render error");
    };
    assert_eq!(err.template, "frr/system.j2", "{}", err.message);
    let limit = railyard::render::Templates::FUEL.to_string();
    assert!(
        err.message.contains("ran out of fuel") && err.message.contains(&limit),
        "{}",
        err.message
    );
}

#[test]
fn address_plan_lists_every_bmc_and_both_ends_of_every_host_link() {
    let files = outputs(&spx(3));
    let csv = file(&files, "addresses.csv");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let count = |purpose: &str| rows.iter().filter(|r| r[4] == purpose).count();
    assert_eq!(count("bmc"), 3 * 32, "one BMC address per node");
    // 3 SUs × 32 nodes × 8 rails GPU links, plus storage ports; two ends each.
    let gpu: Vec<&Vec<&str>> = rows
        .iter()
        .filter(|r| r[4] == "host-link" && r[5] == "compute")
        .collect();
    assert_eq!(gpu.len(), 2 * 3 * 32 * 8);
    let unique: BTreeSet<&str> = gpu.iter().map(|r| r[2]).collect();
    assert_eq!(unique.len(), gpu.len(), "no address twice");
    assert_eq!(
        count("fabric-link"),
        0,
        "unnumbered fabric: no fabric-link addresses"
    );
}

/// Every switch in `plan.json` of every example has a config directory with its platform's
/// files. InfiniBand switches take no per-switch configuration: the subnet manager (OpenSM/UFM)
/// configures their forwarding, so their "config" is the subnet manager's directory for their
/// network (and their management address is in addresses.csv).
#[test]
fn every_switch_of_every_example_has_a_config_for_its_platform() {
    let dir = format!("{}/inventories", env!("CARGO_MANIFEST_DIR"));
    let mut examples: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 9);
    let mut switches = 0;
    for inv in &examples {
        let files = outputs(&inventory(inv));
        let paths: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let plan: serde_json::Value = serde_json::from_str(&file(&files, "plan.json")).unwrap();
        for d in plan["devices"].as_array().unwrap() {
            let (name, role) = (d["name"].as_str().unwrap(), d["role"].as_str().unwrap());
            // Nodes, appliances and a rack-scale rack's NVLink switch trays and power shelves
            // have no switch config of railyard's.
            if matches!(
                role,
                "node" | "appliance" | "nvlink-switch-tray" | "power-shelf"
            ) {
                continue;
            }
            switches += 1;
            let want: &[&str] = match d["platform"].as_str() {
                Some("nvue") => &["nv-set.sh", "startup.yaml"],
                Some("frr") => &["frr.conf"],
                Some("sonic") => &["config_db.json", "frr.conf"],
                Some("eos") => &["startup-config"],
                Some(other) => panic!("{inv}: {name} runs unknown platform {other}"),
                None => {
                    let net = d["network"].as_str().unwrap();
                    assert!(
                        paths
                            .contains(format!("configs/subnet-manager-{net}/opensm.conf").as_str()),
                        "{inv}: {name} has no platform and no subnet manager for `{net}`"
                    );
                    continue;
                }
            };
            for f in want {
                assert!(
                    paths.contains(format!("configs/{name}/{f}").as_str()),
                    "{inv}: {name} ({role}) lacks configs/{name}/{f}"
                );
            }
            assert!(paths.contains(format!("intent/{name}.yaml").as_str()));
        }
    }
    eprintln!("{switches} switches of {} examples checked", examples.len());
}

#[test]
fn max_prefix_is_the_full_build_out_with_the_margin() {
    // Spectrum-X (NVIDIA QM9700 and SN5000 user manuals, Interfaces; NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture): 8 SN5600 spines × 64 cages split 2×400G = 1,024 spine
    // ports; a leaf has 64 uplinks, so the spines hold 16 leaves at full build-out. A leaf
    // originates its loopback and its host aggregate, a spine its loopback: 16 × 2 + 8 = 40.
    let full = 16 * 2 + 8;
    for sus in [3, 4] {
        let i = intents(&spx(sus));
        for d in i.devices.values().filter(|d| d.network == Network::Compute) {
            let m = d.bgp.as_ref().unwrap().max_prefix.as_ref().unwrap();
            assert_eq!(m.ipv4, 2 * full, "{} at {sus} SUs", d.hostname);
            assert_eq!(m.ipv6, 0);
            assert_eq!(m.restart_minutes, Some(5));
        }
    }
    // The margin and the action are the spec's; the FRR line says both.
    let text = with(
        &spx(3),
        "platforms: {default: frr}\nbgp: {max_prefix: {margin_percent: 50, action: warning-only}}",
    );
    let files = outputs(&text);
    let conf = file(&files, "configs/spine01/frr.conf");
    assert!(
        conf.contains("  neighbor fabric maximum-prefix 60 80 warning-only\n"),
        "{conf}"
    );
}

#[test]
fn leaves_announce_only_their_own_prefixes_and_spines_stay_transit() {
    let text = with(&spx(3), "platforms: {default: frr}");
    let i = intents(&text);
    let files = outputs(&text);
    for d in i.devices.values().filter(|d| d.network == Network::Compute) {
        let b = d.bgp.as_ref().unwrap();
        let conf = file(&files, &format!("configs/{}/frr.conf", d.hostname));
        if d.role == Role::Leaf {
            let own: BTreeSet<String> = d
                .loopback
                .ipv4
                .iter()
                .chain(&d.loopback.vtep)
                .chain(b.aggregates.iter().filter(|a| a.addr().is_ipv4()))
                .map(|p| p.to_string())
                .collect();
            let export: BTreeSet<String> = b
                .export
                .iter()
                .map(|r| {
                    assert_eq!(r.le, None, "exact prefixes only");
                    r.prefix.to_string()
                })
                .collect();
            assert_eq!(export, own, "{}", d.hostname);
            assert!(conf.contains("  neighbor fabric route-map FABRIC-OUT out\n"));
            for p in &own {
                assert!(
                    conf.contains(&format!("permit {p}\n")),
                    "{}: {p}",
                    d.hostname
                );
            }
        } else {
            assert!(b.export.is_empty());
            assert!(!conf.contains("FABRIC-OUT"), "{}", d.hostname);
        }
    }
}

#[test]
fn graceful_restart_modes() {
    for (mode, present, absent) in [
        (
            "helper-only",
            &[
                " neighbor fabric graceful-restart-helper\n",
                " bgp graceful-restart restart-time 120\n",
            ][..],
            &[" bgp graceful-restart\n", "preserve-fw-state"][..],
        ),
        (
            "full",
            &[
                " bgp graceful-restart\n",
                " bgp graceful-restart preserve-fw-state\n",
                " bgp graceful-restart stalepath-time 360\n",
            ][..],
            &["graceful-restart-helper"][..],
        ),
        (
            "disabled",
            &[" bgp graceful-restart-disable\n"][..],
            &["restart-time", "graceful-restart-helper"][..],
        ),
    ] {
        let text = with(
            &inventory("lab-small.yaml"),
            &format!("platforms: {{default: frr}}\nbgp: {{graceful_restart: {mode}}}"),
        );
        let conf = file(&outputs(&text), "configs/leaf-su01-01/frr.conf");
        for p in present {
            assert!(conf.contains(p), "{mode}: missing {p:?}");
        }
        for a in absent {
            assert!(!conf.contains(a), "{mode}: unexpected {a:?}");
        }
    }
}

#[test]
fn the_session_password_is_a_placeholder_never_a_value() {
    // `railyard build` with the variable set in its environment: the outputs still carry only
    // the placeholder, the value is `railyard push`'s to fill in.
    let name = "RAILYARD_TEST_BGP_PASSWORD";
    let value = "not-in-any-output-9c41";
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.yaml");
    std::fs::write(
        &spec,
        with(
            &inventory("lab-small.yaml"),
            &format!("platforms: {{default: frr}}\nbgp: {{auth_env: {name}, gtsm: true}}"),
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_railyard"))
        .env(name, value)
        .arg("build")
        .arg(&spec)
        .arg("-o")
        .arg(&out_dir)
        .output()
        .expect("railyard runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for stream in [&out.stdout, &out.stderr] {
        assert!(!String::from_utf8_lossy(stream).contains(value));
    }
    let mut stack = vec![out_dir];
    let (mut files, mut confs) = (0, 0);
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            files += 1;
            let t = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            assert!(!t.contains(value), "{} holds the secret", p.display());
            if p.ends_with("frr.conf") && t.contains("router bgp") {
                assert!(
                    t.contains(&format!(" neighbor fabric password ${{{name}}}\n")),
                    "{}",
                    p.display()
                );
                assert!(t.contains(" neighbor fabric ttl-security hops 1\n"));
                confs += 1;
            }
        }
    }
    assert!(files > 20);
    assert_eq!(confs, 4, "2 leaves and 2 spines run BGP");
}
