//! Properties over many generated valid specs: every node reaches every rail of its SU, no port
//! carries two cables, a 1:1 leaf has equal up and down bandwidth, and compiling never panics.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use railyard::model::{Network, Role, Tier};

/// A rail-optimized spec with a user-defined node of `rails` 400G NICs.
fn spec(sus: u32, nps: u32, rails: u32, rpl: u32, leaf: &str, populated: Option<u32>) -> String {
    let nics: String = (0..rails)
        .map(|i| format!("        - {{ports: [n{i}], speed: 400G, form: osfp, cage: n{i}}}\n"))
        .collect();
    let pop = populated
        .map(|p| format!(", populated: [{p}]"))
        .unwrap_or_default();
    let transport = if leaf == "qm9700" {
        "infiniband"
    } else {
        "ethernet"
    };
    format!(
        "name: prop\nscalable_units: {{count: {sus}, nodes_per_su: {nps}, node_model: gen{pop}}}\n\
compute:\n  transport: {transport}\n  leaf: {{model: {leaf}, rails_per_leaf: {rpl}}}\n  spine: {{model: {leaf}}}\n\
catalog:\n  nodes:\n    gen:\n      vendor: t\n      description: t\n      gpus: {rails}\n      gpu_model: t\n      ru: 1\n      compute:\n{nics}\
      bmc: {{ports: [bmc], speed: 1G, form: rj45}}\n"
    )
}

fn arb_spec() -> impl Strategy<Value = String> {
    (
        1u32..=6,
        prop::sample::select(vec![2u32, 4, 8]),
        prop::sample::select(vec!["sn5600", "qm9700"]),
        1u32..=4,
    )
        .prop_flat_map(|(sus, rails, leaf, nps_div)| {
            let rpls: Vec<u32> = (1..=rails).filter(|d| rails % d == 0).collect();
            (
                Just(sus),
                Just(rails),
                Just(leaf),
                prop::sample::select(rpls),
                Just(nps_div),
            )
        })
        .prop_map(|(sus, rails, leaf, rpl, nps_div)| {
            // Half a leaf's ports face nodes at 1:1: nodes per SU ≤ ports / 2 / rails per leaf.
            let ports = if leaf == "sn5600" { 128 } else { 64 };
            let nps = (ports / 2 / rpl / nps_div).max(1);
            spec(sus, nps, rails, rpl, leaf, None)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_fabrics_keep_the_rail_and_port_invariants(text in arb_spec()) {
        let c = railyard::compile(&railyard::diag::SourceFile::new("gen.yaml", text.clone()));
        let Some(f) = c.fabric else {
            // Some combinations exceed a 2-tier spine; that must be a diagnostic, never a panic.
            prop_assert!(c.diagnostics.has_errors());
            return Ok(());
        };
        // Every node reaches every rail of its SU, each exactly once, on a leaf of its SU.
        let mut rails_of: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for l in f.links().filter(|l| l.network == Network::Compute && l.tier == Tier::NodeLeaf) {
            let (node, leaf) = (f.device_of(&l.a), f.device_of(&l.b));
            prop_assert_eq!(node.su, leaf.su);
            prop_assert!(leaf.rails.contains(&l.rail.unwrap()));
            rails_of.entry(node.name.clone()).or_default().push(l.rail.unwrap());
        }
        let rails = f.sizing.compute.rails;
        prop_assert_eq!(rails_of.len(), f.devices().filter(|d| d.role == Role::Node).count());
        for (_, mut r) in rails_of {
            r.sort_unstable();
            prop_assert_eq!(r, (1..=rails).collect::<Vec<_>>());
        }
        // No port carries two cables.
        let mut seen = BTreeSet::new();
        for l in f.links() {
            for e in [&l.a, &l.b] {
                let key = (f.device_of(e).name.clone(), f.port_name(f.device_of(e), e.port));
                prop_assert!(seen.insert(key.clone()), "port used twice: {:?}", key);
            }
        }
        // 1:1 leaves (fully populated): downlink bandwidth equals uplink bandwidth.
        let mut bw: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for l in f.links().filter(|l| l.network == Network::Compute) {
            let g = u64::from(l.speed.as_gbps());
            match l.tier {
                Tier::NodeLeaf => bw.entry(f.device_of(&l.b).name.clone()).or_default().0 += g,
                Tier::LeafSpine => bw.entry(f.device_of(&l.a).name.clone()).or_default().1 += g,
                _ => {}
            }
        }
        for (leaf, (down, up)) in bw {
            prop_assert_eq!(down, up, "leaf {}", leaf);
        }
    }

    #[test]
    fn compiling_never_panics_on_mangled_specs(cut in 0usize..400, junk in "[ -~\\n]{0,12}") {
        let base = common::inventory("dgx-superpod-h100.yaml");
        let cut = cut.min(base.len());
        let cut = (0..=cut).rev().find(|i| base.is_char_boundary(*i)).unwrap_or(0);
        let text = format!("{}{}{}", &base[..cut], junk, &base[cut..]);
        let _ = railyard::compile(&railyard::diag::SourceFile::new("mangled.yaml", text));
    }
}
