//! The virtual lab's plan: what a lab of the cluster is made of and what it must show, as plain
//! data. A pure stage beside `artifacts`; the `lab` edge boots it, and a topology export
//! (containerlab, NVIDIA Air) would read the same plan.
//!
//! Input: the [`Design`] (spec, fabric, allocation, intents with the tenant
//! plan) and whether to scale the lab down. Never rendered text: the FRR daemons a switch needs
//! come from its intent (`daemons.rs`), and the edge matches the rendered `frr.conf` files to
//! the routers. Output: [`LabPlan`]: the devices kept (`scale.rs`, `--scale-down`), the routers
//! (a namespace and an FRR instance each, tenant VRFs as namespaces: `routers.rs`), the GPU
//! nodes with the addresses and routes of the host plan (`hosts.rs`), the cables as veth pairs
//! with the kernel's interface name on both ends (`cables.rs`, `names.rs`), and the
//! expectations `verify` checks: planned BGP sessions and ECMP widths (`sessions.rs`), tenant
//! routes, tenant groups and shared services (`tenants.rs`).
//!
//! Invariants: names and values only; every list in name or cable order; interface names fit
//! the kernel's 15 characters (longer ones are mapped, and the mapping is recorded).

mod cables;
mod daemons;
mod hosts;
mod names;
mod routers;
mod scale;
mod sessions;
mod tenants;

use std::fmt;

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

pub use cables::{Cable, CableEnd};
pub use daemons::{DAEMONS, daemons_of};
pub use hosts::{Host, HostPort, HostRoute};
pub use names::{IFNAMSIZ_MAX, PREFIX, Renamed, device_ns, vrf_ns};
pub use routers::{Router, VrfNs};
pub use scale::ScaleReport;
pub use sessions::{EcmpTarget, Session};
pub use tenants::{Group, NO_TENANT, Service, VrfRoutes};

use crate::design::Design;
use crate::model::Role;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabPlan {
    /// The spec's `name`.
    pub lab: String,
    pub routers: Vec<Router>,
    pub hosts: Vec<Host>,
    /// One veth pair per cable between two kept devices, in cabling-plan order.
    pub cables: Vec<Cable>,
    /// BGP sessions whose both ends are in the lab: each must be Established.
    pub sessions: Vec<Session>,
    /// Sessions configured towards devices `--scale-down` dropped: expected down.
    pub dropped_sessions: Vec<Session>,
    /// Per leaf and remote leaf: the ECMP width expected towards the remote loopback.
    pub ecmp: Vec<EcmpTarget>,
    /// Per leaf and tenant VRF: the remote prefixes it must and must not have.
    pub tenant_routes: Vec<VrfRoutes>,
    /// Tenant groups of the reachability matrix (empty when the spec has no tenants).
    pub groups: Vec<Group>,
    pub shared_services: Vec<Service>,
    /// Interface names mapped to fit the kernel's limit.
    pub renamed: Vec<Renamed>,
    pub scale: ScaleReport,
}

/// Why a compiled spec makes no lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// No switch the lab boots (none with an FRR config: no Ethernet switches).
    NoSwitches,
    /// No cable joins two of the lab's devices.
    NoCables,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlanError::NoSwitches => {
                "railyard rendered no FRR config for this spec (no Ethernet switches?): nothing to boot"
            }
            PlanError::NoCables => "no cable joins two lab devices: nothing to boot",
        })
    }
}

impl std::error::Error for PlanError {}

/// Plan the lab of a compiled spec: every GPU node and configured switch, or with `scale_down`
/// a sample of the same shape (`scale.rs`).
pub fn build(i: &Design, scale_down: bool) -> Result<LabPlan, PlanError> {
    let sel = scale::select(&i.fabric, &i.intents, scale_down);
    let mut renamed = Vec::new();
    let (cables, ports_in_lab) = cables::cables(i, &sel, &mut renamed);
    let routers = routers::routers(i, &sel, &ports_in_lab);
    if routers.is_empty() {
        return Err(PlanError::NoSwitches);
    }
    if cables.is_empty() {
        return Err(PlanError::NoCables);
    }
    let hosts = hosts::hosts(i, &sel, &cables);
    let (sessions, dropped_sessions) = sessions::sessions(&i.intents, &sel);
    let ecmp = sessions::ecmp(&i.intents, &routers, &sessions);
    let tenant_routes = tenants::tenant_routes(&i.intents, &routers, &ports_in_lab);
    let (groups, shared_services) = tenants::groups(&i.intents, &hosts);
    Ok(LabPlan {
        lab: i.spec.name.value.to_string(),
        routers,
        hosts,
        cables,
        sessions,
        dropped_sessions,
        ecmp,
        tenant_routes,
        groups,
        shared_services,
        renamed,
        scale: sel.report,
    })
}

