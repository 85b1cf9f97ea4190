//! Fibre cords as ordered: a fibre part picked for two modules and a run, ordered in the
//! family's stocked length (`push_cord`), ordered anew when a run changes (`reorder`), and the
//! patch cords a panel adds (`panel_cords`). Shared by the optics solver and the harnesses.

use super::{CordPart, Inputs, PhysicalPlan, Source};
use crate::catalog::{Fibre, Module, order};
use crate::model::ident::Name;
use crate::model::{FibreKind, Grade, Media};

/// Order cord `c` anew at `route` metres (a later leg of a splitter runs further than the
/// first; a harness moved to a panel runs only in its rack), its family's stocked length.
pub(super) fn reorder(
    input: &Inputs<'_>,
    plan: &mut PhysicalPlan,
    c: u32,
    route: f64,
) -> Result<(), String> {
    let Some(old) = plan.cord(c).cloned() else {
        return Ok(());
    };
    let fam = &old.family;
    let f = &input.catalog.fibres[fam];
    let (part, length_m) = order(fam, &f.lengths, f.max_m, route)
        .ok_or_else(|| format!("{fam} is not sold {route} m long"))?;
    let k = plan.cord_part(CordPart {
        part,
        length_m,
        ..old
    });
    plan.cords[c as usize] = k;
    Ok(())
}

/// Length of one patch cord at a panel: a cord from a device to a panel in its own rack (or
/// the panel's own rack), `racks.in_rack_m` (2 m without a rack layout).
pub(super) fn patch_cord_m(spec: &crate::spec::ClusterSpec) -> f64 {
    spec.racks
        .as_ref()
        .map_or_else(crate::spec::defaults::in_rack, |r| r.in_rack_m)
}

/// Order the patch cords `n` panel crossings add: each panel joins a cord (device side) to the
/// planned fibre (the trunk), NVIDIA's "two ... patch panels in the link, a total of 4 ferule-to
/// ferule connections" being cord–panel–trunk–panel–cord. A straight cord of the module's own
/// connector, fibre and polish, `patch_cord_m` long.
pub(super) fn panel_cords(
    input: &Inputs<'_>,
    plan: &mut PhysicalPlan,
    m: &Module,
    lanes: u32,
    n: u32,
) -> Result<(), String> {
    if n == 0 {
        return Ok(());
    }
    let len = patch_cord_m(input.spec);
    let (name, f, (part, length_m)) = pick_fibre(input, (m, m), FibreKind::Straight, 1, lanes, len)
        .ok_or_else(|| {
            format!(
                "no {} straight {} patch cord in the catalog for the declared patch panels",
                m.media, m.connector
            )
        })?;
    let k = plan.cord_part(CordPart {
        part,
        family: name.clone(),
        description: f.description.clone(),
        length_m,
        legs: 1,
        media: fibre_media(f),
        source: fibre_source(f),
    });
    plan.panel_cords.extend(std::iter::repeat_n(k, n as usize));
    Ok(())
}

pub(super) fn push_cord(
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
    Ok(plan.push_cord(CordPart {
        part: l.0,
        family: name.clone(),
        description: f.description.clone(),
        length_m: l.1,
        legs,
        media: fibre_media(f),
        source: fibre_source(f),
    }))
}

pub(super) fn fibre_source(f: &Fibre) -> Source {
    Source {
        link: f.source.clone(),
        kind: f.source_kind,
    }
}

pub(super) fn fibre_media(f: &Fibre) -> Media {
    match f.grade {
        Grade::Om3 => Media::MmfOm3,
        Grade::Om4 => Media::MmfOm4,
        Grade::Os2 => Media::SmfOs2,
    }
}

pub(super) fn pick_fibre<'c>(
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
