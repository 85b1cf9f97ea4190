//! `cabling.xlsx`: the CSV artifacts as one workbook for people who live in spreadsheets —
//! Summary, Cabling (filters, frozen header, one colour per tier), a sheet per rack, Port maps,
//! Node ports, BOM, Addresses. Every cable row is the `cabling.csv` row; names and labels are
//! written as text (never read as numbers, dates or formulas), lengths, planes and rails as
//! numbers. The creation date is fixed so the same spec gives the same bytes.

use std::collections::BTreeSet;

use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, FormatBorder, Workbook, XlsxError};

use super::Csv;
use crate::artifacts::summary::Summary;

/// Rows a worksheet holds, header included (Excel's limit).
const MAX_ROWS: u32 = 1_048_576;
/// Widest column, in characters.
const MAX_WIDTH: usize = 60;

/// Columns written as numbers when they parse as one.
const NUMERIC: [&str; 5] = ["length_m", "plane", "rail", "quantity", "length"];

fn tier_colour(tier: &str) -> u32 {
    match tier {
        "node-leaf" => 0xDBEAFE,
        "leaf-spine" => 0xD1FAE5,
        "spine-core" => 0xFEF3C7,
        "mgmt" => 0xE5E7EB,
        _ => 0xFFFFFF,
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

struct Formats {
    header: Format,
    text: Format,
    tiers: Vec<(&'static str, Format)>,
}

// Strings are written as strings (never parsed by Excel); `text` marks the Summary's values.

impl Formats {
    fn new() -> Self {
        let header = Format::new()
            .set_bold()
            .set_font_color(0xFFFFFF)
            .set_background_color(0x1F2937)
            .set_border_bottom(FormatBorder::Thin);
        let text = Format::new().set_num_format("@");
        let tiers = ["node-leaf", "leaf-spine", "spine-core", "mgmt"]
            .into_iter()
            .map(|t| (t, Format::new().set_background_color(tier_colour(t))))
            .collect();
        Self {
            header,
            text,
            tiers,
        }
    }
}

/// A table row: the CSV row's cells, after a leading cell of its own (the switch of a port-map
/// row) when the table has one.
#[derive(Clone, Copy)]
struct Row<'a> {
    lead: Option<&'a str>,
    cells: &'a [String],
}

impl<'a> Row<'a> {
    fn plain(cells: &'a [String]) -> Self {
        Self { lead: None, cells }
    }

    fn cells(self) -> impl Iterator<Item = &'a str> {
        self.lead
            .into_iter()
            .chain(self.cells.iter().map(String::as_str))
    }

    fn cell(self, i: usize) -> Option<&'a str> {
        self.cells().nth(i)
    }
}

/// Write `rows` under `header` into sheets named `name`, `name (2)`, … (a new sheet every time
/// Excel's row limit is reached), with frozen header, autofilter and widths from the content.
fn write_table<'a>(
    wb: &mut Workbook,
    used: &mut BTreeSet<String>,
    name: &str,
    header: &[String],
    rows: impl Iterator<Item = Row<'a>>,
    formats: &Formats,
    tab: Option<u32>,
) -> Result<(), XlsxError> {
    let tier_col = header.iter().position(|h| h == "tier");
    let numeric: Vec<bool> = header
        .iter()
        .map(|h| NUMERIC.contains(&h.as_str()))
        .collect();
    let mut rows = rows.peekable();
    let mut first = true;
    while first || rows.peek().is_some() {
        first = false;
        // Constant-memory mode streams each finished row to a temporary file instead of holding
        // every cell of a million-row sheet, and writes strings inline: no shared string table
        // (a million unique cable ids) to hash and hold. The file is 3 % larger; Excel,
        // LibreOffice, openpyxl and calamine read inline strings as any other. Rows are written
        // strictly in order, which the mode requires.
        let ws = wb.add_worksheet_with_constant_memory()?;
        ws.set_name(sheet_name(name, used))?;
        if let Some(c) = tab {
            ws.set_tab_color(c);
        }
        let mut widths: Vec<usize> = header.iter().map(|h| h.len() + 3).collect();
        for (c, h) in header.iter().enumerate() {
            ws.write_string_with_format(0, c as u16, h, &formats.header)?;
        }
        let mut r: u32 = 1;
        while r < MAX_ROWS {
            let Some(row) = rows.next() else { break };
            // One row format per tier colour: cells without a format of their own take it,
            // which is far cheaper than a format per cell on a million-cell sheet.
            if let Some(fmt) = tier_col
                .and_then(|t| row.cell(t))
                .and_then(|t| formats.tiers.iter().find(|(k, _)| *k == t))
                .map(|(_, f)| f)
            {
                ws.set_row_format(r, fmt)?;
            }
            for (c, v) in row.cells().enumerate() {
                let col = c as u16;
                let number = numeric
                    .get(c)
                    .is_some_and(|&n| n)
                    .then(|| v.parse::<f64>().ok())
                    .flatten();
                if let Some(x) = number {
                    ws.write_number(r, col, x)?;
                } else if !v.is_empty() {
                    ws.write_string(r, col, v)?;
                }
                if let Some(w) = widths.get_mut(c) {
                    // Bytes bound characters from above; count characters only when it matters.
                    if v.len() >= *w {
                        *w = (*w).max(v.chars().count() + 1);
                    }
                }
            }
            r += 1;
        }
        for (c, w) in widths.iter().enumerate() {
            ws.set_column_width(c as u16, (*w).min(MAX_WIDTH) as f64)?;
        }
        ws.set_freeze_panes(1, 0)?;
        let last_col = header.len().saturating_sub(1) as u16;
        ws.autofilter(0, 0, r.saturating_sub(1).max(1), last_col)?;
        ws.set_landscape();
        ws.set_repeat_rows(0, 0)?;
        ws.set_print_fit_to_pages(1, 0);
    }
    Ok(())
}

