//! `railyard push`: the CLI edge of `railyard::push` — reads the targets file and the rendered
//! files (compiled from SPEC, or read from an output directory and checked against its
//! manifest), fills `${NAME}` placeholders from the environment, runs the transaction, prints
//! progress, diffs and the per-device result (every secret value shown as `<redacted>`), and maps
//! the outcome to the exit code: 0 confirmed/unchanged (or a clean dry run), 1 failed and all
//! reverted, 2 mixed/unknown — or a secret missing from the environment, nothing sent —, 3
//! refused at preflight.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use super::stdout::{out, outln};
use railyard::output::secrets::Declaration;
use railyard::push::{
    self as push_lib, DevicePlan, DeviceState, Journal, Outcome, PushSettings, SecretError, Secrets,
};

#[derive(Clone, Copy, ValueEnum)]
pub enum PushFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct PushArgs {
    /// Spec to compile (`-`: standard input); ./cluster.yaml when omitted, `--example NAME` a built-in example (ignored with --from).
    spec: Option<PathBuf>,
    /// Take the rendered files from this output directory (`DIR/configs/<device>/…`) instead of
    /// compiling SPEC. Each file must still have the SHA-256 `DIR/manifest.json` records.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// With --from: push files edited after the build (their hash differs from manifest.json).
    #[arg(long, requires = "from")]
    allow_edited: bool,
    /// Push only the build this reviewed plan (`railyard diff OLD NEW --out PLAN`) was made
    /// from: the `--from` build's manifest (or the spec and this railyard) must be NEW's, as the
    /// plan records it; anything else is refused before a device is contacted (docs/ci.md).
    #[arg(long, value_name = "PLAN", conflicts_with_all = ["allow_edited", "resume", "rollback"])]
    plan: Option<PathBuf>,
    /// Targets file: device → address, port, user, driver, role. No secrets, credentials or
    /// known_hosts (those are the operator's: the flags below).
    #[arg(long, value_name = "FILE", default_value = "targets.yaml")]
    targets: PathBuf,
    #[command(flatten)]
    operator: OperatorArgs,
    /// Stage and diff on every device, then discard: nothing is committed. Lists disruptive
    /// changes per device.
    #[arg(long)]
    dry_run: bool,
    /// Push changes flagged disruptive (BGP ASN or router-id change, removed session, address
    /// change, MTU or breakout change); without it they refuse the whole push.
    #[arg(long)]
    allow_disruptive: bool,
    /// List the environment variables the push needs for its `${NAME}` placeholders, whether
    /// each is set (never its value) and which files use it; exit 2 when one is unset.
    #[arg(long, conflicts_with_all = ["resume", "rollback", "dry_run"])]
    list_secrets: bool,
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
    /// Finish transaction ID after railyard died: read back every device whose outcome the
    /// journal cannot tell, then confirm what verifies (or cancel, when the transaction was
    /// failing). Needs --targets.
    #[arg(long, value_name = "ID", conflicts_with_all = ["rollback", "dry_run", "from", "spec"])]
    resume: Option<String>,
    /// Undo transaction ID: push the previous config saved with its journal back to every device
    /// it confirmed, as a new confirmed-commit transaction. Needs --targets.
    #[arg(long, value_name = "ID", conflicts_with_all = ["dry_run", "from", "spec"])]
    rollback: Option<String>,
}

/// The credentials and known_hosts of a push or an audit: the operator's, never the targets
/// file's (`railyard::push::Operator` says why).
#[derive(Args)]
pub struct OperatorArgs {
    /// The environment variable holding the SSH password (its name; the value is never on the
    /// command line).
    #[arg(long, value_name = "NAME")]
    password_env: Option<String>,
    /// A private key file (OpenSSH format) to offer.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// The environment variable holding the key file's passphrase.
    #[arg(long, value_name = "NAME", requires = "key_file")]
    key_passphrase_env: Option<String>,
    /// The ssh-agent socket (default: $SSH_AUTH_SOCK).
    #[arg(long, value_name = "PATH", conflicts_with = "no_agent")]
    agent_socket: Option<PathBuf>,
    /// Do not offer the ssh-agent's identities.
    #[arg(long)]
    no_agent: bool,
    /// The known_hosts file host keys are checked against (default: railyard's own,
    /// $XDG_CONFIG_HOME/railyard/known_hosts).
    #[arg(long, value_name = "FILE")]
    known_hosts: Option<PathBuf>,
    /// The targets file is the operator's own (not from a pull request): read its `auth:` and
    /// `known_hosts:`, where no flag above names them. Without it a targets file that names
    /// either is refused.
    #[arg(long)]
    trust_targets_file: bool,
}

