//! `railyard diff --format markdown` is a pull-request comment (#47 item 5): adding one SU to
//! spectrum-x-cloud stays under GitHub's 65,536-character comment limit, its counts table says
//! what the full JSON plan (`--out`) holds, counted here from that JSON.

use crate::common;

use std::collections::BTreeMap;

use common::{inventory, railyard_in};

#[test]
fn one_su_added_fits_a_comment_and_its_counts_are_the_jsons() {
    let dir = tempfile::tempdir().unwrap();
    let three = inventory("spectrum-x-cloud.yaml");
    std::fs::write(dir.path().join("a.yaml"), &three).unwrap();
    std::fs::write(
        dir.path().join("b.yaml"),
        three.replace("count: 3", "count: 4"),
    )
    .unwrap();
    let out = railyard_in(
        dir.path(),
        &[
            "diff",
            "a.yaml",
            "b.yaml",
            "--format",
            "markdown",
            "--out",
            "plan.json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.chars().count() < 65_536,
        "{} characters",
        md.chars().count()
    );
    assert!(
        md.starts_with("**railyard diff: safe changes only"),
        "{md:.200}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plan.json")).unwrap()).unwrap();
    let counted: BTreeMap<&str, usize> = md
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            Some((cells.first().copied()?, cells.get(1)?.parse().ok()?))
        })
        .filter(|(k, _)| !k.is_empty())
        .collect();
    let steps = |a: &str| {
        v["cables"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["action"] == a)
            .count()
    };
    assert_eq!(counted["cables to add"], steps("add"));
    assert!(steps("add") > 0);
    assert_eq!(counted["cables to remove"], steps("remove"));
    assert_eq!(
        counted["devices whose config changes"],
        v["devices"].as_array().unwrap().len()
    );
    assert_eq!(
        counted["numbers renumbered"],
        v["numbering"]["renumbered"].as_array().unwrap().len()
    );
    assert_eq!(
        counted["new device numbers"],
        v["numbering"]["device_new"].as_u64().unwrap() as usize
    );
    assert_eq!(
        counted["part numbers changing"],
        v["parts"].as_array().unwrap().len()
    );
    assert_eq!(
        counted["other files differing"],
        v["files"].as_array().unwrap().len()
    );
    // What did not fit says where the whole plan is.
    assert!(
        md.contains("rows left out") && md.contains("plan\\.json"),
        "{}",
        &md[md.len() - 300..]
    );
}
