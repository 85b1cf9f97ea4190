//! The port-GUID CSV: what `railyard ib import` writes and `railyard build --port-guids` reads,
//! and what a UFM or inventory export can be massaged into. Columns by header name: `node`,
//! `guid`, and `port` (catalog port name) or `rdma` (+ optional `hca_port`, default 1); any
//! other column is kept for people and ignored here.

use serde::Serialize;

use super::{CapturedPort, PortRef};
use crate::capture::error;
use crate::diag::{Diagnostics, SourceFile, Span, codes};
use crate::model::Guid;

const HELP: &str =
    "a header line naming `node`, `guid` and `port` (or `rdma`), then one row per port";

/// One row of the written CSV.
#[derive(Serialize)]
pub struct Row<'a> {
    pub node: &'a str,
    pub port: &'a str,
    pub rdma: &'a str,
    pub guid: String,
    pub leaf: &'a str,
    pub leaf_port: &'a str,
    pub cable_id: &'a str,
}

/// The CSV text of `rows` (already in node, port order).
pub fn write(rows: &[Row<'_>]) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// The rows of a GUID CSV as captured ports (for `ib import`).
pub fn parse(file: usize, src: &SourceFile, diags: &mut Diagnostics) -> Vec<CapturedPort> {
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(src.text.as_bytes());
    let head_span = Span::new(0, src.text.lines().next().map_or(1, str::len));
    let Ok(head) = r.headers().cloned() else {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            head_span,
            "unreadable CSV header",
            "header",
            HELP,
        ));
        return Vec::new();
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
        return Vec::new();
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
        return Vec::new();
    }
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
        let at = rec.position().map_or(0, |p| p.byte() as usize);
        let len = src
            .text
            .get(at..)
            .and_then(|t| t.lines().next())
            .map_or(1, str::len);
        let span = Span::new(at, len);
        let field = |i: Option<usize>| i.and_then(|i| rec.get(i)).filter(|v| !v.is_empty());
        let (Some(n), Some(g)) = (field(Some(node)), field(Some(guid))) else {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                span,
                "row without node or guid: the file looks truncated",
                "row",
                HELP,
            ));
            continue;
        };
        let Some(g) = Guid::parse(g) else {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                span,
                format!("`{g}` is not a port GUID"),
                "guid",
                HELP,
            ));
            continue;
        };
        let which = match (field(port), field(rdma)) {
            (Some(p), _) => PortRef::Named(p.to_string()),
            (None, Some(d)) => {
                let n: u8 = match field(hca_port).map(str::parse) {
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
                        continue;
                    }
                };
                PortRef::Hca {
                    rdma: d.to_string(),
                    port: n,
                }
            }
            (None, None) => {
                diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    span,
                    "row names neither port nor rdma",
                    "row",
                    HELP,
                ));
                continue;
            }
        };
        out.push(CapturedPort {
            file,
            span,
            host: n.to_string(),
            port: which,
            guid: g,
            peer: None,
        });
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
