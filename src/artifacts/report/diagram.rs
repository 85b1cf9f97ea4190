//! The fabric diagram: devices grouped the way a rail-optimized fabric is built (planes → SU
//! blocks → rails → leaves, spine groups and cores above; storage, in-band and OOB in panels
//! beside), cables aggregated into bundles, laid out on a grid. Pure data here; `svg.rs` draws it.
//!
//! Contract (what `tests/report.rs` checks against `cabling.csv`): every cable belongs to exactly
//! one bundle, keyed by
//! - node-leaf on the compute fabric: (unit of the node, unit of the leaf, rail);
//! - node-leaf elsewhere: (stub of the node's column in that network's panel, unit of the leaf);
//! - leaf-spine and spine-core: (frame of the lower switch, frame of the upper switch);
//! - mgmt: (stub of the device's column in the OOB panel, unit of the OOB switch).
//!
//! A *unit* is one drawn box: a switch, or an aggregate of switches, nodes or (stub) devices. A
//! *frame* is a block of units: an SU's leaves in one plane, a spine group, the cores of a plane.
//! Aggregation depends on size only, never on names, so the same fabric always draws the same.

use std::collections::{BTreeMap, BTreeSet};

use super::natural_key;
use crate::model::{Network, Role, Tier};
use crate::topology::{Device, Fabric};

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

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Detail => "detail",
            Mode::PerSu => "per-su",
            Mode::PerPod => "per-pod",
        }
    }
}

/// Largest fabric drawn switch by switch.
const DETAIL_MAX_SWITCHES: usize = 400;
const DETAIL_MAX_SUS: u32 = 8;
/// Most SU columns drawn before columns become pods.
const PER_SU_MAX_SUS: u32 = 48;
/// Most switches of one role drawn one by one in an access panel.
const PANEL_MAX_UNITS: usize = 16;

pub const UNIT_W: f64 = 100.0;
pub const UNIT_H: f64 = 34.0;
const GAP: f64 = 6.0;
const PAD: f64 = 8.0;
const FRAME_TITLE: f64 = 18.0;
const ROW_GAP: f64 = 86.0;
const COL_GAP: f64 = 18.0;
const GROUP_GAP: f64 = 40.0;
const PANEL_GAP: f64 = 56.0;
const PANEL_TITLE: f64 = 30.0;
pub const LEGEND_H: f64 = 58.0;
const MARGIN: f64 = 16.0;
/// Beyond this width the access panels go below the compute fabric instead of beside it.
const WIDE: f64 = 2400.0;

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
    pub cable_bundle: Vec<usize>,
    pub placements: Vec<Placement>,
    pub rails: BTreeSet<u32>,
    pub networks: BTreeSet<&'static str>,
    pub width: f64,
    pub height: f64,
}

fn is_compute_switch(r: Role) -> bool {
    matches!(r, Role::Leaf | Role::Spine | Role::Core)
}

/// The column a device belongs to: its SU, or its pod, or the central network rows.
struct Columns {
    mode: Mode,
    pod_size: u32,
}

impl Columns {
    fn of_su(&self, su: u32) -> String {
        match self.mode {
            Mode::PerPod => format!("pod{}", (su.max(1) - 1) / self.pod_size + 1),
            _ => format!("su{su}"),
        }
    }

    fn of(&self, d: &Device) -> String {
        match d.su {
            Some(su) => self.of_su(su),
            None => "central".into(),
        }
    }

    /// `SU 3`, `Pod 2`: the column's name on a box.
    fn short(&self, col: &str) -> String {
        if let Some(p) = col.strip_prefix("pod") {
            format!("Pod {p}")
        } else if let Some(s) = col.strip_prefix("su") {
            format!("SU {s}")
        } else {
            "central".into()
        }
    }

    fn label(&self, col: &str) -> String {
        if let Some(p) = col.strip_prefix("pod") {
            let p: u32 = p.parse().unwrap_or(1);
            let first = (p - 1) * self.pod_size + 1;
            format!("Pod {p} (SU {first}–{})", first + self.pod_size - 1)
        } else if let Some(s) = col.strip_prefix("su") {
            format!("SU {s}")
        } else {
            "central".into()
        }
    }
}

