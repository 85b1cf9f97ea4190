//! Node selection: explicit SUs, node ranges or names; GPU counts placed on whole free nodes,
//! preferring one SU that holds the whole tenant (SU-compact: its traffic stays under the SU's
//! rail leaves), else filling SUs in order.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::ident::Name;
use crate::spec::{Sp, TenantSpec};

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
/// `positions`: the cluster's node positions (SUs × nodes per SU), installed or not.
pub fn resolve(
    tenants: &[&TenantSpec],
    nodes: &[NodeRef],
    positions: u32,
    gpus_per_node: u32,
    diags: &mut Diagnostics,
) -> BTreeMap<u32, Vec<String>> {
    let index = NodeIndex::new(nodes, positions);
    let mut claims = Claims::default();
    let mut deferred = Vec::new();
    for t in tenants {
        if !has_one_key(t, diags) {
            continue;
        }
        match explicit(t, &index, diags) {
            Explicit::Picked(picked) => {
                if picked.is_empty() {
                    diags.push(bad(
                        t,
                        t.name.span,
                        "the selection holds no installed node".into(),
                        "select at least one node",
                    ));
                    continue;
                }
                claims.claim(t, picked, diags);
            }
            Explicit::ByGpus => deferred.push(*t),
            Explicit::Rejected => {}
        }
    }
    for t in deferred {
        if let Some(picked) = place_gpus(t, nodes, gpus_per_node, &claims.taken, diags) {
            claims.claim(t, picked, diags);
        }
    }
    claims.out
}

/// The installed nodes, looked up by name, by global number and by SU.
struct NodeIndex<'a> {
    all: &'a [NodeRef],
    by_name: BTreeMap<&'a str, &'a NodeRef>,
    by_number: BTreeMap<u32, &'a NodeRef>,
    sus: BTreeSet<u32>,
    /// Node positions of the cluster, installed or not: numbers run from 1 to this.
    positions: u32,
}

impl<'a> NodeIndex<'a> {
    fn new(nodes: &'a [NodeRef], positions: u32) -> Self {
        NodeIndex {
            positions,
            all: nodes,
            by_name: nodes.iter().map(|n| (n.name.as_str(), n)).collect(),
            by_number: nodes.iter().map(|n| (n.number, n)).collect(),
            sus: nodes.iter().map(|n| n.su).collect(),
        }
    }
}

/// What an explicit selection (`sus`, `range`, `names`) came to.
enum Explicit {
    Picked(Vec<String>),
    /// A `gpus` count: placed after every explicit selection.
    ByGpus,
    /// Wrong; the diagnostic is pushed.
    Rejected,
}

/// The nodes claimed so far: node → tenant name, and tenant id → its nodes.
#[derive(Default)]
struct Claims {
    taken: BTreeMap<String, String>,
    out: BTreeMap<u32, Vec<String>>,
}

impl Claims {
    fn claim(&mut self, t: &TenantSpec, picked: Vec<String>, diags: &mut Diagnostics) {
        // One diagnostic per tenant already holding some of these nodes, naming them all: one
        // overlapping range is one mistake, not one per node.
        let mut clashes: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for n in &picked {
            if let Some(other) = self.taken.insert(n.clone(), t.name.value.to_string()) {
                clashes.entry(other).or_default().push(n);
            }
        }
        for (other, names) in clashes {
            diags.push(overlap(t, &other, &names));
        }
        self.out.insert(t.id.value, picked);
    }
}

/// The diagnostic for nodes `t` claims that tenant `other` already holds.
fn overlap(t: &TenantSpec, other: &str, names: &[&str]) -> Diagnostic {
    let what = match names {
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
    ))
}

/// A selection error of tenant `t`.
fn bad(t: &TenantSpec, span: Option<Span>, msg: String, help: &str) -> Diagnostic {
    Diagnostic::error(
        codes::TENANT_SELECTION,
        format!("tenant `{}`: {msg}", t.name.value),
    )
    .at(span, "selection")
    .help(help.to_string())
}

