//! Units: one `<g class="node">` each, a box with its title and subtitle, the number of switches
//! and devices it stands for as data attributes, and rail chips along the top of leaves.

use super::palette::{network_colour, rail_colour, unit_fill};
use super::{clip, rounded};
use crate::report::diagram::{Diagram, Unit, UnitKind};
use crate::report::markup::{Markup, num};

/// The units layer.
pub fn draw(m: &mut Markup, dg: &Diagram) {
    m.open("g", &[("class", &"units")]);
    for u in &dg.units {
        unit(m, u);
    }
    m.close("g");
}

fn unit(m: &mut Markup, u: &Unit) {
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
    rounded(
        m,
        r,
        if stub { 10 } else { 4 },
        &[
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
    if u.role == "leaf" && !u.rails.is_empty() && u.rails.len() <= 16 {
        rail_chips(m, u);
    }
    let tip = if u.sub.is_empty() {
        u.title.clone()
    } else {
        format!("{} — {}", u.title, u.sub)
    };
    m.element("title", &[], &tip);
    m.close("g");
}

/// Rail chips along the top edge of a leaf: one per rail it carries.
fn rail_chips(m: &mut Markup, u: &Unit) {
    let r = u.rect;
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
