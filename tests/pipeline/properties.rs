//! Properties over many generated valid specs: every node reaches every rail of its SU, no port
//! carries two cables, a 1:1 leaf has equal up and down bandwidth, storage fabrics of any size
//! are one connected routed fabric (never an island), and compiling never panics.

use crate::common;

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

/// DGX H100 nodes (2 storage ports) on a small InfiniBand compute fabric, with a storage fabric
/// of a generated size, leaf model, ratio and spine tier (none, one, or grown to three).
fn arb_storage() -> impl Strategy<Value = String> {
    (
        1u32..=12,
        prop::sample::select(vec![4u32, 8, 16, 32]),
        prop::sample::select(vec![("sn4600c", "100G"), ("sn5600", "200G")]),
        prop::sample::select(vec!["1:1", "3:1"]),
        prop::sample::select(vec!["", "spine: {model: sn4600c}", "spine: {model: sn4600c}, core: {model: sn4600c}, tiers: 3"]),
    )
        .prop_map(|(sus, nps, (leaf, speed), ratio, upper)| {
            format!(
                "name: st\nscalable_units: {{count: {sus}, nodes_per_su: {nps}, node_model: dgx-h100}}\n\
                 compute: {{transport: infiniband, leaf: {{model: qm9700, rails_per_leaf: 1}}, spine: {{model: qm9700}}}}\n\
                 storage: {{port_speed: {speed}, uplink_speed: 100G, oversubscription: \"{ratio}\", leaf: {{model: {leaf}}}, {upper}}}\n\
                 oob: {{gateway: {{model: sn5400}}}}\n"
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_storage_fabrics_are_one_routed_fabric(text in arb_storage()) {
        let c = railyard::compile(&railyard::diag::SourceFile::new("gen.yaml", text.clone()));
        let Some(f) = c.design.map(|d| d.fabric) else {
            // More than one pair without spines, or a size a spine tier cannot take: a located
            // diagnostic, never a panic and never an island.
            prop_assert!(c.diagnostics.has_errors());
            prop_assert!(c.diagnostics.iter().all(|d| d.span.is_some() || d.code.id == "RY0501"), "{:?}", c.diagnostics.sorted().iter().map(|d| (d.code.id, &d.message)).collect::<Vec<_>>());
            return Ok(());
        };
        let switches: BTreeSet<&str> = f
            .devices()
            .filter(|d| d.network == Network::Storage && d.role.is_switch())
            .map(|d| d.name.as_str())
            .collect();
        // Every node's two storage ports land on the two leaves of one pair.
        let mut leaves_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut adj: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut per_pair: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for l in f.links().filter(|l| l.network == Network::Storage) {
            let (a, b) = (f.device_of(&l.a).name.as_str(), f.device_of(&l.b).name.as_str());
            if l.tier == Tier::NodeLeaf {
                leaves_of.entry(a).or_default().insert(b);
            } else {
                adj.entry(a).or_default().insert(b);
                adj.entry(b).or_default().insert(a);
                *per_pair.entry((a, b)).or_default() += 1;
            }
        }
        for (node, leaves) in &leaves_of {
            prop_assert_eq!(leaves.len(), 2, "{}", node);
            let groups: BTreeSet<Option<u32>> = leaves
                .iter()
                .map(|n| f.devices().find(|d| d.name == *n).and_then(|d| d.group))
                .collect();
            prop_assert_eq!(groups.len(), 1, "{} spans two leaf groups", node);
        }
        // The storage switches form one connected fabric: no island.
        if switches.len() > 1 {
            let start = *switches.iter().next().unwrap();
            let mut seen: BTreeSet<&str> = BTreeSet::from([start]);
            let mut todo = vec![start];
            while let Some(x) = todo.pop() {
                for y in adj.get(x).into_iter().flatten() {
                    if seen.insert(y) {
                        todo.push(y);
                    }
                }
            }
            prop_assert_eq!(&seen, &switches, "storage islands");
        }
        // Links between any two switches that are joined come in equal bundles per tier.
        let mut bundles: BTreeMap<Tier, BTreeSet<usize>> = BTreeMap::new();
        for l in f.links().filter(|l| l.network == Network::Storage && l.tier != Tier::NodeLeaf) {
            let key = (f.device_of(&l.a).name.as_str(), f.device_of(&l.b).name.as_str());
            bundles.entry(l.tier).or_default().insert(per_pair[&key]);
        }
        for (tier, sizes) in bundles {
            prop_assert_eq!(sizes.len(), 1, "{:?} bundles differ: {:?}", tier, sizes);
        }
    }

    #[test]
    fn generated_fabrics_keep_the_rail_and_port_invariants(text in arb_spec()) {
        let c = railyard::compile(&railyard::diag::SourceFile::new("gen.yaml", text.clone()));
        let Some(f) = c.design.map(|d| d.fabric) else {
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

    /// Every planned link has an assembly whose two ends fit their cages (form, top) and whose
    /// cable reaches its length, or the spec is refused with a located RY100x diagnostic.
    #[test]
    fn every_link_is_built_from_parts_that_fit_or_refused_where_it_is_written(
        text in prop_oneof![arb_spec(), arb_storage()]
    ) {
        let c = railyard::compile(&railyard::diag::SourceFile::new("gen.yaml", text.clone()));
        let physical: Vec<_> = c
            .diagnostics
            .sorted()
            .into_iter()
            .filter(|d| d.code.id.starts_with("RY10"))
            .collect();
        for d in &physical {
            prop_assert!(d.span.is_some(), "{} not located", d.message);
        }
        let Some(railyard::design::Design { fabric: f, physical: p, .. }) = c.design else { return Ok(()) };
        prop_assert_eq!(p.links.len(), f.link_count());
        for (id, l) in f.links_with_ids() {
            let b = &p.links[id];
            for c in b.cord..b.cord + b.cord_count {
                let cord = p.cord(c).expect("every cord of a link is in the plan");
                prop_assert!(cord.length_m + 1e-9 >= l.route_m, "{} shorter than its run", cord.part);
            }
            for (end, m) in [(&l.a, b.a_module), (&l.b, b.b_module)] {
                let Some(m) = m else { continue };
                let part = &f.catalog.modules[p.module(Some(m)).expect("module").part.as_str()];
                let d = f.device_of(end);
                let (form, top) = match (f.switch_model(d), f.node_model(d), end.port.cage()) {
                    (Some(sm), _, Some(cage)) => {
                        let g = sm.port_groups.iter()
                            .find(|g| u32::from(cage) >= g.first && u32::from(cage) < g.first + g.count)
                            .expect("cage in a group");
                        (g.form, g.cage().top)
                    }
                    (_, Some(nm), _) => {
                        let name = f.port_name(d, end.port);
                        let np = nm.compute.iter().chain(&nm.storage).chain(&nm.inband)
                            .find(|p| p.ports.iter().any(|n| n.as_str() == name))
                            .expect("node port");
                        (np.form, np.cage_spec().top)
                    }
                    _ => continue,
                };
                prop_assert!(form.accepts(part.form) || part.form == railyard::model::Form::Sfp28,
                    "{:?} module in a {:?} cage", part.form, form);
                if part.form != railyard::model::Form::Sfp28 {
                    prop_assert_eq!(part.top, top);
                }
                prop_assert!(part.reach() + 1e-9 >= l.route_m);
            }
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
