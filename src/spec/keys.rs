//! Unknown keys, all at once, with a did-you-mean: the spanned tree is walked against the JSON
//! Schema generated from the spec types, so the schema is the single list of allowed keys.

use serde_json::Value;

use super::yaml::{Node, Sp};
use crate::diag::{Diagnostic, Diagnostics, codes};

pub fn check_unknown(tree: &Sp<Node>, schema: &Value, diags: &mut Diagnostics) {
    walk(tree, schema, schema, "", diags);
}

fn resolve<'a>(s: &'a Value, root: &'a Value) -> &'a Value {
    let mut cur = s;
    for _ in 0..16 {
        match cur.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let path = r.trim_start_matches('#');
                match root.pointer(path) {
                    Some(next) => cur = next,
                    None => return cur,
                }
            }
            None => return cur,
        }
    }
    cur
}

/// The object-shaped alternatives of a schema (through `anyOf`/`oneOf`/`allOf`).
fn alternatives<'a>(s: &'a Value, root: &'a Value, out: &mut Vec<&'a Value>) {
    let s = resolve(s, root);
    out.push(s);
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(list) = s.get(key).and_then(Value::as_array) {
            for alt in list {
                alternatives(alt, root, out);
            }
        }
    }
}

fn walk(node: &Sp<Node>, schema: &Value, root: &Value, path: &str, diags: &mut Diagnostics) {
    let mut alts = Vec::new();
    alternatives(schema, root, &mut alts);
    match &node.value {
        Node::Scalar(_) => {}
        Node::Seq(items) => {
            if let Some(items_schema) = alts.iter().find_map(|a| a.get("items")) {
                for (i, item) in items.iter().enumerate() {
                    walk(item, items_schema, root, &format!("{path}[{i}]"), diags);
                }
            }
        }
        Node::Map(entries) => {
            let props: Vec<(&String, &Value)> = alts
                .iter()
                .filter_map(|a| a.get("properties").and_then(Value::as_object))
                .flat_map(|m| m.iter())
                .collect();
            let additional = alts.iter().find_map(|a| a.get("additionalProperties"));
            let closed = !props.is_empty() || matches!(additional, Some(Value::Bool(false)));
            for (key, value) in entries {
                let child_path = if path.is_empty() {
                    key.value.clone()
                } else {
                    format!("{path}.{}", key.value)
                };
                if let Some((_, s)) = props.iter().find(|(k, _)| **k == key.value) {
                    walk(value, s, root, &child_path, diags);
                } else if let Some(s @ Value::Object(_)) = additional {
                    walk(value, s, root, &child_path, diags);
                } else if closed {
                    let known: Vec<&str> = props.iter().map(|(k, _)| k.as_str()).collect();
                    diags.push(unknown(key, path, &known));
                }
            }
        }
    }
}

fn unknown(key: &Sp<String>, path: &str, known: &[&str]) -> Diagnostic {
    let place = if path.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in `{path}`")
    };
    let best = known
        .iter()
        .map(|k| (strsim::jaro_winkler(&key.value, k), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let help = match best {
        Some((_, k)) => format!("did you mean `{k}`?"),
        None => format!(
            "allowed keys here: {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Diagnostic::error(
        codes::UNKNOWN_KEY,
        format!("unknown key `{}` {place}", key.value),
    )
    .at(key.span, "not a key railyard knows")
    .help(help)
}
