//! `railyard lab up|verify|accept|down`: the virtual lab from the command line. Progress lines go to
//! stderr with the elapsed time; the verify report goes to stdout (text or JSON).
//! Exit codes: 0 done (verify: every applicable check passed), 1 verify found a failure or
//! `down` left something behind, 2 the lab could not run (not root, missing tools, …), 3 verify
//! found no failure but could not test something that applies (INCOMPLETE, e.g. a kernel without
//! VXLAN leaves the tenant checks untested).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Subcommand, ValueEnum};

use railyard::lab::{self, UpOptions};
use railyard::model::Platform;

use super::stdout::{out, outln};
use super::{Format, load, report, templates};

#[derive(Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
pub enum LabCommand {
    /// Boot the fabric in network namespaces with FRR running the rendered configs (root).
    Up {
        /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a built-in example).
        spec: Option<PathBuf>,
        /// Keep the shape, not the size: every tier and rail, ≥ 2 of each switch role, one node
        /// per SU (and a pair per tenant); prints what was dropped.
        #[arg(long)]
        scale_down: bool,
        /// Lab state directory (sockets, logs, configs, state file).
        #[arg(long, value_name = "DIR", default_value = lab::DEFAULT_STATE_DIR)]
        state: PathBuf,
        /// Longest wait for BGP and ECMP convergence, in seconds.
        #[arg(long, value_name = "SECS", default_value_t = 120)]
        wait: u64,
        /// Directory of templates overriding the built-in ones (as for `build`).
        #[arg(long, value_name = "DIR")]
        templates: Option<PathBuf>,
    },
    /// Check the running lab: BGP sessions, ECMP widths, rail and tenant reachability.
    Verify {
        #[arg(long, value_name = "DIR", default_value = lab::DEFAULT_STATE_DIR)]
        state: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
        /// Take this device down (its links), compare ECMP widths and pings with `railyard
        /// impact`'s prediction, then restore it and check the fabric is whole again.
        #[arg(long, value_name = "NAME")]
        fail: Option<String>,
        /// With `--fail`: the spec the lab was booted from (when omitted: the one `lab up` recorded).
        #[arg(long, value_name = "SPEC", requires = "fail")]
        spec: Option<PathBuf>,
    },
    /// Run the acceptance plan's link rounds in the running lab (iperf3 between the nodes'
    /// NICs in place of ib_write_bw) and write the results `railyard acceptance check` reads.
    Accept(AcceptArgs),
    /// Stop every daemon, delete every namespace and file of the lab (also after a crashed `up`).
    Down {
        #[arg(long, value_name = "DIR", default_value = lab::DEFAULT_STATE_DIR)]
        state: PathBuf,
    },
}

