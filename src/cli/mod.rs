//! The command line: the only place that knows clap, anyhow, miette rendering and the file system
//! layout of outputs. Exit codes: 0 clean, 1 design errors, 2 unreadable input or usage error.

mod acceptance;
mod audit;
mod cabling;
mod catalog;
mod diff;
mod export;
mod globals;
mod ib;
mod impact;
mod input;
mod lab;
mod levels;
mod machine;
mod outdir;
mod progress;
mod push;
mod report;
mod reviewed;
mod shell;
mod spec_file;
mod stdout;
mod templates;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};

use railyard::diag::{Code, SourceFile};
use spec_file::load;
use stdout::{out, outln};

/// `railyard --version`: the release and the commit it was built from.
const VERSION: &str = railyard::output::manifest::RAILYARD;

#[derive(Parser)]
#[command(
    name = "railyard",
    version = VERSION,
    about = "GPU-cluster fabric spec → cabling plans, port maps, BOM"
)]
struct Cli {
    #[command(flatten)]
    globals: globals::GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// How diagnostics are printed. `human` and `short` go to standard error beside the command's
/// own output; the machine forms are one document on standard output (`machine`, docs/ci.md).
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Source snippets with labels (miette); `text` is the same.
    #[value(alias = "text")]
    Human,
    /// One line per diagnostic: `file:line:col: severity[code]: message`.
    Short,
    /// One JSON document (`"format": "railyard/<command>/v1"`): every diagnostic with its place
    /// and fingerprint, the exit code and the command's result.
    Json,
    /// GitHub Actions workflow commands: one annotation per diagnostic.
    Github,
    /// A SARIF 2.1.0 log, for code scanning.
    Sarif,
}

