//! `railyard push`: the CLI edge of `railyard::push` — reads the targets file and the rendered
//! files (compiled from SPEC, or read from an output directory), runs the transaction, prints
//! progress, diffs and the per-device result, and maps the outcome to the exit code
//! (0 confirmed/unchanged, 1 failed and all reverted, 2 mixed/unknown, 3 refused at preflight).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use railyard::push::journal::{self, Journal};
use railyard::push::txn::{self, DeviceState, Outcome};
use railyard::push::{self as push_lib, PushSettings, recover, targets};

#[derive(Clone, Copy, ValueEnum)]
pub enum PushFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct PushArgs {
    /// Spec to compile; the built-in `lab-small` example when omitted (ignored with --from).
    spec: Option<PathBuf>,
    /// Take the rendered files from this output directory (`DIR/configs/<device>/…`) instead of
    /// compiling SPEC.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Targets file: device → address, port, user, driver, role, known_hosts. No secrets.
    #[arg(long, value_name = "FILE", default_value = "targets.yaml")]
    targets: PathBuf,
    /// Stage and diff on every device, then discard: nothing is committed.
    #[arg(long)]
    dry_run: bool,
    /// Roll out in waves by role, in this order (e.g. `spines,leaves`); others go last.
    #[arg(long, value_delimiter = ',')]
    wave: Vec<String>,
    /// At most this many devices at once.
    #[arg(long, default_value_t = 16)]
    parallel: usize,
    /// Seconds after which a device reverts by itself unless railyard confirms.
    #[arg(long, default_value_t = 300)]
    confirm_timeout: u64,
    /// Record unknown host keys in railyard's known_hosts (trust on first use). A changed key is
    /// always refused.
    #[arg(long)]
    accept_new: bool,
    /// Where the transaction journal goes (default: $XDG_STATE_HOME/railyard/tx).
    #[arg(long, value_name = "DIR")]
    journal_dir: Option<PathBuf>,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 60)]
    rpc_timeout: u64,
    /// TCP + SSH handshake timeout in seconds.
    #[arg(long, default_value_t = 10)]
    connect_timeout: u64,
    #[arg(long, value_enum, default_value = "text")]
    format: PushFormat,
    /// Finish transaction ID after railyard died between commit and confirm: re-verify and
    /// confirm its pending devices (or report those already rolled back). Needs --targets.
    #[arg(long, value_name = "ID", conflicts_with_all = ["rollback", "dry_run", "from", "spec"])]
    resume: Option<String>,
    /// Undo transaction ID: push the previous config saved with its journal back to every device
    /// it confirmed, as a new confirmed-commit transaction. Needs --targets.
    #[arg(long, value_name = "ID", conflicts_with_all = ["dry_run", "from", "spec"])]
    rollback: Option<String>,
}

/// `configs/**` of an output directory, keyed by relative path.
fn read_output_dir(dir: &Path) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let root = dir.join("configs");
    let devices =
        std::fs::read_dir(&root).with_context(|| format!("reading `{}`", root.display()))?;
    for dev in devices.flatten() {
        if !dev.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(dev.path())?.flatten() {
            let p = f.path();
            if p.is_file()
                && let (Some(d), Some(n)) = (dev.file_name().to_str(), f.file_name().to_str())
            {
                let bytes =
                    std::fs::read(&p).with_context(|| format!("reading `{}`", p.display()))?;
                out.insert(format!("configs/{d}/{n}"), bytes);
            }
        }
    }
    Ok(out)
}

fn rendered_files(args: &PushArgs) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    if let Some(dir) = &args.from {
        return read_output_dir(dir);
    }
    let templates = super::templates::load(None)?;
    let src = super::load(args.spec.as_deref())?;
    let compiled = railyard::compile(&src);
    super::report::print(&src, &compiled.diagnostics, super::Format::Short);
    let Some(files) = compiled.outputs(&templates) else {
        bail!("the spec has errors: nothing to push");
    };
    Ok(files?
        .into_iter()
        .filter(|f| f.path.starts_with("configs/"))
        .map(|f| (f.path, f.bytes))
        .collect())
}

pub fn run(args: PushArgs) -> anyhow::Result<ExitCode> {
    // Exit code 2 means "mixed" for push: a setup error (targets, files, journal) happens before
    // any device is touched, so it is a refusal (3).
    match run_inner(&args) {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(ExitCode::from(3))
        }
    }
}