fn frame_size(n: usize, max_cols: usize) -> (usize, f64, f64) {
    let cols = n.clamp(1, max_cols);
    let rows = n.div_ceil(cols).max(1);
    let w = 2.0 * PAD + cols as f64 * UNIT_W + (cols - 1) as f64 * GAP;
    let h = FRAME_TITLE + PAD + rows as f64 * UNIT_H + (rows - 1) as f64 * GAP;
    (cols, w, h)
}

/// Units of one frame, before placement.
struct Block {
    key: String,
    title: String,
    network: Network,
    units: Vec<usize>,
    max_cols: usize,
}

impl Block {
    fn size(&self) -> (usize, f64, f64) {
        frame_size(self.units.len(), self.max_cols)
    }
}

struct Builder {
    units: Vec<Unit>,
    unit_index: BTreeMap<String, usize>,
    placements: Vec<Placement>,
}

impl Builder {
    /// The unit `key`, created on first use; `dev` is counted in.
    #[allow(clippy::too_many_arguments)]
    fn unit(
        &mut self,
        key: String,
        kind: UnitKind,
        role: &'static str,
        network: Network,
        title: String,
        dev: usize,
        d: &Device,
    ) -> usize {
        let i = *self.unit_index.entry(key.clone()).or_insert_with(|| {
            self.units.push(Unit {
                key,
                kind,
                role,
                network,
                title,
                sub: String::new(),
                switches: 0,
                devices: 0,
                rails: BTreeSet::new(),
                device: (kind == UnitKind::Switch).then_some(dev),
                rect: Rect::default(),
            });
            self.units.len() - 1
        });
        let u = &mut self.units[i];
        u.devices += 1;
        if d.role.is_switch() {
            u.switches += 1;
        }
        u.rails.extend(d.rails.iter().copied());
        i
    }

    fn stub(&mut self, net: Network, col: &str, label: String) -> String {
        let key = format!("s-{}-{col}", net.as_str());
        if !self.unit_index.contains_key(&key) {
            self.units.push(Unit {
                key: key.clone(),
                kind: UnitKind::Stub,
                role: "stub",
                network: net,
                title: label,
                sub: String::new(),
                switches: 0,
                devices: 0,
                rails: BTreeSet::new(),
                device: None,
                rect: Rect::default(),
            });
            self.unit_index.insert(key.clone(), self.units.len() - 1);
        }
        key
    }
}

fn choose_mode(f: &Fabric) -> Mode {
    let compute = f.devices().filter(|d| is_compute_switch(d.role)).count();
    let sus = f.sizing.sus;
    if compute <= DETAIL_MAX_SWITCHES && sus <= DETAIL_MAX_SUS {
        Mode::Detail
    } else if sus <= PER_SU_MAX_SUS {
        Mode::PerSu
    } else {
        Mode::PerPod
    }
}

fn pod_size(f: &Fabric) -> u32 {
    let c = &f.sizing.compute;
    if c.tiers == 3 && c.sus_per_group > 0 {
        c.sus_per_group
    } else {
        f.sizing.sus.div_ceil(PER_SU_MAX_SUS).max(1)
    }
}

