//! XML for NETCONF: a small namespace-aware element tree read with quick-xml's `NsReader`, and
//! request writing with quick-xml's `Writer` (so every text and attribute value is escaped).
//!
//! Invariants: names are compared as (namespace URI, local name), never by prefix, because servers
//! choose their own prefixes; unknown attributes and elements are kept, never rejected, because
//! servers add their own (yuma123 puts `last-modified` on replies and an `error-number` element
//! into `rpc-error`). Text that looks like a prefixed name (`ianaift:ethernetCsmacd`, an
//! identityref) also records the namespace bound to its prefix, so two documents using different
//! prefixes for the same identity compare equal.

use std::fmt;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::name::{QName, ResolveResult};
use quick_xml::reader::NsReader;
use quick_xml::writer::Writer;

/// The NETCONF base namespace (RFC 6241).
pub const NS_BASE: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";

/// The namespace of the `xml` prefix (`xml:lang`), bound in every document.
const NS_XML: &str = "http://www.w3.org/XML/1998/namespace";
const NS_XMLNS: &str = "http://www.w3.org/2000/xmlns/";

/// One XML element, namespace resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Element {
    /// Namespace URI; empty when unbound.
    pub ns: String,
    pub name: String,
    /// Attributes other than namespace declarations: (namespace URI or "", local name, value).
    pub attrs: Vec<(String, String, String)>,
    pub children: Vec<Element>,
    /// The element's own character data (concatenated, untrimmed).
    pub text: String,
    /// When `text` is `prefix:local` and `prefix` is bound in scope: that namespace.
    pub text_ns: Option<String>,
}

/// XML that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlError(pub String);

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed XML: {}", self.0)
    }
}

impl std::error::Error for XmlError {}

impl Element {
    pub fn new(ns: &str, name: &str) -> Self {
        Self {
            ns: ns.into(),
            name: name.into(),
            ..Self::default()
        }
    }

    /// Whether this element is `name` in namespace `ns`.
    pub fn is(&self, ns: &str, name: &str) -> bool {
        self.ns == ns && self.name == name
    }

    /// The first child `name` in namespace `ns`.
    pub fn child(&self, ns: &str, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.is(ns, name))
    }

    /// The first child with local name `name`, whatever its namespace (for lenient reading of
    /// fields servers sometimes emit unqualified).
    pub fn child_local(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Trimmed text of the first child `name` in `ns`.
    pub fn child_text(&self, ns: &str, name: &str) -> Option<&str> {
        self.child(ns, name).map(|c| c.text.trim())
    }

    /// Attribute value by namespace and local name.
    pub fn attr(&self, ns: &str, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, l, _)| n == ns && l == name)
            .map(|(_, _, v)| v.as_str())
    }

    /// Whether the element is a leaf (no child elements).
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}

/// Parse one XML document into its root element. Comments, processing instructions and the
/// declaration are skipped; a second root element or unbalanced tags are errors.
pub fn parse(bytes: &[u8]) -> Result<Element, XmlError> {
    let mut reader = NsReader::from_reader(bytes);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let (res, ev) = match reader.read_resolved_event() {
            Ok(x) => x,
            Err(e) => return Err(XmlError(e.to_string())),
        };
        let ns = match res {
            ResolveResult::Bound(n) => namespace_name(n.as_ref()),
            ResolveResult::Unbound => String::new(),
            ResolveResult::Unknown(p) => {
                return Err(XmlError(format!(
                    "unbound namespace prefix `{}`",
                    String::from_utf8_lossy(&p)
                )));
            }
        };
        match ev {
            Event::Start(s) | Event::Empty(s) if root.is_some() && stack.is_empty() => {
                return Err(XmlError(format!(
                    "second root element `{}`",
                    String::from_utf8_lossy(s.local_name().as_ref())
                )));
            }
            Event::Start(s) => stack.push(start_element(&reader, &s, ns)?),
            Event::Empty(s) => {
                let el = start_element(&reader, &s, ns)?;
                close(&mut stack, &mut root, el);
            }
            Event::End(_) => {
                let Some(mut el) = stack.pop() else {
                    return Err(XmlError("unexpected end tag".into()));
                };
                el.text_ns = qname_text_ns(&reader, &el.text);
                close(&mut stack, &mut root, el);
            }
            Event::Text(t) => {
                let s = t.decode().map_err(|e| XmlError(e.to_string()))?;
                push_text(&mut stack, &s)?;
            }
            Event::CData(t) => {
                let s = t.decode().map_err(|e| XmlError(e.to_string()))?;
                push_text(&mut stack, &s)?;
            }
            Event::GeneralRef(r) => {
                let s = if r.is_char_ref() {
                    match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => return Err(XmlError("bad character reference".into())),
                    }
                } else {
                    let name = r.decode().map_err(|e| XmlError(e.to_string()))?;
                    quick_xml::escape::resolve_predefined_entity(&name)
                        .ok_or_else(|| XmlError(format!("unknown entity `&{name};`")))?
                        .to_string()
                };
                push_text(&mut stack, &s)?;
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if !stack.is_empty() {
        return Err(XmlError("document ends inside an element".into()));
    }
    root.ok_or_else(|| XmlError("no root element".into()))
}

fn close(stack: &mut [Element], root: &mut Option<Element>, el: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None => *root = Some(el),
    }
}

