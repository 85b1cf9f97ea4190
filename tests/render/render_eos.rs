//! The Arista EOS renderer, checked against the domain facts (NVIDIA Cumulus Linux RoCE documentation; Arista AVD eos_cli_config_gen schema and the ROCm gpu-cluster-networking RoCE guide; RFC 7938 and RFC 6996) rather than
//! against its own output: routed `EthernetN/M` ports at the EOS lossless MTU, one eBGP session
//! per uplink with ECMP over all of them, PFC on the RoCE priority only, the DSCP map and ECN
//! thresholds taken from the spec.

use crate::common;

use common::*;

/// An inventory rendered for EOS, with extra spec lines appended.
fn eos_spec(inventory_file: &str, extra: &str) -> String {
    format!(
        "{}\nplatforms: {{default: eos}}\n{extra}",
        inventory(inventory_file)
    )
}

fn config(spec: &str, device: &str) -> String {
    file(&outputs(spec), &format!("configs/{device}/startup-config"))
}

fn lab(extra: &str, device: &str) -> String {
    config(&eos_spec("lab-small.yaml", extra), device)
}

/// `interface <name>` blocks: the name and the indented lines under it.
fn interfaces(cfg: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in cfg.lines() {
        if let Some(name) = line.strip_prefix("interface ") {
            out.extend(current.take());
            current = Some((name.to_string(), Vec::new()));
        } else if let Some(body) = line.strip_prefix("   ") {
            if let Some((_, lines)) = current.as_mut() {
                lines.push(body.to_string());
            }
        } else {
            out.extend(current.take());
        }
    }
    out.extend(current);
    out
}

fn ethernet(cfg: &str) -> Vec<(String, Vec<String>)> {
    interfaces(cfg)
        .into_iter()
        .filter(|(n, _)| n.starts_with("Ethernet"))
        .collect()
}

fn has(body: &[String], line: &str) -> bool {
    body.iter().any(|l| l == line)
}

/// Lines of the config that start with `prefix` (after indentation is removed).
fn lines_with<'a>(cfg: &'a str, prefix: &str) -> Vec<&'a str> {
    cfg.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(prefix))
        .collect()
}

/// Uplinks of a leaf: its ports cabled to spines (description `<peer>:<port> [cable]`).
fn uplinks(cfg: &str) -> Vec<(String, Vec<String>)> {
    ethernet(cfg)
        .into_iter()
        .filter(|(_, body)| body.iter().any(|l| l.starts_with("description spine")))
        .collect()
}

fn is_eos_port_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("Ethernet") else {
        return false;
    };
    let mut parts = rest.split('/');
    let ok =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

#[test]
fn every_lab_switch_gets_a_complete_startup_config() {
    let files = outputs(&eos_spec("lab-small.yaml", ""));
    for device in [
        "spine01",
        "spine02",
        "leaf-su01-01",
        "leaf-su01-02",
        "inb-leaf01",
    ] {
        let cfg = file(&files, &format!("configs/{device}/startup-config"));
        assert!(cfg.contains(&format!("\nhostname {device}\n")), "{device}");
        assert!(cfg.ends_with("!\nend\n"), "{device} must end with `end`");
    }
}

#[test]
fn data_ports_are_routed_eos_ports_at_mtu_9214() {
    for device in ["leaf-su01-01", "spine01", "inb-leaf01"] {
        let cfg = lab("", device);
        let ports = ethernet(&cfg);
        assert!(!ports.is_empty(), "{device} has no data ports");
        for (name, body) in ports {
            assert!(
                is_eos_port_name(&name),
                "{device}: `{name}` is not an EOS port name"
            );
            assert!(
                has(&body, "mtu 9214"),
                "{device} {name}: EOS lossless MTU is 9214"
            );
            assert!(
                has(&body, "no switchport"),
                "{device} {name} must be routed"
            );
        }
    }
}

#[test]
fn leaf_has_one_bgp_session_per_uplink_and_ecmp_over_all_of_them() {
    // lab-small: 2 spines, 2 links from each leaf to each → 4 uplinks.
    let cfg = lab("", "leaf-su01-01");
    let up = uplinks(&cfg);
    assert_eq!(up.len(), 4);
    let sessions = lines_with(&cfg, "neighbor interface ");
    assert_eq!(sessions.len(), up.len());
    for (name, _) in &up {
        assert!(
            sessions
                .iter()
                .any(|s| s.starts_with(&format!("neighbor interface {name} "))),
            "no session on uplink {name}"
        );
    }
    assert_eq!(
        lines_with(&cfg, "maximum-paths "),
        ["maximum-paths 4 ecmp 4"]
    );
    assert_eq!(
        lines_with(&cfg, "bgp bestpath"),
        ["bgp bestpath as-path multipath-relax"]
    );
}

#[test]
fn spectrum_x_leaf_runs_ecmp_over_its_64_uplinks() {
    // arithmetic on the reference architectures' tables: a non-blocking SN5600 leaf has 128 x 400G ports, half of them up.
    let cfg = config(&eos_spec("spectrum-x-cloud.yaml", ""), "leaf-su01-01");
    let up = uplinks(&cfg);
    assert_eq!(up.len(), 64);
    assert_eq!(lines_with(&cfg, "neighbor interface ").len(), 64);
    assert_eq!(
        lines_with(&cfg, "maximum-paths "),
        ["maximum-paths 64 ecmp 64"]
    );
}

#[test]
fn spectrum_x_split_cages_run_two_400g_ports_over_four_lanes_each() {
    // NVIDIA QM9700 and SN5000 user manuals, Interfaces / §8.1: SN5600 800G cages split 2x400G; EOS numbers sub-ports by first lane.
    let cfg = config(&eos_spec("spectrum-x-cloud.yaml", ""), "leaf-su01-01");
    let ports = ethernet(&cfg);
    assert_eq!(ports.len(), 128);
    for (name, body) in &ports {
        assert!(name.ends_with("/1") || name.ends_with("/5"), "{name}");
        assert!(has(body, "speed 400g-4"), "{name} must run 400G on 4 lanes");
    }
}

#[test]
fn unsplit_ports_carry_no_speed_override() {
    let cfg = lab("", "leaf-su01-01");
    assert!(lines_with(&cfg, "speed ").is_empty());
}

