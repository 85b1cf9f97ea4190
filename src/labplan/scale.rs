//! `--scale-down`: a lab of the same shape as the cluster, small enough for one machine.
//!
//! Input: the fabric graph and the intents. Output: [`Selection`], the names of the devices the
//! lab boots, and a [`ScaleReport`] saying what was kept, dropped, and why. Pure.
//!
//! Rules, so the lab still exercises every part of the design:
//! - one node per scalable unit (its first), plus the first and last node of every tenant and of
//!   the nodes in no tenant, so every tenant has a pair to test when it has two nodes;
//! - every leaf a kept node is cabled to, so each kept node keeps every rail;
//! - for each kept device, at least two of its upstream neighbours (leaf → spine → core), so
//!   every tier stays and ECMP stays wider than one path;
//! - at least two devices of each switch role the cluster has two of;
//! - every cable between two kept devices (parallel links included: their count is the ECMP
//!   width the verify step expects).
//!
//! Without `--scale-down` every GPU node and every configured switch is kept. Devices the lab
//! never models (OOB switches, InfiniBand switches without a config, appliances) are listed as
//! such either way.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::intent::Intents;
use crate::model::{Role, Tier};
use crate::topology::Fabric;

/// The devices the lab boots.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub keep: BTreeSet<String>,
    pub report: ScaleReport,
}

/// What the lab kept of the cluster, and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScaleReport {
    pub scaled: bool,
    /// Role → kept devices (sorted).
    pub kept: BTreeMap<String, Vec<String>>,
    /// Role → dropped devices (sorted).
    pub dropped: BTreeMap<String, Vec<String>>,
    /// Why each sampled node was kept.
    pub sampled: Vec<String>,
    /// Parts of the cluster the lab does not model at all, with the reason.
    pub not_modelled: Vec<String>,
}

/// The switch one tier up from `role`, for the upstream rule.
fn upper(role: Role) -> Option<Role> {
    match role {
        Role::Leaf => Some(Role::Spine),
        Role::Spine => Some(Role::Core),
        Role::StorageLeaf => Some(Role::StorageSpine),
        Role::StorageSpine => Some(Role::StorageCore),
        Role::InbandLeaf => Some(Role::InbandSpine),
        Role::InbandSpine => Some(Role::InbandCore),
        _ => None,
    }
}

/// Choose the devices of the lab.
pub fn select(f: &Fabric, intents: &Intents, scale_down: bool) -> Selection {
    let role_of: BTreeMap<&str, Role> = f.devices().map(|d| (d.name.as_str(), d.role)).collect();
    // Lab devices: GPU nodes and the switches railyard rendered a config for.
    let lab: BTreeSet<&str> = f
        .devices()
        .filter(|d| {
            d.role == Role::Node || (intents.devices.contains_key(&d.name) && !d.role.is_oob())
        })
        .map(|d| d.name.as_str())
        .collect();
    let mut not_modelled: BTreeMap<&'static str, usize> = BTreeMap::new();
    for d in f.devices().filter(|d| !lab.contains(d.name.as_str())) {
        let why = match d.role {
            Role::OobLeaf | Role::OobCore | Role::OobGateway => {
                "OOB management switches (the lab does not model the management network: its VLAN trunks need 802.1Q)"
            }
            Role::Appliance => "appliances (no host plan)",
            _ => "switches without a rendered FRR config (InfiniBand)",
        };
        *not_modelled.entry(why).or_default() += 1;
    }
    let mut adj: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for l in f.links().filter(|l| l.tier != Tier::Mgmt) {
        let (a, b) = (
            f.device_of(&l.a).name.as_str(),
            f.device_of(&l.b).name.as_str(),
        );
        if lab.contains(a) && lab.contains(b) {
            adj.entry(a).or_default().insert(b);
            adj.entry(b).or_default().insert(a);
        }
    }
    let mut keep: BTreeSet<&str> = BTreeSet::new();
    let mut sampled = Vec::new();
    if scale_down {
        sample_nodes(f, intents, &mut keep, &mut sampled);
        let kept_nodes: Vec<&str> = keep.iter().copied().collect();
        for n in kept_nodes {
            keep.extend(adj.get(n).into_iter().flatten().copied());
        }
        for role in [Role::Leaf, Role::StorageLeaf, Role::InbandLeaf] {
            at_least_two(role, &lab, &role_of, &adj, &mut keep);
        }
        for lower in [
            Role::Leaf,
            Role::StorageLeaf,
            Role::InbandLeaf,
            Role::Spine,
            Role::StorageSpine,
            Role::InbandSpine,
        ] {
            let Some(up) = upper(lower) else { continue };
            let lowers: Vec<&str> = keep
                .iter()
                .copied()
                .filter(|n| role_of.get(n) == Some(&lower))
                .collect();
            for d in lowers {
                let ups: Vec<&str> = adj
                    .get(d)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|n| role_of.get(n) == Some(&up))
                    .collect();
                for u in &ups {
                    if ups.iter().filter(|x| keep.contains(*x)).count() >= 2 {
                        break;
                    }
                    keep.insert(u);
                }
            }
            at_least_two(up, &lab, &role_of, &adj, &mut keep);
        }
    } else {
        keep = lab.clone();
    }
    let mut kept: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut dropped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for n in &lab {
        let role = role_of.get(n).map_or("device", |r| r.as_str()).to_string();
        let bucket = if keep.contains(n) {
            &mut kept
        } else {
            &mut dropped
        };
        bucket.entry(role).or_default().push((*n).to_string());
    }
    Selection {
        keep: keep.iter().map(|s| (*s).to_string()).collect(),
        report: ScaleReport {
            scaled: scale_down,
            kept,
            dropped,
            sampled,
            not_modelled: not_modelled
                .into_iter()
                .map(|(why, n)| format!("{n} {why}"))
                .collect(),
        },
    }
}

