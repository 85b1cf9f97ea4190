//! Storage, in-band and out-of-band networks. Expected numbers come from the published port
//! counts (NVIDIA QM9700 and SN5000 user manuals, Interfaces; NVIDIA Enterprise RA for HGX AI factories, Network Logical Architecture; a Spectrum-X GPU cloud as its operator describes it publicly (Dell XE9680 with H200, SN5600, 2024): SN5600 64 × 800G OSFP split to 2×400G or 4×200G; SN4600C
//! 64 × 100G; SN2201 48 × 1G RJ45 + 4 × 100G QSFP28), RFC 7938/6996 (one ASN per leaf and per
//! spine group, one for the cores, private ranges) and NVIDIA Cumulus Linux RoCE documentation (RoCE DSCP 26 → priority 3 with
//! PFC, CNP DSCP 48 → priority 6), never from railyard's own output.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use railyard::intent::{DeviceIntent, InterfaceKind, QosMode};
use railyard::model::{Network, Role, Tier};

/// The Spectrum-X cloud with its converged storage/in-band pair (a Spectrum-X GPU cloud as its operator describes it publicly (Dell XE9680 with H200, SN5600, 2024)).
fn spx() -> String {
    inventory("spectrum-x-cloud.yaml")
}

/// DGX H100 nodes (2 storage, 2 in-band ports) on an Ethernet compute fabric, storage and
/// in-band on SN4600C at 100G with declared spines: one leaf pair per 32-node SU.
fn separate(sus: u32, extra: &str) -> String {
    format!(
        "name: sep\nscalable_units: {{count: {sus}, nodes_per_su: 32, node_model: dgx-h100}}\n\
         compute:\n  leaf: {{model: sn5600, rails_per_leaf: 2}}\n  spine: {{model: sn5600, count: 8}}\n\
         storage: {{port_speed: 100G, leaf: {{model: sn4600c}}, spine: {{model: sn4600c, count: 8}}}}\n\
         inband: {{port_speed: 100G, leaf: {{model: sn4600c}}, spine: {{model: sn4600c, count: 4}}}}\n{extra}\n"
    )
}

fn of_role(i: &railyard::intent::Intents, r: Role) -> Vec<&DeviceIntent> {
    i.devices.values().filter(|d| d.role == r).collect()
}

#[test]
fn a_storage_pair_without_spines_is_joined_by_routed_peer_links() {
    let f = compile_text("spx", &spx());
    assert_eq!(count_role(&f, Role::StorageLeaf), 2);
    assert_eq!(count_role(&f, Role::StorageSpine), 0);
    // A pair of SN5600 serves 128 dual-homed nodes at 200G: 128 × 200G = 25.6 Tb/s down on 32
    // cages split 4×200G; the other 32 cages at 800G carry the same 25.6 Tb/s at 1:1.
    let peers: Vec<_> = f
        .links()
        .filter(|l| l.network == Network::Storage && l.tier == Tier::LeafLeaf)
        .collect();
    assert_eq!(peers.len(), 32);
    assert!(peers.iter().all(|l| l.speed.as_gbps() == 800));
    let i = intents(&spx());
    let leaves = of_role(&i, Role::StorageLeaf);
    let asns: Vec<u64> = leaves.iter().map(|d| d.bgp.as_ref().unwrap().asn).collect();
    assert_ne!(asns[0], asns[1], "RFC 7938: one ASN per leaf");
    let compute: BTreeSet<u64> = of_role(&i, Role::Leaf)
        .iter()
        .map(|d| d.bgp.as_ref().unwrap().asn)
        .collect();
    for (d, other) in leaves.iter().zip(asns.iter().rev()) {
        let b = d.bgp.as_ref().unwrap();
        // RFC 6996 4-byte private range, a range of its own (not the compute leaves').
        assert!((4_200_000_000..=4_294_967_294).contains(&b.asn));
        assert!(!compute.contains(&b.asn));
        assert_eq!(b.neighbors.len(), 32, "{}", d.hostname);
        assert!(b.neighbors.iter().all(|n| n.remote_asn == *other));
        assert_eq!(b.maximum_paths, 32);
        // The pair announces its loopback and its host aggregate, nothing it learns.
        let lo = d.loopback.ipv4.unwrap();
        let export: Vec<String> = b.export.iter().map(|r| r.prefix.to_string()).collect();
        assert_eq!(export.len(), 2, "{export:?}");
        assert_eq!(export[0], lo.to_string());
        assert!(export[1].starts_with("10.32."), "{export:?}");
    }
}

