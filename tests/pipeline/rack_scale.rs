//! Rack-scale systems and NVIDIA-sized SUs (#41): the reference architectures' figures asserted
//! against the three examples (`dgx-superpod-gb200`, `gb300-nvl72-spectrum-x`,
//! `dgx-superpod-b300`). Expected numbers are quoted from NVIDIA's pages, or are arithmetic on
//! them (said where so); none is read from railyard's output.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use railyard::model::{Network, Role, Tier};
use railyard::topology::Fabric;

/// NVLink domain → its trays, from the graph.
fn domains(f: &Fabric) -> BTreeMap<u32, Vec<String>> {
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for d in f.devices().filter(|d| d.role == Role::Node) {
        let dom = d
            .domain
            .unwrap_or_else(|| panic!("{} has no NVLink domain", d.name));
        out.entry(dom).or_default().push(d.name.clone());
    }
    out
}

/// Share of the compute leaves' ports (at the node-port speed's breakout) that carry a cable.
fn leaf_ports_used(f: &Fabric) -> f64 {
    let c = &f.sizing.compute;
    let m = &f.catalog.switches[&c.leaf_model];
    let (_, lanes) = m.group_for(c.port_speed).expect("leaf runs the node speed");
    let leaves = count_role(f, Role::Leaf);
    let capacity = leaves as f64 * f64::from(m.total_cages() * lanes);
    let used = f
        .links()
        .filter(|l| l.network == Network::Compute)
        .flat_map(|l| [f.device_of(&l.a), f.device_of(&l.b)])
        .filter(|d| d.role == Role::Leaf)
        .count();
    used as f64 / capacity
}

/// RA-11338-001 (DGX SuperPOD GB200): "each SU contains 8 DGX GB200 systems"; "Each DGX GB200
/// rack is built with 18 compute trays and 9 NVLink switch trays … full-mesh connectivity between
/// all 72 GPUs within the same DGX GB200 rack"; the compute fabric is "full-fat-tree"
/// (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/network-fabrics.html).
#[test]
fn gb200_superpod_is_eight_racks_of_eighteen_trays_per_su() {
    let f = compile_inventory("dgx-superpod-gb200.yaml");
    let doms = domains(&f);
    let sus = f.sizing.sus as usize;
    assert_eq!(doms.len(), 8 * sus, "8 racks (NVLink domains) per SU");
    assert!(
        doms.values().all(|t| t.len() == 18),
        "18 compute trays per rack"
    );
    let s = railyard::artifacts::summary::summarize(&f);
    assert_eq!(s.gpus, 576 * sus as u64, "8 × 72 GPUs per SU");
    let up = s.scale_up.as_ref().expect("a rack-scale summary");
    assert_eq!(up.gpus_per_domain, 72, "all 72 GPUs within the same rack");
    assert_eq!(up.nvlink_gbytes_per_gpu, 1800, "1.8 TB/s per GPU");
    let d = f.sizing.domains.as_ref().expect("domains");
    assert_eq!(d.nvlink_switch_trays, 9);
    // A domain's trays are one rack's: consecutive positions of one SU.
    for trays in doms.values() {
        let racks: BTreeSet<_> = f
            .devices()
            .filter(|d| trays.contains(&d.name))
            .map(|d| d.rack.clone())
            .collect();
        assert_eq!(racks.len(), 1, "one rack per NVLink domain: {racks:?}");
    }
    // Non-blocking: arithmetic on "full-fat-tree", 576 NDR ports per SU on 64-port QM9700 leaves
    // of 32 down and 32 up is 18 leaves per SU, every port used.
    assert_eq!(count_role(&f, Role::Leaf), 18 * sus);
    assert!(leaf_ports_used(&f) >= 0.9, "{}", leaf_ports_used(&f));
}

