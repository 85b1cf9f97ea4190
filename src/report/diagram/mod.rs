//! The fabric diagram: devices grouped the way a rail-optimized fabric is built (planes → SU
//! blocks → rails → leaves, spine groups and cores above; storage, in-band and OOB in panels
//! beside), cables aggregated into bundles, laid out on a grid and drawn as SVG.
//!
//! Drawn in phases, each a file of its own with typed data between them:
//! 1. aggregate: devices into units and frames ([`devices`], the units by key in [`units`]),
//!    cables into bundles ([`bundles`]);
//! 2. blocks: every frame's units in order, with the frame's size ([`blocks`]);
//! 3. place: the compute panel ([`compute_panel`]), the access panels beside or below it
//!    ([`access_panels`]);
//! 4. draw: [`svg`].
//!
//! Contract (what `tests/deliverables/report.rs` checks against `cabling.csv`): every cable belongs to exactly
//! one bundle, keyed by
//! - node-leaf on the compute fabric: (unit of the node, unit of the leaf, rail);
//! - node-leaf elsewhere: (stub of the node's column in that network's panel, unit of the leaf);
//! - leaf-spine and spine-core: (frame of the lower switch, frame of the upper switch);
//! - mgmt: (stub of the device's column in the OOB panel, unit of the OOB switch).
//!
//! A *unit* is one drawn box: a switch, or an aggregate of switches, nodes or (stub) devices. A
//! *frame* is a block of units: an SU's leaves in one plane, a spine group, the cores of a plane.
//! Aggregation depends on size only, never on names, so the same fabric always draws the same.

mod access_panels;
mod blocks;
mod bundles;
mod columns;
mod compute_panel;
mod devices;
mod geometry;
pub mod pod_grid;
pub mod svg;
mod units;

use std::collections::BTreeSet;

use crate::model::{Network, Role, Tier};
use crate::topology::{Device, Fabric, PerDevice, PerLink};

/// How much is aggregated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every switch drawn; nodes per SU.
    Detail,
    /// Leaves per SU, spines per group, cores per plane.
    PerSu,
    /// One column per pod (spine group or run of SUs): leaves, nodes per pod.
    PerPod,
}

/// Largest fabric drawn switch by switch.
const DETAIL_MAX_SWITCHES: usize = 400;
const DETAIL_MAX_SUS: u32 = 8;
/// Most SU columns drawn before columns become pods.
const PER_SU_MAX_SUS: u32 = 48;
/// Most switches of one role drawn one by one in an access panel.
const PANEL_MAX_UNITS: usize = 16;

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Detail => "detail",
            Mode::PerSu => "per-su",
            Mode::PerPod => "per-pod",
        }
    }

    /// By size: switch by switch while small, then per SU, then per pod.
    fn of(f: &Fabric) -> Mode {
        let compute = f
            .devices()
            .filter(|d| matches!(d.role, Role::Leaf | Role::Spine | Role::Core))
            .count();
        let sus = f.sizing.sus;
        if compute <= DETAIL_MAX_SWITCHES && sus <= DETAIL_MAX_SUS {
            Mode::Detail
        } else if sus <= PER_SU_MAX_SUS {
            Mode::PerSu
        } else {
            Mode::PerPod
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    Switch,
    Aggregate,
    Nodes,
    Stub,
}

impl UnitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Switch => "switch",
            UnitKind::Aggregate => "aggregate",
            UnitKind::Nodes => "nodes",
            UnitKind::Stub => "stub",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Unit {
    pub key: String,
    pub kind: UnitKind,
    pub role: &'static str,
    pub network: Network,
    pub title: String,
    pub sub: String,
    /// Switches this unit stands for (0 for nodes and stubs).
    pub switches: usize,
    pub devices: usize,
    pub rails: BTreeSet<u32>,
    /// The device of a single-switch unit (its port map).
    pub device: Option<usize>,
    pub rect: Rect,
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub key: String,
    pub title: String,
    pub network: Network,
    pub rect: Rect,
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub network: Network,
    pub rect: Rect,
}

#[derive(Clone, Debug)]
pub struct Bundle {
    /// Lower end (node side) and upper end: unit, frame or stub keys.
    pub from: String,
    pub to: String,
    pub network: Network,
    pub tier: Tier,
    pub rail: Option<u32>,
    pub plane: Option<u32>,
    /// Cable indices (positions in `Fabric::links()`), in cable order.
    pub cables: Vec<usize>,
    /// `400G`, or `400G+800G` when mixed.
    pub speeds: String,
}

/// Where a device sits in the diagram (for the report's data and the browser test).
#[derive(Clone, Debug, Default)]
pub struct Placement {
    pub unit: String,
    pub frame: String,
    /// Column key (`su3`, `pod2`, `central`): which stub stands for the device in a panel.
    pub col: String,
}

pub struct Diagram {
    pub mode: Mode,
    pub panels: Vec<Panel>,
    pub frames: Vec<Frame>,
    pub units: Vec<Unit>,
    pub bundles: Vec<Bundle>,
    /// Bundle index of every cable.
    pub cable_bundle: PerLink<usize>,
    pub placements: PerDevice<Placement>,
    pub rails: BTreeSet<u32>,
    pub networks: BTreeSet<&'static str>,
    pub width: f64,
    pub height: f64,
}

/// Aggregate the fabric and lay it out.
pub fn build(f: &Fabric) -> Diagram {
    let mode = Mode::of(f);
    let cols = columns::Columns::new(mode, f);
    let devices: Vec<&Device> = f.devices().collect();

    let devices::Aggregate {
        mut units,
        placements,
        blocks,
    } = devices::aggregate(f, &devices, mode, &cols);
    let cabling = bundles::aggregate(f, &cols, &placements, &mut units);
    let mut units = units.subtitled(&devices);

    let blocks = blocks.in_order(&units);

    let mut frames = Vec::new();
    let compute = compute_panel::place(&mut units, &blocks, &placements, f, &mut frames);
    let mut panels = vec![compute];
    access_panels::place(&mut units, &blocks, &mut frames, &mut panels);
    let (width, height) = geometry::extent(&panels);

    Diagram {
        mode,
        panels,
        frames,
        units,
        bundles: cabling.bundles,
        cable_bundle: cabling.cable_bundle,
        placements,
        rails: cabling.rails,
        networks: cabling.networks,
        width,
        height,
    }
}
