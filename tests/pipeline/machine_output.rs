//! The machine document (#47 item 1, docs/ci.md): one versioned document per command on
//! standard output, whatever the outcome, and its two other forms checked by their consumers'
//! published definitions:
//!
//! - `--format sarif` against the SARIF 2.1.0 JSON Schema (OASIS, `tests/fixtures/sarif/`, with
//!   its provenance), Python jsonschema in the test venv (`tests/python/sarif_validate.py`);
//! - `--format github` against the workflow-command grammar of GitHub's documentation and its
//!   toolkit's escaping (`::CMD k=v,k=v::data`; `%`, CR, LF escaped in data, also `:` and `,` in
//!   property values), each line decoded back to the finding the JSON document names;
//! - fingerprints: the same after the design grows (the counts in the message change) and after
//!   lines are added above the finding (its line changes); different for another place.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{inventory, railyard_in};

fn doc(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout is not one JSON document:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The document's promises: its format, the process's exit code, every finding placed and
/// fingerprinted.
fn check_document(out: &Output, command: &str) -> Value {
    let d = doc(out);
    assert_eq!(d["format"], format!("railyard/{command}/v1"), "{d}");
    assert_eq!(d["command"], command, "{d}");
    assert_eq!(
        d["exit_code"].as_i64(),
        out.status.code().map(i64::from),
        "{d}"
    );
    assert!(d["railyard"].as_str().is_some_and(|v| !v.is_empty()), "{d}");
    for f in d["diagnostics"].as_array().expect("diagnostics") {
        for field in ["code", "severity", "message", "file", "fingerprint"] {
            assert!(f[field].is_string(), "{field} of {f}");
        }
        assert!(f["line"].is_u64() || f["line"].is_null(), "{f}");
        assert!(f["column"].is_u64() || f["column"].is_null(), "{f}");
        assert_eq!(f["fingerprint"].as_str().map(str::len), Some(16), "{f}");
    }
    let counted = d["counts"]["errors"].as_u64().unwrap_or(0)
        + d["counts"]["warnings"].as_u64().unwrap_or(0)
        + d["counts"]["info"].as_u64().unwrap_or(0);
    assert_eq!(
        counted as usize,
        d["diagnostics"].as_array().map_or(0, Vec::len)
    );
    d
}

#[test]
fn every_command_prints_one_versioned_document_on_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.yaml"), inventory("lab-small.yaml")).unwrap();
    let grown = inventory("lab-small.yaml").replace("nodes_per_su: 4", "nodes_per_su: 6");
    std::fs::write(d.join("b.yaml"), grown).unwrap();

    let v = railyard_in(d, &["validate", "a.yaml", "--format", "json"]);
    let v = check_document(&v, "validate");
    assert_eq!(v["valid"], true);
    assert!(v["diagnostics"].as_array().is_some_and(|d| !d.is_empty()));

    let b = railyard_in(d, &["build", "a.yaml", "-o", "out", "--format", "json"]);
    let doc = check_document(&b, "build");
    let listed = std::fs::read_to_string(d.join("out/manifest.json")).unwrap();
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let files = listed["files"].as_array().map_or(0, Vec::len);
    // The manifest lists every file but itself.
    assert_eq!(doc["files"].as_u64(), Some(files as u64 + 1), "{doc}");
    let err = String::from_utf8_lossy(&b.stderr);
    assert!(err.contains("wrote "), "human lines stay on stderr: {err}");

    let diff = railyard_in(d, &["diff", "a.yaml", "b.yaml", "--format", "json"]);
    let doc = check_document(&diff, "diff");
    // More nodes per SU move the uplinks to later leaf ports: disruptive, exit 2.
    assert_eq!(doc["verdict"], "disruptive");
    assert_eq!(doc["exit_code"], 2);
    assert!(doc["cables"].as_array().is_some_and(|c| !c.is_empty()));

    // Could not compare (exit 3): still a document, with the reason as a located RY1201.
    let gone = railyard_in(d, &["diff", "a.yaml", "absent.yaml", "--format", "json"]);
    let doc = check_document(&gone, "diff");
    assert_eq!(doc["exit_code"], 3);
    let why = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "RY1201")
        .unwrap_or_else(|| panic!("no RY1201: {doc}"));
    assert_eq!(why["file"], "absent.yaml");
    assert_eq!(why["severity"], "error");

    let impact = railyard_in(d, &["impact", "a.yaml", "--format", "json"]);
    let doc = check_document(&impact, "impact");
    assert!(doc["impacts"].as_array().is_some_and(|i| !i.is_empty()));

    let plan = railyard_in(
        d,
        &[
            "acceptance",
            "plan",
            "a.yaml",
            "-o",
            "acc",
            "--format",
            "json",
        ],
    );
    let doc = check_document(&plan, "acceptance-plan");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("acc/plan.json")).unwrap()).unwrap();
    assert_eq!(doc["link_tests"], written["schedule"]["tests"], "{doc}");

    // A command that stops without an answer (an unreadable spec): a document, exit 2.
    let missing = railyard_in(d, &["validate", "absent.yaml", "--format", "json"]);
    let doc = check_document(&missing, "validate");
    assert_eq!(doc["exit_code"], 2);
    assert!(
        doc["error"]
            .as_str()
            .is_some_and(|e| e.contains("absent.yaml"))
    );
}

