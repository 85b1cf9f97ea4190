//! EOS routing policy: the prefix lists and route maps gating redistribution (default VRF, then
//! each tenant VRF) and the leaf's outbound policy.

use ipnet::IpNet;
use serde::Serialize;

use super::tenant_vrfs;
use crate::intent::DeviceIntent;

/// Route-map and prefix-list names; the same as the FRR renderer's, so configs read alike.
pub const CONNECTED_V4: &str = "CONNECTED-TO-BGP";
pub const CONNECTED_V6: &str = "CONNECTED-TO-BGP-V6";
pub const EXPORT_V4: &str = "FABRIC-OUT";
pub const EXPORT_V6: &str = "FABRIC-OUT-V6";

#[derive(Serialize)]
pub struct PrefixList {
    /// `ip` or `ipv6`, the keyword of both the list and the route-map match.
    family: &'static str,
    name: String,
    entries: Vec<PrefixEntry>,
}

#[derive(Serialize)]
struct PrefixEntry {
    seq: u32,
    prefix: IpNet,
    le: Option<u8>,
}

#[derive(Serialize)]
pub struct RouteMap {
    name: String,
    seq: u32,
    family: &'static str,
    prefix_list: String,
}

/// The route map (and prefix list) gating a tenant VRF's `redistribute connected`.
pub fn vrf_redistribute(v: &crate::intent::Vrf) -> String {
    format!("{CONNECTED_V4}-{}", v.name)
}

/// Prefix lists: redistribution (default VRF, then each tenant VRF by name) and the leaf's
/// outbound policy; rules step by 10 so a hand-added rule fits between two generated ones.
pub fn prefix_lists(d: &DeviceIntent) -> Vec<PrefixList> {
    let Some(b) = &d.bgp else {
        return Vec::new();
    };
    let entries = |rules: &[crate::intent::PrefixRule]| -> Vec<PrefixEntry> {
        (10u32..)
            .step_by(10)
            .zip(rules)
            .map(|(seq, r)| PrefixEntry {
                seq,
                prefix: r.prefix,
                le: r.le,
            })
            .collect()
    };
    let tenant = tenant_vrfs(d)
        .into_iter()
        .map(|v| ("ip", vrf_redistribute(v), v.redistribute.as_slice()));
    [
        ("ip", CONNECTED_V4.to_string(), b.redistribute.as_slice()),
        (
            "ipv6",
            CONNECTED_V6.to_string(),
            b.redistribute_v6.as_slice(),
        ),
        ("ip", EXPORT_V4.to_string(), b.export.as_slice()),
        ("ipv6", EXPORT_V6.to_string(), b.export_v6.as_slice()),
    ]
    .into_iter()
    .chain(tenant)
    .filter(|(_, _, rules)| !rules.is_empty())
    .map(|(family, name, rules)| PrefixList {
        family,
        name,
        entries: entries(rules),
    })
    .collect()
}

pub fn route_maps(d: &DeviceIntent) -> Vec<RouteMap> {
    prefix_lists(d)
        .into_iter()
        .map(|p| RouteMap {
            prefix_list: p.name.clone(),
            name: p.name,
            seq: 10,
            family: p.family,
        })
        .collect()
}
