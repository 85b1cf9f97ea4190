//! The change set as one HTML page (`railyard diff --html FILE`): the summary, then the sections
//! of `text.rs` as tables, no script; the cable steps grouped by phase and rack, each with a box
//! to tick off on the printed page. Every value has its control characters shown escaped first
//! (`output::terminal`: a bidi override would reorder what the reader sees, an ESC would act on
//! a terminal that prints the file), then goes through `output::markup`'s one escape.

use super::text::{headline, sections};
use super::{ChangeSet, order};
use crate::output::{markup, terminal};

const STYLE: &str = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;\
margin-bottom:2em}td{padding:2px 8px;font-family:monospace;white-space:pre-wrap}\
.add{background:#e6ffec}.remove{background:#ffebe9}.disruptive{background:#ffd8b5;\
font-weight:bold}.done{font-size:1.4em}@media print{.add,.remove,.disruptive{\
-webkit-print-color-adjust:exact;print-color-adjust:exact}}";

/// `text` escaped for the page.
fn escape(text: &str, out: &mut String) {
    markup::escape(&terminal::escape_inline(text), out);
}

/// The page's HTML; `warnings` about the comparison itself, each a paragraph under the headline.
pub fn render(cs: &ChangeSet, warnings: &[String]) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<title>railyard diff</title><style>");
    out.push_str(STYLE);
    out.push_str("</style></head><body>\n<h1>");
    escape(&headline(cs), &mut out);
    out.push_str("</h1>\n");
    // What the reader must know about the comparison itself (sides made by different railyards).
    for w in warnings {
        out.push_str("<p class=\"warning\"><strong>Warning:</strong> ");
        escape(w, &mut out);
        out.push_str("</p>\n");
    }
    for s in std::iter::once(order::summary(cs)).chain(sections(cs)) {
        out.push_str("<h2>");
        escape(&s.title, &mut out);
        out.push_str("</h2>\n<table>\n");
        let mut group = "";
        for r in &s.rows {
            if r.group != group {
                group = &r.group;
                out.push_str("</table>\n<h3>");
                escape(group, &mut out);
                out.push_str("</h3>\n<table>\n");
            }
            out.push_str("<tr class=\"");
            out.push_str(r.mark.class());
            out.push_str("\">");
            if s.checkoff {
                // A box to tick on the printed page, step by step.
                out.push_str("<td class=\"done\">\u{2610}</td>");
            }
            for c in &r.cells {
                out.push_str("<td>");
                escape(c, &mut out);
                out.push_str("</td>");
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
    }
    out.push_str("</body></html>\n");
    out
}
