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

pub use crate::{OutputFile, Sink};
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

/// A sink that keeps every file; [`Collector::finish`] sorts them by path and appends the
/// manifest, the order [`render_all`] has always returned.
#[derive(Default)]
pub struct Collector(std::sync::Mutex<Vec<OutputFile>>);

impl Collector {
    pub fn put(&self, f: OutputFile) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(f);
    }

    pub fn finish(self) -> Vec<OutputFile> {
        let mut files = self
            .0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.push(manifest(&files));
        files
    }
}

/// Every artifact of a fabric plus the already rendered `configs` (switch configs, intent dumps),
/// sorted by path, with `manifest.json` last. The result does not depend on which thread
/// finishes first.
pub fn render_all(inputs: &Inputs<'_>, configs: Vec<OutputFile>) -> Vec<OutputFile> {
    let c = Collector::default();
    configs.into_iter().for_each(|f| c.put(f));
    emit(inputs, &Selection::all(), &|f| c.put(f), &crate::NoMemo);
    c.finish()
}

/// Every artifact of the selected groups into `sink` (no manifest: the sink's owner writes it
/// over everything it received). Nothing is rendered that no selected group needs: the report
/// needs the cabling plan, port maps, BOM and address plan (it reads them back), nothing else
/// needs anything.
pub fn emit(inputs: &Inputs<'_>, only: &Selection, sink: &Sink<'_>, memo: &dyn crate::Memo) {
    let (f, alloc) = (inputs.fabric, inputs.alloc);
    let names = LinkNames::new(f);
    let report = only.has(OutputGroup::Report);
    let cabling = only.has(OutputGroup::Cabling) || report;
    let addresses = only.has(OutputGroup::Addresses) || report;
    let put = |file: OutputFile| {
        if only.keeps(&file.path) {
            sink(file);
        }
    };
    std::thread::scope(|s| {
        // What the report does not read renders beside it from the start.
        let rest = s.spawn(|| {
            std::thread::scope(|s| {
                let hosts = s.spawn(|| {
                    if only.has(OutputGroup::Plan) {
                        put(plan::plan_json(f, &names));
                    }
                    if only.has(OutputGroup::Hosts) {
                        scheduler::files(inputs).into_iter().for_each(put);
                        hosts::files(inputs).into_iter().for_each(put);
                    }
                });
                if only.has(OutputGroup::Cabling) {
                    put(cabling::netbox_csv(f, &names));
                }
                if only.has(OutputGroup::Plan) {
                    put(OutputFile::new(
                        "summary.json",
                        summary::to_json(&summary::summarize_with(f, &inputs.intents.tenants)),
                    ));
                }
                join(hosts);
            });
        });
        let mut sources = std::thread::scope(|s| {
            let maps = s.spawn(|| {
                let mut v = Vec::new();
                if cabling {
                    v = portmap::port_maps(f, &names);
                }
                if addresses {
                    v.push(addresses::addresses_csv(f, alloc, &names));
                }
                v
            });
            let mut v = Vec::new();
            if cabling {
                v.extend([cabling::cabling_csv(f, &names), bom::bom_csv(f)]);
            }
            v.extend(join(maps));
            v
        });
        // The report, workbook and labels read the CSV files back, so they show exactly those
        // rows.
        if report {
            report::files(inputs, &names, &sources, sink, memo);
        }
        for file in sources.drain(..) {
            put(file);
        }
        join(rest);
    });
}

/// A scoped thread's result; its panic re-raised here.
fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
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
    let c = Collector::default();
    report::files(inputs, &names, &sources, &|f| c.put(f), &crate::NoMemo);
    c.finish()
}

/// One manifest entry: a file's path, SHA-256 and size. A writer computes them while writing,
/// without keeping the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    pub path: String,
    pub sha256: String,
    pub bytes: usize,
}

impl ManifestEntry {
    pub fn of(f: &OutputFile) -> Self {
        Self {
            path: f.path.clone(),
            sha256: sha256_hex(&f.bytes),
            bytes: f.bytes.len(),
        }
    }
}

/// The SHA-256 of `bytes` in lowercase hex, as the manifest writes it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes).into())
}

/// A 32-byte digest in lowercase hex.
pub fn hex(digest: &[u8; 32]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

fn manifest(files: &[OutputFile]) -> OutputFile {
    manifest_of(files.iter().map(ManifestEntry::of).collect())
}

/// `manifest.json` over `entries` (sorted here by path, so the order they came in is irrelevant).
pub fn manifest_of(mut entries: Vec<ManifestEntry>) -> OutputFile {
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let entries: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| serde_json::json!({ "path": e.path, "sha256": e.sha256, "bytes": e.bytes }))
        .collect();
    let doc = serde_json::json!({ "generator": concat!("railyard ", env!("CARGO_PKG_VERSION")), "files": entries });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    OutputFile::new("manifest.json", bytes)
}
