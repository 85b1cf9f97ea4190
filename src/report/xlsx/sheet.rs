//! Worksheet parts (SpreadsheetML, ECMA-376 Part 1 §18.3): a table sheet's head (tab colour,
//! frozen header row, column widths), its rows in independent pieces, and its tail (autofilter,
//! page setup: landscape, one page wide). Element order is the schema's `CT_Worksheet` sequence.

use super::xml::Xml;
use super::{Row, Style};

pub(super) const NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
pub(super) const NS_R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// Widest column, in characters.
const MAX_WIDTH: usize = 60;

/// A table sheet: a header row and at most Excel's row limit of rows under it.
pub(super) struct Table<'a> {
    pub name: String,
    pub header: Vec<String>,
    pub rows: Vec<Row<'a>>,
    pub tab: u32,
    /// Columns written as numbers when they parse as one.
    pub numeric: Vec<bool>,
    /// The column whose value picks the row's colour.
    pub tier: Option<usize>,
}

impl Table<'_> {
    fn last_row(&self) -> u32 {
        u32::try_from(self.rows.len()).unwrap_or(u32::MAX - 1) + 1
    }

    pub fn range(&self) -> String {
        let mut buf = b"A1:".to_vec();
        cell_ref(
            &mut buf,
            self.header.len().saturating_sub(1),
            self.last_row(),
        );
        // Letters and digits only.
        buf.into_iter().map(char::from).collect()
    }

    /// Each column's width in characters: the widest value (or the header with room for the
    /// filter button), at most [`MAX_WIDTH`].
    pub fn header_widths(&self) -> Vec<usize> {
        self.header.iter().map(|h| h.chars().count() + 3).collect()
    }

    /// Everything before the rows, the header row included.
    pub fn head(&self, widths: &[usize]) -> Vec<u8> {
        let mut x = Xml::document();
        x.open("worksheet", &[("xmlns", NS), ("xmlns:r", NS_R)]);
        x.open("sheetPr", &[]);
        x.empty("tabColor", &[("rgb", &argb(self.tab))]);
        x.empty("pageSetUpPr", &[("fitToPage", "1")]);
        x.close("sheetPr");
        x.empty("dimension", &[("ref", &self.range())]);
        x.open("sheetViews", &[]);
        x.open("sheetView", &[("workbookViewId", "0")]);
        x.empty(
            "pane",
            &[
                ("ySplit", "1"),
                ("topLeftCell", "A2"),
                ("activePane", "bottomLeft"),
                ("state", "frozen"),
            ],
        );
        x.empty("selection", &[("pane", "bottomLeft")]);
        x.close("sheetView");
        x.close("sheetViews");
        x.empty("sheetFormatPr", &[("defaultRowHeight", "15")]);
        cols(&mut x, widths);
        x.open("sheetData", &[]);
        x.raw("<row r=\"1\">");
        for (c, h) in self.header.iter().enumerate() {
            text_cell(&mut x, c, 1, Some(Style::Header), h);
        }
        x.raw("</row>");
        x.buf
    }

    /// Rows `first..first + n` (0-based among the data rows) and the widths they need.
    pub fn rows_xml(&self, first: usize, n: usize, widths: &mut [usize]) -> Vec<u8> {
        let rows = &self.rows[first..(first + n).min(self.rows.len())];
        let mut x = Xml::with_capacity(rows.len() * 64 * self.header.len());
        for (i, row) in rows.iter().enumerate() {
            let r = u32::try_from(first + i + 2).unwrap_or(u32::MAX);
            let style = self.tier.and_then(|t| row.cell(t)).and_then(Style::tier);
            x.raw("<row r=\"");
            push_u32(&mut x.buf, r);
            match style {
                Some(s) => {
                    x.raw("\" s=\"");
                    push_u32(&mut x.buf, s.id());
                    x.raw("\" customFormat=\"1\">");
                }
                None => x.raw("\">"),
            }
            for (c, v) in row.cells().enumerate() {
                if v.is_empty() {
                    continue;
                }
                let number = self
                    .numeric
                    .get(c)
                    .is_some_and(|&n| n)
                    .then(|| v.parse::<f64>().ok().filter(|f| f.is_finite()))
                    .flatten();
                match number {
                    Some(f) => number_cell(&mut x, c, r, style, f),
                    None => text_cell(&mut x, c, r, style, v),
                }
                if let Some(w) = widths.get_mut(c)
                    // Bytes bound characters from above; count characters only when it matters.
                    && v.len() >= *w
                {
                    *w = (*w).max(v.chars().count() + 1);
                }
            }
            x.raw("</row>");
        }
        x.buf
    }

    /// Everything after the rows.
    pub fn tail(&self) -> Vec<u8> {
        let mut x = Xml::default();
        x.close("sheetData");
        x.empty("autoFilter", &[("ref", &self.range())]);
        page(&mut x);
        x.empty(
            "pageSetup",
            &[("fitToHeight", "0"), ("orientation", "landscape")],
        );
        x.close("worksheet");
        x.buf
    }
}

/// A value of the Summary sheet.
pub(super) enum Value<'a> {
    Text(&'a str),
    Number(f64),
}

