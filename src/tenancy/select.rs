//! Node selection: explicit SUs, node ranges or names; GPU counts placed on whole free nodes,
//! preferring one SU that holds the whole tenant (SU-compact: its traffic stays under the SU's
//! rail leaves), else filling SUs in order.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::spec::TenantSpec;

/// A node position as tenancy sees it.
#[derive(Clone, Debug)]
pub struct NodeRef {
    pub name: String,
    pub su: u32,
    /// Global node number (1-based): (su-1)·nodes_per_su + slot.
    pub number: u32,
}

/// Resolve every tenant's selection. Explicit selections first, then GPU counts in id order, so
/// a tenant with a lower id is never moved by one with a higher id.
pub fn resolve(
    tenants: &[&TenantSpec],
    nodes: &[NodeRef],
    gpus_per_node: u32,
    diags: &mut Diagnostics,
) -> BTreeMap<u32, Vec<String>> {
    let by_name: BTreeMap<&str, &NodeRef> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let by_number: BTreeMap<u32, &NodeRef> = nodes.iter().map(|n| (n.number, n)).collect();
    let sus: BTreeSet<u32> = nodes.iter().map(|n| n.su).collect();
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    let bad = |t: &TenantSpec, span, msg: String, help: &str| {
        Diagnostic::error(
            codes::TENANT_SELECTION,
            format!("tenant `{}`: {msg}", t.name.value),
        )
        .at(span, "selection")
        .help(help.to_string())
    };
    fn claim(
        t: &TenantSpec,
        picked: Vec<String>,
        taken: &mut BTreeMap<String, String>,
        out: &mut BTreeMap<u32, Vec<String>>,
        diags: &mut Diagnostics,
    ) {
        // One diagnostic per tenant already holding some of these nodes, naming them all: one
        // overlapping range is one mistake, not one per node.
        let mut clashes: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for n in &picked {
            if let Some(other) = taken.insert(n.clone(), t.name.value.clone()) {
                clashes.entry(other).or_default().push(n);
            }
        }
        for (other, names) in clashes {
            let what = match names.as_slice() {
                [one] => format!("node `{one}` is"),
                [first, .., last] if names.len() > 3 => {
                    format!("{} nodes (`{first}` … `{last}`) are", names.len())
                }
                _ => format!(
                    "nodes {} are",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            diags.push(
                Diagnostic::error(
                    codes::TENANT_OVERLAP,
                    format!(
                        "{what} in tenant `{other}` and in tenant `{}`",
                        t.name.value
                    ),
                )
                .at(t.name.span, "second claim")
                .help(format!(
                    "a node's ports belong to one tenant; remove {} from one selection",
                    if names.len() == 1 { "it" } else { "them" }
                )),
            );
        }
        out.insert(t.id.value, picked);
    }
    let mut deferred = Vec::new();
    for t in tenants {
        let s = &t.nodes;
        let keys = [
            s.sus.is_some(),
            s.range.is_some(),
            s.names.is_some(),
            s.gpus.is_some(),
        ];
        if keys.iter().filter(|k| **k).count() != 1 {
            diags.push(bad(
                t,
                t.name.span,
                "`nodes` needs exactly one of `sus`, `range`, `names`, `gpus`".into(),
                "e.g. `nodes: {sus: [1]}` or `nodes: {gpus: 128}`",
            ));
            continue;
        }
        let picked: Vec<String> = if let Some(v) = &s.sus {
            let missing: Vec<u32> = v
                .value
                .iter()
                .filter(|x| !sus.contains(x))
                .copied()
                .collect();
            if !missing.is_empty() {
                diags.push(bad(
                    t,
                    v.span,
                    format!("SU(s) {missing:?} do not exist or hold no nodes"),
                    "SUs are numbered from 1 to `scalable_units.count`",
                ));
                continue;
            }
            nodes
                .iter()
                .filter(|n| v.value.contains(&n.su))
                .map(|n| n.name.clone())
                .collect()
        } else if let Some(v) = &s.range {
            let [lo, hi] = v.value[..] else {
                diags.push(bad(
                    t,
                    v.span,
                    "`range` takes two node numbers `[first, last]`".into(),
                    "e.g. `range: [1, 16]`",
                ));
                continue;
            };
            // Checked before the lookup: a backwards range is a mistake of its own (and
            // `BTreeMap::range` panics on one; found by the `spec` fuzz target).
            if lo > hi {
                diags.push(bad(
                    t,
                    v.span,
                    format!("range [{lo}, {hi}] runs backwards"),
                    "write the first node number first: `range: [first, last]`",
                ));
                continue;
            }
            let inside: Vec<String> = by_number
                .range(lo..=hi)
                .map(|(_, n)| n.name.clone())
                .collect();
            if inside.is_empty() {
                diags.push(bad(
                    t,
                    v.span,
                    format!("range [{lo}, {hi}] holds no installed node"),
                    "node numbers run from 1 to SUs × nodes per SU",
                ));
                continue;
            }
            inside
        } else if let Some(v) = &s.names {
            let unknown: Vec<&String> = v
                .value
                .iter()
                .filter(|n| !by_name.contains_key(n.as_str()))
                .collect();
            if !unknown.is_empty() {
                diags.push(bad(
                    t,
                    v.span,
                    format!("unknown node(s) {unknown:?}"),
                    "names as in the cabling plan (`railyard build` writes them)",
                ));
                continue;
            }
            let mut v = v.value.clone();
            v.sort();
            v.dedup();
            v
        } else {
            deferred.push(*t);
            continue;
        };
        if picked.is_empty() {
            diags.push(bad(
                t,
                t.name.span,
                "the selection holds no installed node".into(),
                "select at least one node",
            ));
            continue;
        }
        claim(t, picked, &mut taken, &mut out, diags);
    }
    for t in deferred {
        let Some(g) = &t.nodes.gpus else { continue };
        if gpus_per_node == 0 || g.value == 0 || g.value % gpus_per_node != 0 {
            diags.push(bad(
                t,
                g.span,
                format!(
                    "{} GPUs is not a whole number of {gpus_per_node}-GPU nodes",
                    g.value
                ),
                "tenants get whole nodes; ask for a multiple of the node's GPU count",
            ));
            continue;
        }
        let want = (g.value / gpus_per_node) as usize;
        let free: Vec<&NodeRef> = nodes
            .iter()
            .filter(|n| !taken.contains_key(&n.name))
            .collect();
        if free.len() < want {
            diags.push(bad(
                t,
                g.span,
                format!("needs {want} free nodes; {} are left", free.len()),
                "lower the GPU count or free nodes from other tenants",
            ));
            continue;
        }
        let mut per_su: BTreeMap<u32, Vec<&NodeRef>> = BTreeMap::new();
        for n in &free {
            per_su.entry(n.su).or_default().push(n);
        }
        // Best fit: the SU with the fewest free nodes that still holds the whole tenant.
        let fit = per_su
            .iter()
            .filter(|(_, v)| v.len() >= want)
            .min_by_key(|(su, v)| (v.len(), **su));
        let picked: Vec<String> = match fit {
            Some((_, v)) => v.iter().take(want).map(|n| n.name.clone()).collect(),
            None => free.iter().take(want).map(|n| n.name.clone()).collect(),
        };
        claim(t, picked, &mut taken, &mut out, diags);
    }
    out
}