#[test]
fn unnumbered_sessions_use_ipv6_link_local_and_ipv6_next_hops() {
    // RFC 8950 (formerly RFC 5549): unnumbered = no IPv4 on fabric links, IPv4 routes over IPv6 next hops.
    let cfg = lab("", "leaf-su01-01");
    for (name, body) in uplinks(&cfg) {
        assert!(has(&body, "ipv6 enable"), "{name}");
        assert!(!body.iter().any(|l| l.starts_with("ip address")), "{name}");
    }
    assert!(cfg.contains("\nip routing ipv6 interfaces\n"));
    assert!(cfg.contains("\nservice routing protocols model multi-agent\n"));
    assert_eq!(
        lines_with(&cfg, "neighbor fabric next-hop"),
        ["neighbor fabric next-hop address-family ipv6 originate"]
    );
}

#[test]
fn numbered_fabric_peers_on_the_far_end_of_each_uplink() {
    let cfg = lab("addressing: {fabric_links: 10.1.0.0/16}\n", "leaf-su01-01");
    assert!(lines_with(&cfg, "neighbor interface").is_empty());
    assert!(lines_with(&cfg, "ipv6 enable").is_empty());
    assert!(lines_with(&cfg, "neighbor fabric next-hop").is_empty());
    assert!(cfg.contains("\nip routing\n"));
    let up = uplinks(&cfg);
    assert_eq!(up.len(), 4);
    let remote_as = lines_with(&cfg, "neighbor 10.");
    let remote_as: Vec<&str> = remote_as
        .into_iter()
        .filter(|l| l.contains(" remote-as "))
        .collect();
    assert_eq!(remote_as.len(), up.len());
    for (name, body) in &up {
        // The peer holds the other address of the uplink's /31.
        let own = body
            .iter()
            .find_map(|l| l.strip_prefix("ip address "))
            .unwrap_or_else(|| panic!("{name} has no IPv4 address"));
        let addr: std::net::Ipv4Addr = own
            .trim_end_matches("/31")
            .parse()
            .unwrap_or_else(|_| panic!("{name}: `{own}` is not a /31"));
        let peer = std::net::Ipv4Addr::from(u32::from(addr) ^ 1);
        assert!(
            remote_as
                .iter()
                .any(|l| l.starts_with(&format!("neighbor {peer} remote-as "))),
            "no session to {peer} on {name}"
        );
    }
}

#[test]
fn pfc_is_no_drop_on_priority_3_only() {
    // NVIDIA Cumulus Linux RoCE documentation: PFC on priority 3 (RoCE) only.
    for device in ["leaf-su01-01", "spine01"] {
        let cfg = lab("", device);
        assert_eq!(
            lines_with(&cfg, "priority-flow-control priority"),
            ["priority-flow-control priority 3 no-drop"],
            "{device}"
        );
        assert_eq!(lines_with(&cfg, "priority-flow-control on").len(), 1);
    }
}

#[test]
fn roce_dscp_26_goes_to_traffic_class_3_and_cnp_48_to_6() {
    let cfg = lab("", "leaf-su01-01");
    assert_eq!(
        lines_with(&cfg, "qos map dscp"),
        [
            "qos map dscp 26 to traffic-class 3",
            "qos map dscp 48 to traffic-class 6"
        ]
    );
    assert!(cfg.contains("\n   qos trust dscp\n"));
}

#[test]
fn roce_dscp_from_the_spec_changes_the_map() {
    let cfg = lab("roce: {dscp: 24}\n", "leaf-su01-01");
    let maps = lines_with(&cfg, "qos map dscp");
    assert!(
        maps.contains(&"qos map dscp 24 to traffic-class 3"),
        "{maps:?}"
    );
    assert!(
        !maps.iter().any(|m| m.starts_with("qos map dscp 26 ")),
        "{maps:?}"
    );
}

/// The `random-detect ecn` line of `uc-tx-queue <tc>` in the RoCE profile.
fn ecn_of_queue(cfg: &str, tc: u8) -> Vec<String> {
    let mut in_queue = false;
    let mut out = Vec::new();
    for line in cfg.lines() {
        if let Some(id) = line.strip_prefix("   uc-tx-queue ") {
            in_queue = id == tc.to_string();
        } else if !line.starts_with("      ") {
            in_queue = false;
        } else if in_queue && line.trim_start().starts_with("random-detect ecn") {
            out.push(line.trim_start().to_string());
        }
    }
    out
}

#[test]
fn ecn_marks_the_roce_queue_between_the_spec_thresholds() {
    // NVIDIA Cumulus Linux RoCE documentation: NVIDIA default ECN 150,000-1,500,000 bytes, probability 100, on TC 3.
    let cfg = lab("", "leaf-su01-01");
    assert_eq!(
        ecn_of_queue(&cfg, 3),
        [
            "random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100"
        ]
    );
    let tuned = lab(
        "roce: {ecn_min_bytes: 200000, ecn_max_bytes: 2400000, ecn_probability: 20}\n",
        "leaf-su01-01",
    );
    assert_eq!(
        ecn_of_queue(&tuned, 3),
        [
            "random-detect ecn minimum-threshold 200000 bytes maximum-threshold 2400000 bytes max-mark-probability 20"
        ]
    );
}

#[test]
fn cnp_is_strict_and_roce_shares_the_rest_by_weight() {
    // NVIDIA Cumulus Linux RoCE documentation: TC3 DWRR 50 %, TC0 50 %, TC6 (CNP) strict.
    let cfg = lab("", "leaf-su01-01");
    let profile: String = cfg
        .split("\n!\n")
        .find(|s| s.starts_with("qos profile "))
        .unwrap_or_else(|| panic!("no qos profile"))
        .to_string();
    let queue = |id: u8| -> Vec<&str> {
        profile
            .split("   !\n")
            .find(|q| q.starts_with(&format!("   uc-tx-queue {id}\n")))
            .unwrap_or_else(|| panic!("no uc-tx-queue {id}"))
            .lines()
            .skip(1)
            .map(str::trim)
            .collect()
    };
    assert!(queue(6).contains(&"priority strict"));
    for tc in [0, 3] {
        let q = queue(tc);
        assert!(q.contains(&"no priority"), "{q:?}");
        assert!(q.contains(&"bandwidth percent 50"), "{q:?}");
    }
}

