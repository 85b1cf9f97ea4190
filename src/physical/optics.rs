//! Optics for every link copper did not take: one module per cage, multimode or single-mode by
//! the longest run the cage serves (the choice spreads across links, since a twin-port module
//! runs both its ports on one kind of fibre: NVIDIA MMA4Z00-NS400, Connectivity Scenarios), the
//! module that fits the cage and reaches, then the fibre between the two modules: straight, or a
//! 1:2 splitter from a connector that carries two ports (a twin-port at 4x200G: two MFP7E20,
//! each NIC module on 2 lanes). APC meets APC only (NVIDIA LinkX, Optical Connectors).

use std::collections::BTreeMap;

use super::cords::{panel_cords, patch_cord_m, push_cord, reorder};
use super::ends::EndCage;
use super::harness::{ConnectorAt, Harnesses, Leg};
use super::problems::Problems;
use super::{HarnessEnd, Inputs, LinkBuild, ModulePart, ModuleUse, PhysicalPlan, Source};
use crate::catalog::{Cage, Module};
use crate::model::ident::Name;
use crate::model::{FibreKind, FibreMedia, Fits, LaneRate, Signal};

/// A link's fibre: its first cord, how many cords, and the splitter leg with its harness end.
type Fitting = (u32, u32, Option<(u32, HarnessEnd)>);

/// How a cage's ports sit on a module's connectors: `per` ports share one connector (a
/// splitter's single end), or one port spans `span` connectors (800G over a twin-port).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layout {
    per: u32,
    span: u32,
}

fn layout(m: &Module, ports: u32, lanes: u32) -> Option<Layout> {
    if lanes > m.lanes {
        let span = lanes / m.lanes;
        (lanes.is_multiple_of(m.lanes) && ports * span <= m.ports)
            .then_some(Layout { per: 1, span })
    } else if ports <= m.ports {
        (lanes >= m.min_lanes()).then_some(Layout { per: 1, span: 1 })
    } else {
        let per = ports.div_ceil(m.ports);
        (per * lanes == m.lanes).then_some(Layout { per, span: 1 })
    }
}

fn fits(m: &Module, cage: &Cage, ports: u32, s: Signal, media: FibreMedia) -> bool {
    cage.form.accepts(m.form)
        && m.top == cage.top
        && (m.fits == Fits::Any || m.fits == cage.host)
        && cage.vendor_lock.as_ref().is_none_or(|v| *v == m.vendor)
        && m.media == media
        && m.lane_rates.contains(&s.rate)
        && m.ports * m.lanes <= cage.lanes.max(m.lanes)
        && layout(m, ports, s.lanes).is_some()
}

/// What one cage needs: its kind, ports, signal, fibre and longest run.
#[derive(Clone, Copy)]
struct Need {
    cage: usize,
    ports: u32,
    signal: Signal,
    media: FibreMedia,
    route: f64,
}

/// The module for a cage: the vendor the switch or the policy wants, a module that uses the
/// whole cage, the shortest reach that covers the cage's longest run, then the lowest power.
fn choose<'c>(input: &'c Inputs<'_>, need: Need) -> Option<(&'c Name, &'c Module)> {
    let cage = &input.cages.all[need.cage];
    let vendor = input.spec.physical.vendor.as_ref();
    input
        .catalog
        .modules
        .iter()
        .filter(|(_, m)| fits(m, cage, need.ports, need.signal, need.media))
        .min_by(|(na, a), (nb, b)| {
            let key = |m: &Module| {
                (
                    vendor.is_some_and(|v| *v != m.vendor),
                    m.ports * m.lanes != cage.lanes,
                    m.reach() + 1e-9 < need.route,
                )
            };
            // Among modules that reach, the shortest reach; when none reaches, the longest
            // (the error then names the best the catalog has).
            let by_reach = if key(a).2 && key(b).2 {
                b.reach().total_cmp(&a.reach())
            } else {
                a.reach().total_cmp(&b.reach())
            };
            key(a)
                .cmp(&key(b))
                .then(by_reach)
                .then(
                    a.power_w
                        .unwrap_or(0.0)
                        .total_cmp(&b.power_w.unwrap_or(0.0)),
                )
                .then(na.cmp(nb))
        })
}

