//! The plain-text rendering of a [`Report`], for people at the rack.
//!
//! Names come from LLDP (system names, port ids and descriptions as devices send them) and from
//! the spec: every one is shown through the terminal escape (`output::terminal`), inline, so a
//! control character can neither drive the terminal nor start a line of its own.

use std::fmt::Write as _;

use super::scope::Status;
use super::verify::{CableRef, Class, Report, Unseen};
use crate::output::terminal::escape_inline as esc;

/// How many not-verified cables and unplanned captures the text names (JSON lists them all).
const NAMED: usize = 5;

impl Report {
    /// One block per finding, what was not verified, then a summary and a result line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "cabling verify: {}", esc(&self.fabric));
        if self.scope.is_narrowed() {
            let _ = writeln!(
                out,
                "  scope: {} ({} of {} planned cables)",
                esc(&self.scope.describe()),
                self.summary.in_scope,
                self.summary.planned_cables
            );
        }
        for c in &self.captures {
            let _ = writeln!(
                out,
                "  captured {} from {} ({}, {} neighbour entries){}",
                esc(&c.device),
                esc(&c.source),
                c.format.as_str(),
                c.neighbours,
                if c.planned {
                    ""
                } else {
                    " — not a device of the plan: not compared"
                }
            );
        }
        self.findings_text(&mut out);
        self.not_verified_text(&mut out);
        self.summary_text(&mut out);
        out
    }

    fn findings_text(&self, out: &mut String) {
        for f in &self.findings {
            out.push('\n');
            let head = match f.kind {
                Some(k) => format!("{} {}", f.class.as_str().to_uppercase(), k.as_str()),
                None => f.class.as_str().to_uppercase(),
            };
            let _ = writeln!(out, "{head}: {}", esc(&f.message));
            for c in &f.cables {
                let _ = writeln!(
                    out,
                    "  cable {}  label {}  planned {} — {}",
                    esc(&c.cable_id),
                    esc(&c.label),
                    esc(&c.a.to_string()),
                    esc(&c.b.to_string())
                );
            }
            for o in &f.observed {
                let _ = writeln!(
                    out,
                    "  seen  {} — {}  (reported by {})",
                    esc(&o.a.to_string()),
                    esc(&o.b.to_string()),
                    esc(&o.seen_by.join(", "))
                );
            }
            let _ = writeln!(out, "  fix   {}", esc(&f.fix));
        }
    }

    /// The planned cables in scope LLDP did not see, the first few by name. Not a fix list: the
    /// lines name no label, and say `not seen`, not `cable`.
    fn not_verified_text(&self, out: &mut String) {
        let n = self.not_verified.len();
        if n == 0 {
            return;
        }
        let _ = writeln!(
            out,
            "\nNOT VERIFIED: {n} planned cable(s) in scope that LLDP did not see"
        );
        for u in self.not_verified.iter().take(NAMED) {
            let _ = writeln!(
                out,
                "  not seen  {}  {} — {}  ({})",
                esc(&u.cable.cable_id),
                esc(&u.cable.a.to_string()),
                esc(&u.cable.b.to_string()),
                why(&u.cable, u.reason, &self.captured())
            );
        }
        if n > NAMED {
            let _ = writeln!(
                out,
                "  … and {} more (`--format json` lists every one)",
                n - NAMED
            );
        }
        let _ = writeln!(
            out,
            "  capture the devices at their ends, or narrow what must be seen (`--devices`, \
             `--tier`)"
        );
    }

    fn summary_text(&self, out: &mut String) {
        let s = &self.summary;
        let _ = writeln!(
            out,
            "\nsummary: {} planned cables, {} in scope: {} correct, {} miswired ({} cables), {} \
             missing, {} unexpected, {} not verified; {} neighbour entries compared",
            s.planned_cables,
            s.in_scope,
            s.correct,
            s.miswired,
            s.miswired_cables,
            s.missing,
            s.unexpected,
            s.not_verified,
            s.neighbour_entries
        );
        let _ = match self.status {
            Status::Pass => writeln!(
                out,
                "result: PASS — all {} planned cables in scope seen as planned",
                s.in_scope
            ),
            Status::Fail => writeln!(out, "result: FAIL — {}", self.fail_text()),
            Status::Incomplete => writeln!(
                out,
                "result: INCOMPLETE — no deviation seen, but not verified: {}",
                self.gaps_text()
            ),
        };
    }

    fn fail_text(&self) -> String {
        let unexpected = self
            .findings
            .iter()
            .filter(|f| f.class == Class::Unexpected)
            .count();
        let cables = self.cables_to_fix();
        let mut text = format!("{} planned cable(s) to fix", cables.len());
        if !cables.is_empty() {
            let _ = write!(text, ": {}", esc(&cables.join(", ")));
        }
        if unexpected > 0 {
            let _ = write!(text, "; {unexpected} unplanned link(s)");
        }
        if !self.gaps.is_empty() {
            let _ = write!(text, "; also not verified: {}", self.gaps_text());
        }
        text
    }

    /// The gaps, each with its count and the first few names.
    fn gaps_text(&self) -> String {
        let s = &self.summary;
        let mut parts = Vec::new();
        if s.not_verified > 0 {
            parts.push(format!(
                "{} of {} planned cables in scope not seen",
                s.not_verified, s.in_scope
            ));
        }
        let unplanned: Vec<String> = self
            .captures
            .iter()
            .filter(|c| !c.planned)
            .map(|c| format!("`{}` ({})", esc(&c.device), esc(&c.source)))
            .collect();
        if !unplanned.is_empty() {
            let more = if unplanned.len() > NAMED { ", …" } else { "" };
            parts.push(format!(
                "{} capture(s) from devices the plan does not have: {}{more}",
                unplanned.len(),
                unplanned[..unplanned.len().min(NAMED)].join(", ")
            ));
        }
        if s.neighbour_entries == 0 {
            parts.push("no neighbour entry in any capture of a planned device".into());
        }
        if s.in_scope == 0 {
            parts.push("the scope holds no planned cable".into());
        }
        parts.join("; ")
    }

    fn captured(&self) -> Vec<&str> {
        self.captures
            .iter()
            .filter(|c| c.planned)
            .map(|c| c.device.as_str())
            .collect()
    }
}

/// Why a planned cable was not seen, naming the device to look at.
fn why(c: &CableRef, reason: Unseen, captured: &[&str]) -> String {
    match reason {
        Unseen::NotCaptured => "neither end captured".into(),
        Unseen::PeerSilent => {
            let far = if captured.contains(&c.a.device.as_str()) {
                &c.b.device
            } else {
                &c.a.device
            };
            format!("no LLDP from {} seen", esc(far))
        }
    }
}
