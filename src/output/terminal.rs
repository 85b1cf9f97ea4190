//! Text for a terminal: the one escape of the terminal sink.
//!
//! Outside data (an LLDP system name, a spec string quoted in a diagnostic, a file name from the
//! command line) must print as what it is, never drive the terminal. Every character that could
//! do that is shown as an escape instead:
//! - C0 controls and DEL (ESC above all: it starts colour, cursor-movement, title-setting and
//!   clipboard sequences) as `\x1b`, `\x7f`; line feed, carriage return and tab as `\n`, `\r`,
//!   `\t`;
//! - C1 controls (U+0080–U+009F: U+009B is a one-character CSI on terminals that honour 8-bit
//!   controls) as `\u{9b}`;
//! - the Unicode bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E,
//!   U+2066–U+2069), which reorder the text around them on screen, and the line and paragraph
//!   separators U+2028, U+2029, which some renderers break lines at, as `\u{202e}`.
//!
//! Two layouts: [`escape`] keeps line feeds, tabs and a carriage return before a line feed, for a
//! block whose lines are its own layout; [`escape_inline`] escapes them too, for a value placed
//! inside a line, so data can neither start a line of its own nor fake one (a system name
//! `x\nresult: PASS`). Escaping is idempotent (the result holds no character it would escape).
//! Backslashes are left as they are: the result is for reading, not for parsing back.
//!
//! JSON printed to a terminal keeps its meaning: [`json`] writes the characters above as JSON
//! `\uXXXX` escapes (serde_json escapes C0 itself, but writes DEL, C1 and the rest raw).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Characters outside the C0/DEL/C1 range that change how the text around them is shown.
const REORDERING: [char; 14] = [
    '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{2028}', '\u{2029}',
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Line feeds and tabs are the text's own layout.
    Kept,
    /// The text is one value inside a line.
    Inline,
}

/// `text` with every control character shown escaped, line feeds and tabs kept.
pub fn escape(text: &str) -> Cow<'_, str> {
    escaped(text, Layout::Kept)
}

/// `text` with every control character shown escaped, line feeds and tabs included: for a value
/// inside a line.
pub fn escape_inline(text: &str) -> Cow<'_, str> {
    escaped(text, Layout::Inline)
}

/// JSON text (as serde_json writes it) with DEL, the C1 controls and the reordering characters
/// written as `\uXXXX`: the same JSON value, safe on a terminal. serde_json writes no raw
/// control character outside a string except layout whitespace, and inside a string a character
/// and its `\u` escape mean the same.
pub fn json(text: &str) -> Cow<'_, str> {
    let raw =
        |c: char| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || REORDERING.contains(&c);
    if !text.chars().any(raw) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if raw(c) {
            // All of them are in the Basic Multilingual Plane: one `\u` escape each.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A text escaped as [`escape`] does, with the way back from its byte offsets: for a renderer
/// that points into the text by offset (miette's source snippets).
pub struct Mapped {
    pub text: String,
    /// `(original offset just after an escaped character, bytes added up to there)`, ascending.
    shifts: Vec<(usize, usize)>,
}

impl Mapped {
    /// Where the byte at `offset` of the original text is in the escaped text.
    pub fn offset(&self, offset: usize) -> usize {
        let before = self.shifts.partition_point(|&(end, _)| end <= offset);
        let added = before.checked_sub(1).map_or(0, |i| self.shifts[i].1);
        offset + added
    }
}

/// [`escape`] with offsets: see [`Mapped`].
pub fn escape_mapped(text: &str) -> Mapped {
    let mut shifts = Vec::new();
    let text = rewrite(text, Layout::Kept, |end, added| shifts.push((end, added)));
    Mapped { text, shifts }
}

fn escaped(text: &str, layout: Layout) -> Cow<'_, str> {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !shown_as_is(c, chars.peek().copied(), layout) {
            return Cow::Owned(rewrite(text, layout, |_, _| {}));
        }
    }
    Cow::Borrowed(text)
}

/// `text` with its control characters escaped; `escaped_at(end, added)` hears of each escape:
/// the original offset just after the character, and the bytes added so far.
fn rewrite(text: &str, layout: Layout, mut escaped_at: impl FnMut(usize, usize)) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut added = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if shown_as_is(c, chars.peek().map(|&(_, n)| n), layout) {
            out.push(c);
            continue;
        }
        let before = out.len();
        push_escaped(&mut out, c);
        added += out.len() - before - c.len_utf8();
        escaped_at(at + c.len_utf8(), added);
    }
    out
}

