//! The page's data block: one JSON document (`<script type="application/json">`) that
//! the page's script (`templates/report/js/`) turns into the device, cable and port tables, the BOM and the print sheets.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ROWS_PER_PAGE;
use crate::artifacts::LinkNames;
use crate::output::natural::{self, Natural};
use crate::report::Csv;
use crate::report::diagram::{Diagram, Placement};
use crate::report::markup::script_json;
use crate::topology::{Device, DeviceId, Fabric, LinkId};

/// Up to this many sheet rows the page lays out every sheet on load; beyond, the user picks.
const AUTO_SHEET_ROWS: usize = 4000;

/// A cable as the page's script reads it: id, label, a device, a port, b device, b port,
/// speed, media, length, network, tier, plane, rail, bundle, and how it is built (#26 item 4:
/// a module, cable or fibre part, how many of it, splitter leg, b module; one nested tuple, as
/// serde serializes tuples of at most 16).
type CableRow<'a> = (
    &'a str,
    &'a str,
    usize,
    &'a str,
    usize,
    &'a str,
    String,
    &'static str,
    String,
    &'static str,
    &'static str,
    Option<u32>,
    Option<u32>,
    usize,
    (&'a str, &'a str, u32, &'a str, &'a str),
);

/// A device: name, role, rack, model, diagram unit, diagram frame, diagram column.
type DeviceRow<'a> = (
    &'a str,
    &'static str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
);

/// A switch port: port, cage, speed, cable index or -1.
type PortRow<'a> = (&'a str, &'a str, &'a str, i64);

#[derive(Serialize)]
struct Table<'a> {
    columns: &'a [String],
    rows: &'a [Vec<&'a str>],
}

#[derive(Serialize)]
struct Data<'a> {
    cluster: &'a str,
    devices: Vec<DeviceRow<'a>>,
    cables: Vec<CableRow<'a>>,
    /// Switch device indices in natural name order.
    switches: Vec<usize>,
    /// Per switch (device index): every port.
    ports: BTreeMap<usize, Vec<PortRow<'a>>>,
    sheets: Vec<(String, Vec<usize>)>,
    sheet_mode: &'static str,
    rows_per_page: usize,
    auto_sheet_rows: usize,
    bom: Table<'a>,
}

/// The print sheets: one per place an installer works, a rack when the spec has racks, else a
/// switch, with the cables that end there.
pub struct Sheets {
    pub has_racks: bool,
    /// Location and its cables, both in natural order (device, then port).
    pub sheets: Vec<(String, Vec<LinkId>)>,
}

/// The print sheets of one page, each cable as its row on the page.
pub struct PageSheets {
    pub has_racks: bool,
    /// Location and cable rows (positions in the page's cable list).
    pub sheets: Vec<(String, Vec<usize>)>,
}

impl Sheets {
    pub fn of<'a>(f: &'a Fabric, names: &'a LinkNames) -> Self {
        let racks = f.devices().any(|d| d.rack.is_some());
        // location → (device, port, cable) with names in natural order.
        type Row<'a> = (Natural<&'a str>, Natural<&'a str>, LinkId);
        let mut by_loc: BTreeMap<String, Vec<Row<'a>>> = BTreeMap::new();
        for (i, l) in f.links_with_ids() {
            let ends = [
                (f.device_of(&l.a), &names.a_port[i]),
                (f.device_of(&l.b), &names.b_port[i]),
            ];
            let mut seen: Vec<String> = Vec::new();
            for (d, port) in ends {
                let loc = if racks {
                    d.rack.clone()
                } else {
                    d.role.is_switch().then(|| d.name.clone())
                };
                let Some(loc) = loc else { continue };
                if seen.contains(&loc) {
                    continue;
                }
                seen.push(loc.clone());
                by_loc.entry(loc).or_default().push((
                    Natural(d.name.as_str()),
                    Natural(port.as_str()),
                    i,
                ));
            }
        }
        let mut sheets: Vec<(String, Vec<LinkId>)> = by_loc
            .into_iter()
            .map(|(loc, mut v)| {
                v.sort();
                (loc, v.into_iter().map(|(_, _, i)| i).collect())
            })
            .collect();
        sheets.sort_by(|(a, _), (b, _)| natural::cmp(a, b));
        Self {
            has_racks: racks,
            sheets,
        }
    }
}

impl Sheets {
    /// Every sheet, on a page that shows every cable.
    pub fn whole(self) -> PageSheets {
        PageSheets {
            has_racks: self.has_racks,
            sheets: self
                .sheets
                .into_iter()
                .map(|(loc, list)| (loc, list.into_iter().map(LinkId::position).collect()))
                .collect(),
        }
    }

    /// The sheets of the places `own` devices are in, with only the page's `cables`
    /// (ascending), as rows of the page; sheets left empty are dropped.
    pub fn within(&self, f: &Fabric, own: &[DeviceId], cables: &[LinkId]) -> PageSheets {
        let places: std::collections::BTreeSet<&str> = own
            .iter()
            .filter_map(|&i| {
                let d = f.device(i);
                if self.has_racks {
                    d.rack.as_deref()
                } else {
                    d.role.is_switch().then_some(d.name.as_str())
                }
            })
            .collect();
        let sheets = self
            .sheets
            .iter()
            .filter(|(loc, _)| places.contains(loc.as_str()))
            .map(|(loc, list)| {
                let local = list
                    .iter()
                    .filter_map(|i| cables.binary_search(i).ok())
                    .collect();
                (loc.clone(), local)
            })
            .filter(|(_, list): &(String, Vec<usize>)| !list.is_empty())
            .collect();
        PageSheets {
            has_racks: self.has_racks,
            sheets,
        }
    }
}

