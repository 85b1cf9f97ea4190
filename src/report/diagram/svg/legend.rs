//! The legend above the panels: the networks present, and the rails when the compute fabric
//! has node cables by rail.

use super::palette::{network_colour, rail_colour};
use crate::model::Network;
use crate::report::diagram::Diagram;
use crate::report::markup::Markup;

fn network_name(n: &str) -> &'static str {
    match n {
        "compute" => "compute",
        "storage" => "storage",
        "inband" => "in-band",
        _ => "out-of-band",
    }
}

pub fn legend(m: &mut Markup, dg: &Diagram) {
    m.open(
        "g",
        &[("class", &"legend"), ("transform", &"translate(16,14)")],
    );
    networks(m, dg);
    if !dg.rails.is_empty() {
        rails(m, dg);
    }
    m.close("g");
}

fn networks(m: &mut Markup, dg: &Diagram) {
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
}

fn rails(m: &mut Markup, dg: &Diagram) {
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
