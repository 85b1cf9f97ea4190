//! Which node pairs test which cables. Node–leaf cables: two ports on the same leaf (the
//! traffic turns at the leaf, so the test crosses exactly those two cables). Leaf–spine cables:
//! a port on each of two leaves under the same spine, the test meant to cross one uplink of
//! each leaf to that spine; at each spine its uplinks are paired leaf against leaf, preferring
//! leaves of the same rails (what a rail-optimized job's traffic takes), and the node ends
//! taken in turn among each leaf's ports so no node port carries more tests than needed.

use std::collections::BTreeMap;

use super::model::{Endpoint, Leaf, LinkKind, PlanLink, Uplink};
use crate::intent::host::HostIntents;
use crate::model::{Network, Role, Tier};
use crate::topology::Fabric;

/// A test before it is scheduled: its two ends, the spine it is meant to cross, its links.
#[derive(Clone, Debug)]
pub struct Pair {
    pub server: Endpoint,
    pub client: Endpoint,
    pub spine: Option<String>,
    pub links: Vec<String>,
}

/// The compute links under test, by id, in the fabric's order.
pub fn links(fabric: &Fabric) -> Vec<PlanLink> {
    fabric
        .links()
        .filter(|l| l.network == Network::Compute)
        .filter_map(|l| {
            let kind = match l.tier {
                Tier::NodeLeaf => LinkKind::NodeLeaf,
                Tier::LeafSpine => LinkKind::LeafSpine,
                _ => return None,
            };
            let (a, b) = (fabric.named(&l.a), fabric.named(&l.b));
            // Appliances (storage targets on the compute fabric) run no perftest.
            if kind == LinkKind::NodeLeaf && a.device.role != Role::Node {
                return None;
            }
            Some(PlanLink {
                id: l.cable_id.clone(),
                kind,
                label: fabric.label(l),
                a: a.device.name.clone(),
                a_port: a.port_name,
                a_rack: a.device.rack.clone(),
                b: b.device.name.clone(),
                b_port: b.port_name,
                b_rack: b.device.rack.clone(),
                gbps: l.speed.as_gbps(),
            })
        })
        .collect()
}

/// Every compute leaf with its node ports (from the host intent) and its uplinks.
pub fn leaves(hosts: &HostIntents, links: &[PlanLink]) -> Vec<Leaf> {
    let mut by_name: BTreeMap<String, Leaf> = BTreeMap::new();
    let leaf = |m: &mut BTreeMap<String, Leaf>, name: &str| {
        m.entry(name.to_string())
            .or_insert_with(|| Leaf {
                name: name.to_string(),
                ports: Vec::new(),
                uplinks: Vec::new(),
            })
            .ports
            .len()
    };
    for node in hosts.nodes.values() {
        for (k, p) in node.ports.iter().enumerate() {
            leaf(&mut by_name, &p.leaf);
            if let Some(l) = by_name.get_mut(&p.leaf) {
                l.ports.push(Endpoint {
                    node: node.name.clone(),
                    device: p.rdma.clone(),
                    port_index: u32::try_from(k).unwrap_or(u32::MAX),
                    leaf: p.leaf.clone(),
                    link: p.cable.clone(),
                });
            }
        }
    }
    for l in links.iter().filter(|l| l.kind == LinkKind::LeafSpine) {
        leaf(&mut by_name, &l.a);
        if let Some(x) = by_name.get_mut(&l.a) {
            x.uplinks.push(Uplink {
                spine: l.b.clone(),
                link: l.id.clone(),
            });
        }
    }
    let mut v: Vec<Leaf> = by_name.into_values().collect();
    v.sort_by(|a, b| crate::output::natural::cmp(&a.name, &b.name));
    for l in &mut v {
        l.ports.sort_by(|a, b| {
            crate::output::natural::cmp(&a.node, &b.node).then(a.port_index.cmp(&b.port_index))
        });
    }
    v
}