/// What one page shows: devices and cables by position in `Fabric::devices()` and
/// `Fabric::links()`, both ascending, and which devices' ports it lists.
pub struct Scope<'s> {
    pub devices: Vec<DeviceId>,
    pub cables: Vec<LinkId>,
    /// Devices whose port maps the page lists (names).
    pub ports_of: Option<std::collections::BTreeSet<&'s str>>,
    /// The diagram the page draws, if any (placements and bundles).
    pub diagram: Option<&'s Diagram>,
}

impl<'s> Scope<'s> {
    /// The whole fabric, drawn in `dg`.
    pub fn whole(f: &Fabric, dg: &'s Diagram) -> Self {
        Self {
            devices: f.devices_with_ids().map(|(id, _)| id).collect(),
            cables: f.links_with_ids().map(|(id, _)| id).collect(),
            ports_of: None,
            diagram: Some(dg),
        }
    }

    /// The page's position of a device (the list is ascending).
    fn local(list: &[DeviceId], i: DeviceId) -> usize {
        list.binary_search(&i).unwrap_or(0)
    }
}

/// The data block's JSON.
pub fn json(
    f: &Fabric,
    names: &LinkNames,
    scope: &Scope<'_>,
    sheets: PageSheets,
    bom: Option<&Csv>,
    portmaps: &[(&str, Csv)],
) -> Result<String, serde_json::Error> {
    let devices: Vec<&Device> = scope.devices.iter().map(|&i| f.device(i)).collect();
    let (cables, cable_index) = cable_rows(f, names, scope);
    let portmaps = portmaps
        .iter()
        .filter(|(name, _)| scope.ports_of.as_ref().is_none_or(|own| own.contains(name)));
    let ports = port_rows(&devices, portmaps, &cable_index);
    let mut switches: Vec<usize> = ports.keys().copied().collect();
    switches.sort_by(|&a, &b| natural::cmp(&devices[a].name, &devices[b].name));
    let empty_cols: Vec<String> = Vec::new();
    let bom_rows: Vec<Vec<&str>> =
        bom.map_or_else(Vec::new, |b| b.rows().map(|r| r.iter().collect()).collect());
    let none = Placement::default();
    let placements: Vec<&Placement> = match scope.diagram {
        Some(dg) => scope.devices.iter().map(|&i| &dg.placements[i]).collect(),
        None => vec![&none; devices.len()],
    };
    let data = Data {
        cluster: &f.name,
        devices: device_rows(&devices, &placements),
        cables,
        switches,
        ports,
        sheets: sheets.sheets,
        sheet_mode: if sheets.has_racks { "rack" } else { "switch" },
        rows_per_page: ROWS_PER_PAGE,
        auto_sheet_rows: AUTO_SHEET_ROWS,
        bom: Table {
            columns: bom.map_or(&empty_cols, |b| &b.header),
            rows: &bom_rows,
        },
    };
    script_json(&data)
}

fn device_rows<'a>(devices: &[&'a Device], placements: &[&'a Placement]) -> Vec<DeviceRow<'a>> {
    devices
        .iter()
        .zip(placements)
        .map(|(d, p)| {
            (
                d.name.as_str(),
                d.role.as_str(),
                d.rack.as_deref().unwrap_or(""),
                d.model.as_str(),
                p.unit.as_str(),
                p.frame.as_str(),
                p.col.as_str(),
            )
        })
        .collect()
}

/// Every cable's row (device ends as page positions), and the page index of every cable id.
fn cable_rows<'a>(
    f: &'a Fabric,
    names: &'a LinkNames,
    scope: &Scope<'_>,
) -> (Vec<CableRow<'a>>, BTreeMap<&'a str, usize>) {
    let mut cable_index: BTreeMap<&str, usize> = BTreeMap::new();
    let device = |i| Scope::local(&scope.devices, i);
    let cables = scope
        .cables
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let l = f.link(i);
            cable_index.insert(l.cable_id.as_str(), k);
            (
                l.cable_id.as_str(),
                names.label[i].as_str(),
                device(f.device_id(&l.a)),
                names.a_port[i].as_str(),
                device(f.device_id(&l.b)),
                names.b_port[i].as_str(),
                l.speed.to_string(),
                names.build[i].media,
                names.build[i].length.clone(),
                l.network.as_str(),
                l.tier.as_str(),
                l.plane,
                l.rail,
                scope.diagram.map_or(0, |dg| dg.cable_bundle[i]),
                {
                    let b = &names.build[i];
                    (b.a_module, b.part, b.count, b.leg.as_str(), b.b_module)
                },
            )
        })
        .collect();
    (cables, cable_index)
}

/// Every switch's ports from its port map (`portmaps/<switch>.csv`), by device index.
fn port_rows<'a>(
    devices: &[&Device],
    portmaps: impl Iterator<Item = &'a (&'a str, Csv)>,
    cable_index: &BTreeMap<&str, usize>,
) -> BTreeMap<usize, Vec<PortRow<'a>>> {
    let by_name: BTreeMap<&str, usize> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let mut ports = BTreeMap::new();
    for (name, csv) in portmaps {
        let Some(&di) = by_name.get(name) else {
            continue;
        };
        let col = |n: &str| csv.header.iter().position(|h| h == n);
        let (Some(p), Some(c), Some(s), Some(id)) =
            (col("port"), col("cage"), col("speed"), col("cable_id"))
        else {
            continue;
        };
        let rows = csv
            .rows()
            .map(|r| {
                let get = |k: usize| r.get(k);
                let cable = cable_index
                    .get(get(id))
                    .map_or(-1, |&i| i64::try_from(i).unwrap_or(-1));
                (get(p), get(c), get(s), cable)
            })
            .collect();
        ports.insert(di, rows);
    }
    ports
}
