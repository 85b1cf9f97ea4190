//! `railyard diff` tells the truth about every change a build writes (issue #39 items 1–6). Each
//! test writes its two specs, renders both, and derives what must be said from the two builds'
//! files themselves (the CSV and YAML parsed here), never from diff's output.

use crate::common::inventory;

use std::collections::{BTreeMap, BTreeSet};

use railyard::change::cables::Action;
use railyard::change::{self, ChangeSet, Files, Verdict};

// Every file of the groups a day-two change touches, as the command line reads a spec.
use crate::diff::files as build;

fn compare(old: &Files, new: &Files) -> ChangeSet {
    change::compare(old, new).unwrap_or_else(|e| panic!("cannot compare: {e:?}"))
}

/// The paths whose bytes differ, or that one side lacks: derived from the bytes alone.
fn differing(old: &Files, new: &Files) -> BTreeSet<String> {
    old.keys()
        .chain(new.keys())
        .filter(|p| old.get(*p) != new.get(*p))
        .cloned()
        .collect()
}

/// Every differing file is accounted for: a file read by meaning, or listed by path.
fn assert_accounted(old: &Files, new: &Files, cs: &ChangeSet) {
    let listed: BTreeSet<&str> = cs.files.iter().map(|f| f.path.as_str()).collect();
    let by_meaning = |p: &str| {
        p.starts_with("configs/")
            || p.starts_with("intent/")
            || ["cabling.csv", "addresses.csv", "bom.csv"].contains(&p)
    };
    for p in differing(old, new) {
        assert!(
            by_meaning(&p) || listed.contains(p.as_str()),
            "{p} differs and the diff does not say so"
        );
    }
}

/// Each tenant's node names in `tenants/plan.yaml` (parsed here).
fn tenant_members(files: &Files) -> BTreeMap<String, String> {
    let Some(bytes) = files.get("tenants/plan.yaml") else {
        return BTreeMap::new();
    };
    let doc: serde_json::Value =
        serde_saphyr::from_str(std::str::from_utf8(bytes).expect("utf-8")).expect("yaml");
    doc["tenants"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("").to_string(),
                t["nodes"].to_string(),
            )
        })
        .collect()
}

/// `cabling.csv` rows by their two ends (either order), each row's every column.
fn cabling(files: &Files) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(&files["cabling.csv"][..]);
    let head: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    r.records()
        .map(|rec| {
            let row: BTreeMap<String, String> = head
                .iter()
                .cloned()
                .zip(rec.expect("row").iter().map(String::from))
                .collect();
            let a = format!("{}:{}", row["a_device"], row["a_port"]);
            let b = format!("{}:{}", row["b_device"], row["b_port"]);
            ((a.clone().min(b.clone()), a.max(b)), row)
        })
        .collect()
}

fn superpod() -> String {
    inventory("dgx-superpod-h100-tenants.yaml")
}

#[test]
fn a_tenant_leaving_an_su_changes_its_partitions_and_is_disruptive() {
    // Items 1, 2: team-llm from SUs [1, 2] to [1].
    let old = build(&superpod());
    let new = build(&superpod().replace("nodes: {sus: [1, 2]}", "nodes: {sus: [1]}"));
    let (before, after) = (tenant_members(&old), tenant_members(&new));
    assert_ne!(
        before["team-llm"], after["team-llm"],
        "the plan's members changed"
    );
    let changed = differing(&old, &new);
    assert!(
        changed.iter().any(|p| p.starts_with("tenants/partitions")),
        "the partitions changed: {changed:?}"
    );
    let cs = compare(&old, &new);
    assert_accounted(&old, &new, &cs);
    assert_eq!(
        cs.verdict(),
        Verdict::Disruptive,
        "{}",
        change::text::render(&cs)
    );
}

