//! The spec reference (`docs/spec.md`), generated from the JSON Schema the editors read, so the
//! two never disagree: every field with its type, default, meaning and an example taken from a
//! shipped example spec where one sets it. `tests/pipeline/spec_reference.rs` keeps the file in
//! sync and fails on a field without a description.

use std::collections::{BTreeSet, VecDeque};

use serde_json::Value;

use super::schema_fields::{allowed, description, one_line, referenced, types};
use super::yaml::{self, Node, Sp};

/// One table of the reference: the fields of an object at a path of the spec.
struct Section<'a> {
    path: String,
    def: &'a Value,
}

/// The reference as Markdown. `examples` are (name, spec text) of the shipped examples, read
/// for each field's example value.
pub fn markdown(examples: &[(&str, &str)]) -> String {
    let schema = super::schema();
    let trees: Vec<(&str, Sp<Node>)> = examples
        .iter()
        .filter_map(|(name, text)| yaml::parse_tree(text).ok().map(|t| (*name, t)))
        .collect();
    let mut out = String::from(HEADER);
    let mut queue = VecDeque::from([Section {
        path: String::new(),
        def: &schema,
    }]);
    let mut seen = BTreeSet::new();
    while let Some(section) = queue.pop_front() {
        if !seen.insert(section.path.clone()) {
            continue;
        }
        write_section(&schema, &section, &trees, &mut out, &mut queue);
    }
    out
}

const HEADER: &str = "# Spec reference\n\n\
Generated from the spec's JSON Schema (`railyard schema`); do not edit by hand: \
`railyard schema --format markdown > docs/spec.md` writes it again, and a test keeps it in \
sync. Every key of a cluster spec is below, section by section from the top of the file: its \
type, its default (empty: the key is required, or absent means \"none\"), what it means, and an \
example from a shipped spec (`railyard catalog` lists them; `--example NAME` builds one). \
Built-in model names are in `railyard catalog`; an editor that reads the schema offers them.\n";