#[test]
fn more_than_one_pair_without_spines_says_how_to_connect_them() {
    let text = separate(2, "").replace(", spine: {model: sn4600c, count: 8}", "");
    let c = railyard::compile(&railyard::diag::SourceFile::new("s", text));
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.code.id == "RY0402")
        .expect("RY0402");
    assert!(d.message.contains("need spines"), "{}", d.message);
    assert!(
        d.help
            .as_deref()
            .unwrap_or("")
            .contains("storage.spine.model"),
        "{:?}",
        d.help
    );
}

#[test]
fn separate_storage_and_inband_fabrics_are_leaf_spine_clos() {
    let f = compile_text("sep", &separate(3, ""));
    // 100G SN4600C at 1:1: 32 node ports and 32 uplinks per leaf, a pair per 32-node SU.
    assert_eq!(count_role(&f, Role::StorageLeaf), 6);
    assert_eq!(count_role(&f, Role::InbandLeaf), 6);
    let mut pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
    for l in f.links().filter(|l| l.tier == Tier::LeafSpine) {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        if a.network != Network::Compute {
            *pairs.entry((a.name.clone(), b.name.clone())).or_default() += 1;
        }
    }
    // Every leaf reaches every spine of its fabric with the same number of links.
    for (net, spines, per) in [("stor-", 8, 4), ("inb-", 4, 8)] {
        let leaves: BTreeSet<&String> = pairs
            .keys()
            .filter(|(l, _)| l.starts_with(net))
            .map(|(l, _)| l)
            .collect();
        assert_eq!(leaves.len(), 6);
        for leaf in leaves {
            let to: Vec<usize> = pairs
                .iter()
                .filter(|((l, _), _)| l == leaf)
                .map(|(_, n)| *n)
                .collect();
            assert_eq!(to.len(), spines, "{leaf}");
            assert!(to.iter().all(|n| *n == per), "{leaf}: {to:?}");
        }
    }
    let i = intents(&separate(3, ""));
    // RFC 7938: one ASN for all storage spines (a single spine group).
    let spine_asns: BTreeSet<u64> = of_role(&i, Role::StorageSpine)
        .iter()
        .map(|d| d.bgp.as_ref().unwrap().asn)
        .collect();
    assert_eq!(spine_asns.len(), 1);
}

