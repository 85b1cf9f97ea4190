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
pub mod diag;
pub mod export;
pub mod impact;
pub mod intent;
pub mod lab;
pub mod labplan;
pub mod model;
pub mod output;
mod parallel;
pub mod physical;
pub mod push;
pub mod render;
pub mod spec;
pub mod tenancy;
pub mod topology;

use diag::{Diagnostics, SourceFile};
use output::{Collector, Memo, NoMemo, OutputFile, Selection, Sink};

/// Why a build wrote nothing: a switch config that did not render, or an artifact that could
/// not be written. Either names the file; never an empty file in its place.
#[derive(Debug)]
pub enum BuildError {
    Render(render::RenderError),
    Artifact(artifacts::ArtifactError),
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

/// The result of compiling a spec: every stage's value when all stages succeeded, and all
/// diagnostics.
pub struct Compiled {
    pub fabric: Option<topology::Fabric>,
    pub allocation: Option<addressing::Allocation>,
    pub intents: Option<intent::Intents>,
    /// Every link solved into parts (modules, cables, fibres).
    pub physical: Option<physical::PhysicalPlan>,
    /// The parsed spec: artifacts read its global knobs (QoS values, label keys).
    pub spec: Option<spec::ClusterSpec>,
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

fn compile_site(
    src: &SourceFile,
    adjust: impl FnOnce(&mut spec::ClusterSpec),
    guids: &model::PortGuids,
) -> Compiled {
    let mut diagnostics = Diagnostics::default();
    let mut out = Compiled {
        fabric: None,
        allocation: None,
        intents: None,
        physical: None,
        spec: None,
        diagnostics: Diagnostics::default(),
    };
    let Some(mut spec) = spec::parse(src, &mut diagnostics) else {
        out.diagnostics = diagnostics;
        return out;
    };
    adjust(&mut spec);
    let fabric = topology::build(&spec, catalog::builtin(), &mut diagnostics);
    // The physical solution's findings are reported beside the later stages' (all problems at
    // once); its errors withhold the outputs like any other.
    let mut physical_findings = Diagnostics::default();
    let fabric = fabric.filter(|_| !diagnostics.has_errors());
    let physical = fabric
        .as_ref()
        .map(|f| physical::solve(&spec, f, &mut physical_findings));
    if let Some(fabric) = fabric.filter(|_| !diagnostics.has_errors()) {
        let alloc = addressing::allocate(&spec, &fabric, &mut diagnostics);
        let plan = tenancy::plan(&spec, &fabric, &alloc, &mut diagnostics);
        if !diagnostics.has_errors() {
            let intents = intent::build(&spec, &fabric, &alloc, plan, guids, &mut diagnostics);
            if !diagnostics.has_errors() && !physical_findings.has_errors() {
                out.intents = Some(intents);
                out.physical = physical;
                out.allocation = Some(alloc);
                out.fabric = Some(fabric);
                out.spec = Some(spec);
            }
        }
    }
    physical_findings
        .iter()
        .for_each(|d| diagnostics.push(d.clone()));
    out.diagnostics = diagnostics;
    out
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
        let inputs = self.artifact_inputs()?;
        let intents = inputs.intents;
        // Configs and artifacts side by side: each splits its own work over the cores, and each
        // has single-threaded stretches (the workbook, the report page) the other fills.
        let (rendered, artifacts) = parallel::join(
            || {
                if only.has(output::OutputGroup::Configs) {
                    let netconf: Vec<model::Platform> =
                        self.spec.as_ref().map_or_else(Vec::new, |s| {
                            s.push.netconf.iter().map(|p| p.value).collect()
                        });
                    render::emit(intents, templates, &netconf, sink, memo)
                } else {
                    Ok(())
                }
            },
            || artifacts::emit(&inputs, only, sink, memo),
        );
        Some(
            rendered
                .map_err(BuildError::Render)
                .and(artifacts.map_err(BuildError::Artifact)),
        )
    }
}

impl Compiled {
    /// The report deliverables only (`report.html`, `cabling.xlsx`, `labels/`, manifest);
    /// `None` when the compile failed, an error when a deliverable cannot be written.
    pub fn report_outputs(&self) -> Option<Result<Vec<OutputFile>, artifacts::ArtifactError>> {
        Some(artifacts::render_report(&self.artifact_inputs()?))
    }
}

impl Compiled {
    /// What the artifacts (and the stages beside them) are made from; `None` when the compile
    /// failed.
    pub fn artifact_inputs(&self) -> Option<artifacts::Inputs<'_>> {
        Some(artifacts::Inputs {
            fabric: self.fabric.as_ref()?,
            spec: self.spec.as_ref()?,
            alloc: self.allocation.as_ref()?,
            intents: self.intents.as_ref()?,
            physical: self.physical.as_ref()?,
            diagnostics: &self.diagnostics,
        })
    }
}

/// The built-in example cluster (`inventories/lab-small.yaml`), used when no spec is given.
pub const LAB_SMALL: &str = include_str!("../inventories/lab-small.yaml");