/// The node–leaf pairs: a leaf's ports two by two; an odd one out pairs again with the first.
/// Ports alone on their leaf are returned for the leaf–spine tests to carry.
pub fn node_pairs(leaves: &[Leaf]) -> (Vec<Pair>, Vec<Endpoint>) {
    let mut pairs = Vec::new();
    let mut alone = Vec::new();
    for leaf in leaves {
        let p = &leaf.ports;
        if p.len() == 1 {
            alone.push(p[0].clone());
            continue;
        }
        for two in p.chunks(2) {
            let partner = if two.len() == 2 { &two[1] } else { &p[0] };
            pairs.push(Pair {
                server: two[0].clone(),
                client: partner.clone(),
                spine: None,
                links: vec![two[0].link.clone(), partner.link.clone()],
            });
        }
    }
    (pairs, alone)
}

/// Uplinks at one spine: (leaf, link).
type AtSpine<'a> = Vec<(&'a Leaf, &'a str)>;

/// The leaf–spine pairs. `alone`: node ports with no partner on their leaf, used as ends first.
pub fn uplink_pairs(leaves: &[Leaf], alone: &[Endpoint]) -> Vec<Pair> {
    let mut spines: BTreeMap<&str, AtSpine<'_>> = BTreeMap::new();
    for leaf in leaves {
        for u in &leaf.uplinks {
            spines
                .entry(u.spine.as_str())
                .or_default()
                .push((leaf, u.link.as_str()));
        }
    }
    let mut turn: BTreeMap<&str, usize> = BTreeMap::new();
    let mut alone: Vec<&Endpoint> = alone.iter().collect();
    let mut pairs = Vec::new();
    for (spine, ups) in spines {
        for (i, j) in pair_uplinks(&ups) {
            let (a, b) = (ups[i], ups[j]);
            let Some(ea) = end(a.0, &mut turn, &mut alone, None) else {
                continue;
            };
            let Some(eb) = end(b.0, &mut turn, &mut alone, Some(&ea.node)) else {
                continue;
            };
            pairs.push(Pair {
                links: vec![
                    ea.link.clone(),
                    a.1.to_string(),
                    b.1.to_string(),
                    eb.link.clone(),
                ],
                server: ea,
                client: eb,
                spine: Some(spine.to_string()),
            });
        }
    }
    pairs
}

/// Indices of uplink pairs at one spine covering every uplink: each unpaired uplink takes the
/// next unpaired one of another leaf (same rails first); one left over takes any of another
/// leaf again.
fn pair_uplinks(ups: &AtSpine<'_>) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..ups.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (&ups[x], &ups[y]);
        rails(a.0)
            .cmp(&rails(b.0))
            .then(crate::output::natural::cmp(&a.0.name, &b.0.name))
    });
    let mut used = vec![false; ups.len()];
    let mut out = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        if used[i] {
            continue;
        }
        let other = |j: &&usize| ups[**j].0.name != ups[i].0.name;
        let fresh = order[k + 1..]
            .iter()
            .filter(|j| !used[**j])
            .filter(other)
            .min_by_key(|j| rails(ups[**j].0) != rails(ups[i].0));
        let partner = fresh.or_else(|| order.iter().find(other));
        if let Some(&j) = partner {
            used[i] = true;
            used[j] = true;
            out.push((i, j));
        }
    }
    out
}

/// The leaf's rails as its node ports' NIC positions: leaves with the same set pair first.
fn rails(leaf: &Leaf) -> Vec<u32> {
    let mut r: Vec<u32> = leaf.ports.iter().map(|p| p.port_index).collect();
    r.sort_unstable();
    r.dedup();
    r
}

/// The node end of a leaf–spine test on `leaf`: a port alone on it if any, else its ports in
/// turn, skipping a port of `avoid` (the other end's node: a node testing itself through the
/// fabric proves less) unless the leaf has no other.
fn end<'a>(
    leaf: &'a Leaf,
    turn: &mut BTreeMap<&'a str, usize>,
    alone: &mut Vec<&Endpoint>,
    avoid: Option<&str>,
) -> Option<Endpoint> {
    if let Some(k) = alone.iter().position(|e| e.leaf == leaf.name) {
        return Some(alone.remove(k).clone());
    }
    let n = leaf.ports.len();
    let t = turn.entry(leaf.name.as_str()).or_default();
    let skip = (0..n)
        .find(|k| Some(leaf.ports[(*t + k) % n].node.as_str()) != avoid)
        .unwrap_or(0);
    let e = leaf.ports.get((*t + skip) % n.max(1))?.clone();
    *t += skip + 1;
    Some(e)
}
