//! A NETCONF configuration payload as railyard renders it and compares it: a `<config>`
//! element in the base namespace (RFC 6241), kept as the exact bytes plus the parsed tree. Pure:
//! push sends it, `change` and audit read its meaning.

use super::xml::{self, Element, NS_BASE, XmlError};

/// A validated configuration payload: a `<config>` element in the base namespace, kept as the
/// exact bytes given (prefix declarations inside it stay valid) plus its parsed tree.
#[derive(Clone, Debug)]
pub struct ConfigPayload {
    bytes: Vec<u8>,
    tree: Element,
}

impl ConfigPayload {
    /// Accept a `<config>` document (base namespace or none) or a single top-level data element,
    /// which is wrapped in `<config>`.
    pub fn from_xml(doc: &[u8]) -> Result<Self, XmlError> {
        let body = xml::strip_decl(doc);
        let tree = xml::parse(body)?;
        if tree.name == "config" && (tree.ns == NS_BASE || tree.ns.is_empty()) {
            if tree.ns.is_empty() {
                // Unqualified `<config>` would inherit a default namespace it never declared
                // inside `<rpc>`; wrap its children verbatim under a qualified element instead.
                let inner = inner_bytes(body)
                    .ok_or_else(|| XmlError("cannot isolate <config> content".into()))?;
                return Self::wrap(inner);
            }
            // A prefixed `<nc:config>` that declares no default namespace leaves its unqualified
            // descendants in no namespace; inside `<rpc xmlns="…base…">` they would inherit the
            // base namespace and mean something else. Undeclare it on the root (`xmlns=""`).
            let bytes = undeclare_default_namespace(body)
                .ok_or_else(|| XmlError("cannot isolate the <config> start tag".into()))?;
            let tree = xml::parse(&bytes)?;
            return Ok(Self { bytes, tree });
        }
        Self::wrap(body)
    }

    fn wrap(inner: &[u8]) -> Result<Self, XmlError> {
        let mut bytes = format!("<config xmlns=\"{NS_BASE}\">").into_bytes();
        bytes.extend_from_slice(inner);
        bytes.extend_from_slice(b"</config>");
        let tree = xml::parse(&bytes)?;
        Ok(Self { bytes, tree })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The parsed `<config>` element.
    pub fn tree(&self) -> &Element {
        &self.tree
    }
}

/// The bytes between the root's start tag and its end tag (for a document whose root has no
/// namespace declarations its children rely on).
/// `doc` with `xmlns=""` added to its root start tag unless that tag declares a default
/// namespace itself (or has no prefix, in which case it is the default namespace's element).
fn undeclare_default_namespace(doc: &[u8]) -> Option<Vec<u8>> {
    // The root start tag: the first `<` that opens an element (not `<?`, `<!`).
    let start = (0..doc.len()).find(|&i| {
        doc[i] == b'<'
            && doc
                .get(i + 1)
                .is_some_and(|c| !matches!(c, b'?' | b'!' | b'/'))
    })?;
    let name_end = start
        + 1
        + doc[start + 1..]
            .iter()
            .position(|c| c.is_ascii_whitespace() || matches!(c, b'/' | b'>'))?;
    let name = &doc[start + 1..name_end];
    // The tag's end: the first `>` outside a quoted attribute value.
    let mut quote = None;
    let mut end = None;
    for (i, &c) in doc.iter().enumerate().skip(name_end) {
        match (quote, c) {
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, b'>') => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let tag = &doc[name_end..end?];
    let declares_default = tag
        .split(|c| c.is_ascii_whitespace())
        .any(|attr| attr.starts_with(b"xmlns=") || attr == b"xmlns");
    if !name.contains(&b':') || declares_default {
        return Some(doc.to_vec());
    }
    let mut out = Vec::with_capacity(doc.len() + 9);
    out.extend_from_slice(&doc[..name_end]);
    out.extend_from_slice(b" xmlns=\"\"");
    out.extend_from_slice(&doc[name_end..]);
    Some(out)
}

fn inner_bytes(doc: &[u8]) -> Option<&[u8]> {
    let s = doc.iter().position(|&b| b == b'<')?;
    let open_end = s + doc[s..].iter().position(|&b| b == b'>')?;
    if doc[open_end - 1] == b'/' {
        return Some(&[]);
    }
    let close = doc.iter().rposition(|&b| b == b'<')?;
    (close > open_end).then(|| &doc[open_end + 1..close])
}