#[test]
fn pfc_watchdog_timers_are_in_seconds() {
    // SONiC's qos_config.j2 and Configuration.md (sonic-net/sonic-buildimage): 200 ms detection and restoration, action drop.
    let cfg = lab("", "leaf-su01-01");
    assert_eq!(
        lines_with(&cfg, "priority-flow-control pause watchdog"),
        [
            "priority-flow-control pause watchdog",
            "priority-flow-control pause watchdog default timeout 0.2",
            "priority-flow-control pause watchdog default recovery-time 0.2",
            "priority-flow-control pause watchdog action drop",
        ]
    );
}

#[test]
fn every_lossless_port_is_in_the_roce_profile() {
    let cfg = lab("", "leaf-su01-01");
    for (name, body) in ethernet(&cfg) {
        assert!(has(&body, "service-profile ROCE"), "{name}");
    }
}

#[test]
fn lossy_mode_keeps_ecn_and_drops_pfc() {
    let cfg = lab("roce: {mode: lossy}\n", "leaf-su01-01");
    assert!(lines_with(&cfg, "priority-flow-control").is_empty());
    assert_eq!(ecn_of_queue(&cfg, 3).len(), 1);
}

#[test]
fn switches_outside_the_compute_fabric_get_no_roce_class() {
    let cfg = lab("", "inb-leaf01");
    assert!(lines_with(&cfg, "qos").is_empty());
    assert!(lines_with(&cfg, "priority-flow-control").is_empty());
    assert!(lines_with(&cfg, "service-profile").is_empty());
}

#[test]
fn management_and_services_live_in_the_management_vrf() {
    let cfg = lab(
        "services: {ntp: [192.0.2.1], syslog: [192.0.2.2], dns: [192.0.2.53], snmp_traps: [192.0.2.162], domain: lab.example}\n",
        "leaf-su01-01",
    );
    let mgmt = interfaces(&cfg)
        .into_iter()
        .find(|(n, _)| n == "Management1")
        .unwrap_or_else(|| panic!("no Management1"));
    assert!(has(&mgmt.1, "vrf mgmt"));
    assert!(mgmt.1.iter().any(|l| l.starts_with("ip address 172.16.")));
    assert!(cfg.contains("\nvrf instance mgmt\n"));
    assert_eq!(
        lines_with(&cfg, "ip route "),
        ["ip route vrf mgmt 0.0.0.0/0 172.16.32.1"]
    );
    assert_eq!(
        lines_with(&cfg, "ntp server"),
        ["ntp server vrf mgmt 192.0.2.1"]
    );
    assert_eq!(
        lines_with(&cfg, "logging "),
        ["logging vrf mgmt host 192.0.2.2"]
    );
    assert_eq!(
        lines_with(&cfg, "ip name-server"),
        ["ip name-server vrf mgmt 192.0.2.53"]
    );
    assert_eq!(lines_with(&cfg, "dns domain"), ["dns domain lab.example"]);
    let snmp = lines_with(&cfg, "snmp-server host");
    assert_eq!(snmp.len(), 1);
    assert!(snmp[0].starts_with("snmp-server host 192.0.2.162 vrf mgmt version 2c "));
}

#[test]
fn leaf_announces_loopback_and_host_block_as_an_aggregate() {
    let cfg = lab("", "leaf-su01-01");
    let lo = interfaces(&cfg)
        .into_iter()
        .find(|(n, _)| n == "Loopback0")
        .unwrap_or_else(|| panic!("no Loopback0"));
    let lo_addr =
        lo.1.iter()
            .find_map(|l| l.strip_prefix("ip address "))
            .unwrap_or_else(|| panic!("Loopback0 has no address"))
            .to_string();
    let router_id = lines_with(&cfg, "router-id ");
    assert_eq!(
        router_id,
        [format!("router-id {}", lo_addr.trim_end_matches("/32"))]
    );
    assert!(lines_with(&cfg, "seq ").contains(&format!("seq 10 permit {lo_addr}").as_str()));
    assert_eq!(lines_with(&cfg, "aggregate-address ").len(), 1);
    assert!(lines_with(&cfg, "aggregate-address ")[0].ends_with(" summary-only"));
    assert_eq!(
        lines_with(&cfg, "redistribute connected"),
        ["redistribute connected route-map CONNECTED-TO-BGP"]
    );
}

#[test]
fn vtep_gets_its_own_loopback() {
    let cfg = lab("addressing: {vteps: 10.2.0.0/16}\n", "leaf-su01-01");
    let lo1 = interfaces(&cfg)
        .into_iter()
        .find(|(n, _)| n == "Loopback1")
        .unwrap_or_else(|| panic!("no Loopback1"));
    assert!(lo1.1.iter().any(|l| l.starts_with("ip address 10.2.")));
}

#[test]
fn reused_leaf_asns_accept_their_own_asn_back() {
    // RFC 7938 §5.2 and RFC 6996: leaf ASN reuse needs allowas-in on the leaves.
    let cfg = lab("bgp: {reuse_leaf_asns: true}\n", "leaf-su01-01");
    assert_eq!(
        lines_with(&cfg, "neighbor fabric allowas-in"),
        ["neighbor fabric allowas-in 1"]
    );
    let spine = lab("bgp: {reuse_leaf_asns: true}\n", "spine01");
    assert!(lines_with(&spine, "neighbor fabric allowas-in").is_empty());
}

#[test]
fn bfd_runs_on_every_fabric_session() {
    // NVIDIA's DGX H100 BasePOD Ethernet fabric demo (NVIDIA Air; github.com/berkinkartal/cumulus_ansible_modules): BFD 3 x 300 ms on the underlay.
    let cfg = lab("", "leaf-su01-01");
    assert_eq!(
        lines_with(&cfg, "neighbor fabric bfd"),
        ["neighbor fabric bfd"]
    );
    for (name, body) in uplinks(&cfg) {
        assert!(
            has(&body, "bfd interval 300 min-rx 300 multiplier 3"),
            "{name}"
        );
    }
}

