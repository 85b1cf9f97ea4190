//! The page's overview, filled into the template: headline figures, switch and cable counts,
//! the design's figures, the compile's findings and what the diagram's aggregation means.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::artifacts::summary::{Summary, TenantSummary};
use crate::diag::{Diagnostics, Severity};
use crate::report::diagram::Mode;

#[derive(Serialize)]
pub struct KeyValue {
    key: String,
    value: String,
}

pub fn kv(key: &str, value: String) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value,
    }
}

#[derive(Serialize)]
pub struct Figure {
    label: &'static str,
    value: String,
}

pub fn figure(label: &'static str, value: String) -> Figure {
    Figure { label, value }
}

#[derive(Serialize)]
pub struct DiagnosticView {
    code: &'static str,
    severity: &'static str,
    message: String,
    help: Option<String>,
}

/// A row of the tenants table: every field the template reads is present, whatever the
/// tenant has (strict templates fail on an absent field rather than print nothing).
#[derive(Serialize)]
pub struct TenantRow<'a> {
    name: &'a str,
    id: u32,
    nodes: &'a str,
    gpus: u64,
    leaves: usize,
    l3vni: u32,
    route_target: &'a str,
    /// The InfiniBand partition key, empty on Ethernet.
    pkey: &'a str,
    /// The shared services the tenant reaches, comma-separated (empty when none).
    shared_services: String,
}

pub fn tenants(tenants: &[TenantSummary]) -> Vec<TenantRow<'_>> {
    tenants
        .iter()
        .map(|t| TenantRow {
            name: &t.name,
            id: t.id,
            nodes: &t.nodes,
            gpus: t.gpus,
            leaves: t.leaves,
            l3vni: t.l3vni,
            route_target: &t.route_target,
            pkey: t.pkey.as_deref().unwrap_or_default(),
            shared_services: t.shared_services.join(", "),
        })
        .collect()
}

/// `16,384`.
pub fn thousands(n: u64) -> String {
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

pub fn diagram_note(mode: Mode) -> &'static str {
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

/// The headline figures: GPUs, nodes, SUs, switches, cables and bisection bandwidth.
pub fn figures(summary: &Summary, cables: u64) -> Vec<Figure> {
    let figure = |label, value| Figure { label, value };
    vec![
        figure("GPUs", thousands(summary.gpus)),
        figure("nodes", thousands(summary.nodes)),
        figure("scalable units", summary.scalable_units.to_string()),
        figure("switches", thousands(summary.switches.values().sum())),
        figure("cables", thousands(cables)),
        figure("bisection", bandwidth(summary.bisection_gbps)),
    ]
}

/// A headline bandwidth, exact: Gb/s below a terabit, else Tb/s with the Gb/s left over as
/// decimals (`400 Gb/s`, `25.6 Tb/s`, `1,638.4 Tb/s`), never a figure truncated to zero.
pub fn bandwidth(gbps: u64) -> String {
    if gbps < 1000 {
        return format!("{} Gb/s", thousands(gbps));
    }
    let rest = format!("{:03}", gbps % 1000);
    let rest = rest.trim_end_matches('0');
    let sep = if rest.is_empty() { "" } else { "." };
    format!("{}{sep}{rest} Tb/s", thousands(gbps / 1000))
}

/// Every kind with a count, the count in thousands.
pub fn counts<K: AsRef<str>>(by_kind: &BTreeMap<K, u64>) -> Vec<KeyValue> {
    by_kind
        .iter()
        .filter(|(_, v)| **v > 0)
        .map(|(k, v)| kv(k.as_ref(), thousands(*v)))
        .collect()
}

/// The compute fabric's design: transport, layout and tiers, rails, planes, oversubscription
/// per tier and bisection bandwidth.
pub fn design(summary: &Summary) -> Vec<KeyValue> {
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
    if let Some(u) = &summary.scale_up {
        design.push(kv(
            "scale-up (NVLink)",
            format!(
                "{} domain(s) of {} GPUs ({}), {} GB/s per GPU",
                thousands(u.domains),
                u.gpus_per_domain,
                u.system,
                thousands(u64::from(u.nvlink_gbytes_per_gpu))
            ),
        ));
        design.push(kv(
            "scale-out (compute fabric)",
            format!("{} Gb/s per GPU", thousands(u.scale_out_gbps_per_gpu)),
        ));
    }
    design
}

pub fn diagnostics(diagnostics: &Diagnostics) -> Vec<DiagnosticView> {
    diagnostics
        .sorted()
        .into_iter()
        .map(|d| DiagnosticView {
            code: d.code.id,
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            },
            message: d.message.clone(),
            help: d.help.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The headline tile and the design table (which prints Gb/s) must agree: 400 Gb/s was
    /// shown as "0 Tb/s" and 25,600 Gb/s as "25 Tb/s" (an integer division).
    #[test]
    fn headline_bandwidth_is_exact() {
        assert_eq!(bandwidth(0), "0 Gb/s");
        assert_eq!(bandwidth(400), "400 Gb/s");
        assert_eq!(bandwidth(1000), "1 Tb/s");
        assert_eq!(bandwidth(25_600), "25.6 Tb/s");
        assert_eq!(bandwidth(1_638_400), "1,638.4 Tb/s");
        assert_eq!(bandwidth(12_345), "12.345 Tb/s");
    }

    /// The built-in example's report: its headline tile says the bisection the summary and
    /// the design table give (400 Gb/s), not "0 Tb/s".
    #[test]
    fn the_examples_headline_tile_is_the_summarys_bisection() {
        let src = crate::diag::SourceFile::new("lab-small.yaml", crate::LAB_SMALL);
        let c = crate::compile(&src);
        let design = c.design.as_ref().expect("compiles");
        let summary =
            crate::artifacts::summary::summarize_with(&design.fabric, &design.intents.tenants);
        assert_eq!(summary.bisection_gbps, 400);
        let files = c.report_outputs().expect("compiled").expect("report");
        let page = files
            .iter()
            .find(|f| f.path == "report.html")
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
            .expect("report.html");
        let tile = page
            .split("<div class=\"value\">")
            .filter_map(|s| s.split_once("</div><div class=\"label\">bisection"))
            .map(|(v, _)| v.replace("&#x2f;", "/"))
            .next()
            .expect("a bisection tile");
        assert_eq!(tile, "400 Gb/s");
    }
}