/// The sampled GPU nodes: first of each SU, first and last of each tenant and of the rest.
fn sample_nodes<'a>(
    f: &'a Fabric,
    intents: &'a Intents,
    keep: &mut BTreeSet<&'a str>,
    why: &mut Vec<String>,
) {
    let mut nodes: Vec<(&str, u32, u32)> = f
        .devices()
        .filter(|d| d.role == Role::Node)
        .map(|d| (d.name.as_str(), d.su.unwrap_or(1), d.index))
        .collect();
    nodes.sort_by_key(|&(name, su, index)| (su, index, name));
    let mut seen_su = BTreeSet::new();
    for (name, su, _) in &nodes {
        if seen_su.insert(*su) {
            keep.insert(name);
            why.push(format!("{name}: first node of SU {su}"));
        }
    }
    let plan = &intents.tenants;
    if plan.tenants.is_empty() {
        return;
    }
    let owner = plan.tenant_of_node();
    let mut groups: Vec<(String, Vec<&str>)> = plan
        .tenants
        .iter()
        .map(|t| {
            let mut members: Vec<&str> = t.nodes.iter().map(String::as_str).collect();
            members.sort_by_key(|n| position(&nodes, n));
            (format!("tenant `{}`", t.name), members)
        })
        .collect();
    let rest: Vec<&str> = nodes
        .iter()
        .map(|(n, _, _)| *n)
        .filter(|n| !owner.contains_key(n))
        .collect();
    groups.push(("no tenant".to_string(), rest));
    for (group, members) in groups {
        for n in [members.first(), members.last()].into_iter().flatten() {
            if keep.insert(n) {
                why.push(format!("{n}: first/last node of {group}"));
            }
        }
    }
}

fn position(nodes: &[(&str, u32, u32)], name: &str) -> usize {
    nodes
        .iter()
        .position(|(n, _, _)| *n == name)
        .unwrap_or(usize::MAX)
}

