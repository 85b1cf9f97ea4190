//! config_db.json → YANG instance data (XML), following sonic-buildimage
//! `src/sonic-yang-mgmt/sonic_yang_ext.py` (`_xlateConfigDBtoYang` and the functions it calls):
//!
//! - a table is the container of that name under its module's top-level container; a table no
//!   model defines is an error ("Config tables are missing yang models", `config reload`);
//! - an entry whose key names a container of the table fills that container (`localhost`);
//!   otherwise its key is split on `|` onto the keys of the table's list: the one list (named
//!   `<TABLE>_LIST`), or, with several lists, the first whose key has as many parts;
//! - a list holding an inner list is a map (`DSCP_TO_TC_MAP`, `CABLE_LENGTH`): each field of the
//!   entry becomes an inner entry (inner key = field, the inner list's other leaf = value);
//! - a leaf-list value given as one string is split on `,`, as config_db stores
//!   `profile_list` (`LEAF_LIST_WITH_STRING_VALUE_DICT`);
//! - any other field becomes a leaf of that name, known or not: yanglint is the judge.
//!
//! XML needs no value typing (libyang types text by the schema), unlike the JSON upstream writes.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::yang::{Node, Table};

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn element(out: &mut String, name: &str, text: &str) {
    out.push_str(&format!("<{name}>{}</{name}>\n", escape(text)));
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The whole document, or every reason it cannot be translated.
pub fn to_xml(
    db: &Map<String, Value>,
    tables: &BTreeMap<String, Table>,
) -> Result<String, Vec<String>> {
    let mut errors = Vec::new();
    // module → (namespace, top container, table XML)
    let mut by_module: BTreeMap<&str, (&str, &str, String)> = BTreeMap::new();
    for (name, rows) in db {
        let Some(t) = tables.get(name) else {
            errors.push(format!("table {name} has no YANG model"));
            continue;
        };
        let Some(rows) = rows.as_object() else {
            errors.push(format!("table {name} is not an object"));
            continue;
        };
        let mut xml = format!("<{name}>\n");
        container_entries(&t.container, rows, &mut xml, name, &mut errors);
        xml.push_str(&format!("</{name}>\n"));
        by_module
            .entry(&t.module)
            .or_insert((&t.namespace, &t.top, String::new()))
            .2
            .push_str(&xml);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut out = String::new();
    for (ns, top, body) in by_module.values() {
        out.push_str(&format!(
            "<{top} xmlns=\"{}\">\n{body}</{top}>\n",
            escape(ns)
        ));
    }
    Ok(out)
}

fn children(n: &Node) -> &[Node] {
    match n {
        Node::Container { children, .. } | Node::List { children, .. } => children,
        _ => &[],
    }
}

/// The entries of a table container (`_xlateContainer`).
fn container_entries(
    table: &Node,
    rows: &Map<String, Value>,
    out: &mut String,
    path: &str,
    errors: &mut Vec<String>,
) {
    let kids = children(table);
    let lists: Vec<&Node> = kids
        .iter()
        .filter(|n| matches!(n, Node::List { .. }))
        .collect();
    for (key, fields) in rows {
        let Some(fields) = fields.as_object() else {
            errors.push(format!("{path}|{key}: not an object"));
            continue;
        };
        if let Some(c @ Node::Container { .. }) = kids.iter().find(|n| n.name() == key) {
            out.push_str(&format!("<{key}>\n"));
            leaves(c, fields, out, &format!("{path}|{key}"), errors);
            out.push_str(&format!("</{key}>\n"));
            continue;
        }
        let parts: Vec<&str> = key.split('|').collect();
        let candidates: Vec<&&Node> = if lists.len() == 1 {
            lists
                .iter()
                .filter(|l| l.name() == format!("{}_LIST", table.name()))
                .collect()
        } else {
            lists.iter().collect()
        };
        let Some(Node::List { name, keys, .. }) = candidates
            .iter()
            .map(|l| **l)
            .find(|l| matches!(l, Node::List { keys, .. } if keys.len() == parts.len()))
        else {
            errors.push(format!(
                "{path}|{key}: no list of {} takes a {}-part key",
                table.name(),
                parts.len()
            ));
            continue;
        };
        let list = candidates
            .iter()
            .map(|l| **l)
            .find(|l| l.name() == name)
            .expect("found above");
        out.push_str(&format!("<{name}>\n"));
        for (k, v) in keys.iter().zip(&parts) {
            element(out, k, v);
        }
        let inner = children(list)
            .iter()
            .find(|n| matches!(n, Node::List { .. }));
        match inner {
            Some(Node::List {
                name: inner_name,
                keys: inner_keys,
                children: inner_kids,
            }) => {
                let value_leaf = inner_kids
                    .iter()
                    .map(Node::name)
                    .find(|n| !inner_keys.iter().any(|k| k == n));
                for (field, v) in fields {
                    let (Some(k), Some(vl), Some(v)) = (inner_keys.first(), value_leaf, scalar(v))
                    else {
                        errors.push(format!(
                            "{path}|{key}: map field {field} does not fit {inner_name}"
                        ));
                        continue;
                    };
                    out.push_str(&format!("<{inner_name}>\n"));
                    element(out, k, field);
                    element(out, vl, &v);
                    out.push_str(&format!("</{inner_name}>\n"));
                }
            }
            _ => {
                let own: BTreeMap<String, Value> = fields
                    .iter()
                    .filter(|(f, _)| !keys.contains(f))
                    .map(|(f, v)| (f.clone(), v.clone()))
                    .collect();
                leaves(
                    list,
                    &own.into_iter().collect(),
                    out,
                    &format!("{path}|{key}"),
                    errors,
                );
            }
        }
        out.push_str(&format!("</{name}>\n"));
    }
}

/// Fields as leaves and leaf-lists of `parent`.
fn leaves(
    parent: &Node,
    fields: &Map<String, Value>,
    out: &mut String,
    path: &str,
    errors: &mut Vec<String>,
) {
    for (field, v) in fields {
        let is_list = children(parent)
            .iter()
            .any(|n| matches!(n, Node::LeafList { name } if name == field));
        let values: Vec<String> = match v {
            Value::Array(items) => items.iter().filter_map(scalar).collect(),
            _ if is_list => scalar(v)
                .map(|s| {
                    s.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            _ => match scalar(v) {
                Some(s) => vec![s],
                None => {
                    errors.push(format!("{path}: field {field} is not a value"));
                    continue;
                }
            },
        };
        for s in values {
            element(out, field, &s);
        }
    }
}
