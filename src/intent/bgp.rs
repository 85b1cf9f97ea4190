//! The eBGP underlay (RFC 7938, FACTS §4): one session per fabric link, ECMP over every uplink,
//! multipath-relax, BFD; leaves announce their loopback and their host block as one aggregate.

use std::collections::BTreeMap;

use ipnet::IpNet;

use super::Attached;
use super::device::{Bfd, Bgp, Interface, InterfaceKind, Neighbor, PrefixRule};
use crate::addressing::{Allocation, DeviceAlloc};
use crate::model::Role;
use crate::spec::ClusterSpec;
use crate::topology::Device;

pub fn build(
    spec: &ClusterSpec,
    alloc: &Allocation,
    d: &Device,
    own: &DeviceAlloc,
    links: &[Attached<'_>],
    ifs: &[Interface],
) -> Option<Bgp> {
    let asn = own.asn?;
    let router_id = match own.loopback? {
        IpNet::V4(n) => n.addr(),
        IpNet::V6(_) => return None,
    };
    let mut neighbors = Vec::new();
    let mut uplinks = 0u32;
    let mut bundle: BTreeMap<&str, u32> = BTreeMap::new();
    // `ifs` holds the non-management links of `links`, in the same order.
    let data = links
        .iter()
        .filter(|a| a.link.tier != crate::model::Tier::Mgmt);
    for (a, i) in data.zip(ifs) {
        if i.kind != InterfaceKind::Fabric {
            continue;
        }
        let Some(remote_asn) = alloc.devices.get(&a.peer.name).and_then(|p| p.asn) else {
            continue;
        };
        if a.lower {
            uplinks += 1;
        }
        *bundle.entry(a.peer.name.as_str()).or_default() += 1;
        let la = &alloc.links[a.index];
        let peer_addr = if a.lower { la.b } else { la.a };
        neighbors.push(Neighbor {
            interface: i.name.clone(),
            address: if alloc.unnumbered {
                None
            } else {
                peer_addr.map(|n| n.addr())
            },
            remote_asn,
            peer_device: i.peer_device.clone(),
            peer_port: i.peer_port.clone(),
        });
    }
    if neighbors.is_empty() {
        return None;
    }
    let widest = bundle.values().copied().max().unwrap_or(1);
    let exact = |p: &IpNet| PrefixRule {
        prefix: *p,
        le: None,
    };
    let within = |p: &IpNet, le: u8| PrefixRule {
        prefix: *p,
        le: Some(le),
    };
    let mut redistribute: Vec<PrefixRule> = own.loopback.iter().map(exact).collect();
    redistribute.extend(own.vtep.iter().map(exact));
    redistribute.extend(own.host_block.iter().map(|b| within(b, 31)));
    let mut redistribute_v6: Vec<PrefixRule> = own.loopback_v6.iter().map(exact).collect();
    redistribute_v6.extend(own.host_block_v6.iter().map(|b| within(b, 127)));
    let aggregates: Vec<IpNet> = own
        .host_block
        .iter()
        .chain(&own.host_block_v6)
        .copied()
        .collect();
    let b = &spec.bgp;
    Some(Bgp {
        asn,
        router_id,
        unnumbered: alloc.unnumbered,
        maximum_paths: if uplinks > 0 { uplinks } else { widest },
        multipath_relax: true,
        allowas_in: alloc.reuse_leaf_asns && d.role == Role::Leaf,
        bfd: b.bfd.then(|| Bfd {
            profile: "fabric".into(),
            interval_ms: *b.bfd_interval_ms,
            multiplier: *b.bfd_multiplier,
        }),
        peer_group: "fabric".into(),
        neighbors,
        redistribute,
        redistribute_v6,
        aggregates,
    })
}
