//! The physical layer: every cable of the plan solved end to end, cage → module → cable or
//! fibre → module → cage, from the parts of the catalog (`catalog/physical.yaml` plus the
//! spec's own) under the spec's `physical:` policy. A stage between `topology` and the
//! deliverables: it reads the fabric and the spec, and its plan is what the cabling sheets, the
//! BOM and the labels print. Rules and their sources: `docs/physical.md`.
//!
//! Order of decisions, each in its own file: the lanes both ends run (`signal.rs`); copper where
//! the run is short and one assembly covers whole cages (`copper.rs`); otherwise one module per
//! cage, multimode or single-mode by the longest run it serves, and the fibre (straight or
//! splitter leg) between modules (`optics.rs`). What no part can build is a located error
//! (`problems.rs`), one per kind of link, never one per cable.

mod copper;
mod cords;
mod ends;
mod generation;
mod harness;
mod optics;
mod problems;
mod signal;

use crate::catalog::{Catalog, SourceKind};
use crate::diag::Diagnostics;
use crate::model::ident::{Name, Text};
use crate::model::{Form, LaneRate, Media, Signal};
use crate::spec::ClusterSpec;
use crate::topology::{DeviceId, Fabric, LinkId, PerLink};

use ends::{Cages, EndCage};
use problems::Problems;

/// The solution of every link (by the fabric's link ids), with the modules and cords it uses. A part is stored once (`module_parts`, `cord_parts`) and every module or cord
/// names it by index: a 131k-GPU fabric plugs a million modules of a dozen parts.
#[derive(Clone, Debug, Default)]
pub struct PhysicalPlan {
    pub links: PerLink<LinkBuild>,
    pub modules: Vec<ModuleUse>,
    /// Every cord ordered, as an index into `cord_parts`.
    pub cords: Vec<u32>,
    pub module_parts: Vec<ModulePart>,
    pub cord_parts: Vec<CordPart>,
    /// Spares ordered on top of each part's count, in percent.
    pub spares_percent: f64,
    /// QSFP-to-SFP adapters (QSA) the plan uses.
    pub adapters: u64,
    /// The catalog part those adapters are ordered as (`None`: no catalog adapter passes every
    /// lane rate they carry; the BOM then orders them by specification).
    pub adapter: Option<ModulePart>,
    /// The patch cords the declared patch panels add (`physical.patch_panels`): one per fibre
    /// per panel, as indices into `cord_parts`; the planned fibre is the trunk between panels.
    pub panel_cords: Vec<u32>,
    /// The spec places no devices in racks (`racks:` absent): every cord's length is the tier's
    /// class length from `cabling:`, a placeholder the BOM says so of.
    pub lengths_placeholder: bool,
}

/// How one link is built.
#[derive(Clone, Debug)]
pub struct LinkBuild {
    pub signal: Signal,
    pub media: Media,
    /// Index into [`PhysicalPlan::modules`] of each end's module; `None` where the cable's end
    /// is built in (DAC, ACC, AOC, patch cord).
    pub a_module: Option<u32>,
    pub b_module: Option<u32>,
    /// Index into [`PhysicalPlan::cords`] of the first cord; `cord_count` cords follow (an 800G
    /// link over a twin-port module takes two fibres).
    pub cord: u32,
    pub cord_count: u32,
    /// The leg of a splitter (1-based) this link is on.
    pub leg: Option<u32>,
    /// Where that splitter's single end is (`None` for a cable of its own): a harness is one
    /// part shared by its legs, and a day-two change must know which legs share it.
    pub harness: Option<HarnessEnd>,
}

/// The single end of a splitter or breakout: which end of the link it is and, where the
/// module there has several connectors, which one (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarnessEnd {
    pub on_a: bool,
    pub connector: Option<u32>,
    /// The harness's cord: the link's own cord, or, where the harness breaks out at a panel
    /// because its legs reach into several rows, the harness the link's cord plugs into there.
    pub cord: u32,
}