#[test]
fn sections_follow_running_config_order() {
    let cfg = lab("services: {ntp: [192.0.2.1]}\n", "leaf-su01-01");
    let order = [
        "\nservice routing protocols model multi-agent\n",
        "\nhostname ",
        "\nqos profile ",
        "\nvrf instance ",
        "\ninterface Ethernet",
        "\ninterface Loopback0\n",
        "\ninterface Management1\n",
        "\nip routing",
        "\nip prefix-list ",
        "\nip route vrf ",
        "\nntp server ",
        "\nqos map dscp ",
        "\npriority-flow-control pause watchdog default",
        "\nroute-map ",
        "\nrouter bgp ",
        "\nend\n",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|s| cfg.find(s).unwrap_or_else(|| panic!("missing {s:?}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{:?}", order);
}

#[test]
fn adaptive_routing_never_reaches_an_eos_config() {
    let spec = eos_spec(
        "spectrum-x-cloud.yaml",
        "roce: {adaptive_routing: enabled}\n",
    );
    let cfg = config(&spec, "leaf-su01-01");
    assert!(!cfg.to_lowercase().contains("adaptive"));
}

// ---------------------------------------------------------------------------------------------
// EVPN-VXLAN tenancy (Cumulus Linux EVPN documentation): checked against the saved intent of each switch, which is the
// tenancy plan's word on which VRFs, VNIs, RTs and RDs a switch carries.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use railyard::intent::DeviceIntent;
use railyard::model::Role;

/// The two tenant inventories rendered for EOS, once per test binary.
fn tenant_files(inventory_file: &str) -> &'static [railyard::output::OutputFile] {
    static SPX: OnceLock<Vec<railyard::output::OutputFile>> = OnceLock::new();
    static MDX: OnceLock<Vec<railyard::output::OutputFile>> = OnceLock::new();
    let cell = match inventory_file {
        "spectrum-x-cloud-tenants.yaml" => &SPX,
        "mdx-research-cloud.yaml" => &MDX,
        other => panic!("no cache for {other}"),
    };
    cell.get_or_init(|| outputs(&eos_spec(inventory_file, "")))
}

const TENANT_INVENTORIES: [&str; 2] = ["spectrum-x-cloud-tenants.yaml", "mdx-research-cloud.yaml"];

/// Every switch with a startup-config: its intent (parsed from `intent/<device>.yaml`) and
/// config.
fn switches(files: &[railyard::output::OutputFile]) -> Vec<(DeviceIntent, String)> {
    let out: Vec<(DeviceIntent, String)> = files
        .iter()
        .filter_map(|f| {
            let device = f
                .path
                .strip_prefix("configs/")?
                .strip_suffix("/startup-config")?;
            let intent: DeviceIntent =
                serde_saphyr::from_str(&file(files, &format!("intent/{device}.yaml")))
                    .unwrap_or_else(|e| panic!("intent/{device}.yaml: {e}"));
            Some((intent, file(files, &f.path)))
        })
        .collect();
    assert!(!out.is_empty(), "no EOS startup-config rendered");
    out
}

fn tenant_vrf_names(d: &DeviceIntent) -> BTreeSet<String> {
    d.vrfs.iter().map(|v| v.name.clone()).collect()
}

/// `vrf instance` names, the management VRF left out.
fn vrf_instances(cfg: &str, d: &DeviceIntent) -> BTreeSet<String> {
    let mgmt = d.system.mgmt.as_ref().map(|m| m.vrf.as_str());
    cfg.lines()
        .filter_map(|l| l.strip_prefix("vrf instance "))
        .filter(|v| Some(*v) != mgmt)
        .map(str::to_string)
        .collect()
}

/// The body of `interface Vxlan1`, if any.
fn vxlan1(cfg: &str) -> Option<Vec<String>> {
    interfaces(cfg)
        .into_iter()
        .find(|(n, _)| n == "Vxlan1")
        .map(|(_, b)| b)
}

/// The `router bgp` block: its lines with the three leading spaces removed.
fn router_bgp(cfg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in cfg.lines() {
        if line.starts_with("router bgp ") {
            inside = true;
        } else if inside {
            match line.strip_prefix("   ") {
                Some(body) => out.push(body.to_string()),
                None => break,
            }
        }
    }
    out
}

/// The sub-blocks of `router bgp` (`address-family evpn`, `vrf cust-a`, ...) and their lines.
fn bgp_blocks(cfg: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in router_bgp(cfg) {
        if let Some(body) = line.strip_prefix("   ") {
            if let Some(name) = &current {
                out.entry(name.clone()).or_default().push(body.to_string());
            }
        } else if line.starts_with("address-family ") || line.starts_with("vrf ") {
            out.entry(line.clone()).or_default();
            current = Some(line);
        } else {
            current = None;
        }
    }
    out
}

fn bgp_vrf_blocks(cfg: &str) -> BTreeMap<String, Vec<String>> {
    bgp_blocks(cfg)
        .into_iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("vrf ")?.to_string(), v)))
        .collect()
}

fn is_vtep(d: &DeviceIntent) -> bool {
    d.evpn.as_ref().is_some_and(|e| e.vtep.is_some())
}

#[test]
fn tenant_vrfs_exist_only_on_leaves_that_carry_their_ports() {
    for inv in TENANT_INVENTORIES {
        let all = switches(tenant_files(inv));
        let mut tenant_leaves: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (d, cfg) in &all {
            // The intent's VRFs are exactly the VRFs of its ports...
            let of_ports: BTreeSet<String> =
                d.interfaces.iter().filter_map(|i| i.vrf.clone()).collect();
            assert_eq!(tenant_vrf_names(d), of_ports, "{inv} {}", d.hostname);
            // ...and the config carries exactly those, in every place a VRF is named.
            assert_eq!(
                vrf_instances(cfg, d),
                of_ports,
                "{inv} {}: vrf instance",
                d.hostname
            );
            let routed: BTreeSet<String> = lines_with(cfg, "ip routing vrf ")
                .iter()
                .map(|l| l.trim_start_matches("ip routing vrf ").to_string())
                .collect();
            assert_eq!(routed, of_ports, "{inv} {}: ip routing vrf", d.hostname);
            if d.bgp.is_some() {
                let in_bgp: BTreeSet<String> = bgp_vrf_blocks(cfg).into_keys().collect();
                assert_eq!(in_bgp, of_ports, "{inv} {}: router bgp vrf", d.hostname);
            }
            for v in of_ports {
                tenant_leaves
                    .entry(v)
                    .or_default()
                    .insert(d.hostname.clone());
            }
        }
        // Tenancy is local: no tenant reaches every VTEP of its inventory.
        let vteps: BTreeSet<String> = all
            .iter()
            .filter(|(d, _)| is_vtep(d))
            .map(|(d, _)| d.hostname.clone())
            .collect();
        assert!(tenant_leaves.len() >= 3, "{inv}: {tenant_leaves:?}");
        for (vrf, leaves) in &tenant_leaves {
            assert!(
                leaves.len() < vteps.len(),
                "{inv}: tenant VRF {vrf} on every VTEP"
            );
        }
    }
}

