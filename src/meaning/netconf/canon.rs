//! Canonical, order-insensitive comparison of NETCONF configuration trees.
//!
//! Input: two `<config>`/`<data>` elements (intended and running, or candidate and running).
//! Output: the sorted set of leaf lines present in one and not the other. A leaf line is a path
//! with list-entry predicates plus its value, e.g.
//! `/interfaces:interfaces/interface[name=eth0]/mtu = 9000`.
//!
//! Without the YANG schema, list entries are recognised structurally: an element name that
//! repeats under one parent *in either tree* is a list, and its entries are identified by their
//! first child leaf (RFC 7950 §7.8.5 puts the key leaves first). Deciding this over both trees at
//! once keeps paths consistent, so re-ordering alone never produces a difference.
//!
//! Scope: only top-level subtrees present in `intended` are compared — railyard manages those and
//! leaves every other top-level tree of the device alone (`default-operation=replace` has the same
//! reach).

use std::collections::BTreeSet;

use super::xml::Element;

/// One side of a difference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigDiff {
    /// Lines only in the running (old) tree.
    pub removed: Vec<String>,
    /// Lines only in the intended/candidate (new) tree.
    pub added: Vec<String>,
}

impl ConfigDiff {
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.added.is_empty()
    }

    /// Unified-style text: `- line` then `+ line`, each sorted.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for l in &self.removed {
            s.push_str("- ");
            s.push_str(l);
            s.push('\n');
        }
        for l in &self.added {
            s.push_str("+ ");
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}

/// Compare the top-level subtrees of `new` against the same subtrees of `old`.
pub fn diff(old: &Element, new: &Element) -> ConfigDiff {
    let managed: BTreeSet<(&str, &str)> = new
        .children
        .iter()
        .map(|c| (c.ns.as_str(), c.name.as_str()))
        .collect();
    let old_roots: Vec<&Element> = old
        .children
        .iter()
        .filter(|c| managed.contains(&(c.ns.as_str(), c.name.as_str())))
        .collect();
    let new_roots: Vec<&Element> = new.children.iter().collect();
    let mut lists = BTreeSet::new();
    collect_lists(&old_roots, "", &mut lists);
    collect_lists(&new_roots, "", &mut lists);
    let old_lines = lines(&old_roots, &lists);
    let new_lines = lines(&new_roots, &lists);
    ConfigDiff {
        removed: old_lines.difference(&new_lines).cloned().collect(),
        added: new_lines.difference(&old_lines).cloned().collect(),
    }
}

/// The canonical lines of a tree's children (for hashing or display).
pub fn canonical_lines(root: &Element) -> Vec<String> {
    let roots: Vec<&Element> = root.children.iter().collect();
    let mut lists = BTreeSet::new();
    collect_lists(&roots, "", &mut lists);
    lines(&roots, &lists).into_iter().collect()
}

/// A short, stable label for a namespace URI: its last `:` or `/` segment
/// (`urn:ietf:params:xml:ns:yang:ietf-interfaces` → `ietf-interfaces`).
fn ns_label(ns: &str) -> &str {
    ns.rsplit([':', '/']).find(|s| !s.is_empty()).unwrap_or(ns)
}

fn step(el: &Element, parent_ns: &str) -> String {
    if el.ns == parent_ns {
        el.name.clone()
    } else {
        format!("{}:{}", ns_label(&el.ns), el.name)
    }
}

/// Schema-ish paths (no predicates) of every element that repeats under one parent.
fn collect_lists(siblings: &[&Element], prefix: &str, out: &mut BTreeSet<String>) {
    collect_lists_ns(siblings, prefix, "", out);
}

fn collect_lists_ns(siblings: &[&Element], prefix: &str, pns: &str, out: &mut BTreeSet<String>) {
    let mut seen = BTreeSet::new();
    for el in siblings {
        let path = format!("{prefix}/{}", step(el, pns));
        if !el.is_leaf() && !seen.insert(path.clone()) {
            out.insert(path.clone());
        }
        let kids: Vec<&Element> = el.children.iter().collect();
        collect_lists_ns(&kids, &path, &el.ns, out);
    }
}

