//! The machine document: with `--format json`, `github` or `sarif`, a command prints exactly one
//! document on standard output when it ends (docs/ci.md), whatever happened: its diagnostics
//! (every one, from every file it read, with a stable fingerprint), its exit code, and with
//! `json` the command's own result. Progress and "wrote N files" stay on standard error.
//!
//! A command opens the document (`begin`) when it starts; `report::print` then hands every
//! diagnostic here instead of printing it; the command adds its result (`result`); `finish`,
//! called once by `cli::run` with the command's outcome, prints it.
//!
//! `json`: `{"format": "railyard/<command>/v1", "railyard": VERSION, "command", "exit_code",
//! "counts", "diagnostics": [...], "error"?, ...the result's fields}`. `v1` changes only by
//! adding fields; a field removed or changed in meaning is `v2`.

mod github;
mod sarif;

use std::process::ExitCode;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{Map, Value};

use super::Format;
use railyard::diag::fingerprint::fingerprint;
use railyard::diag::{Diagnostic, Severity, SourceFile};
use railyard::output::terminal;
use railyard::spec::locate::KeyPaths;

/// Which machine form the document takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Json,
    Github,
    Sarif,
}

impl Form {
    /// The machine form of a diagnostics format; `None` for the human ones.
    pub fn of(format: Format) -> Option<Form> {
        match format {
            Format::Json => Some(Form::Json),
            Format::Github => Some(Form::Github),
            Format::Sarif => Some(Form::Sarif),
            Format::Human | Format::Short => None,
        }
    }
}

/// One diagnostic as the document names it.
#[derive(Clone, Serialize)]
pub struct Finding {
    pub code: &'static str,
    /// The code's title (`railyard explain CODE`).
    pub title: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    /// The short text at the place.
    pub label: Option<String>,
    /// The file as the command line named it.
    pub file: String,
    /// 1-based line and column (in characters); `null` for a finding about the whole file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The spec's key path at the place (`fabrics.compute.leaf.model`), when the file is a spec.
    pub key: Option<String>,
    /// Stable across growth and edits elsewhere (`diag::fingerprint`): what a baseline records.
    pub fingerprint: String,
}

/// How many findings of each severity the document holds, and how many were accepted (by the
/// spec's `diagnostics.allow`, `--allow` or `--baseline`: counted, not listed).
#[derive(Default, Serialize)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub info: usize,
    pub accepted: usize,
}

#[derive(Serialize)]
struct Document<'a> {
    format: String,
    railyard: &'static str,
    command: &'a str,
    exit_code: u8,
    counts: Counts,
    diagnostics: &'a [Finding],
    /// Why the command stopped without an answer (an unreadable file, a usage error).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(flatten)]
    result: Map<String, Value>,
}

struct Assembly {
    command: &'static str,
    form: Form,
    findings: Vec<Finding>,
    accepted: usize,
    result: Map<String, Value>,
}

static DOCUMENT: Mutex<Option<Assembly>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut Option<Assembly>) -> T) -> T {
    let mut guard = DOCUMENT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(&mut guard)
}

/// Open the document of `command` (`validate`, `build`, `diff`, …) when `form` is a machine form.
pub fn begin(command: &'static str, form: Option<Form>) {
    if let Some(form) = form {
        with(|d| {
            *d = Some(Assembly {
                command,
                form,
                findings: Vec::new(),
                accepted: 0,
                result: Map::new(),
            });
        });
    }
}

/// Whether a document is open: diagnostics go into it, not to the terminal.
pub fn active() -> bool {
    with(|d| d.is_some())
}

/// Add `diagnostics` of `src` (already in the order they are listed), and the number of others
/// accepted.
pub fn collect(src: &SourceFile, diagnostics: &[&Diagnostic], accepted: usize) {
    with(|d| {
        if let Some(a) = d {
            a.accepted += accepted;
        }
    });
    if diagnostics.is_empty() || !active() {
        return;
    }
    let paths = diagnostics
        .iter()
        .any(|d| d.span.is_some())
        .then(|| KeyPaths::of(&src.text))
        .flatten();
    let findings: Vec<Finding> = diagnostics
        .iter()
        .map(|d| finding(src, paths.as_ref(), d))
        .collect();
    with(|d| {
        if let Some(a) = d {
            a.findings.extend(findings);
        }
    });
}