#[test]
fn the_first_tenant_added_compares_and_its_files_are_listed() {
    // Item 3: the example without its tenants, then with them.
    let spec = superpod();
    let mut in_block = false;
    let without: String = spec
        .lines()
        .filter(|l| {
            if *l == "tenants:" {
                in_block = true;
            } else if !(l.starts_with(' ') || l.starts_with('-')) {
                in_block = false;
            }
            !in_block
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!without.contains("team-llm"));
    let old = build(&without);
    let new = build(&spec);
    assert!(!old.contains_key("tenants/plan.yaml") && new.contains_key("tenants/plan.yaml"));
    let cs = compare(&old, &new);
    assert_accounted(&old, &new, &cs);
    assert_ne!(cs.verdict(), Verdict::Unchanged);
    let back = compare(&new, &old);
    assert_accounted(&new, &old, &back);
}

#[test]
fn a_re_speeded_in_band_fabric_replaces_every_cable_whose_fitting_changed() {
    // Item 4: in-band from 100G (SN4600C) to 400G (SN5600); ends that stay, fitting that
    // changes. Which cables changed is read from the two cabling.csv files.
    let old_spec = superpod();
    let new_spec = old_spec.replace(
        "  leaf: {model: sn4600c}\n  spine: {model: sn4600c}\n  port_speed: 100G",
        "  leaf: {model: sn5600}\n  spine: {model: sn5600}\n  port_speed: 400G",
    );
    assert_ne!(old_spec, new_spec);
    let (old, new) = (build(&old_spec), build(&new_spec));
    let (oc, nc) = (cabling(&old), cabling(&new));
    let cable_cols = [
        "speed",
        "media",
        "length_m",
        "cable_part",
        "cable_count",
        "a_module",
        "b_module",
        "leg",
    ];
    let refitted: BTreeSet<String> = oc
        .iter()
        .filter_map(|(k, o)| {
            let n = nc.get(k)?;
            cable_cols
                .iter()
                .any(|c| o.get(*c) != n.get(*c))
                .then(|| n["cable_id"].clone())
        })
        .collect();
    assert!(!refitted.is_empty(), "the re-speed re-fits cables");
    let cs = compare(&old, &new);
    let replaced: Vec<&str> = cs
        .cables
        .iter()
        .filter(|s| s.action == Action::Replace)
        .map(|s| s.cable.cable_id.as_str())
        .collect();
    assert_eq!(
        replaced.iter().copied().collect::<BTreeSet<_>>().len(),
        replaced.len()
    );
    assert_eq!(
        replaced
            .into_iter()
            .map(String::from)
            .collect::<BTreeSet<_>>(),
        refitted
    );
    assert_eq!(cs.verdict(), Verdict::Disruptive);
    assert_accounted(&old, &new, &cs);
}

#[test]
fn every_cable_id_is_one_step_when_spines_grow() {
    // Item 6: the same id never a move source and an addition (README, "diff": the id rule).
    // The SuperPOD's spines are sized by its SUs (4/8/16 for 1-3): 2 → 3 SUs re-spreads them.
    let spec = inventory("dgx-superpod-h100.yaml").replace("  count: 4\n", "  count: 2\n");
    let new_spec = spec.replace("  count: 2\n", "  count: 3\n");
    assert_ne!(spec, new_spec);
    let (old, new) = (build(&spec), build(&new_spec));
    let cs = compare(&old, &new);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &cs.cables {
        let named: BTreeSet<&str> = std::iter::once(&s.cable)
            .chain(s.from.as_ref())
            .map(|c| c.cable_id.as_str())
            .collect();
        for id in named {
            *seen.entry(id).or_default() += 1;
        }
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "ids in more than one step: {twice:?}");
    // Every cable whose ends or fitting differ between the two plans is in a step.
    let (oc, nc) = (cabling(&old), cabling(&new));
    let stepped: BTreeSet<&str> = cs
        .cables
        .iter()
        .flat_map(|s| std::iter::once(&s.cable).chain(s.from.as_ref()))
        .map(|c| c.cable_id.as_str())
        .collect();
    for (k, row) in oc.iter().filter(|(k, o)| nc.get(*k) != Some(*o)) {
        let differs_in_fitting_or_ends = nc.get(k).is_none_or(|n| {
            [
                "speed",
                "media",
                "length_m",
                "cable_part",
                "cable_count",
                "a_module",
                "b_module",
                "leg",
            ]
            .iter()
            .any(|c| n.get(*c) != row.get(*c))
        });
        if differs_in_fitting_or_ends {
            assert!(
                stepped.contains(row["cable_id"].as_str()),
                "{row:?} in no step"
            );
        }
    }
    assert_accounted(&old, &new, &cs);
}
