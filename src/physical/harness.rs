//! Breakout harnesses (1:N splitters) shared by the links of one split connector, and where
//! their legs may run (issue #46 item 6). A harness's legs fan out at one point, so they end in
//! one row; a connector whose links reach into several rows cannot be served by one harness.
//! It breaks out at a patch panel in the hub's own rack instead: the harness is ordered at the
//! in-rack length (`racks.in_rack_m`) and plugs into the panel, and each leg continues on its
//! own duplex cord from that panel, ordered at its own run. The first leg to cross a row moves
//! the legs planned before it onto their own cords ([`Harnesses::rewired`]).

use std::collections::{BTreeMap, BTreeSet};

use super::cords::{panel_cords, patch_cord_m, push_cord, reorder};
use super::ends::EndCage;
use super::{Inputs, PhysicalPlan};
use crate::catalog::Module;
use crate::model::FibreKind;

/// One leg to plan: the hub (split) end, the far end, the split (links per connector), the
/// lanes of one leg, the leg's run and its link.
pub(super) struct Leg<'e, 'm> {
    pub hub: (&'e EndCage, &'m Module),
    pub far: (&'e EndCage, &'m Module),
    pub per: u32,
    pub lanes: u32,
    pub route: f64,
    /// The link's index among the solver's links.
    pub index: usize,
}

/// A split connector: (hub cage slot, connector), the slot numbered in (device, cage) order,
/// so the lower end of a trunk is the same as by device and cage.
pub(super) type ConnectorAt = (u32, u32);

#[derive(Default)]
pub(super) struct Harnesses<'m> {
    /// (hub cage slot, connector) → the harness cord.
    cords: BTreeMap<ConnectorAt, u32>,
    /// The row the harness's first leg ends in (`None`: no rack layout).
    rows: BTreeMap<ConnectorAt, Option<u64>>,
    /// Its legs so far, for a move to a panel: (link, far module, run).
    legs: BTreeMap<ConnectorAt, Vec<(usize, &'m Module, f64)>>,
    /// Connectors broken out at a panel.
    panel: BTreeSet<ConnectorAt>,
    /// Links that got a cord of their own when their harness moved to a panel: (link, cord).
    pub rewired: Vec<(usize, u32)>,
}

/// The row of a device's rack (`None` without one), by the rack layout's numbering.
fn row(input: &Inputs<'_>, e: &EndCage) -> Option<u64> {
    let rack = input.fabric.device(e.device).rack.as_deref()?;
    Some(crate::topology::rack_row(rack).to_bits())
}

impl<'m> Harnesses<'m> {
    /// Plan one leg: the cord the link runs on and the harness it plugs into.
    pub fn leg(
        &mut self,
        input: &Inputs<'_>,
        plan: &mut PhysicalPlan,
        l: Leg<'_, 'm>,
        panels: u32,
    ) -> Result<(u32, u32), String> {
        let k = (l.hub.0.slot, l.hub.0.index / l.per);
        let here = row(input, l.far.0);
        let Some(&c) = self.cords.get(&k) else {
            let c = push_cord(
                input,
                plan,
                (l.hub.1, l.far.1),
                FibreKind::Splitter,
                l.per,
                l.lanes,
                l.route,
            )?;
            panel_cords(input, plan, l.hub.1, l.hub.1.lanes, panels)?;
            self.cords.insert(k, c);
            self.rows.insert(k, here);
            self.legs
                .entry(k)
                .or_default()
                .push((l.index, l.far.1, l.route));
            return Ok((c, c));
        };
        let crosses = self.panel.contains(&k) || self.rows.get(&k).copied().flatten() != here;
        if !crosses {
            if plan.cord(c).is_some_and(|p| p.length_m + 1e-9 < l.route) {
                reorder(input, plan, c, l.route)?;
            }
            self.legs
                .entry(k)
                .or_default()
                .push((l.index, l.far.1, l.route));
            return Ok((c, c));
        }
        if self.panel.insert(k) {
            for (j, m, run) in self.legs.remove(&k).unwrap_or_default() {
                let own = duplex(input, plan, m, l.lanes, run)?;
                self.rewired.push((j, own));
            }
            reorder(input, plan, c, patch_cord_m(input.spec))?;
        }
        Ok((duplex(input, plan, l.far.1, l.lanes, l.route)?, c))
    }
}

/// A leg's own cord from the panel to its far end: a straight cord of the far module's
/// connector.
fn duplex(
    input: &Inputs<'_>,
    plan: &mut PhysicalPlan,
    far: &Module,
    lanes: u32,
    route: f64,
) -> Result<u32, String> {
    push_cord(
        input,
        plan,
        (far, far),
        FibreKind::Straight,
        1,
        lanes,
        route,
    )
}
