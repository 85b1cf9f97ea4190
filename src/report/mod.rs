//! The deliverables people look at: `report.html` (summary, fabric diagram, rack elevations,
//! cabling and port-map tables, BOM, tenants, print sheets per rack), `cabling.xlsx` and the cable
//! labels `labels/<location>.{zpl,csv}` (the office-printer sheets `labels/<location>.html` on
//! request).
//!
//! Pure functions of the fabric and the already rendered CSV artifacts (`design → bytes`): the
//! tables in the page and the workbook are read back from `cabling.csv`, `portmaps/*.csv`,
//! `bom.csv` and `addresses.csv`, so every view shows exactly what the CSV files say.
//! Self-contained: the page carries its CSS, script, SVG and data inline and loads nothing.
//!
//! Above the spec's `report.per_pod_above_gpus`, the page and the workbook are split per pod
//! ([`pods`], [`split`]): `report.html` an index linking `report/<pod>.html`, `cabling.xlsx` a
//! fabric summary beside `workbooks/<pod>.xlsx`.

mod csv_table;
mod diagram;
mod labels;
mod markup;
mod page;
mod pods;
mod racks;
mod sheets;
mod split;
mod xlsx;

use crate::artifacts::LinkNames;
use crate::design::Design;
use crate::diag::Diagnostics;
use crate::output::{FileError, InFile};
use crate::output::{Memo, OutputFile, OutputGroup, Sink, unit_digest};
pub(crate) use csv_table::{Csv, CsvRow};

fn find<'a>(files: &'a [OutputFile], path: &str) -> Option<&'a OutputFile> {
    files.iter().find(|f| f.path == path)
}

/// The CSV file `path` of `files` read back, if there.
fn read_back(files: &[OutputFile], path: &str) -> Result<Option<Csv>, FileError> {
    find(files, path)
        .map(|c| Csv::read(&c.bytes).in_file(path))
        .transpose()
}

/// `report.html`, `cabling.xlsx`, `labels/*.{zpl,csv}` and `sheets/*.html` from the fabric and the CSV artifacts in
/// `files` (which must hold `cabling.csv`, `bom.csv`, `addresses.csv` and `portmaps/*.csv`);
/// above the spec's size, the page and the workbook split per pod.
pub fn files(
    design: &Design,
    findings: &Diagnostics,
    names: &LinkNames,
    files: &[OutputFile],
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    let f = &design.fabric;
    let summary = crate::artifacts::summary::summarize_with(f, &design.intents.tenants);
    if pods::split(summary.gpus, design.spec.report.per_pod_above_gpus) {
        return split::files(design, findings, names, &summary, files, sink, memo);
    }
    // The workbook is the summary and the CSV files as sheets, nothing else: when those are the
    // same as the previous build's (a change of tenants, BGP or RoCE settings), it is kept.
    let summary_json = crate::artifacts::summary::to_json(&summary).in_file(WORKBOOK)?;
    let mut parts: Vec<&[u8]> = vec![&summary_json];
    for o in files.iter().filter(|o| {
        ["cabling.csv", "bom.csv", "addresses.csv"].contains(&o.path.as_str())
            || o.path.starts_with("portmaps/")
    }) {
        parts.extend([o.path.as_bytes(), &o.bytes]);
    }
    let workbook_inputs = unit_digest(&parts);
    let draw_workbook = !memo.reuse(WORKBOOK, &workbook_inputs);
    let Tables {
        cabling,
        addresses,
        bom,
        portmaps,
    } = Tables::read(files, draw_workbook)?;
    // The workbook (its pieces over the cores) beside the page and the label sheets.
    let (workbook, page_and_labels) = crate::parallel::join(
        || {
            draw_workbook
                .then(|| {
                    xlsx::workbook(
                        &xlsx::summary_rows(&summary),
                        cabling.as_ref(),
                        &portmaps.iter().map(|(n, c)| (*n, c)).collect::<Vec<_>>(),
                        bom.as_ref(),
                        addresses.as_ref(),
                    )
                    .in_file(WORKBOOK)
                })
                .transpose()
        },
        || {
            let html =
                page::report_html(design, findings, names, &summary, bom.as_ref(), &portmaps)
                    .in_file(PAGE)?;
            sink(OutputFile::new(OutputGroup::Report, PAGE, html));
            labels::files(f, names, sink, memo)?;
            sheets::files(f, names, sink)
        },
    );
    page_and_labels?;
    if let Some(bytes) = workbook? {
        memo.record(WORKBOOK, &workbook_inputs, vec![WORKBOOK.into()]);
        sink(OutputFile::new(OutputGroup::Report, WORKBOOK, bytes));
    }
    Ok(())
}

/// The CSV files the page and the workbooks read back.
struct Tables<'a> {
    cabling: Option<Csv>,
    addresses: Option<Csv>,
    bom: Option<Csv>,
    /// Switch name and port map, in file order.
    portmaps: Vec<(&'a str, Csv)>,
}

impl<'a> Tables<'a> {
    /// The tables of `files`; the cabling plan and address plan only for a `workbook` (the page
    /// does not read them).
    fn read(files: &'a [OutputFile], workbook: bool) -> Result<Self, FileError> {
        let read = |path: &str| {
            if workbook {
                read_back(files, path)
            } else {
                Ok(None)
            }
        };
        // The two largest tables are parsed beside the rest.
        let ((cabling, addresses), (bom, portmaps)) = crate::parallel::join(
            || (read("cabling.csv"), read("addresses.csv")),
            || {
                let portmaps: Result<Vec<(&str, Csv)>, FileError> = files
                    .iter()
                    .filter_map(|o| {
                        let name = o.path.strip_prefix("portmaps/")?.strip_suffix(".csv")?;
                        Some(Csv::read(&o.bytes).in_file(&o.path).map(|c| (name, c)))
                    })
                    .collect();
                (read_back(files, "bom.csv"), portmaps)
            },
        );
        Ok(Self {
            cabling: cabling?,
            addresses: addresses?,
            bom: bom?,
            portmaps: portmaps?,
        })
    }
}

/// The office-printer label sheets (`labels/<location>.html`), only on request.
pub fn label_sheets(
    f: &crate::topology::Fabric,
    names: &LinkNames,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    labels::sheets(f, names, sink, memo)
}

const WORKBOOK: &str = "cabling.xlsx";
const PAGE: &str = "report.html";