fn write_section<'a>(
    schema: &'a Value,
    section: &Section<'a>,
    trees: &[(&str, Sp<Node>)],
    out: &mut String,
    queue: &mut VecDeque<Section<'a>>,
) {
    let Some(props) = section.def.get("properties").and_then(Value::as_object) else {
        return;
    };
    let title = if section.path.is_empty() {
        "Top level".to_string()
    } else {
        format!("`{}`", section.path)
    };
    out.push_str(&format!("\n## {title}\n\n"));
    if let Some(d) = section.def.get("description").and_then(Value::as_str) {
        out.push_str(&format!("{}\n\n", one_line(d)));
    }
    let required: BTreeSet<&str> = section
        .def
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    out.push_str("| Key | Type | Default | Meaning | Example |\n|---|---|---|---|---|\n");
    for (key, field) in props {
        let path = join(&section.path, key);
        let (ty, nested) = type_of(schema, field, &path);
        if let Some((sub, def)) = nested {
            queue.push_back(Section { path: sub, def });
        }
        let default = if required.contains(key.as_str()) {
            "required".to_string()
        } else {
            // An object's defaults are its fields' own, in its section.
            field
                .get("default")
                .filter(|d| !d.is_object())
                .map(inline)
                .unwrap_or_default()
        };
        let meaning = description(schema, field);
        // A shipped spec's value, or else the schema's own example.
        let shown = match example(trees, &path) {
            e if e.is_empty() => field
                .get("examples")
                .and_then(|e| e.get(0))
                .map(|e| format!("{} (schema)", inline(e)))
                .unwrap_or_default(),
            e => e,
        };
        out.push_str(&format!(
            "| `{key}` | {ty} | {} | {} | {} |\n",
            cell(&default),
            cell(&meaning),
            cell(&shown)
        ));
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A field's type as the reference prints it, and the object section it opens (its path and
/// definition) when it holds fields of its own.
fn type_of<'a>(
    schema: &'a Value,
    field: &'a Value,
    path: &str,
) -> (String, Option<(String, &'a Value)>) {
    if let Some(def) = referenced(schema, field) {
        if def.get("properties").is_some() {
            return (
                format!("object, [below](#{})", anchor(path)),
                Some((path.to_string(), def)),
            );
        }
        return (values_of(def).unwrap_or_else(|| json_type(def)), None);
    }
    if let Some(alts) = field.get("anyOf").and_then(Value::as_array)
        && alts.iter().any(|a| a.get("enum").is_some())
    {
        return ("model name (`railyard catalog`)".into(), None);
    }
    if let Some(items) = field.get("items") {
        let sub = format!("{path}[]");
        let (inner, nested) = type_of(schema, items, &sub);
        return (format!("list of {inner}"), nested);
    }
    if let Some(values) = field.get("additionalProperties").filter(|v| v.is_object()) {
        let sub = format!("{path}.<name>");
        let (inner, nested) = type_of(schema, values, &sub);
        return (format!("map of name → {inner}"), nested);
    }
    if let Some(v) = values_of(field) {
        return (v, None);
    }
    (json_type(field), None)
}

/// The allowed values of an enumeration, `a \| b`.
fn values_of(def: &Value) -> Option<String> {
    let values = allowed(def)?;
    Some(
        values
            .into_iter()
            .map(inline)
            .collect::<Vec<_>>()
            .join(" \\| "),
    )
}

fn json_type(field: &Value) -> String {
    let named = types(field);
    match named.as_slice() {
        [] if field.get("type").is_some() => "null".into(),
        [] => "value".into(),
        [one] => (*one).to_string(),
        many => many.join(" or "),
    }
}

/// A JSON value as one short line: scalars bare, objects and lists as compact JSON.
fn inline(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => format!("`{s}`"),
        Value::Object(m) if m.is_empty() => String::new(),
        other => format!("`{other}`"),
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn anchor(path: &str) -> String {
    path.chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '_' => Some(c),
            'A'..='Z' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The first value the shipped examples give at `path` (`a.b[].c`, `a.<name>.b`), as
/// "`value` (example)"; nothing for an object or list (its own section shows its fields).
fn example(trees: &[(&str, Sp<Node>)], path: &str) -> String {
    let steps: Vec<&str> = path.split('.').collect();
    trees
        .iter()
        .find_map(|(name, tree)| {
            let value = find(&tree.value, &steps)?;
            Some(format!("`{value}` ({name})"))
        })
        .unwrap_or_default()
}

fn find(node: &Node, steps: &[&str]) -> Option<String> {
    let Some((step, rest)) = steps.split_first() else {
        return scalar(node);
    };
    let (key, list) = match step.strip_suffix("[]") {
        Some(k) => (k, true),
        None => (*step, false),
    };
    let Node::Map(entries) = node else {
        return None;
    };
    let children: Vec<&Node> = if key == "<name>" {
        entries.iter().map(|(_, v)| &v.value).collect()
    } else {
        entries
            .iter()
            .filter(|(k, _)| k.value == key)
            .map(|(_, v)| &v.value)
            .collect()
    };
    children.into_iter().find_map(|child| match (list, child) {
        (true, Node::Seq(items)) => items.iter().find_map(|i| find(&i.value, rest)),
        (true, _) => None,
        (false, c) => find(c, rest),
    })
}

/// A scalar, or a short flow list of scalars (`[1, 2]`); nothing for maps.
fn scalar(node: &Node) -> Option<String> {
    match node {
        Node::Scalar(s) => s.clone(),
        Node::Seq(items) if items.len() <= 8 => {
            let texts: Option<Vec<String>> = items
                .iter()
                .map(|i| match &i.value {
                    Node::Scalar(s) => s.clone(),
                    _ => None,
                })
                .collect();
            texts.map(|t| format!("[{}]", t.join(", ")))
        }
        _ => None,
    }
}