pub(crate) fn solve(
    input: &Inputs<'_>,
    signals: &[Option<Signal>],
    plan: &mut PhysicalPlan,
    builds: &mut [Option<LinkBuild>],
    problems: &mut Problems,
) {
    let links = &input.links;
    let todo: Vec<usize> = (0..links.len())
        .filter(|&i| signals[i].is_some() && builds[i].is_none())
        .collect();
    let needs = cage_needs(input, signals, &todo, links);
    // One module per cage, chosen once per kind of need; the plan stores each part once.
    let mut chosen: Vec<Option<Option<u32>>> = vec![None; input.slots];
    let mut by_need: BTreeMap<(usize, u32, Signal, FibreMedia, u64), Option<u32>> = BTreeMap::new();
    // The catalog entry of each module part, by the part's index in the plan.
    let mut parts: Vec<Option<&Module>> = Vec::new();
    let mut module_at = |e: &EndCage, plan: &mut PhysicalPlan| -> Option<u32> {
        let slot = chosen.get_mut(e.slot as usize)?;
        if let Some(m) = *slot {
            return m;
        }
        let need = needs.get(e.slot as usize).copied().flatten();
        let part = need.and_then(|need| {
            *by_need
                .entry((
                    need.cage,
                    need.ports,
                    need.signal,
                    need.media,
                    need.route.to_bits(),
                ))
                .or_insert_with(|| {
                    let (name, m) = choose(input, need)?;
                    plan.module_parts.push(ModulePart {
                        part: name.clone(),
                        description: m.description.clone(),
                        power_w: m.power_w,
                        source: Source {
                            link: m.source.clone(),
                            kind: m.source_kind,
                        },
                    });
                    Some(plan.module_parts.len() as u32 - 1)
                })
        });
        let m = part.map(|part| {
            plan.modules.push(ModuleUse {
                device: e.device,
                cage: e.cage_key,
                part,
            });
            plan.modules.len() as u32 - 1
        });
        *slot = Some(m);
        m
    };
    let mut fibres = Fibres::default();
    for &i in &todo {
        let Some(signal) = signals[i] else { continue };
        let (a, b) = &input.ends[i];
        let (ma, mb) = (module_at(a, plan), module_at(b, plan));
        let (Some(ma), Some(mb)) = (ma, mb) else {
            let e = if ma.is_none() { a } else { b };
            if let Some(need) = needs.get(e.slot as usize).copied().flatten() {
                problems.no_module(i, ma.is_none(), need.media, input);
            }
            continue;
        };
        while parts.len() < plan.module_parts.len() {
            let name = &plan.module_parts[parts.len()].part;
            parts.push(input.catalog.modules.get(name));
        }
        let part = |m: u32| parts[plan.modules[m as usize].part as usize];
        let (Some(pa), Some(pb)) = (part(ma), part(mb)) else {
            continue;
        };
        let route = links[i].route_m;
        let reach = pa.reach().min(pb.reach());
        let channel = channel_m(input, links[i]);
        if channel > reach + 1e-9 {
            problems.too_long(i, channel, reach, input);
            continue;
        }
        match fibres.link(input, plan, (a, pa), (b, pb), signal, route, i) {
            Ok((cord, cord_count, leg)) => {
                let (leg, harness) = (leg.map(|l| l.0), leg.map(|l| l.1));
                let Some(media) = plan.cord(cord).map(|c| c.media) else {
                    continue;
                };
                builds[i] = Some(LinkBuild {
                    signal,
                    media,
                    a_module: Some(ma),
                    b_module: Some(mb),
                    cord,
                    cord_count,
                    leg,
                    harness,
                })
            }
            Err(why) => problems.no_part(i, &why, input),
        }
    }
    // Legs planned on a harness that a later leg moved to a panel run on cords of their own.
    for (j, own) in std::mem::take(&mut fibres.harnesses.rewired) {
        if let Some(b) = builds.get_mut(j).and_then(Option::as_mut) {
            b.cord = own;
        }
    }
}