/// The RY0501 fingerprints of a spec's validate document, by key path.
fn spare_port_prints(dir: &Path, name: &str) -> Vec<(String, String, u64, String)> {
    let out = railyard_in(dir, &["validate", name, "--format", "json"]);
    let d = check_document(&out, "validate");
    d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "RY0501")
        .map(|f| {
            (
                f["key"].as_str().unwrap_or("").to_string(),
                f["fingerprint"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn fingerprints_survive_growth_and_lines_added_above() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = inventory("lab-small.yaml");
    std::fs::write(d.join("c.yaml"), &text).unwrap();
    let before = spare_port_prints(d, "c.yaml");
    assert!(before.len() >= 2, "{before:?}");
    assert!(
        before.iter().any(|b| b.0 == "compute.leaf.model"),
        "{before:?}"
    );

    // Twice the nodes (fewer spare ports: other counts in the message) and three comment
    // lines on top (every finding two... three lines lower).
    let grown = format!(
        "# grown\n# by two nodes\n# per SU\n{}",
        text.replace("nodes_per_su: 4", "nodes_per_su: 8")
    );
    std::fs::write(d.join("c.yaml"), grown).unwrap();
    let after = spare_port_prints(d, "c.yaml");
    let leaf = |v: &[(String, String, u64, String)]| {
        v.iter()
            .find(|f| f.0 == "compute.leaf.model")
            .cloned()
            .expect("the leaves' spare ports")
    };
    let (b, a) = (leaf(&before), leaf(&after));
    assert_ne!(b.3, a.3, "the counts in the message changed");
    assert_eq!(a.2, b.2 + 3, "the line moved");
    assert_eq!(a.1, b.1, "the fingerprint did not: {b:?} {a:?}");
    // Another place, another fingerprint.
    let prints: std::collections::BTreeSet<&String> = after.iter().map(|f| &f.1).collect();
    assert_eq!(prints.len(), after.len(), "{after:?}");
}

/// A spec whose file name and an unknown key hold every character the workflow commands escape.
const HOSTILE_NAME: &str = "a,b:c%d.yaml";

fn hostile(dir: &Path) -> String {
    let text = inventory("lab-small.yaml").replace("site: lab", "site: lab\n\"50%,x:y\": 1");
    std::fs::write(dir.join(HOSTILE_NAME), text).unwrap();
    HOSTILE_NAME.to_string()
}

#[test]
fn sarif_is_valid_sarif_2_1_0() {
    let Some(python) = crate::pyenv::python("sarif_is_valid_sarif_2_1_0") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("ok.yaml"), inventory("lab-small.yaml")).unwrap();
    let bad = hostile(d);
    let mut logs = Vec::new();
    for (name, code) in [("ok.yaml", 0), (bad.as_str(), 1), ("absent.yaml", 2)] {
        let out = railyard_in(d, &["validate", name, "--format", "sarif"]);
        assert_eq!(out.status.code(), Some(code), "{name}");
        let log: Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
        let results = log["runs"][0]["results"].as_array().expect("results");
        // The same findings as the JSON document, rule by rule, with their fingerprints.
        let json = doc(&railyard_in(d, &["validate", name, "--format", "json"]));
        let findings = json["diagnostics"].as_array().unwrap();
        assert_eq!(results.len(), findings.len(), "{log}");
        for (r, f) in results.iter().zip(findings) {
            assert_eq!(r["ruleId"], f["code"]);
            assert_eq!(r["partialFingerprints"]["railyard/v1"], f["fingerprint"]);
            let rule = &log["runs"][0]["tool"]["driver"]["rules"]
                [r["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], f["code"]);
        }
        assert_eq!(
            log["runs"][0]["invocations"][0]["executionSuccessful"],
            code != 2
        );
        let path = d.join(format!("log{code}.sarif"));
        std::fs::write(&path, &out.stdout).unwrap();
        logs.push(path);
    }
    let schema =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let run = std::process::Command::new(python)
        .arg(crate::pyenv::script("sarif_validate.py"))
        .arg(&schema)
        .args(&logs)
        .output()
        .expect("python runs");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(said.matches("OK ").count(), logs.len(), "{said}");
}

/// One workflow command parsed by the grammar of GitHub's documentation: `::NAME PROPS::DATA`,
/// PROPS `key=value` joined by `,`. Returns (name, properties decoded, data decoded).
fn workflow_command(line: &str) -> (String, Vec<(String, String)>, String) {
    let rest = line.strip_prefix("::").unwrap_or_else(|| panic!("{line}"));
    let (head, data) = rest.split_once("::").unwrap_or_else(|| panic!("{line}"));
    let (name, props) = head.split_once(' ').unwrap_or((head, ""));
    assert!(["error", "warning", "notice"].contains(&name), "{line}");
    assert!(!data.contains(['\r', '\n']), "{line}");
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or_else(|| panic!("{p} in {line}"));
            assert!(
                ["file", "line", "col", "endLine", "endColumn", "title"].contains(&k),
                "{k} in {line}"
            );
            assert!(!v.contains([':', ',', '\r', '\n']), "{line}");
            if k == "line" || k == "col" {
                assert!(v.bytes().all(|b| b.is_ascii_digit()), "{line}");
            }
            (k.to_string(), decode(v, true))
        })
        .collect();
    (name.to_string(), props, decode(data, false))
}

/// The toolkit's escapes undone; every `%` must start one of them.
fn decode(text: &str, property: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3).unwrap_or("");
        let c = match code {
            "25" => '%',
            "0D" => '\r',
            "0A" => '\n',
            "3A" if property => ':',
            "2C" if property => ',',
            _ => panic!("`%{code}` is not an escape in {text}"),
        };
        out.push(c);
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

#[test]
fn github_lines_are_workflow_commands_naming_each_finding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = hostile(d);
    let out = railyard_in(d, &["validate", &name, "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let json = doc(&railyard_in(d, &["validate", &name, "--format", "json"]));
    let findings = json["diagnostics"].as_array().unwrap();
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), findings.len(), "{text}");
    let mut saw_percent = false;
    for (line, f) in lines.iter().zip(findings) {
        let (command, props, data) = workflow_command(line);
        // GitHub's three annotation levels; railyard's advisory `info` is a notice.
        let level = match f["severity"].as_str().unwrap() {
            "info" => "notice",
            other => other,
        };
        assert_eq!(command, level, "{line}");
        let prop = |k: &str| props.iter().find(|p| p.0 == k).map(|p| p.1.clone());
        assert_eq!(prop("file").as_deref(), Some(HOSTILE_NAME), "{line}");
        assert_eq!(prop("line"), f["line"].as_u64().map(|l| l.to_string()));
        assert_eq!(prop("col"), f["column"].as_u64().map(|l| l.to_string()));
        assert!(prop("title").is_some_and(|t| t.starts_with(f["code"].as_str().unwrap())));
        let message = f["message"].as_str().unwrap();
        assert!(data.starts_with(message), "{data:?} vs {message:?}");
        saw_percent |= message.contains('%');
    }
    assert!(saw_percent, "a message with `%` was checked: {text}");
}
