//! The work order of `railyard diff` (issue #39 item 5 and the layout it asks for): growth that
//! lengthens a breakout harness orders the new harness and moves its live legs onto it (a
//! disruptive step, the parts swapped counted even where the totals cancel); growth with the
//! final size declared stays add-only; moves caused by re-spread spines say why and how the
//! design could have avoided them; `--labels` writes the ZPL of just the cables to label, and
//! the HTML groups the steps by phase and rack with a box to tick off. Every expectation is
//! derived from the two builds' `cabling.csv` and `bom.csv`, parsed here.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{inventory, railyard_in};
use railyard::change::cables::Action;
use railyard::change::cause::CauseKind;
use railyard::change::{self, ChangeSet, Files, Verdict};

use crate::diff::files as build;

fn compare(old: &Files, new: &Files) -> ChangeSet {
    change::compare(old, new).unwrap_or_else(|e| panic!("cannot compare: {e:?}"))
}

fn rows(files: &Files, path: &str) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(&files[path][..]);
    r.deserialize().map(|x| x.expect("row")).collect()
}

fn spx(count: &str) -> String {
    inventory("spectrum-x-cloud.yaml").replace("  count: 3\n", count)
}

/// A cabling plan of harness legs: (cable id, far device, far rack, leg, leg run), all on
/// `oob-gw01:swp49` ordered at `harness_m`, and the BOM that orders that harness.
fn harness_plan(legs: &[(&str, &str, &str, u32, u32)], harness_m: u32) -> Files {
    let mut csv = String::from(
        "cable_id,label,a_device,a_port,b_device,b_port,speed,media,length_m,network,tier,\
         plane,rail,a_rack,b_rack,a_module,cable_part,cable_count,leg,b_module,harness,harness_m\n",
    );
    for (id, dev, rack, leg, run) in legs {
        let port = format!("swp49s{}", leg - 1);
        csv.push_str(&format!(
            "{id},{rack}.{dev}:swp49s0/N0-04.oob-gw01:{port},{dev},swp49s0,oob-gw01,{port},10G,\
             mmf-om4,{run},oob,oob-uplink,,,{rack},N0-04,MMA2P00-AS,GEN-MPO12-UPC-4LC-OM4,1,{leg},\
             MC2210411-SR4,oob-gw01:swp49,{harness_m}\n"
        ));
    }
    let bom = format!(
        "category,part,description,quantity,spares,order\n\
         fibre,GEN-MPO12-UPC-4LC-OM4,\"harness, {harness_m} m\",1,0,1\n"
    );
    [
        ("cabling.csv".to_string(), csv.into_bytes()),
        ("bom.csv".to_string(), bom.into_bytes()),
    ]
    .into()
}

/// #39 item 5: a harness whose legs end in one row, ordered at its longest leg; a new leg runs
/// further, so the harness is ordered anew and its three live legs move onto it.
#[test]
fn a_leg_that_lengthens_a_harness_moves_its_live_legs_onto_a_new_one() {
    let live = [
        ("o1", "oob-a1", "A01", 1, 9),
        ("o2", "oob-a2", "A02", 2, 12),
        ("o3", "oob-a3", "A03", 3, 15),
    ];
    let old = harness_plan(&live, 15);
    let mut grown = live.to_vec();
    grown.push(("o4", "oob-a4", "A04", 4, 18));
    let new = harness_plan(&grown, 18);
    let cs = compare(&old, &new);
    let steps: Vec<(Action, &str)> = cs
        .cables
        .iter()
        .map(|s| (s.action, s.cable.cable_id.as_str()))
        .collect();
    assert_eq!(
        steps,
        [
            (Action::Replace, "o1"),
            (Action::Replace, "o2"),
            (Action::Replace, "o3"),
            (Action::Add, "o4")
        ]
    );
    for s in cs.cables.iter().filter(|s| s.action == Action::Replace) {
        let c = s.cause.as_ref().expect("a replacement says why");
        assert_eq!(c.kind, CauseKind::HarnessReordered);
        assert!(c.why.contains("15 m → 18 m"), "{}", c.why);
        assert!(c.avoid.as_deref().is_some_and(|a| a.contains("populated:")));
        // A leg moved onto the new harness keeps its label: nothing to reprint.
        assert!(!change::reprint::relabels(s));
    }
    // The harness swapped once however many legs move; the BOM's lines by length beside it.
    let swapped: Vec<(&str, &str, u64, u64)> = cs
        .swaps
        .iter()
        .map(|p| (p.part.as_str(), p.length_m.as_str(), p.out, p.fitted))
        .collect();
    const H: &str = "GEN-MPO12-UPC-4LC-OM4";
    assert_eq!(swapped, [(H, "15", 1, 0), (H, "18", 0, 1)]);
    let by_length: Vec<(&str, i64)> = cs
        .parts
        .iter()
        .map(|p| (p.description.as_str(), p.order_delta))
        .collect();
    assert_eq!(by_length, [("harness, 15 m", -1), ("harness, 18 m", 1)]);
    assert_eq!(cs.verdict(), Verdict::Disruptive);
}

