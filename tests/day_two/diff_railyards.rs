//! Which railyard made a build (#47 item 6): `manifest.json` records the railyard (release and
//! commit, as `railyard --version` prints them) and the SHA-256 of the spec (checked here with
//! coreutils' `sha256sum`, not railyard's own digest); `diff` warns (RY1202) in every format
//! (text, JSON, markdown, the HTML page) when the two sides come from different railyards, and
//! says nothing when they do not. A build directory and its own spec compare as no change.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{inventory, railyard_in};

fn manifest(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn the_manifest_names_its_railyard_and_spec() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("c.yaml"), inventory("lab-small.yaml")).unwrap();
    let b = railyard_in(d, &["build", "c.yaml", "-o", "out", "-q"]);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let m = manifest(&d.join("out"));

    let version = railyard_in(d, &["--version"]);
    let version = String::from_utf8_lossy(&version.stdout);
    let version = version.trim().strip_prefix("railyard ").unwrap_or_default();
    assert!(!version.is_empty());
    assert_eq!(m["railyard"], version, "{m}");

    let sum = Command::new("sha256sum")
        .arg(d.join("c.yaml"))
        .output()
        .expect("coreutils sha256sum");
    let sum = String::from_utf8_lossy(&sum.stdout);
    let sum = sum.split_whitespace().next().unwrap_or_default();
    assert_eq!(sum.len(), 64);
    assert_eq!(m["spec_sha256"], sum, "{m}");
}

#[test]
fn diff_warns_when_the_sides_come_from_different_railyards() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("c.yaml"), inventory("lab-small.yaml")).unwrap();
    for out in ["out", "now"] {
        let b = railyard_in(d, &["build", "c.yaml", "-o", out, "-q"]);
        assert!(b.status.success());
    }

    // The same railyard on both sides (a build and a spec, two builds): no word.
    let same = railyard_in(d, &["diff", "out", "c.yaml", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&same.stdout).unwrap();
    assert_eq!(doc["old"]["kind"], "build");
    assert_eq!(doc["new"]["kind"], "spec");
    assert_eq!(doc["old"]["railyard"], doc["new"]["railyard"]);
    // A build and its own spec are the same design: the report and workbook compared too, not
    // taken for removed files.
    assert_eq!(same.status.code(), Some(0), "{}", doc["files"]);
    assert_eq!(
        doc["files"].as_array().map(Vec::len),
        Some(0),
        "{}",
        doc["files"]
    );
    assert!(!doc.to_string().contains("RY1202"), "{doc}");
    let same = railyard_in(d, &["diff", "out", "now", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&same.stdout).unwrap();
    assert_eq!(same.status.code(), Some(0), "{doc}");
    assert!(!doc.to_string().contains("RY1202"), "{doc}");

    // The build as an earlier release left it (its files untouched, so still a valid build).
    let mut m = manifest(&d.join("out"));
    m["railyard"] = Value::from("0.0.1 (commit 0123abc)");
    std::fs::write(
        d.join("out/manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();

    let json = railyard_in(d, &["diff", "out", "now", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        json.status.code(),
        Some(0),
        "the verdict is the design's: {doc}"
    );
    let warned: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "RY1202")
        .collect();
    assert_eq!(warned.len(), 1, "{doc}");
    assert_eq!(warned[0]["severity"], "warning");
    assert!(
        warned[0]["message"]
            .as_str()
            .unwrap()
            .contains("0.0.1 (commit 0123abc)")
    );
    assert_eq!(doc["old"]["railyard"], "0.0.1 (commit 0123abc)");

    let text = railyard_in(d, &["diff", "out", "now"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("warning[RY1202]: "), "{text}");

    let page = d.join("change.html");
    let md = railyard_in(
        d,
        &[
            "diff",
            "out",
            "now",
            "--format",
            "markdown",
            "--html",
            page.to_str().unwrap(),
        ],
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<strong>Warning:</strong> the two sides were made by different railyards"),
        "{html}"
    );
    let md = String::from_utf8_lossy(&md.stdout);
    let mut lines = md.lines();
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("**railyard diff: ")),
        "{md}"
    );
    assert!(
        // Markdown-escaped punctuation read back as text.
        md.lines().any(|l| l.starts_with("> **Warning:**")
            && l.replace('\\', "").contains("0.0.1 (commit 0123abc)")),
        "{md}"
    );
}
