//! `railyard acceptance plan SPEC -o DIR` and `railyard acceptance check RESULTS [--plan P]`
//! (README, "Acceptance"; the plan and the analysis: `railyard::acceptance`). The plan is
//! written like `build`'s output (atomically, with a manifest); the check reads the results
//! directory the runners fill, every file bounded, against the plan of the acceptance directory
//! (verified against its manifest; the copy among the results is not trusted). Exit codes of the
//! check: 0 every test passed, 1 a test fell short (suspects named) or did not run, 3 a result
//! or the plan could not be read or verified, the copy differs, or the plan has no tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};

use railyard::acceptance::{self, check, model::Plan};
use railyard::output::bounded::{self, Kind, MIB};
use railyard::output::build_dir::{BuildDir, OpenError};
use railyard::output::digest::sha256_hex;

use super::stdout::{out, outln};
use super::{Format, load, report, write};

#[derive(Subcommand)]
pub enum AcceptanceCommand {
    /// Write the bring-up tests of a cluster into DIR: plan.json (every compute node–leaf and
    /// leaf–spine cable, the ib_write_bw pairs in rounds, the NCCL tests with their expected bus
    /// bandwidth), run.sh (ssh + mpirun) and acceptance.sbatch (Slurm).
    Plan(PlanArgs),
    /// Read the results the runners wrote (RESULTS/links/*.txt: ib_write_bw client output,
    /// RESULTS/nccl/*.txt: nccl-tests output) and name the suspect cables; say what was checked
    /// and which files were ignored. Exit code 0: every test passed; 1: a test fell short or did
    /// not run; 3: unreadable results, a plan that cannot be verified, differs from its copy or
    /// has no tests.
    Check {
        results: PathBuf,
        /// The plan the results belong to: the directory `acceptance plan` wrote (its plan.json
        /// is verified against its manifest.json) or a plan file; default the directory RESULTS
        /// is in. The copy the runners leave in RESULTS is never the reference: one that differs
        /// is refused.
        #[arg(long)]
        plan: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: CheckFormat,
    },
}

#[derive(Args)]
pub struct PlanArgs {
    /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a built-in example).
    spec: Option<PathBuf>,
    /// Output directory: new, empty, or an earlier plan's (as for `build`).
    #[arg(short, long, default_value = "acceptance")]
    output: PathBuf,
    /// As for `build`: rename a directory that is not an earlier plan's aside first.
    #[arg(long)]
    move_aside: bool,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

/// Files a results directory may hold: a result and a server output per link test (4,096 link
/// tests on the largest example), with room.
const LISTED: usize = 1 << 20;

/// A plan: its links and tests, a few MiB even for the largest fabrics.
const PLAN: Kind = Kind {
    what: "acceptance plan",
    limit: 256 * MIB,
};
/// One tool's output: perftest prints a few dozen lines, nccl-tests a row per size (plus NCCL's
/// INFO lines when NCCL_DEBUG is set).
const RESULT: Kind = Kind {
    what: "test result",
    limit: 16 * MIB,
};

pub fn run(cmd: AcceptanceCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        AcceptanceCommand::Plan(args) => {
            super::machine::begin("acceptance-plan", super::machine::Form::of(args.format));
            plan(&args)
        }
        AcceptanceCommand::Check {
            results,
            plan,
            format,
        } => Ok(check_results(&results, plan.as_deref(), format)),
    }
}

/// `acceptance plan`'s result in its machine document (`plan.json` has the tests themselves).
#[derive(serde::Serialize)]
struct Scheduled {
    link_tests: usize,
    rounds: usize,
    max_degree: usize,
    nccl_tests: usize,
}

