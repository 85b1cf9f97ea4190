//! The capacity arithmetic on the reference fabrics. Expectations come from the reference
//! architectures the inventories model, not from the program:
//! - NVIDIA DGX SuperPOD H100 RA (RA-11333-001, "Network Fabrics"): an SU is 32 DGX H100 with
//!   8 NDR 400G compute ports each, one per rail, on 8 rail leaves (QM9700, 32 ports down, 32 up,
//!   non-blocking); 4 SUs use 16 spines.
//! - NVIDIA Spectrum-X RA: storage/in-band (converged) leaves come in pairs and every node is
//!   dual-homed to its pair (EVPN multihoming), so one member down leaves every node a link.

use std::collections::BTreeSet;

use railyard::diag::SourceFile;
use railyard::impact::*;
use railyard::model::{Network, Role, Tier};

fn compiled(name: &str) -> railyard::Compiled {
    let text = std::fs::read_to_string(format!(
        "{}/inventories/{name}.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_default();
    let c = railyard::compile(&SourceFile::new(name, text));
    assert!(c.design.is_some(), "{name} did not compile");
    c
}

fn analyse_one(c: &railyard::Compiled, failed: &str) -> Impact {
    let Some(design) = &c.design else {
        panic!("not compiled");
    };
    let fails = match failures(&design.fabric, &[failed.to_string()], false) {
        Ok(v) => v,
        Err(e) => panic!("{e:?}"),
    };
    let mut a = analyse(design, None, &fails);
    assert_eq!(a.impacts.len(), 1);
    a.impacts.remove(0)
}

fn loss<'a>(i: &'a Impact, net: Network, name: &str, tier: Tier) -> Option<&'a Loss> {
    i.losses
        .iter()
        .find(|l| l.group.network == net && l.group.name == name && l.group.tier == tier)
}

#[test]
fn superpod_rail_leaf_down_loses_one_rail_of_its_sus_32_nodes() {
    let c = compiled("dgx-superpod-h100");
    let Some(f) = c.design.as_ref().map(|d| &d.fabric) else {
        unreachable!()
    };
    // SU 2 (SU 1 gives a position to the UFM appliances): the leaf of rail 3.
    let Some(leaf) = f
        .devices()
        .find(|d| d.role == Role::Leaf && d.su == Some(2) && d.rails == [3])
    else {
        panic!("no rail 3 leaf in SU 2");
    };
    let i = analyse_one(&c, &leaf.name);
    assert_eq!(i.data_cut_off(), 0, "a rail leaf cuts no node off");
    assert_eq!(
        i.rails_lost.len(),
        32,
        "one rail of each of the SU's 32 DGX"
    );
    assert!(i.rails_lost.iter().all(|r| r.rail == Some(3)));
    let su = loss(&i, Network::Compute, "su02", Tier::NodeLeaf).expect("SU 2 loss");
    assert_eq!(su.lost_gbps, 32 * 400);
    assert_eq!(su.capacity_gbps, 32 * 8 * 400);
    assert_eq!(su.percent, 12.5, "1/8 of the SU's compute bandwidth");
    // Rail 3 of the whole cluster: 1 of 4 SUs' rail-3 links (SU 1 has 31 DGX).
    let rail = loss(&i, Network::Compute, "rail3", Tier::NodeLeaf).expect("rail loss");
    assert_eq!(rail.lost_gbps, 32 * 400);
    assert_eq!(rail.capacity_gbps, (31 + 3 * 32) * 400);
    // The leaf's 32 uplinks (non-blocking) leave every spine.
    assert_eq!(
        loss(&i, Network::Compute, "su02", Tier::LeafSpine).map(|l| l.lost_gbps),
        Some(32 * 400)
    );
    let spines: BTreeSet<&str> = i.ecmp.iter().map(|e| e.switch.as_str()).collect();
    assert_eq!(spines.len(), 16, "every spine loses its route to the leaf");
    assert_eq!(i.blocks.len(), 1);
    assert_eq!(
        (i.blocks[0].block.as_str(), i.blocks[0].degraded),
        ("su02", 32)
    );
}

