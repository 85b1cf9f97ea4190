//! A CSV artifact read back for the report and the workbook, held compactly: every field's text
//! back to back in one string and one offset per field. At 131k GPUs the tables the report reads
//! hold 35 million fields; a `String` each took gigabytes and a quarter of the time in the
//! allocator. Each field is read back through [`uncell`], so the page and the workbook show the
//! text the CSV cell stands for (a name, not its spreadsheet escape).

use crate::output::csv::uncell;

/// The rows of a CSV file under its header.
pub(crate) struct Csv {
    pub header: Vec<String>,
    text: String,
    /// The end of every field in `text`, row after row.
    ends: Vec<u32>,
}

/// One row of a [`Csv`].
#[derive(Clone, Copy)]
pub(crate) struct CsvRow<'a> {
    text: &'a str,
    start: u32,
    ends: &'a [u32],
}

impl<'a> CsvRow<'a> {
    /// Field `i`, `""` past the end.
    pub fn get(self, i: usize) -> &'a str {
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { self.start } else { self.ends[i - 1] };
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    pub fn iter(self) -> impl Iterator<Item = &'a str> {
        (0..self.ends.len()).map(move |i| self.get(i))
    }
}

impl Csv {
    /// The rows of a CSV file railyard wrote; a row of another width than the header's, or a
    /// file that is not CSV, is an error (railyard never writes one), not a row left out.
    pub fn read(bytes: &[u8]) -> Result<Self, String> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(bytes);
        let header: Vec<String> = r
            .headers()
            .map_err(|e| format!("unreadable header: {e}"))?
            .iter()
            .map(|h| uncell(h).to_string())
            .collect();
        let mut t = Self {
            header,
            text: String::with_capacity(bytes.len()),
            ends: Vec::with_capacity(bytes.len() / 8),
        };
        let mut record = csv::StringRecord::new();
        while r
            .read_record(&mut record)
            .map_err(|e| format!("unreadable row: {e}"))?
        {
            if record.len() != t.header.len() {
                let line = record.position().map_or(0, csv::Position::line);
                return Err(format!(
                    "line {line} has {} fields under a header of {}",
                    record.len(),
                    t.header.len()
                ));
            }
            for field in &record {
                t.text.push_str(&uncell(field));
                let end = u32::try_from(t.text.len())
                    .map_err(|_| "larger than the report reads (4 GiB of text)".to_string())?;
                t.ends.push(end);
            }
        }
        Ok(t)
    }

    pub fn len(&self) -> usize {
        self.ends.len().checked_div(self.header.len()).unwrap_or(0)
    }

    pub fn row(&self, i: usize) -> CsvRow<'_> {
        let w = self.header.len();
        let ends = self.ends.get(i * w..(i + 1) * w).unwrap_or(&[]);
        let start = if i == 0 { 0 } else { self.ends[i * w - 1] };
        CsvRow {
            text: &self.text,
            start,
            ends,
        }
    }

    pub fn rows(&self) -> impl Iterator<Item = CsvRow<'_>> {
        (0..self.len()).map(|i| self.row(i))
    }

    /// Rows `rows` (indices, in the order given) under the same header (a pod's share of a
    /// fabric-wide table); `None` past 4 GiB of text, as [`Csv::read`].
    pub fn pick(&self, rows: &[usize]) -> Option<Self> {
        let mut t = Self {
            header: self.header.clone(),
            text: String::new(),
            ends: Vec::with_capacity(rows.len() * self.header.len()),
        };
        for &i in rows {
            for field in self.row(i).iter() {
                t.text.push_str(field);
                t.ends.push(u32::try_from(t.text.len()).ok()?);
            }
        }
        Some(t)
    }

    /// The rows naming each key of `key_of` in one of `columns`, per key's value: row indices
    /// in file order, a row once per value.
    pub fn rows_by(
        &self,
        columns: &[&str],
        key_of: impl Fn(&str) -> Option<usize>,
        n: usize,
    ) -> Vec<Vec<usize>> {
        let cols: Vec<usize> = columns
            .iter()
            .filter_map(|c| self.header.iter().position(|h| h == c))
            .collect();
        let mut out = vec![Vec::new(); n];
        for (i, r) in self.rows().enumerate() {
            let mut seen: Vec<usize> = Vec::new();
            for &c in &cols {
                if let Some(k) = key_of(r.get(c)).filter(|k| *k < n && !seen.contains(k)) {
                    seen.push(k);
                    out[k].push(i);
                }
            }
        }
        out
    }

    /// Every field's text, back to back with its length (the table's digest input).
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_back_unquoted_row_by_row() {
        let t = Csv::read(b"a,b,c\n1,\"x,y\",\n\"q\"\"\",,z\n4,5,6\n").unwrap();
        assert_eq!(t.header, ["a", "b", "c"]);
        let rows: Vec<Vec<&str>> = t.rows().map(|r| r.iter().collect()).collect();
        assert_eq!(
            rows,
            [
                vec!["1", "x,y", ""],
                vec!["q\"", "", "z"],
                vec!["4", "5", "6"]
            ]
        );
        assert_eq!(t.row(1).get(2), "z");
        assert_eq!(t.row(1).get(9), "");
    }

    /// A neutralised cell reads back as the text it stands for.
    #[test]
    fn escaped_cells_read_back_as_their_text() {
        let t = Csv::read(b"name,n\n'=cmd|' /C calc'!A0,-1\n''x,2\n").unwrap();
        assert_eq!(t.row(0).get(0), "=cmd|' /C calc'!A0");
        assert_eq!(t.row(0).get(1), "-1");
        assert_eq!(t.row(1).get(0), "'x");
    }

    #[test]
    fn a_row_of_another_width_is_an_error() {
        let e = Csv::read(b"a,b\n1,2\nbad\n").err().unwrap();
        assert_eq!(e, "line 3 has 1 fields under a header of 2");
    }
}