#[test]
fn a_storage_fabric_beyond_one_spine_tier_gets_spine_groups_and_cores() {
    // 64 SUs of 32 DGX H100 on SN4600C storage pairs at 100G: 128 leaves × 32 uplinks = 4,096.
    // One spine tier of 64-port SN4600C takes at most 32 spines × 64 = 2,048: a third tier.
    let text = "name: big\nscalable_units: {count: 64, nodes_per_su: 32, node_model: dgx-h100}\n\
         compute:\n  transport: infiniband\n  leaf: {model: qm9700, rails_per_leaf: 1}\n  \
         spine: {model: qm9700, sus_per_group: 1}\n  core: {model: qm9700}\n\
         storage:\n  rdma: true\n  port_speed: 100G\n  leaf: {model: sn4600c}\n  \
         spine: {model: sn4600c}\n  core: {model: sn4600c}\n\
         oob: {gateway: {model: sn5400}}\n"
        .to_string();
    let f = compile_text("big", &text);
    let s = f.sizing.storage.as_ref().unwrap();
    assert_eq!(s.tiers, 3);
    assert_eq!(count_role(&f, Role::StorageLeaf), 128);
    // Half of a spine's 64 ports go down: 32 leaves per spine group, one link to each of 32
    // spines; 4 groups; each spine's 32 uplinks go to a core group of 2 cores.
    assert_eq!(s.leaves_per_group, 32);
    assert_eq!(count_role(&f, Role::StorageSpine), 4 * 32);
    assert_eq!(count_role(&f, Role::StorageCore), 32 * 2);
    let mut down: BTreeMap<String, usize> = BTreeMap::new();
    let mut up: BTreeMap<String, usize> = BTreeMap::new();
    let mut leaf_groups: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut core_groups: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for l in f.links().filter(|l| l.network == Network::Storage) {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        match l.tier {
            Tier::LeafSpine => {
                *down.entry(b.name.clone()).or_default() += 1;
                leaf_groups
                    .entry(a.name.clone())
                    .or_default()
                    .insert(b.group.unwrap());
            }
            Tier::SpineCore => {
                *up.entry(a.name.clone()).or_default() += 1;
                core_groups
                    .entry(b.name.clone())
                    .or_default()
                    .insert(a.index);
            }
            _ => {}
        }
    }
    // Non-blocking at the spine: as many links up as down, 32 each.
    for (spine, n) in &down {
        assert_eq!(*n, 32, "{spine} down");
        assert_eq!(up.get(spine), Some(&32), "{spine} up");
    }
    // A leaf stays inside one spine group; a core sees spine j of every group only.
    assert!(leaf_groups.values().all(|g| g.len() == 1));
    assert!(
        core_groups
            .values()
            .all(|s| s.len() == 1 && s.iter().all(|j| *j <= 32))
    );
    assert!(f.devices().any(|d| d.name == "stor-spine-g04-32"));
    let i = intents(&text);
    // RFC 7938: a spine group shares one ASN, groups differ, all cores share one.
    let by_group: BTreeMap<u64, BTreeSet<u64>> =
        of_role(&i, Role::StorageSpine)
            .iter()
            .fold(BTreeMap::new(), |mut m, d| {
                let group: u64 = d.hostname[12..14].parse().unwrap();
                m.entry(group)
                    .or_default()
                    .insert(d.bgp.as_ref().unwrap().asn);
                m
            });
    assert_eq!(by_group.len(), 4);
    assert!(by_group.values().all(|a| a.len() == 1));
    let distinct: BTreeSet<u64> = by_group.values().flatten().copied().collect();
    assert_eq!(distinct.len(), 4);
    let cores: BTreeSet<u64> = of_role(&i, Role::StorageCore)
        .iter()
        .map(|d| d.bgp.as_ref().unwrap().asn)
        .collect();
    assert_eq!(cores.len(), 1);
}

#[test]
fn storage_over_rdma_runs_the_roce_class_on_every_port() {
    for (rdma, want) in [(true, true), (false, false)] {
        let text = format!(
            "{}\nstorage: {{rdma: {rdma}, port_speed: 100G, leaf: {{model: sn4600c}}, spine: {{model: sn4600c, count: 8}}}}\n",
            separate(1, "").replace(
                "storage: {port_speed: 100G, leaf: {model: sn4600c}, spine: {model: sn4600c, count: 8}}\n",
                ""
            )
        );
        let i = intents(&text);
        for d in of_role(&i, Role::StorageLeaf)
            .into_iter()
            .chain(of_role(&i, Role::StorageSpine))
        {
            match (&d.qos, want) {
                (Some(q), true) => {
                    // NVIDIA Cumulus Linux RoCE documentation: RoCE DSCP 26 on priority 3 with PFC, CNP DSCP 48 strict on 6.
                    assert_eq!(q.mode, QosMode::Lossless);
                    assert_eq!((q.roce.dscp, q.roce.priority), (26, 3));
                    assert_eq!((q.cnp.dscp, q.cnp.priority), (48, 6));
                    assert_eq!(q.pfc_priorities, vec![3]);
                    assert_eq!(q.ports.len(), d.interfaces.len(), "{}", d.hostname);
                    assert!(d.interfaces.iter().all(|x| x.lossless), "{}", d.hostname);
                }
                (None, false) => assert!(d.interfaces.iter().all(|x| !x.lossless)),
                (q, w) => panic!("{}: rdma {w}, qos {q:?}", d.hostname),
            }
        }
        // In-band carries no RoCE either way.
        assert!(
            of_role(&i, Role::InbandLeaf)
                .iter()
                .all(|d| d.qos.is_none())
        );
    }
}

