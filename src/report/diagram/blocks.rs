//! Blocks: the units of every frame in natural order and the frame's size, before placement;
//! and the grid a block's units take once its frame is placed.

use std::collections::BTreeMap;

use super::geometry::{FRAME_TITLE, GAP, PAD, UNIT_H, UNIT_W};
use super::{Frame, Rect, Unit};
use crate::model::Network;
use crate::output::natural;

/// The frame a device's unit is drawn in, as the aggregation names it.
pub struct FrameOf {
    pub key: String,
    pub title: String,
    pub network: Network,
    /// Most units side by side before the frame wraps to another row.
    pub max_cols: usize,
}

/// Units of one frame, before placement.
pub struct Block {
    pub key: String,
    pub title: String,
    pub network: Network,
    units: Vec<usize>,
    max_cols: usize,
}

impl Block {
    /// Columns, width and height of the frame.
    pub fn size(&self) -> (usize, f64, f64) {
        let n = self.units.len();
        let cols = n.clamp(1, self.max_cols);
        let rows = n.div_ceil(cols).max(1);
        let w = 2.0 * PAD + cols as f64 * UNIT_W + (cols - 1) as f64 * GAP;
        let h = FRAME_TITLE + PAD + rows as f64 * UNIT_H + (rows - 1) as f64 * GAP;
        (cols, w, h)
    }

    /// Place the units of the block in a grid inside `rect` (centred rows): the block's frame.
    pub fn place(&self, units: &mut [Unit], rect: Rect) -> Frame {
        let (cols, _, _) = self.size();
        let n = self.units.len();
        for (k, &u) in self.units.iter().enumerate() {
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
        Frame {
            key: self.key.clone(),
            title: self.title.clone(),
            network: self.network,
            rect,
        }
    }
}

/// Every frame's block by frame key.
#[derive(Default)]
pub struct Blocks(BTreeMap<String, Block>);

impl Blocks {
    /// Counts `unit` into its frame; the frame's first device gives it its title. Returns the
    /// frame key.
    pub fn add(&mut self, frame: FrameOf, unit: usize) -> String {
        let FrameOf {
            key,
            title,
            network,
            max_cols,
        } = frame;
        let block = self.0.entry(key.clone()).or_insert_with(|| Block {
            key: key.clone(),
            title,
            network,
            units: Vec::new(),
            max_cols,
        });
        if !block.units.contains(&unit) {
            block.units.push(unit);
        }
        key
    }

    /// Every block's units in natural order (leaf-su01-02 before leaf-su01-10).
    pub fn in_order(mut self, units: &[Unit]) -> Self {
        for block in self.0.values_mut() {
            block
                .units
                .sort_by(|&a, &b| natural::cmp(&units[a].key, &units[b].key));
        }
        self
    }

    pub fn get(&self, key: &str) -> Option<&Block> {
        self.0.get(key)
    }

    /// The blocks whose key starts with `prefix` (one row of the drawing), in natural order.
    pub fn row(&self, prefix: &str) -> Vec<&Block> {
        let mut v: Vec<&Block> = self
            .0
            .values()
            .filter(|b| b.key.starts_with(prefix))
            .collect();
        v.sort_by(|a, b| natural::cmp(&a.key, &b.key));
        v
    }

    /// Height of the row of blocks whose key starts with `prefix` (0 when there is none).
    pub fn row_height(&self, prefix: &str) -> f64 {
        self.0
            .values()
            .filter(|b| b.key.starts_with(prefix))
            .map(|b| b.size().2)
            .fold(0.0, f64::max)
    }
}
