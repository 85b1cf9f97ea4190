//! Bundles: one `<g class="bundle">` each, a curve from the lower end's top (or bottom) side to
//! the upper end's, with its cable count and the cable count, speed and rail as data attributes.

use std::collections::BTreeMap;

use super::palette::{network_colour, rail_colour};
use crate::model::{Network, Tier};
use crate::report::diagram::{Bundle, Diagram, Rect};
use crate::report::markup::{Markup, num};

/// A point in diagram coordinates.
type Point = (f64, f64);

fn bezier(p0: Point, p1: Point, p2: Point, p3: Point, t: f64) -> Point {
    let u = 1.0 - t;
    let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    (
        a * p0.0 + b * p1.0 + c * p2.0 + d * p3.0,
        a * p0.1 + b * p1.1 + c * p2.1 + d * p3.1,
    )
}

/// Where each bundle leaves its two anchors: bundles sharing an anchor side are spread along
/// it in the order of their far ends, so lines do not cross at the box.
fn endpoints(dg: &Diagram, rects: &BTreeMap<&str, Rect>) -> Vec<Option<(Point, Point)>> {
    // (anchor, top side?) → [(bundle, far x)]
    let mut sides: BTreeMap<(&str, bool), Vec<(usize, f64)>> = BTreeMap::new();
    for (i, b) in dg.bundles.iter().enumerate() {
        let (Some(lo), Some(up)) = (rects.get(b.from.as_str()), rects.get(b.to.as_str())) else {
            continue;
        };
        let up_above = up.cy() < lo.cy();
        // Two boxes of one row (a leaf pair's peer links) are joined below both.
        let same_row = (up.cy() - lo.cy()).abs() < 1.0;
        sides
            .entry((b.from.as_str(), up_above))
            .or_default()
            .push((i, up.cx()));
        sides
            .entry((b.to.as_str(), !up_above && !same_row))
            .or_default()
            .push((i, lo.cx()));
    }
    let mut at: BTreeMap<(usize, bool), Point> = BTreeMap::new();
    for ((anchor, top), mut v) in sides {
        let r = rects[anchor];
        v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let n = v.len() as f64;
        let inset = (r.w * 0.08).min(10.0);
        for (k, (bi, _)) in v.iter().enumerate() {
            let x = r.x + inset + (r.w - 2.0 * inset) * (k as f64 + 1.0) / (n + 1.0);
            let y = if top { r.y } else { r.y + r.h };
            let is_lower = dg.bundles[*bi].from == anchor;
            at.insert((*bi, is_lower), (x, y));
        }
    }
    (0..dg.bundles.len())
        .map(|i| Some((*at.get(&(i, true))?, *at.get(&(i, false))?)))
        .collect()
}

/// The bundles layer.
pub fn draw(m: &mut Markup, dg: &Diagram) {
    let rects: BTreeMap<&str, Rect> = dg
        .units
        .iter()
        .map(|u| (u.key.as_str(), u.rect))
        .chain(dg.frames.iter().map(|f| (f.key.as_str(), f.rect)))
        .collect();
    let names: BTreeMap<&str, &str> = dg
        .units
        .iter()
        .map(|u| (u.key.as_str(), u.title.as_str()))
        .chain(dg.frames.iter().map(|f| (f.key.as_str(), f.title.as_str())))
        .collect();
    let ends = endpoints(dg, &rects);
    let boxes: Vec<Rect> = dg.units.iter().map(|u| u.rect).collect();
    m.open("g", &[("class", &"bundles")]);
    for (i, b) in dg.bundles.iter().enumerate() {
        if let Some(ends) = ends[i] {
            bundle(m, i, b, ends, (&names, &boxes));
        }
    }
    m.close("g");
}

/// The label's box at the 9 px of `report.css`, generously: DejaVu Sans measures about 0.68 em
/// a character in Chromium (`×` wider), plus the 3 px white halo drawn around the text.
fn label_box((x, y): Point, text: &str) -> Rect {
    let w = text.chars().count() as f64 * 6.5 + 4.0;
    Rect {
        x: x - w / 2.0,
        y: y - 10.0,
        w,
        h: 14.0,
    }
}

fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.w && a.x + a.w > b.x && a.y < b.y + b.h && a.y + a.h > b.y
}

/// Where along the curve the label goes: the preferred place, or the nearest one whose label
/// no device box covers (boxes are drawn above the bundles); beside the curve when every place
/// on it is covered (a leaf pair's peer link runs along the bottom of both boxes).
fn label_at(curve: [Point; 4], preferred: f64, text: &str, boxes: &[Rect]) -> Point {
    let [p0, p1, p2, p3] = curve;
    let along = [0.0, -0.1, 0.1, -0.2, 0.2, -0.3, 0.3].map(|d| (preferred + d).clamp(0.1, 0.9));
    let beside = [0.0, 12.0, -12.0, 20.0];
    beside
        .iter()
        .flat_map(|&dy| along.iter().map(move |&t| (t, dy)))
        .map(|(t, dy)| {
            let (x, y) = bezier(p0, p1, p2, p3, t);
            (x, y + dy)
        })
        .find(|&(x, y)| {
            let label = label_box((x, y + 3.0), text);
            !boxes.iter().any(|b| overlaps(&label, b))
        })
        .unwrap_or_else(|| bezier(p0, p1, p2, p3, preferred))
}

fn bundle(
    m: &mut Markup,
    i: usize,
    b: &Bundle,
    ((x1, y1), (x2, y2)): (Point, Point),
    (names, boxes): (&BTreeMap<&str, &str>, &[Rect]),
) {
    let colour = match b.rail {
        Some(r) if b.network == Network::Compute => rail_colour(r),
        _ => network_colour(b.network),
    };
    let count = b.cables.len();
    let width = (1.0 + (count as f64).log2() * 0.75).min(7.0);
    let ym = (y1 + y2) / 2.0;
    let d = format!(
        "M{} {}C{} {} {} {} {} {}",
        num(x1),
        num(y1),
        num(x1),
        num(ym),
        num(x2),
        num(ym),
        num(x2),
        num(y2)
    );
    let minor = b.tier == Tier::NodeLeaf && b.network == Network::Compute;
    let class = if minor { "bundle minor" } else { "bundle" };
    let id = format!("b{i}");
    let rail = b.rail.map(|r| r.to_string()).unwrap_or_default();
    let plane = b.plane.map(|r| r.to_string()).unwrap_or_default();
    m.open(
        "g",
        &[
            ("class", &class),
            ("id", &id),
            ("data-bundle", &i),
            ("data-from", &b.from),
            ("data-to", &b.to),
            ("data-count", &count),
            ("data-network", &b.network.as_str()),
            ("data-tier", &b.tier.as_str()),
            ("data-rail", &rail),
            ("data-plane", &plane),
            ("data-speed", &b.speeds),
        ],
    );
    m.empty(
        "path",
        &[
            ("d", &d),
            ("stroke", &colour),
            ("stroke-width", &num(width)),
        ],
    );
    // A wide transparent twin makes thin lines easy to hover and click.
    m.empty("path", &[("d", &d), ("class", &"hit")]);
    let t = if minor { 0.3 } else { 0.5 };
    // Every label says what the cables carry: a bare count reads as ports of any speed.
    let text = format!("{count}×{}", b.speeds);
    let curve = [(x1, y1), (x1, ym), (x2, ym), (x2, y2)];
    let (lx, ly) = label_at(curve, t, &text, boxes);
    m.element(
        "text",
        &[("x", &num(lx)), ("y", &num(ly + 3.0)), ("class", &"count")],
        &text,
    );
    let rail_txt = b.rail.map(|r| format!(", rail {r}")).unwrap_or_default();
    m.element(
        "title",
        &[],
        &format!(
            "{} → {}: {count} × {} {} {}{rail_txt}",
            names.get(b.from.as_str()).copied().unwrap_or(""),
            names.get(b.to.as_str()).copied().unwrap_or(""),
            b.speeds,
            b.network.as_str(),
            b.tier.as_str()
        ),
    );
    m.close("g");
}
