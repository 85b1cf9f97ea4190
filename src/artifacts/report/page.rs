//! `report.html`: the page skeleton is a minijinja template (`templates/report/`, auto-escaped);
//! the diagram and rack elevations come from the escaping writer; the tables' data is one JSON
//! block that the page's script renders.

use std::collections::BTreeMap;

use minijinja::{AutoEscape, Environment, Value, context};
use serde::Serialize;

use super::diagram::{self, Mode};
use super::markup::script_json;
use super::{Csv, LinkNames, length_text, racks, sheet_locations};
use crate::artifacts::Inputs;
use crate::artifacts::summary::Summary;
use crate::diag::Severity;

const TEMPLATE: &str = include_str!("../../../templates/report/report.html.j2");
const CSS: &str = include_str!("../../../templates/report/report.css");
const JS: &str = include_str!("../../../templates/report/report.js");

/// Cables a printed sheet holds (A4 landscape at the sheet's font size).
pub const ROWS_PER_PAGE: usize = 30;
/// Up to this many sheet rows the page lays out every sheet on load; beyond, the user picks.
const AUTO_SHEET_ROWS: usize = 4000;

/// A cable as the page's script reads it: id, label, a device, a port, b device, b port,
/// speed, media, length, network, tier, plane, rail, bundle.
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
    /// Per switch (device index): every port as (port, cage, speed, cable index or -1).
    ports: BTreeMap<usize, Vec<(&'a str, &'a str, &'a str, i64)>>,
    sheets: Vec<(String, Vec<usize>)>,
    sheet_mode: &'static str,
    rows_per_page: usize,
    auto_sheet_rows: usize,
    bom: Table<'a>,
}

#[derive(Serialize)]
struct KeyValue {
    key: String,
    value: String,
}

#[derive(Serialize)]
struct Figure {
    label: &'static str,
    value: String,
}

#[derive(Serialize)]
struct DiagnosticView {
    code: &'static str,
    severity: &'static str,
    message: String,
    help: Option<String>,
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn diagram_note(mode: Mode) -> &'static str {
    match mode {
        Mode::Detail => {
            "Every switch is drawn; nodes are grouped per SU. Node-to-leaf bundles are coloured by rail, the others by network; leaf-to-spine and spine-to-core cables are bundled per SU block and spine group."
        }
        Mode::PerSu => {
            "Aggregated per SU: each box stands for an SU's leaves, a spine group or a core group (the subtitle gives the switch count). Bundles carry the cable count; click one for its cables."
        }
        Mode::PerPod => {
            "Aggregated per pod (a spine group and its SUs): each box stands for many switches (the subtitle gives the count). Bundles carry the cable count; click one for its cables."
        }
    }
}

