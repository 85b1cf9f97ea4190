//! Draws a [`Diagram`] as SVG: panels, frames, bundles (one `<g class="bundle">` each, with the
//! cable count, speed and rail as data attributes), units (one `<g class="node">` each, with the
//! number of switches it stands for) and a legend of networks and rails.

use std::collections::BTreeMap;

use super::diagram::{Diagram, Rect, UnitKind};
use super::markup::{Markup, num};
use crate::model::{Network, Tier};

/// Network colours (lines and frames).
pub fn network_colour(n: Network) -> &'static str {
    match n {
        Network::Compute => "#2563eb",
        Network::Storage => "#d97706",
        Network::Inband => "#059669",
        Network::Oob => "#6b7280",
    }
}

fn network_fill(n: Network) -> &'static str {
    match n {
        Network::Compute => "#eff6ff",
        Network::Storage => "#fffbeb",
        Network::Inband => "#ecfdf5",
        Network::Oob => "#f3f4f6",
    }
}

fn network_name(n: &str) -> &'static str {
    match n {
        "compute" => "compute",
        "storage" => "storage",
        "inband" => "in-band",
        _ => "out-of-band",
    }
}

/// Sixteen distinguishable rail colours (rail 1 first), repeated beyond 16.
const RAILS: [&str; 16] = [
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#0fa3b1", "#f032e6", "#9a6324",
    "#469990", "#800000", "#808000", "#000075", "#7fb800", "#d96c96", "#8c7ae6", "#2f4f4f",
];

pub fn rail_colour(r: u32) -> &'static str {
    RAILS[(r.max(1) as usize - 1) % RAILS.len()]
}