/// One module plugged into one cage.
#[derive(Clone, Copy, Debug)]
pub struct ModuleUse {
    pub device: DeviceId,
    pub cage: u32,
    /// Index into [`PhysicalPlan::module_parts`].
    pub part: u32,
}

/// A module part as ordered.
#[derive(Clone, Debug)]
pub struct ModulePart {
    pub part: Name,
    pub description: Text,
    pub power_w: Option<f64>,
    /// Where the part number comes from: the catalog's `source` and its kind.
    pub source: Source,
}

/// A part's source as ordered: the catalog's link and what kind of page it is (`None`: a part
/// the spec declares without saying).
#[derive(Clone, Debug)]
pub struct Source {
    pub link: Text,
    pub kind: Option<SourceKind>,
}

/// A cable or fibre part as ordered.
#[derive(Clone, Debug)]
pub struct CordPart {
    /// The orderable part number (length included).
    pub part: Name,
    pub family: Name,
    pub description: Text,
    pub length_m: f64,
    /// Connectors on the far side: 1 for a straight cord, N for a 1:N splitter or breakout.
    pub legs: u32,
    pub media: Media,
    pub source: Source,
}

impl PhysicalPlan {
    pub fn link(&self, id: LinkId) -> Option<&LinkBuild> {
        self.links.get(id)
    }

    /// The part of a link's first cord (length as ordered), for printing.
    pub fn cord_of(&self, id: LinkId) -> Option<&CordPart> {
        let l = self.links.get(id)?;
        let k = self.cords.get(l.cord as usize)?;
        self.cord_parts.get(*k as usize)
    }

    /// The part of module `m` (an index into `modules`).
    pub fn module(&self, m: Option<u32>) -> Option<&ModulePart> {
        let u = self.modules.get(m? as usize)?;
        self.module_parts.get(u.part as usize)
    }

    /// The part of cord `c` (an index into `cords`).
    pub fn cord(&self, c: u32) -> Option<&CordPart> {
        let k = self.cords.get(c as usize)?;
        self.cord_parts.get(*k as usize)
    }

    /// Every cord ordered, as its part.
    pub fn ordered_cords(&self) -> impl Iterator<Item = &CordPart> {
        self.cords
            .iter()
            .filter_map(|k| self.cord_parts.get(*k as usize))
    }

    /// The part a module use names.
    pub fn part_of(&self, m: &ModuleUse) -> Option<&ModulePart> {
        self.module_parts.get(m.part as usize)
    }

    /// The index of a cord part, added on first use (parts are few; a linear scan is cheaper
    /// than a map of owned names).
    fn cord_part(&mut self, part: CordPart) -> u32 {
        let found = self.cord_parts.iter().position(|c| {
            c.part == part.part && c.length_m == part.length_m && c.legs == part.legs
        });
        found.unwrap_or_else(|| {
            self.cord_parts.push(part);
            self.cord_parts.len() - 1
        }) as u32
    }

    /// Order one cord of `part`; its index in `cords`.
    fn push_cord(&mut self, part: CordPart) -> u32 {
        let k = self.cord_part(part);
        self.cords.push(k);
        self.cords.len() as u32 - 1
    }
}

/// What the solver works from.
pub(crate) struct Inputs<'a> {
    pub spec: &'a ClusterSpec,
    pub fabric: &'a Fabric,
    /// The fabric's links by index (the problems name links by index; `links().nth` would make
    /// a spec whose every link fails quadratic).
    pub links: Vec<&'a crate::topology::Link>,
    pub catalog: &'a Catalog,
    pub ends: Vec<(EndCage, EndCage)>,
    /// How many (device, cage) slots the ends number (`EndCage::slot`).
    pub slots: usize,
    pub cages: Cages,
}