/// `nodes` names exactly one way of selecting.
fn has_one_key(t: &TenantSpec, diags: &mut Diagnostics) -> bool {
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
        return false;
    }
    true
}

fn explicit(t: &TenantSpec, index: &NodeIndex, diags: &mut Diagnostics) -> Explicit {
    let s = &t.nodes;
    if let Some(v) = &s.sus {
        by_sus(t, v, index, diags)
    } else if let Some(v) = &s.range {
        by_range(t, v, index, diags)
    } else if let Some(v) = &s.names {
        by_names(t, v, index, diags)
    } else {
        Explicit::ByGpus
    }
}

/// `sus: [..]`: every node of those SUs.
fn by_sus(
    t: &TenantSpec,
    v: &Sp<Vec<u32>>,
    index: &NodeIndex,
    diags: &mut Diagnostics,
) -> Explicit {
    let missing: Vec<u32> = v
        .value
        .iter()
        .filter(|x| !index.sus.contains(x))
        .copied()
        .collect();
    if !missing.is_empty() {
        diags.push(bad(
            t,
            v.span,
            format!("SU(s) {missing:?} do not exist or hold no nodes"),
            "SUs are numbered from 1 to `scalable_units.count`",
        ));
        return Explicit::Rejected;
    }
    Explicit::Picked(
        index
            .all
            .iter()
            .filter(|n| v.value.contains(&n.su))
            .map(|n| n.name.clone())
            .collect(),
    )
}

/// `range: [first, last]`: the installed nodes numbered in between.
fn by_range(
    t: &TenantSpec,
    v: &Sp<Vec<u32>>,
    index: &NodeIndex,
    diags: &mut Diagnostics,
) -> Explicit {
    let [lo, hi] = v.value[..] else {
        diags.push(bad(
            t,
            v.span,
            "`range` takes two node numbers `[first, last]`".into(),
            "e.g. `range: [1, 16]`",
        ));
        return Explicit::Rejected;
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
        return Explicit::Rejected;
    }
    // A range reaching past the cluster is a mistake, not a request for its installed part:
    // `[60, 80]` on 64 positions was taken as 60–64 without a word.
    if lo == 0 || hi > index.positions {
        diags.push(bad(
            t,
            v.span,
            format!(
                "range [{lo}, {hi}] reaches outside the cluster's node positions 1–{}",
                index.positions
            ),
            "node numbers run from 1 to SUs × nodes per SU; to take every node from `first` \
             on, end the range at the last position",
        ));
        return Explicit::Rejected;
    }
    let inside: Vec<String> = index
        .by_number
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
        return Explicit::Rejected;
    }
    Explicit::Picked(inside)
}

/// `names: [..]`: those nodes, sorted, each once.
fn by_names(
    t: &TenantSpec,
    v: &Sp<Vec<Name>>,
    index: &NodeIndex,
    diags: &mut Diagnostics,
) -> Explicit {
    let unknown: Vec<&Name> = v
        .value
        .iter()
        .filter(|n| !index.by_name.contains_key(n.as_str()))
        .collect();
    if !unknown.is_empty() {
        diags.push(bad(
            t,
            v.span,
            format!("unknown node(s) {unknown:?}"),
            "names as in the cabling plan (`railyard build` writes them)",
        ));
        return Explicit::Rejected;
    }
    let mut v: Vec<String> = v.value.iter().map(|n| n.to_string()).collect();
    v.sort();
    v.dedup();
    Explicit::Picked(v)
}

/// `gpus: N`: whole free nodes, in the best-fitting SU if one holds them all, else in order.
fn place_gpus(
    t: &TenantSpec,
    nodes: &[NodeRef],
    gpus_per_node: u32,
    taken: &BTreeMap<String, String>,
    diags: &mut Diagnostics,
) -> Option<Vec<String>> {
    let g = t.nodes.gpus.as_ref()?;
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
        return None;
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
        return None;
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
    Some(match fit {
        Some((_, v)) => v.iter().take(want).map(|n| n.name.clone()).collect(),
        None => free.iter().take(want).map(|n| n.name.clone()).collect(),
    })
}
