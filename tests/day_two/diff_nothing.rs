//! `railyard diff --missing-is-empty`: a spec added in a pull request (no old side) or deleted
//! (no new side) is a plan, not "cannot compare" (#47 item 3): every cable of the spec's
//! `cabling.csv` (read here) is an add, or a removal; a spec deleted is disruptive.

use crate::common;

use std::path::Path;

use common::{file, inventory, outputs, railyard_in};

fn diff(dir: &Path, old: &str, new: &str, flag: bool) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["diff", old, new, "--format", "json"];
    if flag {
        args.push("--missing-is-empty");
    }
    let out = railyard_in(dir, &args);
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), v)
}

fn steps(v: &serde_json::Value, action: &str) -> usize {
    v["cables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["action"] == action)
        .count()
}

#[test]
fn a_new_spec_is_all_adds_and_a_deleted_one_all_removals() {
    let dir = tempfile::tempdir().unwrap();
    let text = inventory("lab-small.yaml");
    std::fs::write(dir.path().join("c.yaml"), &text).unwrap();
    let cables = file(&outputs(&text), "cabling.csv").lines().count() - 1;
    assert!(cables > 0);

    let (code, v) = diff(dir.path(), "absent.yaml", "c.yaml", true);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(steps(&v, "add"), cables);
    assert_eq!(v["cables"].as_array().unwrap().len(), cables);
    assert!(v["numbering"]["gone"].as_array().unwrap().is_empty());

    let (code, v) = diff(dir.path(), "c.yaml", "absent.yaml", true);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(steps(&v, "remove"), cables);

    // Without the flag a missing side stays an error, and two missing sides always are.
    assert_eq!(diff(dir.path(), "absent.yaml", "c.yaml", false).0, Some(3));
    assert_eq!(
        diff(dir.path(), "absent.yaml", "gone.yaml", true).0,
        Some(3)
    );
}