#[test]
fn growth_with_the_final_size_declared_only_adds() {
    let old = build(&spx("  count: 4\n  populated: [32, 32, 32, 0]\n"));
    let new = build(&spx("  count: 4\n  populated: [32, 32, 32, 32]\n"));
    let cs = compare(&old, &new);
    let (o, n) = (rows(&old, "cabling.csv"), rows(&new, "cabling.csv"));
    // Every old row stays as it is; the new ones are the fourth SU's nodes' cables.
    let old_ids: BTreeSet<&String> = o.iter().map(|r| &r["cable_id"]).collect();
    assert!(o.iter().all(|r| n.contains(r)));
    let added = n
        .iter()
        .filter(|r| !old_ids.contains(&r["cable_id"]))
        .count();
    assert!(added > 0);
    let actions: BTreeSet<Action> = cs.cables.iter().map(|s| s.action).collect();
    assert_eq!(actions, BTreeSet::from([Action::Add]));
    assert_eq!(cs.cables.len(), added);
    assert!(cs.swaps.is_empty());
    assert!(change::order::avoidable(&cs.cables).is_none());
    assert_eq!(cs.verdict(), Verdict::Safe);
}

#[test]
fn moves_onto_new_spines_say_why_and_how_to_avoid_them() {
    // The SuperPOD's spines are sized by its SUs: 2 → 3 SUs adds spines and re-spreads uplinks.
    let spec = inventory("dgx-superpod-h100.yaml").replace("  count: 4\n", "  count: 2\n");
    let (old, new) = (
        build(&spec),
        build(&spec.replace("  count: 2\n", "  count: 3\n")),
    );
    let cs = compare(&old, &new);
    let devices = |rows: &[BTreeMap<String, String>]| -> BTreeSet<String> {
        rows.iter()
            .flat_map(|r| [r["a_device"].clone(), r["b_device"].clone()])
            .collect()
    };
    let before = devices(&rows(&old, "cabling.csv"));
    let uplinks: Vec<_> = cs
        .cables
        .iter()
        .filter(|s| s.action == Action::Move && s.cable.tier == "leaf-spine")
        .collect();
    assert!(!uplinks.is_empty(), "spine growth re-spreads uplinks");
    for s in uplinks {
        let c = s.cause.as_ref().expect("a move says why");
        let onto_new = !before.contains(&s.cable.a.device) || !before.contains(&s.cable.b.device);
        assert_eq!(c.kind == CauseKind::ToNewDevice, onto_new, "{s:?}");
        assert!(
            c.avoid
                .as_deref()
                .is_some_and(|a| a.contains("spine `count`")),
            "{c:?}"
        );
    }
}

/// The cable ids whose labels a technician needs after the change: every new row whose label
/// text (ends, part, leg, modules) is not an old row's.
fn to_label(old: &[BTreeMap<String, String>], new: &[BTreeMap<String, String>]) -> Vec<String> {
    let printed = |r: &BTreeMap<String, String>| {
        [
            "cable_id",
            "label",
            "cable_part",
            "leg",
            "a_module",
            "b_module",
        ]
        .map(|k| r[k].clone())
    };
    let before: BTreeSet<_> = old.iter().map(printed).collect();
    new.iter()
        .filter(|r| !before.contains(&printed(r)))
        .map(|r| r["cable_id"].clone())
        .collect()
}