#[test]
fn growing_by_one_su_changes_no_storage_inband_or_oob_leaf_nor_any_cable_row() {
    for extra in ["", "platforms: {default: frr, oob: frr}"] {
        let three = outputs(&separate(3, extra));
        let four = outputs(&separate(4, extra));
        let by_path = |v: &[railyard::output::OutputFile]| -> BTreeMap<String, String> {
            v.iter()
                .map(|f| {
                    (
                        f.path.clone(),
                        String::from_utf8_lossy(&f.bytes).into_owned(),
                    )
                })
                .collect()
        };
        let (a, b) = (by_path(&three), by_path(&four));
        let mut leaves = 0;
        let leafy = |p: &str| {
            ["/leaf-su", "/stor-leaf", "/inb-leaf", "/oob-su"]
                .iter()
                .any(|k| p.contains(k))
        };
        // Port maps of leaves too (a spine's port map counts its used ports in a header).
        for (path, text) in a.iter().filter(|(p, _)| {
            p.starts_with("configs/")
                || p.starts_with("intent/")
                || (p.starts_with("portmaps/") && leafy(p))
        }) {
            let new = b
                .get(path)
                .unwrap_or_else(|| panic!("{path} vanished ({extra})"));
            if leafy(path) {
                leaves += 1;
                let first = text.lines().zip(new.lines()).position(|(a, b)| a != b);
                // An OOB switch of an existing SU may only gain the central devices' ports.
                if path.contains("/oob-su") {
                    let now: BTreeSet<&str> = new.lines().collect();
                    let lost: Vec<&str> =
                        text.lines().filter(|l| !now.contains(l)).take(3).collect();
                    assert!(lost.is_empty(), "{path} lost {lost:?} ({extra})");
                } else {
                    assert!(
                        text == new,
                        "{path} changed when an SU was added ({extra}); first differing line {first:?}"
                    );
                }
            } else {
                // Spines and the OOB gateway only gain lines.
                let now: BTreeSet<&str> = new.lines().collect();
                let lost: Vec<&str> = text.lines().filter(|l| !now.contains(l)).take(3).collect();
                assert!(lost.is_empty(), "{path} lost {lost:?} ({extra})");
            }
        }
        assert!(leaves > 3 * (4 + 2 + 2 + 1), "{leaves} leaf files compared");
        // Every cable row of the 3-SU plan is a row of the 4-SU plan, byte for byte.
        let rows = |t: &str| -> BTreeSet<String> { t.lines().map(str::to_string).collect() };
        let (r3, r4) = (rows(&a["cabling.csv"]), rows(&b["cabling.csv"]));
        let missing: Vec<&String> = r3.difference(&r4).take(3).collect();
        assert!(
            missing.is_empty(),
            "cable rows changed ({extra}): {missing:?}"
        );
        assert!(r4.len() > r3.len());
    }
}

/// Management VLAN of each device, from the address plan (`… vlan N` in the peer column).
fn vlans_from_address_plan(csv: &str) -> BTreeMap<String, u16> {
    csv.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            let v = c[6].rsplit_once("vlan ")?.1.parse().ok()?;
            (c[4] == "mgmt" || c[4] == "bmc").then(|| (c[0].to_string(), v))
        })
        .collect()
}

