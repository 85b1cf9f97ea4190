//! Place the compute panel: one column per SU (or pod), columns of a spine group side by side;
//! rows from top to bottom: plane 1 upside down (cores, spine groups, SU leaves), the nodes,
//! then every further plane mirrored (SU leaves, spine groups, cores).

use std::collections::{BTreeMap, BTreeSet};

use super::blocks::{Block, Blocks};
use super::geometry::{
    COL_GAP, GAP, GROUP_GAP, LEGEND_H, MARGIN, PAD, PANEL_TITLE, ROW_GAP, UNIT_H, UNIT_W,
};
use super::{Frame, Panel, Placement, Rect, Unit};
use crate::model::Network;
use crate::output::natural;
use crate::topology::{ComputePlan, Fabric, PerDevice};

/// Places the compute fabric's units and frames (appended to `frames`); its panel.
pub fn place(
    units: &mut [Unit],
    blocks: &Blocks,
    placements: &PerDevice<Placement>,
    f: &Fabric,
    frames: &mut Vec<Frame>,
) -> Panel {
    let planes = f.sizing.compute.planes.max(1);
    let grid = Grid::new(units, blocks, placements, &f.sizing.compute, planes);
    let top = MARGIN + LEGEND_H + PANEL_TITLE;
    let (rows, bottom) = rows(blocks, planes, top);
    for (prefix, y) in &rows {
        if prefix == "nodes" {
            grid.place_nodes(units, *y);
            continue;
        }
        for block in blocks.row(prefix) {
            let (_, w, h) = block.size();
            let (bx, bw) = if prefix.starts_with("f-leaf") {
                grid.su_leaves_span(block, w)
            } else if prefix.starts_with("f-spine") {
                grid.spine_group_span(block)
            } else {
                grid.full_span()
            };
            let rect = Rect {
                x: bx + (bw - w) / 2.0,
                y: *y,
                w,
                h,
            };
            frames.push(block.place(units, rect));
        }
    }
    Panel {
        title: "Compute fabric".into(),
        network: Network::Compute,
        rect: Rect {
            x: MARGIN,
            y: MARGIN + LEGEND_H,
            w: grid.width + 2.0 * PAD,
            h: (bottom - ROW_GAP - top) + PANEL_TITLE + PAD,
        },
    }
}

/// The rows from top to bottom (a block key prefix, or `nodes`) with their y, and the y below
/// the last row's gap. Rows without blocks take no room.
fn rows(blocks: &Blocks, planes: u32, top: f64) -> (Vec<(String, f64)>, f64) {
    let plane_rows = |p: u32| {
        [
            format!("f-core-p{p}"),
            format!("f-spine-p{p}-"),
            format!("f-leaf-p{p}-"),
        ]
    };
    let mut order: Vec<String> = plane_rows(1).to_vec();
    order.push("nodes".into());
    for p in 2..=planes {
        let mut r = plane_rows(p).to_vec();
        r.reverse();
        order.extend(r);
    }
    let mut rows = Vec::new();
    let mut y = top;
    for prefix in order {
        let h = if prefix == "nodes" {
            UNIT_H
        } else {
            blocks.row_height(&prefix)
        };
        if h <= 0.0 {
            continue;
        }
        rows.push((prefix, y));
        y += h + ROW_GAP;
    }
    (rows, y)
}

/// Width of the widest of the blocks `key` names in planes 1..=`planes`, at least `min`.
fn widest(blocks: &Blocks, planes: u32, min: f64, key: impl Fn(u32) -> String) -> f64 {
    (1..=planes)
        .filter_map(|p| blocks.get(&key(p)))
        .fold(min, |w, b| w.max(b.size().1))
}

/// The panel's columns: order, spine group, width and x.
struct Grid {
    /// SU or pod columns in natural order.
    columns: Vec<String>,
    /// The columns under each spine group (all under group 0 without spine groups).
    groups: BTreeMap<u32, Vec<String>>,
    col_w: BTreeMap<String, f64>,
    col_x: BTreeMap<String, f64>,
    /// Left edge of the content (before centring under wider cores) and its width.
    x0: f64,
    width: f64,
}

impl Grid {
    fn new(
        units: &[Unit],
        blocks: &Blocks,
        placements: &PerDevice<Placement>,
        compute: &ComputePlan,
        planes: u32,
    ) -> Self {
        let mut columns: Vec<String> = placements
            .values()
            .map(|p| p.col.clone())
            .filter(|c| c != "central")
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        columns.sort_by(|a, b| natural::cmp(a, b));
        let mut groups: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for c in &columns {
            groups
                .entry(spine_group_of(c, compute))
                .or_default()
                .push(c.clone());
        }
        let mut col_w = column_widths(&columns, units, blocks, planes);
        widen_for_spine_groups(&groups, blocks, planes, &mut col_w);
        let mut grid = Grid {
            columns,
            groups,
            col_w,
            col_x: BTreeMap::new(),
            x0: MARGIN + PAD,
            width: 0.0,
        };
        grid.set_x(blocks, compute, planes);
        grid
    }

