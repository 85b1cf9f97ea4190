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

use super::stdout::{out, outln};
use railyard::change::{self, ChangeSet, Files, Verdict};
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
    /// Also write the labels of every cable the work order adds, moves or re-fits to FILE, as
    /// ZPL for the label printer (taken from the new side's `labels/*.zpl`).
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
}

/// What `--format json` prints.
#[derive(Serialize)]
struct JsonReport<'a> {
    verdict: Verdict,
    exit_code: u8,
    #[serde(flatten)]
    changes: &'a ChangeSet,
}

pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let side = |p: &Path| {
        if args.missing_is_empty && std::fs::symlink_metadata(p).is_err() {
            return Ok(Side::Empty);
        }
        side(p, args.labels.is_some())
    };
    if args.missing_is_empty
        && std::fs::symlink_metadata(&args.old).is_err()
        && std::fs::symlink_metadata(&args.new).is_err()
    {
        eprintln!("error: neither side exists: nothing to compare");
        return Ok(ExitCode::from(CANNOT_COMPARE));
    }
    let (old, new) = match (side(&args.old), side(&args.new)) {
        (Ok(o), Ok(n)) => o.against(n),
        (o, n) => {
            for e in [o.err(), n.err()].into_iter().flatten() {
                eprintln!("error: {}", terminal::escape_inline(&e));
            }
            return Ok(ExitCode::from(CANNOT_COMPARE));
        }
    };
    let cs = match change::compare(&old, &new) {
        Ok(cs) => cs,
        Err(errors) => {
            for e in errors {
                eprintln!(
                    "error: cannot compare: {}",
                    terminal::escape_inline(&e.to_string())
                );
            }
            return Ok(ExitCode::from(CANNOT_COMPARE));
        }
    };
    let verdict = cs.verdict();
    let report = JsonReport {
        verdict,
        exit_code: verdict.exit_code(),
        changes: &cs,
    };
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(file) = &args.out
        && let Err(e) = std::fs::write(file, format!("{json}\n"))
    {
        eprintln!(
            "error: writing {}: {e}",
            terminal::escape_inline(&file.display().to_string())
        );
        return Ok(ExitCode::from(CANNOT_COMPARE));
    }
    match args.format {
        DiffFormat::Text => out!("{}", change::text::render(&cs)),
        DiffFormat::Json => outln!("{}", terminal::json(&json)),
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
    if let Some(file) = &args.labels {
        let Some(r) = change::reprint::labels(&new, &cs.cables) else {
            eprintln!("error: the new side has no labels/*.zpl to take the labels from");
            return Ok(ExitCode::from(CANNOT_COMPARE));
        };
        if !r.missing.is_empty() {
            eprintln!(
                "warning: {} cables have no label in the new build: {}",
                r.missing.len(),
                terminal::escape_inline(&r.missing.join(" "))
            );
        }
        if let Err(e) = std::fs::write(file, &r.zpl) {
            eprintln!(
                "error: writing {}: {e}",
                terminal::escape_inline(&file.display().to_string())
            );
            return Ok(ExitCode::from(CANNOT_COMPARE));
        }
    }
    if let Some(file) = &args.html
        && let Err(e) = std::fs::write(file, change::page::render(&cs))
    {
        eprintln!(
            "error: writing {}: {e}",
            terminal::escape_inline(&file.display().to_string())
        );
        return Ok(ExitCode::from(CANNOT_COMPARE));
    }
    Ok(ExitCode::from(verdict.exit_code()))
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
fn side(path: &Path, labels: bool) -> Result<Side, String> {
    if path.is_dir() {
        return build_dir(path).map(Side::Dir);
    }
    let src = super::load(Some(path)).map_err(|e| format!("{e:#}"))?;
    let compiled = railyard::compile(&src);
    super::report::print(&src, &compiled.diagnostics, super::Format::Short);
    let templates = super::templates::load(None).map_err(|e| format!("{e:#}"))?;
    let mut groups = vec![
        OutputGroup::Configs,
        OutputGroup::Cabling,
        OutputGroup::Addresses,
        OutputGroup::Hosts,
        OutputGroup::Plan,
    ];
    if labels {
        // The label files are drawn with the report's group.
        groups.push(OutputGroup::Report);
    }
    let only = Selection::of(&groups);
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