/// A finding's key path (in a spec) and fingerprint (`diag::fingerprint`): what the document
/// prints and what a baseline records.
pub fn identify(
    src: &SourceFile,
    paths: Option<&KeyPaths>,
    d: &Diagnostic,
) -> (Option<String>, String) {
    let key = match (d.span, paths) {
        (Some(s), Some(p)) => Some(p.at(s.start)).filter(|k| !k.is_empty()),
        _ => None,
    };
    // Not a spec (a CSV): the line's own text names the place.
    let at = match (&key, d.span) {
        (Some(k), _) => k.clone(),
        (None, Some(s)) => {
            let line = src.line_col(s.start).0;
            src.text
                .lines()
                .nth(line - 1)
                .unwrap_or("")
                .trim()
                .to_string()
        }
        (None, None) => String::new(),
    };
    let print = fingerprint(d.code.id, &src.name, &at, &d.message);
    (key, print)
}

fn finding(src: &SourceFile, paths: Option<&KeyPaths>, d: &Diagnostic) -> Finding {
    let place = d.span.map(|s| src.line_col(s.start));
    let (key, fingerprint) = identify(src, paths, d);
    Finding {
        code: d.code.id,
        title: d.code.title,
        severity: d.severity,
        fingerprint,
        message: d.message.clone(),
        help: d.help.clone(),
        label: d.label.clone(),
        file: src.name.clone(),
        line: place.map(|p| p.0),
        column: place.map(|p| p.1),
        key,
    }
}

/// A problem that is not a diagnostic of a file the command read but decides its outcome (`diff`
/// cannot compare a side): `file` is the path it is about.
pub fn problem(d: Diagnostic, file: &str) {
    collect(&SourceFile::new(file, ""), &[&d], 0);
}

/// Set the command's result: its fields join the document's (`json` only).
pub fn result<T: Serialize>(value: &T) {
    let fields = match serde_json::to_value(value) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    with(|d| {
        if let Some(a) = d {
            a.result.extend(fields);
        }
    });
}

/// The command ended: print its document (when one is open) for `outcome`, the exit code the
/// process is about to return, or the error it stopped with (exit 2).
pub fn finish(outcome: &anyhow::Result<ExitCode>) {
    let Some(a) = with(Option::take) else {
        return;
    };
    let (exit_code, error) = match outcome {
        Ok(code) => (number(*code), None),
        Err(e) => (2, Some(format!("{e:#}"))),
    };
    // JSON strings with every terminal-moving character as a `\u` escape; workflow commands
    // escape their own (`output::workflow`).
    let text = match a.form {
        Form::Json => terminal::json(&json(&a, exit_code, error)).into_owned(),
        Form::Github => github::render(&a.findings, error.as_deref()),
        Form::Sarif => {
            terminal::json(&sarif::render(&a.findings, exit_code, error.as_deref())).into_owned()
        }
    };
    super::stdout::out!("{text}");
}

/// The number of an exit code (`ExitCode` does not give it back; it compares).
fn number(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}

fn json(a: &Assembly, exit_code: u8, error: Option<String>) -> String {
    let mut counts = Counts {
        accepted: a.accepted,
        ..Counts::default()
    };
    for f in &a.findings {
        match f.severity {
            Severity::Error => counts.errors += 1,
            Severity::Warning => counts.warnings += 1,
            Severity::Info => counts.info += 1,
        }
    }
    let doc = Document {
        format: format!("railyard/{}/v1", a.command),
        railyard: super::VERSION,
        command: a.command,
        exit_code,
        counts,
        diagnostics: &a.findings,
        error,
        result: a.result.clone(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
