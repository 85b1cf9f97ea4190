//! `railyard diff` (issue #29): the change between two designs as a work order. The expected
//! cable counts come from the spec's arithmetic (nodes × ports of the node model, leaves ×
//! uplinks at 1:1), not from the program; the config changes are read in push's canonical
//! forms. One render per spec, shared by the tests (`OnceLock`); the command line runs twice
//! (build directories; hostile input).

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use common::{inventory, outputs_of};
use railyard::change::cables::{Action, Cable, CableStep, End};
use railyard::change::cause::{Cause, CauseKind};
use railyard::change::{self, ChangeSet, Files, Verdict};
use railyard::output::OutputGroup;

/// Every file of the groups a day-two change touches, as the command line reads a spec.
pub(crate) fn files(text: &str) -> Files {
    outputs_of(
        text,
        &[
            OutputGroup::Configs,
            OutputGroup::Cabling,
            OutputGroup::Addresses,
            OutputGroup::Hosts,
            OutputGroup::Plan,
        ],
    )
    .into_iter()
    .filter(|f| change::reads(&f.path))
    .map(|f| (f.path, f.bytes))
    .collect()
}

/// The Spectrum-X example with `sus` SUs, at the MTU every spine model of the tests runs
/// (EOS caps it at 9214: Arista EOS User Manual, "Interface MTU"), so a spine model change
/// is not also an MTU change.
fn spx(sus: u32) -> String {
    inventory("spectrum-x-cloud.yaml").replace("  count: 3", &format!("  count: {sus}"))
        + "\nroce: {mtu: 9214}\n"
}

/// The 3-SU Spectrum-X example, rendered once for every test.
fn base() -> &'static Files {
    static BASE: OnceLock<Files> = OnceLock::new();
    BASE.get_or_init(|| files(&spx(3)))
}

fn compare(old: &Files, new: &Files) -> ChangeSet {
    change::compare(old, new).unwrap_or_else(|e| panic!("cannot compare: {e:?}"))
}

#[test]
fn growing_spectrum_x_from_3_to_4_sus_adds_only_the_new_sus_cables_and_spine_sessions() {
    let cs = compare(base(), &files(&spx(4)));
    // Spec arithmetic for one SU (inventories/spectrum-x-cloud.yaml): 32 XE9680 nodes, each with
    // 8 SuperNICs (one per GPU, one rail each) → 256 node–leaf cables; 4 leaves of 2 rails × 32
    // nodes = 64 downlinks, at 1:1 as many uplinks → 256 leaf–spine cables; 2 storage
    // (converged in-band) ports per node → 64; one BMC per node and one management port per
    // leaf on the SU's OOB switch → 36; that OOB switch's uplink to the gateway → 1.
    let (nodes, rails, leaves, storage_ports) = (32, 8, 4, 2);
    let uplinks_per_leaf = (rails / leaves) * nodes;
    let expected =
        nodes * rails + leaves * uplinks_per_leaf + nodes * storage_ports + nodes + leaves + 1;
    assert_eq!(expected, 613);
    // Growth only adds: the SUs' OOB uplinks reach into several rows, so their gateway cage
    // breaks out at a panel in its own rack and each uplink has a cord of its own: the new SU's
    // does not re-order a harness the live ones are on (#46 item 6).
    let actions: BTreeSet<Action> = cs.cables.iter().map(|s| s.action).collect();
    assert_eq!(
        actions,
        BTreeSet::from([Action::Add]),
        "growth only adds cables"
    );
    let adds: Vec<&CableStep> = cs
        .cables
        .iter()
        .filter(|s| s.action == Action::Add)
        .collect();
    assert_eq!(adds.len(), expected);
    // Every added cable has an end on a device of SU 4 (nodes 97–128 by identity).
    let su4 = |d: &str| {
        d.contains("su04")
            || d.strip_prefix("gpu")
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|n| (97..=128).contains(&n))
    };
    for s in &adds {
        assert!(su4(&s.cable.a.device) || su4(&s.cable.b.device), "{s:?}");
    }
    // Each of the 8 spines gains one session per link from the 4 new leaves: 64 uplinks per
    // leaf over 8 spines = 8 each → 32; nothing disruptive.
    for i in 1..=8 {
        let name = format!("spine{i:02}");
        let dev = cs.devices.iter().find(|d| d.device == name).expect(&name);
        let added: usize = dev.files.iter().map(|f| f.sessions_added.len()).sum();
        assert_eq!(added, leaves * uplinks_per_leaf / 8, "{name}");
        assert!(
            dev.files
                .iter()
                .all(|f| f.removed.is_empty() && f.disruptive.is_empty())
        );
    }
    // No existing leaf changes; no number of an existing identity changes.
    assert!(
        !cs.devices
            .iter()
            .any(|d| d.device.starts_with("leaf-su0") && !su4(&d.device))
    );
    assert!(cs.numbering.renumbered.is_empty() && cs.numbering.gone.is_empty());
    // Growth orders parts and leaves none over (no part re-specified), nor swaps any.
    assert!(cs.parts.iter().all(|p| p.order_delta > 0), "{:?}", cs.parts);
    assert!(cs.swaps.is_empty(), "{:?}", cs.swaps);
    assert_eq!((cs.verdict(), cs.verdict().exit_code()), (Verdict::Safe, 1));
}