fn plan(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    let src = load(args.spec.as_deref())?;
    let compiled = super::compile(&src)?;
    report::print(&src, &compiled.diagnostics, args.format);
    let Some(design) = &compiled.design else {
        return Ok(ExitCode::from(1));
    };
    let nccl_env = railyard::artifacts::nccl_env(design)?;
    let Some(plan) = acceptance::plan(design, nccl_env) else {
        bail!("the cluster has no GPU nodes on a compute fabric: nothing to test");
    };
    report::print(
        &src,
        &acceptance::devices::diagnostics(design, &plan),
        args.format,
    );
    super::machine::result(&Scheduled {
        link_tests: plan.schedule.tests,
        rounds: plan.schedule.rounds,
        max_degree: plan.schedule.max_degree,
        nccl_tests: plan.nccl.tests.len(),
    });
    eprintln!(
        "{} link tests in {} rounds (maximum degree {}), {} NCCL tests",
        plan.schedule.tests,
        plan.schedule.rounds,
        plan.schedule.max_degree,
        plan.nccl.tests.len()
    );
    write(&args.output, args.move_aside, &acceptance::files(&plan)?)
}

fn check_results(results: &Path, plan: Option<&Path>, format: CheckFormat) -> ExitCode {
    match read_and_check(results, plan) {
        Ok(r) => {
            match format {
                CheckFormat::Text => out!(
                    "{}",
                    railyard::output::terminal::escape(&acceptance::text::text(&r))
                ),
                CheckFormat::Json => match serde_json::to_string_pretty(&r) {
                    Ok(s) => outln!("{s}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(3);
                    }
                },
            }
            ExitCode::from(match r.verdict {
                // A plan without tests is no evidence: refused like a plan that cannot be read.
                _ if r.is_empty() => 3,
                check::Verdict::Passed => 0,
                check::Verdict::Short | check::Verdict::Incomplete => 1,
                check::Verdict::BadInput => 3,
            })
        }
        Err(e) => {
            eprintln!(
                "error: {}",
                railyard::output::terminal::escape(&format!("{e:#}"))
            );
            ExitCode::from(3)
        }
    }
}

fn read_and_check(results: &Path, plan: Option<&Path>) -> anyhow::Result<check::Report> {
    if !results.is_dir() {
        bail!("`{}` is not a directory of results", results.display());
    }
    let trusted = trusted_plan(results, plan)?;
    refuse_a_different_copy(results, &trusted)?;
    let plan_path = &trusted.path;
    let plan: Plan = serde_json::from_slice(&trusted.bytes)
        .with_context(|| format!("`{}` is not an acceptance plan", plan_path.display()))?;
    if plan.version != acceptance::model::VERSION {
        bail!(
            "`{}` is a plan of format {}; this railyard reads {}",
            plan_path.display(),
            plan.version,
            acceptance::model::VERSION
        );
    }
    let wanted = plan
        .rounds
        .iter()
        .flat_map(|r| r.tests.iter().map(|t| check::link_result(&t.id)))
        .chain(plan.nccl.tests.iter().map(|t| check::nccl_result(&t.id)))
        .chain(plan.imex.iter().map(|c| check::imex_result(&c.domain)));
    let mut texts = BTreeMap::new();
    for rel in wanted {
        // Test ids are railyard's own tokens, but the plan is a file a user hands over: a path
        // with anything but plain components is not read.
        if !rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains('\\'))
        {
            bail!(
                "the plan names a result `{}` outside the results directory",
                rel.escape_default()
            );
        }
        let p = results.join(&rel);
        if !p.exists() {
            continue;
        }
        let bytes = bounded::read(&p, RESULT)?;
        texts.insert(rel, String::from_utf8_lossy(&bytes).into_owned());
    }
    let mut report = check::check(&plan, &texts);
    report.plan = trusted.source;
    report.ignored = check::ignored(&plan, &listing(results)?);
    Ok(report)
}

/// The plan a check goes by: its path, bytes, and where it came from.
struct Trusted {
    path: PathBuf,
    bytes: Vec<u8>,
    source: String,
}