/// The GB300 NVL72 on two Spectrum-X planes: 16 racks × 72 = 1,152 GPUs, each tray's 4
/// ConnectX-8 "2 x 400GbE", one port per plane. Arithmetic: 1,152 ports per plane at 400G on
/// SN5600 leaves of 64 down + 64 up is 18 leaves a plane, 36 in all (the shrunk-SU plan had 64).
#[test]
fn gb300_dual_plane_needs_36_leaves_not_64() {
    let f = compile_inventory("gb300-nvl72-spectrum-x.yaml");
    let s = railyard::artifacts::summary::summarize(&f);
    assert_eq!(s.gpus, 1152);
    assert_eq!(domains(&f).len(), 16);
    assert_eq!(count_role(&f, Role::Leaf), 36);
    assert_eq!(count_links(&f, Network::Compute, Tier::NodeLeaf), 1152 * 2);
    assert!(leaf_ports_used(&f) >= 0.9, "{}", leaf_ports_used(&f));
    // Every tray reaches both planes on each of its 4 rails.
    let mut per_tray: BTreeMap<String, BTreeSet<(u32, u32)>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.tier == Tier::NodeLeaf && l.network == Network::Compute)
    {
        per_tray
            .entry(f.device_of(&l.a).name.clone())
            .or_default()
            .insert((l.plane.unwrap_or(1), l.rail.unwrap_or(0)));
    }
    assert!(
        per_tray.values().all(|r| r.len() == 8),
        "4 rails × 2 planes"
    );
}

/// A rail longer than a leaf continues on the next leaf: the leaves of one SU and plane hold the
/// rails' ports in rail order, so each leaf carries at most two rails and each rail of 144 trays
/// sits on ⌈144 / 64⌉ + 1 = 3 or fewer leaves.
#[test]
fn a_rail_spans_consecutive_leaves() {
    let f = compile_inventory("gb300-nvl72-spectrum-x.yaml");
    let mut leaves_of_rail: BTreeMap<(u32, u32, u32), BTreeSet<String>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.tier == Tier::NodeLeaf && l.network == Network::Compute)
    {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        leaves_of_rail
            .entry((l.plane.unwrap_or(1), a.su.unwrap_or(0), l.rail.unwrap_or(0)))
            .or_default()
            .insert(b.name.clone());
    }
    assert_eq!(leaves_of_rail.len(), 2 * 2 * 4);
    assert!(
        leaves_of_rail.values().all(|l| (3..=4).contains(&l.len())),
        "{leaves_of_rail:?}"
    );
}

/// DGX SuperPOD B300 RA, Table 3 "Larger DGX SuperPOD component counts": SUs → nodes, GPUs,
/// leaves, spines, node-leaf and leaf-spine cables
/// (https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html).
/// The 8-SU row (128 leaves, 64 spines) needs an OOB gateway with more than the example's SN2201's
/// 16 uplink ports; the RA's management network is not modelled here.
const B300_TABLE: [(u32, usize, u64, usize, usize, usize, usize); 3] = [
    (1, 64, 512, 16, 8, 512, 512),
    (2, 128, 1024, 32, 16, 1024, 1024),
    (4, 256, 2048, 64, 32, 2048, 2048),
];

#[test]
fn b300_superpod_matches_table_3() {
    for (sus, nodes, gpus, leaves, spines, node_leaf, leaf_spine) in B300_TABLE {
        let text = inventory("dgx-superpod-b300.yaml").replace(
            "count: 4\n  nodes_per_su",
            &format!("count: {sus}\n  nodes_per_su"),
        );
        let f = compile_text("b300", &text);
        let s = railyard::artifacts::summary::summarize(&f);
        assert_eq!(count_role(&f, Role::Node), nodes, "{sus} SU nodes");
        assert_eq!(s.gpus, gpus, "{sus} SU GPUs");
        assert_eq!(count_role(&f, Role::Leaf), leaves, "{sus} SU leaves");
        assert_eq!(count_role(&f, Role::Spine), spines, "{sus} SU spines");
        // "Each GPU has 2x 400GbE connectivity through two different planes": the table counts
        // one node-leaf cable per GPU; railyard plans a link per plane port, two per GPU.
        assert_eq!(
            count_links(&f, Network::Compute, Tier::NodeLeaf),
            2 * node_leaf,
            "{sus} SU node-leaf"
        );
        assert_eq!(
            count_links(&f, Network::Compute, Tier::LeafSpine),
            leaf_spine,
            "{sus} SU leaf-spine"
        );
    }
}

fn gb300(sus: u32) -> String {
    inventory("gb300-nvl72-spectrum-x.yaml").replace("count: 2", &format!("count: {sus}"))
}

