//! `railyard export <target> SPEC -o DIR`: the plan as another tool's input (README, "Exports";
//! the formats: `railyard::export`). Written like `build`'s output: atomically into a directory
//! that is new, empty or an earlier export's, with its `manifest.json`; files railyard did not
//! write are never touched. containerlab's topology names rendered configs: they are rendered
//! here, by the same renderer as `build`, and written beside it under `configs/`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use anyhow::{Context, bail};
use clap::Args;

use railyard::export::{self, IMAGE_KEYS, Images, Target};
use railyard::model::Platform;
use railyard::output::{OutputFile, OutputGroup, Selection};

use super::{Format, load, report, templates, write};

#[derive(Args)]
pub struct ExportArgs {
    /// What to write: air (NVIDIA Air JSON), air-dot (NVIDIA Air DOT), containerlab (topology
    /// and the rendered startup configs), ptm (Cumulus PTM topology.dot per NVUE switch),
    /// ufm-cvt (UFM Cable Validation Tool P2P file), netbox (NetBox bulk-import CSVs).
    #[arg(value_parser = parse_target)]
    target: Target,
    /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a built-in example).
    spec: Option<PathBuf>,
    /// Output directory: new, empty, or an earlier export's (as for `build`).
    #[arg(short, long, default_value = "export")]
    output: PathBuf,
    /// As for `build`: rename a directory that is not an earlier export's aside first.
    #[arg(long)]
    move_aside: bool,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// air, air-dot, containerlab: keep the shape, not the size, as `lab up --scale-down` does
    /// (the topology's comments say what was kept and sampled).
    #[arg(long)]
    scale_down: bool,
    /// Run every switch on this network OS whatever the spec says (frr, nvue, sonic, eos): e.g.
    /// a containerlab of FRR containers running the very frr.conf files `lab up` boots.
    #[arg(long, value_name = "OS", value_parser = parse_platform)]
    platform: Option<Platform>,
    /// The image (containerlab) or `os` (Air) of one OS, replacing the default:
    /// KEY=IMAGE with KEY one of nvue, sonic, eos, frr, node (the GPU nodes). Repeatable.
    #[arg(long = "image", value_name = "KEY=IMAGE")]
    images: Vec<String>,
    /// containerlab: templates overriding the built-in ones for the rendered configs (as for
    /// `build`).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
}

fn parse_target(s: &str) -> Result<Target, String> {
    s.parse()
}

fn parse_platform(s: &str) -> Result<Platform, String> {
    Platform::ALL
        .into_iter()
        .find(|p| p.as_str() == s)
        .ok_or_else(|| {
            let names: Vec<&str> = Platform::ALL.iter().map(|p| p.as_str()).collect();
            format!("unknown network OS `{s}` (one of: {})", names.join(", "))
        })
}

fn images(args: &[String]) -> anyhow::Result<Images> {
    let mut i = Images::default();
    for a in args {
        let Some((key, image)) = a.split_once('=') else {
            bail!(
                "--image `{}`: KEY=IMAGE with KEY one of {}",
                a.escape_debug(),
                IMAGE_KEYS.join(", ")
            );
        };
        i.set(key, image).map_err(anyhow::Error::msg)?;
    }
    Ok(i)
}

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    super::machine::begin("export", super::machine::Form::of(args.format));
    let images = images(&args.images)?;
    if args.scale_down && !args.target.simulates() {
        bail!(
            "--scale-down samples a simulation (air, air-dot, containerlab); {} covers the whole plan",
            args.target.name()
        );
    }
    let templates = templates::load(args.templates.as_deref())?;
    let src = load(args.spec.as_deref())?;
    let compiled = match args.platform {
        Some(p) => railyard::compile_for_platform(&src, p),
        None => super::compile(&src)?,
    };
    report::print(&src, &compiled.diagnostics, args.format);
    let Some(design) = &compiled.design else {
        return Ok(ExitCode::from(1));
    };
    let out = export::export(args.target, design, &images, args.scale_down)?;
    let mut files = out.files;
    if !out.configs.is_empty() {
        files.extend(configs(&compiled, &templates, &out.configs)?);
    }
    write(&args.output, args.move_aside, &files)
}

/// The rendered switch files `wanted` names, rendered as `build` renders them.
fn configs(
    compiled: &railyard::Compiled,
    templates: &railyard::render::Templates,
    wanted: &[String],
) -> anyhow::Result<Vec<OutputFile>> {
    let wanted: BTreeSet<&str> = wanted.iter().map(String::as_str).collect();
    let got = Mutex::new(Vec::new());
    let keep = |f: OutputFile| {
        if wanted.contains(f.path.as_str()) {
            got.lock().unwrap_or_else(|p| p.into_inner()).push(f);
        }
    };
    let only = Selection::of(&[OutputGroup::Configs]);
    match compiled.emit(templates, &only, &keep, &railyard::output::NoMemo) {
        Some(Ok(())) => {}
        Some(Err(e)) => return Err(e).context("rendering the configs the topology names"),
        None => bail!("the spec did not compile"),
    }
    let mut files = got.into_inner().unwrap_or_else(|p| p.into_inner());
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let have: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    if let Some(missing) = wanted.iter().find(|p| !have.contains(*p)) {
        bail!("the topology names `{missing}`, which the renderer did not write");
    }
    Ok(files)
}
