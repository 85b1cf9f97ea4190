//! The port-GUID CSV: what `railyard ib import` writes and `railyard build --port-guids` reads,
//! and what a UFM or inventory export can be massaged into. Columns by header name: `node`,
//! `guid`, and `port` (catalog port name) or `rdma` (+ optional `hca_port`, default 1); any
//! other column is kept for people and ignored here.

use super::{CapturedPort, PortRef};
use crate::capture::error;
use crate::diag::{Diagnostics, SourceFile, Span, codes};
use crate::model::Guid;
use crate::output::csv::{Column, Writer, uncell};

const HELP: &str =
    "a header line naming `node`, `guid` and `port` (or `rdma`), then one row per port";

/// One row of the written CSV.
pub struct Row<'a> {
    pub node: &'a str,
    pub port: &'a str,
    pub rdma: &'a str,
    pub guid: String,
    pub leaf: &'a str,
    pub leaf_port: &'a str,
    pub cable_id: &'a str,
}

/// The written columns, in [`Row`]'s order.
const COLUMNS: [Column; 7] = [
    Column::text("node"),
    Column::text("port"),
    Column::text("rdma"),
    Column::text("guid"),
    Column::text("leaf"),
    Column::text("leaf_port"),
    Column::text("cable_id"),
];

/// The CSV text of `rows` (already in node, port order), through railyard's one CSV writer: a
/// name from a capture that begins like a spreadsheet formula is a neutralised cell.
pub fn write(rows: &[Row<'_>]) -> Result<Vec<u8>, String> {
    let mut w = Writer::new(&COLUMNS);
    for r in rows {
        w.row([
            r.node,
            r.port,
            r.rdma,
            &r.guid,
            r.leaf,
            r.leaf_port,
            r.cable_id,
        ]);
    }
    w.finish().map_err(|e| e.to_string())
}

/// The rows of a GUID CSV as captured ports (for `ib import`).
pub fn parse(file: usize, src: &SourceFile, diags: &mut Diagnostics) -> Vec<CapturedPort> {
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(src.text.as_bytes());
    let head_span = Span::new(0, src.text.lines().next().map_or(1, str::len));
    let Some(cols) = columns(&mut r, head_span, diags) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = match rec {
            Ok(rec) => rec,
            Err(e) => {
                let at = e.position().map_or(0, |p| p.byte() as usize);
                diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    Span::new(at, 1),
                    format!("unreadable CSV row: {e}"),
                    "row",
                    HELP,
                ));
                continue;
            }
        };
        if let Some(c) = row(file, src, &rec, &cols, diags) {
            out.push(c);
        }
    }
    if out.is_empty() && !diags.has_errors() {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            head_span,
            "no rows",
            "empty",
            HELP,
        ));
    }
    out
}

/// The positions of the columns read, by header name.
struct Columns {
    node: usize,
    guid: usize,
    port: Option<usize>,
    rdma: Option<usize>,
    hca_port: Option<usize>,
}

/// The header: `node`, `guid`, and `port` or `rdma` are needed.
fn columns(
    r: &mut csv::Reader<&[u8]>,
    head_span: Span,
    diags: &mut Diagnostics,
) -> Option<Columns> {
    let Ok(head) = r.headers().cloned() else {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            head_span,
            "unreadable CSV header",
            "header",
            HELP,
        ));
        return None;
    };
    let col = |n: &str| head.iter().position(|h| h.eq_ignore_ascii_case(n));
    let (Some(node), Some(guid)) = (col("node"), col("guid")) else {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            head_span,
            "the header names no `node` and `guid` columns",
            "header",
            HELP,
        ));
        return None;
    };
    let (port, rdma, hca_port) = (col("port"), col("rdma"), col("hca_port"));
    if port.is_none() && rdma.is_none() {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            head_span,
            "the header names neither `port` nor `rdma`",
            "header",
            HELP,
        ));
        return None;
    }
    Some(Columns {
        node,
        guid,
        port,
        rdma,
        hca_port,
    })
}

/// One row as a captured port; `None` (diagnostic pushed) when it lacks something.
fn row(
    file: usize,
    src: &SourceFile,
    rec: &csv::StringRecord,
    cols: &Columns,
    diags: &mut Diagnostics,
) -> Option<CapturedPort> {
    let at = rec.position().map_or(0, |p| p.byte() as usize);
    let len = src
        .text
        .get(at..)
        .and_then(|t| t.lines().next())
        .map_or(1, str::len);
    let span = Span::new(at, len);
    // A cell railyard wrote neutralised (`'=…`) reads back as its text.
    let field = |i: Option<usize>| {
        i.and_then(|i| rec.get(i))
            .map(uncell)
            .filter(|v| !v.is_empty())
    };
    let (Some(n), Some(g)) = (field(Some(cols.node)), field(Some(cols.guid))) else {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            span,
            "row without node or guid: the file looks truncated",
            "row",
            HELP,
        ));
        return None;
    };
    let Some(g) = Guid::parse(&g) else {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            span,
            format!("`{g}` is not a port GUID"),
            "guid",
            HELP,
        ));
        return None;
    };
    let which = port_ref(
        field(cols.port).as_deref(),
        field(cols.rdma).as_deref(),
        field(cols.hca_port).as_deref(),
        span,
        diags,
    )?;
    Some(CapturedPort {
        file,
        span,
        host: n.to_string(),
        port: which,
        guid: g,
        peer: None,
    })
}

/// The row's port: a catalog port name, else an HCA and its port (1 when not given).
fn port_ref(
    port: Option<&str>,
    rdma: Option<&str>,
    hca_port: Option<&str>,
    span: Span,
    diags: &mut Diagnostics,
) -> Option<PortRef> {
    match (port, rdma) {
        (Some(p), _) => Some(PortRef::Named(p.to_string())),
        (None, Some(d)) => {
            let n: u8 = match hca_port.map(str::parse) {
                None => 1,
                Some(Ok(n)) => n,
                Some(Err(_)) => {
                    diags.push(error(
                        codes::CAPTURE_SYNTAX,
                        span,
                        "`hca_port` is not 1-255",
                        "hca_port",
                        HELP,
                    ));
                    return None;
                }
            };
            Some(PortRef::Hca {
                rdma: d.to_string(),
                port: n,
            })
        }
        (None, None) => {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                span,
                "row names neither port nor rdma",
                "row",
                HELP,
            ));
            None
        }
    }
}