/// Solve every link of `fabric`. Links no part can build are reported in `diags` (errors), and
/// the plan then holds only what was solved.
pub fn solve(spec: &ClusterSpec, fabric: &Fabric, diags: &mut Diagnostics) -> PhysicalPlan {
    let mut cages = Cages::default();
    let mut ends: Vec<(EndCage, EndCage)> = fabric
        .links()
        .map(|l| (cages.end(fabric, &l.a), cages.end(fabric, &l.b)))
        .collect();
    let slots = ends::number_slots(&mut ends);
    let used = copper::cage_use(&ends, slots);
    let mut qsas = Vec::new();
    let mut qsa_rates: Vec<LaneRate> = Vec::new();
    for (a, b) in &mut ends {
        for e in [a, b] {
            if let Some(q) = cages.qsa(e, used[e.slot as usize] as usize) {
                qsas.push(e.device);
                *e = q;
                for r in &cages.all[q.cage].rates {
                    if !qsa_rates.contains(r) {
                        qsa_rates.push(*r);
                    }
                }
            }
        }
    }
    let input = Inputs {
        spec,
        fabric,
        links: fabric.links().collect(),
        catalog: &fabric.catalog,
        ends,
        slots,
        cages,
    };
    let mut problems = Problems::default();
    let signals = signals(&input, &mut problems);
    let mut plan = PhysicalPlan {
        spares_percent: spec.physical.spares_percent.value,
        lengths_placeholder: spec.racks.is_none(),
        adapters: qsas.len() as u64,
        adapter: (!qsas.is_empty())
            .then(|| qsa_adapter(spec, &fabric.catalog, &qsa_rates))
            .flatten(),
        ..PhysicalPlan::default()
    };
    let mut builds: Vec<Option<LinkBuild>> = vec![None; input.ends.len()];
    copper::solve(&input, &signals, &mut plan, &mut builds, &mut problems);
    optics::solve(&input, &signals, &mut plan, &mut builds, &mut problems);
    problems.third_party(&input, &plan);
    problems.vendor_only(&input, &plan);
    generation::check(&input, &mut problems);
    problems.report(&input, diags);
    if !diags.has_errors() {
        let solved: Vec<LinkBuild> = builds.into_iter().flatten().collect();
        plan.links = PerLink::in_link_order(fabric, solved).unwrap_or_default();
    }
    plan
}

/// The adapter part for the plan's QSAs: an SFP28-in-QSFP adapter that passes every lane rate
/// the adapted ports run (NVIDIA MAM1Q00A-QSA28: "used to connect an SFP28 module in a QSFP28
/// port", 10G and 25G NRZ), the preferred vendor's first, then by part number.
fn qsa_adapter(spec: &ClusterSpec, catalog: &Catalog, rates: &[LaneRate]) -> Option<ModulePart> {
    let vendor = spec.physical.vendor.as_ref();
    catalog
        .adapters
        .iter()
        .filter(|(_, a)| {
            a.host_form == Form::Qsfp28
                && a.module_form == Form::Sfp28
                && rates.iter().all(|r| a.lane_rates.contains(r))
        })
        .min_by_key(|(name, a)| (vendor.is_some_and(|v| *v != a.vendor), *name))
        .map(|(name, a)| ModulePart {
            part: name.clone(),
            description: a.description.clone(),
            power_w: a.power_w,
            source: Source {
                link: a.source.clone(),
                kind: a.source_kind,
            },
        })
}

/// The signal of every link, `None` (and a problem) where the ends cannot agree.
fn signals(input: &Inputs<'_>, problems: &mut Problems) -> Vec<Option<Signal>> {
    input
        .links
        .iter()
        .zip(&input.ends)
        .enumerate()
        .map(|(i, (l, (a, b)))| {
            let cages = &input.cages;
            let s = signal::agree(
                l.speed,
                (&cages.all[a.cage], a.lanes(cages)),
                (&cages.all[b.cage], b.lanes(cages)),
            );
            if s.is_none() {
                problems.no_signal(i, input);
            }
            s
        })
        .collect()
}
