//! Aggregate devices: every device into a unit (one drawn box: a switch, or an aggregate of
//! switches, nodes or devices) and every switch's unit into its frame, one function per frame
//! kind: an SU's (or pod's) leaves in one plane, a spine group, the cores of a plane, the upper
//! or lower row of an access panel. How much is aggregated depends on the mode and on counts,
//! never on names.

use std::collections::{BTreeMap, BTreeSet};

use super::blocks::{Blocks, FrameOf};
use super::columns::Columns;
use super::units::{UnitOf, Units};
use super::{Mode, PANEL_MAX_UNITS, Placement, UnitKind};
use crate::model::{Network, Role};
use crate::topology::{Device, Fabric, PerDevice};

/// Devices into units, units into frames.
pub struct Aggregate {
    pub units: Units,
    pub placements: PerDevice<Placement>,
    /// Every frame's units, in order of their first device.
    pub blocks: Blocks,
}

pub fn aggregate(f: &Fabric, devices: &[&Device], mode: Mode, cols: &Columns) -> Aggregate {
    let mut by = Aggregator {
        cols,
        detail: mode == Mode::Detail,
        planes: f.sizing.compute.planes.max(1),
        panel: PanelCounts::of(devices, cols),
        units: Units::default(),
    };
    let mut blocks = Blocks::default();
    let mut placements = Vec::with_capacity(devices.len());
    for (i, d) in devices.iter().enumerate() {
        let col = cols.of(d);
        let p = d.plane.unwrap_or(1);
        let (unit, frame) = match d.role {
            Role::Node => (by.nodes(i, d, &col, "node", "nodes"), None),
            Role::Appliance => (by.nodes(i, d, &col, "appliance", "fabric mgr"), None),
            Role::Leaf => by.su_leaves(i, d, &col, p),
            Role::Spine => by.spine_group(i, d, p),
            Role::Core => by.cores(i, d, p),
            role => by.access_row(i, d, role, &col),
        };
        let frame = frame.map_or_else(String::new, |frame| blocks.add(frame, unit));
        placements.push(Placement {
            unit: by.units.key(unit).to_string(),
            frame,
            col,
        });
    }
    Aggregate {
        units: by.units,
        placements: PerDevice::in_device_order(f, placements).unwrap_or_default(),
        blocks,
    }
}

/// Counts that decide aggregation in the access panels.
struct PanelCounts {
    /// SU (or pod) columns.
    columns: usize,
    /// Devices of each role.
    roles: BTreeMap<Role, usize>,
    /// Groups (or SUs) each role has devices in.
    groups: BTreeMap<Role, BTreeSet<u32>>,
}

impl PanelCounts {
    fn of(devices: &[&Device], cols: &Columns) -> Self {
        let columns = devices
            .iter()
            .filter_map(|d| d.su)
            .map(|su| cols.of_su(su))
            .collect::<BTreeSet<_>>()
            .len();
        let mut roles: BTreeMap<Role, usize> = BTreeMap::new();
        let mut groups: BTreeMap<Role, BTreeSet<u32>> = BTreeMap::new();
        for d in devices {
            *roles.entry(d.role).or_default() += 1;
            if let Some(g) = d.group.or(d.su) {
                groups.entry(d.role).or_default().insert(g);
            }
        }
        Self {
            columns,
            roles,
            groups,
        }
    }
}

struct Aggregator<'a> {
    cols: &'a Columns,
    detail: bool,
    planes: u32,
    panel: PanelCounts,
    units: Units,
}