fn rails_text(rails: &BTreeSet<u32>) -> String {
    let v: Vec<u32> = rails.iter().copied().collect();
    match v.as_slice() {
        [] => String::new(),
        [r] => format!("rail {r}"),
        [first, .., last] if (*last - *first) as usize + 1 == v.len() => {
            format!("rails {first}–{last}")
        }
        _ => format!(
            "rails {}",
            v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        ),
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else if one.ends_with('x') || one.ends_with("ch") {
        format!("{n} {one}es")
    } else {
        format!("{n} {one}s")
    }
}

/// Aggregate the fabric and lay it out.
pub fn build(f: &Fabric) -> Diagram {
    let mode = choose_mode(f);
    let cols = Columns {
        mode,
        pod_size: pod_size(f),
    };
    let devices: Vec<&Device> = f.devices().collect();
    let mut b = Builder {
        units: Vec::new(),
        unit_index: BTreeMap::new(),
        placements: vec![Placement::default(); devices.len()],
    };
    let planes = f.sizing.compute.planes.max(1);
    let detail = mode == Mode::Detail;

    // Counts that decide aggregation in the access panels.
    let col_count = devices
        .iter()
        .filter_map(|d| d.su)
        .map(|su| cols.of_su(su))
        .collect::<BTreeSet<_>>()
        .len();
    let mut role_counts: BTreeMap<Role, usize> = BTreeMap::new();
    let mut role_groups: BTreeMap<Role, BTreeSet<u32>> = BTreeMap::new();
    for d in &devices {
        *role_counts.entry(d.role).or_default() += 1;
        if let Some(g) = d.group.or(d.su) {
            role_groups.entry(d.role).or_default().insert(g);
        }
    }

    // Frames: key → (title, network, unit list).
    let mut blocks: BTreeMap<String, Block> = BTreeMap::new();
    let add_block = |blocks: &mut BTreeMap<String, Block>,
                     key: &str,
                     title: String,
                     network: Network,
                     unit: usize,
                     max_cols: usize| {
        let bl = blocks.entry(key.to_string()).or_insert_with(|| Block {
            key: key.to_string(),
            title,
            network,
            units: Vec::new(),
            max_cols,
        });
        if !bl.units.contains(&unit) {
            bl.units.push(unit);
        }
    };

    for (i, d) in devices.iter().enumerate() {
        let col = cols.of(d);
        let p = d.plane.unwrap_or(1);
        let ptag = if planes > 1 {
            format!(" · plane {p}")
        } else {
            String::new()
        };
        let (unit, frame) = match d.role {
            Role::Node => {
                let u = b.unit(
                    format!("n-{col}"),
                    UnitKind::Nodes,
                    "node",
                    Network::Compute,
                    format!("{} nodes", cols.short(&col)),
                    i,
                    d,
                );
                (u, String::new())
            }
            Role::Appliance => {
                let u = b.unit(
                    format!("m-{col}"),
                    UnitKind::Nodes,
                    "appliance",
                    Network::Compute,
                    format!("{} fabric mgr", cols.short(&col)),
                    i,
                    d,
                );
                (u, String::new())
            }
            Role::Leaf => {
                let fkey = format!("f-leaf-p{p}-{col}");
                let u = if detail {
                    b.unit(
                        format!("d-{}", d.name),
                        UnitKind::Switch,
                        "leaf",
                        Network::Compute,
                        d.name.clone(),
                        i,
                        d,
                    )
                } else {
                    b.unit(
                        format!("a-leaves-p{p}-{col}"),
                        UnitKind::Aggregate,
                        "leaf",
                        Network::Compute,
                        format!("{} leaves", cols.short(&col)),
                        i,
                        d,
                    )
                };
                let title = if detail {
                    format!("{} leaves{ptag}", cols.label(&col))
                } else {
                    format!("{}{ptag}", cols.label(&col))
                };
                add_block(&mut blocks, &fkey, title, Network::Compute, u, 8);
                (u, fkey)
            }
            Role::Spine => {
                let g = d.group.unwrap_or(0);
                let fkey = format!("f-spine-p{p}-g{g}");
                let title = if g == 0 {
                    format!("Spines{ptag}")
                } else {
                    format!("Spine group {g}{ptag}")
                };
                let u = if detail {
                    b.unit(
                        format!("d-{}", d.name),
                        UnitKind::Switch,
                        "spine",
                        Network::Compute,
                        d.name.clone(),
                        i,
                        d,
                    )
                } else {
                    b.unit(
                        format!("a-spines-p{p}-g{g}"),
                        UnitKind::Aggregate,
                        "spine",
                        Network::Compute,
                        title.clone(),
                        i,
                        d,
                    )
                };
                add_block(&mut blocks, &fkey, title, Network::Compute, u, 8);
                (u, fkey)
            }
            Role::Core => {
                let fkey = format!("f-core-p{p}");
                let u = if detail {
                    b.unit(
                        format!("d-{}", d.name),
                        UnitKind::Switch,
                        "core",
                        Network::Compute,
                        d.name.clone(),
                        i,
                        d,
                    )
                } else {
                    let g = d.group.unwrap_or(0);
                    b.unit(
                        format!("a-cores-p{p}-g{g}"),
                        UnitKind::Aggregate,
                        "core",
                        Network::Compute,
                        format!("Core group {g}"),
                        i,
                        d,
                    )
                };
                add_block(
                    &mut blocks,
                    &fkey,
                    format!("Cores{ptag}"),
                    Network::Compute,
                    u,
                    16,
                );
                (u, fkey)
            }
            r => {
                // Access networks and OOB: one panel each, upper and lower row.
                let net = d.network;
                // Cores and the OOB gateway sit with the spines: the panel has two rows.
                let upper = matches!(
                    r,
                    Role::StorageSpine
                        | Role::StorageCore
                        | Role::InbandSpine
                        | Role::InbandCore
                        | Role::OobCore
                        | Role::OobGateway
                );
                let tier_name = if upper { "upper" } else { "lower" };
                let fkey = format!("f-{}-{tier_name}", net.as_str());
                let count = role_counts.get(&r).copied().unwrap_or(0);
                let groups = role_groups.get(&r).map_or(0, BTreeSet::len);
                let role = r.as_str();
                let plural_name = match r {
                    Role::StorageCore => "storage cores",
                    Role::StorageSpine => "storage spines",
                    Role::StorageLeaf => "storage leaves",
                    Role::InbandCore => "in-band cores",
                    Role::InbandSpine => "in-band spines",
                    Role::InbandLeaf => "in-band leaves",
                    Role::OobCore => "OOB cores",
                    Role::OobGateway => "OOB gateway",
                    _ => "OOB leaves",
                };
                let u = if count <= PANEL_MAX_UNITS {
                    b.unit(
                        format!("d-{}", d.name),
                        UnitKind::Switch,
                        role,
                        net,
                        d.name.clone(),
                        i,
                        d,
                    )
                } else if d.su.is_some() && col_count <= 2 * PANEL_MAX_UNITS {
                    b.unit(
                        format!("a-{role}-{col}"),
                        UnitKind::Aggregate,
                        role,
                        net,
                        format!("{} {plural_name}", cols.short(&col)),
                        i,
                        d,
                    )
                } else if d.su.is_none() && groups > 0 && groups <= PANEL_MAX_UNITS {
                    let g = d.group.unwrap_or(0);
                    b.unit(
                        format!("a-{role}-g{g}"),
                        UnitKind::Aggregate,
                        role,
                        net,
                        format!("{plural_name} {g}"),
                        i,
                        d,
                    )
                } else {
                    b.unit(
                        format!("a-{role}-all"),
                        UnitKind::Aggregate,
                        role,
                        net,
                        plural_name.to_string(),
                        i,
                        d,
                    )
                };
                let title = match r {
                    Role::StorageCore => "Storage cores",
                    Role::StorageSpine => "Storage spines",
                    Role::StorageLeaf => "Storage leaves",
                    Role::InbandCore => "In-band cores",
                    Role::InbandSpine => "In-band spines",
                    Role::InbandLeaf => "In-band leaves",
                    Role::OobCore => "OOB core",
                    Role::OobGateway => "OOB gateway",
                    _ => "OOB leaves",
                };
                add_block(
                    &mut blocks,
                    &fkey,
                    title.to_string(),
                    net,
                    u,
                    2 * PANEL_MAX_UNITS,
                );
                (u, fkey)
            }
        };
        b.placements[i] = Placement {
            unit: b.units[unit].key.clone(),
            frame,
            col,
        };
    }

    // Bundles.
    let mut bundle_index: BTreeMap<(String, String, Option<u32>), usize> = BTreeMap::new();
    let mut bundles: Vec<Bundle> = Vec::new();
    let mut cable_bundle = Vec::with_capacity(f.link_count());
    let mut rails = BTreeSet::new();
    let mut networks = BTreeSet::new();
    let mut speeds: Vec<BTreeSet<String>> = Vec::new();
    for (ci, l) in f.links().enumerate() {
        let (ai, bi) = (f.device_position(&l.a), f.device_position(&l.b));
        let a = devices[ai];
        networks.insert(l.network.as_str());
        let (from, to, rail) = match l.tier {
            Tier::NodeLeaf if !a.role.is_switch() => {
                if l.network == Network::Compute {
                    if let Some(r) = l.rail {
                        rails.insert(r);
                    }
                    (
                        b.placements[ai].unit.clone(),
                        b.placements[bi].unit.clone(),
                        l.rail,
                    )
                } else {
                    let col = b.placements[ai].col.clone();
                    let s = b.stub(l.network, &col, format!("{} nodes", cols.short(&col)));
                    (s, b.placements[bi].unit.clone(), None)
                }
            }
            Tier::Mgmt => {
                let col = b.placements[ai].col.clone();
                let label = if col == "central" {
                    "central".to_string()
                } else {
                    format!("{} devices", cols.short(&col))
                };
                let s = b.stub(l.network, &col, label);
                (s, b.placements[bi].unit.clone(), None)
            }
            _ => {
                let end = |i: usize| {
                    let p = &b.placements[i];
                    if p.frame.is_empty() {
                        p.unit.clone()
                    } else {
                        p.frame.clone()
                    }
                };
                let (a, b_) = (end(ai), end(bi));
                if a == b_ {
                    // Links inside one frame (a storage leaf pair's peer links) join the two
                    // switches, not the frame to itself.
                    (
                        b.placements[ai].unit.clone(),
                        b.placements[bi].unit.clone(),
                        None,
                    )
                } else {
                    (a, b_, None)
                }
            }
        };
        let key = (from, to, rail);
        let n = bundles.len();
        let bi_ = *bundle_index.entry(key.clone()).or_insert(n);
        if bi_ == n {
            bundles.push(Bundle {
                from: key.0,
                to: key.1,
                network: l.network,
                tier: l.tier,
                rail,
                plane: l.plane,
                cables: Vec::new(),
                speeds: String::new(),
            });
            speeds.push(BTreeSet::new());
        }
        bundles[bi_].cables.push(ci);
        speeds[bi_].insert(l.speed.to_string());
        cable_bundle.push(bi_);
    }
    for (bu, sp) in bundles.iter_mut().zip(speeds) {
        bu.speeds = sp.into_iter().collect::<Vec<_>>().join("+");
    }

    // Unit subtitles.
    for u in &mut b.units {
        u.sub = match u.kind {
            UnitKind::Switch => {
                let d = u.device.map(|i| devices[i]);
                let model = d.map_or("", |d| d.model.as_str());
                let r = rails_text(&u.rails);
                if r.is_empty() {
                    model.to_string()
                } else {
                    format!("{model} · {r}")
                }
            }
            UnitKind::Aggregate => plural(u.switches, "switch"),
            UnitKind::Nodes => plural(
                u.devices,
                if u.role == "node" {
                    "node"
                } else {
                    "appliance"
                },
            ),
            UnitKind::Stub => String::new(),
        };
    }

    let mut dg = Diagram {
        mode,
        panels: Vec::new(),
        frames: Vec::new(),
        units: b.units,
        bundles,
        cable_bundle,
        placements: b.placements,
        rails,
        networks,
        width: 0.0,
        height: 0.0,
    };
    layout(&mut dg, blocks, planes, f);
    dg
}

/// Place the units of `block` in a grid inside `rect` (centred rows).
fn place_block(units: &mut [Unit], block: &Block, rect: Rect) {
    let (cols, _, _) = block.size();
    let n = block.units.len();
    for (k, &u) in block.units.iter().enumerate() {
        let (row, col) = (k / cols, k % cols);
        let in_row = (n - row * cols).min(cols);
        let row_w = in_row as f64 * UNIT_W + (in_row.saturating_sub(1)) as f64 * GAP;
        let x0 = rect.x + (rect.w - row_w) / 2.0;
        units[u].rect = Rect {
            x: x0 + col as f64 * (UNIT_W + GAP),
            y: rect.y + FRAME_TITLE + row as f64 * (UNIT_H + GAP),
            w: UNIT_W,
            h: UNIT_H,
        };
    }
}

fn sorted_blocks<'a>(blocks: &'a BTreeMap<String, Block>, prefix: &str) -> Vec<&'a Block> {
    let mut v: Vec<&Block> = blocks
        .values()
        .filter(|b| b.key.starts_with(prefix))
        .collect();
    v.sort_by_key(|b| natural_key(&b.key));
    v
}

