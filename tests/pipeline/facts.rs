//! Figures from the reference architectures (the NVIDIA DGX SuperPOD reference architectures; arithmetic on the reference architectures' tables; public descriptions of the systems they model), asserted against the
//! expanded fabric. The expected numbers are the published ones, not the program's output.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use railyard::model::{Network, Role, Tier};

fn superpod_h100(sus: u32) -> String {
    inventory("dgx-superpod-h100.yaml").replace(
        "count: 4\n  nodes_per_su",
        &format!("count: {sus}\n  nodes_per_su"),
    )
}

/// NVIDIA DGX SuperPOD H100 RA (RA-11333-001), Network Fabrics Table 4 (DGX H100 SuperPOD, QM9700): SUs → (nodes, GPUs, leaves, spines,
/// node-leaf cables incl. 4 UFM, spine-leaf cables).
const H100_TABLE: [(u32, usize, u64, usize, usize, usize, usize); 4] = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
];

#[test]
fn superpod_h100_matches_table_4() {
    for (sus, nodes, gpus, leaves, spines, node_leaf, leaf_spine) in H100_TABLE {
        let f = compile_text("h100", &superpod_h100(sus));
        let s = railyard::artifacts::summary::summarize(&f);
        assert_eq!(count_role(&f, Role::Node), nodes, "{sus} SU nodes");
        assert_eq!(s.gpus, gpus, "{sus} SU GPUs");
        assert_eq!(count_role(&f, Role::Leaf), leaves, "{sus} SU leaves");
        assert_eq!(count_role(&f, Role::Spine), spines, "{sus} SU spines");
        assert_eq!(
            count_links(&f, Network::Compute, Tier::NodeLeaf),
            node_leaf,
            "{sus} SU node-leaf cables"
        );
        assert_eq!(
            count_links(&f, Network::Compute, Tier::LeafSpine),
            leaf_spine,
            "{sus} SU leaf-spine cables"
        );
        assert_eq!(count_role(&f, Role::Appliance), 4, "4 UFM appliances");
    }
}

#[test]
fn superpod_h100_links_per_leaf_spine_pair_are_equal() {
    // arithmetic on the reference architectures' tables: 32 uplinks per leaf over 4, 8, 16 spines → 8, 4, 2 links per pair.
    for (sus, per_pair) in [(1, 8), (2, 4), (4, 2)] {
        let f = compile_text("h100", &superpod_h100(sus));
        let pairs = links_per_pair(&f);
        let leaves = count_role(&f, Role::Leaf);
        let spines = count_role(&f, Role::Spine);
        assert_eq!(
            pairs.len(),
            leaves * spines,
            "every leaf reaches every spine ({sus} SU)"
        );
        assert!(
            pairs.values().all(|n| *n == per_pair),
            "{sus} SU: links per pair {:?}",
            pairs.values().collect::<BTreeSet<_>>()
        );
    }
}

/// NVIDIA DGX SuperPOD B200 RA, Network Fabrics larger-scale table (DGX B200, QM9700): SUs → (nodes, GPUs, leaf, spine, core,
/// node-leaf, leaf-spine, spine-core).
/// (SUs, nodes, GPUs, leaf, spine, core, node-leaf, leaf-spine, spine-core)
type B200Row = (u32, usize, u64, usize, usize, usize, usize, usize, usize);

const B200_TABLE: [B200Row; 6] = [
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
];

#[test]
fn superpod_b200_matches_larger_scale_table() {
    let base = inventory("dgx-b200-16su.yaml");
    for (sus, nodes, gpus, leaf, spine, core, nl, ls, sc) in B200_TABLE {
        let text = base.replace("count: 16", &format!("count: {sus}"));
        let f = compile_text("b200", &text);
        let s = railyard::artifacts::summary::summarize(&f);
        assert_eq!(
            (count_role(&f, Role::Node), s.gpus),
            (nodes, gpus),
            "{sus} SU nodes/GPUs"
        );
        assert_eq!(count_role(&f, Role::Leaf), leaf, "{sus} SU leaves");
        assert_eq!(count_role(&f, Role::Spine), spine, "{sus} SU spines");
        assert_eq!(count_role(&f, Role::Core), core, "{sus} SU cores");
        assert_eq!(
            count_links(&f, Network::Compute, Tier::NodeLeaf),
            nl,
            "{sus} SU node-leaf"
        );
        assert_eq!(
            count_links(&f, Network::Compute, Tier::LeafSpine),
            ls,
            "{sus} SU leaf-spine"
        );
        assert_eq!(
            count_links(&f, Network::Compute, Tier::SpineCore),
            sc,
            "{sus} SU spine-core"
        );
        assert_eq!(
            s.tiers,
            if sus <= 8 { 2 } else { 3 },
            "2-tier up to 8 SUs, 3-tier from 16"
        );
    }
}