/// Growing a GB300 cluster by one SU moves no existing cable, and `diff` says so: exit 1 (safe
/// changes only), nothing renumbered.
#[test]
fn growing_gb300_by_one_su_renumbers_nothing() {
    let (two, three) = (gb300(2), gb300(3));
    let (a, b) = (cabling_rows(&two), cabling_rows(&three));
    let missing = rows_gone(&a, &b);
    assert!(
        missing.is_empty(),
        "rows of the 2-SU plan changed: {missing:#?}"
    );
    assert!(b.len() > a.len());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.yaml"), &two).unwrap();
    std::fs::write(dir.path().join("b.yaml"), &three).unwrap();
    let out = railyard_in(
        dir.path(),
        &["diff", "a.yaml", "b.yaml", "--format", "json"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let renumbered = v["numbering"]["renumbered"].as_array().map_or(0, Vec::len);
    assert_eq!(renumbered, 0, "{}", v["numbering"]);
    // The third SU's 8 racks are named, nothing removed.
    let added: Vec<&str> = v["racks"]["added"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    let want: Vec<String> = (17..=24).map(|n| format!("rack{n}")).collect();
    assert_eq!(added, want);
    assert_eq!(v["racks"]["removed"].as_array().map_or(0, Vec::len), 0);
}

/// NVL72 AI Factory RA: "2 SN2201 OOB switches for integrated management access of rack
/// components". Every tray's BMC is cabled to an OOB switch standing in its own rack, and each
/// rack has exactly two of them.
#[test]
fn each_rack_manages_its_trays_on_its_own_two_switches() {
    let f = compile_inventory("gb300-nvl72-spectrum-x.yaml");
    let mut switches_of_rack: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in f.links().filter(|l| l.tier == Tier::Mgmt) {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        if a.role != Role::Node {
            continue;
        }
        assert_eq!(b.role, Role::OobLeaf);
        assert_eq!(a.rack, b.rack, "{} is managed from another rack", a.name);
        switches_of_rack
            .entry(a.rack.clone().unwrap_or_default())
            .or_default()
            .insert(b.name.clone());
    }
    assert_eq!(switches_of_rack.len(), 16);
    assert!(
        switches_of_rack.values().all(|s| s.len() == 2),
        "{switches_of_rack:?}"
    );
}

fn impact_json(example: &str, fail: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), inventory(example)).unwrap();
    let mut args = vec!["impact", "c.yaml", "--format", "json"];
    for f in fail {
        args.extend(["--fail", f]);
    }
    let out = railyard_in(dir.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn impact_of<'v>(v: &'v serde_json::Value, name: &str) -> &'v serde_json::Value {
    v["impacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["failure"]["name"] == name)
        .unwrap_or_else(|| panic!("no impact for {name}"))
}

/// A rack, a tray and an NVLink switch tray of a GB200 NVL72 fail. The expectations are the RA's
/// sentences: a rack is 18 trays and 72 GPUs (all cut off with it); a tray is 4 GPUs; "Each
/// NVLink switch tray is equipped with 2 NVLink switch chips" and each GPU has "one dedicated NVL5
/// link … to each one of the 18 switch chips" at "1.8 TB/s": one switch tray takes 2/18 of it.
#[test]
fn impact_knows_the_rack_the_tray_and_the_nvlink_switch_tray() {
    let v = impact_json(
        "dgx-superpod-gb200.yaml",
        &["rack03", "rack03-nvsw2", "gb03t05"],
    );
    let rack = impact_of(&v, "rack03");
    assert_eq!(rack["failure"]["kind"], "rack");
    assert_eq!(rack["nvlink"]["gpus_lost"], 72);
    let cut: BTreeSet<&str> = rack["cut_off"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["network"] == "compute")
        .map(|n| n["node"].as_str().unwrap())
        .collect();
    assert_eq!(
        cut.len(),
        18,
        "the rack's 18 trays leave the compute fabric"
    );
    assert!(cut.iter().all(|n| n.starts_with("gb03t")), "{cut:?}");
    let tray = impact_of(&v, "gb03t05");
    assert_eq!(tray["nvlink"]["gpus_lost"], 4);
    assert_eq!(tray["nvlink"]["per_gpu_gbytes_after"], 1800);
    let sw = impact_of(&v, "rack03-nvsw2");
    // Its management cable is all a switch tray has in the plan: no GPU node loses a link.
    assert!(sw["links_down"].as_u64().unwrap() <= 1, "{sw}");
    assert!(sw["cut_off"].as_array().unwrap().is_empty(), "{sw}");
    assert!(sw["rails_lost"].as_array().unwrap().is_empty(), "{sw}");
    assert_eq!(sw["nvlink"]["per_gpu_gbytes"], 1800);
    assert_eq!(sw["nvlink"]["per_gpu_gbytes_after"], 1800 * 16 / 18);
    // GB300: the sources do not give the chips per switch tray, so no figure is claimed.
    let v = impact_json("gb300-nvl72-spectrum-x.yaml", &["rack01-nvsw1", "rack01"]);
    let sw = impact_of(&v, "rack01-nvsw1");
    assert!(sw["nvlink"]["per_gpu_gbytes_after"].is_null(), "{sw}");
}

/// Without `--fail`, every rack of a rack-scale cluster is analysed beside every switch.
#[test]
fn default_impact_ranks_every_rack() {
    let v = impact_json("gb300-nvl72-spectrum-x.yaml", &[]);
    let racks = v["impacts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["failure"]["kind"] == "rack")
        .count();
    assert_eq!(racks, 16);
}

/// The rack's other parts are in the plan with their management ports: GB300 NVL72 AI Factory
/// RA: "9 NVSwitch trays", "8 power shelves", "2 SN2201 OOB switches for integrated management
/// access of rack components" — so per rack 9 + 8 management cables on the rack's own switches.
#[test]
fn nvlink_switch_trays_and_power_shelves_are_cabled_in_their_rack() {
    let f = compile_inventory("gb300-nvl72-spectrum-x.yaml");
    let mut per_rack: BTreeMap<(String, Role), usize> = BTreeMap::new();
    for l in f.links().filter(|l| l.tier == Tier::Mgmt) {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        if !a.role.is_rack_component() {
            continue;
        }
        assert_eq!(b.role, Role::OobLeaf);
        assert_eq!(a.rack, b.rack, "{} is managed from another rack", a.name);
        *per_rack
            .entry((a.rack.clone().unwrap_or_default(), a.role))
            .or_default() += 1;
    }
    let racks: BTreeSet<&String> = per_rack.keys().map(|(r, _)| r).collect();
    assert_eq!(racks.len(), 16);
    for ((rack, role), n) in &per_rack {
        let want = if *role == Role::NvlinkSwitchTray {
            9
        } else {
            8
        };
        assert_eq!(*n, want, "{rack} {role:?}");
    }
}

/// The BOM's rack line and the summary's rack power are counted against the build's own
/// `cabling.csv` (racks that hold a tray's BMC cable), not the graph: one GB300 NVL72 rack per
/// rack with trays, and "up to 142 kW" each (NVL72 AI Factory RA: "Full rack requiring up to
/// 142 kW").
#[test]
fn the_rack_line_and_rack_power_follow_the_cabling_plan() {
    let text = inventory("gb300-nvl72-spectrum-x.yaml");
    let files = outputs(&text);
    let cabling = file(&files, "cabling.csv");
    let mut lines = cabling.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (port, rack) = (at("a_port"), at("a_rack"));
    let racks: BTreeSet<String> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[port] == "bmc")
        .map(|c| c[rack].to_string())
        .collect();
    assert_eq!(racks.len(), 16);
    let bom = file(&files, "bom.csv");
    let mut r = csv::Reader::from_reader(bom.as_bytes());
    let header = r.headers().unwrap().clone();
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let row = r
        .records()
        .map(Result::unwrap)
        .find(|rec| &rec[col("category")] == "rack")
        .expect("a rack order line");
    assert_eq!(&row[col("part")], "GB300 NVL72");
    assert!(row[col("description")].contains("142 kW"), "{row:?}");
    assert_eq!(row[col("quantity")], racks.len().to_string());
    let summary: serde_json::Value = serde_json::from_str(&file(&files, "summary.json")).unwrap();
    assert_eq!(summary["scale_up"]["domains"], racks.len());
    assert_eq!(summary["scale_up"]["racks_kw"], 142.0 * racks.len() as f64);
}