#[test]
fn oob_switches_bridge_each_device_into_its_management_vlan_and_uplink_to_the_gateway() {
    for inv in [
        "spectrum-x-cloud.yaml",
        "dgx-superpod-h100.yaml",
        "lab-small.yaml",
    ] {
        let text = format!("{}\nplatforms: {{oob: frr}}\n", inventory(inv));
        let files = outputs(&text);
        let f = compile_text(inv, &text);
        let i = intents(&text);
        let vlan_of = vlans_from_address_plan(&file(&files, "addresses.csv"));
        let gw = of_role(&i, Role::OobGateway);
        assert_eq!(gw.len(), 1, "{inv}");
        let gw = gw[0];
        let gw_l2 = gw.l2.as_ref().unwrap();
        let gw_svi: BTreeMap<u16, String> = gw_l2
            .svis
            .iter()
            .map(|s| (s.vlan, s.address.to_string()))
            .collect();
        // Every management cable lands on an access port of the device's own VLAN.
        let mut checked = 0;
        for l in f.links().filter(|l| l.tier == Tier::Mgmt) {
            let (dev, sw) = (f.device_of(&l.a), f.device_of(&l.b));
            let port = f.port_name(sw, l.b.port);
            let i_sw = &i.devices[&sw.name];
            let x = i_sw.interfaces.iter().find(|x| x.name == port).unwrap();
            assert_eq!(x.kind, InterfaceKind::Access);
            assert_eq!(
                x.access_vlan,
                vlan_of.get(&dev.name).copied(),
                "{inv} {}",
                dev.name
            );
            // The trunk up carries it, and so does the gateway's end of that trunk.
            let trunk = i_sw
                .interfaces
                .iter()
                .find(|x| x.kind == InterfaceKind::Trunk)
                .unwrap();
            assert!(trunk.trunk_vlans.contains(&x.access_vlan.unwrap()));
            assert_eq!(trunk.peer_device, gw.hostname);
            let back = gw
                .interfaces
                .iter()
                .find(|y| y.name == trunk.peer_port)
                .unwrap();
            assert_eq!(back.trunk_vlans, trunk.trunk_vlans, "{inv} {}", sw.name);
            checked += 1;
        }
        assert!(checked > 0);
        // The gateway holds every management route's next hop, in the device's own VLAN.
        let csv = file(&files, "addresses.csv");
        for row in csv.lines().skip(1) {
            let c: Vec<&str> = row.split(',').collect();
            if c[4] != "mgmt" && c[4] != "bmc" {
                continue;
            }
            let gw_addr = c[6].split_whitespace().nth(1).unwrap();
            let v = vlan_of[c[0]];
            let svi = gw_svi
                .get(&v)
                .unwrap_or_else(|| panic!("{inv}: no SVI for vlan {v}"));
            assert_eq!(svi.split('/').next(), Some(gw_addr), "{inv} {row}");
            assert!(
                csv.contains(&format!("{},vlan{v},{svi},ipv4,mgmt-gateway", gw.hostname)),
                "{inv}: the gateway's address in vlan {v} is in the address plan"
            );
        }
        // OOB switches are managed on their VLAN interface, routed to that gateway.
        for d in of_role(&i, Role::OobLeaf) {
            let conf = file(&files, &format!("configs/{}/frr.conf", d.hostname));
            let l2 = d.l2.as_ref().unwrap();
            let svi = &l2.svis[0];
            assert!(conf.contains(&format!("interface vlan{}\n", svi.vlan)));
            assert!(conf.contains(&format!(" ip address {}\n", svi.address)));
            let gw_of = l2.default_gateway.unwrap();
            assert!(conf.contains(&format!("ip route 0.0.0.0/0 {gw_of}\n")));
            assert_eq!(
                gw_svi[&svi.vlan].split('/').next(),
                Some(gw_of.to_string().as_str())
            );
        }
    }
}

#[test]
fn every_management_port_is_cabled_once_and_every_oob_switch_has_one_uplink() {
    let f = compile_text("sep", &separate(4, ""));
    let mut mgmt: BTreeMap<String, usize> = BTreeMap::new();
    let mut uplinks: BTreeMap<String, usize> = BTreeMap::new();
    for l in f.links() {
        match l.tier {
            Tier::Mgmt => *mgmt.entry(f.device_of(&l.a).name.clone()).or_default() += 1,
            Tier::OobUplink => *uplinks.entry(f.device_of(&l.a).name.clone()).or_default() += 1,
            _ => {}
        }
    }
    for d in f.devices() {
        let (want_m, want_u) = match d.role {
            Role::OobLeaf | Role::OobCore => (0, 1),
            Role::OobGateway => (0, 0),
            _ => (1, 0),
        };
        assert_eq!(
            mgmt.get(&d.name).copied().unwrap_or(0),
            want_m,
            "{}",
            d.name
        );
        assert_eq!(
            uplinks.get(&d.name).copied().unwrap_or(0),
            want_u,
            "{}",
            d.name
        );
    }
}
