//! `railyard diff OLD NEW`: the change between two designs (specs or build directories) as a
//! work order (`railyard::change`). This file does the I/O: a spec is compiled and rendered in
//! memory (only the output groups the comparison reads), a build directory is read through its
//! manifest (every file bounded, checked against its SHA-256).
//!
//! Exit codes (README, "diff"): 0 no change, 1 additions only, 2 disruptive changes or any
//! renumbering, 3 could not compare.

mod side;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::machine;
use super::stdout::{out, outln};
use railyard::change::{self, ChangeSet, Verdict};
use railyard::diag::{Diagnostic, codes};
use railyard::output::terminal;
use side::{Origin, Side};

/// Exit code when the two sides could not be compared.
const CANNOT_COMPARE: u8 = 3;

#[derive(Clone, Copy, ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    /// A pull-request comment: verdict and counts first, bounded under GitHub's 65,536
    /// characters.
    Markdown,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The old design: a spec file, or a build directory (one with a manifest.json).
    pub old: PathBuf,
    /// The new design: a spec file, or a build directory.
    pub new: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: DiffFormat,
    /// Also write the change as one HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the whole plan as JSON (what `--format json` prints) to FILE: the full detail
    /// a bounded markdown comment points to.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// A side that does not exist is an empty design (a spec added or deleted in a pull
    /// request: everything is added, or everything removed), not an error.
    #[arg(long)]
    pub missing_is_empty: bool,
    /// Also write the labels of every cable the work order adds, moves or re-fits to FILE, as
    /// ZPL for the label printer (taken from the new side's `labels/*.zpl`).
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
}

/// The comparison's answer: in `--format json`'s document (`railyard/diff/v1`, beside its
/// exit code and diagnostics) and, with what it was made from, in the plan `--out` writes.
#[derive(Serialize)]
struct Answer<'a> {
    verdict: Verdict,
    /// Where each side came from: the railyard that made it and its digests.
    old: &'a Origin,
    new: &'a Origin,
    #[serde(flatten)]
    changes: &'a ChangeSet,
}

/// The plan `--out FILE` writes (`railyard/plan/v1`): the whole answer with the exit code
/// `diff` returned. `push --plan FILE` pushes only the build `new` names (its manifest's
/// SHA-256, or a build of the spec `new` names by this railyard).
#[derive(Serialize)]
struct PlanFile<'a> {
    format: &'static str,
    railyard: &'static str,
    exit_code: u8,
    #[serde(flatten)]
    answer: &'a Answer<'a>,
}

pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    if matches!(args.format, DiffFormat::Json) {
        machine::begin("diff", Some(machine::Form::Json));
    }
    let (old, new) = match sides(&args) {
        Ok(sides) => sides,
        Err(problems) => return Ok(cannot_compare(problems)),
    };
    let (old_origin, new_origin) = (old.origin().clone(), new.origin().clone());
    let (old, new) = old.against(new);
    let cs = match change::compare(&old, &new) {
        Ok(cs) => cs,
        Err(errors) => {
            let problems = errors
                .into_iter()
                .map(|e| (String::new(), format!("cannot compare: {e}")))
                .collect();
            return Ok(cannot_compare(problems));
        }
    };
    let warnings = railyards_warning(&old_origin, &new_origin);
    let verdict = cs.verdict();
    let answer = Answer {
        verdict,
        old: &old_origin,
        new: &new_origin,
        changes: &cs,
    };
    if let Some(file) = &args.out {
        let plan = PlanFile {
            format: "railyard/plan/v1",
            railyard: super::VERSION,
            exit_code: verdict.exit_code(),
            answer: &answer,
        };
        let json = serde_json::to_string_pretty(&plan)?;
        if let Err(e) = std::fs::write(file, format!("{json}\n")) {
            return Ok(cannot_write(file, &e));
        }
    }
    print(&args, &answer, &warnings);
    if let Some(file) = &args.labels
        && let Some(code) = labels(file, &new, &cs)
    {
        return Ok(code);
    }
    if let Some(file) = &args.html
        && let Err(e) = std::fs::write(file, change::page::render(&cs, &warnings))
    {
        return Ok(cannot_write(file, &e));
    }
    Ok(ExitCode::from(verdict.exit_code()))
}

