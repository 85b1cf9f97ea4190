//! Copper where the run is short: a DAC (then active copper, then an active optical cable)
//! whose ends plug into whole cages. One assembly covers a bundle: every port of cage A goes to
//! cage B and back (straight), or every port of cage A goes to its own far cage whose only
//! port it is (a splitter: NVIDIA MCP7Y00 "twin-port OSFP to 2x OSFP", MCP7Y40 "to 4x QSFP112").
//! Twisted pair (RJ45) ports always take a patch cord.

use std::collections::BTreeMap;

use super::ends::EndCage;
use super::problems::Problems;
use super::{CordPart, HarnessEnd, Inputs, LinkBuild, PhysicalPlan, Source};
use crate::catalog::{Assembly, AssemblyEnd, Cage, order};
use crate::model::ident::Name;
use crate::model::{AssemblyKind, Form, Media, Signal};

/// Cables per (device, cage) slot.
pub(crate) fn cage_use(ends: &[(EndCage, EndCage)], slots: usize) -> Vec<u32> {
    let mut n = vec![0u32; slots];
    for (a, b) in ends {
        n[a.slot as usize] += 1;
        n[b.slot as usize] += 1;
    }
    n
}

/// The links of every (device, cage) slot, in link order, as one flat table (a vector per
/// slot would be a million small allocations at 131k GPUs).
pub(crate) struct Bundles {
    start: Vec<u32>,
    links: Vec<u32>,
}

impl Bundles {
    pub(crate) fn new(input: &Inputs<'_>) -> Self {
        let mut start = vec![0u32; input.slots + 1];
        for c in cage_use(&input.ends, input.slots).iter().enumerate() {
            start[c.0 + 1] = start[c.0] + c.1;
        }
        let mut next = start.clone();
        let mut links = vec![0u32; input.ends.len() * 2];
        for (i, (a, b)) in input.ends.iter().enumerate() {
            for s in [a.slot, b.slot] {
                let at = &mut next[s as usize];
                links[*at as usize] = i as u32;
                *at += 1;
            }
        }
        Bundles { start, links }
    }

    /// The links of `slot`, in link order.
    pub(crate) fn of(&self, slot: u32) -> &[u32] {
        let s = slot as usize;
        match (self.start.get(s), self.start.get(s + 1)) {
            (Some(&a), Some(&b)) => &self.links[a as usize..b as usize],
            _ => &[],
        }
    }
}

pub(crate) fn solve(
    input: &Inputs<'_>,
    signals: &[Option<Signal>],
    plan: &mut PhysicalPlan,
    builds: &mut [Option<LinkBuild>],
    problems: &mut Problems,
) {
    let by_cage = Bundles::new(input);
    let copper_max = input.spec.physical.copper_max_m.value;
    let reach = Reach::of(input);
    let links = &input.links;
    // The choice depends only on the two cage kinds, the legs, the signal and the run: chosen
    // once per such need (a 131k fabric has half a million bundles and a few hundred needs).
    type Pick<'c> = Option<(&'c Name, &'c Assembly, Name, f64)>;
    let mut picked: BTreeMap<(usize, usize, u32, Signal, u64), Pick<'_>> = BTreeMap::new();
    for i in 0..links.len() {
        let Some(signal) = signals[i] else { continue };
        if builds[i].is_some() {
            continue;
        }
        let (a, b) = &input.ends[i];
        let twisted = input.cages.all[a.cage].form == Form::Rj45;
        // A DAC, ACC or AOC is one assembly end to end: it cannot pass a patch panel, so a
        // tier cabled through panels takes optics (`physical.patch_panels`).
        let panels = input.spec.physical.patch_panels.of(links[i].tier);
        if !twisted && (links[i].route_m > copper_max.max(reach.aoc) || panels > 0) {
            continue;
        }
        // The bundle seen from the end whose cage has more ports (the splitter's single end).
        let (hub, far) = if a.ports >= b.ports { (a, b) } else { (b, a) };
        let members = by_cage.of(hub.slot);
        let fars: Vec<u32> = members
            .iter()
            .map(|&j| {
                let (x, y) = &input.ends[j as usize];
                if x.slot == hub.slot { y.slot } else { x.slot }
            })
            .collect();
        let straight =
            fars.iter().all(|f| *f == far.slot) && by_cage.of(far.slot).len() == members.len();
        let split = !straight && fars.iter().all(|f| by_cage.of(*f).len() == 1) && {
            let mut u = fars.clone();
            u.sort_unstable();
            u.dedup();
            u.len() == fars.len()
        };
        if !(straight || split) {
            if twisted {
                problems.no_part(i, "an RJ45 port shared by several cables", input);
            }
            continue;
        }
        let legs = if straight { 1 } else { members.len() as u32 };
        let route = members
            .iter()
            .map(|&j| links[j as usize].route_m)
            .fold(0.0_f64, f64::max);
        let hub_cage = &input.cages.all[hub.cage];
        let far_cage = &input.cages.all[far.cage];
        let need = (hub.cage, far.cage, legs, signal, route.to_bits());
        let choice = picked
            .entry(need)
            .or_insert_with(|| pick(input, (hub_cage, far_cage), legs, signal, route, reach));
        match choice.clone() {
            Some((family, asm, part, length)) => {
                let cord = plan.push_cord(CordPart {
                    part,
                    family: family.clone(),
                    description: asm.description.clone(),
                    length_m: length,
                    legs,
                    media: media_of(asm.kind),
                    source: Source {
                        link: asm.source.clone(),
                        kind: asm.source_kind,
                    },
                });
                for (k, &j) in members.iter().enumerate() {
                    builds[j as usize] = Some(LinkBuild {
                        signal,
                        media: media_of(asm.kind),
                        a_module: None,
                        b_module: None,
                        cord,
                        cord_count: 1,
                        leg: (legs > 1).then_some(k as u32 + 1),
                        harness: (legs > 1).then(|| HarnessEnd {
                            on_a: input.ends[j as usize].0.slot == hub.slot,
                            connector: None,
                            cord,
                        }),
                    });
                }
            }
            None if twisted => problems.no_part(i, "no patch cord reaches this run", input),
            None => {}
        }
    }
}

