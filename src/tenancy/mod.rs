//! Stage 3b: the tenant plan — per tenant a VRF with an L3VNI, a VLAN for it on each leaf, RD and
//! RT, the leaves and ports it owns; on InfiniBand a partition key. Plus the isolation proof.
//!
//! Input: the spec's `tenants`, `shared_services` and `tenancy` keys, the fabric graph and the
//! allocation (leaf router-ids for RDs). Output: [`TenantPlan`]. Invariants: every value is an
//! offset from the tenant's `id`, never from its position in the list, so adding or removing a
//! tenant changes no other tenant's plan; no node, VNI, VLAN, RT or PKey is shared; the RT graph
//! connects tenants only through declared shared services.

mod checks;
mod select;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::addressing::Allocation;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Network, Role, Tier, Transport};
use crate::spec::{ClusterSpec, TenantSpec};
use crate::topology::{Fabric, PortId};

/// Highest VXLAN network identifier (24 bits).
pub const MAX_VNI: u32 = (1 << 24) - 1;
/// Highest usable VLAN id.
pub const MAX_VLAN: u32 = 4094;
/// 0x7fff is the default partition; tenant keys stay below it.
pub const MAX_PKEY: u32 = 0x7ffe;

#[derive(Clone, Debug, Default, Serialize)]
pub struct TenantPlan {
    pub tenants: Vec<Tenant>,
    pub shared_services: Vec<SharedService>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Tenant {
    pub name: String,
    pub id: u32,
    pub vrf: String,
    /// Absent on InfiniBand compute fabrics without Ethernet tenancy.
    pub l3vni: u32,
    pub vlan: u32,
    pub route_target: String,
    /// RTs imported: the tenant's own and its shared services'.
    pub import: Vec<String>,
    pub export: Vec<String>,
    /// RD per leaf: `<leaf router-id>:<tenant id>` (type 1).
    pub rd: BTreeMap<String, String>,
    pub nodes: Vec<String>,
    /// Leaf → the leaf's ports in this tenant's VRF, per network.
    pub ports: BTreeMap<String, Vec<String>>,
    pub networks: Vec<Network>,
    pub shared_services: Vec<String>,
    /// InfiniBand partition key (hex `0x0101`) when the compute or storage fabric is InfiniBand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pkey: Option<String>,
    /// Compute NIC ports per node (`node:port`) — the members of the partition on InfiniBand.
    pub nic_ports: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SharedService {
    pub name: String,
    pub id: u32,
    pub route_target: String,
    /// RTs the service imports: those of every tenant consuming it.
    pub import: Vec<String>,
    pub prefixes: Vec<String>,
    pub consumers: Vec<String>,
}

impl TenantPlan {
    /// The tenant owning a node, if any.
    pub fn tenant_of_node(&self) -> BTreeMap<&str, &Tenant> {
        self.tenants
            .iter()
            .flat_map(|t| t.nodes.iter().map(move |n| (n.as_str(), t)))
            .collect()
    }
}

fn route_target(spec: &ClusterSpec, id_value: u32) -> String {
    format!("{}:{id_value}", spec.tenancy.rt_asn.value)
}

/// A node's host-facing leaf port on one network: network, leaf, the leaf port's identity
/// (which orders the ports as the intent lists interfaces), the leaf port's name, the node's
/// NIC port name.
type NodePort = (Network, String, PortId, String, String);

/// What every tenant is planned from: the fabric's host ports and which switches are Ethernet.
struct Hosts<'a> {
    node_ports: BTreeMap<&'a str, Vec<NodePort>>,
    ethernet: BTreeMap<&'a str, bool>,
}

/// Build the plan and prove isolation. Problems go to `diags`.
pub fn plan(
    spec: &ClusterSpec,
    f: &Fabric,
    alloc: &Allocation,
    diags: &mut Diagnostics,
) -> TenantPlan {
    if spec.tenants.is_empty() {
        return TenantPlan::default();
    }
    let mut specs: Vec<&TenantSpec> = spec.tenants.iter().collect();
    specs.sort_by_key(|t| t.id.value);
    checks::identities(spec, diags);
    let positions = f.sizing.sus.saturating_mul(f.sizing.nodes_per_su);
    let chosen = select::resolve(
        &specs,
        &node_refs(f),
        positions,
        f.sizing.gpus_per_node,
        diags,
    );
    let hosts = Hosts {
        node_ports: node_ports(f),
        ethernet: ethernet_switches(f),
    };
    let tenants: Vec<Tenant> = specs
        .iter()
        .filter_map(|t| {
            let members = chosen.get(&t.id.value)?;
            Some(tenant(spec, f, alloc, &hosts, t, members, diags))
        })
        .collect();
    let plan = TenantPlan {
        shared_services: shared_services(spec, &tenants),
        tenants,
    };
    checks::values(spec, &plan, diags);
    checks::route_targets(spec, &plan, diags);
    unhosted(spec, &plan.shared_services, diags);
    plan
}

/// Every node with its SU and its number in the cluster (what tenant selections name).
fn node_refs(f: &Fabric) -> Vec<select::NodeRef> {
    let nps = f.sizing.nodes_per_su;
    f.devices()
        .filter(|d| d.role == Role::Node)
        .map(|d| {
            let su = d.su.unwrap_or(1);
            select::NodeRef {
                name: d.name.clone(),
                su,
                number: (su - 1) * nps + d.index,
            }
        })
        .collect()
}

/// Node → its host-facing leaf ports, on every network.
fn node_ports(f: &Fabric) -> BTreeMap<&str, Vec<NodePort>> {
    let mut out: BTreeMap<&str, Vec<NodePort>> = BTreeMap::new();
    for l in f.links().filter(|l| l.tier == Tier::NodeLeaf) {
        let (n, leaf) = (f.device_of(&l.a), f.device_of(&l.b));
        if n.role != Role::Node {
            continue;
        }
        out.entry(n.name.as_str()).or_default().push((
            l.network,
            leaf.name.clone(),
            l.b.port,
            f.port_name(leaf, l.b.port),
            f.port_name(n, l.a.port),
        ));
    }
    out
}

/// Switch → whether it is Ethernet (only Ethernet leaves take VRFs; InfiniBand ones partitions).
fn ethernet_switches(f: &Fabric) -> BTreeMap<&str, bool> {
    f.devices()
        .filter(|d| d.role.is_switch())
        .map(|d| {
            (
                d.name.as_str(),
                f.transport_of(d.role) == Some(Transport::Ethernet),
            )
        })
        .collect()
}

/// One tenant's plan: its identifiers (declared or derived from its id), its leaf ports, RDs,
/// imports and partition key.
fn tenant(
    spec: &ClusterSpec,
    f: &Fabric,
    alloc: &Allocation,
    hosts: &Hosts<'_>,
    t: &TenantSpec,
    members: &[String],
    diags: &mut Diagnostics,
) -> Tenant {
    let id = t.id.value;
    let l3vni = t
        .vni
        .as_ref()
        .map_or(spec.tenancy.l3vni_base.value.saturating_add(id), |v| {
            v.value
        });
    let vlan = t
        .vlan
        .as_ref()
        .map_or(spec.tenancy.vlan_base.value.saturating_add(id), |v| v.value);
    let rt = t
        .route_target
        .as_ref()
        .map_or_else(|| route_target(spec, l3vni), |r| r.value.to_string());
    let mut networks = vec![Network::Compute];
    if t.storage {
        networks.push(Network::Storage);
    }
    if t.inband {
        networks.push(Network::Inband);
    }
    let (ports, nic_ports) = leaf_ports(f, hosts, t, &networks, members);
    let rd = ports
        .keys()
        .filter_map(|leaf| {
            let lo = alloc.devices.get(leaf)?.loopback?;
            Some((leaf.clone(), format!("{}:{id}", lo.addr())))
        })
        .collect();
    let (import, shared) = imports(spec, t, &rt, diags);
    let pkey = (f.sizing.compute.transport == Transport::Infiniband
        || (t.storage && f.transport_of(Role::StorageLeaf) == Some(Transport::Infiniband)))
    .then(|| format!("{:#06x}", spec.tenancy.pkey_base.value.saturating_add(id)));
    Tenant {
        name: t.name.value.to_string(),
        id,
        vrf: t.name.value.to_string(),
        l3vni,
        vlan,
        route_target: rt.clone(),
        import,
        export: vec![rt],
        rd,
        nodes: members.to_vec(),
        ports,
        networks,
        shared_services: shared,
        pkey,
        nic_ports,
    }
}

/// The tenant's Ethernet leaf ports (leaf → port names in port order) on its networks, and its
/// nodes' compute NIC ports (`node:nic`).
fn leaf_ports(
    f: &Fabric,
    hosts: &Hosts<'_>,
    t: &TenantSpec,
    networks: &[Network],
    members: &[String],
) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    let mut by_leaf: BTreeMap<String, Vec<(PortId, String)>> = BTreeMap::new();
    let mut nic_ports = Vec::new();
    for n in members {
        for (net, leaf, id, port, nic) in hosts.node_ports.get(n.as_str()).into_iter().flatten() {
            if *net == Network::Compute {
                nic_ports.push(format!("{n}:{nic}"));
            }
            // Storage converged with in-band shares leaves; either flag puts the port in.
            let wanted = networks.contains(net)
                || (*net == Network::Storage && t.inband && f.sizing.inband_converged);
            let ethernet = hosts.ethernet.get(leaf.as_str()).copied().unwrap_or(false);
            if wanted && ethernet {
                by_leaf
                    .entry(leaf.clone())
                    .or_default()
                    .push((*id, port.clone()));
            }
        }
    }
    let ports = by_leaf
        .into_iter()
        .map(|(leaf, mut v)| {
            v.sort();
            v.dedup();
            (leaf, v.into_iter().map(|(_, name)| name).collect())
        })
        .collect();
    (ports, nic_ports)
}