    /// x of every column, a wider gap between spine groups; all centred under the cores when
    /// those are wider.
    fn set_x(&mut self, blocks: &Blocks, compute: &ComputePlan, planes: u32) {
        let mut x = self.x0;
        let mut last_group = None;
        for c in &self.columns {
            let g = spine_group_of(c, compute);
            if last_group.is_some() && last_group != Some(g) {
                x += GROUP_GAP - COL_GAP;
            }
            last_group = Some(g);
            self.col_x.insert(c.clone(), x);
            x += self.col_w[c] + COL_GAP;
        }
        let width = (x - COL_GAP - self.x0).max(UNIT_W);
        let core_w = widest(blocks, planes, 0.0, |p| format!("f-core-p{p}"));
        let shift = if core_w > width {
            (core_w - width) / 2.0
        } else {
            0.0
        };
        for v in self.col_x.values_mut() {
            *v += shift;
        }
        self.width = width.max(core_w);
    }

    /// An SU's (or pod's) leaf frame: centred in its column.
    fn su_leaves_span(&self, block: &Block, w: f64) -> (f64, f64) {
        let c = block.key.rsplit('-').next().unwrap_or_default();
        (
            self.col_x.get(c).copied().unwrap_or(self.x0),
            self.col_w.get(c).copied().unwrap_or(w),
        )
    }

    /// A spine group's frame: centred over the columns of its group.
    fn spine_group_span(&self, block: &Block) -> (f64, f64) {
        let g: u32 = block
            .key
            .rsplit("-g")
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let cs = self.groups.get(&g).map_or(&[][..], Vec::as_slice);
        match (cs.first(), cs.last()) {
            (Some(a), Some(z)) => (self.col_x[a], self.col_x[z] + self.col_w[z] - self.col_x[a]),
            _ => self.full_span(),
        }
    }

    /// A plane's cores: centred over the whole panel.
    fn full_span(&self) -> (f64, f64) {
        (self.x0, self.width)
    }

    /// Every column's nodes, its fabric managers beside them.
    fn place_nodes(&self, units: &mut [Unit], y: f64) {
        for c in &self.columns {
            let (cx, cw) = (self.col_x[c], self.col_w[c]);
            let (fm_key, nodes_key) = (format!("m-{c}"), format!("n-{c}"));
            let fm = units.iter().position(|u| u.key == fm_key);
            let nodes = units.iter().position(|u| u.key == nodes_key);
            let nodes_w = if fm.is_some() { cw - UNIT_W - GAP } else { cw };
            if let Some(n) = nodes {
                units[n].rect = Rect {
                    x: cx,
                    y,
                    w: nodes_w,
                    h: UNIT_H,
                };
            }
            if let Some(m) = fm {
                units[m].rect = Rect {
                    x: cx + nodes_w + GAP,
                    y,
                    w: UNIT_W,
                    h: UNIT_H,
                };
            }
        }
    }
}

/// The spine group a column belongs to (0 in a 2-tier fabric).
fn spine_group_of(col: &str, compute: &ComputePlan) -> u32 {
    if compute.tiers != 3 {
        return 0;
    }
    if let Some(s) = col.strip_prefix("su") {
        (s.parse::<u32>().unwrap_or(1) - 1) / compute.sus_per_group.max(1) + 1
    } else if let Some(p) = col.strip_prefix("pod") {
        // A pod is a spine group when the fabric has spine groups.
        p.parse::<u32>().unwrap_or(1)
    } else {
        0
    }
}

/// A column is as wide as its widest leaf frame, and room for nodes and fabric managers.
fn column_widths(
    columns: &[String],
    units: &[Unit],
    blocks: &Blocks,
    planes: u32,
) -> BTreeMap<String, f64> {
    let mut col_w = BTreeMap::new();
    for c in columns {
        let mut w = widest(blocks, planes, UNIT_W * 1.2, |p| format!("f-leaf-p{p}-{c}"));
        let fm = format!("m-{c}");
        if units.iter().any(|u| u.key == fm) {
            w = w.max(2.0 * UNIT_W + GAP + 2.0 * PAD);
        }
        col_w.insert(c.clone(), w);
    }
    col_w
}

/// Widen a spine group's columns evenly so the group's spine frame fits above them.
fn widen_for_spine_groups(
    groups: &BTreeMap<u32, Vec<String>>,
    blocks: &Blocks,
    planes: u32,
    col_w: &mut BTreeMap<String, f64>,
) {
    for (g, cs) in groups {
        let need = widest(blocks, planes, 0.0, |p| format!("f-spine-p{p}-g{g}"));
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
}
