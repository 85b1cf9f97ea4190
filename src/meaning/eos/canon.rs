//! EOS's canonical line form: context paths (`drivers::context`).

use std::collections::BTreeSet;

/// Indentation-aware canonical lines of an EOS config: each line prefixed by its parents, so
/// order inside a block does not matter; comments, `!` and `end` ignored.
pub fn eos_canonical(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim_end();
        let body = t.trim_start();
        if body.is_empty() || body.starts_with('!') || body == "end" {
            continue;
        }
        let indent = t.len() - body.len();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path: Vec<&str> = stack.iter().map(|(_, s)| s.as_str()).collect();
        out.insert(if path.is_empty() {
            body.to_string()
        } else {
            format!("{} > {body}", path.join(" > "))
        });
        stack.push((indent, body.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eos_canonical_ignores_order_within_blocks() {
        let a = eos_canonical(
            "hostname a\n!\nrouter bgp 1\n   neighbor x remote-as 2\n   router-id 1.1.1.1\nend\n",
        );
        let b = eos_canonical(
            "router bgp 1\n   router-id 1.1.1.1\n   neighbor x remote-as 2\n!\nhostname a\n",
        );
        assert_eq!(a, b);
        assert!(a.contains("router bgp 1 > router-id 1.1.1.1"));
    }
}