/// The need of every cage that takes a module: media by the longest run any link that shares a
/// module with it must reach, spread to a fixed point across the links (a single-mode port
/// makes its twin single-mode, and the far end with it).
fn cage_needs(
    input: &Inputs<'_>,
    signals: &[Option<Signal>],
    todo: &[usize],
    links: &[&crate::topology::Link],
) -> Vec<Option<Need>> {
    let beyond = input.spec.physical.singlemode_beyond_m.value;
    let mut needs: Vec<Option<Need>> = vec![None; input.slots];
    for &i in todo {
        let (Some(signal), (a, b)) = (signals[i], &input.ends[i]) else {
            continue;
        };
        let route = channel_m(input, links[i]);
        // No multimode at 200G-PAM4: "Not used for XDR: … Multimode transceivers, active optical
        // cables (AOC). (Lasers not available yet)" (NVIDIA LinkX 800g200gpam4list).
        let media = if route > beyond || signal.rate == LaneRate::G200Pam4 {
            FibreMedia::Smf
        } else {
            FibreMedia::Mmf
        };
        for e in [a, b] {
            let n = needs[e.slot as usize].get_or_insert(Need {
                cage: e.cage,
                ports: e.ports,
                signal,
                media,
                route,
            });
            n.media = n.media.max(media);
            n.route = n.route.max(route);
        }
    }
    let media = |needs: &[Option<Need>], e: &EndCage| needs[e.slot as usize].map(|n| n.media);
    loop {
        let mut changed = false;
        for &i in todo {
            let (a, b) = &input.ends[i];
            let m = media(&needs, a).max(media(&needs, b));
            for e in [a, b] {
                if let (Some(n), Some(m)) = (needs[e.slot as usize].as_mut(), m)
                    && n.media != m
                {
                    n.media = m;
                    changed = true;
                }
            }
        }
        if !changed {
            return needs;
        }
    }
}

/// Whether two modules can be joined by fibre: same connector and polish, same optical standard.
fn mate(a: &Module, b: &Module) -> Result<(), String> {
    if a.connector != b.connector {
        return Err(format!(
            "the modules' connectors differ ({} and {}): APC and UPC cannot mate",
            a.connector, b.connector
        ));
    }
    if a.standard != b.standard {
        return Err(format!(
            "the modules run different optics ({} and {})",
            a.standard, b.standard
        ));
    }
    Ok(())
}

/// Fibre cords, shared where a splitter serves two links.
#[derive(Default)]
struct Fibres<'m> {
    /// The breakout harnesses of split connectors.
    harnesses: Harnesses<'m>,
    /// A trunk between two split connectors (4x10G on both ends): the lower end → (cord, the
    /// other end).
    trunks: BTreeMap<ConnectorAt, (u32, ConnectorAt)>,
}