#[derive(Subcommand)]
enum Command {
    /// Expand a spec and write everything its networks need into one directory:
    ///
    /// configs/<switch>/ (NVUE nv-set.sh + startup.yaml, SONiC config_db.json + frr.conf +
    /// snmp_trap.json, FRR frr.conf, EOS startup-config; openconfig.xml for the OSes the spec's
    /// push.netconf names),
    /// configs/subnet-manager-*/ (OpenSM opensm.conf, root-switches.txt), intent/<switch>.yaml,
    /// cabling.csv, netbox-cables.csv, portmaps/, addresses.csv, bom.csv, bom-not-included.csv, optics-power.csv, plan.json, summary.json, tenants/ (plan, OpenSM partitions), hosts/ (NCCL topology
    /// and env, netplan, RoCE NIC script, per-tenant files), scheduler/ (Slurm topology.conf and
    /// topology.yaml, Kueue), report.html, cabling.xlsx, labels/ (ZPL and CSV per rack), and
    /// manifest.json (SHA-256 of
    /// every file). A failed run leaves an earlier output directory as it was. A rebuild over it
    /// writes only what changed; .railyard-memo.json (not a deliverable, not in the manifest)
    /// records what each switch config, label sheet and the workbook was rendered from, so those whose inputs
    /// did not change are not even rendered again. The output directory must be new, empty or
    /// an earlier build's; a rebuild replaces or removes only files its manifest lists, so files
    /// of your own in it stay.
    Build {
        /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a
        /// built-in example).
        spec: Option<PathBuf>,
        /// Output directory: new, empty, or an earlier build's (updated atomically; files not in
        /// its manifest are left alone).
        #[arg(short, long, default_value = "out")]
        output: PathBuf,
        /// If the output directory holds files that are not an earlier build's, rename it to a
        /// new name beside it (printed; nothing is deleted) and build a fresh one; without this,
        /// such a directory is refused.
        #[arg(long)]
        move_aside: bool,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Directory of templates overriding the built-in ones file by file
        /// (`DIR/frr/bgp.j2` replaces `frr/bgp.j2`).
        #[arg(long, value_name = "DIR")]
        templates: Option<PathBuf>,
        /// InfiniBand port GUIDs (`railyard ib import` output): OpenSM partitions then name the
        /// tenants' ports (`tenants/partitions.conf`) instead of placeholders.
        #[arg(long, value_name = "CSV")]
        port_guids: Option<PathBuf>,
        /// Device identities (CSV: `name,mac_address,serial`, NetBox/Nautobot column names;
        /// docs/day-zero.md): checked against the plan's switches (unknown devices, duplicates
        /// and malformed MACs or serials are errors). They never change a planned address.
        #[arg(long, value_name = "CSV")]
        identities: Option<PathBuf>,
        /// Where `dayzero/ztp/` is served (http:// or https://, docs/day-zero.md): each
        /// switch's DHCP reservation in `dayzero/kea-dhcp4.json` points at its ZTP file under it
        /// (option 239 on Cumulus Linux, 67 on SONiC and EOS).
        #[arg(long, value_name = "URL", requires = "identities")]
        provisioning_url: Option<String>,
        /// Write only these output groups (comma-separated): configs (configs/, intent/,
        /// tenants/), cabling (cabling.csv, netbox-cables.csv, portmaps/, bom.csv,
        /// bom-not-included.csv, optics-power.csv), addresses,
        /// hosts (hosts/, scheduler/), plan (plan.json, summary.json), report (report.html,
        /// cabling.xlsx, labels/*.zpl and *.csv), labels (the label sheets for office printers,
        /// labels/*.html: only on request). The output directory then holds just those, with
        /// their manifest. Default: every group but labels.
        #[arg(long, value_name = "GROUPS", value_delimiter = ',')]
        only: Vec<railyard::output::OutputGroup>,
    },
    /// Write the deliverables people look at: report.html (summary, fabric diagram, rack
    /// elevations, cabling and port-map tables, print sheets), cabling.xlsx and cable labels.
    /// `build` writes them too, with everything else.
    Report {
        /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a
        /// built-in example).
        spec: Option<PathBuf>,
        /// Output directory: new, empty, or an earlier report's (as for `build`).
        #[arg(short, long, default_value = "report")]
        output: PathBuf,
        /// As for `build`: rename a directory that is not an earlier report's aside first.
        #[arg(long)]
        move_aside: bool,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Check a spec and report every problem; writes nothing.
    Validate {
        spec: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Print the cluster's key figures.
    Summary {
        spec: Option<PathBuf>,
        /// `text` (a table) or `json` (one object).
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
        /// The same as `--format json` (kept for scripts written before `--format`).
        #[arg(long, hide = true)]
        json: bool,
    },
    /// Print the JSON Schema of the spec (for editor completion), or the spec reference
    /// generated from it (`docs/spec.md`).
    Schema {
        /// `json` (the JSON Schema) or `markdown` (the reference).
        #[arg(long, value_enum, default_value = "json")]
        format: SchemaFormat,
    },
    /// Explain a diagnostic code, e.g. `railyard explain RY0204`; all codes when omitted.
    Explain { code: Option<String> },
    /// List the built-in hardware models (switches with their ports and breakouts, nodes with
    /// their NICs) and the built-in example specs (`--example NAME`).
    Catalog {
        /// `text` or `json` (every field of every model).
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Print a shell's completion script: `railyard completions bash > /etc/bash_completion.d/railyard`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page railyard(1), or write one page per command into a directory.
    Man {
        /// Write railyard.1, railyard-build.1, … into this directory instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Verify the installed cabling against the plan (LLDP).
    #[command(subcommand)]
    Cabling(cabling::CablingCommand),
    /// Virtual lab: boot the fabric in network namespaces with FRR, verify it, tear it down.
    #[command(subcommand)]
    Lab(lab::LabCommand),
    /// Push rendered configs to switches: preflight, dry-run diff, confirmed commit in waves.
    Push(push::PushArgs),
    /// The change between two designs (specs or build directories) as a work order: cables to
    /// remove, move and add, switch configs by meaning with disruptive changes flagged,
    /// renumbering, parts to order. Exit 0 no change, 1 safe changes, 2 disruptive,
    /// renumbering or removal, 3 could not compare.
    Diff(diff::DiffArgs),
    /// Read-only: compare every device's running config by meaning with a build; drift per device.
    Audit(audit::AuditArgs),
    /// InfiniBand: import port GUIDs of the installed fabric.
    #[command(subcommand)]
    Ib(ib::IbCommand),
    /// Write the plan as another tool's input: NVIDIA Air (air, air-dot), containerlab, Cumulus
    /// PTM (ptm), UFM Cable Validation Tool (ufm-cvt), NetBox bulk import (netbox).
    Export(export::ExportArgs),
    /// Bring-up acceptance: the link and NCCL tests of a cluster (plan), and which cable the
    /// results point at (check).
    #[command(subcommand)]
    Acceptance(acceptance::AcceptanceCommand),
    /// What each single switch (or cable) failure costs: bandwidth per rail, SU, plane and
    /// tenant, ECMP width left, nodes cut off, scheduler blocks; ranked by blast radius.
    Impact(impact::ImpactArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SchemaFormat {
    Json,
    Markdown,
}

/// What a command prints on standard output: `text` for people, `json` for machines.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    globals::set(cli.globals);
    let outcome = dispatch(cli.command);
    machine::finish(&outcome);
    match outcome {
        Ok(code) => code,
        Err(e) => {
            // Errors quote file names and data: shown through the terminal escape.
            eprintln!(
                "error: {}",
                railyard::output::terminal::escape(&format!("{e:#}"))
            );
            ExitCode::from(2)
        }
    }
}

/// Compile a spec, with the command line's warning levels applied (`levels`).
fn compile(src: &SourceFile) -> anyhow::Result<railyard::Compiled> {
    levels::apply(src, railyard::compile(src))
}

/// Write `files` atomically into `dir`, with a progress bar on a terminal.
fn write(
    dir: &Path,
    move_aside: bool,
    files: &[railyard::output::OutputFile],
) -> anyhow::Result<ExitCode> {
    let progress = progress::Progress::new();
    progress.writing(files.len());
    let result = outdir::write_atomically(dir, move_aside, files, &|| progress.file_written());
    progress.clear();
    let stats = result.with_context(|| format!("writing `{}`", dir.display()))?;
    written(dir, stats);
    Ok(ExitCode::SUCCESS)
}

/// What `build` (and every command writing an output directory) wrote, in its machine document.
#[derive(serde::Serialize)]
struct Written<'a> {
    output: &'a Path,
    files: usize,
    written: usize,
    unchanged: usize,
    /// Files of the groups `--only` left out, kept as they were.
    carried: usize,
}

fn written(dir: &Path, stats: outdir::WriteStats) {
    machine::result(&Written {
        output: dir,
        files: stats.written + stats.unchanged,
        written: stats.written,
        unchanged: stats.unchanged,
        carried: stats.carried,
    });
    if globals::get().quiet {
        return;
    }
    eprintln!(
        "wrote {} files to {}: {} written, {} unchanged",
        stats.written + stats.unchanged,
        dir.display(),
        stats.written,
        stats.unchanged
    );
    if stats.carried > 0 {
        eprintln!(
            "kept {} files of the groups not selected with --only as they were (still listed in manifest.json)",
            stats.carried
        );
    }
}

fn dispatch(cmd: Command) -> anyhow::Result<ExitCode> {
    match cmd {
        Command::Build {
            spec,
            output,
            move_aside,
            format,
            templates,
            port_guids,
            identities,
            provisioning_url,
            only,
        } => {
            machine::begin("build", machine::Form::of(format));
            build(
                spec.as_deref(),
                &output,
                move_aside,
                format,
                templates.as_deref(),
                Imports {
                    port_guids: port_guids.as_ref(),
                    identities: identities.as_ref(),
                    provisioning_url: provisioning_url.as_deref(),
                },
                &only,
            )
        }
        Command::Report {
            spec,
            output,
            move_aside,
            format,
        } => {
            machine::begin("report", machine::Form::of(format));
            report_only(spec.as_deref(), &output, move_aside, format)
        }
        Command::Validate { spec, format } => {
            machine::begin("validate", machine::Form::of(format));
            validate(spec.as_deref(), format)
        }
        Command::Summary { spec, format, json } => {
            let format = if json { OutputFormat::Json } else { format };
            summary(spec.as_deref(), format)
        }
        Command::Schema { format } => {
            match format {
                SchemaFormat::Json => outln!(
                    "{}",
                    serde_json::to_string_pretty(&railyard::spec::schema())?
                ),
                SchemaFormat::Markdown => {
                    out!(
                        "{}",
                        railyard::spec::reference::markdown(railyard::EXAMPLES)
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { code } => Ok(explain(code)),
        Command::Cabling(cmd) => cabling::run(cmd),
        Command::Lab(cmd) => lab::run(cmd),
        Command::Push(args) => push::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Ib(cmd) => ib::run(cmd),
        Command::Export(args) => export::run(args),
        Command::Acceptance(cmd) => acceptance::run(cmd),
        Command::Impact(args) => impact::run(args),
        Command::Catalog { format } => catalog::print(format),
        Command::Completions { shell } => Ok(shell::completions(shell)),
        Command::Man { dir } => shell::man(dir.as_deref()),
    }
}

/// `railyard build`.
fn build(
    spec: Option<&Path>,
    output: &Path,
    move_aside: bool,
    format: Format,
    templates: Option<&Path>,
    imports: Imports<'_>,
    only: &[railyard::output::OutputGroup],
) -> anyhow::Result<ExitCode> {
    // Some groups only: the previous build's other groups stay as they are.
    let partial = !only.is_empty()
        && railyard::output::Selection::of(only) != railyard::output::Selection::all();
    let only = railyard::output::Selection::of(only);
    let templates = templates::load(templates)?;
    let src = load(spec)?;
    let progress = progress::Progress::new();
    progress.stage("compiling");
    // Whether railyard may write to the output directory, and what of a previous build it may
    // keep, is found out while the spec compiles; a refusal comes after the spec's own errors.
    let previous = {
        let output = output.to_path_buf();
        std::thread::spawn(move || outdir::target(&output, move_aside))
    };
    let mut compiled = compile(&src)?;
    if let Some(csv) = imports.port_guids {
        let Some(guids) = port_guids_of(&src, &compiled, csv, format, &progress)? else {
            return Ok(ExitCode::from(1));
        };
        compiled = compiled.with_port_guids(&guids);
    }
    if compiled.design.is_none() {
        progress.clear();
        report::print(&src, &compiled.diagnostics, format);
        return Ok(ExitCode::from(1));
    }
    let mut dayzero = Vec::new();
    if let Some(csv) = imports.identities {
        progress.clear();
        match dayzero_of(&compiled, csv, imports.provisioning_url, format)? {
            Some(files) => dayzero = files,
            None => {
                report::print(&src, &compiled.diagnostics, format);
                return Ok(ExitCode::from(1));
            }
        }
    }
    // Rendered and written as it goes: the output is never all in memory at once.
    progress.streaming("rendering and writing");
    let target = previous
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p));
    let result = target.and_then(|target| {
        let target = if partial {
            target.carrying_over()
        } else {
            target
        }
        .built_from(railyard::output::digest::sha256_hex(src.text.as_bytes()));
        outdir::write_over(
            target,
            |sink, memo| match compiled.emit(&templates, &only, sink, memo) {
                Some(Ok(())) => {
                    if only.has(railyard::output::OutputGroup::Configs) {
                        dayzero.iter().for_each(|f| sink(f.clone()));
                    }
                    Ok(())
                }
                Some(Err(e)) => Err(e.into()),
                None => Err(anyhow::anyhow!("the spec did not compile")),
            },
            &|| progress.file_written(),
        )
    });
    progress.clear();
    report::print(&src, &compiled.diagnostics, format);
    exiting(compiled);
    let stats = result.with_context(|| format!("writing `{}`", output.display()))?;
    written(output, stats);
    Ok(ExitCode::SUCCESS)
}

/// The files `build` reads beside the spec.
struct Imports<'a> {
    port_guids: Option<&'a PathBuf>,
    identities: Option<&'a PathBuf>,
    provisioning_url: Option<&'a str>,
}

/// `build --identities`: the identity CSV checked against the compiled plan's switches and the
/// provisioning URL checked, every problem printed located in the CSV or the flag's value; the
/// day-zero files (the DHCP server's configuration), or `None` when anything was refused. The
/// plan is not changed.
fn dayzero_of(
    compiled: &railyard::Compiled,
    csv: &Path,
    url: Option<&str>,
    format: Format,
) -> anyhow::Result<Option<Vec<railyard::output::OutputFile>>> {
    let Some(design) = &compiled.design else {
        return Ok(Some(Vec::new()));
    };
    let url = match url.map(railyard::dayzero::ProvisioningUrl::parse) {
        None => None,
        Some(Ok(url)) => Some(url),
        Some(Err(e)) => {
            let flag = SourceFile::new("--provisioning-url", url.unwrap_or_default());
            let mut diags = railyard::diag::Diagnostics::default();
            diags.push(
                railyard::diag::Diagnostic::error(
                    railyard::diag::codes::PROVISIONING_URL,
                    e.message,
                )
                .at(Some(e.span), "here")
                .help("for example `--provisioning-url http://10.0.0.5/ztp`"),
            );
            report::print(&flag, &diags, format);
            return Ok(None);
        }
    };
    let text = input::read_text(csv, input::IDENTITIES)?;
    let src = SourceFile::new(csv.display().to_string(), text);
    let mut diags = railyard::diag::Diagnostics::default();
    let ids = railyard::dayzero::parse(&src, &design.fabric, &mut diags);
    let files = if diags.has_errors() {
        None
    } else {
        railyard::dayzero::files(design, &ids, url.as_ref(), &mut diags)?
    };
    report::print(&src, &diags, format);
    Ok(files.filter(|_| !diags.has_errors()))
}

/// `build --port-guids`: the CSV checked against the plan, its GUIDs for the partitions (applied
/// to the compiled design, not compiled again). `None` (diagnostics printed) when the CSV does
/// not match the plan.
fn port_guids_of(
    src: &SourceFile,
    compiled: &railyard::Compiled,
    csv: &PathBuf,
    format: Format,
    progress: &progress::Progress,
) -> anyhow::Result<Option<railyard::model::PortGuids>> {
    progress.clear();
    let Some(imported) = ib::resolve(compiled, &[], &[], std::slice::from_ref(csv), format)? else {
        report::print(src, &compiled.diagnostics, format);
        return Ok(None);
    };
    progress.stage("the port GUIDs into the partitions");
    Ok(Some(imported.guids))
}

/// `railyard report`.
fn report_only(
    spec: Option<&Path>,
    output: &Path,
    move_aside: bool,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let src = load(spec)?;
    let progress = progress::Progress::new();
    progress.stage("compiling");
    let compiled = compile(&src)?;
    progress.stage("drawing the report, workbook and labels");
    let files = compiled.report_outputs();
    progress.clear();
    report::print(&src, &compiled.diagnostics, format);
    let Some(files) = files else {
        return Ok(ExitCode::from(1));
    };
    write(output, move_aside, &files?)
}

/// `validate`'s result in its machine document: whether the spec compiles (under `--strict`,
/// without warnings).
#[derive(serde::Serialize)]
struct Validity {
    valid: bool,
}

/// `railyard validate`.
fn validate(spec: Option<&Path>, format: Format) -> anyhow::Result<ExitCode> {
    let src = load(spec)?;
    let compiled = compile(&src)?;
    report::print(&src, &compiled.diagnostics, format);
    machine::result(&Validity {
        valid: compiled.design.is_some(),
    });
    if compiled.design.is_none() {
        return Ok(ExitCode::from(1));
    }
    if machine::Form::of(format).is_none() && !globals::get().quiet {
        let d = &compiled.diagnostics;
        let mut counts = vec![format!("{} warning(s)", d.warning_count())];
        if d.info_count() > 0 {
            counts.push(format!("{} info", d.info_count()));
        }
        if d.allowed_count() > 0 {
            counts.push(format!(
                "{} accepted by `diagnostics.allow`",
                d.allowed_count()
            ));
        }
        if d.accepted_count() > 0 {
            counts.push(format!(
                "{} accepted by --allow or --baseline",
                d.accepted_count()
            ));
        }
        eprintln!(
            "{}: valid ({})",
            railyard::output::terminal::escape(&src.name),
            counts.join(", ")
        );
    }
    exiting(compiled);
    Ok(ExitCode::SUCCESS)
}

/// `railyard summary`.
fn summary(spec: Option<&Path>, format: OutputFormat) -> anyhow::Result<ExitCode> {
    let src = load(spec)?;
    let compiled = compile(&src)?;
    let Some(design) = &compiled.design else {
        report::print(&src, &compiled.diagnostics, Format::Human);
        return Ok(ExitCode::from(1));
    };
    let s = railyard::artifacts::summary::summarize_with(&design.fabric, &design.intents.tenants);
    match format {
        OutputFormat::Json => out!(
            "{}",
            String::from_utf8_lossy(&railyard::artifacts::summary::to_json(&s)?)
        ),
        OutputFormat::Text => out!("{}", railyard::artifacts::summary::to_table(&s)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `railyard explain [CODE]`.
fn explain(code: Option<String>) -> ExitCode {
    match code {
        None => {
            for c in railyard::diag::ALL_CODES {
                outln!("{}  {}", c.id, c.title);
            }
            ExitCode::SUCCESS
        }
        Some(id) => match Code::find(&id) {
            Some(c) => {
                outln!("{}: {}\n\n{}", c.id, c.title, c.explain);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("error: no diagnostic code `{id}`; `railyard explain` lists them");
                ExitCode::from(2)
            }
        },
    }
}

/// The command is done with the compiled model and the process exits next: the OS takes the
/// memory back at once, while dropping the graph and intents of a 131k-GPU fabric piece by
/// piece costs about 0.05 s for nothing.
fn exiting(compiled: railyard::Compiled) {
    std::mem::forget(compiled);
}
