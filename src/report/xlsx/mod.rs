//! `cabling.xlsx`: the CSV artifacts as one workbook for people who live in spreadsheets —
//! Summary, Cabling (filters, frozen header, one colour per tier), a sheet per rack, Port maps,
//! Node ports, BOM, Addresses. Every cable row is the `cabling.csv` row; names and labels are
//! written as text (never read as numbers, dates or formulas), lengths, planes and rails as
//! numbers. The creation date is fixed so the same spec gives the same bytes.
//!
//! The workbook is written here rather than by a general spreadsheet library: a 131k-GPU fabric
//! gives sheets of a million rows, and writing their XML straight from the CSV rows, in pieces
//! on every core, each piece compressed on its own (`zip.rs`), is several times faster than
//! building cell objects. `xml.rs` writes the XML, `sheet.rs` the worksheets, `package.rs` the
//! parts around them. Strings are inline (no shared string table of a million unique ids).

mod package;
mod sheet;
mod xml;
mod zip;

use std::collections::BTreeSet;

use super::{Csv, CsvRow};
use crate::artifacts::summary::Summary;
use sheet::{Table, Value};
use zip::{Entry, Piece, ZipError};

/// Rows a worksheet holds, header included (Excel's limit).
const MAX_ROWS: usize = 1_048_576;
/// Rows written and compressed as one piece.
const PIECE_ROWS: usize = 16_384;

/// Columns written as numbers when they parse as one.
const NUMERIC: [&str; 9] = [
    "length_m",
    "plane",
    "rail",
    "quantity",
    "length",
    "spares",
    "order",
    "cable_count",
    "leg",
];

/// The cell formats of `styles.xml`, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    Header,
    /// Text that must stay text (the Summary's values).
    Text,
    /// A row of the tier at this index of [`Style::TIERS`].
    Tier(usize),
}

impl Style {
    const HEADER_FILL: u32 = 0x1F2937;
    const TIERS: [(&str, u32); 4] = [
        ("node-leaf", 0xDBEAFE),
        ("leaf-spine", 0xD1FAE5),
        ("spine-core", 0xFEF3C7),
        ("mgmt", 0xE5E7EB),
    ];

    fn tier(name: &str) -> Option<Self> {
        Self::TIERS
            .iter()
            .position(|(t, _)| *t == name)
            .map(Self::Tier)
    }

    /// Every format, the default first (index 0).
    fn all() -> Vec<Option<Self>> {
        [None, Some(Self::Header), Some(Self::Text)]
            .into_iter()
            .chain((0..Self::TIERS.len()).map(|i| Some(Self::Tier(i))))
            .collect()
    }

    /// The index in `cellXfs`.
    fn id(self) -> u32 {
        match self {
            Self::Header => 1,
            Self::Text => 2,
            Self::Tier(i) => 3 + i as u32,
        }
    }

    /// (number format, font, fill, border) of `cellXfs` entry `s` (number format 49 is the
    /// built-in text format, `@`).
    fn parts(s: Option<Self>) -> (u32, u32, u32, u32) {
        match s {
            None => (0, 0, 0, 0),
            Some(Self::Header) => (0, 1, 2, 1),
            Some(Self::Text) => (49, 0, 0, 0),
            Some(Self::Tier(i)) => (0, 0, 3 + i as u32, 0),
        }
    }
}

/// A valid, unique sheet name: at most 31 characters, none of `[]:*?/\`.
fn sheet_name(want: &str, used: &mut BTreeSet<String>) -> String {
    let clean: String = want
        .chars()
        .map(|c| if "[]:*?/\\".contains(c) { '_' } else { c })
        .take(31)
        .collect();
    let mut name = clean.clone();
    let mut n = 2;
    while used.contains(&name.to_lowercase()) {
        let suffix = format!(" ({n})");
        name = format!(
            "{}{suffix}",
            clean
                .chars()
                .take(31 - suffix.chars().count())
                .collect::<String>()
        );
        n += 1;
    }
    used.insert(name.to_lowercase());
    name
}

/// A table row: the CSV row's cells, after a leading cell of its own (the switch of a port-map
/// row) when the table has one.
#[derive(Clone, Copy)]
pub(super) struct Row<'a> {
    lead: Option<&'a str>,
    cells: CsvRow<'a>,
}

impl<'a> Row<'a> {
    fn plain(cells: CsvRow<'a>) -> Self {
        Self { lead: None, cells }
    }

    fn cells(self) -> impl Iterator<Item = &'a str> {
        self.lead.into_iter().chain(self.cells.iter())
    }

    fn cell(self, i: usize) -> Option<&'a str> {
        match (self.lead, i) {
            (Some(lead), 0) => Some(lead),
            (Some(_), i) => Some(self.cells.get(i - 1)),
            (None, i) => Some(self.cells.get(i)),
        }
    }
}

