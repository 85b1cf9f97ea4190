//! Stage 4: [`Fabric`] + [`Allocation`] → per-switch [`DeviceIntent`], vendor-neutral.
//!
//! Input: the graph, the allocation and the spec's global knobs (`roce`, `bgp`, `services`).
//! Output: one intent per Ethernet switch (OOB switches excepted) and one subnet-manager intent
//! per InfiniBand fabric. Invariants: intent holds names and values only, never graph indices;
//! every list is in port or name order, so the same spec gives the same intent.

mod bgp;
mod checks;
mod device;
pub mod host;
mod interfaces;
mod oob;
mod overrides;
pub mod partitions;
mod prefixes;
mod qos;
mod sonic;
mod system;
mod tenancy;

use std::collections::BTreeMap;

pub use device::*;

use crate::addressing::Allocation;
use crate::diag::Diagnostics;
use crate::model::{Network, Platform, PortGuids, Role, Transport};
use crate::spec::ClusterSpec;
use crate::tenancy::TenantPlan;
use crate::topology::{Device, DeviceId, Fabric, Link, LinkId, PerDevice, PortId};

/// Everything the renderers get.
#[derive(Clone, Debug, Default)]
pub struct Intents {
    pub devices: BTreeMap<String, DeviceIntent>,
    pub subnet_managers: Vec<SubnetManager>,
    /// The GPU nodes' side: NIC ports, addresses, NIC QoS (`host.rs`).
    pub hosts: host::HostIntents,
    /// The tenant plan the VRFs come from; `render` writes it as `tenants/plan.yaml`.
    pub tenants: TenantPlan,
    /// OpenSM partitions of an InfiniBand compute fabric with tenants.
    pub partitions: Option<partitions::Partitions>,
}

/// One cable seen from one of its ends.
pub(crate) struct Attached<'a> {
    pub link: &'a Link,
    pub id: LinkId,
    /// True when this device is end `a` (the lower tier).
    pub lower: bool,
    pub port: PortId,
    pub peer: &'a Device,
    pub peer_port: PortId,
}

/// The cables of every device, in port order.
fn attachments(f: &Fabric) -> PerDevice<Vec<Attached<'_>>> {
    let mut by_dev: PerDevice<Vec<Attached<'_>>> = PerDevice::of(f, |_, _| Vec::new());
    for (id, link) in f.links_with_ids() {
        for (lower, near, far) in [(true, &link.a, &link.b), (false, &link.b, &link.a)] {
            by_dev[f.device_id(near)].push(Attached {
                link,
                id,
                lower,
                port: near.port,
                peer: f.device_of(far),
                peer_port: far.port,
            });
        }
    }
    by_dev.for_each(|v| v.sort_by_key(|a| a.port));
    by_dev
}

/// Networks whose switches run the RoCE class: the compute fabric, and storage reached over RDMA
/// (NVMe-oF over RoCE, GPUDirect Storage).
pub(crate) fn runs_roce(f: &Fabric, network: Network) -> bool {
    match network {
        Network::Compute => true,
        Network::Storage => f.sizing.storage.as_ref().is_some_and(|a| a.rdma),
        Network::Inband | Network::Oob => false,
    }
}

/// Whether railyard renders a config for this device: every switch of an Ethernet network that
/// runs a known OS (InfiniBand switches are configured by their subnet manager).
fn configured(f: &Fabric, d: &Device) -> bool {
    d.platform.is_some() && f.transport_of(d.role) == Some(Transport::Ethernet)
}

/// Build every switch's intent and run the cross-device checks.
pub fn build(
    spec: &ClusterSpec,
    f: &Fabric,
    alloc: &Allocation,
    plan: TenantPlan,
    guids: &PortGuids,
    diags: &mut Diagnostics,
) -> Intents {
    let attached = attachments(f);
    let owners = tenancy::PortOwners::new(&plan);
    let limits = bgp::limits(spec, f, alloc);
    let vlan_sets = oob::VlanSets::new(f, alloc);
    let ctx = Context {
        spec,
        f,
        alloc,
        plan: &plan,
        owners: &owners,
        limits: &limits,
        vlan_sets: &vlan_sets,
    };
    let switches: Vec<(DeviceId, &Device)> = f
        .devices_with_ids()
        .filter(|(_, d)| configured(f, d))
        .collect();
    // Each switch's intent depends on the shared inputs only: built on all cores, each chunk
    // with its own finding counters, merged in device order.
    let parts = crate::parallel::chunks(&switches, |part| {
        let mut ar = interfaces::ArWarnings::default();
        let mut sonic = sonic::SonicFindings::default();
        let intents: Vec<DeviceIntent> = part
            .iter()
            .filter_map(|&(pos, d)| ctx.device(d, &attached[pos], &mut ar, &mut sonic))
            .collect();
        (intents, ar, sonic)
    });
    let mut ar = interfaces::ArWarnings::default();
    let mut sonic = sonic::SonicFindings::default();
    let mut devices = BTreeMap::new();
    for (intents, part_ar, part_sonic) in parts {
        ar.absorb(part_ar);
        sonic.absorb(part_sonic);
        devices.extend(intents.into_iter().map(|i| (i.hostname.clone(), i)));
    }
    ar.report(spec, diags);
    interfaces::check_mixed(spec, &devices, diags);
    overrides::apply(spec, &mut devices, diags);
    for d in devices.values() {
        if let Some(h) = d.sonic.as_ref().and_then(|t| {
            crate::catalog::sonic::platform(&t.platform)?
                .hwskus
                .get(t.hwsku.as_str())
        }) {
            sonic.check(d, h);
        }
    }
    sonic.report(spec, diags);
    // The cross-device checks read the finished intents, as does the hosts' side: one core each,
    // their findings appended in the sequential order (checks first).
    let (checked, (hosts, partitions, rest)) = crate::parallel::join(
        || {
            let mut found = Diagnostics::default();
            checks::run(spec, &devices, &mut found);
            found
        },
        || {
            let mut found = Diagnostics::default();
            tenancy::prove(&plan, &devices, &mut found);
            let hosts = host::build(spec, f, alloc, &devices, &mut found);
            let partitions = partitions::build(spec, &plan, &hosts, guids, &mut found);
            (hosts, partitions, found)
        },
    );
    diags.extend(checked);
    diags.extend(rest);
    Intents {
        devices,
        subnet_managers: subnet_managers(f),
        hosts,
        partitions,
        tenants: plan,
    }
}

