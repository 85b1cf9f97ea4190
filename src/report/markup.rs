//! A small writer for HTML and SVG. Tag and attribute names are static strings of this crate;
//! every attribute value and every text node passes through the one escape of railyard
//! ([`crate::output::markup::escape`]), so a device, rack or
//! tenant name can never close a tag or start a script, whatever it contains.

use std::fmt::{Display, Write};

use crate::output::markup::escape;

/// JSON for a `<script type="application/json">` block: `<` is written as `\u003c`, so no
/// string in the data can end the script element or open a comment.
pub fn script_json<T: serde::Serialize>(value: &T) -> Result<String, serde_json::Error> {
    Ok(serde_json::to_string(value)?.replace('<', "\\u003c"))
}

/// A markup document under construction.
#[derive(Default)]
pub struct Markup {
    out: String,
    /// An attribute value before escaping, reused (a label sheet writes millions of them).
    scratch: String,
}

/// An attribute: name and any displayable value (escaped when written).
pub type Attr<'a> = (&'static str, &'a dyn Display);

impl Markup {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            out: String::with_capacity(n),
            scratch: String::new(),
        }
    }

    fn attrs(&mut self, attrs: &[Attr<'_>]) {
        for (name, value) in attrs {
            self.scratch.clear();
            let _ = write!(self.scratch, "{value}");
            self.out.push(' ');
            self.out.push_str(name);
            self.out.push_str("=\"");
            escape(&self.scratch, &mut self.out);
            self.out.push('"');
        }
    }

    /// `<tag attrs>`; close it with [`Markup::close`].
    pub fn open(&mut self, tag: &'static str, attrs: &[Attr<'_>]) -> &mut Self {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push('>');
        self
    }

    pub fn close(&mut self, tag: &'static str) -> &mut Self {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// `<tag attrs/>` (SVG shapes).
    pub fn empty(&mut self, tag: &'static str, attrs: &[Attr<'_>]) -> &mut Self {
        self.out.push('<');
        self.out.push_str(tag);
        self.attrs(attrs);
        self.out.push_str("/>");
        self
    }

    /// An escaped text node.
    pub fn text(&mut self, s: &str) -> &mut Self {
        escape(s, &mut self.out);
        self
    }

    /// `<tag attrs>text</tag>`.
    pub fn element(&mut self, tag: &'static str, attrs: &[Attr<'_>], text: &str) -> &mut Self {
        self.open(tag, attrs).text(text).close(tag)
    }

    /// Markup this crate wrote itself (another [`Markup`]'s result, a fixed snippet).
    pub fn trusted(&mut self, s: &str) -> &mut Self {
        self.out.push_str(s);
        self
    }

    pub fn newline(&mut self) -> &mut Self {
        self.out.push('\n');
        self
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// A coordinate rounded to a tenth, printed without trailing zeros (`12`, `12.5`).
pub fn num(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_out() {
        let mut m = Markup::default();
        let name = "x\"><script>alert(1)</script>";
        m.element("text", &[("data-name", &name)], name);
        let s = m.finish();
        assert!(!s.contains("<script>"), "{s}");
        assert_eq!(s.matches('<').count(), 2, "{s}");
    }

    #[test]
    fn json_cannot_end_the_script() {
        let s = script_json(&vec!["</script><!--"]).unwrap();
        assert!(!s.contains('<'), "{s}");
        let back: Vec<String> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, vec!["</script><!--".to_string()]);
    }
}
