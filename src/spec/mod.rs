//! Stage 1: YAML text → [`ClusterSpec`], the user's words with spans kept.
//!
//! Input: one spec file. Output: the typed spec, or diagnostics (syntax, types, unknown keys, version).
//! Invariant: no I/O here; the CLI reads the file and hands over its text.

pub mod bounds;
pub mod defaults;
mod grammar;
mod keys;
pub mod locate;
mod mistakes;
pub mod reference;
mod schema_fields;
mod tenants;
mod types;
mod validate;
mod yaml;

pub use tenants::*;
pub use types::*;
pub use yaml::Sp;

use crate::diag::{Diagnostic, Diagnostics, SourceFile, codes};

/// The JSON Schema of the spec, for editors (`# yaml-language-server: $schema=...`): every
/// field with its description and default, and the built-in model names offered where a model
/// is named (any other string stays valid: a spec may add models in `catalog:`).
pub fn schema() -> serde_json::Value {
    let schema = schemars::schema_for!(ClusterSpec);
    let mut value = serde_json::to_value(schema).unwrap_or(serde_json::Value::Null);
    offer_model_names(&mut value);
    value
}

/// The switch-model fields (`<definition>.model`) and the node-model field of the schema.
const SWITCH_MODEL_FIELDS: &[&str] = &[
    "LeafSpec",
    "SpineSpec",
    "CoreSpec",
    "AccessSwitchSpec",
    "AccessSpineSpec",
    "OobSpec",
    "OobGatewaySpec",
];

fn offer_model_names(schema: &mut serde_json::Value) {
    let cat = crate::catalog::builtin();
    let switches: Vec<&str> = cat.switches.keys().map(|k| k.as_str()).collect();
    let nodes: Vec<&str> = cat.nodes.keys().map(|k| k.as_str()).collect();
    let defs = &mut schema["$defs"];
    for def in SWITCH_MODEL_FIELDS {
        offer(&mut defs[*def]["properties"]["model"], &switches);
    }
    offer(&mut defs["SuSpec"]["properties"]["node_model"], &nodes);
}

/// `{type: string}` → `{anyOf: [{enum: names}, {type: string}]}`, description and default kept.
fn offer(field: &mut serde_json::Value, names: &[&str]) {
    let Some(obj) = field.as_object_mut() else {
        return;
    };
    let Some(ty) = obj.remove("type") else {
        return;
    };
    obj.insert(
        "anyOf".into(),
        serde_json::json!([{ "enum": names }, { "type": ty }]),
    );
}

/// Parse a spec. Unknown keys are reported alongside the typed parse so the user sees them all.
pub fn parse(src: &SourceFile, diags: &mut Diagnostics) -> Option<ClusterSpec> {
    let tree = match yaml::parse_tree(&src.text) {
        Ok(t) => t,
        Err(d) => {
            diags.push(mistakes::syntax(*d, &src.text));
            return None;
        }
    };
    keys::check_unknown(&tree, &schema(), diags);
    let before = diags.error_count();
    grammar::check(&tree, diags);
    bounds::check(&tree, diags);
    if diags.error_count() > before {
        // The typed parse holds these strings as their grammar's types and would stop at the
        // first; every one is reported above. A number out of bounds never reaches it either.
        return None;
    }
    let mut spec: ClusterSpec = match yaml::parse_typed(&src.text) {
        Ok(s) => s,
        Err(d) => {
            diags.push(mistakes::wrong_type(*d, &tree, &schema()));
            return None;
        }
    };
    spec.catalog_spans = catalog_spans(&tree);
    if *spec.version != 1 {
        diags.push(
            Diagnostic::error(
                codes::UNSUPPORTED_VERSION,
                format!("spec version {} is not supported", *spec.version),
            )
            .at(spec.version.span, "this railyard reads version 1")
            .help("set `version: 1`"),
        );
        return None;
    }
    validate::roce(&spec, diags);
    validate::bgp(&spec, diags);
    validate::physical(&spec, diags);
    let allowed = validate::allowed_codes(&spec, diags);
    diags.allow(&allowed);
    Some(spec)
}

/// The span of every model key under `catalog.switches` and `catalog.nodes`, keyed
/// `switches.<name>` / `nodes.<name>`.
fn catalog_spans(
    tree: &yaml::Sp<yaml::Node>,
) -> std::collections::BTreeMap<String, crate::diag::Span> {
    fn entries(n: &yaml::Sp<yaml::Node>) -> &[(yaml::Sp<String>, yaml::Sp<yaml::Node>)] {
        match &n.value {
            yaml::Node::Map(e) => e,
            _ => &[],
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for (k, catalog) in entries(tree) {
        if k.value != "catalog" {
            continue;
        }
        for (kind, models) in entries(catalog) {
            for (name, _) in entries(models) {
                if let Some(span) = name.span {
                    out.insert(format!("{}.{}", kind.value, name.value), span);
                }
            }
        }
    }
    out
}