#[test]
fn vnis_route_targets_and_distinguishers_equal_the_intent() {
    for inv in TENANT_INVENTORIES {
        let mut checked = 0;
        for (d, cfg) in switches(tenant_files(inv)) {
            if d.vrfs.is_empty() {
                continue;
            }
            if d.evpn.is_none() {
                // A switch without BGP (a storage leaf pair without spines) keeps local VRFs.
                assert!(
                    vxlan1(&cfg).is_none(),
                    "{inv} {}: Vxlan1 without EVPN",
                    d.hostname
                );
                for v in &d.vrfs {
                    assert!(
                        cfg.contains(&format!("\nvrf instance {}\n", v.name)),
                        "{}",
                        d.hostname
                    );
                }
                continue;
            }
            let vx = vxlan1(&cfg).unwrap_or_else(|| panic!("{inv} {}: no Vxlan1", d.hostname));
            let mut maps: Vec<&str> = vx
                .iter()
                .filter(|l| l.starts_with("vxlan vrf "))
                .map(String::as_str)
                .collect();
            maps.sort_unstable();
            let mut want: Vec<String> = d
                .vrfs
                .iter()
                .map(|v| format!("vxlan vrf {} vni {}", v.name, v.l3vni))
                .collect();
            want.sort();
            assert_eq!(maps, want, "{inv} {}", d.hostname);

            let Some(b) = &d.bgp else { continue };
            let blocks = bgp_vrf_blocks(&cfg);
            for v in &d.vrfs {
                let block = &blocks[&v.name];
                let mut expect = vec![format!("rd {}", v.rd)];
                expect.extend(
                    v.import
                        .iter()
                        .map(|rt| format!("route-target import evpn {rt}")),
                );
                expect.extend(
                    v.export
                        .iter()
                        .map(|rt| format!("route-target export evpn {rt}")),
                );
                expect.push(format!("router-id {}", b.router_id));
                // The VRF announces its own ports' aggregate and lets in only its host links.
                expect.extend(
                    v.aggregates
                        .iter()
                        .map(|a| format!("aggregate-address {a} summary-only")),
                );
                assert!(!v.redistribute.is_empty());
                expect.push(format!(
                    "redistribute connected route-map CONNECTED-TO-BGP-{}",
                    v.name
                ));
                assert_eq!(block, &expect, "{inv} {} vrf {}", d.hostname, v.name);
                checked += 1;
            }
        }
        assert!(checked > 0, "{inv}: no tenant VRF checked");
    }
}

#[test]
fn every_tenant_port_carries_its_vrf_before_its_address() {
    for inv in TENANT_INVENTORIES {
        let mut tenant_ports = 0;
        for (d, cfg) in switches(tenant_files(inv)) {
            let blocks: BTreeMap<String, Vec<String>> = ethernet(&cfg).into_iter().collect();
            for i in &d.interfaces {
                let body = &blocks[&i.name];
                let vrf_lines: Vec<&String> =
                    body.iter().filter(|l| l.starts_with("vrf ")).collect();
                match &i.vrf {
                    Some(v) => {
                        tenant_ports += 1;
                        assert_eq!(
                            vrf_lines,
                            [&format!("vrf {v}")],
                            "{} {}",
                            d.hostname,
                            i.name
                        );
                        let at = |p: &str| body.iter().position(|l| l.starts_with(p));
                        if let Some(addr) = at("ip address ") {
                            assert!(at("vrf ").unwrap() < addr, "{} {}", d.hostname, i.name);
                        }
                    }
                    None => assert!(vrf_lines.is_empty(), "{} {}", d.hostname, i.name),
                }
            }
        }
        assert!(tenant_ports > 0, "{inv}: no tenant port");
    }
}

#[test]
fn spines_relay_evpn_and_carry_no_tenant_vrf() {
    for inv in TENANT_INVENTORIES {
        let spines: Vec<(DeviceIntent, String)> = switches(tenant_files(inv))
            .into_iter()
            .filter(|(d, _)| d.role == Role::Spine)
            .collect();
        assert!(!spines.is_empty(), "{inv}: no spine");
        for (d, cfg) in spines {
            let name = &d.hostname;
            assert!(d.evpn.is_some(), "{inv} {name}: spine outside EVPN");
            let pg = &d.bgp.as_ref().expect("spine runs BGP").peer_group;
            let blocks = bgp_blocks(&cfg);
            assert_eq!(
                blocks["address-family evpn"],
                [
                    "bgp next-hop-unchanged".to_string(),
                    format!("neighbor {pg} activate")
                ],
                "{inv} {name}"
            );
            assert!(
                has(
                    &router_bgp(&cfg),
                    &format!("neighbor {pg} send-community extended")
                ),
                "{inv} {name}"
            );
            assert!(bgp_vrf_blocks(&cfg).is_empty(), "{inv} {name}");
            assert!(vrf_instances(&cfg, &d).is_empty(), "{inv} {name}");
            assert!(
                lines_with(&cfg, "ip routing vrf ").is_empty(),
                "{inv} {name}"
            );
            assert!(vxlan1(&cfg).is_none(), "{inv} {name}");
            // The underlay keeps its RFC 5549 sessions and next hops.
            assert_eq!(
                lines_with(&cfg, &format!("neighbor {pg} next-hop")),
                [format!("neighbor {pg} next-hop address-family ipv6 originate").as_str()],
                "{inv} {name}"
            );
        }
    }
}