#[test]
fn a_tenant_added_shows_its_vni_and_vlan_and_renumbers_nothing() {
    let with = inventory("spectrum-x-cloud-tenants.yaml");
    // The last tenant (cust-c) is the file's last four lines.
    let lines: Vec<&str> = with.lines().collect();
    assert!(lines[lines.len() - 4].contains("name: cust-c"));
    let without = lines[..lines.len() - 4].join("\n");
    let cs = compare(&files(&without), &files(&with));
    let new: BTreeSet<(&str, &str)> = cs
        .numbering
        .tenant_new
        .iter()
        .map(|c| (c.owner.as_str(), c.what.as_str()))
        .collect();
    for what in ["l3vni", "vlan", "route_target"] {
        assert!(new.contains(&("tenant cust-c", what)), "{what}: {new:?}");
    }
    assert!(new.iter().all(|(o, _)| *o == "tenant cust-c"), "{new:?}");
    assert!(cs.numbering.renumbered.is_empty() && cs.numbering.gone.is_empty());
    assert!(cs.cables.is_empty());
    assert_eq!((cs.verdict(), cs.verdict().exit_code()), (Verdict::Safe, 1));
}

#[test]
fn a_spine_model_changed_is_disruptive() {
    let new = spx(3).replace("spine: {model: sn5600", "spine: {model: 7060x6-64pe");
    let cs = compare(base(), &files(&new));
    // Every leaf–spine cable keeps its leaf end and moves at the spine (EOS port names):
    // 3 SUs × 4 leaves × 64 uplinks.
    let moved: Vec<&CableStep> = cs
        .cables
        .iter()
        .filter(|s| s.action == Action::Move)
        .collect();
    assert!(moved.len() >= 3 * 4 * 64, "{}", moved.len());
    let spine_moves = moved
        .iter()
        .filter(|s| s.cable.b.device.starts_with("spine") && s.cable.a.device.starts_with("leaf"))
        .count();
    assert_eq!(spine_moves, 3 * 4 * 64);
    let spine01 = cs
        .devices
        .iter()
        .find(|d| d.device == "spine01")
        .expect("spine01");
    assert!(spine01.disturbs(), "{spine01:?}");
    let order = |part: &str| {
        cs.parts
            .iter()
            .find(|p| p.part == part)
            .map(|p| p.order_delta)
    };
    assert_eq!(order("7060x6-64pe"), Some(8));
    assert_eq!(order("sn5600"), Some(-8));
    assert_eq!(
        (cs.verdict(), cs.verdict().exit_code()),
        (Verdict::Disruptive, 2)
    );
}

