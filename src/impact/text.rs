//! The analysis as a text report: a ranked table, then each failure's detail. Names are the
//! fabric's checked identifiers; the command line still prints through the terminal escape.

use std::fmt::Write;

use super::{Analysis, Impact};

/// The ranked table and every failure's detail.
pub fn to_text(a: &Analysis) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "failure impact: {} ({} failures, worst first)",
        a.cluster,
        a.impacts.len()
    );
    let _ = writeln!(
        out,
        "{:>4}  {:<32} {:<14} {:>8} {:>11} {:>10}  worst ECMP left",
        "rank", "failure", "role", "cut off", "rails lost", "Gb/s down"
    );
    let _ = writeln!(
        out,
        "      (cut off, rails lost: compute nodes; appliances are named in each failure's detail)"
    );
    for (n, i) in a.impacts.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>4}  {:<32} {:<14} {:>8} {:>11} {:>10}  {}",
            n + 1,
            i.failure.name(),
            i.role.map_or(i.failure.kind(), |r| r.as_str()),
            i.data_cut_off(),
            i.rails_lost.len(),
            i.gbps_down,
            worst_ecmp(i)
        );
    }
    for i in &a.impacts {
        out.push('\n');
        detail(&mut out, i);
    }
    out
}

fn worst_ecmp(i: &Impact) -> String {
    i.worst_ecmp().map_or_else(
        || "-".to_string(),
        |c| format!("{} {}: {}/{}", c.switch, c.toward, c.after, c.before),
    )
}

fn detail(out: &mut String, i: &Impact) {
    let _ = writeln!(
        out,
        "{} ({}, {}): {} links down, {} Gb/s",
        i.failure.name(),
        i.role.map_or(i.failure.kind(), |r| r.as_str()),
        i.network.as_str(),
        i.links_down,
        i.gbps_down
    );
    if !i.isolated.is_empty() {
        let _ = writeln!(out, "  isolated leaves: {}", i.isolated.join(", "));
    }
    if let Some(n) = &i.nvlink {
        let after = n.per_gpu_gbytes_after.map_or(
            "unknown (switch chips per tray not in the sources)".to_string(),
            |a| format!("{a} GB/s"),
        );
        let _ = writeln!(
            out,
            "  NVLink domain {}: {} of {} GPUs lost; each remaining GPU {} GB/s -> {after}",
            n.domain, n.gpus_lost, n.gpus, n.per_gpu_gbytes
        );
    }
    for l in &i.losses {
        let g = &l.group;
        let _ = writeln!(
            out,
            "  lost {:<8} {:<12} {:<10} {:>8} of {:>8} Gb/s ({:.2}%)",
            g.network.as_str(),
            g.name,
            g.tier.as_str(),
            l.lost_gbps,
            l.capacity_gbps,
            l.percent
        );
    }
    for c in &i.ecmp {
        let _ = writeln!(
            out,
            "  ecmp {} toward {}: {} -> {}",
            c.switch, c.toward, c.before, c.after
        );
    }
    let nodes = |v: &[super::NodeLoss]| {
        v.iter()
            .map(|n| match n.rail {
                Some(r) => format!("{} rail{r}", n.node),
                None => format!("{} ({})", n.node, n.network.as_str()),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (what, v) in [("rails lost", &i.rails_lost), ("cut off", &i.cut_off)] {
        if !v.is_empty() {
            let _ = writeln!(out, "  {what} ({}): {}", v.len(), nodes(v));
        }
    }
    // Appliances are no compute nodes: named apart, counted in no node figure.
    for (what, cut) in [("appliances cut off", true), ("appliances degraded", false)] {
        let v: Vec<String> = i
            .appliances
            .iter()
            .filter(|a| a.cut_off == cut)
            .map(|a| format!("{} ({})", a.appliance, a.network.as_str()))
            .collect();
        if !v.is_empty() {
            let _ = writeln!(out, "  {what} ({}): {}", v.len(), v.join(", "));
        }
    }
    for b in &i.blocks {
        let _ = writeln!(
            out,
            "  block {}: {} of {} nodes degraded, {} cut off",
            b.block, b.degraded, b.nodes, b.cut_off
        );
    }
}
