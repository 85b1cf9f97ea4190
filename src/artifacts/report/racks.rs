//! Rack elevations: every declared rack as an SVG front view with its U positions.
//!
//! The spec places devices in racks but not at U positions, so the elevation proposes them the
//! way GPU racks are usually filled: nodes from U1 upwards (heaviest lowest), switches from the
//! top down. A rack whose devices need more than 42U is drawn as tall as needed and flagged.

use std::collections::BTreeMap;

use super::markup::{Markup, num};
use super::natural_key;
use crate::model::Role;
use crate::topology::{Device, Fabric};

/// A standard 42U rack.
pub const RACK_UNITS: u32 = 42;
const U_PX: f64 = 11.0;
const WIDTH: f64 = 230.0;
const LEFT: f64 = 26.0;
const TOP: f64 = 8.0;

/// One device at its proposed position.
pub struct Slot<'a> {
    pub device: &'a Device,
    /// Lowest U occupied (1-based) and height in U.
    pub u: u32,
    pub height: u32,
}

pub struct Rack<'a> {
    pub name: &'a str,
    pub slots: Vec<Slot<'a>>,
    pub units: u32,
    pub used: u32,
}

fn height_of(f: &Fabric, d: &Device) -> u32 {
    f.switch_model(d)
        .map(|m| m.ru)
        .or_else(|| f.node_model(d).map(|m| m.ru))
        .unwrap_or(1)
        .max(1)
}

/// Every rack with its devices at proposed U positions, in natural rack order.
pub fn racks(f: &Fabric) -> Vec<Rack<'_>> {
    let mut by_rack: BTreeMap<&str, Vec<&Device>> = BTreeMap::new();
    for d in f.devices() {
        if let Some(r) = &d.rack {
            by_rack.entry(r.as_str()).or_default().push(d);
        }
    }
    let mut out: Vec<Rack<'_>> = by_rack
        .into_iter()
        .map(|(name, mut devs)| {
            devs.sort_by_key(|d| natural_key(&d.name));
            let (low, high): (Vec<&Device>, Vec<&Device>) = devs
                .into_iter()
                .partition(|d| matches!(d.role, Role::Node | Role::Appliance));
            let used: u32 = low.iter().chain(&high).map(|d| height_of(f, d)).sum();
            let units = used.max(RACK_UNITS);
            let mut slots = Vec::new();
            let mut u = 1;
            for d in low {
                let h = height_of(f, d);
                slots.push(Slot {
                    device: d,
                    u,
                    height: h,
                });
                u += h;
            }
            let mut top = units + 1;
            for d in high {
                let h = height_of(f, d);
                top -= h;
                slots.push(Slot {
                    device: d,
                    u: top,
                    height: h,
                });
            }
            Rack {
                name,
                slots,
                units,
                used,
            }
        })
        .collect();
    out.sort_by_key(|r| natural_key(r.name));
    out
}

fn fill(role: Role) -> &'static str {
    match role {
        Role::Node => "#f3f4f6",
        Role::Appliance => "#fae8ff",
        Role::Leaf => "#dbeafe",
        Role::Spine | Role::Core => "#bfdbfe",
        Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => "#fef3c7",
        Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => "#d1fae5",
        Role::OobLeaf | Role::OobCore | Role::OobGateway => "#e5e7eb",
    }
}

/// One `<figure>` per rack, each holding its elevation.
pub fn render(racks: &[Rack<'_>]) -> String {
    let mut m = Markup::with_capacity(racks.len() * 4096);
    for r in racks {
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
        let y_of = |u: u32| TOP + f64::from(r.units - u) * U_PX;
        for u in 1..=r.units {
            let y = y_of(u);
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
        if over {
            m.empty(
                "line",
                &[
                    ("x1", &(LEFT - 4.0)),
                    ("x2", &(WIDTH - 4.0)),
                    ("y1", &num(y_of(RACK_UNITS))),
                    ("y2", &num(y_of(RACK_UNITS))),
                    ("class", &"u-limit"),
                ],
            );
        }
        for s in &r.slots {
            let top = y_of(s.u + s.height - 1);
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
        m.newline();
    }
    m.finish()
}