#[test]
fn labels_and_the_page_cover_exactly_the_steps() {
    let dir = tempfile::tempdir().unwrap();
    let lab = inventory("lab-small.yaml");
    let grown = lab.replacen(
        "{count: 1, nodes_per_su: 4",
        "{count: 2, nodes_per_su: 4",
        1,
    );
    assert_ne!(lab, grown, "lab-small has one SU");
    std::fs::write(dir.path().join("a.yaml"), &lab).unwrap();
    std::fs::write(dir.path().join("b.yaml"), &grown).unwrap();
    for (spec, out) in [("a.yaml", "a"), ("b.yaml", "b")] {
        let o = railyard_in(dir.path(), &["build", spec, "-o", out]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let read = |side: &str| -> Vec<BTreeMap<String, String>> {
        let bytes = std::fs::read(dir.path().join(side).join("cabling.csv")).unwrap();
        let mut r = csv::Reader::from_reader(&bytes[..]);
        r.deserialize().map(|x| x.expect("row")).collect()
    };
    let (old, new) = (read("a"), read("b"));
    let mut want = to_label(&old, &new);
    want.sort();
    assert!(!want.is_empty());
    let o = railyard_in(
        dir.path(),
        &["diff", "a", "b", "--labels", "re.zpl", "--html", "wo.html"],
    );
    assert!(matches!(o.status.code(), Some(1 | 2)), "{o:?}");
    // Two labels (A and B end) per cable, found by the cable id in each QR code's field data.
    let zpl = std::fs::read_to_string(dir.path().join("re.zpl")).unwrap();
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    for block in zpl.split("^XA").skip(1) {
        assert!(block.trim_end().ends_with("^XZ"), "{block}");
        let data = block
            .split_once("^FDMA,")
            .unwrap()
            .1
            .split_once("^FS")
            .unwrap()
            .0;
        let id = railyard::output::zpl::unfield(data).unwrap();
        *ids.entry(id).or_default() += 1;
    }
    assert!(ids.values().all(|n| *n == 2), "{ids:?}");
    let got: Vec<String> = ids.into_keys().collect();
    assert_eq!(got, want);
    // The page: one box per step, a step being every cable row that differs on either side.
    let page = std::fs::read_to_string(dir.path().join("wo.html")).unwrap();
    let same = |r: &BTreeMap<String, String>, side: &[BTreeMap<String, String>]| {
        side.iter().any(|x| x == r)
    };
    let gone = old.iter().filter(|r| !same(r, &new)).count();
    let came = new.iter().filter(|r| !same(r, &old)).count();
    let boxes = page.matches('\u{2610}').count();
    assert!(
        (came.max(gone)..=came + gone).contains(&boxes),
        "{boxes} boxes for {gone} old and {came} new rows"
    );
    // Grouped by phase in work order, then by rack.
    let phases: Vec<&str> = page
        .match_indices("<h3>")
        .map(|(i, _)| page[i + 4..].split(" — ").next().unwrap())
        .collect();
    let rank = |p: &str| {
        ["remove", "replace", "move", "add"]
            .iter()
            .position(|x| *x == p)
    };
    assert!(phases.iter().all(|p| rank(p).is_some()), "{phases:?}");
    assert!(
        phases.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
        "{phases:?}"
    );
    assert!(page.find("<h2>Summary</h2>") < page.find("<h2>Cables"));
}

/// The cage of each switch port, from a build's port maps (`portmaps/<switch>.csv`).
fn cages(files: &Files) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    for (path, bytes) in files {
        let Some(dev) = path
            .strip_prefix("portmaps/")
            .and_then(|p| p.strip_suffix(".csv"))
        else {
            continue;
        };
        let mut r = csv::Reader::from_reader(&bytes[..]);
        for row in r.deserialize::<BTreeMap<String, String>>() {
            let row = row.expect("row");
            if let (Some(p), Some(c)) = (row.get("port"), row.get("cage")) {
                out.insert((dev.to_string(), p.clone()), c.clone());
            }
        }
    }
    out
}

/// #47 item 4: the leaves moved from NVUE to SONiC rename every leaf port (`swp1s0` →
/// `Ethernet0`) on the same cage: each such cable is renamed (labels printed anew), none moved.
/// Expected from the two builds' cabling plans and port maps: every cable whose id is on both
/// sides with a leaf port renamed on the same cage.
#[test]
fn a_platform_change_renames_ports_and_moves_no_cable() {
    let old = build(&spx("  count: 3\n"));
    let new = build(&(spx("  count: 3\n") + "platforms: {leaf: sonic}\n"));
    let (oc, nc) = (cages(&old), cages(&new));
    let (o, n) = (rows(&old, "cabling.csv"), rows(&new, "cabling.csv"));
    let by_id: BTreeMap<&String, &BTreeMap<String, String>> =
        o.iter().map(|r| (&r["cable_id"], r)).collect();
    let mut expected = BTreeSet::new();
    for r in &n {
        let Some(before) = by_id.get(&r["cable_id"]) else {
            continue;
        };
        if before["label"] == r["label"] {
            continue;
        }
        for side in ["a", "b"] {
            let (d, p0, p1) = (
                &r[&format!("{side}_device")],
                &before[&format!("{side}_port")],
                &r[&format!("{side}_port")],
            );
            if p0 != p1 {
                let (c0, c1) = (
                    oc.get(&(d.clone(), p0.clone())),
                    nc.get(&(d.clone(), p1.clone())),
                );
                assert!(c0.is_some() && c0 == c1, "{d}: {p0} → {p1} changes cage");
                expected.insert(r["cable_id"].clone());
            }
        }
    }
    assert!(expected.len() > 1000, "{}", expected.len());
    let cs = compare(&old, &new);
    let renamed: BTreeSet<String> = cs
        .cables
        .iter()
        .filter(|s| s.action == Action::Rename)
        .map(|s| s.cable.cable_id.clone())
        .collect();
    assert_eq!(renamed, expected);
    assert!(
        !cs.cables.iter().any(|s| s.action == Action::Move),
        "no cable moves"
    );
    assert!(cs.cables.iter().all(|s| s.action == Action::Rename));
    assert!(
        cs.cables.iter().all(change::reprint::relabels),
        "renamed cables are relabelled"
    );
}
