//! The key path of a place in the spec (`fabrics.compute.leaf.model`, `tenants[ml-a].sus`): how a
//! diagnostic's place is named apart from its line and column, which move when a line is added
//! above it (the fingerprint a CI baseline records, `diag::fingerprint`).

use super::yaml::{Node, Sp, parse_tree};

/// A spec's spanned tree, kept to name the key path of any byte offset in it.
pub struct KeyPaths {
    root: Sp<Node>,
}

impl KeyPaths {
    /// The spec's tree; `None` unless `text` is YAML whose top level is a mapping (as every spec
    /// is), so a file that is not a spec (a CSV) is never given key paths.
    pub fn of(text: &str) -> Option<Self> {
        let root = parse_tree(text).ok()?;
        matches!(root.value, Node::Map(_)).then_some(Self { root })
    }

    /// The key path at byte `offset`: at each level, the last key (or list item) starting at or
    /// before it, which in source order is the one holding it, block or flow style alike. A list
    /// item is named by its `name` when it has one (`tenants[ml-a]`: stable when items are added
    /// before it), else by its index. Empty for a place before the first key.
    pub fn at(&self, offset: u32) -> String {
        let mut path = String::new();
        let mut node = &self.root;
        loop {
            match &node.value {
                Node::Map(entries) => {
                    let Some((key, value)) = entries
                        .iter()
                        .rev()
                        .find(|(k, _)| k.span.is_some_and(|s| s.start <= offset))
                    else {
                        return path;
                    };
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&key.value);
                    node = value;
                }
                Node::Seq(items) => {
                    let Some((i, item)) = items
                        .iter()
                        .enumerate()
                        .rev()
                        .find(|(_, it)| it.span.is_some_and(|s| s.start <= offset))
                    else {
                        return path;
                    };
                    path.push('[');
                    path.push_str(&name_of(item).unwrap_or_else(|| i.to_string()));
                    path.push(']');
                    node = item;
                }
                Node::Scalar(_) => return path,
            }
        }
    }
}

/// A list item's `name`, when it is a mapping with one.
fn name_of(item: &Sp<Node>) -> Option<String> {
    let Node::Map(entries) = &item.value else {
        return None;
    };
    entries.iter().find_map(|(k, v)| match &v.value {
        Node::Scalar(Some(name)) if k.value == "name" => Some(name.clone()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::KeyPaths;

    #[test]
    fn a_place_is_named_by_its_keys_and_list_items_by_their_name() {
        let text = "version: 1\nfabrics:\n  compute:\n    leaf: {model: sn5600, count: 4}\n\
                    tenants:\n  - name: ml-a\n    sus: [1, 2]\n  - {sus: [3]}\n";
        let paths = KeyPaths::of(text).expect("a spec");
        let at = |needle: &str| {
            let offset = u32::try_from(text.find(needle).expect("in the text")).unwrap_or(0);
            paths.at(offset)
        };
        assert_eq!(at("sn5600"), "fabrics.compute.leaf.model");
        assert_eq!(at("count"), "fabrics.compute.leaf.count");
        assert_eq!(at("2]"), "tenants[ml-a].sus[1]");
        assert_eq!(at("3]"), "tenants[1].sus[0]");
        assert_eq!(paths.at(0), "version");
        assert!(KeyPaths::of("name,mac\nleaf-1,00:11\n").is_none());
    }
}