impl Aggregator<'_> {
    /// ` · plane 2` on frame titles when the fabric has planes.
    fn plane_tag(&self, p: u32) -> String {
        if self.planes > 1 {
            format!(" · plane {p}")
        } else {
            String::new()
        }
    }

    /// Nodes (or fabric-manager appliances) of a column: one unit, no frame.
    fn nodes(&mut self, i: usize, d: &Device, col: &str, role: &'static str, what: &str) -> usize {
        let tag = if role == "node" { "n" } else { "m" };
        let of = UnitOf {
            key: format!("{tag}-{col}"),
            kind: UnitKind::Nodes,
            role,
            network: Network::Compute,
            title: format!("{} {what}", self.cols.short(col)),
        };
        self.units.add(of, i, d)
    }

    /// An SU's (or pod's) leaves in one plane: one frame per column and plane.
    fn su_leaves(&mut self, i: usize, d: &Device, col: &str, p: u32) -> (usize, Option<FrameOf>) {
        let ptag = self.plane_tag(p);
        let of = if self.detail {
            UnitOf::switch(d, "leaf", Network::Compute)
        } else {
            let title = format!("{} leaves", self.cols.short(col));
            UnitOf::aggregate(
                format!("a-leaves-p{p}-{col}"),
                "leaf",
                Network::Compute,
                title,
            )
        };
        let unit = self.units.add(of, i, d);
        let title = if self.detail {
            format!("{} leaves{ptag}", self.cols.label(col))
        } else {
            format!("{}{ptag}", self.cols.label(col))
        };
        let frame = FrameOf {
            key: format!("f-leaf-p{p}-{col}"),
            title,
            network: Network::Compute,
            max_cols: 8,
        };
        (unit, Some(frame))
    }

    /// A spine group of a plane (group 0: the spines of a 2-tier fabric).
    fn spine_group(&mut self, i: usize, d: &Device, p: u32) -> (usize, Option<FrameOf>) {
        let ptag = self.plane_tag(p);
        let g = d.group.unwrap_or(0);
        let title = if g == 0 {
            format!("Spines{ptag}")
        } else {
            format!("Spine group {g}{ptag}")
        };
        let of = if self.detail {
            UnitOf::switch(d, "spine", Network::Compute)
        } else {
            let key = format!("a-spines-p{p}-g{g}");
            UnitOf::aggregate(key, "spine", Network::Compute, title.clone())
        };
        let unit = self.units.add(of, i, d);
        let frame = FrameOf {
            key: format!("f-spine-p{p}-g{g}"),
            title,
            network: Network::Compute,
            max_cols: 8,
        };
        (unit, Some(frame))
    }

    /// The cores of a plane, one unit per core group when aggregated.
    fn cores(&mut self, i: usize, d: &Device, p: u32) -> (usize, Option<FrameOf>) {
        let ptag = self.plane_tag(p);
        let of = if self.detail {
            UnitOf::switch(d, "core", Network::Compute)
        } else {
            let g = d.group.unwrap_or(0);
            let title = format!("Core group {g}");
            UnitOf::aggregate(
                format!("a-cores-p{p}-g{g}"),
                "core",
                Network::Compute,
                title,
            )
        };
        let unit = self.units.add(of, i, d);
        let frame = FrameOf {
            key: format!("f-core-p{p}"),
            title: format!("Cores{ptag}"),
            network: Network::Compute,
            max_cols: 16,
        };
        (unit, Some(frame))
    }

    /// A storage, in-band or OOB switch: one panel per network, with an upper row (spines,
    /// cores and the OOB gateway) and a lower row (leaves).
    fn access_row(
        &mut self,
        i: usize,
        d: &Device,
        role: Role,
        col: &str,
    ) -> (usize, Option<FrameOf>) {
        let net = d.network;
        let upper = matches!(
            role,
            Role::StorageSpine
                | Role::StorageCore
                | Role::InbandSpine
                | Role::InbandCore
                | Role::OobCore
                | Role::OobGateway
        );
        let row = if upper { "upper" } else { "lower" };
        let (plural_name, title) = access_names(role);
        let of = self.access_unit(d, role, col, plural_name);
        let unit = self.units.add(of, i, d);
        let frame = FrameOf {
            key: format!("f-{}-{row}", net.as_str()),
            title: title.to_string(),
            network: net,
            max_cols: 2 * PANEL_MAX_UNITS,
        };
        (unit, Some(frame))
    }

    /// Switch by switch while a role has few; else per column, per group, or all in one.
    fn access_unit(&self, d: &Device, role: Role, col: &str, plural_name: &str) -> UnitOf {
        let net = d.network;
        let count = self.panel.roles.get(&role).copied().unwrap_or(0);
        let groups = self.panel.groups.get(&role).map_or(0, BTreeSet::len);
        let name = role.as_str();
        if count <= PANEL_MAX_UNITS {
            UnitOf::switch(d, name, net)
        } else if d.su.is_some() && self.panel.columns <= 2 * PANEL_MAX_UNITS {
            let title = format!("{} {plural_name}", self.cols.short(col));
            UnitOf::aggregate(format!("a-{name}-{col}"), name, net, title)
        } else if d.su.is_none() && groups > 0 && groups <= PANEL_MAX_UNITS {
            let g = d.group.unwrap_or(0);
            UnitOf::aggregate(
                format!("a-{name}-g{g}"),
                name,
                net,
                format!("{plural_name} {g}"),
            )
        } else {
            UnitOf::aggregate(format!("a-{name}-all"), name, net, plural_name.to_string())
        }
    }
}

/// An access switch role's name on an aggregate (`storage leaves`) and on its frame
/// (`Storage leaves`).
fn access_names(role: Role) -> (&'static str, &'static str) {
    match role {
        Role::StorageCore => ("storage cores", "Storage cores"),
        Role::StorageSpine => ("storage spines", "Storage spines"),
        Role::StorageLeaf => ("storage leaves", "Storage leaves"),
        Role::InbandCore => ("in-band cores", "In-band cores"),
        Role::InbandSpine => ("in-band spines", "In-band spines"),
        Role::InbandLeaf => ("in-band leaves", "In-band leaves"),
        Role::OobCore => ("OOB cores", "OOB core"),
        Role::OobGateway => ("OOB gateway", "OOB gateway"),
        _ => ("OOB leaves", "OOB leaves"),
    }
}
