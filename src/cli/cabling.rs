//! `railyard cabling verify`: read LLDP captures, compare them with the cabling plan, print the
//! report. Exit codes: 0 every observed link matches the plan, 1 findings, 2 unreadable input
//! (spec with errors, missing file, not LLDP data, unknown local device).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Subcommand, ValueEnum};

use railyard::cabling;

#[derive(Subcommand)]
pub enum CablingCommand {
    /// Compare observed LLDP neighbours with the cabling plan: report miswired (swapped ports,
    /// wrong port, wrong device, wrong rail), missing and unexpected links with the cable to fix.
    Verify {
        /// Spec file; the built-in `lab-small` example when omitted. Give it before `--lldp`.
        spec: Option<PathBuf>,
        /// LLDP data of one device: `lldpcli -f json0 show neighbors`, `lldpctl -f json` or NVUE
        /// `nv show interface --output json` output. `DEVICE=FILE` names the device; a bare
        /// `FILE` must hold the local chassis too (`lldpcli -f json0 show chassis` output
        /// appended). Repeat the option or list several files.
        #[arg(long, value_name = "[DEVICE=]FILE", num_args = 1.., required = true)]
        lldp: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    /// Findings with the cables to fix, then a summary.
    Text,
    /// The whole report as one JSON object.
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
    let CablingCommand::Verify { spec, lldp, format } = cmd;
    let src = super::load(spec.as_deref())?;
    let compiled = railyard::compile(&src);
    let Some(fabric) = &compiled.fabric else {
        super::report::print(&src, &compiled.diagnostics, super::Format::Human);
        bail!(
            "the spec `{}` has errors: no cabling plan to verify",
            src.name
        );
    };

    let mut captures = Vec::new();
    let mut errors = Vec::new();
    for arg in &lldp {
        let (device, path) = split_arg(arg);
        let read = std::fs::read_to_string(path)
            .with_context(|| format!("reading LLDP data `{}`", path.display()))
            .and_then(|text| {
                cabling::capture(&path.display().to_string(), &text, device)
                    .with_context(|| format!("`{}`", path.display()))
            });
        match read {
            Ok(c) => captures.push(c),
            Err(e) => errors.push(format!("{e:#}")),
        }
    }
    if !errors.is_empty() {
        bail!("unreadable LLDP input:\n  {}", errors.join("\n  "));
    }

    let report = cabling::verify(fabric, &captures);
    match format {
        ReportFormat::Text => print!("{}", report.to_text()),
        ReportFormat::Json => print!("{}", report.to_json()),
    }
    Ok(if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
