//! The only file that knows the YAML crate (serde-saphyr): span-keeping values, a generic
//! spanned tree for key checking, and the typed parse.

use std::borrow::Cow;
use std::ops::Deref;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::diag::{Diagnostic, Span, codes};

/// A value with the place in the spec it came from (`None` when it was defaulted).
#[derive(Clone, Debug, PartialEq)]
pub struct Sp<T> {
    pub value: T,
    pub span: Option<Span>,
}

impl<T> Sp<T> {
    pub fn new(value: T) -> Self {
        Self { value, span: None }
    }
}

impl<T: Default> Default for Sp<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> Deref for Sp<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

fn span_of(loc: &serde_saphyr::Location) -> Option<Span> {
    let s = loc.span();
    let start = s.byte_offset()?;
    let len = s.byte_len().unwrap_or(0);
    Some(Span::new(
        usize::try_from(start).ok()?,
        usize::try_from(len).ok()?,
    ))
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Sp<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<T>::deserialize(d)?;
        Ok(Sp {
            span: span_of(&s.referenced),
            value: s.value,
        })
    }
}

/// Written as its value alone: what the schema shows as a field's default.
impl<T: serde::Serialize> serde::Serialize for Sp<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Sp<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(g)
    }
}

/// Any YAML value, every node with its span: what the unknown-key check walks.
#[derive(Debug)]
pub enum Node {
    /// A scalar; its text when it is a string, a number or a boolean (what a string-typed
    /// field would read), `None` for null and binary.
    Scalar(Option<String>),
    Seq(Vec<Sp<Node>>),
    Map(Vec<(Sp<String>, Sp<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Scalar(None))
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Scalar(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Scalar(Some(v.to_string())))
            }
            fn visit_bytes<E>(self, _: &[u8]) -> Result<Node, E> {
                Ok(Node::Scalar(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(x) = a.next_element()? {
                    items.push(x);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(k) = a.next_key::<Sp<String>>()? {
                    let v = a.next_value()?;
                    entries.push((k, v));
                }
                Ok(Node::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::Options::default()
}

fn error_diagnostic(text: &str, e: &serde_saphyr::Error, syntax: bool) -> Diagnostic {
    let span = e.location().and_then(|l| span_of(&l)).or_else(|| {
        // Some parser errors carry line/column but no byte offset: compute it.
        let l = e.location()?;
        let line = usize::try_from(l.line()).ok()?;
        let col = usize::try_from(l.column()).ok()?;
        let start: usize = text
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum();
        let line_text = text.get(start..).unwrap_or("");
        let off: usize = line_text
            .chars()
            .take(col.saturating_sub(1))
            .map(char::len_utf8)
            .sum();
        // One character wide, however many bytes it takes; empty at the end of the text (a
        // byte-wide span there would point past the input or into a UTF-8 sequence).
        let at = (start + off).min(text.len());
        let width = text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or(0, char::len_utf8);
        Some(Span::new(at, width))
    });
    let message = first_line(&e.to_string());
    let (code, label, help) = if syntax {
        let budget = message.contains("budget") || message.contains("limit");
        if budget {
            (
                codes::INPUT_LIMIT,
                "parser stopped here",
                "split or simplify the document; cluster specs are small",
            )
        } else {
            (
                codes::YAML_SYNTAX,
                "not valid YAML here",
                "check indentation, quoting and brackets around this place",
            )
        }
    } else {
        (
            codes::INVALID_VALUE,
            "this value",
            "`railyard schema` shows the expected type of every key",
        )
    };
    Diagnostic::error(code, message).at(span, label).help(help)
}

/// serde-saphyr prefixes `error: line N column M:` (we print the place ourselves) and may append
/// a snippet or library advice; keep the sentence only.
fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or(s).trim();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    let line = match line.strip_prefix("line ") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, msg)| msg),
        None => line,
    };
    let line = line
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(line);
    let line = line.split(" at line ").next().unwrap_or(line);
    line.trim_end_matches('.').to_string()
}

/// Parse into the spanned tree, reporting YAML syntax errors.
pub fn parse_tree(text: &str) -> Result<Sp<Node>, Box<Diagnostic>> {
    serde_saphyr::from_str_with_options(text, options())
        .map_err(|e| Box::new(error_diagnostic(text, &e, true)))
}

/// Parse into a typed value, reporting type and form errors.
pub fn parse_typed<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, Box<Diagnostic>> {
    serde_saphyr::from_str_with_options(text, options())
        .map_err(|e| Box::new(error_diagnostic(text, &e, false)))
}
