//! Draws rack elevations: one `<figure>` per rack, its SVG front view with the U scale, every
//! device at its proposed position, and a caption with the U used (flagged over 42U).

use super::{RACK_UNITS, Rack, Slot};
use crate::model::Role;
use crate::report::markup::{Markup, num};

const U_PX: f64 = 11.0;
const WIDTH: f64 = 230.0;
const LEFT: f64 = 26.0;
const TOP: f64 = 8.0;

fn fill(role: Role) -> &'static str {
    match role {
        Role::Node => "#f3f4f6",
        Role::Appliance => "#fae8ff",
        Role::Leaf => "#dbeafe",
        Role::Spine | Role::Core => "#bfdbfe",
        Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => "#fef3c7",
        Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => "#d1fae5",
        Role::OobLeaf | Role::OobCore | Role::OobGateway => "#e5e7eb",
        Role::NvlinkSwitchTray => "#c7d2fe",
        Role::PowerShelf => "#fee2e2",
    }
}

/// One `<figure>` per rack, each holding its elevation.
pub fn render(racks: &[Rack<'_>]) -> String {
    let mut m = Markup::with_capacity(racks.len() * 4096);
    for r in racks {
        figure(&mut m, r);
        m.newline();
    }
    m.finish()
}

/// y of the top edge of U `u` in rack `r`.
fn y_of(r: &Rack<'_>, u: u32) -> f64 {
    TOP + f64::from(r.units - u) * U_PX
}

fn figure(m: &mut Markup, r: &Rack<'_>) {
    let over = r.used > RACK_UNITS;
    let h = TOP * 2.0 + f64::from(r.units) * U_PX + 4.0;
    let class = if over { "rack over" } else { "rack" };
    m.open(
        "figure",
        &[
            ("class", &class),
            ("data-rack", &r.name),
            ("id", &format!("rack-{}", r.name)),
        ],
    );
    let view = format!("0 0 {WIDTH} {}", num(h));
    m.open(
        "svg",
        &[
            ("xmlns", &"http://www.w3.org/2000/svg"),
            ("viewBox", &view),
            ("width", &WIDTH),
            ("height", &num(h)),
            ("role", &"img"),
            ("aria-label", &format!("Rack {} elevation", r.name)),
        ],
    );
    scale(m, r);
    for s in &r.slots {
        slot(m, r, s);
    }
    m.close("svg");
    let caption = if over {
        format!(
            "{} — {} devices, {}U of {RACK_UNITS}U: over capacity",
            r.name,
            r.slots.len(),
            r.used
        )
    } else {
        format!(
            "{} — {} devices, {}U of {RACK_UNITS}U",
            r.name,
            r.slots.len(),
            r.used
        )
    };
    m.element("figcaption", &[], &caption);
    m.close("figure");
}

/// The rack's frame, a numbered line per U, and the 42U limit when the rack is taller.
fn scale(m: &mut Markup, r: &Rack<'_>) {
    let body_h = f64::from(r.units) * U_PX;
    m.empty(
        "rect",
        &[
            ("x", &(LEFT - 4.0)),
            ("y", &(TOP - 2.0)),
            ("width", &(WIDTH - LEFT)),
            ("height", &num(body_h + 4.0)),
            ("class", &"rack-frame"),
        ],
    );
    for u in 1..=r.units {
        let y = y_of(r, u);
        m.element(
            "text",
            &[
                ("x", &(LEFT - 7.0)),
                ("y", &num(y + 8.5)),
                ("class", &"u-num"),
            ],
            &u.to_string(),
        );
        m.empty(
            "line",
            &[
                ("x1", &LEFT),
                ("x2", &(WIDTH - 8.0)),
                ("y1", &num(y + U_PX)),
                ("y2", &num(y + U_PX)),
                ("class", &"u-line"),
            ],
        );
    }
    if r.used > RACK_UNITS {
        m.empty(
            "line",
            &[
                ("x1", &(LEFT - 4.0)),
                ("x2", &(WIDTH - 4.0)),
                ("y1", &num(y_of(r, RACK_UNITS))),
                ("y2", &num(y_of(r, RACK_UNITS))),
                ("class", &"u-limit"),
            ],
        );
    }
}

/// A device at its U positions, labelled with its name and model.
fn slot(m: &mut Markup, r: &Rack<'_>, s: &Slot<'_>) {
    let top = y_of(r, s.u + s.height - 1);
    let hgt = f64::from(s.height) * U_PX - 1.0;
    m.open(
        "g",
        &[
            ("class", &"rack-device"),
            ("data-device", &s.device.name),
            ("data-u", &s.u),
        ],
    );
    m.empty(
        "rect",
        &[
            ("x", &(LEFT + 1.0)),
            ("y", &num(top + 0.5)),
            ("width", &(WIDTH - LEFT - 10.0)),
            ("height", &num(hgt)),
            ("rx", &2),
            ("fill", &fill(s.device.role)),
        ],
    );
    let text = format!("{} · {}", s.device.name, s.device.model);
    m.element(
        "text",
        &[
            ("x", &(LEFT + 6.0)),
            ("y", &num(top + hgt / 2.0 + 4.0)),
            ("class", &"dev-label"),
        ],
        &text,
    );
    let u_range = if s.height > 1 {
        format!("U{}–U{}", s.u, s.u + s.height - 1)
    } else {
        format!("U{}", s.u)
    };
    m.element(
        "title",
        &[],
        &format!("{} ({}, {})", s.device.name, s.device.model, u_range),
    );
    m.close("g");
}