#[test]
fn leaves_originate_evpn_and_keep_their_next_hop() {
    for inv in TENANT_INVENTORIES {
        let mut leaves = 0;
        for (d, cfg) in switches(tenant_files(inv)) {
            if d.role != Role::Leaf || d.bgp.is_none() {
                continue;
            }
            leaves += 1;
            let pg = &d.bgp.as_ref().unwrap().peer_group;
            assert_eq!(
                bgp_blocks(&cfg)["address-family evpn"],
                [format!("neighbor {pg} activate")],
                "{inv} {}",
                d.hostname
            );
            assert!(lines_with(&cfg, "bgp next-hop-unchanged").is_empty());
        }
        assert!(leaves > 0, "{inv}: no leaf");
    }
}

#[test]
fn vxlan1_only_on_leaves_sourced_from_the_vtep_loopback() {
    for inv in TENANT_INVENTORIES {
        let mut vteps = 0;
        for (d, cfg) in switches(tenant_files(inv)) {
            let name = &d.hostname;
            let Some(vx) = vxlan1(&cfg) else {
                assert!(!is_vtep(&d), "{inv} {name}: VTEP without Vxlan1");
                continue;
            };
            vteps += 1;
            assert!(
                matches!(d.role, Role::Leaf | Role::StorageLeaf),
                "{inv} {name}: Vxlan1 on a {:?}",
                d.role
            );
            let vtep = d.evpn.as_ref().and_then(|e| e.vtep).expect("VTEP address");
            let source = vx
                .iter()
                .find_map(|l| l.strip_prefix("vxlan source-interface "))
                .unwrap_or_else(|| panic!("{inv} {name}: no source-interface"));
            let lo = interfaces(&cfg)
                .into_iter()
                .find(|(n, _)| n == source)
                .unwrap_or_else(|| panic!("{inv} {name}: no {source}"));
            assert!(has(&lo.1, &format!("ip address {vtep}")), "{inv} {name}");
            if d.loopback.vtep.is_some() {
                assert_eq!(source, "Loopback1", "{inv} {name}");
            }
            assert!(has(&vx, "vxlan udp-port 4789"), "{inv} {name}");
        }
        assert!(vteps > 0, "{inv}: no VTEP");
    }
}

#[test]
fn vteps_copy_roce_dscp_and_ecn_into_the_outer_header() {
    // Issue 4 / Juniper JVD for AI data centers with EVPN multitenancy (RoCE over VXLAN): RoCE QoS must survive VXLAN encapsulation (EOS manual, VXLAN DSCP
    // Mapping; AVD vxlan_interface.vxlan1.vxlan.qos).
    for inv in TENANT_INVENTORIES {
        let mut with_qos = 0;
        for (d, cfg) in switches(tenant_files(inv)) {
            let Some(vx) = vxlan1(&cfg) else { continue };
            let qos: Vec<&String> = vx.iter().filter(|l| l.starts_with("vxlan qos")).collect();
            if d.qos.is_some() {
                with_qos += 1;
                assert_eq!(
                    qos,
                    [
                        "vxlan qos ecn propagation",
                        "vxlan qos dscp propagation encapsulation"
                    ],
                    "{inv} {}",
                    d.hostname
                );
            } else {
                assert!(qos.is_empty(), "{inv} {}", d.hostname);
            }
        }
        assert!(with_qos > 0, "{inv}: no VTEP with a RoCE class");
    }
}