fn unit_fill(role: &str) -> &'static str {
    match role {
        "leaf" => "#dbeafe",
        "spine" => "#bfdbfe",
        "core" => "#93c5fd",
        "node" => "#f9fafb",
        "appliance" => "#fae8ff",
        "storage-leaf" | "storage-spine" => "#fef3c7",
        "inband-leaf" | "inband-spine" => "#d1fae5",
        "oob-leaf" | "oob-core" => "#e5e7eb",
        _ => "#ffffff",
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn bezier(p0: (f64, f64), p1: (f64, f64), p2: (f64, f64), p3: (f64, f64), t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    (
        a * p0.0 + b * p1.0 + c * p2.0 + d * p3.0,
        a * p0.1 + b * p1.1 + c * p2.1 + d * p3.1,
    )
}

/// Where each bundle leaves its two anchors: bundles sharing an anchor side are spread along
/// it in the order of their far ends, so lines do not cross at the box.
/// A point in diagram coordinates.
type Point = (f64, f64);

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

fn legend(m: &mut Markup, dg: &Diagram) {
    m.open(
        "g",
        &[("class", &"legend"), ("transform", &"translate(16,14)")],
    );
    let mut x = 0.0;
    m.element(
        "text",
        &[("x", &x), ("y", &12), ("class", &"legend-title")],
        "Networks",
    );
    x += 66.0;
    for n in &dg.networks {
        let net = match *n {
            "compute" => Network::Compute,
            "storage" => Network::Storage,
            "inband" => Network::Inband,
            _ => Network::Oob,
        };
        m.empty(
            "line",
            &[
                ("x1", &x),
                ("y1", &8),
                ("x2", &(x + 22.0)),
                ("y2", &8),
                ("stroke", &network_colour(net)),
                ("stroke-width", &4),
            ],
        );
        m.element("text", &[("x", &(x + 27.0)), ("y", &12)], network_name(n));
        x += 40.0 + 7.0 * network_name(n).len() as f64;
    }
    if !dg.rails.is_empty() {
        let mut x = 0.0;
        m.element(
            "text",
            &[("x", &x), ("y", &36), ("class", &"legend-title")],
            "Rails",
        );
        x += 66.0;
        for r in &dg.rails {
            m.empty(
                "rect",
                &[
                    ("x", &x),
                    ("y", &27),
                    ("width", &14),
                    ("height", &12),
                    ("rx", &2),
                    ("fill", &rail_colour(*r)),
                    ("class", &"rail-swatch"),
                    ("data-rail", r),
                ],
            );
            m.element("text", &[("x", &(x + 18.0)), ("y", &37)], &r.to_string());
            x += 24.0 + 7.0 * r.to_string().len() as f64;
        }
    }
    m.close("g");
}

/// The diagram as an `<svg>` element (inline in the report).
pub fn render(dg: &Diagram) -> String {
    let mut m = Markup::with_capacity(256 * (dg.units.len() + dg.bundles.len()) + 4096);
    let dense = dg.bundles.len() > 300;
    let class = format!(
        "fabric mode-{}{}",
        dg.mode.as_str(),
        if dense { " dense" } else { "" }
    );
    let view = format!("0 0 {} {}", dg.width, dg.height);
    let switches: usize = dg.units.iter().map(|u| u.switches).sum();
    m.open(
        "svg",
        &[
            ("xmlns", &"http://www.w3.org/2000/svg"),
            ("id", &"fabric"),
            ("class", &class),
            ("viewBox", &view),
            ("width", &dg.width),
            ("height", &dg.height),
            ("role", &"img"),
            ("aria-label", &"Fabric diagram"),
            ("data-mode", &dg.mode.as_str()),
            ("data-switches", &switches),
            ("data-bundles", &dg.bundles.len()),
        ],
    );
    m.empty(
        "rect",
        &[
            ("x", &0),
            ("y", &0),
            ("width", &dg.width),
            ("height", &dg.height),
            ("fill", &"#ffffff"),
        ],
    );
    legend(&mut m, dg);

    m.open("g", &[("class", &"panels")]);
    for p in &dg.panels {
        let r = p.rect;
        m.empty(
            "rect",
            &[
                ("x", &num(r.x)),
                ("y", &num(r.y)),
                ("width", &num(r.w)),
                ("height", &num(r.h)),
                ("rx", &8),
                ("class", &"panel"),
                ("stroke", &network_colour(p.network)),
            ],
        );
        m.element(
            "text",
            &[
                ("x", &num(r.x + 10.0)),
                ("y", &num(r.y + 20.0)),
                ("class", &"panel-title"),
                ("fill", &network_colour(p.network)),
            ],
            &p.title,
        );
    }
    m.close("g");

    m.open("g", &[("class", &"frames")]);
    for f in &dg.frames {
        let r = f.rect;
        m.open(
            "g",
            &[("class", &"frame"), ("id", &f.key), ("data-frame", &f.key)],
        );
        m.empty(
            "rect",
            &[
                ("x", &num(r.x)),
                ("y", &num(r.y)),
                ("width", &num(r.w)),
                ("height", &num(r.h)),
                ("rx", &6),
                ("fill", &network_fill(f.network)),
                ("stroke", &network_colour(f.network)),
            ],
        );
        m.element(
            "text",
            &[
                ("x", &num(r.x + 6.0)),
                ("y", &num(r.y + 13.0)),
                ("class", &"frame-title"),
            ],
            &clip(&f.title, ((r.w - 10.0) / 6.0) as usize),
        );
        m.element("title", &[], &f.title);
        m.close("g");
    }
    m.close("g");

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
    m.open("g", &[("class", &"bundles")]);
    for (i, b) in dg.bundles.iter().enumerate() {
        let Some(((x1, y1), (x2, y2))) = ends[i] else {
            continue;
        };
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
        let (lx, ly) = bezier((x1, y1), (x1, ym), (x2, ym), (x2, y2), t);
        // Bundles between two frames get the speed too; the many small ones only the count.
        let framed = b.from.starts_with("f-") && b.to.starts_with("f-");
        let text = if framed || b.from.starts_with("d-") {
            format!("{count}×{}", b.speeds)
        } else {
            count.to_string()
        };
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
    m.close("g");

    m.open("g", &[("class", &"units")]);
    for u in &dg.units {
        let r = u.rect;
        let class = format!("node kind-{} role-{}", u.kind.as_str(), u.role);
        let device = u.device.map(|_| u.title.as_str()).unwrap_or("");
        m.open(
            "g",
            &[
                ("class", &class),
                ("id", &u.key),
                ("data-unit", &u.key),
                ("data-kind", &u.kind.as_str()),
                ("data-role", &u.role),
                ("data-switches", &u.switches),
                ("data-devices", &u.devices),
                ("data-device", &device),
            ],
        );
        let stub = u.kind == UnitKind::Stub;
        m.empty(
            "rect",
            &[
                ("x", &num(r.x)),
                ("y", &num(r.y)),
                ("width", &num(r.w)),
                ("height", &num(r.h)),
                ("rx", &(if stub { 10 } else { 4 })),
                ("fill", &unit_fill(u.role)),
                ("stroke", &network_colour(u.network)),
            ],
        );
        let max = (r.w / 6.2) as usize;
        let title_y = if u.sub.is_empty() {
            r.y + r.h / 2.0 + 4.0
        } else {
            r.y + 14.0
        };
        m.element(
            "text",
            &[
                ("x", &num(r.cx())),
                ("y", &num(title_y)),
                ("class", &"unit-title"),
            ],
            &clip(&u.title, max),
        );
        if !u.sub.is_empty() {
            m.element(
                "text",
                &[
                    ("x", &num(r.cx())),
                    ("y", &num(r.y + 26.0)),
                    ("class", &"unit-sub"),
                ],
                &clip(&u.sub, max + 3),
            );
        }
        // Rail chips along the top edge of leaves.
        if u.role == "leaf" && !u.rails.is_empty() && u.rails.len() <= 16 {
            let n = u.rails.len() as f64;
            let w = ((r.w - 8.0) / n).min(12.0);
            let x0 = r.cx() - w * n / 2.0;
            for (k, rail) in u.rails.iter().enumerate() {
                m.empty(
                    "rect",
                    &[
                        ("x", &num(x0 + k as f64 * w)),
                        ("y", &num(r.y + 1.0)),
                        ("width", &num(w - 1.0)),
                        ("height", &3),
                        ("fill", &rail_colour(*rail)),
                    ],
                );
            }
        }
        let tip = if u.sub.is_empty() {
            u.title.clone()
        } else {
            format!("{} — {}", u.title, u.sub)
        };
        m.element("title", &[], &tip);
        m.close("g");
    }
    m.close("g");
    m.close("svg");
    m.finish()
}
