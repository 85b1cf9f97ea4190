//! Optics for every link copper did not take: one module per cage, multimode or single-mode by
//! the longest run the cage serves (the choice spreads across links, since a twin-port module
//! runs both its ports on one kind of fibre: NVIDIA MMA4Z00-NS400, Connectivity Scenarios), the
//! module that fits the cage and reaches, then the fibre between the two modules: straight, or a
//! 1:2 splitter from a connector that carries two ports (a twin-port at 4x200G: two MFP7E20,
//! each NIC module on 2 lanes). APC meets APC only (NVIDIA LinkX, Optical Connectors).

use std::collections::BTreeMap;

use super::ends::EndCage;
use super::problems::Problems;
use super::{Cord, Inputs, LinkBuild, ModuleUse, PhysicalPlan};
use crate::catalog::{Cage, Fibre, Module, order};
use crate::model::ident::Name;
use crate::model::{FibreKind, FibreMedia, Fits, Grade, Media, Signal};

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

type CageKey = (usize, u32);

/// One connector of one module: (device, cage, connector index).
type ConnectorAt = (usize, u32, u32);

fn key(e: &EndCage) -> CageKey {
    (e.device, e.cage_key)
}

pub(crate) fn solve(
    input: &Inputs<'_>,
    signals: &[Option<Signal>],
    plan: &mut PhysicalPlan,
    builds: &mut [Option<LinkBuild>],
    problems: &mut Problems,
) {
    let links: Vec<_> = input.fabric.links().collect();
    let todo: Vec<usize> = (0..links.len())
        .filter(|&i| signals[i].is_some() && builds[i].is_none())
        .collect();
    let needs = cage_needs(input, signals, &todo, &links);
    // One module per cage, chosen once per kind of need.
    let mut chosen: BTreeMap<CageKey, Option<u32>> = BTreeMap::new();
    let mut by_need: BTreeMap<(usize, u32, Signal, FibreMedia, u64), Option<&Name>> =
        BTreeMap::new();
    let mut module_at = |e: &EndCage, plan: &mut PhysicalPlan| -> Option<u32> {
        *chosen.entry(key(e)).or_insert_with(|| {
            let need = needs[&key(e)];
            let part = *by_need
                .entry((
                    need.cage,
                    need.ports,
                    need.signal,
                    need.media,
                    need.route.to_bits(),
                ))
                .or_insert_with(|| choose(input, need).map(|(n, _)| n));
            let part = part?;
            let m = &input.catalog.modules[part];
            plan.modules.push(ModuleUse {
                device: e.device,
                cage: e.cage_key,
                part: part.clone(),
                description: m.description.clone(),
                power_w: m.power_w,
            });
            Some(plan.modules.len() as u32 - 1)
        })
    };
    let mut fibres = Fibres::default();
    for &i in &todo {
        let Some(signal) = signals[i] else { continue };
        let (a, b) = &input.ends[i];
        let (ma, mb) = (module_at(a, plan), module_at(b, plan));
        let (Some(ma), Some(mb)) = (ma, mb) else {
            problems.no_module(
                i,
                ma.is_none(),
                needs[&key(if ma.is_none() { a } else { b })].media,
                input,
            );
            continue;
        };
        let pa = &input.catalog.modules[&plan.modules[ma as usize].part];
        let pb = &input.catalog.modules[&plan.modules[mb as usize].part];
        let route = links[i].route_m;
        let reach = pa.reach().min(pb.reach());
        if route > reach + 1e-9 {
            problems.too_long(i, reach, input);
            continue;
        }
        match fibres.link(input, plan, (a, pa), (b, pb), signal, route, i) {
            Ok((cord, cord_count, leg)) => {
                builds[i] = Some(LinkBuild {
                    signal,
                    media: plan.cords[cord as usize].media,
                    a_module: Some(ma),
                    b_module: Some(mb),
                    cord,
                    cord_count,
                    leg,
                })
            }
            Err(why) => problems.no_part(i, &why, input),
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
) -> BTreeMap<CageKey, Need> {
    let beyond = input.spec.physical.singlemode_beyond_m.value;
    let mut needs: BTreeMap<CageKey, Need> = BTreeMap::new();
    for &i in todo {
        let (Some(signal), (a, b)) = (signals[i], &input.ends[i]) else {
            continue;
        };
        let route = links[i].route_m;
        let media = if route > beyond {
            FibreMedia::Smf
        } else {
            FibreMedia::Mmf
        };
        for e in [a, b] {
            let n = needs.entry(key(e)).or_insert(Need {
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
    loop {
        let mut changed = false;
        for &i in todo {
            let (a, b) = &input.ends[i];
            let m = needs[&key(a)].media.max(needs[&key(b)].media);
            for e in [a, b] {
                let n = needs.get_mut(&key(e)).expect("every end has a need");
                if n.media != m {
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
struct Fibres {
    /// (hub device, hub cage, hub connector) → cord index.
    splitters: BTreeMap<(usize, u32, u32), u32>,
    /// A trunk between two split connectors (4x10G on both ends): the lower end → (cord, the
    /// other end).
    trunks: BTreeMap<ConnectorAt, (u32, ConnectorAt)>,
}

impl Fibres {
    #[allow(clippy::too_many_arguments)]
    fn link(
        &mut self,
        input: &Inputs<'_>,
        plan: &mut PhysicalPlan,
        a: (&EndCage, &Module),
        b: (&EndCage, &Module),
        signal: Signal,
        route: f64,
        i: usize,
    ) -> Result<(u32, u32, Option<u32>), String> {
        let la = layout(a.1, a.0.ports, signal.lanes).ok_or("no layout")?;
        let lb = layout(b.1, b.0.ports, signal.lanes).ok_or("no layout")?;
        if la.per > 1 && lb.per > 1 {
            return self.trunk(input, plan, (a, la), (b, lb), route, i);
        }
        if la.span != lb.span {
            return Err("the modules split the link over different connector counts".into());
        }
        let (hub, lh, far) = if la.per > 1 { (a, la, b) } else { (b, lb, a) };
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
            let k = (hub.0.device, hub.0.cage_key, conn);
            if let Some(c) = self.splitters.get(&k) {
                let c = *c;
                if plan.cords[c as usize].length_m + 1e-9 < route {
                    self.lengthen(input, plan, c, route, i)?;
                }
                return Ok((c, 1, Some(leg)));
            }
            let ends = (hub.1, far.1);
            let c = push_cord(
                input,
                plan,
                ends,
                FibreKind::Splitter,
                lh.per,
                signal.lanes,
                route,
            )?;
            self.splitters.insert(k, c);
            return Ok((c, 1, Some(leg)));
        }
        let first = plan.cords.len() as u32;
        for _ in 0..la.span {
            let lanes = a.1.lanes.min(b.1.lanes);
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
    ) -> Result<(u32, u32, Option<u32>), String> {
        let end = |e: &EndCage, l: Layout| (e.device, e.cage_key, e.index / l.per);
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
            if plan.cords[c as usize].length_m + 1e-9 < route {
                self.lengthen(input, plan, c, route, i)?;
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
        self.trunks.insert(lo, (c, hi));
        Ok((c, 1, None))
    }

    /// A later leg of a splitter runs further than the first: order the longer length.
    fn lengthen(
        &mut self,
        input: &Inputs<'_>,
        plan: &mut PhysicalPlan,
        c: u32,
        route: f64,
        _i: usize,
    ) -> Result<(), String> {
        let fam = plan.cords[c as usize].family.clone();
        let f = &input.catalog.fibres[&fam];
        let (part, m) = order(&fam, &f.lengths, f.max_m, route)
            .ok_or_else(|| format!("{fam} is not sold {route} m long"))?;
        let cord = &mut plan.cords[c as usize];
        cord.part = part;
        cord.length_m = m;
        Ok(())
    }
}

fn push_cord(
    input: &Inputs<'_>,
    plan: &mut PhysicalPlan,
    (module, far): (&Module, &Module),
    kind: FibreKind,
    legs: u32,
    lanes: u32,
    route: f64,
) -> Result<u32, String> {
    let (name, f, l) =
        pick_fibre(input, (module, far), kind, legs, lanes, route).ok_or_else(|| {
            let legs_to = if far.connector == module.connector {
                String::new()
            } else {
                format!(" to {}", far.connector)
            };
            format!(
                "no {} {} fibre ({}{legs_to}{}) in the catalog reaches {route} m",
                module.media,
                kind,
                module.connector,
                if legs > 1 {
                    format!(", 1:{legs}")
                } else {
                    String::new()
                }
            )
        })?;
    plan.cords.push(Cord {
        part: l.0,
        family: name.clone(),
        description: f.description.clone(),
        length_m: l.1,
        legs,
        media: fibre_media(f),
    });
    Ok(plan.cords.len() as u32 - 1)
}

fn fibre_media(f: &Fibre) -> Media {
    match f.grade {
        Grade::Om3 => Media::MmfOm3,
        Grade::Om4 => Media::MmfOm4,
        Grade::Os2 => Media::SmfOs2,
    }
}

fn pick_fibre<'c>(
    input: &'c Inputs<'_>,
    (module, far): (&Module, &Module),
    kind: FibreKind,
    legs: u32,
    lanes: u32,
    route: f64,
) -> Option<(&'c Name, &'c Fibre, (Name, f64))> {
    let vendor = input.spec.physical.vendor.as_ref();
    input
        .catalog
        .fibres
        .iter()
        .filter(|(_, f)| {
            f.kind == kind
                && f.legs == legs
                && f.lanes_per_leg >= lanes
                && f.connector == module.connector
                && f.leg_connector.unwrap_or(f.connector) == far.connector
                && f.media == module.media
                && f.max_m + 1e-9 >= route
        })
        .filter_map(|(n, f)| order(n, &f.lengths, f.max_m, route).map(|l| (n, f, l)))
        .min_by(|(na, a, _), (nb, b, _)| {
            let pref = |f: &Fibre| vendor.is_some_and(|v| *v != f.vendor);
            pref(a)
                .cmp(&pref(b))
                .then(b.grade.cmp(&a.grade))
                .then(na.cmp(nb))
        })
}
