//! `railyard impact SPEC [--fail NAME…] [--links] [--format text|json]`: what each single switch
//! (or cable) failure costs, ranked by blast radius (`railyard::impact`). Exit codes: 0 printed,
//! 1 the spec did not compile, 2 a `--fail` name is not in the fabric.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{Format, load, report};

#[derive(Clone, Copy, ValueEnum)]
pub enum ImpactFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct ImpactArgs {
    /// Spec file (`-`: standard input); ./cluster.yaml when omitted (`--example NAME`: a built-in example).
    spec: Option<PathBuf>,
    /// A switch, a cable id or a `device:port` to fail (repeatable); every data-network switch
    /// when omitted.
    #[arg(long, value_name = "NAME")]
    fail: Vec<String>,
    /// Also every single cable failure (without `--fail`).
    #[arg(long)]
    links: bool,
    #[arg(long, value_enum, default_value = "text")]
    format: ImpactFormat,
}

pub fn run(args: ImpactArgs) -> anyhow::Result<ExitCode> {
    if matches!(args.format, ImpactFormat::Json) {
        super::machine::begin("impact", Some(super::machine::Form::Json));
    }
    let src = load(args.spec.as_deref())?;
    let compiled = super::compile(&src)?;
    if compiled.design.is_none() {
        report::print(&src, &compiled.diagnostics, Format::Short);
        return Ok(ExitCode::from(1));
    }
    let Some(analysis) = analyse(&compiled, &args.fail, args.links, None) else {
        return Ok(ExitCode::from(2));
    };
    let text = match args.format {
        ImpactFormat::Text => {
            railyard::output::terminal::escape(&railyard::impact::to_text(&analysis)).into_owned()
        }
        ImpactFormat::Json => {
            super::machine::result(&analysis);
            return Ok(ExitCode::SUCCESS);
        }
    };
    super::stdout::out!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The `--fail` names not in the fabric (exit 2), in the machine document.
#[derive(serde::Serialize)]
struct Unknown {
    unknown: Vec<String>,
}

/// The impact analysis of a compiled spec (`scope`: only those devices); `None` after printing
/// every `--fail` name that is not in the fabric.
pub(super) fn analyse(
    compiled: &railyard::Compiled,
    names: &[String],
    links: bool,
    scope: Option<&BTreeSet<String>>,
) -> Option<railyard::impact::Analysis> {
    let design = compiled.design.as_ref()?;
    let failures = match railyard::impact::failures(&design.fabric, names, links) {
        Ok(f) => f,
        Err(unknown) => {
            super::machine::result(&Unknown {
                unknown: unknown.iter().map(ToString::to_string).collect(),
            });
            for u in unknown {
                eprintln!(
                    "error: {}",
                    railyard::output::terminal::escape_inline(&u.to_string())
                );
            }
            return None;
        }
    };
    Some(railyard::impact::analyse(design, scope, &failures))
}