/// The Summary sheet: two columns, figure and value, the selected tab.
pub(super) fn summary(rows: &[(String, Value<'_>)]) -> Vec<u8> {
    let mut x = Xml::document();
    x.open("worksheet", &[("xmlns", NS), ("xmlns:r", NS_R)]);
    let mut end = b"A1:".to_vec();
    cell_ref(&mut end, 1, u32::try_from(rows.len()).unwrap_or(0) + 1);
    let end: String = end.into_iter().map(char::from).collect();
    x.empty("dimension", &[("ref", &end)]);
    x.open("sheetViews", &[]);
    x.empty(
        "sheetView",
        &[("tabSelected", "1"), ("workbookViewId", "0")],
    );
    x.close("sheetViews");
    x.empty("sheetFormatPr", &[("defaultRowHeight", "15")]);
    cols(&mut x, &[28, 36]);
    x.open("sheetData", &[]);
    x.raw("<row r=\"1\">");
    text_cell(&mut x, 0, 1, Some(Style::Header), "figure");
    text_cell(&mut x, 1, 1, Some(Style::Header), "value");
    x.raw("</row>");
    for (i, (k, v)) in rows.iter().enumerate() {
        let r = u32::try_from(i + 2).unwrap_or(u32::MAX);
        x.raw("<row r=\"");
        push_u32(&mut x.buf, r);
        x.raw("\">");
        text_cell(&mut x, 0, r, None, k);
        match v {
            Value::Number(n) => number_cell(&mut x, 1, r, None, *n),
            Value::Text(t) => text_cell(&mut x, 1, r, Some(Style::Text), t),
        }
        x.raw("</row>");
    }
    x.close("sheetData");
    page(&mut x);
    x.close("worksheet");
    x.buf
}

fn page(x: &mut Xml) {
    x.empty(
        "pageMargins",
        &[
            ("left", "0.7"),
            ("right", "0.7"),
            ("top", "0.75"),
            ("bottom", "0.75"),
            ("header", "0.3"),
            ("footer", "0.3"),
        ],
    );
}

/// `<cols>`: widths in characters of the default font (Calibri 11: 7-pixel digits, 5 pixels of
/// padding), stored as Excel stores them, truncated to 1/256 of a character.
fn cols(x: &mut Xml, widths: &[usize]) {
    // The schema wants at least one `<col>` in `<cols>`.
    if widths.is_empty() {
        return;
    }
    x.open("cols", &[]);
    for (i, w) in widths.iter().enumerate() {
        let n = (i + 1).to_string();
        let chars = (*w).min(MAX_WIDTH) as f64;
        let stored = ((chars * 7.0 + 5.0) / 7.0 * 256.0).trunc() / 256.0;
        x.empty(
            "col",
            &[
                ("min", &n),
                ("max", &n),
                ("width", &stored.to_string()),
                ("customWidth", "1"),
            ],
        );
    }
    x.close("cols");
}

fn cell_start(x: &mut Xml, c: usize, r: u32, style: Option<Style>) {
    x.raw("<c r=\"");
    cell_ref(&mut x.buf, c, r);
    if let Some(s) = style {
        x.raw("\" s=\"");
        push_u32(&mut x.buf, s.id());
    }
    x.buf.push(b'"');
}

/// An inline string (no shared string table to build and hold for a million unique ids).
fn text_cell(x: &mut Xml, c: usize, r: u32, style: Option<Style>, v: &str) {
    cell_start(x, c, r, style);
    x.raw(" t=\"inlineStr\"><is>");
    // Leading or trailing blanks are kept only when the text says so.
    if v.starts_with(char::is_whitespace) || v.ends_with(char::is_whitespace) {
        x.raw("<t xml:space=\"preserve\">");
    } else {
        x.raw("<t>");
    }
    x.text(v);
    x.raw("</t></is></c>");
}

/// A finite number, in the shortest form that reads back as the same value.
fn number_cell(x: &mut Xml, c: usize, r: u32, style: Option<Style>, v: f64) {
    cell_start(x, c, r, style);
    x.raw("><v>");
    x.raw(&v.to_string());
    x.raw("</v></c>");
}

/// `A1`-style reference of 0-based column `c`, 1-based row `r`.
pub(super) fn cell_ref(buf: &mut Vec<u8>, c: usize, r: u32) {
    let mut letters = [0u8; 4];
    let (mut n, mut i) = (c + 1, letters.len());
    while n > 0 && i > 0 {
        i -= 1;
        letters[i] = b'A' + ((n - 1) % 26) as u8;
        n = (n - 1) / 26;
    }
    buf.extend_from_slice(&letters[i..]);
    push_u32(buf, r);
}

fn push_u32(buf: &mut Vec<u8>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// `FFRRGGBB`, opaque.
pub(super) fn argb(rgb: u32) -> String {
    let mut s = String::from("FF");
    for shift in [16, 8, 0] {
        let b = (rgb >> shift) & 0xFF;
        for nibble in [b >> 4, b & 15] {
            s.push(char::from_digit(nibble, 16).map_or('0', |d| d.to_ascii_uppercase()));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_colours() {
        let r = |c, n| {
            let mut b = Vec::new();
            cell_ref(&mut b, c, n);
            String::from_utf8(b).unwrap()
        };
        assert_eq!(r(0, 1), "A1");
        assert_eq!(r(25, 10), "Z10");
        assert_eq!(r(26, 1_048_576), "AA1048576");
        assert_eq!(r(701, 7), "ZZ7");
        assert_eq!(r(702, 7), "AAA7");
        assert_eq!(argb(0x2563EB), "FF2563EB");
    }
}
