//! The report split per pod: `report.html` as an index (summary, the fabric at pod level,
//! diagnostics, BOM, tenants and a table of the pods) and `report/<pod>.html` per pod (its
//! figures, racks, cabling, port maps and print sheets). A pod page shows only what is in its
//! pod and never a fabric-wide figure, so a change elsewhere leaves it byte for byte the same.

use std::collections::{BTreeMap, BTreeSet};

use minijinja::{Value, context};
use serde::Serialize;

use super::data::{self, PageSheets, Scope, Sheets};
use super::overview::{self, kv, thousands};
use super::{
    CSS, GENERATOR, JS_BOM, JS_CABLING, JS_CORE, JS_END, JS_SHEETS, ROWS_PER_PAGE, render,
};
use crate::artifacts::summary::Summary;
use crate::design::Design;
use crate::model::Role;
use crate::output::unit_digest;
use crate::report::diagram::pod_grid::{self, PodBox};
use crate::report::pods::{CENTRAL, Pods};
use crate::report::{Csv, LinkNames, racks};
use crate::topology::{DeviceId, Fabric, PerLink};

/// What one pod holds, counted.
struct Facts {
    nodes: u64,
    gpus: u64,
    switches: BTreeMap<&'static str, u64>,
    cables: BTreeMap<&'static str, u64>,
    racks: usize,
}

impl Facts {
    fn of(f: &Fabric, pods: &Pods, k: usize) -> Self {
        let mut switches = BTreeMap::new();
        let mut nodes = 0;
        let mut racks = BTreeSet::new();
        for &i in &pods.devices[k] {
            let d = f.device(i);
            if d.role == Role::Node {
                nodes += 1;
            } else if d.role.is_switch() {
                *switches.entry(d.role.as_str()).or_insert(0) += 1;
            }
            racks.extend(d.rack.as_deref());
        }
        let mut cables = BTreeMap::new();
        for &i in &pods.cables[k] {
            *cables.entry(f.link(i).tier.as_str()).or_insert(0) += 1;
        }
        Self {
            nodes,
            gpus: nodes * u64::from(f.sizing.gpus_per_node),
            switches,
            cables,
            racks: racks.len(),
        }
    }

    fn switch_total(&self) -> u64 {
        self.switches.values().sum()
    }

    fn cable_total(&self) -> u64 {
        self.cables.values().sum()
    }
}

/// A page's title: `Pod 3`, `Central`.
fn title(name: &str) -> String {
    match name.strip_prefix("pod") {
        Some(n) => format!("Pod {n}"),
        None => "Central".into(),
    }
}

/// A row of the index's pod table.
#[derive(Serialize)]
struct PodRow {
    href: String,
    workbook: String,
    title: String,
    span: String,
    gpus: String,
    nodes: String,
    switches: String,
    cables: String,
    racks: usize,
}

/// The headline of a pod page (the template's `summary.gpus` and `summary.nodes`).
#[derive(Serialize)]
struct Headline {
    gpus: u64,
    nodes: u64,
}

/// What every pod page is made from: the fabric, its cable names, the whole fabric's print
/// sheets and port maps.
pub struct PodPage<'a> {
    pub f: &'a Fabric,
    pub names: &'a LinkNames<'a>,
    pub pods: &'a Pods,
    pub sheets: Sheets,
    pub portmaps: &'a [(&'a str, Csv)],
}

/// A pod page ready to render, and the digest of everything it shows.
pub struct Prepared {
    pub inputs: [u8; 32],
    ctx: Value,
}

impl Prepared {
    pub fn render(self) -> Result<Vec<u8>, String> {
        render(self.ctx)
    }
}