#[test]
fn superpod_spine_down_narrows_every_leaf_from_s_to_s_minus_one_spines() {
    let c = compiled("dgx-superpod-h100");
    let Some(f) = c.design.as_ref().map(|d| &d.fabric) else {
        unreachable!()
    };
    let spines: Vec<&str> = f
        .devices()
        .filter(|d| d.role == Role::Spine)
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(spines.len(), 16, "the RA's 16 spines for 4 SUs");
    let i = analyse_one(&c, spines[0]);
    assert_eq!(i.data_cut_off(), 0);
    assert!(i.rails_lost.is_empty());
    let ups: Vec<&EcmpChange> = i.ecmp.iter().filter(|e| e.toward == "up").collect();
    assert_eq!(ups.len(), 32, "every one of the 32 leaves");
    for e in ups {
        // 32 uplinks spread over 16 spines: the width left is 15/16 of it.
        assert_eq!(e.before, 32, "{}", e.switch);
        assert_eq!(e.after * 16, e.before * 15, "{}", e.switch);
    }
    let su = loss(&i, Network::Compute, "su02", Tier::LeafSpine).expect("SU 2 uplinks");
    assert_eq!(su.percent, 6.25, "1/16 of the SU's uplinks");
    assert!(loss(&i, Network::Compute, "su02", Tier::NodeLeaf).is_none());
    assert_eq!(i.blocks.len(), 4, "every SU's block is under every spine");
}

#[test]
fn a_storage_pair_member_down_cuts_no_node_off() {
    let c = compiled("spectrum-x-cloud");
    let Some(f) = c.design.as_ref().map(|d| &d.fabric) else {
        unreachable!()
    };
    let Some(leaf) = f.devices().find(|d| d.role == Role::StorageLeaf) else {
        panic!("no storage leaf");
    };
    let i = analyse_one(&c, &leaf.name);
    let node_links = i
        .losses
        .iter()
        .find(|l| l.group.network == Network::Storage && l.group.tier == Tier::NodeLeaf)
        .map_or(0, |l| l.lost_gbps);
    assert!(node_links > 0, "the leaf serves nodes");
    assert!(i.cut_off.is_empty(), "{:?}", i.cut_off);
    assert!(i.rails_lost.is_empty());
}

#[test]
fn lab_small_spine_down_halves_each_leafs_uplinks() {
    // lab-small: 2 spines; each leaf's uplinks split evenly over them.
    let c = railyard::compile(&SourceFile::new("lab-small", railyard::LAB_SMALL));
    let i = analyse_one(&c, "spine01");
    let ups: Vec<(&str, usize, usize)> = i
        .ecmp
        .iter()
        .filter(|e| e.toward == "up")
        .map(|e| (e.switch.as_str(), e.before, e.after))
        .collect();
    assert_eq!(ups.len(), 2);
    assert!(ups.iter().all(|&(_, b, a)| a * 2 == b && b > 0), "{ups:?}");
    assert!(i.cut_off.is_empty() && i.rails_lost.is_empty());
}

#[test]
fn a_node_cable_loses_that_rail_and_unknown_names_are_all_reported() {
    let c = railyard::compile(&SourceFile::new("lab-small", railyard::LAB_SMALL));
    let Some(f) = c.design.as_ref().map(|d| &d.fabric) else {
        unreachable!()
    };
    let i = analyse_one(&c, "gpu001:ens1f0");
    assert_eq!(i.links_down, 1);
    assert_eq!(i.rails_lost.len(), 1);
    assert_eq!(
        (i.rails_lost[0].node.as_str(), i.rails_lost[0].rail),
        ("gpu001", Some(1))
    );
    let e = failures(
        f,
        &["nope".into(), "spine01".into(), "gpu001:zz".into()],
        false,
    );
    assert_eq!(e.map_err(|v| v.len()), Err(2));
}

#[test]
fn every_failure_is_ranked_worst_first() {
    let c = railyard::compile(&SourceFile::new("lab-small", railyard::LAB_SMALL));
    let Some(design) = &c.design else {
        unreachable!()
    };
    let fails = failures(&design.fabric, &[], true).unwrap_or_default();
    let a = analyse(design, None, &fails);
    assert_eq!(a.impacts.len(), fails.len());
    // The in-band leaf is the only one for every node's in-band port: it ranks first.
    assert_eq!(a.impacts[0].failure, Failure::Switch("inb-leaf01".into()));
    assert_eq!(a.impacts[0].data_cut_off(), 4);
    assert!(to_text(&a).contains("inb-leaf01"));
}