/// The sheets of one table: `name`, `name (2)`, … (a new sheet every time Excel's row limit is
/// reached; one sheet with the header alone when there are no rows).
fn tables<'a>(
    out: &mut Vec<Table<'a>>,
    used: &mut BTreeSet<String>,
    name: &str,
    header: Vec<String>,
    rows: Vec<Row<'a>>,
    tab: u32,
) {
    let numeric: Vec<bool> = header
        .iter()
        .map(|h| NUMERIC.contains(&h.as_str()))
        .collect();
    let tier = header.iter().position(|h| h == "tier");
    let mut parts: Vec<Vec<Row<'a>>> = rows.chunks(MAX_ROWS - 1).map(<[Row]>::to_vec).collect();
    if parts.is_empty() {
        parts.push(Vec::new());
    }
    for rows in parts {
        out.push(Table {
            name: sheet_name(name, used),
            header: header.clone(),
            rows,
            tab,
            numeric: numeric.clone(),
            tier,
        });
    }
}

/// The Summary's figures: (name, value, whether it is a number). Names and ratios stay text,
/// whatever they look like (a cluster may be called `2024`).
pub fn summary_rows(s: &Summary) -> Vec<(String, String, bool)> {
    let mut rows: Vec<(String, String, bool)> = vec![
        ("cluster".into(), s.cluster.clone(), false),
        ("GPUs".into(), s.gpus.to_string(), true),
        ("nodes".into(), s.nodes.to_string(), true),
        ("scalable units".into(), s.scalable_units.to_string(), true),
        (
            "compute fabric".into(),
            format!("{} {}, {}-tier", s.transport, s.layout, s.tiers),
            false,
        ),
        ("rails".into(), s.rails.to_string(), true),
        ("planes".into(), s.planes.to_string(), true),
        (
            "bisection (Gb/s)".into(),
            s.bisection_gbps.to_string(),
            true,
        ),
    ];
    for (k, v) in &s.oversubscription {
        rows.push((format!("oversubscription ({k})"), v.clone(), false));
    }
    for (k, v) in &s.switches {
        rows.push((format!("switches: {k}"), v.to_string(), true));
    }
    for (k, v) in &s.links {
        rows.push((format!("cables: {k}"), v.to_string(), true));
    }
    rows
}

fn all_tables<'a>(
    used: &mut BTreeSet<String>,
    cabling: Option<&'a Csv>,
    portmaps: &'a [(&'a str, &'a Csv)],
    bom: Option<&'a Csv>,
    addresses: Option<&'a Csv>,
) -> Vec<Table<'a>> {
    let mut out = Vec::new();
    if let Some(c) = cabling {
        let all: Vec<Row> = c.rows().map(Row::plain).collect();
        tables(&mut out, used, "Cabling", c.header.clone(), all, 0x2563EB);
        let col = |n: &str| c.header.iter().position(|h| h == n);
        if let (Some(ar), Some(br)) = (col("a_rack"), col("b_rack")) {
            // Every rack's rows in one pass, in cabling order; a cable within one rack once.
            let mut racks: std::collections::BTreeMap<&str, Vec<Row>> = Default::default();
            for r in c.rows() {
                let (a, b) = (r.get(ar), r.get(br));
                if !a.is_empty() {
                    racks.entry(a).or_default().push(Row::plain(r));
                }
                if !b.is_empty() && b != a {
                    racks.entry(b).or_default().push(Row::plain(r));
                }
            }
            let mut racks: Vec<(&str, Vec<Row>)> = racks.into_iter().collect();
            racks.sort_by(|(a, _), (b, _)| crate::output::natural::cmp(a, b));
            for (rack, rows) in racks {
                tables(
                    &mut out,
                    used,
                    &format!("Rack {rack}"),
                    c.header.clone(),
                    rows,
                    0x9CA3AF,
                );
            }
        }
    }
    // Every switch's ports in one table, the switch first; node ports apart.
    let mut switches: Vec<&(&str, &Csv)> = portmaps.iter().filter(|(n, _)| *n != "nodes").collect();
    switches.sort_by(|(a, _), (b, _)| crate::output::natural::cmp(a, b));
    if let Some((_, first)) = switches.first() {
        let mut header = vec!["switch".to_string()];
        header.extend(first.header.iter().cloned());
        let rows = switches
            .iter()
            .flat_map(|(name, csv)| {
                csv.rows().map(move |r| Row {
                    lead: Some(name),
                    cells: r,
                })
            })
            .collect();
        tables(&mut out, used, "Port maps", header, rows, 0x059669);
    }
    if let Some((_, nodes)) = portmaps.iter().find(|(n, _)| *n == "nodes") {
        let rows = nodes.rows().map(Row::plain).collect();
        tables(
            &mut out,
            used,
            "Node ports",
            nodes.header.clone(),
            rows,
            0x059669,
        );
    }
    for (name, csv, tab) in [("BOM", bom, 0xD97706), ("Addresses", addresses, 0x7C3AED)] {
        if let Some(c) = csv {
            let rows = c.rows().map(Row::plain).collect();
            tables(&mut out, used, name, c.header.clone(), rows, tab);
        }
    }
    out
}

