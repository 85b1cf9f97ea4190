//! A CSV artifact read back for the report and the workbook, held compactly: every field's text
//! back to back in one string and one offset per field. At 131k GPUs the tables the report reads
//! hold 35 million fields; a `String` each took gigabytes and a quarter of the time in the
//! allocator.

/// The rows of a CSV file under its header (rows whose width differs from the header's, which
/// railyard never writes, are left out).
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
    pub fn read(bytes: &[u8]) -> Self {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(bytes);
        let header: Vec<String> = r
            .headers()
            .map(|h| h.iter().map(str::to_string).collect())
            .unwrap_or_default();
        let mut t = Self {
            header,
            text: String::with_capacity(bytes.len()),
            ends: Vec::with_capacity(bytes.len() / 8),
        };
        let mut record = csv::StringRecord::new();
        loop {
            match r.read_record(&mut record) {
                Ok(true) if record.len() == t.header.len() => {}
                // A row of another width, or not UTF-8: left out, as the doc says.
                Ok(true) | Err(_) => continue,
                Ok(false) => break,
            }
            for field in &record {
                t.text.push_str(field);
                // A CSV artifact is far below 4 GiB; a larger one would stop here, not wrap.
                let Ok(end) = u32::try_from(t.text.len()) else {
                    return t;
                };
                t.ends.push(end);
            }
        }
        t
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_back_unquoted_row_by_row() {
        let t = Csv::read(b"a,b,c\n1,\"x,y\",\n\"q\"\"\",,z\nbad,row\n4,5,6\n");
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
}
