//! The spec reference and the schema editors read: `docs/spec.md` is what `railyard schema
//! --format markdown` writes (in sync), every field of the schema has a description, fields
//! with a default carry it, and model fields offer the built-in model names.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

fn railyard(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn docs_spec_md_is_the_generated_reference() {
    let generated = String::from_utf8(railyard(&["schema", "--format", "markdown"])).unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/spec.md");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        generated == on_disk,
        "docs/spec.md is out of date: run `cargo run -- schema --format markdown > docs/spec.md`"
    );
}

/// Every property of every object the schema defines, `Definition.field`.
fn fields(schema: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    let mut objects: Vec<(String, &Value)> = vec![("ClusterSpec".into(), schema)];
    if let Some(defs) = schema["$defs"].as_object() {
        objects.extend(defs.iter().map(|(k, v)| (k.clone(), v)));
    }
    for (name, def) in objects {
        if let Some(props) = def["properties"].as_object() {
            out.extend(props.iter().map(|(k, v)| (format!("{name}.{k}"), v)));
        }
    }
    out
}

/// A field is described on itself or, for a field holding an object, on that object's
/// definition (what an editor shows on hover through the `$ref`).
fn described(schema: &Value, field: &Value) -> bool {
    if field["description"].is_string() {
        return true;
    }
    let refs = [
        &field["$ref"],
        &field["items"]["$ref"],
        &field["additionalProperties"]["$ref"],
    ];
    let via_ref = refs.iter().filter_map(|r| r.as_str()).any(|r| {
        schema
            .pointer(r.trim_start_matches('#'))
            .is_some_and(|d| d["description"].is_string())
    });
    let via_any_of = field["anyOf"].as_array().is_some_and(|alts| {
        alts.iter().any(|a| {
            a["$ref"].as_str().is_some_and(|r| {
                schema
                    .pointer(r.trim_start_matches('#'))
                    .is_some_and(|d| d["description"].is_string())
            })
        })
    });
    via_ref || via_any_of
}

#[test]
fn every_field_of_the_schema_is_described() {
    let schema: Value = serde_json::from_slice(&railyard(&["schema"])).unwrap();
    let all = fields(&schema);
    assert!(all.len() > 300, "{} fields", all.len());
    let missing: Vec<&String> = all
        .iter()
        .filter(|(_, f)| !described(&schema, f))
        .map(|(n, _)| n)
        .collect();
    assert!(
        missing.is_empty(),
        "fields without a description: {missing:?}"
    );
}

/// Defaults as the code applies them, stated against the vendor's documents where they come
/// from: NVIDIA Cumulus Linux RoCE documentation (RoCE DSCP 26, priority 3; CNP DSCP 48,
/// priority 6), RFC 6996's 4-byte private ASN range.
#[test]
fn the_schema_carries_defaults_and_model_names() {
    let schema: Value = serde_json::from_slice(&railyard(&["schema"])).unwrap();
    let roce = &schema["$defs"]["RoceSpec"]["properties"];
    assert_eq!(roce["dscp"]["default"], 26);
    assert_eq!(roce["priority"]["default"], 3);
    assert_eq!(roce["cnp_dscp"]["default"], 48);
    assert_eq!(roce["cnp_priority"]["default"], 6);
    assert_eq!(
        schema["$defs"]["BgpSpec"]["properties"]["asn_scheme"]["default"],
        "private-4byte"
    );
    let catalog: Value =
        serde_json::from_slice(&railyard(&["catalog", "--format", "json"])).unwrap();
    let builtin = |kind: &str| -> BTreeSet<String> {
        catalog[kind].as_object().unwrap().keys().cloned().collect()
    };
    let offered = |field: &Value| -> BTreeSet<String> {
        field["anyOf"][0]["enum"]
            .as_array()
            .map(|e| {
                e.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let defs = &schema["$defs"];
    for def in [
        "LeafSpec",
        "SpineSpec",
        "CoreSpec",
        "AccessSwitchSpec",
        "AccessSpineSpec",
        "OobSpec",
    ] {
        assert_eq!(
            offered(&defs[def]["properties"]["model"]),
            builtin("switches"),
            "{def}"
        );
        // A spec's own model stays valid.
        assert_eq!(
            defs[def]["properties"]["model"]["anyOf"][1]["type"], "string",
            "{def}"
        );
    }
    assert_eq!(
        offered(&defs["SuSpec"]["properties"]["node_model"]),
        builtin("nodes")
    );
}
