//! The lab's cables: one veth pair per cable between two kept devices, each end under its
//! kernel interface name, in the namespace it lives in, with its MTU and planned address.

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use super::names::{Renamed, device_ns, ifname, vrf_ns};
use super::scale::Selection;
use crate::design::Design;
use crate::model::Tier;

/// Router name → its ports that exist in the lab (cabled to a kept device).
pub(super) type PortsInLab = BTreeMap<String, BTreeSet<String>>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cable {
    pub id: String,
    pub a: CableEnd,
    pub b: CableEnd,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CableEnd {
    pub device: String,
    /// The cabling plan's port name.
    pub port: String,
    /// Kernel interface name (the port name unless mapped: see [`super::LabPlan::renamed`]).
    pub ifname: String,
    /// Namespace the end lives in (a tenant VRF namespace for leaf ports in a VRF).
    pub ns: String,
    pub mtu: u32,
    /// This end's IPv4 address in the address plan (node ports and numbered links).
    pub address: Option<IpNet>,
}

/// The veth pairs in cabling-plan order, and per router the ports that exist in the lab.
pub(super) fn cables(
    i: &Design,
    sel: &Selection,
    renamed: &mut Vec<Renamed>,
) -> (Vec<Cable>, PortsInLab) {
    let (f, intents) = (&i.fabric, &i.intents);
    let mut used: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut ports_in_lab: PortsInLab = BTreeMap::new();
    let mut out = Vec::new();
    let hosts = &intents.hosts.nodes;
    for (n, l) in f.links_with_ids() {
        if l.tier == Tier::Mgmt {
            continue;
        }
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        if !sel.keep.contains(&a.name) || !sel.keep.contains(&b.name) {
            continue;
        }
        let la = i.allocation.links.get(n);
        let mut ends = Vec::with_capacity(2);
        for (d, p, address, peer, peer_p) in [
            (a, l.a.port, la.and_then(|x| x.a), b, l.b.port),
            (b, l.b.port, la.and_then(|x| x.b), a, l.a.port),
        ] {
            let port = f.port_name(d, p);
            let names = used.entry(d.name.clone()).or_default();
            let name = ifname(&port, names);
            if name != port {
                renamed.push(Renamed {
                    device: d.name.clone(),
                    port: port.clone(),
                    ifname: name.clone(),
                });
            }
            let (ns, mtu) = match intents.devices.get(&d.name) {
                Some(di) => {
                    let iface = di.interfaces.iter().find(|x| x.name == port);
                    let ns = match iface.and_then(|x| x.vrf.as_deref()) {
                        Some(vrf) => vrf_ns(&d.name, vrf),
                        None => device_ns(&d.name),
                    };
                    ports_in_lab
                        .entry(d.name.clone())
                        .or_default()
                        .insert(port.clone());
                    // Every cabled switch port has an interface in the intent; the fallback is
                    // the switch ports' usual jumbo MTU.
                    (ns, iface.map_or(9216, |x| x.mtu))
                }
                None => {
                    let own = hosts
                        .get(&d.name)
                        .and_then(|h| h.ports.iter().find(|hp| hp.port == port))
                        .map(|hp| hp.mtu);
                    // Node ports outside the host plan (storage, in-band) take the switch port's.
                    let peer_port = f.port_name(peer, peer_p);
                    let switch = intents
                        .devices
                        .get(&peer.name)
                        .and_then(|di| di.interfaces.iter().find(|x| x.name == peer_port))
                        .map(|x| x.mtu);
                    (device_ns(&d.name), own.or(switch).unwrap_or(1500))
                }
            };
            ends.push(CableEnd {
                device: d.name.clone(),
                port,
                ifname: name,
                ns,
                mtu,
                address,
            });
        }
        let (Some(b_end), Some(a_end)) = (ends.pop(), ends.pop()) else {
            continue;
        };
        out.push(Cable {
            id: l.cable_id.clone(),
            a: a_end,
            b: b_end,
        });
    }
    (out, ports_in_lab)
}
