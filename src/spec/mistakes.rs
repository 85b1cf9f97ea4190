//! YAML mistakes explained as well as design problems are: a value of the wrong type names its
//! key path, what the key expects and means (from the schema's description, the text of
//! `docs/spec.md`), instead of the parser's words ("expected sequence start"); a syntax error
//! points at the real character (the tab, the bracket left open) with advice for that mistake.

use serde_json::Value;

use super::schema_fields::{allowed, description, referenced, types};
use super::yaml::{Node, Sp};
use crate::diag::{Diagnostic, Span};

/// A step of a key path: a map key, or an element of a list.
enum Step {
    Key(String),
    Item,
}

/// A type error of the typed parse, restated with the key it is under and what that key expects.
/// Unchanged when the place cannot be tied to a key of the schema.
pub fn wrong_type(d: Diagnostic, tree: &Sp<Node>, schema: &Value) -> Diagnostic {
    let Some(at) = d.span.map(|s| s.start) else {
        return d;
    };
    let mut best = None;
    let mut path = Vec::new();
    locate(tree, at, &mut path, &mut best);
    let Some((steps, found)) = best else {
        return d;
    };
    let Some(field) = field_at(schema, &steps) else {
        return d;
    };
    let shown = path_text(&steps);
    let expects = expected(schema, field);
    let message = match &found {
        Some(text) => format!("`{shown}` expects {expects}, not `{text}`"),
        None => format!("`{shown}` expects {expects}"),
    };
    let meaning = description(schema, field);
    let help = if meaning.is_empty() {
        format!("see `{shown}` in docs/spec.md (`railyard schema --format markdown`)")
    } else {
        format!("`{shown}`: {meaning}")
    };
    Diagnostic {
        message,
        help: Some(help),
        label: Some(format!("expects {expects}")),
        ..d
    }
}

/// The node at or last before `at` in document order, with its path and its scalar text.
fn locate(
    node: &Sp<Node>,
    at: u32,
    path: &mut Vec<Step>,
    best: &mut Option<(Vec<Step>, Option<String>)>,
) {
    let starts_before = node.span.is_some_and(|s| s.start <= at);
    if starts_before {
        let text = match &node.value {
            Node::Scalar(s) => s.clone(),
            _ => None,
        };
        *best = Some((copy(path), text));
    }
    match &node.value {
        Node::Map(entries) => {
            for (k, v) in entries {
                if k.span.is_some_and(|s| s.start > at) {
                    break;
                }
                path.push(Step::Key(k.value.clone()));
                locate(v, at, path, best);
                path.pop();
            }
        }
        Node::Seq(items) => {
            for item in items {
                if item.span.is_some_and(|s| s.start > at) {
                    break;
                }
                path.push(Step::Item);
                locate(item, at, path, best);
                path.pop();
            }
        }
        Node::Scalar(_) => {}
    }
}

fn copy(path: &[Step]) -> Vec<Step> {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => Step::Key(k.clone()),
            Step::Item => Step::Item,
        })
        .collect()
}

fn path_text(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Item => out.push_str("[]"),
        }
    }
    out
}

/// The schema of the field at `steps`, following `$ref`, `anyOf`, `items` and maps by name.
fn field_at<'a>(schema: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    let mut here = schema;
    for step in steps {
        let object = deref(schema, here);
        here = match step {
            Step::Key(k) => object
                .get("properties")
                .and_then(|p| p.get(k))
                .or_else(|| object.get("additionalProperties").filter(|v| v.is_object()))?,
            Step::Item => object.get("items")?,
        };
    }
    (!steps.is_empty()).then_some(here)
}

/// What `$ref` (directly or in an `anyOf` branch) points at, or the value itself.
fn deref<'a>(schema: &'a Value, v: &'a Value) -> &'a Value {
    referenced(schema, v).unwrap_or(v)
}

/// What a field expects, in words.
fn expected(schema: &Value, field: &Value) -> String {
    let target = deref(schema, field);
    if let Some(values) = enum_values(target) {
        return format!("one of {values}");
    }
    let named = types(target);
    match named.first().copied() {
        Some("array") => "a list, e.g. `[1, 2]`".into(),
        Some("object") => "a mapping of keys (`key: value` lines or `{key: value}`)".into(),
        Some("integer") => "a whole number".into(),
        Some("number") => "a number".into(),
        Some("boolean") => "`true` or `false`".into(),
        Some("string") => "text".into(),
        _ => "another kind of value".into(),
    }
}

/// The values of an enumeration, `` `a`, `b` ``.
fn enum_values(def: &Value) -> Option<String> {
    let values: Vec<String> = allowed(def)?
        .into_iter()
        .filter_map(|v| v.as_str().map(|v| format!("`{v}`")))
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// A syntax error pointed at the character that caused it, with advice for the mistake: a tab
/// (YAML indents with spaces; the parser reports the end of the line before it), or a `{`/`[`
/// left open (the parser reports where it gave up, often lines later).
pub fn syntax(d: Diagnostic, text: &str) -> Diagnostic {
    let Some(span) = d.span else {
        return d;
    };
    let at = span.start as usize;
    if d.message.contains("tab")
        && let Some(tab) = text.get(at..).and_then(|rest| rest.find('\t'))
    {
        return Diagnostic {
            span: Some(Span::new(at + tab, 1)),
            label: Some("a tab".into()),
            help: Some("YAML indents with spaces only: replace the tab with spaces".into()),
            ..d
        };
    }
    let open = if d.message.contains("flow mapping") {
        Some(('{', '}'))
    } else if d.message.contains("flow sequence") {
        Some(('[', ']'))
    } else {
        None
    };
    if let Some((open, close)) = open
        && let Some(pos) = unclosed(text.get(..at).unwrap_or(""), open, close)
    {
        return Diagnostic {
            span: Some(Span::new(pos, 1)),
            label: Some("opened here".into()),
            message: format!("`{open}` is not closed: {}", d.message),
            help: Some(format!(
                "close it with `{close}` at the end of its value, or separate its entries with `,`"
            )),
            ..d
        };
    }
    d
}

/// The byte offset of the last `open` bracket before the end of `text` that no `close` matches.
fn unclosed(text: &str, open: char, close: char) -> Option<usize> {
    let mut stack = Vec::new();
    for (i, c) in text.char_indices() {
        if c == open {
            stack.push(i);
        } else if c == close {
            stack.pop();
        }
    }
    stack.pop()
}