#[test]
fn spectrum_x_cloud_three_sus() {
    // a Spectrum-X GPU cloud as its operator describes it publicly (Dell XE9680 with H200, SN5600, 2024): 256 node uplinks per SU on 4 SN5600 leaves, 8 spines, 768 leaf-spine cables.
    let f = compile_inventory("spectrum-x-cloud.yaml");
    assert_eq!(count_role(&f, Role::Leaf), 12);
    assert_eq!(count_role(&f, Role::Spine), 8);
    assert_eq!(count_links(&f, Network::Compute, Tier::LeafSpine), 768);
    let mut per_su: BTreeMap<u32, usize> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.network == Network::Compute && l.tier == Tier::NodeLeaf)
    {
        *per_su.entry(f.device_of(&l.b).su.unwrap_or(0)).or_default() += 1;
    }
    assert_eq!(
        per_su.into_values().collect::<Vec<_>>(),
        vec![256, 256, 256]
    );
    // 2 rails per leaf: every leaf serves exactly two rails.
    assert!(
        f.devices()
            .filter(|d| d.role == Role::Leaf)
            .all(|d| d.rails.len() == 2)
    );
    // Optics per a Spectrum-X GPU cloud as its operator describes it publicly (Dell XE9680 with H200, SN5600, 2024): switch side OSFP 2x400G twin-port SR4, NIC side QSFP112 SR4.
    let bom = file(&outputs(&inventory("spectrum-x-cloud.yaml")), "bom.csv");
    assert!(
        bom.contains("MMA4Z00-NS,"),
        "twin-port OSFP on the switch side:\n{bom}"
    );
    assert!(
        bom.contains("MMA1Z00-NS400,"),
        "QSFP112 SR4 on the BlueField-3 side:\n{bom}"
    );
}

fn spectrum_x(sus: u32) -> String {
    inventory("spectrum-x-cloud.yaml").replace("count: 3", &format!("count: {sus}"))
}

#[test]
fn spectrum_x_cloud_four_sus_fills_every_spine_port() {
    let f = compile_text("spx4", &spectrum_x(4));
    assert_eq!(count_links(&f, Network::Compute, Tier::LeafSpine), 1024);
    // SN5600: 64 cages × 2 × 400G = 128 ports per spine; 8 spines × 128 = 1024, all used.
    let mut per_spine: BTreeMap<String, usize> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.tier == Tier::LeafSpine && l.network == Network::Compute)
    {
        *per_spine.entry(f.device_of(&l.b).name.clone()).or_default() += 1;
    }
    assert_eq!(per_spine.len(), 8);
    assert!(per_spine.values().all(|n| *n == 128), "{per_spine:?}");
}

#[test]
fn growing_spectrum_x_to_four_sus_changes_no_existing_cable() {
    let three = cabling_rows(&spectrum_x(3));
    let four = cabling_rows(&spectrum_x(4));
    // Every column of every existing row stays, the harness's ordered length included: the
    // SUs' OOB uplinks reach into several rows, so their gateway cage breaks out at a panel in
    // its own rack and a new SU's uplink never re-orders a harness live legs are on.
    let missing = rows_gone(&three, &four);
    assert!(
        missing.is_empty(),
        "rows of the 3-SU plan changed or vanished in the 4-SU plan: {missing:#?}"
    );
    assert!(four.len() > three.len());
}

#[test]
fn builds_are_byte_identical() {
    for inv in [
        "spectrum-x-cloud.yaml",
        "dgx-superpod-h100.yaml",
        "lab-small.yaml",
        "mdx-research-cloud.yaml",
    ] {
        let a = outputs(&inventory(inv));
        let b = outputs(&inventory(inv));
        assert_eq!(a, b, "{inv}");
    }
}

