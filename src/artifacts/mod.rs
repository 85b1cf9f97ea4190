//! Documents derived from the fabric and its allocation — cabling plan, port maps, address plan,
//! BOM, plan, summary, manifest. Pure: returns file contents; the CLI writes them. A file that
//! cannot be written is an [`ArtifactError`] naming it, never an empty or missing file.

mod addresses;
mod bom;
mod cabling;
mod error;
mod hosts;
mod k8s;
mod plan;
mod portmap;
mod report;
mod scheduler;
pub mod summary;

use crate::addressing::Allocation;
use crate::diag::Diagnostics;
use crate::intent::Intents;
use crate::output::{Collector, Memo, NoMemo, OutputFile, OutputGroup, Selection, Sink};
use crate::physical::PhysicalPlan;
use crate::spec::ClusterSpec;
use crate::topology::Fabric;
pub use error::ArtifactError;
pub(crate) use error::InFile;
pub use scheduler::blocks as scheduler_blocks;

/// What the artifacts are derived from: the graph, its allocation and intent, and the spec's
/// global knobs.
pub struct Inputs<'a> {
    pub fabric: &'a Fabric,
    pub spec: &'a ClusterSpec,
    pub alloc: &'a Allocation,
    pub intents: &'a Intents,
    pub physical: &'a PhysicalPlan,
    /// The compile's findings (warnings only: artifacts exist only for specs without errors),
    /// listed in the report.
    pub diagnostics: &'a Diagnostics,
}

/// Metres as printed: `10`, `0.5`.
pub(crate) fn metres(m: f64) -> String {
    if (m - m.round()).abs() < 1e-9 {
        format!("{}", m.round() as i64)
    } else {
        format!("{m}")
    }
}

/// Text safe inside a `#` comment line (control characters, line breaks included, as spaces).
pub(crate) fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The generated document `path` as YAML, through the one YAML writer (Slurm, Kueue, netplan);
/// a failure is the file's error, never an empty file.
pub(crate) fn yaml<T: serde::Serialize>(path: &str, value: &T) -> Result<String, ArtifactError> {
    crate::output::yaml::to_string(value).in_file(path)
}

/// Port names and labels of every cable, resolved once and shared by every artifact
/// (index = position in `Fabric::links()`).
pub(crate) struct LinkNames<'p> {
    pub a_port: Vec<String>,
    pub b_port: Vec<String>,
    pub label: Vec<String>,
    /// How each cable is built, as printed (from the physical plan).
    pub build: Vec<BuildNames<'p>>,
}

/// A cable's parts as the sheets print them.
/// Part numbers borrow the plan's (a part is stored once there, whatever it is plugged into).
#[derive(Default)]
pub(crate) struct BuildNames<'p> {
    pub media: &'static str,
    /// Length as ordered, in metres (and as printed).
    pub length_m: f64,
    pub length: String,
    pub a_module: &'p str,
    pub b_module: &'p str,
    pub part: &'p str,
    pub count: u32,
    pub leg: String,
}

impl<'p> BuildNames<'p> {
    /// A splitter leg prints its own run (rounded up to a metre), not the cord's length: the
    /// cord is ordered at its longest leg (the BOM), and a leg added when the cluster grows must
    /// not change the rows of the legs already cabled.
    fn new(p: &'p PhysicalPlan, i: usize, route_m: f64) -> Self {
        let (Some(l), Some(c)) = (p.link(i), p.cord_of(i)) else {
            return Self::default();
        };
        let module = |m| p.module(m).map_or("", |m| m.part.as_str());
        let length_m = if l.leg.is_some() {
            route_m.ceil().max(1.0).min(c.length_m)
        } else {
            c.length_m
        };
        Self {
            media: l.media.as_str(),
            length_m,
            length: metres(length_m),
            a_module: module(l.a_module),
            b_module: module(l.b_module),
            part: c.part.as_str(),
            count: l.cord_count,
            leg: l.leg.map_or_else(String::new, |g| g.to_string()),
        }
    }
}

impl<'p> LinkNames<'p> {
    fn new(f: &Fabric, p: &'p PhysicalPlan) -> Self {
        let n = f.link_count();
        let (mut a_port, mut b_port, mut label, mut build) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (i, l) in f.links().enumerate() {
            let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
            let (ap, bp) = (f.port_name(a, l.a.port), f.port_name(b, l.b.port));
            label.push(crate::topology::label_of(a, &ap, b, &bp));
            a_port.push(ap);
            b_port.push(bp);
            build.push(BuildNames::new(p, i, l.route_m));
        }
        Self {
            a_port,
            b_port,
            label,
            build,
        }
    }
}

/// `netbox-cables.csv`, alone: the NetBox export (`export::netbox`) imports the same cables,
/// with the media and lengths of the physical solution (solved again here: the export's inputs
/// are the lab plan's, which carry no physical plan; a spec that compiled solves without error).
pub fn netbox_cables(spec: &ClusterSpec, fabric: &Fabric) -> Result<OutputFile, ArtifactError> {
    let plan = crate::physical::solve(spec, fabric, &mut Diagnostics::default());
    cabling::netbox_csv(fabric, &LinkNames::new(fabric, &plan))
}

