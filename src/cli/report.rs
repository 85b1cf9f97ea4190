//! Rendering diagnostics for people (miette) and machines (short lines, JSON).

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

use super::Format;
use railyard::diag::{Diagnostic, Diagnostics, Severity, SourceFile};

pub fn print(src: &SourceFile, diags: &Diagnostics, format: Format) {
    let text = render(src, diags, format);
    if !text.is_empty() {
        eprint!("{text}");
    }
}

/// Render all diagnostics, in source order.
pub fn render(src: &SourceFile, diags: &Diagnostics, format: Format) -> String {
    let sorted = diags.sorted();
    match format {
        Format::Short => sorted.iter().map(|d| short(src, d)).collect(),
        Format::Json => {
            let v: Vec<serde_json::Value> = sorted.iter().map(|d| json(src, d)).collect();
            let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Human => {
            let handler = GraphicalReportHandler::new_themed(theme()).with_width(100);
            let mut out = String::new();
            for d in sorted {
                let _ = handler.render_report(&mut out, &to_miette(src, d));
                out.push('\n');
            }
            out
        }
    }
}

fn theme() -> GraphicalTheme {
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    if colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    }
}

fn severity(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn short(src: &SourceFile, d: &Diagnostic) -> String {
    let place = match d.span {
        Some(s) => {
            let (l, c) = src.line_col(s.start);
            format!("{}:{l}:{c}", src.name)
        }
        None => src.name.clone(),
    };
    let mut s = format!("{place}: {}[{}]: {}\n", severity(d), d.code.id, d.message);
    if let Some(h) = &d.help {
        s.push_str(&format!("  help: {h}\n"));
    }
    s
}

fn json(src: &SourceFile, d: &Diagnostic) -> serde_json::Value {
    let (line, column) = d.span.map(|s| src.line_col(s.start)).unwrap_or((0, 0));
    serde_json::json!({
        "code": d.code.id, "severity": severity(d), "message": d.message, "help": d.help,
        "file": src.name, "line": line, "column": column, "label": d.label,
    })
}

struct Report {
    diag: MietteDiagnostic,
    source: NamedSource<String>,
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

fn to_miette(src: &SourceFile, d: &Diagnostic) -> Report {
    let mut m = MietteDiagnostic::new(d.message.clone())
        .with_code(d.code.id)
        .with_severity(match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        });
    if let Some(h) = &d.help {
        m = m.with_help(h.clone());
    }
    if let Some(s) = d.span {
        m = m.with_label(LabeledSpan::new_primary_with_span(
            d.label.clone(),
            (s.start as usize, s.len.max(1) as usize),
        ));
    }
    Report {
        diag: m,
        source: NamedSource::new(src.name.clone(), src.text.clone()),
    }
}