#[test]
fn the_same_spec_twice_is_no_change() {
    let cs = compare(base(), &files(&spx(3)));
    assert!(cs.is_empty(), "{cs:?}");
    assert_eq!(cs.verdict().exit_code(), 0);
}

fn railyard(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .output()
        .expect("railyard runs")
}

fn build(spec: &Path, out: &Path) {
    let o = railyard(&[
        "build",
        spec.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--only",
        "configs",
        "--only",
        "cabling",
        "--only",
        "addresses",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Two builds of one spec by the binary, compared as directories (the lab example: this
/// checks the reading of build directories; the Spectrum-X comparison of a spec with itself is
/// `the_same_spec_twice_is_no_change`).
#[test]
fn two_build_directories_of_one_spec_are_no_change_and_an_edited_one_cannot_compare() {
    let tmp = std::env::temp_dir().join(format!("railyard-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories/lab-small.yaml");
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    build(&spec, &a);
    build(&spec, &b);
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let o = railyard(&["diff", sa, sb, "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["verdict"], "unchanged");
    assert_eq!(v["cables"].as_array().map(Vec::len), Some(0));
    // A build directory against its spec: also no change.
    let o = railyard(&["diff", sa, spec.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A file edited after the build is not the design: exit 3, named.
    let cabling = b.join("cabling.csv");
    let text = std::fs::read_to_string(&cabling).unwrap();
    std::fs::write(&cabling, text.replacen("swp1", "swp9", 1)).unwrap();
    let o = railyard(&["diff", sa, sb]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cabling.csv"));
    let _ = std::fs::remove_dir_all(&tmp);
}

fn cable(label: &str) -> CableStep {
    let end = |d: &str| End {
        device: d.into(),
        port: "p1".into(),
        rack: label.into(),
        slot: String::new(),
    };
    CableStep {
        action: Action::Add,
        cable: Cable {
            cable_id: label.into(),
            label: label.into(),
            a: end(label),
            b: end("leaf"),
            tier: label.into(),
            fitted: Default::default(),
        },
        from: None,
        // The why and the advice are sink text too (the page, the terminal).
        cause: Some(Cause {
            kind: CauseKind::PortChanged,
            why: label.into(),
            avoid: Some(label.into()),
        }),
    }
}

#[test]
fn hostile_text_cannot_escape_the_page_or_the_terminal() {
    // A value as hostile as any sink sees: markup, a terminal escape, a bidi override.
    let evil = "<script>alert(1)</script>\u{1b}[2J\u{202e}x\"'&";
    let cs = ChangeSet {
        cables: vec![cable(evil)],
        ..ChangeSet::default()
    };
    let page = change::page::render(&cs, &[]);
    assert!(!page.contains("<script>") && !page.contains('\u{1b}') && !page.contains('\u{202e}'));
    assert!(
        page.contains("&lt;script&gt;"),
        "the text is shown, escaped"
    );
    let text = change::text::render(&cs);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text}"
    );

    // Through the command line: a hostile spec that builds (markup in free text) against its
    // base, and one that is refused (an escape sequence in `site`): exit 3, nothing raw.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = dir.join("inventories/lab-small.yaml");
    let tmp = std::env::temp_dir().join(format!("railyard-diff-page-{}.html", std::process::id()));
    let accepted = dir.join("tests/hostile/accepted-metacharacters-in-text.yaml");
    let o = railyard(&[
        "diff",
        base.to_str().unwrap(),
        accepted.to_str().unwrap(),
        "--html",
        tmp.to_str().unwrap(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0..=2)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let page = std::fs::read_to_string(&tmp).expect("page written");
    assert!(
        !page.contains("<b>"),
        "the spec's markup is escaped on the page"
    );
    let _ = std::fs::remove_file(&tmp);
    let refused = dir.join("tests/hostile/control-esc-in-site.yaml");
    let o = railyard(&["diff", base.to_str().unwrap(), refused.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3));
    for out in [&o.stdout, &o.stderr] {
        assert!(!out.contains(&0x1b), "{}", String::from_utf8_lossy(out));
    }
}