fn push_text(stack: &mut [Element], s: &str) -> Result<(), XmlError> {
    match stack.last_mut() {
        Some(el) => {
            el.text.push_str(s);
            Ok(())
        }
        None if s.trim().is_empty() => Ok(()),
        None => Err(XmlError("text outside the root element".into())),
    }
}

fn start_element(
    reader: &NsReader<&[u8]>,
    s: &BytesStart<'_>,
    ns: String,
) -> Result<Element, XmlError> {
    // quick-xml reads `<\r/>` as an element with an empty name; XML wants a name right after
    // `<` (XML 1.0 §3.1, NameStartChar). Such an element would be written back as `</>`.
    let local = s.local_name();
    if !is_ncname(local.as_ref()) {
        return Err(XmlError(format!(
            "`<{}` is not an element name (a name, or prefix:name with one colon)",
            String::from_utf8_lossy(s.name().as_ref())
        )));
    }
    let mut el = Element {
        ns,
        name: String::from_utf8_lossy(local.as_ref()).into_owned(),
        ..Element::default()
    };
    for a in s.attributes() {
        let a = a.map_err(|e| XmlError(e.to_string()))?;
        if a.key.as_namespace_binding().is_some() {
            continue;
        }
        let (res, local) = reader.resolver().resolve_attribute(a.key);
        if !is_ncname(local.as_ref()) {
            return Err(XmlError(format!(
                "`{}` is not an attribute name (a name, or prefix:name with one colon)",
                String::from_utf8_lossy(a.key.as_ref())
            )));
        }
        let ans = match res {
            ResolveResult::Bound(n) => namespace_name(n.as_ref()),
            ResolveResult::Unbound => String::new(),
            // As for elements: dropping the prefix would silently rename the attribute.
            ResolveResult::Unknown(p) => {
                return Err(XmlError(format!(
                    "unbound namespace prefix `{}`",
                    String::from_utf8_lossy(&p)
                )));
            }
        };
        let value = a
            .unescape_value()
            .map_err(|e| XmlError(e.to_string()))?
            .into_owned();
        el.attrs.push((
            ans,
            String::from_utf8_lossy(local.as_ref()).into_owned(),
            value,
        ));
    }
    Ok(el)
}

/// Whether a local name is an NCName as far as the writer cares: it starts a name (XML 1.0
/// §2.3 NameStartChar, non-ASCII accepted as is) and has no colon. quick-xml splits a QName at
/// its first colon, so `<x:a1:b>` has the local name `a1:b`, which Namespaces in XML 1.0 §3
/// forbids and which the writer would put out as the undeclared prefix `a1`.
fn is_ncname(local: &[u8]) -> bool {
    let starts_a_name = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80;
    local.first().copied().is_some_and(starts_a_name) && !local.contains(&b':')
}

/// A namespace name from the raw value of its `xmlns` attribute: quick-xml hands namespace
/// values over unexpanded, but `xmlns="a&amp;b"` names the namespace `a&b` (an attribute value
/// like any other), and the writer escapes it again.
fn namespace_name(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    match quick_xml::escape::unescape(&s) {
        Ok(u) => u.into_owned(),
        Err(_) => s.into_owned(),
    }
}

/// If `text` is `prefix:local` with `prefix` bound in the current scope, that namespace.
fn qname_text_ns(reader: &NsReader<&[u8]>, text: &str) -> Option<String> {
    let t = text.trim();
    let (prefix, local) = t.split_once(':')?;
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    if !ok(prefix) || !ok(local) {
        return None;
    }
    let q = QName(t.as_bytes());
    // `xmlns:…` and `xml:…` are no identities: their namespaces may not be bound to any other
    // prefix (Namespaces in XML 1.0, §3), which writing the text back would have to do.
    match reader.resolver().resolve_prefix(q.prefix(), false) {
        ResolveResult::Bound(n) => {
            Some(namespace_name(n.as_ref())).filter(|ns| ns != NS_XMLNS && ns != NS_XML)
        }
        _ => None,
    }
}

