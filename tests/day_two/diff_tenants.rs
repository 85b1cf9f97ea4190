//! `railyard diff` on a tenant's membership (#39 items 1–3), through the command line on specs
//! the test writes. The expected members are read from the builds' own OpenSM partitions file
//! or from the spec's node numbering, never from diff's output: a node moved out of a tenant's
//! partition or VRF loses its traffic, so the change is disruptive (exit 2); the first tenant
//! added to a design without tenants is compared (never "could not compare", exit 3).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common::inventory;

fn railyard(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = crate::common::railyard_in(dir, args);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `railyard diff old.yaml new.yaml --format json`: exit code and the JSON document.
fn diff(dir: &Path, old: &str, new: &str) -> (Option<i32>, Value) {
    std::fs::write(dir.join("old.yaml"), old).unwrap();
    std::fs::write(dir.join("new.yaml"), new).unwrap();
    let (code, out, err) = railyard(dir, &["diff", "old.yaml", "new.yaml", "--format", "json"]);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

/// The nodes of each partition of a build's `tenants/partitions.conf.template`, read as OpenSM
/// reads a partition: `name=PKEY, … :` then members `@node:port@` up to `;`.
fn partition_nodes(dir: &Path, spec: &str) -> BTreeMap<String, BTreeSet<String>> {
    std::fs::write(dir.join("p.yaml"), spec).unwrap();
    let (code, _, err) = railyard(
        dir,
        &["build", "p.yaml", "-o", "p-out", "--only", "configs", "-q"],
    );
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(dir.join("p-out/tenants/partitions.conf.template")).unwrap();
    std::fs::remove_dir_all(dir.join("p-out")).unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for line in text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
    {
        if let Some((name, _)) = line.split_once('=')
            && line.ends_with(':')
        {
            current = Some(name.trim().to_string());
            continue;
        }
        if let (Some(p), Some(member)) = (&current, line.strip_prefix('@')) {
            let node = member.split(':').next().unwrap_or("").to_string();
            out.entry(p.clone()).or_default().insert(node);
        }
        if line.ends_with(';') {
            current = None;
        }
    }
    out
}

/// The members of `tenant` of `kind` that the diff says leave, and those that join.
fn moved(v: &Value, tenant: &str, kind: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let entry = v["tenants"].as_array().and_then(|t| {
        t.iter()
            .find(|m| m["tenant"] == tenant && m["kind"] == kind)
    });
    let list = |key: &str| -> BTreeSet<String> {
        entry
            .and_then(|m| m[key].as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    (list("leave"), list("join"))
}

/// #39 item 1: a tenant moved from SUs [1, 2] to [1] on InfiniBand: its partition loses SU 2's
/// nodes. Was "no change" (exit 0).
#[test]
fn a_partition_losing_nodes_is_disruptive() {
    let dir = tempfile::tempdir().unwrap();
    let old = inventory("dgx-superpod-h100-tenants.yaml");
    let new = old.replacen("nodes: {sus: [1, 2]}", "nodes: {sus: [1]}", 1);
    assert_ne!(old, new);
    let (before, after) = (
        partition_nodes(dir.path(), &old),
        partition_nodes(dir.path(), &new),
    );
    let expected: BTreeSet<String> = before["team-llm"]
        .difference(&after["team-llm"])
        .cloned()
        .collect();
    assert!(!expected.is_empty());
    let (code, v) = diff(dir.path(), &old, &new);
    assert_eq!(code, Some(2), "{v:#}");
    assert_eq!(v["verdict"], "disruptive");
    let (leave, join) = moved(&v, "team-llm", "node");
    assert_eq!(leave, expected);
    assert!(join.is_empty());
}

/// #39 item 2: nodes 73–80 leave an Ethernet tenant's VRF (`range: [65, 80]` → `[65, 72]`):
/// their leaf ports leave the VRF. Was "safe changes only" (exit 1).
#[test]
fn nodes_leaving_a_vrf_are_disruptive() {
    let dir = tempfile::tempdir().unwrap();
    let old = inventory("spectrum-x-cloud-tenants.yaml");
    let new = old.replacen("range: [65, 80]", "range: [65, 72]", 1);
    assert_ne!(old, new);
    // The spec's default node naming, `gpu{node:03}` (docs/spec.md, `naming.node`).
    let expected: BTreeSet<String> = (73..=80).map(|n| format!("gpu{n:03}")).collect();
    let (code, v) = diff(dir.path(), &old, &new);
    assert_eq!(code, Some(2), "{v:#}");
    let (leave, _) = moved(&v, "cust-c", "node");
    assert_eq!(leave, expected);
    // Back again: the same nodes join, nothing leaves: safe.
    let (code, v) = diff(dir.path(), &new, &old);
    assert_eq!(code, Some(1), "{v:#}");
    let (leave, join) = moved(&v, "cust-c", "node");
    assert!(leave.is_empty());
    assert_eq!(join, expected);
}

/// #39 item 3: the first tenant of a design, and the last one removed, are compared: adding
/// is not exit 3; removing it takes its nodes out of it (exit 2).
#[test]
fn the_first_tenant_added_and_the_last_removed_compare() {
    let dir = tempfile::tempdir().unwrap();
    let without = inventory("spectrum-x-cloud.yaml");
    let with =
        format!("{without}\ntenants:\n  - name: first\n    id: 1\n    nodes: {{sus: [1]}}\n");
    let (code, v) = diff(dir.path(), &without, &with);
    assert_ne!(code, Some(3), "{v:#}");
    assert!(matches!(code, Some(1 | 2)), "{v:#}");
    let (_, join) = moved(&v, "first", "node");
    assert_eq!(join.len(), 32, "SU 1's 32 nodes join: {join:?}");
    let (code, v) = diff(dir.path(), &with, &without);
    assert_eq!(code, Some(2), "{v:#}");
    let (leave, _) = moved(&v, "first", "node");
    assert_eq!(leave.len(), 32);
}

/// A tenant placed by GPU count grows from 128 to 192 GPUs (16 → 24 nodes): its partition,
/// Slurm node range and Kueue node list are rewritten in place, but nothing loses a grant: the
/// nodes join, and the change is safe (exit 1; it was exit 2 while tenant files were compared
/// as sets of lines).
#[test]
fn a_partition_gaining_nodes_is_safe() {
    let dir = tempfile::tempdir().unwrap();
    let old = inventory("dgx-superpod-h100-tenants.yaml");
    let grown = old.replacen("nodes: {gpus: 128}", "nodes: {gpus: 192}", 1);
    assert_ne!(old, grown);
    let (before, after) = (
        partition_nodes(dir.path(), &old),
        partition_nodes(dir.path(), &grown),
    );
    assert!(before["team-rec"].is_subset(&after["team-rec"]));
    let expected: BTreeSet<String> = after["team-rec"]
        .difference(&before["team-rec"])
        .cloned()
        .collect();
    assert_eq!(expected.len(), 8);
    let (code, v) = diff(dir.path(), &old, &grown);
    assert_eq!(code, Some(1), "{v:#}");
    let (leave, join) = moved(&v, "team-rec", "node");
    assert!(leave.is_empty());
    assert_eq!(join, expected);
    // The tenant's Slurm partition is among the files listed, rewritten, not cutting traffic.
    let slurm = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "hosts/tenants/team-rec/slurm-partition.conf")
        .expect("the Slurm partition differs");
    assert_eq!(slurm["disruptive"], false);
    assert!(slurm["lines_removed"].as_u64().unwrap() > 0);
}
