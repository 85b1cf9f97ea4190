//! `railyard cabling verify`: read LLDP captures (streaming, at most `input::LLDP_CAPTURE` each),
//! compare them with the cabling plan, print the report. Exit codes: 0 PASS, 1 FAIL, 2 unreadable
//! input (spec with errors, missing, oversized or unreadable file, not LLDP data, unknown local
//! or scope device), 3 INCOMPLETE. Everything printed that carries outside data goes through the
//! terminal escape.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use clap::{Subcommand, ValueEnum};

use railyard::cabling::{self, Capture, Scope, Status};
use railyard::model::Tier;
use railyard::output::terminal::escape_inline as esc;

use super::input::{self, LLDP_CAPTURE};
use super::stdout::out;

/// What the results mean and what the scope is; shown by `--help`.
const VERIFY_HELP: &str = "\
Results:
  PASS        exit 0: every planned cable in scope was seen by LLDP, as planned.
  FAIL        exit 1: LLDP saw a deviation (miswired, missing or unexpected link).
  INCOMPLETE  exit 3: no deviation seen, but something was not verified: a planned cable in
              scope that LLDP did not see (neither end captured, or its far end sent no LLDP a
              capture saw), a capture from a device the plan does not have (listed, not
              compared), no neighbour entry in any capture, or an empty scope. The report names
              what was not verified (counts and the first few; --format json lists all).
  exit 2: unreadable input (spec with errors, a capture missing, unreadable, not a regular file
  or over the 64 MiB limit for one capture, not LLDP data, a device name the plan does not
  have).

Scope: by default every planned cable must be seen; capturing only some devices therefore gives
INCOMPLETE. --devices and --tier narrow what must be seen to the cables with at least one end on
a listed device and of a listed tier. Narrowing never hides a deviation: anything LLDP saw that
differs from the plan fails the verification, in scope or not.

Example: the switch fabric only, from the switches' captures (nodes run no LLDP agent):
  railyard cabling verify cluster.yaml --tier leaf-spine,spine-core --lldp leaf01=leaf01.json ...";

#[derive(Subcommand)]
pub enum CablingCommand {
    /// Compare observed LLDP neighbours with the cabling plan: report miswired (swapped ports,
    /// wrong port, wrong device, wrong rail), missing and unexpected links with the cable to fix,
    /// and what could not be verified.
    #[command(after_help = VERIFY_HELP)]
    Verify {
        /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a built-in example). Give it before `--lldp`.
        spec: Option<PathBuf>,
        /// LLDP data of one device: `lldpcli -f json0 show neighbors`, `lldpctl -f json` or NVUE
        /// `nv show interface --output json` output. `DEVICE=FILE` names the device; a bare
        /// `FILE` must hold the local chassis too (`lldpcli -f json0 show chassis` output
        /// appended). Repeat the option or list several files. At most 64 MiB per file.
        #[arg(long, value_name = "[DEVICE=]FILE", num_args = 1.., required = true)]
        lldp: Vec<String>,
        /// Only the planned cables with at least one end on one of these devices must be seen
        /// (comma-separated plan names).
        #[arg(long, value_name = "DEVICE,...", value_delimiter = ',', num_args = 1..)]
        devices: Vec<String>,
        /// Only the planned cables of these tiers must be seen: node-leaf, leaf-spine,
        /// spine-core, leaf-leaf, mgmt, oob-uplink (comma-separated).
        #[arg(long, value_name = "TIER,...", value_delimiter = ',', num_args = 1..,
              value_parser = cabling::tier_named)]
        tier: Vec<Tier>,
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    /// Findings with the cables to fix, what was not verified, then a summary.
    Text,
    /// The whole report as one JSON object (`status`: pass, fail or incomplete).
    Json,
}

/// `DEVICE=FILE` or `FILE`. A path that exists is always a file, even with a `=` in it.
fn split_arg(arg: &str) -> (Option<&str>, &Path) {
    if !Path::new(arg).exists()
        && let Some((device, file)) = arg.split_once('=')
        && !device.is_empty()
        && !device.contains('/')
    {
        return (Some(device), Path::new(file));
    }
    (None, Path::new(arg))
}

pub fn run(cmd: CablingCommand) -> anyhow::Result<ExitCode> {
    let CablingCommand::Verify {
        spec,
        lldp,
        devices,
        tier,
        format,
    } = cmd;
    let src = super::load(spec.as_deref())?;
    let compiled = railyard::compile(&src);
    let Some(design) = &compiled.design else {
        super::report::print(&src, &compiled.diagnostics, super::Format::Human);
        bail!(
            "the spec `{}` has errors: no cabling plan to verify",
            esc(&src.name)
        );
    };
    let fabric = &design.fabric;
    let scope = Scope::new(fabric, &devices, &tier).map_err(|e| {
        anyhow::anyhow!(
            "--devices: {}; see `railyard build` (cabling.csv)",
            esc(&e.to_string())
        )
    })?;

    let mut captures = Vec::new();
    let mut errors = Vec::new();
    for arg in &lldp {
        let (device, path) = split_arg(arg);
        match read_capture(path, device) {
            Ok(c) => captures.push(c),
            Err(e) => errors.push(format!(
                "`{}`: {}",
                esc(&path.display().to_string()),
                esc(&e)
            )),
        }
    }
    if !errors.is_empty() {
        bail!("unreadable LLDP input:\n  {}", errors.join("\n  "));
    }

    // Servers report their ports by the names their OS gives them: read those as the plan's.
    let aliases = cabling::PortAliases::new(design.intents.hosts.nodes.values().flat_map(|n| {
        n.ports.iter().filter_map(|p| {
            let os = p.netdev.clone()?;
            Some((n.name.clone(), os, p.port.clone()))
        })
    }));
    let report = cabling::verify_named(fabric, &captures, &scope, &aliases);
    match format {
        ReportFormat::Text => out!("{}", report.to_text()),
        ReportFormat::Json => out!("{}", report.to_json()),
    }
    Ok(match report.status {
        Status::Pass => ExitCode::SUCCESS,
        Status::Fail => ExitCode::from(1),
        Status::Incomplete => ExitCode::from(3),
    })
}

/// One capture file, streamed through the bounded reader: refused unread when it is not a
/// regular file or is over the limit, cut off at the limit when it grew past it since.
fn read_capture(path: &Path, device: Option<&str>) -> Result<Capture, String> {
    let file = input::open(path, LLDP_CAPTURE).map_err(|e| format!("{e:#}"))?;
    cabling::parse_reader(file)
        .and_then(|p| cabling::capture_of(&path.display().to_string(), p, device))
        .map_err(|e| e.to_string())
}
