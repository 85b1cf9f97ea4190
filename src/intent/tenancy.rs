//! Tenants on the switches: EVPN on every compute switch (spines carry the l2vpn-evpn family,
//! leaves also the VTEP and the tenant VRFs), a VRF per tenant only on the leaves that carry its
//! ports, each such port moved into the tenant's VRF. The isolation proof on the result: every
//! tenant port sits in its own tenant's VRF and nowhere else.

use std::collections::BTreeMap;

use ipnet::IpNet;

use super::device::{DeviceIntent, Evpn, Interface, Vrf};
use crate::addressing::DeviceAlloc;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::Role;
use crate::tenancy::TenantPlan;
use crate::topology::Device;

/// Leaf → port → tenant, from the plan.
pub struct PortOwners<'a>(BTreeMap<(&'a str, &'a str), &'a crate::tenancy::Tenant>);

impl<'a> PortOwners<'a> {
    pub fn new(plan: &'a TenantPlan) -> Self {
        let mut m = BTreeMap::new();
        for t in &plan.tenants {
            for (leaf, ports) in &t.ports {
                for p in ports {
                    m.insert((leaf.as_str(), p.as_str()), t);
                }
            }
        }
        Self(m)
    }
}

/// EVPN and the VRFs of one switch; interfaces of tenant ports get their VRF. `None`/empty when
/// the cluster has no tenants.
pub fn build(
    plan: &TenantPlan,
    owners: &PortOwners<'_>,
    d: &Device,
    own: &DeviceAlloc,
    interfaces: &mut [Interface],
) -> (Option<Evpn>, Vec<Vrf>) {
    if plan.tenants.is_empty() {
        return (None, Vec::new());
    }
    let carries = plan.tenants.iter().any(|t| t.ports.contains_key(&d.name));
    // Spines and cores relay EVPN routes; leaves originate them. Switches of a network without
    // tenant ports stay out of EVPN altogether.
    let relay = matches!(
        d.role,
        Role::Spine
            | Role::Core
            | Role::StorageSpine
            | Role::StorageCore
            | Role::InbandSpine
            | Role::InbandCore
    ) && plan.tenants.iter().any(|t| t.networks.contains(&d.network));
    if !carries && !relay {
        return (None, Vec::new());
    }
    let vtep: Option<IpNet> = if carries {
        own.vtep.or(own.loopback)
    } else {
        None
    };
    let mut vrfs: BTreeMap<u32, Vrf> = BTreeMap::new();
    for i in interfaces.iter_mut() {
        let Some(t) = owners.0.get(&(d.name.as_str(), i.name.as_str())) else {
            continue;
        };
        i.vrf = Some(t.vrf.clone());
        let v = vrfs.entry(t.id).or_insert_with(|| Vrf {
            name: t.vrf.clone(),
            tenant_id: t.id,
            l3vni: t.l3vni,
            vlan: t.vlan,
            rd: t.rd.get(&d.name).cloned().unwrap_or_default(),
            import: t.import.clone(),
            export: t.export.clone(),
            interfaces: Vec::new(),
            aggregates: Vec::new(),
            redistribute: Vec::new(),
            redistribute_v6: Vec::new(),
        });
        v.interfaces.push(i.name.clone());
    }
    let evpn = Evpn {
        vtep,
        advertise_all_vni: carries,
    };
    (Some(evpn), vrfs.into_values().collect())
}

/// The isolation proof on the rendered intent: each tenant port is in its tenant's VRF on its
/// leaf, no port of a tenant node is left in the default VRF, and a VRF exists only where it has
/// ports.
pub fn prove(plan: &TenantPlan, devs: &BTreeMap<String, DeviceIntent>, diags: &mut Diagnostics) {
    for t in &plan.tenants {
        for (leaf, ports) in &t.ports {
            let Some(d) = devs.get(leaf) else { continue };
            for p in ports {
                let vrf = d
                    .interfaces
                    .iter()
                    .find(|i| &i.name == p)
                    .and_then(|i| i.vrf.as_deref());
                if vrf != Some(t.vrf.as_str()) {
                    diags.push(Diagnostic::error(
                        codes::TENANT_PORT_VRF,
                        format!(
                            "{leaf}:{p} of tenant `{}` is in VRF {vrf:?}, not `{}`",
                            t.name, t.vrf
                        ),
                    ));
                }
            }
        }
    }
    for d in devs.values() {
        for v in &d.vrfs {
            if v.interfaces.is_empty() {
                diags.push(Diagnostic::error(
                    codes::TENANT_PORT_VRF,
                    format!(
                        "VRF `{}` exists on {} without a port of its tenant",
                        v.name, d.hostname
                    ),
                ));
            }
        }
    }
}
