//! Rack elevations: every declared rack as an SVG front view with its U positions.
//!
//! The spec places devices in racks but not at U positions, so the elevation proposes them the
//! way GPU racks are usually filled: nodes from U1 upwards (heaviest lowest), switches from the
//! top down. A rack whose devices need more than 42U is drawn as tall as needed and flagged.
//! Proposed here; drawn by [`elevation`].

mod elevation;

use std::collections::BTreeMap;

use crate::model::Role;
use crate::output::natural;
use crate::topology::{Device, Fabric};
pub use elevation::render;

/// A standard 42U rack.
pub const RACK_UNITS: u32 = 42;

/// One device at its proposed position.
pub struct Slot<'a> {
    pub device: &'a Device,
    /// Lowest U occupied (1-based) and height in U.
    pub u: u32,
    pub height: u32,
}

pub struct Rack<'a> {
    pub name: &'a str,
    pub slots: Vec<Slot<'a>>,
    pub units: u32,
    pub used: u32,
}

fn height_of(f: &Fabric, d: &Device) -> u32 {
    f.switch_model(d)
        .map(|m| m.ru)
        .or_else(|| f.node_model(d).map(|m| m.ru))
        .unwrap_or(1)
        .max(1)
}

/// Every rack with its devices at proposed U positions, in natural rack order.
pub fn racks(f: &Fabric) -> Vec<Rack<'_>> {
    racks_where(f, |_| true)
}

/// The racks `keep` names, each whole, in natural rack order.
pub fn racks_where<'f>(f: &'f Fabric, keep: impl Fn(&str) -> bool) -> Vec<Rack<'f>> {
    let mut by_rack: BTreeMap<&str, Vec<&Device>> = BTreeMap::new();
    for d in f.devices() {
        if let Some(r) = d.rack.as_deref().filter(|r| keep(r)) {
            by_rack.entry(r).or_default().push(d);
        }
    }
    let mut out: Vec<Rack<'_>> = by_rack
        .into_iter()
        .map(|(name, devs)| propose(f, name, devs))
        .collect();
    out.sort_by(|a, b| natural::cmp(a.name, b.name));
    out
}

/// One rack: nodes and appliances from U1 up, switches from the top down, each in natural
/// name order; at least 42U, taller when its devices need more.
fn propose<'a>(f: &Fabric, name: &'a str, mut devs: Vec<&'a Device>) -> Rack<'a> {
    devs.sort_by(|a, b| natural::cmp(&a.name, &b.name));
    let (low, high): (Vec<&Device>, Vec<&Device>) = devs
        .into_iter()
        .partition(|d| matches!(d.role, Role::Node | Role::Appliance));
    let used: u32 = low.iter().chain(&high).map(|d| height_of(f, d)).sum();
    let units = used.max(RACK_UNITS);
    let mut slots = Vec::new();
    let mut u = 1;
    for d in low {
        let h = height_of(f, d);
        slots.push(Slot {
            device: d,
            u,
            height: h,
        });
        u += h;
    }
    let mut top = units + 1;
    for d in high {
        let h = height_of(f, d);
        top -= h;
        slots.push(Slot {
            device: d,
            u: top,
            height: h,
        });
    }
    Rack {
        name,
        slots,
        units,
        used,
    }
}
