//! A CSV deliverable read back by column name (`cabling.csv`, `addresses.csv`, `bom.csv`): the
//! header decides where a column is, so a file with columns added or reordered still compares;
//! a column the comparison needs and the header lacks is an error naming it.

use super::ChangeError;
use crate::output::csv::uncell;

/// The rows of one CSV file, each cell as written before `output::csv` neutralised it.
pub struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Parse `bytes` (the file `path`), requiring the columns `needed`.
    pub fn parse(path: &str, bytes: &[u8], needed: &[&str]) -> Result<Table, ChangeError> {
        let mut r = csv::ReaderBuilder::new().flexible(false).from_reader(bytes);
        let err = |e: csv::Error| ChangeError::new(path, format!("not a CSV file: {e}"));
        let columns: Vec<String> = r.headers().map_err(err)?.iter().map(String::from).collect();
        let missing: Vec<&str> = needed
            .iter()
            .copied()
            .filter(|n| !columns.iter().any(|c| c == n))
            .collect();
        if !missing.is_empty() {
            return Err(ChangeError::new(
                path,
                format!("no column {} in its header", missing.join(", ")),
            ));
        }
        let mut rows = Vec::new();
        for rec in r.records() {
            rows.push(
                rec.map_err(err)?
                    .iter()
                    .map(|f| uncell(f).to_string())
                    .collect(),
            );
        }
        Ok(Table { columns, rows })
    }

    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().map(move |cells| Row {
            columns: &self.columns,
            cells,
        })
    }
}

/// One row: cells by column name.
pub struct Row<'a> {
    columns: &'a [String],
    cells: &'a [String],
}

impl Row<'_> {
    /// The cell of column `name` ("" when the header has no such column).
    pub fn get(&self, name: &str) -> &str {
        self.columns
            .iter()
            .position(|c| c == name)
            .and_then(|i| self.cells.get(i))
            .map_or("", String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_found_by_name_and_cells_unneutralised() {
        let t = Table::parse("x.csv", b"b,a\n'=1,2\n", &["a", "b"]).unwrap();
        let row = t.rows().next().unwrap();
        assert_eq!((row.get("a"), row.get("b")), ("2", "=1"));
        let e = Table::parse("x.csv", b"b\n1\n", &["a", "b"]).err().unwrap();
        assert!(e.message.contains("no column a"), "{e}");
    }
}