/// The route targets a tenant imports (its own and those of the shared services it consumes,
/// sorted) and the names of those services; an undeclared service is an error.
fn imports(
    spec: &ClusterSpec,
    t: &TenantSpec,
    rt: &str,
    diags: &mut Diagnostics,
) -> (Vec<String>, Vec<String>) {
    let services: BTreeMap<&str, &crate::spec::SharedServiceSpec> = spec
        .shared_services
        .iter()
        .map(|s| (s.name.value.as_str(), s))
        .collect();
    let mut import = vec![rt.to_string()];
    let mut shared = Vec::new();
    for s in &t.shared_services {
        match services.get(s.value.as_str()) {
            Some(svc) => {
                import.push(route_target(
                    spec,
                    spec.tenancy.l3vni_base.value.saturating_add(svc.id.value),
                ));
                shared.push(s.value.to_string());
            }
            None => diags.push(
                Diagnostic::error(
                    codes::TENANT_LEAK,
                    format!(
                        "tenant `{}` names shared service `{}`, which is not declared",
                        t.name.value, s.value
                    ),
                )
                .at(s.span, "undeclared service")
                .help("declare it under `shared_services:` — only declared services may be shared"),
            ),
        }
    }
    import.sort();
    import.dedup();
    (import, shared)
}