fn summary_sheet(
    wb: &mut Workbook,
    used: &mut BTreeSet<String>,
    s: &Summary,
    f: &Formats,
) -> Result<(), XlsxError> {
    let ws = wb.add_worksheet();
    ws.set_name(sheet_name("Summary", used))?;
    let mut rows: Vec<(String, String)> = vec![
        ("cluster".into(), s.cluster.clone()),
        ("GPUs".into(), s.gpus.to_string()),
        ("nodes".into(), s.nodes.to_string()),
        ("scalable units".into(), s.scalable_units.to_string()),
        (
            "compute fabric".into(),
            format!("{} {}, {}-tier", s.transport, s.layout, s.tiers),
        ),
        ("rails".into(), s.rails.to_string()),
        ("planes".into(), s.planes.to_string()),
        ("bisection (Gb/s)".into(), s.bisection_gbps.to_string()),
    ];
    for (k, v) in &s.oversubscription {
        rows.push((format!("oversubscription ({k})"), v.clone()));
    }
    for (k, v) in &s.switches {
        rows.push((format!("switches: {k}"), v.to_string()));
    }
    for (k, v) in &s.links {
        rows.push((format!("cables: {k}"), v.to_string()));
    }
    ws.write_string_with_format(0, 0, "figure", &f.header)?;
    ws.write_string_with_format(0, 1, "value", &f.header)?;
    for (i, (k, v)) in rows.iter().enumerate() {
        let r = i as u32 + 1;
        ws.write_string(r, 0, k)?;
        match v.parse::<f64>() {
            Ok(x) if !v.contains(':') => ws.write_number(r, 1, x)?,
            _ => ws.write_string_with_format(r, 1, v, &f.text)?,
        };
    }
    ws.set_column_width(0, 28)?;
    ws.set_column_width(1, 36)?;
    Ok(())
}

fn build(
    summary: &Summary,
    cabling: Option<&Csv>,
    portmaps: &[(&str, Csv)],
    bom: Option<&Csv>,
    addresses: Option<&Csv>,
) -> Result<Vec<u8>, XlsxError> {
    let mut wb = Workbook::new();
    let created = ExcelDateTime::from_ymd(2000, 1, 1)?;
    wb.set_properties(
        &DocProperties::new()
            .set_title("railyard cabling workbook")
            .set_comment(
                "generated by railyard from cabling.csv, portmaps/*.csv, bom.csv, addresses.csv",
            )
            .set_creation_datetime(&created),
    );
    let formats = Formats::new();
    let mut used = BTreeSet::new();
    summary_sheet(&mut wb, &mut used, summary, &formats)?;
    if let Some(c) = cabling {
        write_table(
            &mut wb,
            &mut used,
            "Cabling",
            &c.header,
            c.rows.iter().map(|r| Row::plain(r)),
            &formats,
            Some(0x2563EB),
        )?;
        let col = |n: &str| c.header.iter().position(|h| h == n);
        if let (Some(ar), Some(br)) = (col("a_rack"), col("b_rack")) {
            let mut racks: Vec<&str> = c
                .rows
                .iter()
                .flat_map(|r| [r[ar].as_str(), r[br].as_str()])
                .filter(|r| !r.is_empty())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            racks.sort_by_key(|r| super::natural_key(r));
            for rack in racks {
                write_table(
                    &mut wb,
                    &mut used,
                    &format!("Rack {rack}"),
                    &c.header,
                    c.rows
                        .iter()
                        .filter(|r| r[ar] == rack || r[br] == rack)
                        .map(|r| Row::plain(r)),
                    &formats,
                    Some(0x9CA3AF),
                )?;
            }
        }
    }
    // Every switch's ports in one table, the switch first; node ports apart.
    let mut switches: Vec<&(&str, Csv)> = portmaps.iter().filter(|(n, _)| *n != "nodes").collect();
    switches.sort_by_key(|(n, _)| super::natural_key(n));
    if let Some((_, first)) = switches.first() {
        let mut header = vec!["switch".to_string()];
        header.extend(first.header.iter().cloned());
        let rows = switches.iter().flat_map(|(name, csv)| {
            csv.rows.iter().map(move |r| Row {
                lead: Some(name),
                cells: r,
            })
        });
        write_table(
            &mut wb,
            &mut used,
            "Port maps",
            &header,
            rows,
            &formats,
            Some(0x059669),
        )?;
    }
    if let Some((_, nodes)) = portmaps.iter().find(|(n, _)| *n == "nodes") {
        write_table(
            &mut wb,
            &mut used,
            "Node ports",
            &nodes.header,
            nodes.rows.iter().map(|r| Row::plain(r)),
            &formats,
            Some(0x059669),
        )?;
    }
    for (name, csv, tab) in [("BOM", bom, 0xD97706), ("Addresses", addresses, 0x7C3AED)] {
        if let Some(c) = csv {
            write_table(
                &mut wb,
                &mut used,
                name,
                &c.header,
                c.rows.iter().map(|r| Row::plain(r)),
                &formats,
                Some(tab),
            )?;
        }
    }
    // Compression level 2: about a tenth larger than the default 6, saved in half the time.
    wb.set_zip_compression_level(2);
    wb.save_to_buffer()
}

/// The workbook's bytes (empty only if the writer itself fails, which the tests would catch).
pub fn workbook(
    summary: &Summary,
    cabling: Option<&Csv>,
    portmaps: &[(&str, Csv)],
    bom: Option<&Csv>,
    addresses: Option<&Csv>,
) -> Vec<u8> {
    build(summary, cabling, portmaps, bom, addresses).unwrap_or_default()
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