#[test]
fn tenancy_sections_follow_running_config_order() {
    let files = tenant_files("mdx-research-cloud.yaml");
    let cfg = file(files, "configs/leaf-su01-01/startup-config");
    let order = [
        "\nvrf instance ",
        "\ninterface Ethernet",
        "\ninterface Loopback1\n",
        "\ninterface Management1\n",
        "\ninterface Vxlan1\n",
        "\nip routing ipv6 interfaces\n",
        "\nip routing vrf ",
        "\nip prefix-list ",
        "\nrouter bgp ",
        "\n   address-family evpn\n",
        "\n   address-family ipv4\n",
        "\n   !\n   vrf llm-pretrain\n      rd ",
        "\nend\n",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|s| cfg.find(s).unwrap_or_else(|| panic!("missing {s:?}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{order:?}");
}

#[test]
fn clusters_without_tenants_stay_out_of_evpn() {
    for device in ["leaf-su01-01", "spine01", "inb-leaf01"] {
        let cfg = lab("", device);
        assert!(vxlan1(&cfg).is_none(), "{device}");
        assert!(
            lines_with(&cfg, "address-family evpn").is_empty(),
            "{device}"
        );
        assert!(lines_with(&cfg, "neighbor fabric send-community").is_empty());
        assert!(lines_with(&cfg, "ip routing vrf ").is_empty(), "{device}");
    }
    // The in-band network of a tenant cluster carries no tenant either.
    for (d, cfg) in switches(tenant_files("mdx-research-cloud.yaml")) {
        if d.evpn.is_none() {
            assert!(
                lines_with(&cfg, "address-family evpn").is_empty(),
                "{}",
                d.hostname
            );
            assert!(vxlan1(&cfg).is_none(), "{}", d.hostname);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The Arista example (inventories/eos-ai-fabric.yaml): EOS on Arista 7060X6-64PE switches.
// ---------------------------------------------------------------------------------------------

fn arista() -> String {
    inventory("eos-ai-fabric.yaml")
}

fn codes_of(spec: &str) -> Vec<(String, Option<railyard::diag::Span>)> {
    let c = railyard::compile(&railyard::diag::SourceFile::new("spec.yaml", spec));
    c.diagnostics
        .sorted()
        .iter()
        .map(|d| (d.code.id.to_string(), d.span))
        .collect()
}

/// The EOS example runs EOS on Arista models only: every rendered switch is an Arista model
/// (from the catalog), gets a startup-config and no vendor-mismatch warning is raised.
#[test]
fn the_eos_example_runs_eos_on_arista_models_only() {
    let spec = arista();
    let codes = codes_of(&spec);
    assert!(
        !codes.iter().any(|(c, _)| c == "RY0115" || c == "RY0116"),
        "{codes:?}"
    );
    let i = railyard::compile(&railyard::diag::SourceFile::new("spec.yaml", &spec))
        .design
        .map(|d| d.intents)
        .expect("compiles");
    let catalog = railyard::catalog::builtin();
    assert!(i.devices.len() >= 18);
    // Every fabric switch is an Arista box running EOS; the OOB network is SN2201 switches
    // running their own OS (NVUE), which an EOS fabric commonly sits beside.
    let oob = |d: &railyard::intent::DeviceIntent| {
        use railyard::model::Role;
        matches!(d.role, Role::OobLeaf | Role::OobCore | Role::OobGateway)
    };
    assert!(i.devices.values().any(oob), "the example has OOB switches");
    for d in i.devices.values().filter(|d| !oob(d)) {
        assert_eq!(d.platform, railyard::model::Platform::Eos, "{}", d.hostname);
        assert_eq!(
            catalog.switches[&d.model].vendor, "Arista",
            "{}",
            d.hostname
        );
    }
    let files = outputs(&spec);
    for d in i.devices.values().filter(|d| !oob(d)) {
        file(&files, &format!("configs/{}/startup-config", d.hostname));
    }
    for d in i.devices.values().filter(|d| oob(d)) {
        assert_eq!(
            d.platform,
            railyard::model::Platform::Nvue,
            "{}",
            d.hostname
        );
        file(&files, &format!("configs/{}/startup.yaml", d.hostname));
    }
}

/// EOS on another vendor's switch is reported where the spec chose it (RY0115); the lab example
/// on NVIDIA SN4600C switches with `platforms: {default: eos}` is such a spec.
#[test]
fn eos_on_a_non_arista_model_is_a_located_warning() {
    let spec = eos_spec("lab-small.yaml", "");
    let warned: Vec<_> = codes_of(&spec)
        .into_iter()
        .filter(|(c, _)| c == "RY0115")
        .collect();
    assert!(!warned.is_empty(), "no RY0115");
    let at = spec.find("platforms: {default: eos}").unwrap() + "platforms: {default: ".len();
    for (_, span) in &warned {
        assert_eq!(span.expect("located").start as usize, at, "points at `eos`");
    }
}

/// The Arista data sheet's 64 x 800G OSFP cages, split 2 x 400G for the 400G NICs and uplinks:
/// EOS numbers the two ports of a cage by their first lane (`EthernetN/1`, `EthernetN/5`) and
/// runs each at `400g-4` (400G over 4 of the 8 lanes); a non-blocking leaf uses all 64 cages.
#[test]
fn arista_7060x6_cages_run_two_400g_ports_on_lanes_1_and_5() {
    let cfg = config(&arista(), "leaf-su01-01");
    let ports = ethernet(&cfg);
    assert_eq!(ports.len(), 128);
    let cages: BTreeSet<u32> = ports
        .iter()
        .map(|(n, _)| {
            let (cage, lane) = n
                .trim_start_matches("Ethernet")
                .split_once('/')
                .expect("Ethernet<cage>/<lane>");
            assert!(lane == "1" || lane == "5", "{n}");
            cage.parse().expect("cage number")
        })
        .collect();
    assert_eq!(cages, (1..=64).collect());
    for (n, body) in &ports {
        assert!(has(body, "speed 400g-4"), "{n}");
        assert!(has(body, "mtu 9214"), "{n}");
    }
}

/// What an EOS engineer expects on every switch of an L3 fabric (the lines AVD's eos_designs puts
/// on every device): no enable password, no root account, the internal VLAN block, the
/// multi-agent routing model, no spanning tree, routing on, and management reachable in its VRF
/// over SSH and eAPI (HTTPS) after a full config replace.
#[test]
fn every_eos_config_carries_the_basics_an_eos_engineer_expects() {
    let files = outputs(&arista());
    let configs: Vec<&railyard::output::OutputFile> = files
        .iter()
        .filter(|f| f.path.ends_with("/startup-config"))
        .collect();
    assert!(configs.len() >= 18);
    for f in configs {
        let cfg = String::from_utf8(f.bytes.clone()).unwrap();
        for line in [
            "no enable password",
            "no aaa root",
            "vlan internal order ascending range 1006 1199",
            "service routing protocols model multi-agent",
            "spanning-tree mode none",
            "management api http-commands",
            "management ssh",
        ] {
            assert!(cfg.lines().any(|l| l == line), "{}: {line}", f.path);
        }
        assert!(
            cfg.lines()
                .any(|l| l == "ip routing" || l == "ip routing ipv6 interfaces"),
            "{}",
            f.path
        );
        let mgmt = interfaces(&cfg)
            .into_iter()
            .find(|(n, _)| n == "Management1")
            .expect("Management1");
        assert!(has(&mgmt.1, "vrf mgmt") && has(&mgmt.1, "no shutdown"));
        // SSH and eAPI both serve the management VRF.
        let vrf_blocks = cfg.matches("\n   vrf mgmt\n      no shutdown\n").count();
        assert_eq!(vrf_blocks, 2, "{}", f.path);
    }
}

/// Growing the EOS example by one SU changes no byte of an existing leaf's config, and spines only
/// gain lines (the spines are declared for 4 SUs).
#[test]
fn growing_the_eos_example_by_one_su_renumbers_nothing() {
    let two = outputs(&arista());
    let three = outputs(&arista().replace("  count: 2\n", "  count: 3\n"));
    let configs = |v: &[railyard::output::OutputFile]| -> BTreeMap<String, String> {
        v.iter()
            .filter(|f| f.path.ends_with("/startup-config"))
            .map(|f| (f.path.clone(), String::from_utf8(f.bytes.clone()).unwrap()))
            .collect()
    };
    let (a, b) = (configs(&two), configs(&three));
    assert!(b.len() > a.len(), "the new SU adds leaves");
    let mut leaves = 0;
    for (path, text) in &a {
        let new = &b[path];
        if path.contains("/leaf-su") {
            assert!(text == new, "{path} changed when an SU was added");
            leaves += 1;
        } else {
            let now: BTreeSet<&str> = new.lines().collect();
            let lost: Vec<&str> = text.lines().filter(|l| !now.contains(l)).take(5).collect();
            assert!(lost.is_empty(), "{path} lost lines: {lost:?}");
        }
    }
    assert_eq!(leaves, 8);
}

/// docs/bgp.md on EOS: the Spectrum-X cloud's limit is 8 spines × 128 ports ÷ 64 uplinks = 16
/// leaves × 2 prefixes + 8 spine loopbacks = 40, doubled by the default margin: 80, per family
/// (EVPN on the same sessions is not counted); the leaf filters what it announces.
#[test]
fn eos_sessions_are_hardened_per_family_with_the_plan_limit() {
    let spec = eos_spec("spectrum-x-cloud.yaml", "");
    for dev in ["leaf-su01-01", "spine01"] {
        let cfg = config(&spec, dev);
        assert_eq!(
            lines_with(&cfg, "neighbor fabric maximum-accepted-routes"),
            ["neighbor fabric maximum-accepted-routes 80 warning-limit 80 percent"],
            "{dev}"
        );
        // helper-only is EOS's default: no line either way.
        assert!(!cfg.contains("graceful-restart"), "{dev}");
        assert!(!cfg.contains("neighbor fabric password"), "{dev}");
    }
    let leaf = config(&spec, "leaf-su01-01");
    assert!(leaf.contains("\n      neighbor fabric route-map FABRIC-OUT out\n"));
    assert!(leaf.contains("\nip prefix-list FABRIC-OUT\n"));
    assert!(!config(&spec, "spine01").contains("FABRIC-OUT"));

    let hard = lab(
        "bgp: {auth_env: BGP_FABRIC_PASSWORD, gtsm: true, graceful_restart: full, max_prefix: {action: warning-only}}",
        "leaf-su01-01",
    );
    for line in [
        "   graceful-restart restart-time 120",
        "   graceful-restart stalepath-time 360",
        "   graceful-restart",
        "   neighbor fabric ttl maximum-hops 1",
        "   neighbor fabric password 0 ${BGP_FABRIC_PASSWORD}",
    ] {
        assert!(hard.lines().any(|l| l == line), "{line}");
    }
    // Warning only: no limit, a warning at 80 % of the plan's limit. lab-small: 2 SN4600C spines × 64
    // ports ÷ 4 uplinks = 32 leaves × 2 prefixes + 2 spine loopbacks = 66, doubled = 132; 80 %
    // of 132 = 105.6 → 106.
    assert_eq!(
        lines_with(&hard, "neighbor fabric maximum-accepted-routes"),
        ["neighbor fabric maximum-accepted-routes 0 warning-limit 106"]
    );
    let off = lab("bgp: {graceful_restart: disabled}", "leaf-su01-01");
    assert!(off.lines().any(|l| l == "   no graceful-restart-helper"));
}

/// OOB switches on EOS bridge the management VLANs as the plan says (addresses.csv, cabling.csv):
/// each management or BMC port untagged in its subnet's VLAN, the uplink to the gateway a trunk
/// of every VLAN the switch has access ports in, the gateway holding the first address of every
/// management subnet on a VLAN interface, and each OOB switch's default route at its gateway.
#[test]
fn oob_switches_on_eos_bridge_the_management_vlans() {
    let spec = format!(
        "{}\nplatforms: {{oob: eos}}\n",
        inventory("eos-ai-fabric.yaml")
    );
    let files = outputs(&spec);
    let csv = |path: &str| csv_rows(&files, path);
    let mut vlan_of = BTreeMap::new();
    let mut gateways = BTreeSet::new();
    for r in csv("addresses.csv") {
        let words: Vec<&str> = r[6].split_whitespace().collect();
        match (r[4].as_str(), words.as_slice()) {
            ("mgmt" | "bmc", ["gateway", _, "vlan", vlan]) => {
                vlan_of.insert((r[0].clone(), r[1].clone()), vlan.to_string());
            }
            ("mgmt-gateway", _) => {
                // Recorded with its prefix length (`172.16.2.1/23`).
                gateways.insert(r[2].split('/').next().unwrap_or_default().to_string());
            }
            _ => {}
        }
    }
    let block = |dev: &str, port: &str| -> Vec<String> {
        let cfg = file(&files, &format!("configs/{dev}/startup-config"));
        interfaces(&cfg)
            .into_iter()
            .find(|(n, _)| n == port)
            .unwrap_or_else(|| panic!("{dev}: no interface {port}"))
            .1
    };
    let (mut access, mut trunks) = (BTreeMap::<String, BTreeSet<String>>::new(), 0);
    let cabling = csv("cabling.csv");
    for r in &cabling {
        let (a, ap, b, bp, tier) = (&r[2], &r[3], &r[4], &r[5], &r[10]);
        if tier == "mgmt" && b.starts_with("oob-su") {
            let vlan = &vlan_of[&(a.clone(), ap.clone())];
            let body = block(b, bp);
            assert!(
                has(&body, &format!("switchport access vlan {vlan}")),
                "{b} {bp}"
            );
            assert!(has(&body, "switchport mode access") && !has(&body, "no switchport"));
            access.entry(b.clone()).or_default().insert(vlan.clone());
        }
    }
    for r in &cabling {
        let (a, ap, b, bp, tier) = (&r[2], &r[3], &r[4], &r[5], &r[10]);
        if tier == "oob-uplink" {
            let want: Vec<&str> = access[a].iter().map(String::as_str).collect();
            for (dev, port) in [(a, ap), (b, bp)] {
                let body = block(dev, port);
                let allowed = body
                    .iter()
                    .find_map(|l| l.strip_prefix("switchport trunk allowed vlan "))
                    .unwrap_or_else(|| panic!("{dev} {port}: no trunk"));
                let ids: BTreeSet<&str> = allowed.split(',').collect();
                assert!(
                    want.iter().all(|v| ids.contains(v)),
                    "{dev} {port}: {allowed}"
                );
                assert!(has(&body, "switchport mode trunk"));
            }
            trunks += 1;
        }
    }
    assert!(access.len() >= 2 && trunks >= 2, "{access:?} {trunks}");
    let gw = file(&files, "configs/oob-gw01/startup-config");
    let svis: BTreeSet<String> = interfaces(&gw)
        .into_iter()
        .filter(|(n, _)| n.starts_with("Vlan"))
        .filter_map(|(_, body)| {
            body.iter()
                .find_map(|l| l.strip_prefix("ip address "))
                .map(|a| a.split('/').next().unwrap_or_default().to_string())
        })
        .collect();
    assert_eq!(svis, gateways);
    for dev in access.keys() {
        let cfg = file(&files, &format!("configs/{dev}/startup-config"));
        let route = lines_with(&cfg, "ip route 0.0.0.0/0 ");
        assert_eq!(route.len(), 1, "{dev}");
        assert!(gateways.contains(route[0].trim_start_matches("ip route 0.0.0.0/0 ")));
        assert!(cfg.contains("\nspanning-tree mode mstp\n"));
    }
}
