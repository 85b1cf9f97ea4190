//! The index's fabric picture when the report is split per pod: one box per pod in a grid about
//! as wide as a screen is to its height (not a strip of 128 columns), the central switches in a
//! band above, each box a link to its page. Drawn at pod level only: what a pod holds is on its
//! own page, where it can be read.

use crate::report::markup::{Markup, num};

/// One pod's box: its page, title (`Pod 3`), what it holds (`SU 9–12`) and figure lines.
pub struct PodBox {
    pub page: String,
    pub title: String,
    pub span: String,
    pub lines: [String; 2],
}

const BOX_W: f64 = 172.0;
const BOX_H: f64 = 96.0;
const GAP: f64 = 12.0;
const MARGIN: f64 = 12.0;
/// The grid's aspect (width : height) a landscape window shows whole.
const ASPECT: f64 = 1.8;

/// Columns so that `n` boxes make a grid about [`ASPECT`] wide.
pub fn columns(n: usize) -> usize {
    let n = n.max(1) as f64;
    ((n * ASPECT * (BOX_H + GAP) / (BOX_W + GAP)).sqrt().ceil() as usize).clamp(1, n as usize)
}

/// The picture: `central` (if any) as a band across the top, then the pods row by row.
pub fn render(pods: &[PodBox], central: Option<&PodBox>) -> String {
    let cols = columns(pods.len());
    let rows = pods.len().div_ceil(cols).max(1);
    let width = 2.0 * MARGIN + cols as f64 * (BOX_W + GAP) - GAP;
    let band = if central.is_some() { BOX_H + GAP } else { 0.0 };
    let height = 2.0 * MARGIN + band + rows as f64 * (BOX_H + GAP) - GAP;
    let mut m = Markup::with_capacity(512 * (pods.len() + 1));
    let view = format!("0 0 {} {}", num(width), num(height));
    m.open(
        "svg",
        &[
            ("xmlns", &"http://www.w3.org/2000/svg"),
            ("id", &"pod-grid"),
            ("viewBox", &view),
            ("width", &num(width)),
            ("height", &num(height)),
            ("role", &"img"),
            ("aria-label", &"Fabric at pod level"),
            ("data-columns", &cols),
        ],
    );
    if let Some(c) = central {
        draw(&mut m, c, MARGIN, MARGIN, width - 2.0 * MARGIN, "central");
    }
    for (k, p) in pods.iter().enumerate() {
        let (row, col) = (k / cols, k % cols);
        let x = MARGIN + col as f64 * (BOX_W + GAP);
        let y = MARGIN + band + row as f64 * (BOX_H + GAP);
        draw(&mut m, p, x, y, BOX_W, "pod");
    }
    m.close("svg");
    m.finish()
}

/// One box as a link to its page: title, span and the figure lines.
fn draw(m: &mut Markup, p: &PodBox, x: f64, y: f64, w: f64, class: &str) {
    let (fill, stroke) = if class == "pod" {
        ("#eff6ff", "#2563eb")
    } else {
        ("#f8fafc", "#475569")
    };
    m.open("a", &[("href", &p.page), ("class", &class)]);
    m.element("title", &[], &format!("{}: {}", p.title, p.span));
    let (xs, ys, ws, hs) = (num(x), num(y), num(w), num(BOX_H));
    m.empty(
        "rect",
        &[
            ("x", &xs),
            ("y", &ys),
            ("width", &ws),
            ("height", &hs),
            ("rx", &6),
            ("fill", &fill),
            ("stroke", &stroke),
            ("stroke-width", &1.5),
        ],
    );
    let tx = num(x + 10.0);
    let text = |m: &mut Markup, dy: f64, size: u32, weight: &str, s: &str| {
        let ty = num(y + dy);
        m.element(
            "text",
            &[
                ("x", &tx),
                ("y", &ty),
                ("font-size", &size),
                ("font-weight", &weight),
                ("font-family", &"system-ui, sans-serif"),
                ("fill", &"#0f172a"),
            ],
            s,
        );
    };
    text(m, 26.0, 20, "bold", &p.title);
    text(m, 46.0, 14, "normal", &p.span);
    text(m, 68.0, 14, "normal", &p.lines[0]);
    text(m, 86.0, 14, "normal", &p.lines[1]);
    m.close("a");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_not_a_strip() {
        // 128 pods (the 131k bench fabric): about 1.8 times as wide as tall.
        let cols = columns(128);
        let rows = 128usize.div_ceil(cols);
        let w = cols as f64 * (BOX_W + GAP);
        let h = rows as f64 * (BOX_H + GAP);
        assert!((1.2..2.6).contains(&(w / h)), "{cols} columns, {rows} rows");
        assert_eq!(columns(1), 1);
    }
}
