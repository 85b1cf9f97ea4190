//! The report's "failure domains" section: `impact::analyse` over every switch of the fabric
//! (the typed result `railyard impact` prints), shown as the worst single failures ranked by
//! blast radius and a summary per switch role. Values go to the template as plain strings, so
//! the page's auto-escaping is the one escape of every name (no `|safe`).
//!
//! Every switch is analysed, OOB switches included (the per-role summary answers "an OOB switch
//! down" too; they rank last, cutting no node off a data network), up to [`EVERY_SWITCH_UP_TO`]
//! switches. One failure costs a walk over the links of every switch it touches (a core touches
//! every spine below it), so the whole set grows faster than the fabric; measured in a debug
//! build, `railyard impact` over every switch took about 3 s of CPU at 16k GPUs (723 switches)
//! and about 64 s at 131k (6,052). Above the cap one switch per role, network and SU (or spine
//! group) stands for its siblings: a rail-optimized SU's leaves of one role are alike (the same
//! links to the same spines, one rail each), as are a spine group's spines; switches of no SU or
//! group (cores, shared switches) are all analysed. The section says how many were analysed.

use std::collections::BTreeSet;

use serde::Serialize;

use super::overview::thousands;
use crate::design::Design;
use crate::impact::{self, Failure, Impact};
use crate::output::natural;
use crate::topology::Device;

/// Fabrics with at most this many switches have every switch analysed (every example and the
/// 16k bench fabric); larger ones one per role, network and SU or spine group.
const EVERY_SWITCH_UP_TO: usize = 1024;

/// Failures listed in the ranking: enough to show every role's worst case on the reference
/// fabrics, few enough to read.
const TOP: usize = 20;
/// Bandwidth-loss groups and scheduler blocks shown per failure (the largest first).
const GROUPS_SHOWN: usize = 6;
const BLOCKS_SHOWN: usize = 4;

/// The section's values.
#[derive(Serialize)]
pub struct Section {
    /// Switches analysed.
    pub analysed: String,
    /// The fabric's switches, when only representatives were analysed.
    pub of: Option<String>,
    pub rows: Vec<Row>,
    pub roles: Vec<RoleRow>,
}

/// One failure of the ranking.
#[derive(Serialize)]
pub struct Row {
    pub rank: usize,
    pub switch: String,
    pub role: &'static str,
    pub network: &'static str,
    pub cut_off: String,
    /// Appliances cut off (`ufm01 (compute)`), named apart from the nodes; empty when none.
    pub appliances: String,
    pub rails_lost: String,
    pub gbps_down: String,
    /// `compute su02 node-leaf: 12,800 of 102,400 Gb/s (12.50%)`, the largest shares first.
    pub losses: Vec<String>,
    pub more_losses: usize,
    /// The narrowest ECMP group left (`leaf01 up: 15/16`), and how many groups narrowed or are
    /// gone (a spine's group toward the failed leaf).
    pub ecmp: String,
    pub ecmp_changed: usize,
    /// `su02: 32 of 32 nodes degraded, 0 cut off`.
    pub blocks: Vec<String>,
    pub more_blocks: usize,
}

/// One switch role: how many, the worst and a typical failure.
#[derive(Serialize)]
pub struct RoleRow {
    pub role: &'static str,
    pub count: String,
    pub worst: String,
    pub worst_effect: String,
    pub typical: String,
    pub typical_effect: String,
}

/// The section for the whole fabric, `None` for a fabric without switches.
pub fn section(design: &Design) -> Option<Section> {
    let f = &design.fabric;
    let switches: Vec<&Device> = f.devices().filter(|d| d.role.is_switch()).collect();
    if switches.is_empty() {
        return None;
    }
    let capped = switches.len() > EVERY_SWITCH_UP_TO;
    let failures = representatives(&switches, capped);
    let a = impact::analyse(design, None, &failures);
    let roles = impact::by_role(&a)
        .into_iter()
        .map(|r| RoleRow {
            role: r.role.as_str(),
            count: thousands(r.count as u64),
            worst: r.worst.failure.name().to_string(),
            worst_effect: effect(r.worst),
            typical: r.typical.failure.name().to_string(),
            typical_effect: effect(r.typical),
        })
        .collect();
    Some(Section {
        analysed: thousands(a.impacts.len() as u64),
        of: capped.then(|| thousands(switches.len() as u64)),
        rows: a
            .impacts
            .iter()
            .take(TOP)
            .enumerate()
            .map(|(k, i)| row(k + 1, i))
            .collect(),
        roles,
    })
}

