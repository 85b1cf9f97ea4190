//! Diagnostics as plain data: what is wrong, where, and how to fix it.
//!
//! Stages push into a [`Diagnostics`] accumulator and keep going, so a user sees every problem of a
//! stage at once. Rendering (miette, colours, JSON) happens only at the CLI edge.

pub mod codes;
pub mod fingerprint;
mod source;

pub use codes::{ALL_CODES, Code};
pub use source::{SourceFile, Span};

use serde::Serialize;

/// How bad a finding is. Errors stop the pipeline at the end of the stage; warnings do not, but
/// `--strict` fails on them; `info` is advisory (spare ports, a template to fill once the
/// cluster is installed): shown, never failing unless `--deny` names its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// What the command line's warning levels (`--deny`, `--allow`, `--strict`, `--baseline`) make
/// of one finding that is not an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// As it is.
    Keep,
    /// An error: the design fails.
    Fail,
    /// Accepted: set aside, counted, not listed (as `diagnostics.allow` does).
    Accept,
}

/// One finding, tied to a place in the spec when there is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// Where in the spec the problem is; `None` for whole-file findings.
    pub span: Option<Span>,
    /// Short text shown at the span.
    pub label: Option<String>,
    /// One line saying how to fix it.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            severity: Severity::Error,
            message: message.into(),
            span: None,
            label: None,
            help: None,
        }
    }

    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(code, message)
        }
    }

    /// An advisory finding (`Severity::Info`).
    pub fn info(code: Code, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Info,
            ..Self::error(code, message)
        }
    }

    #[must_use]
    pub fn at(mut self, span: Option<Span>, label: impl Into<String>) -> Self {
        self.span = span;
        self.label = Some(label.into());
        self
    }

    #[must_use]
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// The accumulator every stage writes into.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
    /// Warnings the spec accepts (`diagnostics.allow`): kept aside, counted, never shown.
    #[serde(skip)]
    allowed: Vec<Diagnostic>,
    #[serde(skip)]
    allow: Vec<Code>,
    /// Findings the command line accepts (`--allow`, `--baseline`): kept aside, counted.
    #[serde(skip)]
    accepted: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        if diagnostic.severity != Severity::Error && self.allow.contains(&diagnostic.code) {
            self.allowed.push(diagnostic);
        } else {
            self.items.push(diagnostic);
        }
    }

    /// Accept warnings of these codes from now on, and those already found: the spec's
    /// `diagnostics.allow`. An error is never accepted.
    pub fn allow(&mut self, codes: &[Code]) {
        self.allow = codes.to_vec();
        let items = std::mem::take(&mut self.items);
        items.into_iter().for_each(|d| self.push(d));
    }

    /// The codes the spec accepts (`diagnostics.allow`), as `railyard explain` spells them.
    pub fn allowed_codes(&self) -> &[Code] {
        &self.allow
    }

    /// How many warnings the spec accepted (`diagnostics.allow`), hidden from every listing.
    pub fn allowed_count(&self) -> usize {
        self.allowed.len()
    }

    /// How many findings the command line accepted (`--allow`, `--baseline`).
    pub fn accepted_count(&self) -> usize {
        self.accepted.len()
    }

    /// Apply the command line's levels to every finding that is not an error (an error stays
    /// one); returns how many became errors.
    pub fn relevel(&mut self, mut level: impl FnMut(&Diagnostic) -> Level) -> usize {
        let mut failed = 0;
        let items = std::mem::take(&mut self.items);
        for mut d in items {
            match (d.severity, level(&d)) {
                (Severity::Error, _) | (_, Level::Keep) => self.items.push(d),
                (_, Level::Fail) => {
                    d.severity = Severity::Error;
                    failed += 1;
                    self.items.push(d);
                }
                (_, Level::Accept) => self.accepted.push(d),
            }
        }
        failed
    }

    /// Keeps only the diagnostics `keep` accepts (a pass run again replaces its own findings).
    pub fn retain(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.items.retain(keep);
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn warning_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }

    pub fn info_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Info)
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Errors first, then warnings, then info, each in source order (then by code), so output does not
    /// depend on check order and what must be fixed is read first.
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<&Diagnostic> = self.items.iter().collect();
        v.sort_by_key(|d| {
            (
                d.severity,
                d.span.map_or(u32::MAX, |s| s.start),
                d.code.id,
                d.message.clone(),
            )
        });
        v.dedup_by(|a, b| a == b);
        v
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, iter: I) {
        iter.into_iter().for_each(|d| self.push(d));
    }
}