/// How far each kind of assembly is taken: DAC and active copper to `physical.copper_max_m`,
/// an AOC to `physical.aoc_max_m` (its own reach: "AOCs … are used from 3 meters to about 100
/// meters", NVIDIA cable management FAQ), or with copper where that is unset. Twisted pair is
/// always taken (its own 100 m channel).
#[derive(Clone, Copy)]
struct Reach {
    copper: f64,
    aoc: f64,
}

impl Reach {
    fn of(input: &Inputs<'_>) -> Reach {
        let p = &input.spec.physical;
        let copper = p.copper_max_m.value;
        Reach {
            copper,
            aoc: p.aoc_max_m.as_ref().map_or(copper, |v| v.value),
        }
    }

    fn allows(self, kind: AssemblyKind, route: f64) -> bool {
        match kind {
            AssemblyKind::Dac | AssemblyKind::Acc => route <= self.copper,
            AssemblyKind::Aoc => route <= self.aoc,
            AssemblyKind::Utp => true,
        }
    }
}

pub(crate) fn media_of(kind: AssemblyKind) -> Media {
    match kind {
        AssemblyKind::Dac => Media::DacPassive,
        AssemblyKind::Acc => Media::Acc,
        AssemblyKind::Aoc => Media::Aoc,
        AssemblyKind::Utp => Media::Cat6,
    }
}

fn plug_fits(end: &AssemblyEnd, cage: &Cage) -> bool {
    cage.form.accepts(end.form) && end.top == cage.top && end.lanes <= cage.lanes
}

/// The assembly for a bundle: passive before active copper before AOC, the preferred vendor
/// first, then the part family's name; the shortest length that covers the longest leg.
fn pick<'c>(
    input: &'c Inputs<'_>,
    (hub, far): (&Cage, &Cage),
    legs: u32,
    signal: Signal,
    route: f64,
    reach: Reach,
) -> Option<(&'c Name, &'c Assembly, Name, f64)> {
    let vendor = input.spec.physical.vendor.as_ref();
    let mut fits: Vec<_> = input
        .catalog
        .assemblies
        .iter()
        .filter(|(_, a)| {
            a.b.count == legs
                && reach.allows(a.kind, route)
                && a.lane_rates.contains(&signal.rate)
                && a.b.lanes >= signal.lanes
                && plug_fits(&a.a, hub)
                && plug_fits(&a.b, far)
                && hub.vendor_lock.as_ref().is_none_or(|v| *v == a.vendor)
                && far.vendor_lock.as_ref().is_none_or(|v| *v == a.vendor)
        })
        .filter_map(|(name, a)| {
            order(name, &a.lengths, a.max_m.unwrap_or(0.0), route).map(|l| (name, a, l))
        })
        .collect();
    fits.sort_by_key(|(name, a, _)| (a.kind, vendor.is_none_or(|v| *v != a.vendor), *name));
    fits.into_iter()
        .next()
        .map(|(name, a, (part, m))| (name, a, part, m))
}
