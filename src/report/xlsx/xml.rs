//! A minimal XML writer for the workbook's parts: elements, attributes and text with escaping,
//! straight into a byte buffer (a million-row sheet is hundreds of megabytes of it).

/// An XML document being written.
#[derive(Default)]
pub(super) struct Xml {
    pub buf: Vec<u8>,
}

impl Xml {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            buf: Vec::with_capacity(n),
        }
    }

    /// The XML declaration every part starts with.
    pub fn document() -> Self {
        let mut x = Self::default();
        x.raw("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
        x
    }

    pub fn raw(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// `<name a="v" …>`
    pub fn open(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.start(name, attrs);
        self.buf.push(b'>');
    }

    /// `<name a="v" …/>`
    pub fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.start(name, attrs);
        self.buf.extend_from_slice(b"/>");
    }

    pub fn close(&mut self, name: &str) {
        self.buf.extend_from_slice(b"</");
        self.raw(name);
        self.buf.push(b'>');
    }

    /// `<name …>text</name>`
    pub fn leaf(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        self.open(name, attrs);
        self.text(text);
        self.close(name);
    }

    fn start(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.buf.push(b'<');
        self.raw(name);
        for (k, v) in attrs {
            self.buf.push(b' ');
            self.raw(k);
            self.buf.extend_from_slice(b"=\"");
            crate::output::markup::escape_bytes(v, &mut self.buf);
            self.buf.push(b'"');
        }
    }

    pub fn text(&mut self, s: &str) {
        crate::output::markup::escape_bytes(s, &mut self.buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped() {
        let mut x = Xml::default();
        x.leaf("t", &[("a", "1\"<2")], "a&b <c>\u{1}\td\r\u{FFFE}é\u{FFFF}");
        assert_eq!(
            String::from_utf8(x.buf).unwrap(),
            "<t a=\"1&quot;&lt;2\">a&amp;b &lt;c&gt;\td&#13;é</t>"
        );
    }
}