fn layout(dg: &mut Diagram, mut blocks: BTreeMap<String, Block>, planes: u32, f: &Fabric) {
    // Order units inside every block naturally (leaf-su01-02 before leaf-su01-10).
    for bl in blocks.values_mut() {
        bl.units.sort_by_key(|&u| natural_key(&dg.units[u].key));
    }
    let unit_of = |key: &str, units: &[Unit]| units.iter().position(|u| u.key == key);

    // ---- compute panel -------------------------------------------------------------------
    // Columns (SU or pod) in order, with the spine group each belongs to.
    let mut columns: Vec<String> = dg
        .placements
        .iter()
        .map(|p| p.col.clone())
        .filter(|c| c != "central")
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    columns.sort_by_key(|c| natural_key(c));
    let sus_per_group = f.sizing.compute.sus_per_group.max(1);
    let three_tier = f.sizing.compute.tiers == 3;
    let group_of_col = |c: &str| -> u32 {
        if !three_tier {
            return 0;
        }
        if let Some(s) = c.strip_prefix("su") {
            (s.parse::<u32>().unwrap_or(1) - 1) / sus_per_group + 1
        } else if let Some(p) = c.strip_prefix("pod") {
            // A pod is a spine group when the fabric has spine groups.
            p.parse::<u32>().unwrap_or(1)
        } else {
            0
        }
    };

    let mut col_w: BTreeMap<String, f64> = BTreeMap::new();
    for c in &columns {
        let mut w = UNIT_W * 1.2;
        for p in 1..=planes {
            if let Some(bl) = blocks.get(&format!("f-leaf-p{p}-{c}")) {
                w = w.max(bl.size().1);
            }
        }
        if dg.units.iter().any(|u| u.key == format!("m-{c}")) {
            w = w.max(2.0 * UNIT_W + GAP + 2.0 * PAD);
        }
        col_w.insert(c.clone(), w);
    }
    // Spine groups: widen their columns so the group's spine frame fits above them.
    let mut groups: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for c in &columns {
        groups.entry(group_of_col(c)).or_default().push(c.clone());
    }
    for (g, cs) in &groups {
        let mut need: f64 = 0.0;
        for p in 1..=planes {
            if let Some(bl) = blocks.get(&format!("f-spine-p{p}-g{g}")) {
                need = need.max(bl.size().1);
            }
        }
        let span: f64 = cs.iter().map(|c| col_w[c]).sum::<f64>() + (cs.len() - 1) as f64 * COL_GAP;
        if need > span {
            let extra = (need - span) / cs.len() as f64;
            for c in cs {
                if let Some(w) = col_w.get_mut(c) {
                    *w += extra;
                }
            }
        }
    }
    // x of every column.
    let x0 = MARGIN + PAD;
    let mut col_x: BTreeMap<String, f64> = BTreeMap::new();
    let mut x = x0;
    let mut last_group = None;
    for c in &columns {
        let g = group_of_col(c);
        if last_group.is_some() && last_group != Some(g) {
            x += GROUP_GAP - COL_GAP;
        }
        last_group = Some(g);
        col_x.insert(c.clone(), x);
        x += col_w[c] + COL_GAP;
    }
    let mut compute_w = (x - COL_GAP - x0).max(UNIT_W);
    // Cores may be wider than everything below.
    let mut core_w: f64 = 0.0;
    for p in 1..=planes {
        if let Some(bl) = blocks.get(&format!("f-core-p{p}")) {
            core_w = core_w.max(bl.size().1);
        }
    }
    let shift = if core_w > compute_w {
        (core_w - compute_w) / 2.0
    } else {
        0.0
    };
    for v in col_x.values_mut() {
        *v += shift;
    }
    compute_w = compute_w.max(core_w);

    // Row heights.
    let row_h = |prefix: &str| -> f64 {
        blocks
            .values()
            .filter(|b| b.key.starts_with(prefix))
            .map(|b| b.size().2)
            .fold(0.0, f64::max)
    };
    let top = MARGIN + LEGEND_H + PANEL_TITLE;
    let mut y = top;
    // Rows from top to bottom: plane 1 upside (cores, spines, leaves), nodes, plane 2 mirrored.
    let mut rows: Vec<(String, f64)> = Vec::new(); // (block prefix or "nodes", y)
    let plane_rows = |p: u32| {
        [
            format!("f-core-p{p}"),
            format!("f-spine-p{p}-"),
            format!("f-leaf-p{p}-"),
        ]
    };
    let mut order: Vec<String> = plane_rows(1).to_vec();
    order.push("nodes".into());
    if planes > 1 {
        for p in 2..=planes {
            let mut r = plane_rows(p).to_vec();
            r.reverse();
            order.extend(r);
        }
    }
    for prefix in order {
        let h = if prefix == "nodes" {
            UNIT_H
        } else {
            row_h(&prefix)
        };
        if h <= 0.0 {
            continue;
        }
        rows.push((prefix, y));
        y += h + ROW_GAP;
    }
    let compute_h = y - ROW_GAP - top;

    let mut frames: Vec<Frame> = Vec::new();
    for (prefix, ry) in &rows {
        if prefix == "nodes" {
            for c in &columns {
                let (cx, cw) = (col_x[c], col_w[c]);
                let fm = unit_of(&format!("m-{c}"), &dg.units);
                let nodes = unit_of(&format!("n-{c}"), &dg.units);
                let nodes_w = if fm.is_some() { cw - UNIT_W - GAP } else { cw };
                if let Some(n) = nodes {
                    dg.units[n].rect = Rect {
                        x: cx,
                        y: *ry,
                        w: nodes_w,
                        h: UNIT_H,
                    };
                }
                if let Some(m) = fm {
                    dg.units[m].rect = Rect {
                        x: cx + nodes_w + GAP,
                        y: *ry,
                        w: UNIT_W,
                        h: UNIT_H,
                    };
                }
            }
            continue;
        }
        for bl in sorted_blocks(&blocks, prefix) {
            let (_, w, h) = bl.size();
            let (bx, bw) = if prefix.starts_with("f-leaf") {
                let c = bl.key.rsplit('-').next().unwrap_or_default();
                (
                    col_x.get(c).copied().unwrap_or(x0),
                    col_w.get(c).copied().unwrap_or(w),
                )
            } else if prefix.starts_with("f-spine") {
                let g: u32 = bl
                    .key
                    .rsplit("-g")
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let cs = groups.get(&g).cloned().unwrap_or_default();
                match (cs.first(), cs.last()) {
                    (Some(a), Some(z)) => (col_x[a], col_x[z] + col_w[z] - col_x[a]),
                    _ => (x0, compute_w),
                }
            } else {
                (x0, compute_w)
            };
            let rect = Rect {
                x: bx + (bw - w) / 2.0,
                y: *ry,
                w,
                h,
            };
            place_block(&mut dg.units, bl, rect);
            frames.push(Frame {
                key: bl.key.clone(),
                title: bl.title.clone(),
                network: bl.network,
                rect,
            });
        }
    }
    let compute_rect = Rect {
        x: MARGIN,
        y: MARGIN + LEGEND_H,
        w: compute_w + 2.0 * PAD,
        h: compute_h + PANEL_TITLE + PAD,
    };
    let mut panels = vec![Panel {
        title: "Compute fabric".into(),
        network: Network::Compute,
        rect: compute_rect,
    }];

    // ---- access panels (storage, in-band, OOB) ------------------------------------------
    let wide = compute_rect.w > WIDE;
    let mut px = compute_rect.x + compute_rect.w + PANEL_GAP;
    let mut py = compute_rect.y;
    if wide {
        px = MARGIN;
        py = compute_rect.y + compute_rect.h + PANEL_GAP;
    }
    let mut max_x = compute_rect.x + compute_rect.w;
    let mut max_y = compute_rect.y + compute_rect.h;
    for (net, title) in [
        (Network::Storage, "Storage"),
        (Network::Inband, "In-band management"),
        (Network::Oob, "Out-of-band management"),
    ] {
        let n = net.as_str();
        let upper = blocks.get(&format!("f-{n}-upper"));
        let lower = blocks.get(&format!("f-{n}-lower"));
        let mut stubs: Vec<usize> = dg
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.kind == UnitKind::Stub && u.network == net)
            .map(|(i, _)| i)
            .collect();
        if upper.is_none() && lower.is_none() && stubs.is_empty() {
            continue;
        }
        stubs.sort_by_key(|&i| natural_key(&dg.units[i].key.replace("central", "zzcentral")));
        let stub_cols = stubs.len().clamp(1, 2 * PANEL_MAX_UNITS);
        let stub_rows = stubs.len().div_ceil(stub_cols);
        let stub_w = UNIT_W * 0.9;
        let stubs_w = stub_cols as f64 * stub_w + (stub_cols - 1) as f64 * GAP;
        let sizes: Vec<(f64, f64)> = [upper, lower]
            .iter()
            .map(|b| b.map_or((0.0, 0.0), |b| (b.size().1, b.size().2)))
            .collect();
        let inner_w = sizes
            .iter()
            .map(|s| s.0)
            .fold(stubs_w, f64::max)
            .max(UNIT_W * 2.0);
        let mut y = py + PANEL_TITLE;
        for (bl, (w, h)) in [upper, lower].into_iter().zip(&sizes) {
            let Some(bl) = bl else { continue };
            let rect = Rect {
                x: px + PAD + (inner_w - w) / 2.0,
                y,
                w: *w,
                h: *h,
            };
            place_block(&mut dg.units, bl, rect);
            frames.push(Frame {
                key: bl.key.clone(),
                title: bl.title.clone(),
                network: bl.network,
                rect,
            });
            y += h + ROW_GAP;
        }
        let sx0 = px + PAD + (inner_w - stubs_w) / 2.0;
        for (k, &s) in stubs.iter().enumerate() {
            let (r, c) = (k / stub_cols, k % stub_cols);
            dg.units[s].rect = Rect {
                x: sx0 + c as f64 * (stub_w + GAP),
                y: y + r as f64 * (UNIT_H * 0.8 + GAP),
                w: stub_w,
                h: UNIT_H * 0.8,
            };
        }
        y += stub_rows as f64 * (UNIT_H * 0.8 + GAP);
        let rect = Rect {
            x: px,
            y: py,
            w: inner_w + 2.0 * PAD,
            h: y - py + PAD,
        };
        panels.push(Panel {
            title: title.into(),
            network: net,
            rect,
        });
        max_x = max_x.max(rect.x + rect.w);
        max_y = max_y.max(rect.y + rect.h);
        if wide {
            px += rect.w + PANEL_GAP;
        } else {
            py += rect.h + PANEL_GAP;
        }
    }
    dg.frames = frames;
    dg.panels = panels;
    dg.width = (max_x + MARGIN).ceil();
    dg.height = (max_y + MARGIN).ceil();
}