impl OperatorArgs {
    pub fn operator(&self) -> push_lib::Operator {
        push_lib::Operator {
            auth: push_lib::Auth {
                agent: !self.no_agent,
                agent_socket: self.agent_socket.clone(),
                key_file: self.key_file.clone(),
                key_passphrase_env: self.key_passphrase_env.clone(),
                password_env: self.password_env.clone(),
            },
            known_hosts: self.known_hosts.clone(),
            trust_targets_file: self.trust_targets_file,
        }
    }
}

/// The rendered files: from an output directory (checked against its manifest for the files
/// the targets push, unless --allow-edited), or compiled from the spec.
fn rendered_files(
    args: &PushArgs,
    targets: &[push_lib::Target],
) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    if let Some(dir) = &args.from {
        if let Some(plan) = &args.plan {
            super::reviewed::check(plan, &super::reviewed::Pushed::Build(dir))?;
        }
        let files = push_lib::read_output_dir(dir).map_err(anyhow::Error::msg)?;
        if !args.allow_edited {
            let paths = push_lib::manifest_paths(targets, &files);
            push_lib::check_manifest(dir, &files, &paths).map_err(anyhow::Error::msg)?;
        }
        return Ok(files);
    }
    let templates = super::templates::load(None)?;
    let src = super::load(args.spec.as_deref())?;
    if let Some(plan) = &args.plan {
        super::reviewed::check(plan, &super::reviewed::Pushed::Spec(&src))?;
    }
    let compiled = super::compile(&src)?;
    super::report::print(&src, &compiled.diagnostics, super::Format::Short);
    // Push moves switch configs only: nothing else is rendered.
    let configs = railyard::output::Selection::of(&[railyard::output::OutputGroup::Configs]);
    let Some(files) = compiled.outputs_only(&templates, &configs) else {
        bail!("the spec {} has errors: nothing to push", src.name);
    };
    Ok(files?
        .into_iter()
        .filter(|f| f.path.starts_with("configs/"))
        .map(|f| (f.path, f.bytes))
        .collect())
}

fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

pub fn run(args: PushArgs) -> anyhow::Result<ExitCode> {
    // Exit code 2 means "mixed" for push: a setup error (targets, files, journal) happens before
    // any device is touched, so it is a refusal (3). A secret missing from the environment is
    // exit 2, as `--list-secrets` reports it.
    match run_inner(&args) {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(ExitCode::from(3))
        }
    }
}

fn settings_of(args: &PushArgs) -> PushSettings {
    let mut settings = PushSettings::default();
    settings.txn.dry_run = args.dry_run;
    settings.txn.waves = args.wave.clone();
    settings.txn.parallel = args.parallel.max(1);
    settings.txn.confirm_timeout = Duration::from_secs(args.confirm_timeout.max(1));
    settings.txn.allow_disruptive = args.allow_disruptive;
    settings.connect.accept_new = args.accept_new;
    settings.connect.connect_timeout = Duration::from_secs(args.connect_timeout.max(1));
    settings.client.rpc_timeout = Duration::from_secs(args.rpc_timeout.max(1));
    settings.client.hello_timeout = settings.connect.connect_timeout;
    settings
}

fn run_inner(args: &PushArgs) -> anyhow::Result<ExitCode> {
    let text = super::input::read_text(&args.targets, super::input::TARGETS)?;
    let targets = push_lib::parse_targets(&text, &args.targets, &args.operator.operator())?;
    if targets.is_empty() {
        bail!("targets file {} lists no devices", args.targets.display());
    }
    let settings = settings_of(args);
    let dir = args
        .journal_dir
        .clone()
        .unwrap_or_else(push_lib::journal_dir);

    if let Some(id) = &args.resume {
        return resume(args, id, &dir, &targets, &settings);
    }

    let (mut plans, chosen, rollback_of, declaration) = if let Some(id) = &args.rollback {
        let view = push_lib::read_journal(&dir, id).map_err(anyhow::Error::msg)?;
        let (plans, used) =
            push_lib::rollback_plans(&view, &targets).map_err(anyhow::Error::msg)?;
        (plans, used, Some(id.clone()), view.declaration)
    } else {
        let files = rendered_files(args, &targets)?;
        let plans = push_lib::plan(&targets, &files).map_err(anyhow::Error::msg)?;
        let declaration = push_lib::declaration_of(&files).map_err(anyhow::Error::msg)?;
        (plans, targets.iter().collect(), None, declaration)
    };

    if args.list_secrets {
        return Ok(list_secrets(&plans, &declaration));
    }
    // Every placeholder filled before anything is sent to any device — and only those the build
    // declared: any other is refused before the environment is read.
    let secrets = match push_lib::fill_secrets(&mut plans, &declaration, &env_lookup) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            let refused = matches!(e, SecretError::Undeclared(_));
            return Ok(ExitCode::from(if refused { 3 } else { 2 }));
        }
    };

    let txid = push_lib::new_txid();
    let mut journal = Journal::create(&dir, &txid)
        .with_context(|| format!("creating the journal in {}", dir.display()))?;
    push_lib::record_declaration(&journal, &declaration);
    journal.set_secrets(secrets.clone());
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
    let progress = |line: &str| eprintln!("{}", secrets.redact(line));
    let outcome = push_lib::run(plans, drivers, &settings.txn, &journal, &progress);
    let what = if rollback_of.is_some() {
        "rollback"
    } else {
        "push"
    };
    print_outcome(args, &outcome, args.dry_run, what, &secrets)?;
    Ok(ExitCode::from(outcome.exit_code))
}