/// A shared service's VRF is imported by its tenants but hosted nowhere (no VRF exports its
/// route target, its prefixes reach no config): said, not left to the lab to find.
fn unhosted(spec: &ClusterSpec, services: &[SharedService], diags: &mut Diagnostics) {
    for (s, declared) in services.iter().zip(&spec.shared_services) {
        let who = if s.consumers.is_empty() {
            "no tenant imports it yet".to_string()
        } else {
            format!("{} import it", s.consumers.join(", "))
        };
        diags.push(
            Diagnostic::warning(
                codes::SHARED_SERVICE_UNHOSTED,
                format!(
                    "shared service `{}` (route target {}): no VRF exports it and its prefixes \
                     reach no config, so no tenant reaches it through the fabric ({who})",
                    s.name, s.route_target
                ),
            )
            .at(declared.name.span, "declared here")
            .help("railyard does not place shared services' own endpoints yet (`railyard explain RY0809`)"),
        );
    }
}

/// Each shared service with the tenants consuming it, whose route targets it imports.
fn shared_services(spec: &ClusterSpec, tenants: &[Tenant]) -> Vec<SharedService> {
    spec.shared_services
        .iter()
        .map(|s| {
            let consumers: Vec<&Tenant> = tenants
                .iter()
                .filter(|t| t.shared_services.iter().any(|x| *x == s.name.value))
                .collect();
            let mut import: Vec<String> =
                consumers.iter().map(|t| t.route_target.clone()).collect();
            import.sort();
            SharedService {
                name: s.name.value.to_string(),
                id: s.id.value,
                route_target: route_target(
                    spec,
                    spec.tenancy.l3vni_base.value.saturating_add(s.id.value),
                ),
                import,
                prefixes: s.prefixes.iter().map(|p| p.value.clone()).collect(),
                consumers: consumers.iter().map(|t| t.name.clone()).collect(),
            }
        })
        .collect()
}

/// Names of tenants sharing a set, for messages.
pub(crate) fn names(v: &BTreeSet<&str>) -> String {
    v.iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
