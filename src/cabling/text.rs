//! The plain-text rendering of a [`Report`], for people at the rack.

use std::fmt::Write as _;

use super::verify::{Class, Report};

impl Report {
    /// One block per finding, then a summary and a result line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "cabling verify: {}", self.fabric);
        for c in &self.captures {
            let _ = writeln!(
                out,
                "  captured {} from {} ({}, {} neighbour entries){}",
                c.device,
                c.source,
                c.format.as_str(),
                c.neighbours,
                if c.planned {
                    ""
                } else {
                    " — not a device of the plan"
                }
            );
        }
        for f in &self.findings {
            out.push('\n');
            let head = match f.kind {
                Some(k) => format!("{} {}", f.class.as_str().to_uppercase(), k.as_str()),
                None => f.class.as_str().to_uppercase(),
            };
            let _ = writeln!(out, "{head}: {}", f.message);
            for c in &f.cables {
                let _ = writeln!(
                    out,
                    "  cable {}  label {}  planned {} — {}",
                    c.cable_id, c.label, c.a, c.b
                );
            }
            for o in &f.observed {
                let _ = writeln!(
                    out,
                    "  seen  {} — {}  (reported by {})",
                    o.a,
                    o.b,
                    o.seen_by.join(", ")
                );
            }
            let _ = writeln!(out, "  fix   {}", f.fix);
        }
        let s = &self.summary;
        let _ = writeln!(
            out,
            "\nsummary: {} planned cables: {} correct, {} miswired ({} cables), {} missing, {} \
             unexpected, {} not verifiable by LLDP; {} neighbour entries read",
            s.planned_cables,
            s.correct,
            s.miswired,
            s.miswired_cables,
            s.missing,
            s.unexpected,
            s.not_verifiable,
            s.neighbour_entries
        );
        if self.is_clean() {
            let _ = writeln!(out, "result: PASS — every observed link matches the plan");
        } else {
            let unexpected = self
                .findings
                .iter()
                .filter(|f| f.class == Class::Unexpected)
                .count();
            let cables = self.cables_to_fix();
            let _ = write!(
                out,
                "result: FAIL — {} planned cable(s) to fix",
                cables.len()
            );
            if !cables.is_empty() {
                let _ = write!(out, ": {}", cables.join(", "));
            }
            if unexpected > 0 {
                let _ = write!(out, "; {unexpected} unplanned link(s)");
            }
            out.push('\n');
        }
        out
    }
}