/// Keep at least two devices of `role` (when the cluster has two), preferring ones cabled to
/// devices already kept.
fn at_least_two<'a>(
    role: Role,
    lab: &BTreeSet<&'a str>,
    role_of: &BTreeMap<&str, Role>,
    adj: &BTreeMap<&str, BTreeSet<&'a str>>,
    keep: &mut BTreeSet<&'a str>,
) {
    let of_role: Vec<&'a str> = lab
        .iter()
        .copied()
        .filter(|n| role_of.get(n) == Some(&role))
        .collect();
    let mut missing = 2usize.saturating_sub(of_role.iter().filter(|n| keep.contains(*n)).count());
    let mut candidates: Vec<(bool, &'a str)> = of_role
        .iter()
        .filter(|n| !keep.contains(*n))
        .map(|n| {
            let attached = adj
                .get(n)
                .is_some_and(|s| s.iter().any(|x| keep.contains(x)));
            (!attached, *n)
        })
        .collect();
    candidates.sort();
    for (_, n) in candidates {
        if missing == 0 {
            break;
        }
        keep.insert(n);
        missing -= 1;
    }
}

impl ScaleReport {
    /// One line per role (`kept 2 of 8 spine (dropped spine03 … spine08)`), then the sampling
    /// and what the lab does not model.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let roles: BTreeSet<&String> = self.kept.keys().chain(self.dropped.keys()).collect();
        for role in roles {
            let k = self.kept.get(role).map_or(0, Vec::len);
            let d = self.dropped.get(role).map(Vec::as_slice).unwrap_or(&[]);
            let mut line = format!("kept {k} of {} {role}", k + d.len());
            if !d.is_empty() {
                line.push_str(&format!(" (dropped {})", abbreviate(d)));
            }
            out.push(line);
        }
        if self.scaled {
            out.extend(self.sampled.iter().map(|s| format!("sampled {s}")));
        }
        out.extend(
            self.not_modelled
                .iter()
                .map(|s| format!("not modelled: {s}")),
        );
        out
    }
}

/// `a, b, c` for short lists, `a, b … z (N)` for long ones.
fn abbreviate(names: &[String]) -> String {
    match names {
        [] => String::new(),
        _ if names.len() <= 4 => names.join(", "),
        [first, second, .., last] => format!("{first}, {second} … {last}: {}", names.len()),
        _ => names.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use crate::model::Platform;

    fn compiled(path: &str) -> crate::Compiled {
        let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_or_default();
        crate::compile_for_platform(&SourceFile::new(path, text), Platform::Frr)
    }

    #[test]
    fn spectrum_x_keeps_every_rail_and_two_spines() {
        let c = compiled("inventories/spectrum-x-cloud.yaml");
        let Some((f, i)) = c.design.as_ref().map(|d| (&d.fabric, &d.intents)) else {
            panic!("spectrum-x did not compile");
        };
        let s = select(f, i, true);
        let r = &s.report;
        assert_eq!(r.kept["node"], ["gpu001", "gpu033", "gpu065"]);
        assert_eq!(
            r.kept["leaf"].len(),
            12,
            "every rail of every SU: {:?}",
            r.kept
        );
        assert_eq!(r.kept["spine"], ["spine01", "spine02"]);
        assert_eq!(r.dropped["spine"].len(), 6);
        assert!(r.kept["storage-leaf"].len() >= 2);
        assert!(r.lines().iter().any(|l| l.starts_with("kept 2 of 8 spine")));
        assert!(
            r.not_modelled.iter().any(|l| l.contains("OOB")),
            "{:?}",
            r.not_modelled
        );
    }

    #[test]
    fn without_scale_down_everything_is_kept() {
        let c = compiled("inventories/lab-small.yaml");
        let Some((f, i)) = c.design.as_ref().map(|d| (&d.fabric, &d.intents)) else {
            panic!("lab-small did not compile");
        };
        let s = select(f, i, false);
        assert!(s.report.dropped.is_empty());
        assert_eq!(s.report.kept["node"].len(), 4);
        assert_eq!(s.report.kept["spine"].len(), 2);
    }

    #[test]
    fn tenants_keep_a_pair_each_when_they_have_one() {
        let c = compiled("inventories/mdx-research-cloud.yaml");
        let Some((f, i)) = c.design.as_ref().map(|d| (&d.fabric, &d.intents)) else {
            panic!("mdx did not compile");
        };
        let s = select(f, i, true);
        for t in &i.tenants.tenants {
            let kept = t.nodes.iter().filter(|n| s.keep.contains(*n)).count();
            assert!(kept >= 2.min(t.nodes.len()), "{}: {kept}", t.name);
        }
    }
}
