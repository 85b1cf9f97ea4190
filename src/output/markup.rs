//! The one escaping of text for XML and HTML: element text and quoted attribute values of the
//! report page and SVG, the label sheets, the workbook's XML parts, NCCL's topology file and
//! the secrets push fills into NETCONF payloads.
//!
//! `& < > " '` become references, so a value can neither close a tag nor end a quoted
//! attribute of either kind; a carriage return becomes `&#13;` (a parser keeps a reference,
//! while a raw one reads back as a line feed); characters XML 1.0 cannot carry at all (C0
//! controls but tab and line feed, U+FFFE, U+FFFF) are dropped.

/// What each ASCII byte becomes: `None` copies it, `Some("")` drops it.
const fn replacement(b: u8) -> Option<&'static str> {
    match b {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' => Some("&gt;"),
        b'"' => Some("&quot;"),
        b'\'' => Some("&#39;"),
        b'\r' => Some("&#13;"),
        b'\t' | b'\n' => None,
        0..=0x1f => Some(""),
        _ => None,
    }
}

/// Bytes that stop the scan: the specials above and 0xEF, the lead byte of U+FFFE/U+FFFF.
const STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = replacement(i as u8).is_some() || i == 0xEF;
        i += 1;
    }
    t
};

/// `s` escaped, as runs of text handed to `emit` in order: runs without a special character
/// are passed whole (most values, cable ids and QR paths among them, have none).
fn escape_runs<'a>(s: &'a str, mut emit: impl FnMut(&'a str)) {
    let bytes = s.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if !STOPS[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let (rep, len) = match replacement(bytes[i]) {
            Some(rep) => (rep, 1),
            // U+FFFE and U+FFFF are EF BF BE and EF BF BF; other EF sequences are kept.
            None if matches!(bytes.get(i + 1..i + 3), Some([0xBF, 0xBE | 0xBF])) => ("", 3),
            None => {
                i += 1;
                continue;
            }
        };
        // Every stop is ASCII or the start of a 3-byte sequence: the cuts are at character
        // boundaries.
        emit(&s[start..i]);
        emit(rep);
        i += len;
        start = i;
    }
    emit(&s[start..]);
}

/// Append `s`, escaped, to a text buffer.
pub fn escape(s: &str, out: &mut String) {
    escape_runs(s, |run| out.push_str(run));
}

/// Append `s`, escaped, to a byte buffer.
pub fn escape_bytes(s: &str, out: &mut Vec<u8>) {
    escape_runs(s, |run| out.extend_from_slice(run.as_bytes()));
}

/// `s` escaped, as a new string.
pub fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_special_character_and_keeps_the_rest() {
        assert_eq!(
            escaped("a&b<c>d\"e'f — ü&&"),
            "a&amp;b&lt;c&gt;d&quot;e&#39;f — ü&amp;&amp;"
        );
        assert_eq!(escaped("a\tb\nc\rd"), "a\tb\nc&#13;d");
        assert_eq!(
            escaped("x\u{1}\u{1f}y\u{fffe}\u{ffff}z\u{fffd}é"),
            "xyz\u{fffd}é"
        );
        let mut b = Vec::new();
        escape_bytes("<t a=\"1\">", &mut b);
        assert_eq!(b, b"&lt;t a=&quot;1&quot;&gt;");
    }

    /// What an XML parser (quick-xml, push's) reads back from a quoted attribute of either
    /// kind is the original text, minus only the characters XML cannot carry.
    #[test]
    fn an_xml_parser_reads_back_the_value() {
        let text = "a&b <c> \"q\" 'a' \r end \u{7} é";
        let doc = format!("<t v=\"{}\" w='{}'/>", escaped(text), escaped(text));
        let mut r = quick_xml::Reader::from_str(&doc);
        let kept = text.replace('\u{7}', "");
        let quick_xml::events::Event::Empty(e) = r.read_event().unwrap() else {
            panic!("one empty element: {doc}");
        };
        let values: Vec<String> = e
            .attributes()
            .map(|a| a.unwrap().unescape_value().unwrap().into_owned())
            .collect();
        assert_eq!(values, [kept.clone(), kept]);
    }
}
