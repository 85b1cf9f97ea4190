//! `--format github`: one workflow command per diagnostic, which a GitHub Actions runner turns
//! into an annotation on the file and line ("Workflow commands for GitHub Actions", `error`,
//! `warning`, `notice` (railyard's `info`): `::error file={name},line={line},col={col},title={title}::{message}`).
//! Values through `output::workflow`, the one escape of this sink.

use railyard::diag::Severity;
use railyard::output::workflow::{data, property};

use super::Finding;

/// Every finding as a workflow command, then the command's own error (no file) if it stopped.
pub fn render(findings: &[Finding], error: Option<&str>) -> String {
    let mut out = String::new();
    for f in findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = vec![format!("file={}", property(&f.file))];
        if let (Some(line), Some(col)) = (f.line, f.column) {
            props.push(format!("line={line}"));
            props.push(format!("col={col}"));
        }
        props.push(format!(
            "title={}",
            property(&format!("{} {}", f.code, f.title))
        ));
        let mut message = f.message.clone();
        if let Some(help) = &f.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        out.push_str(&format!(
            "::{command} {}::{}\n",
            props.join(","),
            data(&message)
        ));
    }
    if let Some(e) = error {
        out.push_str(&format!("::error title=railyard::{}\n", data(e)));
    }
    out
}
