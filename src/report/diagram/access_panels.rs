//! Place the access panels (storage, in-band, OOB) beside the compute panel, or below it when
//! the compute panel is wide: each its upper row (spines, cores, the OOB gateway), its lower
//! row (leaves) and a row of stubs standing for the devices of every column.

use super::blocks::Blocks;
use super::geometry::{
    GAP, MARGIN, PAD, PANEL_GAP, PANEL_TITLE, ROW_GAP, UNIT_H, UNIT_W, WIDE, panel_title_width,
};
use super::{Frame, PANEL_MAX_UNITS, Panel, Rect, Unit, UnitKind};
use crate::model::Network;
use crate::output::natural::Natural;

/// Places every access network's units and frames (appended to `frames`) in panels next to
/// the compute panel (`panels[0]`), appended to `panels`.
pub fn place(
    units: &mut [Unit],
    blocks: &Blocks,
    frames: &mut Vec<Frame>,
    panels: &mut Vec<Panel>,
) {
    let compute = panels[0].rect;
    let wide = compute.w > WIDE;
    let (mut px, mut py) = if wide {
        (MARGIN, compute.y + compute.h + PANEL_GAP)
    } else {
        (compute.x + compute.w + PANEL_GAP, compute.y)
    };
    for (net, title) in [
        (Network::Storage, "Storage"),
        (Network::Inband, "In-band management"),
        (Network::Oob, "Out-of-band management"),
    ] {
        let Some(rect) = place_panel(units, blocks, (net, title), (px, py), frames) else {
            continue;
        };
        panels.push(Panel {
            title: title.into(),
            network: net,
            rect,
        });
        if wide {
            px += rect.w + PANEL_GAP;
        } else {
            py += rect.h + PANEL_GAP;
        }
    }
}

/// One network's panel with its top left corner at `(px, py)`, wide enough for its title: its
/// rect, or `None` when the network has nothing to draw.
fn place_panel(
    units: &mut [Unit],
    blocks: &Blocks,
    (net, title): (Network, &str),
    (px, py): (f64, f64),
    frames: &mut Vec<Frame>,
) -> Option<Rect> {
    let n = net.as_str();
    let rows = [
        blocks.get(&format!("f-{n}-upper")),
        blocks.get(&format!("f-{n}-lower")),
    ];
    let mut stubs: Vec<usize> = units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.kind == UnitKind::Stub && u.network == net)
        .map(|(i, _)| i)
        .collect();
    if rows.iter().all(Option::is_none) && stubs.is_empty() {
        return None;
    }
    stubs.sort_by_cached_key(|&i| Natural(units[i].key.replace("central", "zzcentral")));
    let stub_cols = stubs.len().clamp(1, 2 * PANEL_MAX_UNITS);
    let stub_w = UNIT_W * 0.9;
    let stubs_w = stub_cols as f64 * stub_w + (stub_cols - 1) as f64 * GAP;
    let sizes: Vec<(f64, f64)> = rows
        .iter()
        .map(|b| b.map_or((0.0, 0.0), |b| (b.size().1, b.size().2)))
        .collect();
    let inner_w = sizes
        .iter()
        .map(|s| s.0)
        .fold(stubs_w, f64::max)
        .max(UNIT_W * 2.0)
        .max(panel_title_width(title));
    let mut y = py + PANEL_TITLE;
    for (block, (w, h)) in rows.into_iter().zip(&sizes) {
        let Some(block) = block else { continue };
        let rect = Rect {
            x: px + PAD + (inner_w - w) / 2.0,
            y,
            w: *w,
            h: *h,
        };
        frames.push(block.place(units, rect));
        y += h + ROW_GAP;
    }
    let sx0 = px + PAD + (inner_w - stubs_w) / 2.0;
    for (k, &s) in stubs.iter().enumerate() {
        let (r, c) = (k / stub_cols, k % stub_cols);
        units[s].rect = Rect {
            x: sx0 + c as f64 * (stub_w + GAP),
            y: y + r as f64 * (UNIT_H * 0.8 + GAP),
            w: stub_w,
            h: UNIT_H * 0.8,
        };
    }
    y += stubs.len().div_ceil(stub_cols) as f64 * (UNIT_H * 0.8 + GAP);
    Some(Rect {
        x: px,
        y: py,
        w: inner_w + 2.0 * PAD,
        h: y - py + PAD,
    })
}