#[derive(clap::Args)]
pub struct AcceptArgs {
    /// The spec the lab was booted from (when omitted: the one `lab up` recorded).
    spec: Option<PathBuf>,
    #[arg(long, value_name = "DIR", default_value = lab::DEFAULT_STATE_DIR)]
    state: PathBuf,
    /// Results directory (new, or an earlier `lab accept`'s): plan.json and links/<test>.txt.
    #[arg(long, value_name = "DIR", default_value = "acceptance-results")]
    out: PathBuf,
    /// iperf3 run time of each test, seconds.
    #[arg(long, value_name = "SECS", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=60))]
    seconds: u32,
    /// The rate a lab test must reach, Gb/s (what the lab's veth cables carry, not the line rate).
    #[arg(long, value_name = "GBPS", default_value_t = lab::accept::DEFAULT_EXPECT_GBPS)]
    expect_gbps: f64,
    /// Slow this cable (id or label of the plan) with `tc` for the run: the check must name it.
    #[arg(long, value_name = "CABLE")]
    degrade: Option<String>,
    /// `json`: the run's summary on stdout (tests, proven crossings, unproven ones).
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
    /// The degraded cable's rate, Mbit/s.
    #[arg(long, value_name = "MBIT", default_value_t = lab::accept::DEFAULT_DEGRADE_MBIT, requires = "degrade")]
    degrade_mbit: u32,
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

pub fn run(cmd: LabCommand) -> anyhow::Result<ExitCode> {
    let t0 = Instant::now();
    let mut progress = |msg: &str| eprintln!("[{:>6.1}s] {msg}", t0.elapsed().as_secs_f64());
    match cmd {
        LabCommand::Up {
            spec,
            scale_down,
            state,
            wait,
            templates,
        } => {
            let templates = templates::load(templates.as_deref())?;
            let src = load(spec.as_deref())?;
            let compiled = railyard::compile_for_platform(&src, Platform::Frr);
            report::print(&src, &compiled.diagnostics, Format::Short);
            // The lab boots the rendered FRR configs: nothing else is rendered.
            let configs =
                railyard::output::Selection::of(&[railyard::output::OutputGroup::Configs]);
            let Some(files) = compiled.outputs_only(&templates, &configs) else {
                return Ok(ExitCode::from(1));
            };
            let files = files?;
            let plan = lab::plan(&compiled, scale_down)?;
            let configs = lab::configs(&plan, &files)?;
            for line in plan.scale.lines() {
                progress(&format!("scope: {line}"));
            }
            for r in &plan.renamed {
                progress(&format!(
                    "renamed {}:{} to `{}` (longer than 15 characters)",
                    r.device, r.port, r.ifname
                ));
            }
            let mut opts = UpOptions::new(&state, src.name.clone());
            opts.max_wait = Duration::from_secs(wait);
            let lab_name = plan.lab.clone();
            let s = lab::up(plan, &configs, &opts, &mut progress)?;
            let t = &s.timings;
            eprintln!(
                "lab up: {lab_name} in {} (namespaces {}, cables {}, daemons {}, configs {}, converge {}); \
                 {} namespaces, {} FRR daemons, peak RSS {} MB; state in {}",
                secs(t.total_ms),
                secs(t.namespaces_ms),
                secs(t.cables_ms),
                secs(t.daemons_ms),
                secs(t.configs_ms),
                secs(t.converge_ms),
                s.namespaces,
                s.daemons,
                t.peak_rss_kib / 1024,
                state.display()
            );
            if !s.converged {
                eprintln!(
                    "warning: not converged ({} item(s) pending), e.g.:",
                    s.pending.len()
                );
                for p in s.pending.iter().take(8) {
                    eprintln!("  {p}");
                }
                eprintln!("run `railyard lab verify` for the full report");
            }
            Ok(ExitCode::SUCCESS)
        }
        LabCommand::Verify {
            state,
            format,
            fail,
            spec,
        } => {
            let r = match fail {
                None => lab::verify(&state, &mut progress)?,
                Some(name) => match verify_failed(&state, &name, spec.as_deref(), &mut progress)? {
                    Some(r) => r,
                    None => return Ok(ExitCode::from(2)),
                },
            };
            match format {
                ReportFormat::Text => out!("{}", r.to_text()),
                ReportFormat::Json => out!("{}", r.to_json()),
            }
            let failed = r.checks.iter().any(|c| c.status == lab::Status::Fail);
            Ok(match (r.passed, failed) {
                (true, _) => ExitCode::SUCCESS,
                (false, true) => ExitCode::from(1),
                (false, false) => ExitCode::from(3),
            })
        }
        LabCommand::Accept(args) => accept(&args, &mut progress),
        LabCommand::Down { state } => {
            let s = lab::down(&state, &mut progress)?;
            if s.stopped == 0 && s.namespaces == 0 && !s.removed_dir && s.leftovers.is_empty() {
                eprintln!("lab down: nothing to remove");
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!(
                "lab down: stopped {} processes, deleted {} namespaces{} in {}",
                s.stopped,
                s.namespaces,
                if s.removed_dir {
                    format!(", removed {}", state.display())
                } else {
                    String::new()
                },
                secs(s.elapsed_ms)
            );
            if s.leftovers.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!("left behind:");
            for l in &s.leftovers {
                eprintln!("  {l}");
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// `lab verify --fail NAME`: the impact analysis of the spec the lab runs, over the devices the
/// lab kept, then the lab with `NAME` down compared with it. `None` (reported) when the spec does
/// not compile or is not the lab's, or `NAME` is not in it.
fn verify_failed(
    state: &Path,
    name: &str,
    spec: Option<&Path>,
    progress: lab::Progress<'_>,
) -> anyhow::Result<Option<lab::Report>> {
    let Some(st) = lab::state::read(state)? else {
        return Err(lab::LabError::NoLab(state.to_path_buf()).into());
    };
    let src = super::spec_file::load_recorded(spec, &st.spec)?;
    if src.name != st.spec {
        eprintln!(
            "error: the lab runs `{}`, not `{}`: pass it with --spec",
            railyard::output::terminal::escape_inline(&st.spec),
            railyard::output::terminal::escape_inline(&src.name)
        );
        return Ok(None);
    }
    let compiled = railyard::compile_for_platform(&src, Platform::Frr);
    if compiled.design.is_none() {
        report::print(&src, &compiled.diagnostics, Format::Short);
        return Ok(None);
    }
    let scope: BTreeSet<String> = st
        .plan
        .routers
        .iter()
        .map(|r| r.name.clone())
        .chain(st.plan.hosts.iter().map(|h| h.name.clone()))
        .collect();
    let Some(analysis) =
        super::impact::analyse(&compiled, &[name.to_string()], false, Some(&scope))
    else {
        return Ok(None);
    };
    let Some(impact) = analysis.impacts.first() else {
        eprintln!(
            "error: `{}` is not in the lab",
            railyard::output::terminal::escape_inline(name)
        );
        return Ok(None);
    };
    Ok(Some(lab::fail::verify_failed(
        state, name, impact, progress,
    )?))
}

/// `lab accept`: the acceptance plan of the spec the lab runs, restricted to the lab, its link
/// rounds run; exit 0 when every test ran and its traffic showed on every planned cable, 1 when
/// a test failed to run or a crossing is unproven (listed), 2 when the lab could not run it.
fn accept(args: &AcceptArgs, progress: lab::Progress<'_>) -> anyhow::Result<ExitCode> {
    if !(args.expect_gbps.is_finite() && args.expect_gbps > 0.0) {
        anyhow::bail!("--expect-gbps must be a positive number");
    }
    let Some(st) = lab::state::read(&args.state)? else {
        return Err(lab::LabError::NoLab(args.state.clone()).into());
    };
    let src = super::spec_file::load_recorded(args.spec.as_deref(), &st.spec)?;
    if src.name != st.spec {
        eprintln!(
            "error: the lab runs `{}`, not `{}`: pass it as SPEC",
            railyard::output::terminal::escape_inline(&st.spec),
            railyard::output::terminal::escape_inline(&src.name)
        );
        return Ok(ExitCode::from(2));
    }
    let compiled = railyard::compile_for_platform(&src, Platform::Frr);
    report::print(&src, &compiled.diagnostics, Format::Short);
    let Some(design) = &compiled.design else {
        return Ok(ExitCode::from(2));
    };
    let nccl_env = railyard::artifacts::nccl_env(design)?;
    let Some(full) = railyard::acceptance::plan(design, nccl_env) else {
        anyhow::bail!("the cluster has no GPU nodes on a compute fabric: nothing to test");
    };
    let plan = lab::accept::lab_plan(&full, &st.plan, args.expect_gbps, args.seconds);
    let opts = lab::accept::AcceptOptions {
        results: args.out.clone(),
        seconds: args.seconds,
        expect_gbps: args.expect_gbps,
        degrade: args.degrade.clone(),
        degrade_mbit: args.degrade_mbit,
    };
    let left_out = full.schedule.tests - plan.schedule.tests;
    let s = lab::accept::accept(&args.state, &plan, left_out, &opts, progress)?;
    eprintln!(
        "lab accept: {} tests in {} rounds ({} of the plan outside the lab) in {}; {} planned \
         crossings proven by the cables' counters; results in {}",
        s.tests,
        s.rounds,
        s.left_out,
        secs(s.elapsed_ms),
        s.proven,
        args.out.display()
    );
    if let ReportFormat::Json = args.format {
        outln!("{}", serde_json::to_string_pretty(&s)?);
    }
    for u in &s.unproven {
        eprintln!(
            "warning: {}: cable {} counted {} bytes, iperf3 received {}: the traffic took another path",
            u.test, u.link, u.counted, u.received
        );
    }
    for f in &s.failed {
        eprintln!("warning: {f}: iperf3 did not report a result (see its file)");
    }
    Ok(if s.unproven.is_empty() && s.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
