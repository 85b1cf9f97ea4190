//! Warning levels for CI (#47 item 2, docs/ci.md): advisory findings (spare ports, RY0501) are
//! `info` and never fail, not even under `--strict`; `--deny CODE` fails on a code, `--allow CODE`
//! accepts it (counted in the machine document, not listed); a baseline written by
//! `--write-baseline` accepts the findings it lists by fingerprint, so the same findings after
//! the design grows still pass and a new one fails (and the report of such a build says findings
//! were accepted). Outcomes read from the exit code and the JSON document only, as a CI job
//! would.

use std::path::Path;

use serde_json::Value;

use crate::common::{inventory, railyard_in};

/// (exit code, the validate document) of `args` run in `dir`.
fn validate(dir: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["validate"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = railyard_in(dir, &all);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    });
    (out.status.code(), doc)
}

fn with_code<'a>(doc: &'a Value, code: &str) -> Vec<&'a Value> {
    doc["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter(|f| f["code"] == code).collect())
        .unwrap_or_default()
}

#[test]
fn deny_allow_and_strict_decide_the_gate_per_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("c.yaml"), inventory("lab-small.yaml")).unwrap();

    // Spare ports are advisory: listed as info, passing even under --strict.
    let (code, doc) = validate(d, &["c.yaml", "--strict"]);
    assert_eq!(code, Some(0), "{doc}");
    let spare = with_code(&doc, "RY0501");
    assert!(!spare.is_empty() && spare.iter().all(|f| f["severity"] == "info"));
    assert_eq!(doc["counts"]["info"].as_u64(), Some(spare.len() as u64));

    let (code, doc) = validate(d, &["c.yaml", "--deny", "RY0501"]);
    assert_eq!(code, Some(1), "{doc}");
    assert!(
        with_code(&doc, "RY0501")
            .iter()
            .all(|f| f["severity"] == "error")
    );
    assert_eq!(doc["valid"], false);

    let (code, doc) = validate(d, &["c.yaml", "--allow", "ry0501", "--strict"]);
    assert_eq!(code, Some(0), "{doc}");
    assert!(with_code(&doc, "RY0501").is_empty(), "{doc}");
    assert_eq!(doc["counts"]["accepted"].as_u64(), Some(spare.len() as u64));

    // A code both denied and allowed, or no code at all: a usage error (exit 2).
    let (code, doc) = validate(d, &["c.yaml", "--allow", "RY0501", "--deny", "RY0501"]);
    assert_eq!(code, Some(2), "{doc}");
    let (code, doc) = validate(d, &["c.yaml", "--deny", "RY9999"]);
    assert_eq!(code, Some(2), "{doc}");
    assert!(doc["error"].as_str().is_some_and(|e| e.contains("RY9999")));
}

#[test]
fn a_baseline_passes_known_findings_after_growth_and_fails_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = inventory("lab-small.yaml");
    std::fs::write(d.join("c.yaml"), &text).unwrap();
    std::fs::write(d.join("other.yaml"), &text).unwrap();
    let deny = ["--deny", "RY0501"];

    let (code, _) = validate(d, &["c.yaml", deny[0], deny[1]]);
    assert_eq!(code, Some(1), "denied spare ports fail without a baseline");
    let (code, doc) = validate(
        d,
        &["c.yaml", deny[0], deny[1], "--write-baseline", "b.json"],
    );
    assert_eq!(code, Some(0), "what is written is accepted: {doc}");
    let (code, _) = validate(d, &["other.yaml", "--write-baseline", "b.json"]);
    assert_eq!(code, Some(0));
    // One baseline for both specs: each file's entries, the other's kept.
    let baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("b.json")).unwrap()).unwrap();
    assert_eq!(baseline["format"], "railyard/baseline/v1");
    let files: std::collections::BTreeSet<&str> = baseline["accepted"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["file"].as_str())
        .collect();
    assert_eq!(files, ["c.yaml", "other.yaml"].into_iter().collect());

    // Grown (more nodes: other counts in every spare-port message) and edited above: the
    // baseline still accepts every finding.
    let grown = format!(
        "# reviewed\n{}",
        text.replace("nodes_per_su: 4", "nodes_per_su: 8")
    );
    std::fs::write(d.join("c.yaml"), &grown).unwrap();
    let with_baseline = ["c.yaml", deny[0], deny[1], "--baseline", "b.json"];
    let (code, doc) = validate(d, &with_baseline);
    assert_eq!(code, Some(0), "{doc}");
    assert!(with_code(&doc, "RY0501").is_empty(), "{doc}");
    assert!(doc["counts"]["accepted"].as_u64() >= Some(3), "{doc}");
    // The report of such a build says findings were accepted, never "passed every check".
    let mut args = with_baseline.to_vec();
    args.extend_from_slice(&["-o", "out", "-q"]);
    args.insert(0, "build");
    let b = railyard_in(d, &args);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let page = std::fs::read_to_string(d.join("out/report.html")).unwrap();
    assert!(page.contains("accepted on the command line of this build"));
    assert!(!page.contains("passed every check"));

    // A new finding: larger spines (another model in the message) are not in the baseline.
    let bigger = grown.replace(
        "spine: {model: sn4600c, count: 2}",
        "spine: {model: sn5600, count: 2}",
    );
    assert_ne!(bigger, grown);
    std::fs::write(d.join("c.yaml"), &bigger).unwrap();
    let (code, doc) = validate(d, &with_baseline);
    assert_eq!(code, Some(1), "{doc}");
    let new = with_code(&doc, "RY0501");
    assert_eq!(new.len(), 1, "{doc}");
    assert_eq!(new[0]["key"], "compute.spine.model");
    assert_eq!(new[0]["severity"], "error");
}
