//! `railyard acceptance plan SPEC -o DIR` and `railyard acceptance check RESULTS [--plan P]`
//! (README, "Acceptance"; the plan and the analysis: `railyard::acceptance`). The plan is
//! written like `build`'s output (atomically, with a manifest); the check reads the results
//! directory the runners fill, every file bounded. Exit codes of the check: 0 every test
//! passed, 1 a test fell short (suspects named) or did not run, 3 a result or the plan could not
//! be read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};

use railyard::acceptance::{self, check, model::Plan};
use railyard::output::bounded::{self, Kind, MIB};

use super::{Format, load, report, write};

#[derive(Subcommand)]
pub enum AcceptanceCommand {
    /// Write the bring-up tests of a cluster into DIR: plan.json (every compute node–leaf and
    /// leaf–spine cable, the ib_write_bw pairs in rounds, the NCCL tests with their expected bus
    /// bandwidth), run.sh (ssh + mpirun) and acceptance.sbatch (Slurm).
    Plan(PlanArgs),
    /// Read the results the runners wrote (RESULTS/links/*.txt: ib_write_bw client output,
    /// RESULTS/nccl/*.txt: nccl-tests output) and name the suspect cables. Exit code 0: every
    /// test passed; 1: a test fell short or did not run; 3: unreadable results or plan.
    Check {
        results: PathBuf,
        /// The plan the results belong to; default RESULTS/plan.json (the runners copy it there).
        #[arg(long)]
        plan: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: CheckFormat,
    },
}

#[derive(Args)]
pub struct PlanArgs {
    /// Spec file; the built-in `lab-small` example when omitted.
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
        AcceptanceCommand::Plan(args) => plan(&args),
        AcceptanceCommand::Check {
            results,
            plan,
            format,
        } => Ok(check_results(&results, plan.as_deref(), format)),
    }
}

fn plan(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    let src = load(args.spec.as_deref())?;
    let compiled = railyard::compile(&src);
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
                CheckFormat::Text => print!(
                    "{}",
                    railyard::output::terminal::escape(&acceptance::text::text(&r))
                ),
                CheckFormat::Json => match serde_json::to_string_pretty(&r) {
                    Ok(s) => println!("{s}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(3);
                    }
                },
            }
            ExitCode::from(match r.verdict {
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
    let plan_path = plan.map_or_else(|| results.join("plan.json"), Path::to_path_buf);
    let bytes = bounded::read(&plan_path, PLAN)?;
    let plan: Plan = serde_json::from_slice(&bytes)
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
        .chain(plan.nccl.tests.iter().map(|t| check::nccl_result(&t.id)));
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
    Ok(check::check(&plan, &texts))
}
