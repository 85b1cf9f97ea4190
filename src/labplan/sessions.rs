//! What the lab's control plane must show: the planned BGP sessions (those towards dropped
//! devices apart) and the ECMP width of each leaf towards every other leaf.

use serde::{Deserialize, Serialize};

use super::routers::Router;
use super::scale::Selection;
use crate::intent::{DeviceIntent, Intents};
use crate::model::Role;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub router: String,
    /// FRR's name of the neighbour: the interface (unnumbered) or the peer address.
    pub neighbor: String,
    pub interface: String,
    pub local_asn: u64,
    pub remote_asn: u64,
    pub peer: String,
    pub peer_port: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EcmpTarget {
    pub leaf: String,
    pub peer_leaf: String,
    pub prefix: String,
    /// The leaf's uplink count in the lab.
    pub width: usize,
}

/// The sessions of the kept switches: planned (both ends kept) and dropped (the peer is not).
pub(super) fn sessions(intents: &Intents, sel: &Selection) -> (Vec<Session>, Vec<Session>) {
    let mut planned = Vec::new();
    let mut dropped = Vec::new();
    for (name, d) in &intents.devices {
        if !sel.keep.contains(name) {
            continue;
        }
        let Some(bgp) = &d.bgp else { continue };
        for n in &bgp.neighbors {
            let neighbor = match (bgp.unnumbered, n.address) {
                (false, Some(a)) => a.to_string(),
                _ => n.interface.clone(),
            };
            let s = Session {
                router: name.clone(),
                neighbor,
                interface: n.interface.clone(),
                local_asn: bgp.asn,
                remote_asn: n.remote_asn,
                peer: n.peer_device.clone(),
                peer_port: n.peer_port.clone(),
            };
            if sel.keep.contains(&n.peer_device) {
                planned.push(s);
            } else {
                dropped.push(s);
            }
        }
    }
    (planned, dropped)
}

fn is_leaf(r: Role) -> bool {
    matches!(r, Role::Leaf | Role::StorageLeaf | Role::InbandLeaf)
}

/// Per leaf with BGP and a loopback: the width (its sessions in the lab) towards every other
/// such leaf of its network.
pub(super) fn ecmp(intents: &Intents, routers: &[Router], sessions: &[Session]) -> Vec<EcmpTarget> {
    let leaves: Vec<(&Router, &DeviceIntent)> = routers
        .iter()
        .filter(|r| is_leaf(r.role) && r.asn.is_some() && r.loopback.is_some())
        .filter_map(|r| intents.devices.get(&r.name).map(|d| (r, d)))
        .collect();
    let mut out = Vec::new();
    for (r, d) in &leaves {
        let width = sessions.iter().filter(|s| s.router == r.name).count();
        if width == 0 {
            continue;
        }
        for (other, od) in &leaves {
            if other.name == r.name || od.network != d.network {
                continue;
            }
            let Some(lo) = other.loopback else { continue };
            out.push(EcmpTarget {
                leaf: r.name.clone(),
                peer_leaf: other.name.clone(),
                prefix: format!("{lo}/32"),
                width,
            });
        }
    }
    out
}