/// Every switch, or (`capped`) the first by name of each role, network and SU or spine group,
/// and every switch of neither.
fn representatives(switches: &[&Device], capped: bool) -> Vec<Failure> {
    let mut seen = BTreeSet::new();
    let mut sorted: Vec<&Device> = switches.to_vec();
    sorted.sort_by(|a, b| natural::cmp(&a.name, &b.name));
    sorted
        .into_iter()
        .filter(|d| {
            !capped
                || (d.su.is_none() && d.group.is_none())
                || seen.insert((d.role, d.network, d.su, d.group))
        })
        .map(|d| Failure::Switch(d.name.clone()))
        .collect()
}

fn row(rank: usize, i: &Impact) -> Row {
    let mut losses: Vec<&impact::Loss> = i.losses.iter().collect();
    losses.sort_by(|a, b| b.percent.total_cmp(&a.percent));
    let blocks: Vec<String> = i
        .blocks
        .iter()
        .take(BLOCKS_SHOWN)
        .map(|b| {
            format!(
                "{}: {} of {} nodes degraded, {} cut off",
                b.block, b.degraded, b.nodes, b.cut_off
            )
        })
        .collect();
    Row {
        rank,
        switch: i.failure.name().to_string(),
        role: i.role.map_or("cable", |r| r.as_str()),
        network: i.network.as_str(),
        cut_off: thousands(i.data_cut_off() as u64),
        appliances: i.appliances_cut_off().join(", "),
        rails_lost: thousands(i.rails_lost.len() as u64),
        gbps_down: thousands(i.gbps_down),
        more_losses: losses.len().saturating_sub(GROUPS_SHOWN),
        losses: losses
            .into_iter()
            .take(GROUPS_SHOWN)
            .map(|l| {
                let g = &l.group;
                format!(
                    "{} {} {}: {} of {} Gb/s ({:.2}%)",
                    g.network.as_str(),
                    g.name,
                    g.tier.as_str(),
                    thousands(l.lost_gbps),
                    thousands(l.capacity_gbps),
                    l.percent
                )
            })
            .collect(),
        ecmp: ecmp(i),
        ecmp_changed: i.ecmp.iter().filter(|c| c.after < c.before).count(),
        more_blocks: i.blocks.len().saturating_sub(blocks.len()),
        blocks,
    }
}

/// `leaf01 up: 15/16 links`, or `-` when no switch's ECMP group narrowed.
fn ecmp(i: &Impact) -> String {
    i.worst_ecmp().map_or_else(
        || "-".to_string(),
        |c| format!("{} {}: {}/{} links", c.switch, c.toward, c.after, c.before),
    )
}

/// One failure in a sentence: `0 nodes cut off, 32 lose a rail, 25,600 Gb/s down, ECMP left
/// leaf01 up: 15/16 links`.
fn effect(i: &Impact) -> String {
    let appliances = i.appliances_cut_off();
    format!(
        "{} nodes cut off{}, {} lose a rail, {} Gb/s down, narrowest ECMP left {}",
        thousands(i.data_cut_off() as u64),
        if appliances.is_empty() {
            String::new()
        } else {
            format!(" (and appliances {})", appliances.join(", "))
        },
        thousands(i.rails_lost.len() as u64),
        thousands(i.gbps_down),
        ecmp(i)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names reach the section as plain strings and the page's auto-escaping is their one
    /// escape: a name the spec grammar would refuse still cannot open an element or attribute.
    #[test]
    fn hostile_names_are_escaped_in_the_section() {
        let hostile = "<script>alert(1)</script>\"'&";
        let section = Section {
            analysed: "1".into(),
            of: None,
            rows: vec![Row {
                rank: 1,
                switch: hostile.into(),
                role: "leaf",
                network: "compute",
                cut_off: "0".into(),
                appliances: hostile.into(),
                rails_lost: "0".into(),
                gbps_down: "0".into(),
                losses: vec![format!("compute {hostile} node-leaf: 1 of 2 Gb/s (50.00%)")],
                more_losses: 0,
                ecmp: hostile.into(),
                ecmp_changed: 1,
                blocks: vec![hostile.into()],
                more_blocks: 0,
            }],
            roles: vec![RoleRow {
                role: "leaf",
                count: "1".into(),
                worst: hostile.into(),
                worst_effect: hostile.into(),
                typical: hostile.into(),
                typical_effect: hostile.into(),
            }],
        };
        let html = super::super::render_template(
            "failure_domains.html",
            minijinja::context! { failure_domains => section },
        )
        .expect("render");
        let html = String::from_utf8(html).expect("utf-8");
        assert!(!html.contains("<script>"), "{html}");
        assert!(!html.contains("\"'"), "{html}");
        assert_eq!(
            html.matches("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;&quot;&#x27;&amp;")
                .count(),
            9,
            "{html}"
        );
    }
}
