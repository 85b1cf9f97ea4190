//! The fabric as the analysis reads it, built once for every failure: each link in scope with
//! its ends' identities, the links of each device, each group's capacity, tenants and blocks.

use std::collections::{BTreeMap, BTreeSet};

use super::{Capacities, Group, GroupKind, group_names};
use crate::design::Design;
use crate::model::{Network, Role, Tier};
use crate::topology::{Device, Link};

/// One link in scope with its ends.
pub(super) struct Edge<'a> {
    pub link: &'a Link,
    /// Lower end (node side).
    pub a: &'a Device,
    /// Upper end.
    pub b: &'a Device,
}

pub(super) struct Index<'a> {
    pub edges: Vec<Edge<'a>>,
    /// Device name → its edges (positions in `edges`).
    pub by_device: BTreeMap<&'a str, Vec<usize>>,
    /// Cable id → its edge.
    pub by_cable: BTreeMap<&'a str, usize>,
    pub devices: BTreeMap<&'a str, &'a Device>,
    pub capacity: Capacities,
    pub tenant_of: BTreeMap<&'a str, &'a str>,
    /// Node → its scheduler block.
    pub block_of: BTreeMap<&'a str, &'a str>,
    /// Block → its node count.
    pub block_size: BTreeMap<&'a str, usize>,
    /// Rack-scale systems: rack (NVLink domain) name → its trays and rack parts in scope, each
    /// domain's name, and the domains' plan.
    pub racks: BTreeMap<String, Vec<&'a Device>>,
    pub domain_names: BTreeMap<u32, String>,
    pub domains: Option<&'a crate::topology::DomainPlan>,
    su_width: usize,
}

impl<'a> Index<'a> {
    pub fn build(design: &'a Design, scope: Option<&BTreeSet<String>>) -> Self {
        let f = &design.fabric;
        let in_scope = |d: &Device| scope.is_none_or(|s| s.contains(&d.name));
        let devices: BTreeMap<&str, &Device> = f
            .devices()
            .filter(|d| in_scope(d))
            .map(|d| (d.name.as_str(), d))
            .collect();
        let edges: Vec<Edge<'a>> = f
            .links()
            .map(|l| Edge {
                link: l,
                a: f.device_of(&l.a),
                b: f.device_of(&l.b),
            })
            .filter(|e| in_scope(e.a) && in_scope(e.b))
            .collect();
        let mut by_device: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (n, e) in edges.iter().enumerate() {
            by_device.entry(e.a.name.as_str()).or_default().push(n);
            by_device.entry(e.b.name.as_str()).or_default().push(n);
        }
        let by_cable = edges
            .iter()
            .enumerate()
            .map(|(n, e)| (e.link.cable_id.as_str(), n))
            .collect();
        let tenant_of = design
            .intents
            .tenants
            .tenant_of_node()
            .into_iter()
            .map(|(n, t)| (n, t.name.as_str()))
            .collect();
        let mut block_of = BTreeMap::new();
        let mut block_size = BTreeMap::new();
        // The blocks Slurm's topology.conf names: the NVLink domains of a rack-scale cluster
        // (topology/block), else the tree's leaf domains.
        let blocks: Vec<&crate::topology::Block> = if design.scheduler.nvlink.is_empty() {
            design.scheduler.domains().map(|(_, b)| b).collect()
        } else {
            design.scheduler.nvlink.iter().collect()
        };
        for b in blocks {
            block_size.insert(b.name.as_str(), b.nodes.len());
            for n in &b.nodes {
                block_of.insert(n.as_str(), b.name.as_str());
            }
        }
        let mut racks: BTreeMap<String, Vec<&Device>> = BTreeMap::new();
        let mut domain_names = BTreeMap::new();
        for d in devices.values() {
            if let Some(n) = d.domain {
                let name = domain_names.entry(n).or_insert_with(|| f.domain_name(n));
                racks.entry(name.clone()).or_default().push(*d);
            }
        }
        let mut ix = Index {
            racks,
            domain_names,
            domains: f.sizing.domains.as_ref(),
            edges,
            by_device,
            by_cable,
            devices,
            capacity: Capacities::new(),
            tenant_of,
            block_of,
            block_size,
            su_width: f.sizing.sus.max(1).to_string().len().max(2),
        };
        let mut capacity = Capacities::new();
        for e in &ix.edges {
            for g in ix.groups(e) {
                *capacity.entry(g).or_default() += u64::from(e.link.speed.as_gbps());
            }
        }
        ix.capacity = capacity;
        ix
    }

    /// The groups a link's bandwidth counts in: its rail (a node link's own; an uplink's, the
    /// rails its leaf serves), the SU of its lower end, its plane, and a node link's tenant.
    pub fn groups(&self, e: &Edge<'_>) -> Vec<Group> {
        let (l, net, tier) = (e.link, e.link.network, e.link.tier);
        let group = |kind, name: String| Group {
            network: net,
            kind,
            name,
            tier,
        };
        let mut out = Vec::new();
        // Groups measure GPU nodes' bandwidth: an appliance's port (UFM) is none of it.
        if e.a.role == Role::Appliance {
            return out;
        }
        if net == Network::Compute {
            let rails: Vec<u32> = match (l.rail, tier) {
                (Some(r), _) => vec![r],
                (None, Tier::LeafSpine) => e.a.rails.clone(),
                _ => Vec::new(),
            };
            out.extend(
                rails
                    .into_iter()
                    .map(|r| group(GroupKind::Rail, group_names(GroupKind::Rail, r, 1))),
            );
        }
        if tier != Tier::SpineCore
            && let Some(su) = e.a.su
        {
            out.push(group(
                GroupKind::Su,
                group_names(GroupKind::Su, su, self.su_width),
            ));
        }
        if let Some(p) = l.plane {
            out.push(group(GroupKind::Plane, group_names(GroupKind::Plane, p, 1)));
        }
        if tier == Tier::NodeLeaf
            && let Some(t) = self.tenant_of.get(e.a.name.as_str())
        {
            out.push(group(GroupKind::Tenant, (*t).to_string()));
        }
        out
    }

    pub fn edges_of(&self, device: &str) -> &[usize] {
        self.by_device.get(device).map_or(&[], Vec::as_slice)
    }
}