/// Serialize an element tree. Each element whose namespace differs from its parent's declares it
/// as the default namespace; namespaced attributes get generated prefixes. Identityref text keeps
/// its meaning by declaring its namespace under a generated prefix.
pub fn write(el: &Element) -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    write_into(&mut w, el, "");
    w.into_inner()
}

fn write_into(w: &mut Writer<Vec<u8>>, el: &Element, parent_ns: &str) {
    let mut start = BytesStart::new(el.name.as_str());
    if el.ns != parent_ns {
        start.push_attribute(("xmlns", el.ns.as_str()));
    }
    let mut n = 0;
    let mut prefixed = Vec::new();
    for (ans, local, value) in &el.attrs {
        if ans.is_empty() {
            start.push_attribute((local.as_str(), value.as_str()));
        } else if ans == NS_XML {
            // `xml:lang`, `xml:space`: the `xml` prefix is bound by definition and its namespace
            // may not be bound to any other prefix (Namespaces in XML 1.0, §3).
            prefixed.push((format!("xml:{local}"), value.clone()));
        } else {
            let p = format!("a{n}");
            n += 1;
            prefixed.push((format!("xmlns:{p}"), ans.clone()));
            prefixed.push((format!("{p}:{local}"), value.clone()));
        }
    }
    for (k, v) in &prefixed {
        start.push_attribute((k.as_str(), v.as_str()));
    }
    let text = match (&el.text_ns, el.text.trim().split_once(':')) {
        (Some(tns), Some((_, local))) => {
            start.push_attribute(("xmlns:v", tns.as_str()));
            format!("v:{local}")
        }
        _ => el.text.clone(),
    };
    // Writing into a Vec cannot fail.
    if el.children.is_empty() && text.is_empty() {
        let _ = w.write_event(Event::Empty(start));
        return;
    }
    let _ = w.write_event(Event::Start(start));
    if !text.is_empty() {
        let _ = w.write_event(Event::Text(BytesText::new(&text)));
    }
    for c in &el.children {
        write_into(w, c, &el.ns);
    }
    let _ = w.write_event(Event::End(BytesEnd::new(el.name.as_str())));
}

/// A small builder for request bodies: every name, attribute and text goes through quick-xml's
/// writer, so values are escaped; pre-validated XML fragments (a config payload) are inserted
/// verbatim with [`XmlBuilder::raw`].
pub struct XmlBuilder {
    w: Writer<Vec<u8>>,
    open: Vec<String>,
}