#[test]
fn the_command_prints_json_and_refuses_unknown_names() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_railyard"))
            .args(["impact", "--example", "lab-small"])
            .args(args)
            .output()
            .expect("railyard runs")
    };
    let out = run(&["--fail", "spine01", "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["impacts"][0]["failure"]["name"], "spine01");
    assert_eq!(v["impacts"][0]["failure"]["kind"], "switch");
    let bad = run(&["--fail", "no-such-switch", "--fail", "spine99"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("no-such-switch") && err.contains("spine99"),
        "{err}"
    );
}

/// `cabling.csv` of a compiled example: compute node–leaf rows as (lower device, leaf).
fn compute_node_links(c: &railyard::Compiled) -> Vec<(String, String)> {
    use railyard::output::{OutputGroup, Selection};
    let files = c
        .outputs_only(
            &railyard::render::Templates::default(),
            &Selection::of(&[OutputGroup::Cabling]),
        )
        .expect("design")
        .expect("outputs");
    let csv = files
        .iter()
        .find(|f| f.path == "cabling.csv")
        .expect("cabling.csv");
    let mut r = csv::Reader::from_reader(csv.bytes.as_slice());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect(n);
    let (a, b, net, tier) = (
        col("a_device"),
        col("b_device"),
        col("network"),
        col("tier"),
    );
    r.records()
        .map(|row| row.expect("row"))
        .filter(|row| &row[net] == "compute" && &row[tier] == "node-leaf")
        .map(|row| (row[a].to_string(), row[b].to_string()))
        .collect()
}

/// The SuperPOD example puts its 4 UFM appliances on SU 1's leaves, one compute port each; a
/// DGX H100 has 8 compute ports (DGX H100 user guide, Table 6; `catalog/nodes.yaml`), one per
/// rail leaf. Worked out from the build's `cabling.csv`: failing a leaf cuts off exactly the
/// devices whose every compute cable ends on it, and those with fewer than 8 compute ports are
/// no GPU node. Before, the UFM appliance was counted as a node "cut off" (ranking SU 1's leaves
/// above the others) while the scheduler block said 0.
#[test]
fn an_appliance_cut_off_is_named_apart_and_never_counted_as_a_node() {
    let c = compiled("dgx-superpod-h100");
    let links = compute_node_links(&c);
    let mut ports: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for (dev, leaf) in &links {
        ports.entry(dev.as_str()).or_default().push(leaf.as_str());
    }
    let gpu_nodes: BTreeSet<&str> = ports
        .iter()
        .filter(|(_, l)| l.len() == 8)
        .map(|(d, _)| *d)
        .collect();
    assert_eq!(
        gpu_nodes.len(),
        31 + 3 * 32,
        "the RA's DGX: SU 1 gives one position to UFM"
    );
    let Some(design) = &c.design else {
        unreachable!()
    };
    let all = analyse(
        design,
        None,
        &failures(&design.fabric, &[], false).expect("all"),
    );
    let mut named = 0;
    for i in &all.impacts {
        // Devices whose every compute cable ends on the failed switch.
        let alone: BTreeSet<&str> = ports
            .iter()
            .filter(|(_, l)| l.iter().all(|leaf| *leaf == i.failure.name()))
            .map(|(d, _)| *d)
            .collect();
        let nodes: BTreeSet<&str> = alone.intersection(&gpu_nodes).copied().collect();
        let others: BTreeSet<String> = alone
            .difference(&gpu_nodes)
            .map(|d| format!("{d} (compute)"))
            .collect();
        let cut: BTreeSet<&str> = i
            .cut_off
            .iter()
            .filter(|n| n.network == Network::Compute)
            .map(|n| n.node.as_str())
            .collect();
        assert_eq!(cut, nodes, "{}", i.failure.name());
        let appliances: BTreeSet<String> = i
            .appliances_cut_off()
            .into_iter()
            .filter(|a| a.ends_with("(compute)"))
            .collect();
        assert_eq!(appliances, others, "{}", i.failure.name());
        named += others.len();
        // The scheduler blocks and the ranking figure agree.
        let in_blocks: usize = i.blocks.iter().map(|b| b.cut_off).sum();
        assert_eq!(in_blocks, i.data_cut_off(), "{}", i.failure.name());
    }
    assert_eq!(named, 4, "the 4 UFM appliances, each on one SU 1 leaf");
    // As the command prints it: the text names the appliance apart, the JSON too.
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_railyard"))
            .arg("impact")
            .arg(format!(
                "{}/inventories/dgx-superpod-h100.yaml",
                env!("CARGO_MANIFEST_DIR")
            ))
            .args(args)
            .output()
            .expect("railyard runs")
    };
    let leaf = ports
        .iter()
        .find(|(d, _)| !gpu_nodes.contains(*d))
        .map(|(_, l)| l[0])
        .expect("an appliance's leaf");
    let appliance = ports
        .iter()
        .find(|(d, _)| !gpu_nodes.contains(*d))
        .map(|(d, _)| *d)
        .expect("an appliance");
    let out = run(&["--fail", leaf, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let i = &v["impacts"][0];
    assert_eq!(i["cut_off"], serde_json::json!([]), "{i}");
    assert_eq!(
        i["appliances"],
        serde_json::json!([{"appliance": appliance, "network": "compute", "cut_off": true}])
    );
    let text = String::from_utf8_lossy(&run(&["--fail", leaf]).stdout).into_owned();
    assert!(
        text.contains(&format!("appliances cut off (1): {appliance} (compute)")),
        "{text}"
    );
    // Not among the nodes cut off.
    assert!(
        !text
            .lines()
            .any(|l| l.trim_start().starts_with("cut off") && l.contains(appliance)),
        "{text}"
    );
}
