//! Every cable's port names, label and parts as the documents print them, resolved once per
//! build and shared by every artifact and the report.

use super::printed::metres;
use crate::physical::PhysicalPlan;
use crate::topology::{Fabric, LinkId, PerLink, PortId};

/// Port names and labels of every cable, resolved once and shared by every artifact, by the
/// fabric's link ids.
pub struct LinkNames<'p> {
    pub a_port: PerLink<String>,
    pub b_port: PerLink<String>,
    pub label: PerLink<String>,
    /// How each cable is built, as printed (from the physical plan).
    pub build: PerLink<BuildNames<'p>>,
}

/// A cable's parts as the sheets print them.
/// Part numbers borrow the plan's (a part is stored once there, whatever it is plugged into).
#[derive(Default)]
pub struct BuildNames<'p> {
    pub media: &'static str,
    /// Length as ordered, in metres (and as printed).
    pub length_m: f64,
    pub length: String,
    pub a_module: &'p str,
    pub b_module: &'p str,
    pub part: &'p str,
    pub count: u32,
    pub leg: String,
    /// The harness a splitter leg is on (its single end, `device:cage[#connector]`) and the
    /// harness's length as ordered; empty for a cable of its own.
    pub harness: String,
    pub harness_m: String,
}

impl<'p> BuildNames<'p> {
    /// A splitter leg prints its own run (rounded up to a metre), not the cord's length: the
    /// cord is ordered at its longest leg (the BOM), and a leg added when the cluster grows must
    /// not change the rows of the legs already cabled.
    fn new(p: &'p PhysicalPlan, id: LinkId, route_m: f64, hub: impl Fn(bool) -> String) -> Self {
        let (Some(l), Some(c)) = (p.link(id), p.cord_of(id)) else {
            return Self::default();
        };
        let module = |m| p.module(m).map_or("", |m| m.part.as_str());
        let length_m = if l.leg.is_some() {
            route_m.ceil().max(1.0).min(c.length_m)
        } else {
            c.length_m
        };
        Self {
            media: l.media.as_str(),
            length_m,
            length: metres(length_m),
            a_module: module(l.a_module),
            b_module: module(l.b_module),
            part: c.part.as_str(),
            count: l.cord_count,
            leg: l.leg.map_or_else(String::new, |g| g.to_string()),
            harness: l.harness.map_or_else(String::new, |h| match h.connector {
                Some(c) => format!("{}#{c}", hub(h.on_a)),
                None => hub(h.on_a),
            }),
            harness_m: l
                .harness
                .and_then(|h| p.cord(h.cord))
                .map_or_else(String::new, |h| metres(h.length_m)),
        }
    }
}

impl<'p> LinkNames<'p> {
    pub fn new(f: &Fabric, p: &'p PhysicalPlan) -> Self {
        let resolved = PerLink::of(f, |id, l| {
            let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
            let (ap, bp) = (f.port_name(a, l.a.port), f.port_name(b, l.b.port));
            let label = crate::topology::label_of(a, &ap, b, &bp);
            // A harness is named by its single end's cage, which every leg shares.
            let hub = |on_a: bool| {
                let (d, port) = if on_a { (a, l.a.port) } else { (b, l.b.port) };
                let cage = port.cage().map_or(port, |cage| PortId::Cage { cage });
                format!("{}:{}", d.name, f.port_name(d, cage))
            };
            let build = BuildNames::new(p, id, l.route_m, hub);
            (((ap, bp), label), build)
        });
        let (ports_and_labels, build) = resolved.unzip();
        let (ports, label) = ports_and_labels.unzip();
        let (a_port, b_port) = ports.unzip();
        Self {
            a_port,
            b_port,
            label,
            build,
        }
    }
}
