//! Sizes and gaps of the drawing, in SVG user units.

use super::Panel;

pub const UNIT_W: f64 = 100.0;
pub const UNIT_H: f64 = 34.0;
pub const GAP: f64 = 6.0;
pub const PAD: f64 = 8.0;
pub const FRAME_TITLE: f64 = 18.0;
pub const ROW_GAP: f64 = 86.0;
pub const COL_GAP: f64 = 18.0;
pub const GROUP_GAP: f64 = 40.0;
pub const PANEL_GAP: f64 = 56.0;
pub const PANEL_TITLE: f64 = 30.0;
pub const LEGEND_H: f64 = 58.0;
pub const MARGIN: f64 = 16.0;
/// Beyond this width the access panels go below the compute fabric instead of beside it.
pub const WIDE: f64 = 2400.0;

/// Width and height of the drawing: every panel and the margin, in whole units.
pub fn extent(panels: &[Panel]) -> (f64, f64) {
    let max_x = panels
        .iter()
        .map(|p| p.rect.x + p.rect.w)
        .fold(f64::NEG_INFINITY, f64::max);
    let max_y = panels
        .iter()
        .map(|p| p.rect.y + p.rect.h)
        .fold(f64::NEG_INFINITY, f64::max);
    ((max_x + MARGIN).ceil(), (max_y + MARGIN).ceil())
}

/// The widest a panel title's character draws (15 px semibold, `report.css`): DejaVu Sans Bold
/// averages 0.63 em a character; 10 px leaves room for wide capitals.
pub const PANEL_TITLE_CHAR_W: f64 = 10.0;

/// The inner width a panel needs for its title to stay inside its border (the title starts
/// 10 px in, and keeps 10 px from the right edge).
pub fn panel_title_width(title: &str) -> f64 {
    title.chars().count() as f64 * PANEL_TITLE_CHAR_W + 20.0 - 2.0 * PAD
}
