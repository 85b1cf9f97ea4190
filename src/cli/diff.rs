//! `railyard diff OLD NEW`: the change between two designs (specs or build directories) as a
//! work order (`railyard::change`). This file does the I/O: a spec is compiled and rendered in
//! memory (only the output groups the comparison reads), a build directory is read through its
//! manifest (every file bounded, checked against its SHA-256).
//!
//! Exit codes (README, "diff"): 0 no change, 1 additions only, 2 disruptive changes or any
//! renumbering, 3 could not compare.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::machine;
use super::stdout::out;
use railyard::change::{self, ChangeSet, Files, Verdict};
use railyard::diag::{Diagnostic, codes};
use railyard::output::bounded::{Kind, MIB};
use railyard::output::build_dir::{BuildDir, OpenError};
use railyard::output::{OutputFile, OutputGroup, Selection, terminal};

/// Exit code when the two sides could not be compared.
const CANNOT_COMPARE: u8 = 3;

/// One file of a build directory: as large as push accepts a rendered config.
const BUILT_FILE: Kind = Kind {
    what: "built file",
    limit: 256 * MIB,
};

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
}

/// The comparison's answer: in `--format json`'s document (`railyard/diff/v1`, beside its
/// exit code and diagnostics) and, with what it was made from, in the plan `--out` writes.
#[derive(Serialize)]
struct Answer<'a> {
    verdict: Verdict,
    #[serde(flatten)]
    changes: &'a ChangeSet,
}

/// The plan `--out FILE` writes: the whole answer, versioned, with the exit code `diff` returned.
#[derive(Serialize)]
struct PlanFile<'a> {
    format: &'static str,
    railyard: &'static str,
    exit_code: u8,
    #[serde(flatten)]
    answer: Answer<'a>,
}

pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    if matches!(args.format, DiffFormat::Json) {
        machine::begin("diff", Some(machine::Form::Json));
    }
    let (old, new) = match sides(&args) {
        Ok(sides) => sides,
        Err(problems) => return Ok(cannot_compare(problems)),
    };
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
    let verdict = cs.verdict();
    let answer = Answer {
        verdict,
        changes: &cs,
    };
    if let Some(file) = &args.out {
        let plan = PlanFile {
            format: "railyard/plan/v1",
            railyard: super::VERSION,
            exit_code: verdict.exit_code(),
            answer: Answer {
                verdict,
                changes: &cs,
            },
        };
        let json = serde_json::to_string_pretty(&plan)?;
        if let Err(e) = std::fs::write(file, format!("{json}\n")) {
            return Ok(cannot_write(file, &e));
        }
    }
    match args.format {
        DiffFormat::Text => out!("{}", change::text::render(&cs)),
        DiffFormat::Json => machine::result(&answer),
        DiffFormat::Markdown => {
            let full = match &args.out {
                Some(f) => format!("{} (JSON)", f.display()),
                None => "railyard diff OLD NEW --format json".to_string(),
            };
            out!(
                "{}",
                terminal::escape(&change::markdown::render(&cs, &full))
            );
        }
    }
    if let Some(file) = &args.html
        && let Err(e) = std::fs::write(file, change::page::render(&cs))
    {
        return Ok(cannot_write(file, &e));
    }
    Ok(ExitCode::from(verdict.exit_code()))
}

/// Both sides' files, or what kept each from being read: (the path, the problem).
fn sides(args: &DiffArgs) -> Result<(Files, Files), Vec<(String, String)>> {
    let missing = |p: &Path| args.missing_is_empty && std::fs::symlink_metadata(p).is_err();
    if missing(&args.old) && missing(&args.new) {
        let both = format!("{} and {}", args.old.display(), args.new.display());
        return Err(vec![(
            both,
            "neither side exists: nothing to compare".to_string(),
        )]);
    }
    let side = |p: &Path| {
        if missing(p) {
            return Ok(Side::Empty);
        }
        side(p).map_err(|e| (p.display().to_string(), e))
    };
    match (side(&args.old), side(&args.new)) {
        (Ok(o), Ok(n)) => Ok(o.against(n)),
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

/// One side of the comparison: a build directory's files, or a spec's rendered in memory
/// with the output group of each.
enum Side {
    Dir(Files),
    Spec(Vec<OutputFile>),
    /// No design (`--missing-is-empty`): every file of the other side is new, or gone.
    Empty,
}

impl Side {
    /// Both sides' files. A build directory holds the groups it was built with (`--only`): a
    /// spec compared with one keeps only the groups the directory has a file of, so a group the
    /// build left out is not a difference of design.
    fn against(self, other: Side) -> (Files, Files) {
        match (self, other) {
            (Side::Spec(s), Side::Dir(d)) => (kept(s, &d), d),
            (Side::Dir(d), Side::Spec(s)) => {
                let s = kept(s, &d);
                (d, s)
            }
            (a, b) => (a.files(), b.files()),
        }
    }

    fn files(self) -> Files {
        match self {
            Side::Dir(d) => d,
            Side::Spec(s) => s.into_iter().map(|f| (f.path, f.bytes)).collect(),
            Side::Empty => Files::new(),
        }
    }
}

/// The spec's files of the groups `dir` has at least one file of.
fn kept(spec: Vec<OutputFile>, dir: &Files) -> Files {
    let built: BTreeSet<Option<OutputGroup>> = spec
        .iter()
        .filter(|f| dir.contains_key(&f.path))
        .map(|f| f.group)
        .collect();
    spec.into_iter()
        .filter(|f| built.contains(&f.group))
        .map(|f| (f.path, f.bytes))
        .collect()
}

/// One side's files: a build directory's, or a spec's rendered in memory.
fn side(path: &Path) -> Result<Side, String> {
    if path.is_dir() {
        return build_dir(path).map(Side::Dir);
    }
    let src = super::load(Some(path)).map_err(|e| format!("{e:#}"))?;
    let compiled = railyard::compile(&src);
    super::report::print(&src, &compiled.diagnostics, super::Format::Short);
    let templates = super::templates::load(None).map_err(|e| format!("{e:#}"))?;
    let only = Selection::of(&[
        OutputGroup::Configs,
        OutputGroup::Cabling,
        OutputGroup::Addresses,
        OutputGroup::Hosts,
        OutputGroup::Plan,
    ]);
    match compiled.outputs_only(&templates, &only) {
        None => Err(format!(
            "the spec {} has errors: nothing to compare",
            src.name
        )),
        Some(Err(e)) => Err(format!("{}: {e}", src.name)),
        Some(Ok(files)) => Ok(Side::Spec(
            files
                .into_iter()
                .filter(|f| change::reads(&f.path))
                .collect(),
        )),
    }
}

/// The files of a build directory the comparison reads: every one its manifest lists, each read
/// bounded and checked against the manifest's SHA-256 (an edited build is not the design).
fn build_dir(dir: &Path) -> Result<Files, String> {
    let build = BuildDir::open(dir).map_err(|e| match e {
        OpenError::Unreadable(e) => {
            format!("{e} — a build directory is recognised by its manifest.json")
        }
        OpenError::Malformed(e) => e,
    })?;
    build.listed(change::reads, BUILT_FILE)
}
