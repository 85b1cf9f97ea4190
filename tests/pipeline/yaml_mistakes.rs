//! YAML mistakes get messages as good as the design checks: the key path, what the key expects
//! and its meaning from the schema (read here from `railyard schema`, not from the message's
//! own code), the caret on the real character, one error for one cause. Exit 1, as for every
//! error in a spec (README, "Use").

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn validate(dir: &Path, name: &str, text: &str) -> (Option<i32>, Vec<Value>) {
    std::fs::write(dir.join(name), text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["validate", name, "--format", "json"])
        .current_dir(dir)
        .output()
        .expect("binary runs");
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let diags = doc["diagnostics"].as_array().cloned().unwrap_or_default();
    (out.status.code(), diags)
}

fn errors(diags: &[Value]) -> Vec<&Value> {
    diags.iter().filter(|d| d["severity"] == "error").collect()
}

fn inventory(name: &str) -> String {
    std::fs::read_to_string(format!("{}/inventories/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// (line, column), 1-based, of the first occurrence of `needle` in `text`.
fn place(text: &str, needle: &str) -> (u64, u64) {
    let at = text.find(needle).expect("needle in text");
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    (line as u64, col as u64)
}

/// `range: 65-80` instead of `[65, 80]`: the key path, "a list", the value written, and the
/// key's own description from the schema.
#[test]
fn a_value_of_the_wrong_kind_names_its_key_and_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        inventory("spectrum-x-cloud-tenants.yaml").replace("range: [65, 80]", "range: 65-80");
    let (code, diags) = validate(dir.path(), "s.yaml", &text);
    assert_eq!(code, Some(1));
    let errs = errors(&diags);
    assert_eq!(errs.len(), 1, "{diags:?}");
    let e = errs[0];
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("`tenants[].nodes.range`"), "{msg}");
    assert!(msg.contains("list") && msg.contains("`65-80`"), "{msg}");
    assert!(!msg.contains("sequence start"), "parser jargon: {msg}");
    let (line, col) = place(&text, "65-80");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(line), Some(col))
    );

    let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("schema")
        .output()
        .unwrap();
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let meaning = schema["$defs"]["NodeSelection"]["properties"]["range"]["description"]
        .as_str()
        .unwrap();
    let help = e["help"].as_str().unwrap();
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words(help).contains(&words(meaning)), "{help}");
}

/// An enumeration lists its values; a number names the key.
#[test]
fn enumerations_and_numbers_say_what_they_take() {
    let dir = tempfile::tempdir().unwrap();
    let base = inventory("spectrum-x-cloud-tenants.yaml");
    let (_, diags) = validate(
        dir.path(),
        "l.yaml",
        &base.replace("layout: rail-optimized", "layout: rail"),
    );
    let msg = errors(&diags)[0]["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains("`compute.layout`")
            && msg.contains("`rail-optimized`")
            && msg.contains("`top-of-rack`"),
        "{msg}"
    );
    let (_, diags) = validate(
        dir.path(),
        "c.yaml",
        &base.replace("count: 3", "count: three"),
    );
    let msg = errors(&diags)[0]["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains("`scalable_units.count`") && msg.contains("number"),
        "{msg}"
    );
}

/// A tab: the caret on the tab itself (the parser reports the end of the line before it), and
/// advice for a tab, not a generic line.
#[test]
fn a_tab_is_pointed_at_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let text = "name: x\nversion: 1\n\tscalable_units: {count: 1}\n";
    let (code, diags) = validate(dir.path(), "t.yaml", text);
    assert_eq!(code, Some(1));
    let e = errors(&diags)[0];
    assert_eq!(e["code"], "RY0001");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(3), Some(1)),
        "{e}"
    );
    assert!(e["help"].as_str().unwrap().contains("spaces"), "{e}");
}

/// A `{` left open is pointed at where it was opened, not where the parser gave up.
#[test]
fn an_unclosed_brace_is_pointed_at_its_opening() {
    let dir = tempfile::tempdir().unwrap();
    let text = "name: x\nscalable_units: {count: 1, nodes_per_su: 4\ncompute: {}\n";
    let (_, diags) = validate(dir.path(), "b.yaml", text);
    let e = errors(&diags)[0];
    let (line, col) = place(text, "{count");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(line), Some(col)),
        "{e}"
    );
    assert!(e["help"].as_str().unwrap().contains('}'), "{e}");
}

/// Two tenants with one id: the id is the cause; the VLAN, VNI and route target derived from it
/// are not reported again as collisions of their own.
#[test]
fn one_duplicate_tenant_id_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = inventory("spectrum-x-cloud-tenants.yaml").replacen("    id: 2", "    id: 1", 1);
    let (code, diags) = validate(dir.path(), "d.yaml", &text);
    assert_eq!(code, Some(1));
    let errs = errors(&diags);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0]["code"], "RY0802");
    // An explicit VLAN shared on purpose is still its own error.
    let text = inventory("spectrum-x-cloud-tenants.yaml")
        .replacen("    id: 1\n", "    id: 1\n    vlan: 900\n", 1)
        .replacen("    id: 2\n", "    id: 2\n    vlan: 900\n", 1);
    let (_, diags) = validate(dir.path(), "v.yaml", &text);
    assert!(
        errors(&diags).iter().any(|d| d["code"] == "RY0805"),
        "{diags:?}"
    );
}