impl<'a> PodPage<'a> {
    pub fn new(
        f: &'a Fabric,
        names: &'a LinkNames,
        pods: &'a Pods,
        portmaps: &'a [(&'a str, Csv)],
    ) -> Self {
        Self {
            f,
            names,
            pods,
            sheets: Sheets::of(f, names),
            portmaps,
        }
    }

    /// Pod `k`'s page: its data block, rack elevations and figures, digested.
    pub fn prepare(&self, k: usize) -> Result<Prepared, String> {
        let f = self.f;
        let own = &self.pods.devices[k];
        let cables = self.pods.cables[k].clone();
        let mut devices: BTreeSet<DeviceId> = own.iter().copied().collect();
        for &i in &cables {
            devices.insert(f.device_id(&f.link(i).a));
            devices.insert(f.device_id(&f.link(i).b));
        }
        let sheets = self.sheets.within(f, own, &cables);
        let has_racks = sheets.has_racks;
        let scope = Scope {
            devices: devices.into_iter().collect(),
            cables,
            ports_of: Some(own.iter().map(|&i| f.device(i).name.as_str()).collect()),
            diagram: None,
        };
        let data_json = data::json(f, self.names, &scope, sheets, None, self.portmaps)
            .map_err(|e| format!("the page's data does not serialize: {e}"))?;
        let rack_names: BTreeSet<&str> = own
            .iter()
            .filter_map(|&i| f.device(i).rack.as_deref())
            .collect();
        let rack_list = racks::racks_where(f, |r| rack_names.contains(r));
        let racks_html = racks::render(&rack_list);
        let x = Facts::of(f, self.pods, k);
        let span = &self.pods.spans[k];
        let pod_title = format!("{} ({span})", title(&self.pods.names[k]));
        let counts = format!("{:?} {:?} {}", x.switches, x.cables, x.gpus);
        let site = f.site.as_deref().unwrap_or_default();
        let inputs = unit_digest(&[
            f.name.as_bytes(),
            site.as_bytes(),
            pod_title.as_bytes(),
            counts.as_bytes(),
            racks_html.as_bytes(),
            data_json.as_bytes(),
        ]);
        let ctx = context! {
            page => "pod",
            pod_title => pod_title,
            pods => Value::from(Vec::<Value>::new()),
            cluster => &f.name,
            site => &f.site,
            generator => GENERATOR,
            summary => Headline { gpus: x.gpus, nodes: x.nodes },
            switch_total => thousands(x.switch_total()),
            cable_total => thousands(x.cable_total()),
            figures => vec![
                overview::figure("GPUs", thousands(x.gpus)),
                overview::figure("nodes", thousands(x.nodes)),
                overview::figure("switches", thousands(x.switch_total())),
                overview::figure("cables", thousands(x.cable_total())),
                overview::figure("racks", rack_list.len().to_string()),
            ],
            switches => overview::counts(&x.switches),
            cables => overview::counts(&x.cables),
            design => vec![kv("pod", span.clone()), kv("SUs per pod", self.pods.size.to_string())],
            diagnostics => Value::from(Vec::<Value>::new()),
            diagram_note => "",
            diagram_svg => "",
            has_racks => has_racks,
            rack_count => rack_list.len(),
            racks_html => Value::from_safe_string(racks_html),
            tenants => Value::from(Vec::<Value>::new()),
            sheet_unit => if has_racks { "rack" } else { "switch" },
            rows_per_page => ROWS_PER_PAGE,
            css => Value::from_safe_string(CSS.to_string()),
            js => Value::from_safe_string([JS_CORE, JS_CABLING, JS_SHEETS, JS_END].concat()),
            data_json => Value::from_safe_string(data_json),
        };
        Ok(Prepared { inputs, ctx })
    }
}

/// `report.html` as the index of the pod pages.
pub fn index_html(
    design: &Design,
    findings: &crate::diag::Diagnostics,
    pods: &Pods,
    summary: &Summary,
    bom: Option<&Csv>,
) -> Result<Vec<u8>, String> {
    let f = &design.fabric;
    let facts: Vec<Facts> = (0..pods.len()).map(|k| Facts::of(f, pods, k)).collect();
    let rows: Vec<PodRow> = facts
        .iter()
        .enumerate()
        .map(|(k, x)| {
            let name = &pods.names[k];
            PodRow {
                href: format!("report/{name}.html"),
                workbook: format!("workbooks/{name}.xlsx"),
                title: title(name),
                span: pods.spans[k].clone(),
                gpus: thousands(x.gpus),
                nodes: thousands(x.nodes),
                switches: thousands(x.switch_total()),
                cables: thousands(x.cable_total()),
                racks: x.racks,
            }
        })
        .collect();
    let boxes: Vec<PodBox> = rows
        .iter()
        .map(|r| PodBox {
            page: r.href.clone(),
            title: r.title.clone(),
            span: r.span.clone(),
            lines: if r.href.ends_with(&format!("/{CENTRAL}.html")) {
                [
                    format!("{} switches", r.switches),
                    format!("{} cables", r.cables),
                ]
            } else {
                [
                    format!("{} GPUs", r.gpus),
                    format!("{} sw · {} cables", r.switches, r.cables),
                ]
            },
        })
        .collect();
    let (pod_boxes, central) = match pods.names.last() {
        Some(n) if n == CENTRAL => (&boxes[..boxes.len() - 1], boxes.last()),
        _ => (&boxes[..], None),
    };
    let diagram_svg = pod_grid::render(pod_boxes, central);
    let empty = Scope {
        devices: Vec::new(),
        cables: Vec::new(),
        ports_of: Some(BTreeSet::new()),
        diagram: None,
    };
    let no_sheets = PageSheets {
        has_racks: false,
        sheets: Vec::new(),
    };
    let no_names = LinkNames {
        a_port: PerLink::default(),
        b_port: PerLink::default(),
        label: PerLink::default(),
        build: PerLink::default(),
    };
    let data_json = data::json(f, &no_names, &empty, no_sheets, bom, &[])
        .map_err(|e| format!("the page's data does not serialize: {e}"))?;
    let ctx = context! {
        page => "index",
        pod_title => "",
        pods => rows,
        diagram_note => format!(
            "One box per pod ({} SU(s) each: a spine group in a 3-tier fabric, a run of SUs in a 2-tier one){}; click a pod for its page: SUs, racks, cabling, port maps and print sheets.",
            pods.size,
            if central.is_some() { ", the cores and shared switches above" } else { "" }
        ),
        diagram_svg => Value::from_safe_string(diagram_svg),
        has_racks => false,
        rack_count => 0,
        racks_html => "",
        sheet_unit => "rack",
        js => Value::from_safe_string([JS_CORE, JS_BOM, JS_END].concat()),
        data_json => Value::from_safe_string(data_json),
        ..super::fabric(design, findings, summary)
    };
    render(ctx)
}