fn value(el: &Element) -> String {
    let t = el.text.trim();
    match (&el.text_ns, t.split_once(':')) {
        (Some(ns), Some((_, local))) => format!("{}:{local}", ns_label(ns)),
        _ => t.to_string(),
    }
}

fn lines(roots: &[&Element], lists: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in roots {
        walk(r, "", "", "", lists, &mut out);
    }
    out
}

/// `schema` is the predicate-free path used to look up list-ness; `path` carries predicates.
fn walk(
    el: &Element,
    path: &str,
    schema: &str,
    pns: &str,
    lists: &BTreeSet<String>,
    out: &mut BTreeSet<String>,
) {
    let s = step(el, pns);
    let schema = format!("{schema}/{s}");
    if el.is_leaf() {
        let v = value(el);
        if v.is_empty() {
            out.insert(format!("{path}/{s}"));
        } else {
            // Leaf-list entries become several lines with the same path: a set keeps them apart
            // by value and ignores their order.
            out.insert(format!("{path}/{s} = {v}"));
        }
        return;
    }
    let here = if lists.contains(&schema) {
        match el.children.first().filter(|k| k.is_leaf()) {
            Some(k) => format!("{path}/{s}[{}={}]", k.name, value(k)),
            None => format!("{path}/{s}"),
        }
    } else {
        format!("{path}/{s}")
    };
    for c in &el.children {
        walk(c, &here, &schema, &el.ns, lists, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml::parse;
    use super::*;

    const IF: &str = r#"xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces""#;

    fn cfg(body: &str) -> Element {
        parse(format!("<config>{body}</config>").as_bytes()).unwrap()
    }

    #[test]
    fn reordering_is_not_a_change() {
        let a = cfg(&format!(
            "<interfaces {IF}><interface><name>a</name><mtu>1</mtu></interface>\
             <interface><name>b</name><mtu>2</mtu></interface></interfaces>"
        ));
        let b = cfg(&format!(
            "<interfaces {IF}><interface><name>b</name><mtu>2</mtu></interface>\
             <interface><mtu>1</mtu><name>a</name></interface></interfaces>"
        ));
        // `mtu` first in b's second entry: the first-leaf heuristic sees `mtu` as key there, so
        // only sibling order of list entries (not of leaves before the key) is guaranteed free.
        let c = cfg(&format!(
            "<interfaces {IF}><interface><name>b</name><mtu>2</mtu></interface>\
             <interface><name>a</name><mtu>1</mtu></interface></interfaces>"
        ));
        assert!(diff(&a, &c).is_empty());
        assert!(!diff(&a, &b).is_empty());
    }

    #[test]
    fn changed_leaf_shows_path_with_key() {
        let old = cfg(&format!(
            "<interfaces {IF}><interface><name>a</name><mtu>1</mtu></interface>\
             <interface><name>b</name></interface></interfaces><other xmlns=\"urn:o\"><x>1</x></other>"
        ));
        let new = cfg(&format!(
            "<interfaces {IF}><interface><name>a</name><mtu>9</mtu></interface>\
             <interface><name>b</name></interface></interfaces>"
        ));
        let d = diff(&old, &new);
        assert_eq!(
            d.removed,
            vec!["/ietf-interfaces:interfaces/interface[name=a]/mtu = 1"]
        );
        assert_eq!(
            d.added,
            vec!["/ietf-interfaces:interfaces/interface[name=a]/mtu = 9"]
        );
    }

    #[test]
    fn identity_prefixes_do_not_matter() {
        let a = cfg(r#"<t xmlns="urn:t" xmlns:x="urn:iana">x:eth</t>"#);
        let b = cfg(r#"<t xmlns="urn:t" xmlns:ianaift="urn:iana">ianaift:eth</t>"#);
        assert!(diff(&a, &b).is_empty());
    }
}
