//! Installer sheets (#46 item 3): `sheets/<rack>.html` (or `sheets/<switch>.html` when the spec
//! has no racks), one printable page set for the technician who cables that rack: the devices
//! with their U positions top to bottom (the elevation's proposal, [`super::racks`]), then one
//! row per cable with an end there (a cable between two racks is on both sheets): a tick box,
//! the cable id, this end and the far end with rack, U, device and port, the part and length as
//! `cabling.csv` prints them, each end's module, the splitter leg and harness, and a legend of
//! the sheet's sub-ports to their cage and lane. Line-oriented HTML from a minijinja template
//! (`templates/report/installer_sheet.html.j2`, every value auto-escaped); no script, so the
//! sheets print at any size, unlike the report page's print sheets.

use std::collections::{BTreeMap, BTreeSet};

use minijinja::{AutoEscape, Environment, context};
use serde::Serialize;

use crate::artifacts::LinkNames;
use crate::model::Role;
use crate::output::natural::Natural;
use crate::output::{FileError, InFile, OutputFile, OutputGroup, Sink};
use crate::topology::{Device, End, Fabric, LinkId, PortId};

const TEMPLATE: &str = include_str!("../../templates/report/installer_sheet.html.j2");

/// A device of the sheet's rack, top to bottom.
#[derive(Serialize)]
struct Shelf {
    /// `U41` or `U39–U40` (empty without racks).
    units: String,
    name: String,
    role: String,
}

/// One end of a cable as the sheet prints it.
#[derive(Serialize)]
struct EndCell {
    rack: String,
    units: String,
    device: String,
    port: String,
    module: String,
}

#[derive(Serialize)]
struct Row {
    id: String,
    here: EndCell,
    far: EndCell,
    part: String,
    length: String,
    leg: String,
    harness: String,
}

/// A sub-port name and where it is on the front panel.
#[derive(Serialize)]
struct Legend {
    port: String,
    cage: u16,
    /// 1-based.
    lane: u16,
}

/// The U positions of every racked device, by device name.
type Units<'a> = BTreeMap<&'a str, (u32, u32)>;

fn units_text(units: &Units<'_>, d: &Device) -> String {
    match units.get(d.name.as_str()) {
        Some(&(u, 1)) => format!("U{u}"),
        Some(&(u, h)) => format!("U{u}–U{}", u + h - 1),
        None => String::new(),
    }
}

/// The locations of a cable's ends: their racks, or without racks the switches at its ends (the
/// B end's device when neither end is a switch). A cable within one location is there once.
fn locations_of(f: &Fabric, a: &End, b: &End, racks: bool) -> Vec<(String, bool)> {
    let (da, db) = (f.device_of(a), f.device_of(b));
    let loc = |d: &Device| match racks {
        true => d.rack.clone(),
        false => (!matches!(d.role, Role::Node | Role::Appliance)).then(|| d.name.clone()),
    };
    let mut out: Vec<(String, bool)> = Vec::new();
    if let Some(l) = loc(da) {
        out.push((l, true));
    }
    match loc(db) {
        Some(l) if out.iter().any(|(x, _)| *x == l) => {}
        Some(l) => out.push((l, false)),
        None if out.is_empty() && !racks => out.push((db.name.clone(), false)),
        None => {}
    }
    out
}

/// Every location's cables, each with whether the sheet's end is the A end.
fn cables_by_location(f: &Fabric, racks: bool) -> BTreeMap<String, Vec<(LinkId, bool)>> {
    let mut by: BTreeMap<String, Vec<(LinkId, bool)>> = BTreeMap::new();
    for (i, l) in f.links_with_ids() {
        for (loc, here_a) in locations_of(f, &l.a, &l.b, racks) {
            by.entry(loc).or_default().push((i, here_a));
        }
    }
    by
}

/// The sheets, one file per location, into `sink`.
pub fn files(f: &Fabric, names: &LinkNames, sink: &Sink<'_>) -> Result<(), FileError> {
    let racks = f.devices().any(|d| d.rack.is_some());
    let rack_list = super::racks::racks(f);
    let mut units: Units<'_> = BTreeMap::new();
    for s in rack_list.iter().flat_map(|r| &r.slots) {
        units.insert(s.device.name.as_str(), (s.u, s.height));
    }
    let groups: Vec<(String, Vec<(LinkId, bool)>)> =
        cables_by_location(f, racks).into_iter().collect();
    let ctx = Context {
        f,
        names,
        units: &units,
        racks,
    };
    crate::parallel::chunks(&groups, |part| {
        for (loc, cables) in part {
            let path = format!("sheets/{loc}.html");
            let bytes = ctx.sheet(&rack_list, loc, cables).in_file(&path)?;
            sink(OutputFile::new(OutputGroup::Report, path, bytes));
        }
        Ok(())
    })
    .into_iter()
    .collect()
}

