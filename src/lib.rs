//! railyard: one declarative GPU-cluster spec in; every network artifact of that cluster out.
//!
//! The pipeline is a chain of pure stages (see `ARCHITECTURE.md`): [`spec`] (YAML → typed spec)
//! → [`topology`] (graph of devices, ports, cables) → [`addressing`] (IPs, ASNs by identity) →
//! [`tenancy`] (tenant plan) → [`intent`] (vendor-neutral per-switch and per-host intent) →
//! [`render`] (switch configs from intent only) and [`artifacts`] (cabling plan, port maps, BOM,
//! hosts, scheduler, report). At the edges: [`push`], [`lab`], [`cabling`], [`capture`]. Every
//! stage reports problems into [`diag::Diagnostics`] and keeps going, so a user sees every
//! problem of a stage at once.

#![forbid(unsafe_code)]

pub mod acceptance;
pub mod addressing;
pub mod artifacts;
pub mod cabling;
pub mod capture;
pub mod catalog;
pub mod change;
pub mod dayzero;
pub mod design;
pub mod diag;
pub mod export;
pub mod impact;
pub mod intent;
pub mod lab;
pub mod labplan;
pub mod meaning;
pub mod model;
pub mod output;
mod parallel;
pub mod physical;
pub mod push;
pub mod render;
pub mod report;
pub mod spec;
pub mod tenancy;
pub mod topology;

use design::Design;
use diag::{Diagnostics, SourceFile};
use output::{Collector, Memo, NoMemo, OutputFile, Selection, Sink};

