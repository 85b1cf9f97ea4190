//! The management network's switches. OOB switches are layer 2: every access port carries the
//! management VLAN of the device cabled to it (one VLAN per management subnet, so per SU and per
//! central role), the uplink to the OOB gateway is an 802.1Q trunk with exactly the VLANs below
//! it, and the switch's own address sits on a VLAN interface of its own subnet. The gateway
//! holds the first address of every management subnet, the gateway every management route of
//! the cluster points at.

use std::collections::{BTreeMap, BTreeSet};

use super::device::{Interface, InterfaceKind, Svi, Switching, Vlan};
use crate::addressing::{Allocation, DeviceAlloc};
use crate::model::{Role, Tier};
use crate::topology::{Device, Fabric};

/// BMCs and management ports run standard frames.
pub const MTU: u32 = 1500;

/// Per OOB switch, the VLANs it carries: those of the devices on its access ports, and its own.
pub struct VlanSets(BTreeMap<String, BTreeSet<u16>>);

impl VlanSets {
    pub fn new(f: &Fabric, alloc: &Allocation) -> Self {
        let vlan = |name: &str| alloc.devices.get(name).and_then(|a| a.mgmt_vlan);
        let mut sets: BTreeMap<String, BTreeSet<u16>> = BTreeMap::new();
        for l in f.links().filter(|l| l.tier == Tier::Mgmt) {
            let (dev, sw) = (f.device_of(&l.a), f.device_of(&l.b));
            if let Some(v) = vlan(&dev.name) {
                sets.entry(sw.name.clone()).or_default().insert(v);
            }
        }
        for d in f
            .devices()
            .filter(|d| matches!(d.role, Role::OobLeaf | Role::OobCore))
        {
            if let Some(v) = vlan(&d.name) {
                sets.entry(d.name.clone()).or_default().insert(v);
            }
        }
        Self(sets)
    }

    fn of(&self, name: &str) -> Vec<u16> {
        self.0
            .get(name)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    }

    fn all(&self) -> BTreeSet<u16> {
        self.0.values().flatten().copied().collect()
    }
}

fn vlan_of(alloc: &Allocation, id: u16) -> Option<Vlan> {
    alloc.mgmt_subnets.get(&id).map(|s| Vlan {
        id,
        name: s.name.clone(),
        subnet: s.subnet,
    })
}

/// The VLANs of an OOB switch's ports and its layer-2 section; `None` for other switches.
pub fn build(
    d: &Device,
    own: &DeviceAlloc,
    alloc: &Allocation,
    sets: &VlanSets,
    interfaces: &mut [Interface],
) -> Option<Switching> {
    if !d.role.is_oob() {
        return None;
    }
    let gateway = d.role == Role::OobGateway;
    for i in interfaces.iter_mut() {
        match i.kind {
            InterfaceKind::Access => {
                i.access_vlan = alloc.devices.get(&i.peer_device).and_then(|a| a.mgmt_vlan);
            }
            // Both ends of a trunk carry the VLANs of the OOB switch end.
            InterfaceKind::Trunk => {
                i.trunk_vlans = sets.of(if gateway { &i.peer_device } else { &d.name });
            }
            InterfaceKind::Fabric | InterfaceKind::Host => {}
        }
    }
    if gateway {
        let ids = sets.all();
        return Some(Switching {
            vlans: ids.iter().filter_map(|v| vlan_of(alloc, *v)).collect(),
            svis: ids
                .iter()
                .filter_map(|v| {
                    let s = alloc.mgmt_subnets.get(v)?;
                    Some(Svi {
                        vlan: *v,
                        name: format!("vlan{v}"),
                        vlan_name: s.name.clone(),
                        address: s.gateway,
                        gateway: true,
                    })
                })
                .collect(),
            default_gateway: None,
        });
    }
    let own_vlan = own.mgmt_vlan;
    Some(Switching {
        vlans: sets
            .of(&d.name)
            .into_iter()
            .filter_map(|v| vlan_of(alloc, v))
            .collect(),
        svis: own_vlan
            .zip(own.mgmt)
            .map(|(v, address)| Svi {
                vlan: v,
                name: format!("vlan{v}"),
                vlan_name: alloc
                    .mgmt_subnets
                    .get(&v)
                    .map_or_else(String::new, |s| s.name.clone()),
                address,
                gateway: false,
            })
            .into_iter()
            .collect(),
        default_gateway: own.mgmt_gateway,
    })
}