/// The plan the results are checked against. The copy the runners leave in RESULTS came back
/// from the nodes with the results: it is never the reference. The reference is the acceptance
/// directory's `plan.json`, verified against that directory's `manifest.json` (SHA-256): the
/// directory `--plan` names (or the one holding the `plan.json` it names), by default the
/// directory RESULTS is in (`sh run.sh` writes `./results` there). A `--plan` file with no
/// manifest beside it is taken as the operator named it, and said so.
fn trusted_plan(results: &Path, plan: Option<&Path>) -> anyhow::Result<Trusted> {
    let (dir, named) = match plan {
        Some(p) if p.is_dir() => (p.to_path_buf(), None),
        Some(p) => (
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            Some(p),
        ),
        None => {
            let abs = results
                .canonicalize()
                .with_context(|| format!("`{}`", results.display()))?;
            (abs.parent().unwrap_or(&abs).to_path_buf(), None)
        }
    };
    // A manifest vouches for the `plan.json` beside it, not for a file of another name.
    let vouched = named.is_none_or(|p| p.file_name() == Some("plan.json".as_ref()));
    let opened = match BuildDir::open(&dir) {
        Ok(b) => Some(b).filter(|_| vouched),
        Err(OpenError::Malformed(e)) => bail!("{e}"),
        Err(OpenError::Unreadable(_)) => None,
    };
    let Some(build) = opened else {
        let Some(p) = named else {
            bail!(
                "cannot verify the plan: `{}` has no manifest.json of `railyard acceptance plan` \
                 (the copy in `{}` came back with the results and is not trusted); name the plan \
                 the results belong to: --plan DIR (the directory `railyard acceptance plan` \
                 wrote) or --plan FILE",
                dir.display(),
                results.display()
            );
        };
        let bytes = bounded::read(p, PLAN)?;
        let source = format!(
            "{} (SHA-256 {}), as named with --plan: no manifest beside it to verify it against",
            p.display(),
            sha256_hex(&bytes)
        );
        return Ok(Trusted {
            path: p.to_path_buf(),
            bytes,
            source,
        });
    };
    let mut listed = build
        .listed(|f| f == "plan.json", PLAN)
        .map_err(anyhow::Error::msg)?;
    let Some(bytes) = listed.remove("plan.json") else {
        bail!(
            "`{}` lists no plan.json: not an acceptance directory",
            build.manifest_path().display()
        );
    };
    let path = dir.join("plan.json");
    let source = format!(
        "{} (SHA-256 {}), verified against {}",
        path.display(),
        sha256_hex(&bytes),
        build.manifest_path().display()
    );
    Ok(Trusted {
        path,
        bytes,
        source,
    })
}

/// The runners copy the plan into RESULTS; a copy that differs from the plan checked against
/// means results of another plan, or an edited copy: refused, not checked.
fn refuse_a_different_copy(results: &Path, trusted: &Trusted) -> anyhow::Result<()> {
    let copy = results.join("plan.json");
    if !copy.exists() {
        return Ok(());
    }
    let bytes = bounded::read(&copy, PLAN)?;
    if bytes != trusted.bytes {
        bail!(
            "`{}` (SHA-256 {}) differs from the plan `{}` (SHA-256 {}): these results were made \
             from another plan, or the copy was edited; check them against the plan they were \
             made from (--plan)",
            copy.display(),
            sha256_hex(&bytes),
            trusted.path.display(),
            sha256_hex(&trusted.bytes)
        );
    }
    Ok(())
}

/// Every file under RESULTS, as relative `/` paths (links not followed; a directory holding more
/// than [`LISTED`] entries is refused rather than walked without end).
fn listing(results: &Path) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut todo = vec![(results.to_path_buf(), String::new())];
    while let Some((dir, rel)) = todo.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("`{}`", dir.display()))? {
            let entry = entry.with_context(|| format!("`{}`", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push((entry.path(), path));
            } else {
                out.push(path);
            }
            if out.len() + todo.len() > LISTED {
                bail!("`{}` holds more than {LISTED} files", results.display());
            }
        }
    }
    out.sort();
    Ok(out)
}