pub fn report_html(
    inputs: &Inputs<'_>,
    names: &LinkNames,
    summary: &Summary,
    bom: Option<&Csv>,
    portmaps: &[(&str, Csv)],
) -> Vec<u8> {
    let f = inputs.fabric;
    let dg = diagram::build(f);
    let devices: Vec<_> = f.devices().collect();
    let device_rows: Vec<DeviceRow<'_>> = devices
        .iter()
        .zip(&dg.placements)
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
        .collect();
    let mut cable_index: BTreeMap<&str, usize> = BTreeMap::new();
    let cables: Vec<CableRow<'_>> = f
        .links()
        .enumerate()
        .map(|(i, l)| {
            cable_index.insert(l.cable_id.as_str(), i);
            (
                l.cable_id.as_str(),
                names.label[i].as_str(),
                f.device_position(&l.a),
                names.a_port[i].as_str(),
                f.device_position(&l.b),
                names.b_port[i].as_str(),
                l.speed.to_string(),
                l.media.as_str(),
                length_text(l.length_m),
                l.network.as_str(),
                l.tier.as_str(),
                l.plane,
                l.rail,
                dg.cable_bundle[i],
            )
        })
        .collect();
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
    let mut switches: Vec<usize> = ports.keys().copied().collect();
    switches.sort_by_key(|&i| super::natural_key(&devices[i].name));
    let (has_racks, sheets) = sheet_locations(f, names);
    let empty_cols: Vec<String> = Vec::new();
    let bom_rows: Vec<Vec<&str>> =
        bom.map_or_else(Vec::new, |b| b.rows().map(|r| r.iter().collect()).collect());
    let data = Data {
        cluster: &f.name,
        devices: device_rows,
        cables,
        switches,
        ports,
        sheets,
        sheet_mode: if has_racks { "rack" } else { "switch" },
        rows_per_page: ROWS_PER_PAGE,
        auto_sheet_rows: AUTO_SHEET_ROWS,
        bom: Table {
            columns: bom.map_or(&empty_cols, |b| &b.header),
            rows: &bom_rows,
        },
    };
    let data_json = script_json(&data);
    drop(data);

    let rack_list = racks::racks(f);
    let racks_html = racks::render(&rack_list);
    let diagram_svg = diagram::svg::render(&dg);

    let figures = vec![
        Figure {
            label: "GPUs",
            value: thousands(summary.gpus),
        },
        Figure {
            label: "nodes",
            value: thousands(summary.nodes),
        },
        Figure {
            label: "scalable units",
            value: summary.scalable_units.to_string(),
        },
        Figure {
            label: "switches",
            value: thousands(summary.switches.values().sum()),
        },
        Figure {
            label: "cables",
            value: thousands(f.link_count() as u64),
        },
        Figure {
            label: "bisection",
            value: format!("{} Tb/s", thousands(summary.bisection_gbps / 1000)),
        },
    ];
    let kv = |k: &str, v: String| KeyValue {
        key: k.to_string(),
        value: v,
    };
    let switches: Vec<KeyValue> = summary
        .switches
        .iter()
        .filter(|(_, v)| **v > 0)
        .map(|(k, v)| kv(k, thousands(*v)))
        .collect();
    let cables: Vec<KeyValue> = summary
        .links
        .iter()
        .filter(|(_, v)| **v > 0)
        .map(|(k, v)| kv(k, thousands(*v)))
        .collect();
    let mut design = vec![
        kv(
            "compute fabric",
            format!(
                "{} {}, {}-tier",
                summary.transport, summary.layout, summary.tiers
            ),
        ),
        kv("rails", summary.rails.to_string()),
        kv("planes", summary.planes.to_string()),
    ];
    for (k, v) in &summary.oversubscription {
        design.push(kv(&format!("oversubscription ({k})"), v.clone()));
    }
    design.push(kv(
        "bisection",
        format!("{} Gb/s", thousands(summary.bisection_gbps)),
    ));
    let diagnostics: Vec<DiagnosticView> = inputs
        .diagnostics
        .sorted()
        .into_iter()
        .map(|d| DiagnosticView {
            code: d.code.id,
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            message: d.message.clone(),
            help: d.help.clone(),
        })
        .collect();

    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    if env.add_template("report.html", TEMPLATE).is_err() {
        return Vec::new();
    }
    let ctx = context! {
        cluster => &f.name,
        site => &f.site,
        generator => concat!("railyard ", env!("CARGO_PKG_VERSION")),
        summary => summary,
        switch_total => thousands(summary.switches.values().sum()),
        cable_total => thousands(f.link_count() as u64),
        figures => figures,
        switches => switches,
        cables => cables,
        design => design,
        diagnostics => diagnostics,
        diagram_note => diagram_note(dg.mode),
        diagram_svg => Value::from_safe_string(diagram_svg),
        has_racks => has_racks,
        rack_count => rack_list.len(),
        racks_html => Value::from_safe_string(racks_html),
        tenants => &summary.tenants,
        sheet_unit => if has_racks { "rack" } else { "switch" },
        rows_per_page => ROWS_PER_PAGE,
        css => Value::from_safe_string(CSS.to_string()),
        js => Value::from_safe_string(JS.to_string()),
        data_json => Value::from_safe_string(data_json),
    };
    env.get_template("report.html")
        .and_then(|t| t.render(ctx))
        .map(String::into_bytes)
        .unwrap_or_default()
}