/// One device of the lab, switch or GPU node, as a topology export lists it; its links are the
/// plan's [`LabPlan::cables`], whose ends name the device, the port and the kernel interface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node<'a> {
    pub name: &'a str,
    pub role: Role,
    /// Its namespace in the lab.
    pub ns: &'a str,
    /// Its management (switch) or BMC (node) address in the address plan.
    pub mgmt: Option<IpNet>,
}

impl LabPlan {
    /// Every device of the lab: routers, then GPU nodes, each in name order.
    pub fn nodes(&self) -> impl Iterator<Item = Node<'_>> {
        let routers = self.routers.iter().map(|r| Node {
            name: &r.name,
            role: r.role,
            ns: &r.ns,
            mgmt: r.mgmt,
        });
        let hosts = self.hosts.iter().map(|h| Node {
            name: &h.name,
            role: Role::Node,
            ns: &h.ns,
            mgmt: h.mgmt,
        });
        routers.chain(hosts)
    }

    /// Every namespace of the lab: devices, then tenant VRFs.
    pub fn namespaces(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .routers
            .iter()
            .map(|r| r.ns.clone())
            .chain(self.hosts.iter().map(|h| h.ns.clone()))
            .collect();
        v.extend(
            self.routers
                .iter()
                .flat_map(|r| r.vrfs.iter().map(|x| x.ns.clone())),
        );
        v
    }

    /// Whether any router has a tenant VRF.
    pub fn has_vrfs(&self) -> bool {
        self.routers.iter().any(|r| !r.vrfs.is_empty())
    }

    /// `5 routers, 4 nodes, 24 cables`.
    pub fn size(&self) -> String {
        let vrfs: usize = self.routers.iter().map(|r| r.vrfs.len()).sum();
        let mut s = format!(
            "{} routers, {} nodes, {} cables, {} planned BGP sessions",
            self.routers.len(),
            self.hosts.len(),
            self.cables.len(),
            self.sessions.len()
        );
        if vrfs > 0 {
            s.push_str(&format!(", {vrfs} tenant VRF namespaces"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use crate::model::Platform;

    fn plan_of(text: &str, scale_down: bool) -> LabPlan {
        let c = crate::compile_for_platform(&SourceFile::new("spec.yaml", text), Platform::Frr);
        let Some(design) = &c.design else {
            panic!("spec did not compile");
        };
        match build(design, scale_down) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    fn inventory(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/inventories/{name}.yaml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap_or_default()
    }

    #[test]
    fn lab_small_plan_matches_the_cabling_plan() {
        let p = plan_of(crate::LAB_SMALL, false);
        assert_eq!(p.lab, "lab-small");
        let names: Vec<&str> = p.routers.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "inb-leaf01",
                "leaf-su01-01",
                "leaf-su01-02",
                "spine01",
                "spine02"
            ]
        );
        // 8 node-leaf + 8 leaf-spine + 4 in-band cables; OOB is not modelled.
        assert_eq!(p.cables.len(), 20);
        let c = &p.cables[0];
        assert_eq!(
            (c.a.device.as_str(), c.a.ifname.as_str()),
            ("gpu001", "ens1f0")
        );
        assert_eq!(
            (c.b.device.as_str(), c.b.ifname.as_str()),
            ("leaf-su01-01", "swp1")
        );
        assert_eq!(c.b.ns, "rylab-leaf-su01-01");
        // 2 leaves × 4 uplinks, seen from both ends.
        assert_eq!(p.sessions.len(), 16);
        assert!(p.dropped_sessions.is_empty());
        assert_eq!(p.ecmp.len(), 2);
        assert!(p.ecmp.iter().all(|e| e.width == 4));
        let g1 = &p.hosts[0];
        assert_eq!(g1.name, "gpu001");
        let nic = &g1.ports[0];
        assert_eq!(nic.ifname, "ens1f0");
        assert_eq!(
            nic.address.map(|a| a.to_string()).as_deref(),
            Some("10.64.0.0/31")
        );
        assert_eq!(nic.routes.len(), 1);
        assert_eq!(nic.routes[0].table, 101);
        assert!(p.groups.is_empty());
        let spine = p.routers.iter().find(|r| r.name == "spine01");
        assert_eq!(
            spine.map(|r| r.daemons.clone()),
            Some(vec![
                "zebra".into(),
                "bgpd".into(),
                "staticd".into(),
                "bfdd".into()
            ])
        );
    }

    #[test]
    fn an_export_reads_nodes_and_both_ends_of_every_link() {
        let p = plan_of(crate::LAB_SMALL, false);
        let nodes: Vec<Node<'_>> = p.nodes().collect();
        assert_eq!(nodes.len(), p.routers.len() + p.hosts.len());
        assert_eq!(nodes[0].name, "inb-leaf01");
        assert!(
            nodes
                .iter()
                .any(|n| n.name == "gpu001" && n.role == Role::Node)
        );
        assert!(nodes.iter().all(|n| n.mgmt.is_some()), "{nodes:?}");
        let names: std::collections::BTreeSet<&str> = nodes.iter().map(|n| n.name).collect();
        for c in &p.cables {
            for e in [&c.a, &c.b] {
                assert!(names.contains(e.device.as_str()), "{}", e.device);
                assert!(!e.ifname.is_empty() && e.ifname.len() <= IFNAMSIZ_MAX);
            }
        }
    }

    #[test]
    fn storage_pair_vrfs_run_evpn_within_their_own_fabric() {
        let p = plan_of(&inventory("spectrum-x-cloud-tenants"), true);
        // The storage pair is joined by routed peer links, so its tenant VRFs are EVPN VRFs.
        let stor = p.routers.iter().find(|r| r.name == "stor-leaf01");
        assert!(
            stor.is_some_and(|r| !r.vrfs.is_empty() && r.vrfs.iter().all(|v| v.vtep.is_some()))
        );
        assert!(p.tenant_routes.iter().any(|t| t.leaf.starts_with("stor-")));
        // Each leaf expects prefixes of its own network only: the fabrics are separate.
        for t in &p.tenant_routes {
            let pool = if t.leaf.starts_with("stor-") {
                "10.32."
            } else {
                "10.64."
            };
            assert!(
                t.expect
                    .iter()
                    .chain(&t.forbid)
                    .all(|x| x.starts_with(pool)),
                "{t:?}"
            );
        }
    }

    #[test]
    fn tenant_ports_live_in_vrf_namespaces() {
        let p = plan_of(&inventory("mdx-research-cloud"), true);
        assert!(p.has_vrfs());
        let leaf = p
            .routers
            .iter()
            .find(|r| r.name == "leaf-su01-01")
            .map(|r| r.vrfs.clone())
            .unwrap_or_default();
        assert_eq!(leaf.len(), 1);
        assert_eq!(leaf[0].ns, "rylab.leaf-su01-01.llm-pretrain");
        assert_eq!(leaf[0].l3vni, 100_001);
        let to_gpu001 = p.cables.iter().find(|c| c.a.device == "gpu001");
        assert_eq!(
            to_gpu001.map(|c| c.b.ns.as_str()),
            Some("rylab.leaf-su01-01.llm-pretrain")
        );
        assert!(
            p.groups
                .iter()
                .any(|g| g.name == "llm-pretrain" && g.nodes.len() >= 2)
        );
        assert!(p.shared_services.iter().all(|s| !s.instantiated));
        let tr = p
            .tenant_routes
            .iter()
            .find(|t| t.leaf == "leaf-su01-01")
            .map(|t| (t.expect.len(), t.forbid.len()));
        assert!(tr.is_some_and(|(e, f)| e > 0 && f > 0), "{tr:?}");
    }
}