/// The labels of the cables the work order adds, moves or re-fits, as ZPL into `file`, taken
/// from the new side's label files; `Some(exit 3)` when there are none or writing fails.
fn labels(file: &Path, new: &change::Files, cs: &ChangeSet) -> Option<ExitCode> {
    let Some(r) = change::reprint::labels(new, &cs.cables) else {
        let problem = "the new side has no labels/*.zpl to take the labels from".to_string();
        return Some(cannot_compare(vec![(String::new(), problem)]));
    };
    if !r.missing.is_empty() {
        eprintln!(
            "warning: {} cables have no label in the new build: {}",
            r.missing.len(),
            terminal::escape_inline(&r.missing.join(" "))
        );
    }
    std::fs::write(file, &r.zpl)
        .err()
        .map(|e| cannot_write(file, &e))
}

/// The answer on standard output in the format asked for; `warnings` about the comparison
/// itself in every format (the JSON document has them among its diagnostics).
fn print(args: &DiffArgs, answer: &Answer<'_>, warnings: &[String]) {
    match args.format {
        DiffFormat::Text => {
            for w in warnings {
                outln!("warning[RY1202]: {}\n", terminal::escape_inline(w));
            }
            out!("{}", change::text::render(answer.changes));
        }
        DiffFormat::Json => machine::result(answer),
        DiffFormat::Markdown => {
            let full = match &args.out {
                Some(f) => format!("{} (JSON)", f.display()),
                None => "railyard diff OLD NEW --format json".to_string(),
            };
            let text = change::markdown::render(answer.changes, &full, warnings);
            out!("{}", terminal::escape(&text));
        }
    }
}

/// RY1202 when the sides were made by different railyards: the message, also recorded in the
/// machine document.
fn railyards_warning(old: &Origin, new: &Origin) -> Vec<String> {
    let Some((a, b)) = side::different_railyards(old, new) else {
        return Vec::new();
    };
    let message = format!(
        "the two sides were made by different railyards (old: {a}, new: {b}): some differences \
         may be railyard's, not the design's"
    );
    let warning = Diagnostic::warning(codes::DIFF_DIFFERENT_RAILYARDS, message.clone()).help(
        "build both sides with one railyard (`railyard build` the old spec again) to see the \
         design's change alone",
    );
    machine::problem(warning, &old.path);
    vec![message]
}

/// Both sides, or what kept each from being read: (the path, the problem).
fn sides(args: &DiffArgs) -> Result<(Side, Side), Vec<(String, String)>> {
    let missing = |p: &Path| args.missing_is_empty && std::fs::symlink_metadata(p).is_err();
    if missing(&args.old) && missing(&args.new) {
        let both = format!("{} and {}", args.old.display(), args.new.display());
        return Err(vec![(
            both,
            "neither side exists: nothing to compare".to_string(),
        )]);
    }
    // A build directory holds every default group, and the labels come with the report's.
    let beside_build = args.old.is_dir() || args.new.is_dir() || args.labels.is_some();
    let side = |p: &Path| {
        if missing(p) {
            return Ok(side::empty(p));
        }
        side::side(p, beside_build).map_err(|e| (p.display().to_string(), e))
    };
    match (side(&args.old), side(&args.new)) {
        (Ok(o), Ok(n)) => Ok((o, n)),
        (o, n) => Err([o.err(), n.err()].into_iter().flatten().collect()),
    }
}

/// Exit 3: each problem on standard error, and as an RY1201 error in the machine document.
fn cannot_compare(problems: Vec<(String, String)>) -> ExitCode {
    for (path, problem) in problems {
        eprintln!("error: {}", terminal::escape_inline(&problem));
        let what = Diagnostic::error(codes::DIFF_CANNOT_COMPARE, problem)
            .help("`railyard explain RY1201`");
        machine::problem(what, &path);
    }
    ExitCode::from(CANNOT_COMPARE)
}

fn cannot_write(file: &Path, e: &std::io::Error) -> ExitCode {
    cannot_compare(vec![(
        file.display().to_string(),
        format!("writing {}: {e}", file.display()),
    )])
}
