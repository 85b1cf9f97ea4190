//! `railyard ib import`: read GUID captures of the installed InfiniBand fabric, match them to the
//! plan's node ports and write the port-GUID CSV `railyard build --port-guids` reads. Exit codes:
//! 0 written, 1 problems in the captures (nothing written), 2 unreadable input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Subcommand;

use super::{Format, input, load, outdir, report};
use railyard::capture::ib;
use railyard::diag::{Diagnostics, SourceFile};

#[derive(Subcommand)]
pub enum IbCommand {
    /// Map port GUIDs from `ibnetdiscover`, `ibstat` or a CSV to the plan's node ports and write
    /// them as a CSV for `railyard build --port-guids`.
    Import {
        /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a built-in example).
        spec: Option<PathBuf>,
        /// `ibnetdiscover` output of the compute fabric (hosts named by their node descriptions).
        #[arg(long, value_name = "FILE")]
        ibnetdiscover: Vec<PathBuf>,
        /// `ibstat` output of one node: `NODE=FILE`. Repeat per node.
        #[arg(long, value_name = "NODE=FILE")]
        ibstat: Vec<String>,
        /// A CSV with `node`, `guid` and `port` (or `rdma`) columns.
        #[arg(long, value_name = "FILE")]
        csv: Vec<PathBuf>,
        /// Where to write the port-GUID CSV (replaced atomically).
        #[arg(short, long, default_value = "port-guids.csv")]
        output: PathBuf,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
}

fn read(path: &Path, kind: railyard::output::bounded::Kind) -> anyhow::Result<SourceFile> {
    let text = input::read_text(path, kind)?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

/// Parse every capture; the files and, per file, its diagnostics.
fn parse_all(
    ibnetdiscover: &[PathBuf],
    ibstat: &[String],
    csv: &[PathBuf],
) -> anyhow::Result<(Vec<SourceFile>, Vec<Diagnostics>, Vec<ib::CapturedPort>)> {
    let (mut files, mut diags, mut ports) = (Vec::new(), Vec::new(), Vec::new());
    for p in ibnetdiscover {
        let src = read(p, input::IB_CAPTURE)?;
        let mut d = Diagnostics::default();
        ports.extend(ib::parse_ibnetdiscover(files.len(), &src, &mut d));
        files.push(src);
        diags.push(d);
    }
    for arg in ibstat {
        let Some((node, path)) = arg.split_once('=') else {
            bail!("`--ibstat {arg}`: write NODE=FILE (ibstat does not name the host)");
        };
        let src = read(Path::new(path), input::IB_CAPTURE)?;
        let mut d = Diagnostics::default();
        ports.extend(ib::parse_ibstat(files.len(), node, &src, &mut d));
        files.push(src);
        diags.push(d);
    }
    for p in csv {
        let src = read(p, input::PORT_GUIDS)?;
        let mut d = Diagnostics::default();
        ports.extend(ib::parse_csv(files.len(), &src, &mut d));
        files.push(src);
        diags.push(d);
    }
    Ok((files, diags, ports))
}

/// Read GUID captures and resolve them against a compiled spec; `None` (after printing every
/// problem) when a capture is unreadable or does not fit the plan.
pub fn resolve(
    compiled: &railyard::Compiled,
    ibnetdiscover: &[PathBuf],
    ibstat: &[String],
    csv: &[PathBuf],
    format: Format,
) -> anyhow::Result<Option<ib::Imported>> {
    let Some(design) = &compiled.design else {
        return Ok(None);
    };
    let (files, mut diags, ports) = parse_all(ibnetdiscover, ibstat, csv)?;
    let imported = ib::map(&ports, &design.fabric, &design.intents.hosts);
    for (i, d) in &imported.diagnostics {
        if let Some(slot) = diags.get_mut(*i) {
            slot.push(d.clone());
        }
    }
    let mut failed = false;
    for (src, d) in files.iter().zip(&diags) {
        report::print(src, d, format);
        failed |= d.has_errors();
    }
    Ok((!failed).then_some(imported))
}

/// `ib import`'s result in its machine document.
#[derive(serde::Serialize)]
struct Imported<'a> {
    output: &'a Path,
    port_guids: usize,
    compute_ports: usize,
    skipped: usize,
}

pub fn run(cmd: IbCommand) -> anyhow::Result<ExitCode> {
    let IbCommand::Import {
        spec,
        ibnetdiscover,
        ibstat,
        csv,
        output: out,
        format,
    } = cmd;
    super::machine::begin("ib-import", super::machine::Form::of(format));
    if ibnetdiscover.is_empty() && ibstat.is_empty() && csv.is_empty() {
        bail!("give at least one capture: --ibnetdiscover FILE, --ibstat NODE=FILE or --csv FILE");
    }
    let src = load(spec.as_deref())?;
    let compiled = super::compile(&src)?;
    report::print(&src, &compiled.diagnostics, format);
    let Some(design) = &compiled.design else {
        return Ok(ExitCode::from(1));
    };
    let Some(imported) = resolve(&compiled, &ibnetdiscover, &ibstat, &csv, format)? else {
        eprintln!("nothing written: fix the captures above");
        return Ok(ExitCode::from(1));
    };
    let rows = imported.rows(&design.intents.hosts);
    let bytes = ib::write_csv(&rows).map_err(anyhow::Error::msg)?;
    outdir::write_file_atomically(&out, &bytes)
        .with_context(|| format!("writing `{}`", out.display()))?;
    let wanted: usize = design
        .intents
        .hosts
        .nodes
        .values()
        .map(|n| n.ports.len())
        .sum();
    super::machine::result(&Imported {
        output: &out,
        port_guids: rows.len(),
        compute_ports: wanted,
        skipped: imported.skipped,
    });
    eprintln!(
        "wrote {} port GUID(s) of {wanted} compute port(s) to {} ({} captured port(s) of appliances or other networks skipped)",
        rows.len(),
        out.display(),
        imported.skipped
    );
    Ok(ExitCode::SUCCESS)
}