impl<'m> Fibres<'m> {
    #[allow(clippy::too_many_arguments)]
    fn link(
        &mut self,
        input: &Inputs<'_>,
        plan: &mut PhysicalPlan,
        a: (&EndCage, &'m Module),
        b: (&EndCage, &'m Module),
        signal: Signal,
        route: f64,
        i: usize,
    ) -> Result<Fitting, String> {
        let la = layout(a.1, a.0.ports, signal.lanes).ok_or("no layout")?;
        let lb = layout(b.1, b.0.ports, signal.lanes).ok_or("no layout")?;
        if la.per > 1 && lb.per > 1 {
            return self.trunk(input, plan, (a, la), (b, lb), route, i);
        }
        if la.span != lb.span {
            return Err("the modules split the link over different connector counts".into());
        }
        let (hub, lh, far) = if la.per > 1 { (a, la, b) } else { (b, lb, a) };
        let harness = |conn: u32| HarnessEnd {
            on_a: la.per > 1,
            connector: (hub.1.ports > 1).then_some(conn + 1),
            cord: 0,
        };
        if lh.per == 1 {
            mate(a.1, b.1)?;
        } else if hub.1.media != far.1.media {
            return Err(format!(
                "the modules' fibres differ ({} and {})",
                hub.1.media, far.1.media
            ));
        }
        if lh.per > 1 {
            let conn = hub.0.index / lh.per;
            let leg = hub.0.index % lh.per + 1;
            let run = Leg {
                hub,
                far,
                per: lh.per,
                lanes: signal.lanes,
                route,
                index: i,
            };
            let (cord, on) = self.harnesses.leg(input, plan, run, panels(input, i))?;
            let end = HarnessEnd {
                cord: on,
                ..harness(conn)
            };
            return Ok((cord, 1, Some((leg, end))));
        }
        let first = plan.cords.len() as u32;
        let lanes = a.1.lanes.min(b.1.lanes);
        for _ in 0..la.span {
            push_cord(
                input,
                plan,
                (a.1, b.1),
                FibreKind::Straight,
                1,
                lanes,
                route,
            )?;
        }
        panel_cords(input, plan, a.1, lanes, la.span * panels(input, i))?;
        Ok((first, la.span, None))
    }

    /// Two split connectors joined lane for lane by one straight trunk: every port of one
    /// connector must meet the same lane of one connector at the far end.
    fn trunk(
        &mut self,
        input: &Inputs<'_>,
        plan: &mut PhysicalPlan,
        a: ((&EndCage, &Module), Layout),
        b: ((&EndCage, &Module), Layout),
        route: f64,
        i: usize,
    ) -> Result<Fitting, String> {
        let end = |e: &EndCage, l: Layout| (e.slot, e.index / l.per);
        let (ea, eb) = (end(a.0.0, a.1), end(b.0.0, b.1));
        if a.1.per != b.1.per || a.0.0.index % a.1.per != b.0.0.index % b.1.per {
            return Err(
                "both ends are split connectors whose ports do not meet lane for lane".into(),
            );
        }
        let (lo, hi) = if ea <= eb { (ea, eb) } else { (eb, ea) };
        if let Some((c, far)) = self.trunks.get(&lo) {
            if *far != hi {
                return Err(
                    "the ports of one split connector go to different far connectors; \
                            a breakout cable or panel is needed"
                        .into(),
                );
            }
            let c = *c;
            if plan.cord(c).is_some_and(|p| p.length_m + 1e-9 < route) {
                reorder(input, plan, c, route)?;
            }
            return Ok((c, 1, None));
        }
        mate(a.0.1, b.0.1)?;
        let lanes = a.0.1.lanes.min(b.0.1.lanes);
        let c = push_cord(
            input,
            plan,
            (a.0.1, b.0.1),
            FibreKind::Straight,
            1,
            lanes,
            route,
        )?;
        panel_cords(input, plan, a.0.1, lanes, panels(input, i))?;
        self.trunks.insert(lo, (c, hi));
        Ok((c, 1, None))
    }
}

/// Patch panels link `i` passes (`physical.patch_panels` of its tier).
fn panels(input: &Inputs<'_>, i: usize) -> u32 {
    input
        .links
        .get(i)
        .map_or(0, |l| input.spec.physical.patch_panels.of(l.tier))
}

/// The whole optical channel of a link: the routed run plus its patch cords. NVIDIA's reaches
/// are totals "inc. patch panels, trunk and cables" (NVIDIA cabling requirements).
fn channel_m(input: &Inputs<'_>, l: &crate::topology::Link) -> f64 {
    let n = input.spec.physical.patch_panels.of(l.tier);
    l.route_m + f64::from(n) * patch_cord_m(input.spec)
}