/// One table sheet's rows, piece `index` of it: the compressed XML and the column widths it
/// needs.
struct RowsPiece {
    table: usize,
    piece: Piece,
    widths: Vec<usize>,
}

/// A table's column widths and its rows' compressed pieces.
type Compressed = (Vec<usize>, Vec<Piece>);

/// Every table's rows as compressed pieces, made over the cores (each core takes a contiguous
/// run of pieces), with the column widths the rows need.
fn compress(tables: &[Table<'_>]) -> Result<Vec<Compressed>, ZipError> {
    // Pieces of every table, over the cores; each core takes a contiguous run of them.
    let jobs: Vec<(usize, usize)> = tables
        .iter()
        .enumerate()
        .flat_map(|(t, table)| {
            (0..table.rows.len())
                .step_by(PIECE_ROWS)
                .map(move |first| (t, first))
        })
        .collect();
    let pieces: Vec<RowsPiece> = crate::parallel::chunks(&jobs, |part| {
        part.iter()
            .map(|&(t, first)| {
                let mut widths = tables[t].header_widths();
                let xml = tables[t].rows_xml(first, PIECE_ROWS, &mut widths);
                Ok(RowsPiece {
                    table: t,
                    piece: Piece::deflate(&xml)?,
                    widths,
                })
            })
            .collect::<Result<Vec<_>, ZipError>>()
    })
    .into_iter()
    .collect::<Result<Vec<_>, ZipError>>()?
    .into_iter()
    .flatten()
    .collect();
    let mut per_table: Vec<Compressed> = tables
        .iter()
        .map(|t| (t.header_widths(), Vec::new()))
        .collect();
    for p in pieces {
        let (widths, parts) = &mut per_table[p.table];
        for (w, pw) in widths.iter_mut().zip(&p.widths) {
            *w = (*w).max(*pw);
        }
        parts.push(p.piece);
    }
    Ok(per_table)
}

/// The workbook's bytes, or why it cannot be written (beyond what a zip without zip64 holds,
/// 4 GiB; a deflate failure).
pub fn workbook(
    rows: &[(String, String, bool)],
    cabling: Option<&Csv>,
    portmaps: &[(&str, &Csv)],
    bom: Option<&Csv>,
    addresses: Option<&Csv>,
) -> Result<Vec<u8>, ZipError> {
    let mut used = BTreeSet::new();
    let summary_name = sheet_name("Summary", &mut used);
    let tables = all_tables(&mut used, cabling, portmaps, bom, addresses);
    let per_table = compress(&tables)?;

    let values: Vec<(String, Value)> = rows
        .iter()
        .map(|(k, v, number)| {
            let value = match v.parse::<f64>() {
                Ok(x) if *number && x.is_finite() => Value::Number(x),
                _ => Value::Text(v),
            };
            (k.clone(), value)
        })
        .collect();
    let mut sheets = vec![package::SheetEntry {
        name: summary_name,
        table: None,
    }];
    let mut entries = vec![
        Entry::new(
            "[Content_Types].xml",
            &package::content_types(tables.len() + 1),
        )?,
        Entry::new("_rels/.rels", &package::root_rels())?,
        Entry::new("docProps/app.xml", &package::app())?,
        Entry::new(
            "docProps/core.xml",
            &package::core(
                "railyard cabling workbook",
                "generated by railyard from cabling.csv, portmaps/*.csv, bom.csv, addresses.csv",
            ),
        )?,
        Entry::new(
            "xl/_rels/workbook.xml.rels",
            &package::workbook_rels(tables.len() + 1),
        )?,
        Entry::new("xl/styles.xml", &package::styles())?,
        Entry::new(
            ["xl/", &package::sheet_part(1)].concat(),
            &sheet::summary(&values),
        )?,
    ];
    for (i, (table, (widths, parts))) in tables.iter().zip(per_table).enumerate() {
        let mut all = Vec::with_capacity(parts.len() + 2);
        all.push(Piece::deflate(&table.head(&widths))?);
        all.extend(parts);
        all.push(Piece::deflate(&table.tail())?);
        entries.push(Entry::join(
            ["xl/", &package::sheet_part(i + 2)].concat(),
            all,
        ));
        sheets.push(package::SheetEntry {
            name: table.name.clone(),
            table: Some(table.range()),
        });
    }
    entries.insert(
        5,
        Entry::new("xl/workbook.xml", &package::workbook(&sheets))?,
    );
    zip::archive(&entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheet_names_are_valid_and_unique() {
        let mut used = BTreeSet::new();
        let a = sheet_name("Rack A/01:[x]", &mut used);
        assert_eq!(a, "Rack A_01__x_");
        let long = "x".repeat(40);
        let b = sheet_name(&long, &mut used);
        let c = sheet_name(&long, &mut used);
        assert_eq!(b.chars().count(), 31);
        assert_eq!(c.chars().count(), 31);
        assert_ne!(b, c);
    }
}