impl Default for XmlBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl XmlBuilder {
    pub fn new() -> Self {
        Self {
            w: Writer::new(Vec::new()),
            open: Vec::new(),
        }
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`.
    pub fn decl(&mut self) -> &mut Self {
        let _ = self
            .w
            .write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        self
    }

    /// Open `<name attrs…>`.
    pub fn open(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        let mut s = BytesStart::new(name);
        for a in attrs {
            s.push_attribute(*a);
        }
        let _ = self.w.write_event(Event::Start(s));
        self.open.push(name.to_string());
        self
    }

    /// Close the innermost open element.
    pub fn close(&mut self) -> &mut Self {
        if let Some(name) = self.open.pop() {
            let _ = self.w.write_event(Event::End(BytesEnd::new(name)));
        }
        self
    }

    /// `<name attrs…/>`.
    pub fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        let mut s = BytesStart::new(name);
        for a in attrs {
            s.push_attribute(*a);
        }
        let _ = self.w.write_event(Event::Empty(s));
        self
    }

    /// `<name>text</name>`, text escaped.
    pub fn leaf(&mut self, name: &str, text: &str) -> &mut Self {
        let _ = self.w.write_event(Event::Start(BytesStart::new(name)));
        let _ = self.w.write_event(Event::Text(BytesText::new(text)));
        let _ = self.w.write_event(Event::End(BytesEnd::new(name)));
        self
    }

    /// Insert already well-formed XML (checked by the caller with [`parse`]).
    pub fn raw(&mut self, xml: &[u8]) -> &mut Self {
        self.w.get_mut().extend_from_slice(xml);
        self
    }

    /// Insert a parsed element.
    pub fn element(&mut self, el: &Element) -> &mut Self {
        self.raw(&write(el))
    }

    /// The bytes written, closing anything still open.
    pub fn finish(mut self) -> Vec<u8> {
        while !self.open.is_empty() {
            self.close();
        }
        self.w.into_inner()
    }
}

/// Strip a leading XML declaration (and BOM) so a document can be embedded in a request.
pub fn strip_decl(xml: &[u8]) -> &[u8] {
    let mut s = xml.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(xml);
    while let Some(first) = s.first() {
        if first.is_ascii_whitespace() {
            s = &s[1..];
        } else {
            break;
        }
    }
    if s.starts_with(b"<?xml")
        && let Some(end) = s.windows(2).position(|w| w == b"?>")
    {
        return &s[end + 2..];
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn xmlns_and_xml_prefixed_text_is_no_identity() {
        for doc in [
            &b"<a xmlns=\"urn:a\">xmlns:v</a>"[..],
            b"<a xmlns=\"urn:a\">xml:lang</a>",
        ] {
            let el = super::parse(doc).unwrap();
            assert_eq!(el.text_ns, None);
            let again = super::parse(&super::write(&el)).unwrap();
            assert_eq!(again, el);
        }
    }

    #[test]
    fn an_element_needs_a_name() {
        for bad in [&b"<\r/>"[..], b"< a/>", b"<1a/>", b"<p:/>"] {
            assert!(
                super::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(super::parse(b"<_a/>").is_ok() && super::parse("<é/>".as_bytes()).is_ok());
    }

    #[test]
    fn a_name_has_at_most_one_colon() {
        // Found by the netconf_reply fuzz target: `<x:a1:b>` was read with the local name
        // `a1:b` and written back under the undeclared prefix `a1`.
        for bad in [
            &b"<config xmlns:x=\"urn:x\"><x:a1:b/></config>"[..],
            b"<a:b:c xmlns:a=\"urn:a\"/>",
            b"<a b:c=\"1\"/>",
            b"<a xmlns:p=\"urn:p\" p:x:y=\"1\"/>",
        ] {
            assert!(
                super::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(super::parse(b"<x:a xmlns:x=\"urn:x\" x:b=\"1\"/>").is_ok());
    }

    use super::*;

    #[test]
    fn namespaces_resolved_not_prefixes() {
        let a = parse(
            br#"<nc:rpc-reply xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="7">
                <nc:data><interfaces xmlns="urn:x"><name>a&amp;b&#x41;</name></interfaces></nc:data>
            </nc:rpc-reply>"#,
        )
        .unwrap();
        assert!(a.is(NS_BASE, "rpc-reply"));
        assert_eq!(a.attr("", "message-id"), Some("7"));
        let data = a.child(NS_BASE, "data").unwrap();
        let i = data.child("urn:x", "interfaces").unwrap();
        assert_eq!(i.child_text("urn:x", "name"), Some("a&bA"));
    }

    #[test]
    fn identityref_text_records_namespace() {
        let a = parse(br#"<type xmlns="urn:if" xmlns:ift="urn:iana">ift:ethernetCsmacd</type>"#)
            .unwrap();
        assert_eq!(a.text_ns.as_deref(), Some("urn:iana"));
        // Round trip keeps the meaning with a different prefix.
        let b = parse(&write(&a)).unwrap();
        assert_eq!(b.text_ns.as_deref(), Some("urn:iana"));
        assert!(b.text.ends_with(":ethernetCsmacd"));
    }

    #[test]
    fn writer_escapes() {
        let mut b = XmlBuilder::new();
        b.open("a", &[("x", "\"<&>")])
            .leaf("b", "</b><evil/>")
            .close();
        let out = b.finish();
        let e = parse(&out).unwrap();
        assert_eq!(e.attr("", "x"), Some("\"<&>"));
        assert_eq!(e.children[0].text, "</b><evil/>");
        assert!(e.children[0].children.is_empty());
    }

    #[test]
    fn malformed_rejected() {
        for bad in [
            &b"<a><b></a>"[..],
            b"<a>",
            b"<a/><b/>",
            b"",
            b"<p:a/>",
            b"<a>&bogus;</a>",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn strips_declaration() {
        assert_eq!(strip_decl(b"\n<?xml version=\"1.0\"?>\n<a/>"), b"\n<a/>");
        assert_eq!(strip_decl(b"<a/>"), b"<a/>");
    }
}
