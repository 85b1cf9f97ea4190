//! `railyard audit`: the CLI edge of the read-only audit — for every device of the targets file,
//! its running config read through the driver's read path (`Driver::running`) and compared by
//! meaning with the build's config for it (`--from DIR`, checked against its manifest,
//! placeholders filled from the environment as push fills them), drift printed per device (`-`
//! only on the device, `+` only in the build; every secret value shown as `<redacted>`).
//! Exit codes: 0 no drift, 1 drift, 2 a device unreachable or unreadable, 3 bad input.
//! Never writes to a device: no staging, lock, candidate edit, file or commit.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use clap::{Args, ValueEnum};

use super::stdout::out;
use railyard::meaning::canonical;
use railyard::push::{
    self as push_lib, AuditLines, DevicePlan, DriverError, PushSettings, Secrets,
};

#[derive(Clone, Copy, ValueEnum)]
pub enum AuditFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct AuditArgs {
    /// Targets file (as for `railyard push`): device → address, port, user, driver.
    #[arg(long, value_name = "FILE", default_value = "targets.yaml")]
    targets: PathBuf,
    /// The credentials and known_hosts, as for `railyard push`: the operator's.
    #[command(flatten)]
    operator: super::push::OperatorArgs,
    /// The build to compare with (`DIR/configs/<device>/…`, checked against `DIR/manifest.json`).
    #[arg(long, value_name = "DIR")]
    from: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    format: AuditFormat,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 60)]
    rpc_timeout: u64,
    /// TCP + SSH handshake timeout in seconds.
    #[arg(long, default_value_t = 10)]
    connect_timeout: u64,
}

/// One device's audit result.
#[derive(serde::Serialize)]
struct DeviceAudit {
    device: String,
    driver: String,
    /// `in-sync`, `drift` or `unreadable`.
    state: &'static str,
    /// Lines only on the device.
    removed: Vec<String>,
    /// Lines only in the build.
    added: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<DriverError>,
    notes: Vec<String>,
}

#[derive(serde::Serialize)]
struct Report {
    devices: Vec<DeviceAudit>,
    exit_code: u8,
}

pub fn run(args: AuditArgs) -> anyhow::Result<ExitCode> {
    match plans_of(&args) {
        Ok((plans, targets, secrets)) => {
            let settings = settings_of(&args);
            let devices: Vec<DeviceAudit> = plans
                .iter()
                .zip(&targets)
                .map(|(p, t)| audit_one(p, push_lib::make_driver(t, "audit", &settings)))
                .collect();
            let exit_code = exit_code(&devices);
            print(&args, &Report { devices, exit_code }, &secrets)?;
            Ok(ExitCode::from(exit_code))
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(ExitCode::from(3))
        }
    }
}

fn settings_of(args: &AuditArgs) -> PushSettings {
    let mut s = PushSettings::default();
    s.txn.dry_run = true;
    s.connect.connect_timeout = Duration::from_secs(args.connect_timeout.max(1));
    s.client.rpc_timeout = Duration::from_secs(args.rpc_timeout.max(1));
    s.client.hello_timeout = s.connect.connect_timeout;
    s
}

/// The targets and the build's files for each, placeholders filled: every input problem is
/// found before any device is contacted.
fn plans_of(args: &AuditArgs) -> anyhow::Result<(Vec<DevicePlan>, Vec<push_lib::Target>, Secrets)> {
    let text = super::input::read_text(&args.targets, super::input::TARGETS)?;
    let targets = push_lib::parse_targets(&text, &args.targets, &args.operator.operator())?;
    if targets.is_empty() {
        bail!("targets file {} lists no devices", args.targets.display());
    }
    let files = push_lib::read_output_dir(&args.from).map_err(anyhow::Error::msg)?;
    let paths = push_lib::manifest_paths(&targets, &files);
    push_lib::check_manifest(&args.from, &files, &paths).map_err(anyhow::Error::msg)?;
    let mut plans = push_lib::plan(&targets, &files).map_err(anyhow::Error::msg)?;
    let declared = push_lib::declaration_of(&files).map_err(anyhow::Error::msg)?;
    let secrets = push_lib::fill_secrets(&mut plans, &declared, &|n| std::env::var(n).ok())?;
    Ok((plans, targets, secrets))
}

fn audit_one(p: &DevicePlan, mut driver: Box<dyn push_lib::Driver>) -> DeviceAudit {
    let mut d = DeviceAudit {
        device: p.name.clone(),
        driver: p.driver_name.clone(),
        state: "unreadable",
        removed: Vec::new(),
        added: Vec::new(),
        error: None,
        notes: Vec::new(),
    };
    match driver.running(&p.intended) {
        Ok(AuditLines {
            device,
            build,
            notes,
        }) => {
            let (removed, added) = canonical::diff(&device, &build);
            d.state = if removed.is_empty() && added.is_empty() {
                "in-sync"
            } else {
                "drift"
            };
            (d.removed, d.added, d.notes) = (removed, added, notes);
        }
        Err(e) => d.error = Some(e),
    }
    d
}

/// 2 when any device could not be read, else 1 when any drifted, else 0.
fn exit_code(devices: &[DeviceAudit]) -> u8 {
    if devices.iter().any(|d| d.error.is_some()) {
        2
    } else if devices.iter().any(|d| d.state == "drift") {
        1
    } else {
        0
    }
}

fn print(args: &AuditArgs, r: &Report, secrets: &Secrets) -> anyhow::Result<()> {
    let text = match args.format {
        AuditFormat::Json => format!("{}\n", serde_json::to_string_pretty(r)?),
        AuditFormat::Text => report_text(r),
    };
    out!("{}", secrets.redact(&text));
    Ok(())
}

fn report_text(r: &Report) -> String {
    let mut s = String::new();
    for d in &r.devices {
        s.push_str(&format!("== {} ({}): {}\n", d.device, d.driver, d.state));
        if let Some(e) = &d.error {
            s.push_str(&format!("   error: {}\n", e.message));
        }
        for n in &d.notes {
            s.push_str(&format!("   note: {n}\n"));
        }
        for l in canonical::diff_text(&d.removed, &d.added).lines() {
            s.push_str(&format!("   {l}\n"));
        }
    }
    s
}