/// Why a build wrote nothing: a switch config that did not render, or an artifact that could
/// not be written. Either names the file; never an empty file in its place.
#[derive(Debug)]
pub enum BuildError {
    Render(render::RenderError),
    Artifact(output::FileError),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Render(e) => e.fmt(f),
            Self::Artifact(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

/// The result of compiling a spec: every diagnostic, and the [`Design`] when no stage had an
/// error (the one test of "compiled").
pub struct Compiled {
    pub design: Option<Design>,
    pub diagnostics: Diagnostics,
}

/// Run the pure stages on one spec file: parse, expand, allocate, build intent, check. Each stage
/// reports every problem it finds; the pipeline stops at the first stage with errors.
pub fn compile(src: &SourceFile) -> Compiled {
    compile_with(src, |_| {})
}

/// Compile with every Ethernet switch running `platform`, whatever the spec says: what the
/// virtual lab uses (`frr`), so the lab boots the very configs railyard renders for FRR.
pub fn compile_for_platform(src: &SourceFile, platform: model::Platform) -> Compiled {
    compile_with(src, |spec| {
        let p = Some(spec::Sp::new(platform));
        spec.platforms = spec::PlatformSpec {
            default: p.clone(),
            leaf: p.clone(),
            spine: p.clone(),
            core: p.clone(),
            storage: p.clone(),
            inband: p.clone(),
            oob: p,
        };
    })
}

/// Compile after `adjust` edits the parsed spec (before any design stage runs).
pub fn compile_with(src: &SourceFile, adjust: impl FnOnce(&mut spec::ClusterSpec)) -> Compiled {
    compile_site(src, adjust, &model::PortGuids::default())
}

/// Compile with the InfiniBand port GUIDs imported from the installed nodes
/// (`railyard ib import`): the OpenSM partitions then name real members instead of placeholders.
pub fn compile_with_guids(src: &SourceFile, guids: &model::PortGuids) -> Compiled {
    compile_site(src, |_| {}, guids)
}

impl Compiled {
    /// The command line's warning levels applied (`--strict`, `--deny`, `--allow`,
    /// `--baseline`): a design with a finding they make an error is not a design.
    #[must_use]
    pub fn leveled(mut self, level: impl FnMut(&diag::Diagnostic) -> diag::Level) -> Compiled {
        if self.diagnostics.relevel(level) > 0 {
            self.design = None;
        }
        self
    }

    /// The port GUIDs of the installed nodes applied to a compiled design, without compiling
    /// again: only the OpenSM partitions read them, so only they are built again, and their
    /// findings replace the first pass's (the same result as [`compile_with_guids`]).
    pub fn with_port_guids(mut self, guids: &model::PortGuids) -> Compiled {
        let Some(design) = self.design.as_mut() else {
            return self;
        };
        let mut found = Diagnostics::default();
        design.intents.partitions = intent::partitions::build(
            &design.spec,
            &design.intents.tenants,
            &design.intents.hosts,
            guids,
            &mut found,
        );
        self.diagnostics
            .retain(|d| !intent::partitions::FINDINGS.contains(&d.code.id));
        found.iter().for_each(|d| self.diagnostics.push(d.clone()));
        self
    }
}

fn compile_site(
    src: &SourceFile,
    adjust: impl FnOnce(&mut spec::ClusterSpec),
    guids: &model::PortGuids,
) -> Compiled {
    let mut diagnostics = Diagnostics::default();
    let design = spec::parse(src, &mut diagnostics).and_then(|mut spec| {
        adjust(&mut spec);
        design_of(spec, guids, &mut diagnostics)
    });
    Compiled {
        design,
        diagnostics,
    }
}

/// The stages after parsing; `None` when any had an error.
fn design_of(
    spec: spec::ClusterSpec,
    guids: &model::PortGuids,
    diagnostics: &mut Diagnostics,
) -> Option<Design> {
    let fabric = topology::build(&spec, catalog::builtin(), diagnostics)
        .filter(|_| !diagnostics.has_errors())?;
    // The physical solution's findings are reported beside the later stages' (all problems at
    // once); its errors withhold the outputs like any other.
    let mut physical_findings = Diagnostics::default();
    let physical = physical::solve(&spec, &fabric, &mut physical_findings);
    let design = (|| {
        let allocation = addressing::allocate(&spec, &fabric, diagnostics);
        let plan = tenancy::plan(&spec, &fabric, &allocation, diagnostics);
        if diagnostics.has_errors() {
            return None;
        }
        let intents = intent::build(&spec, &fabric, &allocation, plan, guids, diagnostics);
        if diagnostics.has_errors() || physical_findings.has_errors() {
            return None;
        }
        let scheduler = topology::SchedulerTree::of(&fabric);
        Some(Design {
            spec,
            fabric,
            physical,
            allocation,
            intents,
            scheduler,
        })
    })();
    physical_findings
        .iter()
        .for_each(|d| diagnostics.push(d.clone()));
    design
}

impl Compiled {
    /// Every output file of a successful compile: switch configs, intent dumps, subnet-manager
    /// files and the fabric artifacts, sorted by path, `manifest.json` last. `None` when the
    /// compile failed.
    pub fn outputs(
        &self,
        templates: &render::Templates,
    ) -> Option<Result<Vec<OutputFile>, BuildError>> {
        self.outputs_only(templates, &Selection::all())
    }

    /// [`Compiled::outputs`] of the selected groups only: switch configs are rendered only when
    /// `configs` is selected, the report only when `report` is.
    pub fn outputs_only(
        &self,
        templates: &render::Templates,
        only: &Selection,
    ) -> Option<Result<Vec<OutputFile>, BuildError>> {
        let c = Collector::default();
        let done = self.emit(templates, only, &|f| c.put(f), &NoMemo)?;
        Some(done.map(|()| c.finish()))
    }

    /// Every output file of the selected groups into `sink` as it is produced, without the
    /// manifest (the sink's owner writes it over what it received); switch configs an earlier
    /// build rendered from the same inputs are carried over by `memo` instead. `None` when the
    /// compile failed; a render or artifact error is returned once both sides are done (a
    /// writer then discards everything).
    pub fn emit(
        &self,
        templates: &render::Templates,
        only: &Selection,
        sink: &Sink<'_>,
        memo: &dyn Memo,
    ) -> Option<Result<(), BuildError>> {
        let design = self.design.as_ref()?;
        // Configs and documents side by side: each splits its own work over the cores, and each
        // has single-threaded stretches (the workbook, the report page) the other fills.
        let (rendered, documents) = parallel::join(
            || {
                if only.has(output::OutputGroup::Configs) {
                    let netconf: Vec<model::Platform> =
                        design.spec.push.netconf.iter().map(|p| p.value).collect();
                    render::emit(&design.intents, templates, &netconf, sink, memo)
                } else {
                    Ok(())
                }
            },
            || documents(design, &self.diagnostics, only, sink, memo),
        );
        Some(
            rendered
                .map_err(BuildError::Render)
                .and(documents.map_err(BuildError::Artifact)),
        )
    }

    /// The report deliverables only (`report.html`, `cabling.xlsx`, `labels/`, manifest);
    /// `None` when the compile failed, an error when a deliverable cannot be written.
    pub fn report_outputs(&self) -> Option<Result<Vec<OutputFile>, output::FileError>> {
        let design = self.design.as_ref()?;
        let names = artifacts::LinkNames::new(&design.fabric, &design.physical);
        let c = Collector::default();
        let done = artifacts::report_sources(design, &names).and_then(|sources| {
            report::files(
                design,
                &self.diagnostics,
                &names,
                &sources,
                &|f| c.put(f),
                &NoMemo,
            )
        });
        Some(done.map(|()| c.finish()))
    }
}

/// The artifacts and the report of the selected groups into `sink` (no manifest: the sink's owner
/// writes it over everything it received). Nothing is rendered that no selected group needs:
/// the report needs the cabling plan, port maps, BOM and address plan (it reads them back),
/// nothing else needs anything. The first file that cannot be written is the error (files
/// already handed to `sink` are then to be discarded by its owner).
fn documents(
    design: &Design,
    findings: &Diagnostics,
    only: &Selection,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), output::FileError> {
    let names = artifacts::LinkNames::new(&design.fabric, &design.physical);
    let put = |file: OutputFile| {
        if only.keeps(file.group) {
            sink(file);
        }
    };
    let (beside, report) = parallel::join(
        // What the report does not read renders beside it from the start.
        || artifacts::emit(design, only, &names, &put),
        || {
            let sources = artifacts::sources(design, only, &names)?;
            // The report, workbook and labels read the CSV files back, so they show exactly
            // those rows.
            if only.has(output::OutputGroup::Report) {
                report::files(design, findings, &names, &sources, sink, memo)?;
            }
            if only.has(output::OutputGroup::Labels) {
                report::label_sheets(&design.fabric, &names, sink, memo)?;
            }
            sources.into_iter().for_each(&put);
            Ok(())
        },
    );
    beside.and(report)
}

/// The smallest built-in example (`inventories/lab-small.yaml`): what the lab and the tests boot.
pub const LAB_SMALL: &str = include_str!("../inventories/lab-small.yaml");

/// The built-in example specs (`--example NAME`), by name: every spec under `inventories/`.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "dgx-b200-16su",
        include_str!("../inventories/dgx-b200-16su.yaml"),
    ),
    (
        "dgx-b300-xdr",
        include_str!("../inventories/dgx-b300-xdr.yaml"),
    ),
    (
        "dgx-superpod-b300",
        include_str!("../inventories/dgx-superpod-b300.yaml"),
    ),
    (
        "dgx-superpod-gb200",
        include_str!("../inventories/dgx-superpod-gb200.yaml"),
    ),
    (
        "dgx-superpod-h100",
        include_str!("../inventories/dgx-superpod-h100.yaml"),
    ),
    (
        "dgx-superpod-h100-tenants",
        include_str!("../inventories/dgx-superpod-h100-tenants.yaml"),
    ),
    (
        "eos-ai-fabric",
        include_str!("../inventories/eos-ai-fabric.yaml"),
    ),
    (
        "gb300-nvl72-spectrum-x",
        include_str!("../inventories/gb300-nvl72-spectrum-x.yaml"),
    ),
    ("lab-small", include_str!("../inventories/lab-small.yaml")),
    (
        "mdx-research-cloud",
        include_str!("../inventories/mdx-research-cloud.yaml"),
    ),
    (
        "sonic-rail-cluster",
        include_str!("../inventories/sonic-rail-cluster.yaml"),
    ),
    (
        "spectrum-x-cloud",
        include_str!("../inventories/spectrum-x-cloud.yaml"),
    ),
    (
        "spectrum-x-cloud-tenants",
        include_str!("../inventories/spectrum-x-cloud-tenants.yaml"),
    ),
    (
        "spectrum-x-twin-planar",
        include_str!("../inventories/spectrum-x-twin-planar.yaml"),
    ),
    (
        "tor-cluster",
        include_str!("../inventories/tor-cluster.yaml"),
    ),
];