fn run_inner(args: &PushArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.targets)
        .with_context(|| format!("reading targets file `{}`", args.targets.display()))?;
    let base = args
        .targets
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let targets = targets::parse(&text, base)?;
    if targets.is_empty() {
        bail!("targets file lists no devices");
    }
    let mut settings = PushSettings::default();
    settings.txn.dry_run = args.dry_run;
    settings.txn.waves = args.wave.clone();
    settings.txn.parallel = args.parallel.max(1);
    settings.txn.confirm_timeout = Duration::from_secs(args.confirm_timeout.max(1));
    settings.connect.accept_new = args.accept_new;
    settings.connect.connect_timeout = Duration::from_secs(args.connect_timeout.max(1));
    settings.client.rpc_timeout = Duration::from_secs(args.rpc_timeout.max(1));
    settings.client.hello_timeout = settings.connect.connect_timeout;

    let dir = args
        .journal_dir
        .clone()
        .unwrap_or_else(journal::default_dir);
    // Hidden test hook: exit abruptly (as a dying laptop would) right after a progress line
    // ending in this text, e.g. `Committed`.
    let die_after = std::env::var("RAILYARD_TEST_DIE_AFTER")
        .ok()
        .filter(|s| !s.is_empty());
    let progress = move |line: &str| {
        eprintln!("{line}");
        if let Some(s) = &die_after
            && line.trim_end().ends_with(s.as_str())
        {
            std::process::exit(137);
        }
    };

    if let Some(id) = &args.resume {
        let view = recover::read(&dir, id).map_err(anyhow::Error::msg)?;
        let journal = Journal::open_existing(&dir, id)
            .with_context(|| format!("opening the journal of `{id}`"))?;
        eprintln!(
            "push --resume {id}: {} device(s) in the journal; appending to {}",
            view.devices.len(),
            journal.path().display()
        );
        let outcome = recover::resume(&view, &targets, &settings, &journal, &progress);
        print_outcome(
            args,
            &outcome,
            false,
            settings.txn.confirm_timeout,
            "resume",
        )?;
        return Ok(ExitCode::from(outcome.exit_code));
    }

    let (plans, chosen, rollback_of) = if let Some(id) = &args.rollback {
        let view = recover::read(&dir, id).map_err(anyhow::Error::msg)?;
        let (plans, used) = recover::rollback_plans(&view, &targets).map_err(anyhow::Error::msg)?;
        (plans, used, Some(id.clone()))
    } else {
        let files = rendered_files(args)?;
        let plans = push_lib::plan(&targets, &files).map_err(anyhow::Error::msg)?;
        (plans, targets.iter().collect(), None)
    };

    let txid = journal::new_txid();
    let journal = Journal::create(&dir, &txid)
        .with_context(|| format!("creating the journal in `{}`", dir.display()))?;
    if let Some(of) = &rollback_of {
        journal.record(None, "rollback-of", serde_json::json!({ "of": of }));
    }
    let drivers = chosen
        .iter()
        .map(|t| push_lib::make_driver(t, &txid, &settings))
        .collect();
    eprintln!(
        "push {txid}: {} device(s){}{}; journal {}",
        plans.len(),
        if args.dry_run { ", dry run" } else { "" },
        rollback_of
            .as_deref()
            .map(|i| format!(", rolling back {i}"))
            .unwrap_or_default(),
        journal.path().display()
    );
    let outcome = txn::run(plans, drivers, &settings.txn, &journal, &progress);
    let what = if rollback_of.is_some() {
        "rollback"
    } else {
        "push"
    };
    print_outcome(
        args,
        &outcome,
        args.dry_run,
        settings.txn.confirm_timeout,
        what,
    )?;
    Ok(ExitCode::from(outcome.exit_code))
}

fn print_outcome(
    args: &PushArgs,
    o: &Outcome,
    dry_run: bool,
    window: Duration,
    what: &str,
) -> anyhow::Result<()> {
    match args.format {
        PushFormat::Json => println!("{}", serde_json::to_string_pretty(o)?),
        PushFormat::Text => print_text(o, dry_run, window, what),
    }
    Ok(())
}

fn print_text(o: &Outcome, dry_run: bool, window: Duration, what: &str) {
    for d in &o.devices {
        let diff = d
            .preflight
            .as_ref()
            .map(|p| p.canonical_diff.as_str())
            .unwrap_or("");
        println!(
            "== {} ({}): {:?}{}",
            d.device,
            d.driver,
            d.state,
            d.revision
                .as_deref()
                .map(|r| format!(" [revision {r}]"))
                .unwrap_or_default()
        );
        if let Some(e) = &d.error {
            println!("   error: {}", e.message);
        }
        if let Some(pf) = &d.preflight {
            for w in &pf.disruptive {
                println!("   DISRUPTIVE: {w}");
            }
            if dry_run || d.state != DeviceState::Unchanged {
                for l in diff.lines() {
                    println!("   {l}");
                }
            }
            if dry_run && !pf.native_diff.is_empty() && pf.native_diff != pf.canonical_diff {
                println!("   -- device diff --");
                for l in pf.native_diff.lines() {
                    println!("   {l}");
                }
            }
        }
    }
    let summary = match o.exit_code {
        0 if dry_run => "dry run: nothing committed, every staged change discarded".to_string(),
        0 => "every device confirmed or unchanged".to_string(),
        1 => "FAILED: every touched device was read back at its old configuration".to_string(),
        3 => "REFUSED at preflight: nothing was committed anywhere".to_string(),
        _ => format!(
            "MIXED/UNKNOWN: see the states above. Devices not confirmed revert by themselves \
             within {} s of their commit. To finish: `railyard push --resume {id} --targets …`; \
             to undo what was confirmed: `railyard push --rollback {id} --targets …`. Journal: {}",
            window.as_secs(),
            o.journal,
            id = o.txid,
        ),
    };
    println!("{what} {}: {summary} (exit {})", o.txid, o.exit_code);
}
