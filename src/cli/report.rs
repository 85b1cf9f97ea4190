//! Rendering diagnostics for people (miette) and short lines; the machine forms (JSON, GitHub
//! workflow commands, SARIF) are one document per command (`super::machine`), which `print`
//! hands them to.
//!
//! Messages, labels and help quote spec strings, and the spec itself is outside data: the human
//! and short forms show all of it through the terminal escape (`output::terminal`). miette writes
//! the source lines of its snippets as they are (only tabs are expanded; an ESC even counts as
//! the start of a colour sequence), so it is handed an escaped copy of the source and spans
//! moved to match. JSON is written with every such character as a `\u` escape (`terminal::json`).

use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

use super::Format;
use railyard::diag::{Diagnostic, Diagnostics, Severity, SourceFile};
use railyard::output::terminal::{self, Mapped, escape_inline as esc};

/// Print the diagnostics on standard error. While a machine document is open (`--format json`,
/// `github`, `sarif`) they all go into it instead, whatever `format` says: the document on
/// standard output is the one answer a machine reads. `--quiet` leaves out the warnings (of
/// the terminal's forms; the document holds every finding).
pub fn print(src: &SourceFile, diags: &Diagnostics, format: Format) {
    if super::machine::active() {
        let accepted = diags.allowed_count() + diags.accepted_count();
        super::machine::collect(src, &diags.sorted(), accepted);
        return;
    }
    let shown;
    let diags = if super::globals::get().quiet {
        shown = errors_only(diags);
        &shown
    } else {
        diags
    };
    let text = render(src, diags, format);
    if text.is_empty() {
        return;
    }
    eprint!("{text}");
}

fn errors_only(diags: &Diagnostics) -> Diagnostics {
    let mut errors = Diagnostics::default();
    errors.extend(
        diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned(),
    );
    errors
}

/// Render all diagnostics, in source order (a machine form without an open document, which no
/// command does, as short lines).
fn render(src: &SourceFile, diags: &Diagnostics, format: Format) -> String {
    let sorted = diags.sorted();
    match format {
        Format::Short | Format::Json | Format::Github | Format::Sarif => {
            sorted.iter().map(|d| short(src, d)).collect()
        }
        Format::Human => {
            let handler = GraphicalReportHandler::new_themed(theme()).with_width(100);
            let source = Source::of(src);
            let mut out = String::new();
            for d in sorted {
                let _ = handler.render_report(&mut out, &to_miette(&source, d));
                out.push('\n');
            }
            out
        }
    }
}

fn theme() -> GraphicalTheme {
    if super::globals::colour_on_stderr() {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    }
}

fn severity(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn short(src: &SourceFile, d: &Diagnostic) -> String {
    let place = match d.span {
        Some(s) => {
            let (l, c) = src.line_col(s.start);
            format!("{}:{l}:{c}", esc(&src.name))
        }
        None => esc(&src.name).into_owned(),
    };
    let mut s = format!(
        "{place}: {}[{}]: {}\n",
        severity(d),
        d.code.id,
        esc(&d.message)
    );
    if let Some(h) = &d.help {
        s.push_str(&format!("  help: {}\n", esc(h)));
    }
    s
}

struct Report {
    diag: MietteDiagnostic,
    source: NamedSource<Arc<str>>,
}

/// The spec as miette shows it: escaped once for all diagnostics, with the offsets' way there.
struct Source {
    name: String,
    mapped: Mapped,
    text: Arc<str>,
}

impl Source {
    fn of(src: &SourceFile) -> Self {
        let mapped = terminal::escape_mapped(&src.text);
        Source {
            name: esc(&src.name).into_owned(),
            text: Arc::from(mapped.text.as_str()),
            mapped,
        }
    }
}

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diag.fmt(f)
    }
}
impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.diag, f)
    }
}
impl std::error::Error for Report {}
impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diag.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.diag.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diag.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.diag.labels()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
}

fn to_miette(src: &Source, d: &Diagnostic) -> Report {
    let mut m = MietteDiagnostic::new(esc(&d.message))
        .with_code(d.code.id)
        .with_severity(match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        });
    if let Some(h) = &d.help {
        m = m.with_help(esc(h));
    }
    if let Some(s) = d.span {
        let start = s.start as usize;
        let (from, to) = (
            src.mapped.offset(start),
            src.mapped.offset(start + s.len.max(1) as usize),
        );
        m = m.with_label(LabeledSpan::new_primary_with_span(
            d.label.as_deref().map(|l| esc(l).into_owned()),
            (from, to - from),
        ));
    }
    Report {
        diag: m,
        source: NamedSource::new(src.name.clone(), Arc::clone(&src.text)),
    }
}
