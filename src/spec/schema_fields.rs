//! Reading a field of the spec's JSON Schema, for the reference (`reference.rs`) and for the
//! messages of YAML mistakes (`mistakes.rs`): what it refers to, its values, types and meaning.

use serde_json::Value;

/// The definition a field refers to (through `$ref`, or an `anyOf` branch with one), if any.
pub(super) fn referenced<'a>(schema: &'a Value, field: &'a Value) -> Option<&'a Value> {
    if let Some(r) = field.get("$ref").and_then(Value::as_str) {
        return schema.pointer(r.trim_start_matches('#'));
    }
    field
        .get("anyOf")
        .and_then(Value::as_array)?
        .iter()
        .find_map(|alt| referenced(schema, alt))
}

/// The allowed values of an enumeration (`enum`, or `oneOf` of `const`s and `enum`s).
pub(super) fn allowed(def: &Value) -> Option<Vec<&Value>> {
    let values: Vec<&Value> = match (def.get("enum"), def.get("oneOf")) {
        (Some(Value::Array(e)), _) => e.iter().collect(),
        (_, Some(Value::Array(alts))) => alts
            .iter()
            .flat_map(|a| match (a.get("const"), a.get("enum")) {
                (Some(c), _) => vec![c],
                (_, Some(Value::Array(e))) => e.iter().collect(),
                _ => Vec::new(),
            })
            .collect(),
        _ => return None,
    };
    (!values.is_empty()).then_some(values)
}

/// The JSON types a value may have, `null` left out (the type of an `anyOf` branch when the
/// value has none of its own).
pub(super) fn types(def: &Value) -> Vec<&str> {
    let ty = def.get("type").or_else(|| {
        def.get("anyOf")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find_map(|x| x.get("type")))
    });
    let all: Vec<&str> = match ty {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    all.into_iter().filter(|t| *t != "null").collect()
}

/// A field's description (or its definition's, through `$ref`), on one line.
pub(super) fn description(schema: &Value, field: &Value) -> String {
    field
        .get("description")
        .or_else(|| referenced(schema, field).and_then(|t| t.get("description")))
        .and_then(Value::as_str)
        .map(one_line)
        .unwrap_or_default()
}

pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