fn resume(
    args: &PushArgs,
    id: &str,
    dir: &std::path::Path,
    targets: &[push_lib::Target],
    settings: &PushSettings,
) -> anyhow::Result<ExitCode> {
    let view = push_lib::read_journal(dir, id).map_err(anyhow::Error::msg)?;
    let loaded = match push_lib::load_intended(&view, &env_lookup) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: push --resume {id}: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut journal = Journal::open_existing(dir, id)
        .with_context(|| format!("opening the journal of {id} in {}", dir.display()))?;
    journal.set_secrets(loaded.secrets.clone());
    eprintln!(
        "push --resume {id}: {} device(s) in the journal; appending to {}",
        view.devices.len(),
        journal.path().display()
    );
    let secrets = loaded.secrets.clone();
    let progress = |line: &str| eprintln!("{}", secrets.redact(line));
    let outcome = push_lib::resume(&view, &loaded, targets, settings, &journal, &progress);
    print_outcome(args, &outcome, false, "resume", &secrets)?;
    Ok(ExitCode::from(outcome.exit_code))
}

/// `--list-secrets`: one line per variable, `set`, `UNSET` or `UNDECLARED` (a placeholder the
/// build did not declare: a push refuses it, and its variable is not looked up), and the files
/// using it.
fn list_secrets(plans: &[DevicePlan], declaration: &Declaration) -> ExitCode {
    let needed = push_lib::needed_secrets(plans);
    let undeclared = push_lib::undeclared_secrets(plans, declaration);
    if needed.is_empty() {
        outln!("no placeholders: this push needs no secret from the environment");
        return ExitCode::SUCCESS;
    }
    let mut unset = 0;
    for (name, files) in &needed {
        let state = if undeclared.contains_key(name) {
            unset += 1;
            "UNDECLARED"
        } else if env_lookup(name).is_some_and(|v| !v.is_empty()) {
            "set"
        } else {
            unset += 1;
            "UNSET"
        };
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        outln!("{name:<24} {state:<6} {}", files.join(" "));
    }
    if unset > 0 {
        eprintln!("{unset} variable(s) unset or undeclared: a push would be refused");
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_outcome(
    args: &PushArgs,
    o: &Outcome,
    dry_run: bool,
    what: &str,
    secrets: &Secrets,
) -> anyhow::Result<()> {
    let text = match args.format {
        PushFormat::Json => format!("{}\n", serde_json::to_string_pretty(o)?),
        PushFormat::Text => outcome_text(o, dry_run, what),
    };
    out!("{}", secrets.redact(&text));
    Ok(())
}

fn outcome_text(o: &Outcome, dry_run: bool, what: &str) -> String {
    let mut s = String::new();
    let mut line = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    for d in &o.devices {
        line(format!(
            "== {} ({}): {:?}{}",
            d.device,
            d.driver,
            d.state,
            d.revision
                .as_deref()
                .map(|r| format!(" [revision {r}]"))
                .unwrap_or_default()
        ));
        if let Some(e) = &d.error {
            line(format!("   error: {}", e.message));
        }
        for n in &d.notes {
            line(format!("   note: {n}"));
        }
        if let Some(pf) = &d.preflight {
            for w in &pf.disruptive {
                line(format!("   DISRUPTIVE: {w}"));
            }
            if dry_run || d.state != DeviceState::Unchanged {
                for l in pf.canonical_diff.lines() {
                    line(format!("   {l}"));
                }
            }
            if dry_run && pf.changed && pf.native_diff != pf.canonical_diff {
                line("   -- device diff --".to_string());
                for l in pf.native_diff.lines() {
                    line(format!("   {l}"));
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
            o.confirm_timeout_s,
            o.journal,
            id = o.txid,
        ),
    };
    line(format!(
        "{what} {}: {summary} (exit {})",
        o.txid, o.exit_code
    ));
    s
}
