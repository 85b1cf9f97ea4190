//! Draws a [`Diagram`] as SVG: a legend of networks and rails, panels, frames, bundles
//! ([`bundles`]) and units ([`units`]), in that order (later layers on top).

mod bundles;
mod legend;
mod palette;
mod units;

use super::{Diagram, Rect};
use crate::report::markup::{Attr, Markup, num};
use palette::{network_colour, network_fill};

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A `<rect>` at `r` with corners of radius `rx`, painted by `paint` (class, fill, stroke).
fn rounded(m: &mut Markup, r: Rect, rx: u32, paint: &[Attr<'_>]) {
    let (x, y, w, h) = (num(r.x), num(r.y), num(r.w), num(r.h));
    let mut attrs: Vec<Attr<'_>> = vec![
        ("x", &x),
        ("y", &y),
        ("width", &w),
        ("height", &h),
        ("rx", &rx),
    ];
    attrs.extend_from_slice(paint);
    m.empty("rect", &attrs);
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
    legend::legend(&mut m, dg);
    panels(&mut m, dg);
    frames(&mut m, dg);
    bundles::draw(&mut m, dg);
    units::draw(&mut m, dg);
    m.close("svg");
    m.finish()
}

/// The panels layer: one rounded box per network with its title.
fn panels(m: &mut Markup, dg: &Diagram) {
    m.open("g", &[("class", &"panels")]);
    for p in &dg.panels {
        let r = p.rect;
        rounded(
            m,
            r,
            8,
            &[("class", &"panel"), ("stroke", &network_colour(p.network))],
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
}

/// The frames layer: one `<g class="frame">` each, its title clipped to its width.
fn frames(m: &mut Markup, dg: &Diagram) {
    m.open("g", &[("class", &"frames")]);
    for f in &dg.frames {
        let r = f.rect;
        m.open(
            "g",
            &[("class", &"frame"), ("id", &f.key), ("data-frame", &f.key)],
        );
        rounded(
            m,
            r,
            6,
            &[
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
}