/// What every switch's intent is built from.
struct Context<'a> {
    spec: &'a ClusterSpec,
    f: &'a Fabric,
    alloc: &'a Allocation,
    plan: &'a TenantPlan,
    owners: &'a tenancy::PortOwners<'a>,
    limits: &'a BTreeMap<Network, MaxPrefix>,
    vlan_sets: &'a oob::VlanSets,
}

impl Context<'_> {
    /// One switch's intent; `None` for a switch without an OS.
    fn device(
        &self,
        d: &Device,
        links: &[Attached<'_>],
        ar: &mut interfaces::ArWarnings,
        sonic: &mut sonic::SonicFindings,
    ) -> Option<DeviceIntent> {
        let (spec, f, alloc) = (self.spec, self.f, self.alloc);
        let platform = d.platform?;
        let own = &alloc.devices[&d.name];
        let sonic_target = match platform {
            Platform::Sonic => sonic.target(f, d, links),
            _ => None,
        };
        let (mut interfaces, breakouts) = interfaces::build(spec, f, alloc, d, platform, links, ar);
        let l2 = oob::build(d, own, alloc, self.vlan_sets, &mut interfaces);
        let (evpn, mut vrfs) = tenancy::build(self.plan, self.owners, d, own, &mut interfaces);
        let policy = bgp::Policy {
            hosts: prefixes::assign(own, &interfaces, &mut vrfs),
            max_prefix: self.limits.get(&d.network),
        };
        let bgp = bgp::build(spec, alloc, d, own, links, &interfaces, policy);
        // A switch without BGP (a storage leaf pair with no spines) keeps its tenant VRFs as
        // local VRFs: there is no EVPN control plane to carry them.
        let evpn = evpn.filter(|_| bgp.is_some());
        let qos = qos::build(spec, f, d, platform, &interfaces);
        let ar_ports: Vec<String> = interfaces
            .iter()
            .filter(|i| i.adaptive_routing)
            .map(|i| i.name.clone())
            .collect();
        Some(DeviceIntent {
            hostname: d.name.clone(),
            role: d.role,
            network: d.network,
            platform,
            model: d.model.clone(),
            system: system::build(spec, f, d, own),
            l2,
            loopback: Loopback {
                ipv4: own.loopback,
                ipv6: own.loopback_v6,
                vtep: own.vtep,
            },
            breakouts,
            interfaces,
            bgp,
            qos,
            adaptive_routing: (!ar_ports.is_empty()).then_some(AdaptiveRouting { ports: ar_ports }),
            evpn,
            vrfs,
            sonic: sonic_target,
        })
    }
}

/// One subnet-manager intent per InfiniBand fabric: `ar_updn` with the top tier as roots.
fn subnet_managers(f: &Fabric) -> Vec<SubnetManager> {
    let mut out = Vec::new();
    for (network, roles) in [
        (Network::Compute, [Role::Core, Role::Spine, Role::Leaf]),
        (
            Network::Storage,
            [Role::StorageSpine, Role::StorageLeaf, Role::StorageLeaf],
        ),
    ] {
        if f.transport_of(roles[2]) != Some(Transport::Infiniband) {
            continue;
        }
        let in_net: Vec<&Device> = f.devices().filter(|d| d.network == network).collect();
        let top = roles
            .iter()
            .find(|r| in_net.iter().any(|d| d.role == **r))
            .copied();
        let mut roots: Vec<String> = in_net
            .iter()
            .filter(|d| Some(d.role) == top)
            .map(|d| d.name.clone())
            .collect();
        roots.sort();
        out.push(SubnetManager {
            network,
            routing_engine: "ar_updn".into(),
            adaptive_routing: true,
            roots,
            switches: u32::try_from(in_net.iter().filter(|d| d.role.is_switch()).count())
                .unwrap_or(u32::MAX),
            hosts: u32::try_from(in_net.iter().filter(|d| !d.role.is_switch()).count())
                .unwrap_or(u32::MAX),
        });
    }
    out
}
