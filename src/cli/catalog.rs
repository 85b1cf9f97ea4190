//! `railyard catalog`: the built-in hardware models and example specs, for people (a line per
//! model with its ports) or machines (every field, as the spec's `catalog:` would write it).

use std::process::ExitCode;

use serde::Serialize;

use super::OutputFormat;
use super::stdout::{out, outln};

/// The JSON form: its own version, so a script can tell a future change of shape.
#[derive(Serialize)]
struct CatalogJson<'a> {
    version: u32,
    #[serde(flatten)]
    catalog: &'a railyard::catalog::Catalog,
    examples: Vec<&'static str>,
}

pub fn print(format: OutputFormat) -> anyhow::Result<ExitCode> {
    let cat = railyard::catalog::builtin();
    let examples: Vec<&'static str> = railyard::EXAMPLES.iter().map(|(n, _)| *n).collect();
    match format {
        OutputFormat::Json => {
            let doc = CatalogJson {
                version: 1,
                catalog: cat,
                examples,
            };
            outln!("{}", serde_json::to_string_pretty(&doc)?);
        }
        OutputFormat::Text => {
            outln!("switches:");
            for (k, m) in &cat.switches {
                outln!("  {:<14} {}", k.as_str(), m.description);
                for g in &m.port_groups {
                    outln!(
                        "  {:<14}   {} × {} {} (breakouts {})",
                        "",
                        g.count,
                        g.speed,
                        g.form.as_str(),
                        g.breakouts.join(", ")
                    );
                }
            }
            outln!("nodes:");
            for (k, m) in &cat.nodes {
                outln!("  {:<14} {}", k.as_str(), m.description);
                outln!(
                    "  {:<14}   {} × {}, compute NICs: {}",
                    "",
                    m.gpus,
                    m.gpu_model,
                    nics(&m.compute)
                );
            }
            outln!("examples (--example NAME):");
            out!("  {}\n", examples.join(" "));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `8 × 400G`, or each speed's count when they differ.
fn nics(ports: &[railyard::catalog::NodePort]) -> String {
    let mut runs: Vec<(railyard::model::Speed, usize)> = Vec::new();
    for p in ports {
        match runs.iter_mut().find(|(s, _)| *s == p.speed) {
            Some((_, n)) => *n += 1,
            None => runs.push((p.speed, 1)),
        }
    }
    let runs: Vec<String> = runs.iter().map(|(s, n)| format!("{n} × {s}")).collect();
    runs.join(", ")
}