#[test]
fn lab_small_is_two_spines_two_leaves_four_nodes_two_rails() {
    let f = compile_inventory("lab-small.yaml");
    assert_eq!(count_role(&f, Role::Spine), 2);
    assert_eq!(count_role(&f, Role::Leaf), 2);
    assert_eq!(count_role(&f, Role::Node), 4);
    assert_eq!(count_links(&f, Network::Compute, Tier::NodeLeaf), 8);
    // Every leaf to every spine; rail 1 on leaf 1, rail 2 on leaf 2.
    assert_eq!(links_per_pair(&f).len(), 4);
    for l in f
        .links()
        .filter(|l| l.tier == Tier::NodeLeaf && l.network == Network::Compute)
    {
        let leaf = f.device_of(&l.b);
        assert_eq!(leaf.rails, vec![l.rail.unwrap()]);
    }
}

#[test]
fn oob_reaches_every_switch_and_node() {
    for inv in [
        "spectrum-x-cloud.yaml",
        "dgx-superpod-h100.yaml",
        "dgx-b200-16su.yaml",
        "tor-cluster.yaml",
    ] {
        let f = compile_inventory(inv);
        let managed: BTreeSet<&str> = f
            .links()
            .filter(|l| l.network == Network::Oob)
            .map(|l| f.device_of(&l.a).name.as_str())
            .collect();
        let gateways: Vec<&str> = f
            .devices()
            .filter(|d| d.role == Role::OobGateway)
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(gateways.len(), 1, "{inv}: one OOB gateway");
        // Every device has a management cable; an OOB switch's is its uplink to the gateway,
        // which is the root of the management network.
        for d in f.devices().filter(|d| d.role != Role::OobGateway) {
            assert!(
                managed.contains(d.name.as_str()),
                "{inv}: `{}` has no OOB cable",
                d.name
            );
        }
        for l in f.links().filter(|l| l.tier == Tier::OobUplink) {
            assert!(f.device_of(&l.a).role.is_oob(), "{inv}: {}", l.cable_id);
            assert_eq!(f.device_of(&l.b).name, gateways[0], "{inv}: {}", l.cable_id);
        }
    }
}

#[test]
fn twin_planar_nics_reach_both_planes() {
    let f = compile_inventory("spectrum-x-twin-planar.yaml");
    // NVIDIA DGX SuperPOD B300 RA B300 Table 3, 1 SU: 16 leaves and 8 spines (here: 8 + 4 per plane).
    assert_eq!(count_role(&f, Role::Leaf), 16);
    assert_eq!(count_role(&f, Role::Spine), 8);
    let mut planes: BTreeMap<(String, u32), BTreeSet<u32>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.tier == Tier::NodeLeaf && l.network == Network::Compute)
    {
        planes
            .entry((f.device_of(&l.a).name.clone(), l.rail.unwrap()))
            .or_default()
            .insert(l.plane.unwrap());
    }
    assert_eq!(planes.len(), 64 * 8);
    assert!(planes.values().all(|p| p.len() == 2));
    // Planes are independent graphs: no leaf-spine cable crosses planes.
    for l in f.links().filter(|l| l.tier == Tier::LeafSpine) {
        assert_eq!(f.device_of(&l.a).plane, f.device_of(&l.b).plane);
    }
}

#[test]
fn top_of_rack_puts_all_nics_of_a_node_on_one_leaf() {
    let f = compile_inventory("tor-cluster.yaml");
    let mut leaves: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.tier == Tier::NodeLeaf && l.network == Network::Compute)
    {
        leaves
            .entry(f.device_of(&l.a).name.clone())
            .or_default()
            .insert(f.device_of(&l.b).name.clone());
    }
    assert_eq!(leaves.len(), 64);
    assert!(leaves.values().all(|s| s.len() == 1));
}

#[test]
fn labels_are_short_and_name_both_ends() {
    for inv in ["spectrum-x-cloud.yaml", "dgx-superpod-h100.yaml"] {
        let f = compile_inventory(inv);
        for l in f.links() {
            let label = f.label(l);
            assert!(label.len() < 100, "{label}");
            assert!(
                label.contains(&f.device_of(&l.a).name) && label.contains(&f.device_of(&l.b).name)
            );
        }
    }
}
