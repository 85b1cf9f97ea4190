//! Which host prefixes each VRF of a leaf announces. Without tenants the leaf's whole host block
//! is one aggregate in the default VRF. Once tenant ports move into tenant VRFs, every VRF
//! (the default one included) announces exactly the /31s of its own ports, merged into the
//! fewest prefixes that cover them and nothing else: no VRF names a subnet whose ports live in
//! another.

use std::collections::BTreeMap;

use ipnet::IpNet;

use super::device::{Interface, InterfaceKind, PrefixRule, Vrf};
use crate::addressing::DeviceAlloc;

/// One VRF's host prefixes: aggregates (announced summary-only) and the redistribution rules
/// that let their /31s (or /127s) into BGP.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostPrefixes {
    pub aggregates: Vec<IpNet>,
    pub redistribute: Vec<PrefixRule>,
    pub redistribute_v6: Vec<PrefixRule>,
}

/// A rule admitting the host addresses inside `net` (`le` the host-link length).
fn within(net: IpNet) -> PrefixRule {
    let host = if net.addr().is_ipv4() { 31 } else { 127 };
    PrefixRule {
        prefix: net,
        le: (net.prefix_len() < host).then_some(host),
    }
}

impl HostPrefixes {
    fn of(v4: &[IpNet], v6: &[IpNet]) -> Self {
        Self {
            aggregates: v4.iter().chain(v6).copied().collect(),
            redistribute: v4.iter().copied().map(within).collect(),
            redistribute_v6: v6.iter().copied().map(within).collect(),
        }
    }
}

/// Host prefixes per VRF (`None` = default VRF) of one switch, from its host blocks and the VRF
/// each host port sits in.
pub fn by_vrf(
    own: &DeviceAlloc,
    interfaces: &[Interface],
) -> BTreeMap<Option<String>, HostPrefixes> {
    let hosts: Vec<&Interface> = interfaces
        .iter()
        .filter(|i| i.kind == InterfaceKind::Host)
        .collect();
    let mut out = BTreeMap::new();
    if hosts.iter().all(|i| i.vrf.is_none()) {
        let v4: Vec<IpNet> = own.host_block.into_iter().collect();
        let v6: Vec<IpNet> = own.host_block_v6.into_iter().collect();
        if !v4.is_empty() || !v6.is_empty() {
            out.insert(None, HostPrefixes::of(&v4, &v6));
        }
        return out;
    }
    let mut nets: BTreeMap<Option<String>, (Vec<IpNet>, Vec<IpNet>)> = BTreeMap::new();
    for i in hosts {
        let e = nets.entry(i.vrf.clone()).or_default();
        e.0.extend(i.ipv4.map(|n| n.trunc()));
        e.1.extend(i.ipv6.map(|n| n.trunc()));
    }
    for (vrf, (v4, v6)) in nets {
        out.insert(
            vrf,
            HostPrefixes::of(&IpNet::aggregate(&v4), &IpNet::aggregate(&v6)),
        );
    }
    out
}

/// Give each tenant VRF its own host prefixes; returns the default VRF's.
pub fn assign(own: &DeviceAlloc, interfaces: &[Interface], vrfs: &mut [Vrf]) -> HostPrefixes {
    let mut all = by_vrf(own, interfaces);
    for v in vrfs.iter_mut() {
        let p = all.remove(&Some(v.name.clone())).unwrap_or_default();
        v.aggregates = p.aggregates;
        v.redistribute = p.redistribute;
        v.redistribute_v6 = p.redistribute_v6;
    }
    all.remove(&None).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> IpNet {
        s.parse().unwrap_or_else(|_| panic!("{s}"))
    }

    #[test]
    fn adjacent_host_links_merge_into_the_fewest_covering_prefixes() {
        // Positions 0..4 and 6: a /29 and a /31, never the /28 that would include 4 and 5.
        let links: Vec<IpNet> = [0, 2, 4, 6, 12]
            .iter()
            .map(|o| net(&format!("10.64.0.{o}/31")))
            .collect();
        let agg = IpNet::aggregate(&links);
        assert_eq!(agg, [net("10.64.0.0/29"), net("10.64.0.12/31")]);
        let p = HostPrefixes::of(&agg, &[]);
        assert_eq!(p.redistribute[0].le, Some(31));
        // A lone /31 is matched exactly: `le 31` on a /31 is not a range FRR accepts.
        assert_eq!(p.redistribute[1].le, None);
    }
}
