//! The one writer of the DOT files railyard exports (NVIDIA Air's topology, Cumulus PTM's
//! `topology.dot`) and the one escape of their IDs. Every ID is written as a quoted string: in
//! DOT's grammar (graphviz.org, "The DOT Language") a quoted string may hold any character, `"`
//! written `\"`; a backslash is escaped too, so a name ending in `\` cannot swallow its closing
//! quote (Graphviz keeps `\\` as two characters, and railyard's names hold no backslash).
//! Graphviz's `cgraph`, the library `ptmd` reads its file with, is the consumer the tests run.

use std::fmt::Write as _;

/// A DOT ID: the text as a quoted string.
pub(super) fn id(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// An undirected graph being written: comment lines, graph attributes, nodes, then edges.
pub(super) struct Graph {
    out: String,
}

impl Graph {
    /// `graph "<name>" {`, after `comments` (each written as a `//` line).
    pub fn new(name: &str, comments: &[String]) -> Self {
        let mut out = String::new();
        for c in comments {
            let line: String = c
                .chars()
                .map(|x| if x.is_control() { ' ' } else { x })
                .collect();
            let _ = writeln!(out, "// {line}");
        }
        let _ = writeln!(out, "graph {} {{", id(name));
        Self { out }
    }

    /// A graph attribute: `key="value"`.
    pub fn attr(&mut self, key: &str, value: &str) {
        let _ = writeln!(self.out, "  {}={}", id(key), id(value));
    }

    /// A node with its attributes.
    pub fn node(&mut self, name: &str, attrs: &[(&str, String)]) {
        let _ = writeln!(self.out, "  {}{}", id(name), list(attrs));
    }

    /// An edge between two ports: `"a":"pa" -- "b":"pb"`.
    pub fn edge(&mut self, a: (&str, &str), b: (&str, &str), attrs: &[(&str, String)]) {
        let _ = writeln!(
            self.out,
            "  {}:{} -- {}:{}{}",
            id(a.0),
            id(a.1),
            id(b.0),
            id(b.1),
            list(attrs)
        );
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("}\n");
        self.out
    }
}

fn list(attrs: &[(&str, String)]) -> String {
    if attrs.is_empty() {
        return String::new();
    }
    let items: Vec<String> = attrs
        .iter()
        .map(|(k, v)| format!("{}={}", id(k), id(v)))
        .collect();
    format!(" [{}]", items.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_quoted_with_quotes_and_backslashes_escaped() {
        assert_eq!(id("leaf01"), "\"leaf01\"");
        assert_eq!(id("a\"b"), "\"a\\\"b\"");
        assert_eq!(id("x\\"), "\"x\\\\\"");
        let mut g = Graph::new("G", &["two\nlines".into()]);
        g.attr("LLDP", "");
        g.node("s1", &[("os", "x".into())]);
        g.edge(("s1", "swp1"), ("s2", "swp2"), &[]);
        assert_eq!(
            g.finish(),
            "// two lines\ngraph \"G\" {\n  \"LLDP\"=\"\"\n  \"s1\" [\"os\"=\"x\"]\n  \"s1\":\"swp1\" -- \"s2\":\"swp2\"\n}\n"
        );
    }
}
