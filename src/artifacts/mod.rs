//! Documents derived from the fabric and its allocation — cabling plan, port maps, address plan,
//! BOM, plan, summary, manifest. Pure: returns file contents; the CLI writes them.

mod addresses;
mod bom;
mod cabling;
mod groups;
mod hosts;
mod plan;
mod portmap;
mod report;
mod scheduler;
pub mod summary;

use sha2::{Digest, Sha256};

use crate::addressing::Allocation;
use crate::diag::Diagnostics;
use crate::intent::Intents;
use crate::spec::ClusterSpec;
use crate::topology::Fabric;

pub use crate::OutputFile;
pub use groups::{OutputGroup, Selection};

/// What the artifacts are derived from: the graph, its allocation and intent, and the spec's
/// global knobs.
pub struct Inputs<'a> {
    pub fabric: &'a Fabric,
    pub spec: &'a ClusterSpec,
    pub alloc: &'a Allocation,
    pub intents: &'a Intents,
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

/// Port names and labels of every cable, resolved once and shared by every artifact
/// (index = position in `Fabric::links()`).
pub(crate) struct LinkNames {
    pub a_port: Vec<String>,
    pub b_port: Vec<String>,
    pub label: Vec<String>,
}

impl LinkNames {
    fn new(f: &Fabric) -> Self {
        let n = f.link_count();
        let (mut a_port, mut b_port, mut label) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for l in f.links() {
            let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
            let (ap, bp) = (f.port_name(a, l.a.port), f.port_name(b, l.b.port));
            label.push(crate::topology::label_of(a, &ap, b, &bp));
            a_port.push(ap);
            b_port.push(bp);
        }
        Self {
            a_port,
            b_port,
            label,
        }
    }
}

/// Every artifact of a fabric plus the already rendered `configs` (switch configs, intent dumps),
/// sorted by path, with `manifest.json` last. The two halves render on two threads; the result
/// does not depend on which finishes first.
pub fn render_all(inputs: &Inputs<'_>, configs: Vec<OutputFile>) -> Vec<OutputFile> {
    render_selected(inputs, configs, &Selection::all())
}

/// [`render_all`] restricted to the selected groups (the report, the costly part, is not drawn
/// unless selected); the manifest covers what is returned.
pub fn render_selected(
    inputs: &Inputs<'_>,
    configs: Vec<OutputFile>,
    only: &Selection,
) -> Vec<OutputFile> {
    let (f, alloc) = (inputs.fabric, inputs.alloc);
    let names = LinkNames::new(f);
    let (mut files, maps) = std::thread::scope(|s| {
        let maps = s.spawn(|| {
            let mut v = portmap::port_maps(f, &names);
            v.push(addresses::addresses_csv(f, alloc, &names));
            v.extend(scheduler::files(inputs));
            v.extend(hosts::files(inputs));
            v.push(plan::plan_json(f, &names));
            v
        });
        let files = vec![
            cabling::cabling_csv(f, &names),
            cabling::netbox_csv(f, &names),
            bom::bom_csv(f),
            OutputFile::new(
                "summary.json",
                summary::to_json(&summary::summarize_with(f, &inputs.intents.tenants)),
            ),
        ];
        (
            files,
            maps.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    files.extend(maps);
    // The report, workbook and labels read the CSV files back, so they show exactly those rows.
    if only.has(OutputGroup::Report) {
        let deliverables = report::files(inputs, &names, &files);
        files.extend(deliverables);
    }
    files.extend(configs);
    files.retain(|f| only.keeps(&f.path));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.push(manifest(&files));
    files
}

/// Only the deliverables people look at (`railyard report`): `report.html`, `cabling.xlsx`,
/// `labels/*.html`, with `manifest.json` last. The CSV files they are read from are rendered
/// but not returned.
pub fn render_report(inputs: &Inputs<'_>) -> Vec<OutputFile> {
    let (f, alloc) = (inputs.fabric, inputs.alloc);
    let names = LinkNames::new(f);
    let mut sources = portmap::port_maps(f, &names);
    sources.push(addresses::addresses_csv(f, alloc, &names));
    sources.push(cabling::cabling_csv(f, &names));
    sources.push(bom::bom_csv(f));
    let mut files = report::files(inputs, &names, &sources);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.push(manifest(&files));
    files
}

fn manifest(files: &[OutputFile]) -> OutputFile {
    let entries: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            let digest = Sha256::digest(&f.bytes);
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            serde_json::json!({ "path": f.path, "sha256": hex, "bytes": f.bytes.len() })
        })
        .collect();
    let doc = serde_json::json!({ "generator": concat!("railyard ", env!("CARGO_PKG_VERSION")), "files": entries });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    OutputFile::new("manifest.json", bytes)
}