/// Whether `c` (followed by `next`) may reach the terminal as it is.
fn shown_as_is(c: char, next: Option<char>, layout: Layout) -> bool {
    match c {
        '\n' | '\t' => layout == Layout::Kept,
        // CRLF line ends are layout; a lone CR moves the cursor back over what was printed.
        '\r' => layout == Layout::Kept && next == Some('\n'),
        // `is_control` is Unicode's Cc: C0, DEL and C1.
        c if c.is_control() => false,
        c => !REORDERING.contains(&c),
    }
}

fn push_escaped(out: &mut String, c: char) {
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\t' => write!(out, "\\t"),
        c if c.is_ascii() => write!(out, "\\x{:02x}", u32::from(c)),
        c => write!(out, "\\u{{{:x}}}", u32::from(c)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character a terminal may act on: C0, DEL, C1, the reordering set.
    fn dangerous() -> impl Iterator<Item = char> {
        (0u32..0x20)
            .chain(0x7f..0xa0)
            .filter_map(char::from_u32)
            .chain(REORDERING)
    }

    #[test]
    fn esc_csi_and_c1_are_shown_escaped() {
        assert_eq!(escape("sw\x1b[31mred\x1b[0m"), "sw\\x1b[31mred\\x1b[0m");
        assert_eq!(escape("a\u{9b}2Jb"), "a\\u{9b}2Jb");
        assert_eq!(
            escape("bell\x07 del\x7f nul\0"),
            "bell\\x07 del\\x7f nul\\x00"
        );
        assert_eq!(
            escape("\x1b]0;title\x07\x1b]52;c;Zm9v\x07"),
            "\\x1b]0;title\\x07\\x1b]52;c;Zm9v\\x07"
        );
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
    }

    #[test]
    fn layout_is_kept_in_a_block_and_escaped_inline() {
        let block = "line 1\n\tline 2\r\nline 3\rover";
        assert_eq!(escape(block), "line 1\n\tline 2\r\nline 3\\rover");
        assert_eq!(
            escape_inline(block),
            "line 1\\n\\tline 2\\r\\nline 3\\rover"
        );
        assert_eq!(escape_inline("x\nresult: PASS"), "x\\nresult: PASS");
    }

    #[test]
    fn every_dangerous_character_is_escaped_and_nothing_else() {
        for c in dangerous() {
            let s = format!("a{c}b");
            let inline = escape_inline(&s);
            assert!(
                !inline.contains(c) && inline.starts_with("a\\") && inline.ends_with('b'),
                "{:?} → {inline:?}",
                c
            );
            if !matches!(c, '\n' | '\t') {
                assert!(!escape(&s).contains(c), "{c:?} kept in a block");
            }
        }
        let printable = "spine01 — leaf-su01-01:swp5 «Ü» 日本 \\x1b tab-less ~";
        assert!(matches!(escape_inline(printable), Cow::Borrowed(_)));
        assert!(matches!(escape(printable), Cow::Borrowed(_)));
    }

    #[test]
    fn escaping_is_idempotent() {
        let all: String = dangerous().chain("text \\ é".chars()).collect();
        for f in [escape, escape_inline] {
            let once = f(&all).into_owned();
            assert_eq!(f(&once), once);
            assert!(
                once.chars()
                    .all(|c| !c.is_control() || c == '\n' || c == '\t')
            );
        }
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_raw_controls() {
        let value = serde_json::json!({
            "name": "sw\u{1b}[31m\u{9b}2J\u{7f}\u{202e}x\n",
            "plain": "spine01 — é",
        });
        let text = serde_json::to_string_pretty(&value).unwrap();
        assert!(
            text.contains('\u{9b}') && text.contains('\u{202e}'),
            "serde_json writes them raw"
        );
        let safe = json(&text);
        assert!(
            safe.chars()
                .all(|c| !dangerous().any(|d| d == c) || c == '\n')
        );
        assert!(safe.contains("\\u009b2J\\u007f\\u202ex"), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
        assert!(matches!(json("{\"a\": \"b\"}"), Cow::Borrowed(_)));
    }

    #[test]
    fn mapped_offsets_point_at_the_same_text() {
        let text = "a: \x1b[1m\nbé: \u{9b}x\r\nc: ok\n";
        let m = escape_mapped(text);
        assert_eq!(m.text, escape(text));
        // Every character boundary of the original lands on the same character in the copy.
        for (at, c) in text.char_indices() {
            let to = m.offset(at);
            let shown = &m.text[to..];
            if shown_as_is(c, text[at + c.len_utf8()..].chars().next(), Layout::Kept) {
                assert!(shown.starts_with(c), "{at} {c:?} → {to}: {shown:?}");
            } else {
                assert!(shown.starts_with('\\'), "{at} {c:?} → {to}: {shown:?}");
            }
        }
        assert_eq!(m.offset(text.len()), m.text.len());
        assert_eq!(m.offset(0), 0);
        let clean = escape_mapped("plain\ntext");
        assert_eq!(clean.offset(7), 7);
    }
}