/// Every artifact of a fabric plus the already rendered `configs` (switch configs, intent dumps),
/// sorted by path, with `manifest.json` last. The result does not depend on which thread
/// finishes first.
pub fn render_all(
    inputs: &Inputs<'_>,
    configs: Vec<OutputFile>,
) -> Result<Vec<OutputFile>, ArtifactError> {
    let c = Collector::default();
    configs.into_iter().for_each(|f| c.put(f));
    emit(inputs, &Selection::all(), &|f| c.put(f), &NoMemo)?;
    Ok(c.finish())
}

/// Every artifact of the selected groups into `sink` (no manifest: the sink's owner writes it
/// over everything it received). Nothing is rendered that no selected group needs: the report
/// needs the cabling plan, port maps, BOM and address plan (it reads them back), nothing else
/// needs anything. The first file that cannot be written is the error (files already handed
/// to `sink` are then to be discarded by its owner).
pub fn emit(
    inputs: &Inputs<'_>,
    only: &Selection,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), ArtifactError> {
    let names = LinkNames::new(inputs.fabric, inputs.physical);
    let put = |file: OutputFile| {
        if only.keeps(file.group) {
            sink(file);
        }
    };
    let (beside, report) = crate::parallel::join(
        // What the report does not read renders beside it from the start.
        || beside_the_report(inputs, only, &names, &put),
        || {
            let sources = report_sources(inputs, only, &names)?;
            // The report, workbook and labels read the CSV files back, so they show exactly
            // those rows.
            if only.has(OutputGroup::Report) {
                report::files(inputs, &names, &sources, sink, memo)?;
            }
            if only.has(OutputGroup::Labels) {
                report::labels::sheets(inputs.fabric, &names, sink, memo)?;
            }
            sources.into_iter().for_each(&put);
            Ok(())
        },
    );
    beside.and(report)
}

/// The plan, host and scheduler files, the NetBox import and the summary: nothing the report
/// reads.
fn beside_the_report(
    inputs: &Inputs<'_>,
    only: &Selection,
    names: &LinkNames,
    put: &Sink<'_>,
) -> Result<(), ArtifactError> {
    let f = inputs.fabric;
    let (plan_and_hosts, netbox_and_summary) = crate::parallel::join(
        || {
            if only.has(OutputGroup::Plan) {
                put(plan::plan_json(f, names)?);
            }
            if only.has(OutputGroup::Hosts) {
                scheduler::files(inputs)?.into_iter().for_each(put);
                hosts::files(inputs)?.into_iter().for_each(put);
            }
            Ok(())
        },
        || {
            if only.has(OutputGroup::Cabling) {
                put(cabling::netbox_csv(f, names)?);
            }
            if only.has(OutputGroup::Plan) {
                let summary = summary::summarize_with(f, &inputs.intents.tenants);
                put(OutputFile::new(
                    OutputGroup::Plan,
                    "summary.json",
                    summary::to_json(&summary).in_file("summary.json")?,
                ));
            }
            Ok(())
        },
    );
    plan_and_hosts.and(netbox_and_summary)
}

/// The CSV files the report reads back (cabling plan, BOM, port maps, address plan), when a
/// selected group writes them or the report needs them.
fn report_sources(
    inputs: &Inputs<'_>,
    only: &Selection,
    names: &LinkNames,
) -> Result<Vec<OutputFile>, ArtifactError> {
    let (f, alloc) = (inputs.fabric, inputs.alloc);
    let report = only.has(OutputGroup::Report);
    let cabling = only.has(OutputGroup::Cabling) || report;
    let addresses = only.has(OutputGroup::Addresses) || report;
    let (maps, sources) = crate::parallel::join(
        || {
            let mut v = Vec::new();
            if cabling {
                v = portmap::port_maps(f, names)?;
            }
            if addresses {
                v.push(addresses::addresses_csv(f, alloc, names)?);
            }
            Ok::<_, ArtifactError>(v)
        },
        || {
            if cabling {
                Ok(vec![
                    cabling::cabling_csv(f, names)?,
                    bom::bom_csv(f, inputs.physical)?,
                    bom::optics_power_csv(f, inputs.physical)?,
                ])
            } else {
                Ok(Vec::new())
            }
        },
    );
    let mut sources = sources?;
    sources.extend(maps?);
    Ok(sources)
}

/// Only the deliverables people look at (`railyard report`): `report.html`, `cabling.xlsx`,
/// `labels/*.{zpl,csv}`, with `manifest.json` last. The CSV files they are read from are rendered
/// but not returned.
pub fn render_report(inputs: &Inputs<'_>) -> Result<Vec<OutputFile>, ArtifactError> {
    let (f, alloc) = (inputs.fabric, inputs.alloc);
    let names = LinkNames::new(f, inputs.physical);
    let mut sources = portmap::port_maps(f, &names)?;
    sources.push(addresses::addresses_csv(f, alloc, &names)?);
    sources.push(cabling::cabling_csv(f, &names)?);
    sources.push(bom::bom_csv(f, inputs.physical)?);
    let c = Collector::default();
    report::files(inputs, &names, &sources, &|f| c.put(f), &NoMemo)?;
    Ok(c.finish())
}