/// What every sheet reads.
struct Context<'a> {
    f: &'a Fabric,
    names: &'a LinkNames<'a>,
    units: &'a Units<'a>,
    racks: bool,
}

impl Context<'_> {
    /// The devices of location `loc` top to bottom: a rack's slots, or the switch itself.
    fn shelves(&self, rack_list: &[super::racks::Rack<'_>], loc: &str) -> Vec<Shelf> {
        let Some(rack) = rack_list.iter().find(|r| r.name == loc) else {
            return self
                .f
                .devices()
                .filter(|d| d.name == loc)
                .map(|d| Shelf {
                    units: String::new(),
                    name: d.name.clone(),
                    role: role_name(d.role),
                })
                .collect();
        };
        let mut slots: Vec<_> = rack.slots.iter().collect();
        slots.sort_by_key(|s| std::cmp::Reverse(s.u));
        slots
            .iter()
            .map(|s| Shelf {
                units: units_text(self.units, s.device),
                name: s.device.name.clone(),
                role: role_name(s.device.role),
            })
            .collect()
    }

    fn end_cell(&self, i: LinkId, a: bool) -> EndCell {
        let l = self.f.link(i);
        let (end, port, module) = if a {
            (&l.a, &self.names.a_port[i], self.names.build[i].a_module)
        } else {
            (&l.b, &self.names.b_port[i], self.names.build[i].b_module)
        };
        let d = self.f.device_of(end);
        EndCell {
            rack: d.rack.clone().unwrap_or_default(),
            units: units_text(self.units, d),
            device: d.name.clone(),
            port: port.clone(),
            module: module.to_string(),
        }
    }

    fn row(&self, i: LinkId, here_a: bool) -> Row {
        let b = &self.names.build[i];
        let part = match b.count {
            n if n > 1 => format!("{n} × {}", b.part),
            _ => b.part.to_string(),
        };
        Row {
            id: self.f.link(i).cable_id.clone(),
            here: self.end_cell(i, here_a),
            far: self.end_cell(i, !here_a),
            part,
            length: b.length.clone(),
            leg: b.leg.clone(),
            harness: b.harness.clone(),
        }
    }

    /// One sheet: rows by this end's U (top first), device and port.
    fn sheet(
        &self,
        rack_list: &[super::racks::Rack<'_>],
        loc: &str,
        cables: &[(LinkId, bool)],
    ) -> Result<Vec<u8>, minijinja::Error> {
        let mut keyed: Vec<_> = cables
            .iter()
            .map(|&(i, here_a)| {
                let l = self.f.link(i);
                let (end, port) = if here_a {
                    (&l.a, &self.names.a_port[i])
                } else {
                    (&l.b, &self.names.b_port[i])
                };
                let d = self.f.device_of(end);
                let u = self.units.get(d.name.as_str()).map_or(0, |x| x.0);
                (
                    std::cmp::Reverse(u),
                    Natural(d.name.as_str()),
                    Natural(port.as_str()),
                    i,
                    here_a,
                )
            })
            .collect();
        keyed.sort();
        let mut legend = BTreeSet::new();
        for (.., i, _) in &keyed {
            let l = self.f.link(*i);
            for (end, port) in [
                (&l.a, &self.names.a_port[*i]),
                (&l.b, &self.names.b_port[*i]),
            ] {
                if let PortId::Lane { cage, lane } = end.port {
                    legend.insert((Natural(port.as_str()), cage, u16::from(lane) + 1));
                }
            }
        }
        let legend: Vec<Legend> = legend
            .into_iter()
            .map(|(p, cage, lane)| Legend {
                port: p.0.to_string(),
                cage,
                lane,
            })
            .collect();
        let rows: Vec<Row> = keyed
            .iter()
            .map(|&(.., i, here_a)| self.row(i, here_a))
            .collect();
        let ctx = context! {
            cluster => self.f.name,
            location => loc,
            kind => if self.racks { "rack" } else { "switch" },
            devices => self.shelves(rack_list, loc),
            rows => rows,
            legend => legend,
        };
        render(ctx)
    }
}

fn role_name(r: Role) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The sheet from its template, every value HTML-escaped (the report page's rule).
fn render(ctx: minijinja::Value) -> Result<Vec<u8>, minijinja::Error> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_template("installer_sheet.html", TEMPLATE)?;
    let html = env.get_template("installer_sheet.html")?.render(ctx)?;
    Ok(html.into_bytes())
}
