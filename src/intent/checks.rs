//! Cross-device checks on the intent: both ends of every BGP session agree; MTU and the RoCE
//! class match across every fabric link; router-ids are unique; the MTU leaves room for VXLAN.

use std::collections::BTreeMap;
// Lookup only, never iterated: see `Index`.
#[allow(clippy::disallowed_types)]
use std::collections::HashMap;

use ipnet::IpNet;

use super::device::{
    DeviceIntent, Interface, InterfaceKind, Neighbor, PrefixRule, QosMode, TrafficClass,
};
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::spec::ClusterSpec;

/// VXLAN over IPv4 adds 50 bytes (outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8).
const VXLAN_OVERHEAD: u32 = 50;

/// Interfaces and BGP neighbours by (device, interface), built once: the checks look up the far
/// end of every link, and a linear search per lookup is quadratic on a 5,000-switch fabric.
/// Per device, its interfaces and neighbours by interface name (small maps: one big map keyed on
/// (device, port) costs more in string comparisons than it saves).
struct DeviceIndex<'a> {
    device: &'a DeviceIntent,
    interfaces: BTreeMap<&'a str, &'a Interface>,
    neighbors: BTreeMap<&'a str, &'a Neighbor>,
}

/// Devices by hostname through a hash table: only looked up, never iterated, so no output depends
/// on its order. Why not a `BTreeMap`: at 131k GPUs (10k switches, 400k sessions) the ordered
/// search compared hostnames that share long prefixes 14 times per lookup, and `memcmp` was a
/// quarter of `railyard validate` (perf, issue #28).
#[allow(clippy::disallowed_types)]
struct Index<'a>(HashMap<&'a str, DeviceIndex<'a>>);

impl<'a> Index<'a> {
    fn new(devs: &'a BTreeMap<String, DeviceIntent>) -> Self {
        Self(
            devs.values()
                .map(|d| {
                    let interfaces = d.interfaces.iter().map(|i| (i.name.as_str(), i)).collect();
                    let neighbors = d
                        .bgp
                        .iter()
                        .flat_map(|b| &b.neighbors)
                        .map(|n| (n.interface.as_str(), n))
                        .collect();
                    (
                        d.hostname.as_str(),
                        DeviceIndex {
                            device: d,
                            interfaces,
                            neighbors,
                        },
                    )
                })
                .collect(),
        )
    }

    fn device(&self, dev: &str) -> Option<&DeviceIndex<'a>> {
        self.0.get(dev)
    }

    fn find(&self, dev: &str, port: &str) -> Option<(&'a DeviceIntent, &'a Interface)> {
        let d = self.0.get(dev)?;
        Some((d.device, *d.interfaces.get(port)?))
    }
}

pub fn run(spec: &ClusterSpec, devs: &BTreeMap<String, DeviceIntent>, diags: &mut Diagnostics) {
    let ix = Index::new(devs);
    // Sessions on one core, the rest on another; findings in this order either way.
    let (of_sessions, of_rest) = crate::parallel::join(
        || {
            let mut found = Diagnostics::default();
            sessions(spec, devs, &ix, &mut found);
            found
        },
        || {
            let mut found = Diagnostics::default();
            links(spec, devs, &ix, &mut found);
            router_ids(spec, devs, &mut found);
            vrf_prefix_lists(spec, devs, &mut found);
            found
        },
    );
    diags.extend(of_sessions);
    diags.extend(of_rest);
}

/// Whether a prefix-list rule (or an aggregate, `le` = its own length) matches subnet `n`.
fn rule_matches(r: &PrefixRule, n: &IpNet) -> bool {
    r.prefix.contains(&n.network())
        && n.prefix_len() >= r.prefix.prefix_len()
        && n.prefix_len() <= r.le.unwrap_or(r.prefix.prefix_len())
}

/// The prefix lists and aggregates of each VRF of a switch (`None` = default VRF).
fn vrf_policies(d: &DeviceIntent) -> Vec<(Option<&str>, Vec<PrefixRule>)> {
    let aggregate = |p: &IpNet| PrefixRule {
        prefix: *p,
        le: Some(if p.addr().is_ipv4() { 32 } else { 128 }),
    };
    let mut out = Vec::new();
    if let Some(b) = &d.bgp {
        let rules = b
            .redistribute
            .iter()
            .chain(&b.redistribute_v6)
            .chain(&b.export)
            .chain(&b.export_v6)
            .cloned()
            .chain(b.aggregates.iter().map(aggregate))
            .collect();
        out.push((None, rules));
    }
    for v in &d.vrfs {
        let rules = v
            .redistribute
            .iter()
            .chain(&v.redistribute_v6)
            .cloned()
            .chain(v.aggregates.iter().map(aggregate))
            .collect();
        out.push((Some(v.name.as_str()), rules));
    }
    out
}

/// No VRF's prefix list or aggregate names a subnet whose port lives in another VRF: such a
/// line is dead config at best, and at worst announces (or attracts) another tenant's traffic.
fn vrf_prefix_lists(
    spec: &ClusterSpec,
    devs: &BTreeMap<String, DeviceIntent>,
    diags: &mut Diagnostics,
) {
    // (policy VRF, port VRF) → (count, example)
    let mut found: BTreeMap<(String, String), (u32, String)> = BTreeMap::new();
    let name = |v: Option<&str>| v.unwrap_or("default").to_string();
    for d in devs.values() {
        for (vrf, rules) in vrf_policies(d) {
            for i in d.interfaces.iter().filter(|i| i.vrf.as_deref() != vrf) {
                for n in i.ipv4.iter().chain(&i.ipv6).map(IpNet::trunc) {
                    if let Some(r) = rules.iter().find(|r| rule_matches(r, &n)) {
                        let e = found
                            .entry((name(vrf), name(i.vrf.as_deref())))
                            .or_insert((0, String::new()));
                        if e.0 == 0 {
                            e.1 = format!(
                                "{}: {} in VRF {} matches {}:{n}",
                                d.hostname,
                                r.prefix,
                                name(vrf),
                                i.name
                            );
                        }
                        e.0 += 1;
                    }
                }
            }
        }
    }
    for ((policy, port), (count, example)) in found {
        let span = spec
            .tenants
            .iter()
            .find(|t| t.name.value == policy || t.name.value == port)
            .and_then(|t| t.name.span);
        diags.push(
            Diagnostic::error(
                codes::PREFIX_OTHER_VRF,
                format!(
                    "VRF {policy} announces subnets of ports in VRF {port} ({count} port(s), e.g. {example})"
                ),
            )
            .at(span, "tenant")
            .help("each VRF's redistribution and aggregates must cover its own ports only; this is a railyard bug, please report it with the spec"),
        );
    }
}

fn sessions(
    spec: &ClusterSpec,
    devs: &BTreeMap<String, DeviceIntent>,
    ix: &Index<'_>,
    diags: &mut Diagnostics,
) {
    // (device, peer device, why) → (sessions, first session), so one broken device is one line
    // per peer, not one per parallel link and side.
    let mut found: BTreeMap<(String, String, String), (u32, String)> = BTreeMap::new();
    for d in devs.values() {
        let Some(bgp) = &d.bgp else { continue };
        for n in &bgp.neighbors {
            // A peer railyard renders no config for (no known OS, RY0106) cannot be compared.
            let Some(far) = ix.device(&n.peer_device) else {
                continue;
            };
            let mut note = |why: String| {
                let e = found
                    .entry((d.hostname.clone(), n.peer_device.clone(), why))
                    .or_insert((
                        0,
                        format!(
                            "{}:{} ↔ {}:{}",
                            d.hostname, n.interface, n.peer_device, n.peer_port
                        ),
                    ));
                e.0 += 1;
            };
            let peer = far.device;
            let Some(pif) = far.interfaces.get(n.peer_port.as_str()) else {
                note("the far end has no such interface".into());
                continue;
            };
            let Some(pbgp) = &peer.bgp else {
                note("the far end runs no BGP".into());
                continue;
            };
            if pbgp.asn != n.remote_asn {
                note(format!(
                    "expects ASN {} but the peer has ASN {}",
                    n.remote_asn, pbgp.asn
                ));
            }
            match far.neighbors.get(n.peer_port.as_str()) {
                None => note("the far end has no session back".into()),
                Some(m) => {
                    if m.peer_device != d.hostname || m.peer_port != n.interface {
                        note("the far end's session points elsewhere".into());
                    }
                }
            }
            if bgp.unnumbered != pbgp.unnumbered {
                note("one end is unnumbered, the other numbered".into());
            } else if let Some(addr) = n.address
                && pif.ipv4.map(|p| p.addr()) != Some(addr)
            {
                note(format!(
                    "neighbor address {addr} is not the far end's interface address"
                ));
            }
        }
    }
    for ((dev, peer, why), (count, example)) in found {
        let overridden = [&dev, &peer]
            .into_iter()
            .find_map(|x| spec.overrides.get(x.as_str()));
        let msg =
            format!("BGP sessions {dev} → {peer}: {why} ({count} session(s), e.g. {example})");
        let d = match overridden {
            Some(o) => Diagnostic::warning(codes::BGP_SESSION_MISMATCH, msg)
                .at(
                    o.asn.as_ref().and_then(|a| a.span).or(o.loopback.as_ref().and_then(|l| l.span)),
                    "override",
                )
                .help("the override breaks these sessions; configs are written anyway (remove it to restore them)"),
            None => Diagnostic::error(codes::BGP_SESSION_MISMATCH, msg)
                .help("the sessions would not come up; this is a railyard bug, please report it"),
        };
        diags.push(d);
    }
}

/// Findings that repeat on many links of the same kind are reported once, with a count and the
/// first link as an example, so a fabric-wide mistake is one diagnostic, not thousands.
#[derive(Default)]
struct Tally(BTreeMap<(&'static str, String), (u32, String, Option<crate::diag::Span>)>);

impl Tally {
    fn add(
        &mut self,
        kind: &'static str,
        detail: String,
        link: String,
        span: Option<crate::diag::Span>,
    ) {
        let e = self.0.entry((kind, detail)).or_insert((0, link, span));
        e.0 += 1;
    }
}

fn links(
    spec: &ClusterSpec,
    devs: &BTreeMap<String, DeviceIntent>,
    ix: &Index<'_>,
    diags: &mut Diagnostics,
) {
    let vxlan = spec.addressing.vteps.is_some();
    let host_mtu = *spec.roce.host_mtu;
    let mut tally = Tally::default();
    for d in devs.values() {
        for i in d
            .interfaces
            .iter()
            .filter(|i| i.kind == InterfaceKind::Fabric)
        {
            if vxlan && i.mtu < host_mtu + VXLAN_OVERHEAD {
                tally.add(
                    "vxlan",
                    format!(
                        "MTU {} on `{}` fabric ports is too small for VXLAN over host MTU {host_mtu} (needs {})",
                        i.mtu,
                        d.platform,
                        host_mtu + VXLAN_OVERHEAD
                    ),
                    format!("{}:{}", d.hostname, i.name),
                    spec.roce.mtu.span,
                );
            }
            // Each link once: from its lexically smaller end.
            if (d.hostname.as_str(), i.name.as_str())
                > (i.peer_device.as_str(), i.peer_port.as_str())
            {
                continue;
            }
            let Some((peer, pif)) = ix.find(&i.peer_device, &i.peer_port) else {
                continue;
            };
            let link = || format!("{}:{} ↔ {}:{}", d.hostname, i.name, peer.hostname, pif.name);
            // Point at the spec's platform choice of either end, else at the fabric MTU.
            let choice = |x: &DeviceIntent| spec.platforms.for_role(x.role).and_then(|p| p.span);
            let span = choice(d).or_else(|| choice(peer));
            if pif.mtu != i.mtu {
                tally.add(
                    "mtu",
                    format!(
                        "MTU differs across fabric links: {} on `{}` {} switches, {} on `{}` {} switches",
                        i.mtu,
                        d.platform,
                        d.role.as_str(),
                        pif.mtu,
                        peer.platform,
                        peer.role.as_str()
                    ),
                    link(),
                    span.or(spec.roce.mtu.span),
                );
            }
            if roce_class(d, i) != roce_class(peer, pif) {
                tally.add(
                    "qos",
                    format!(
                        "the RoCE class differs across fabric links: `{}` {} switches run {}, `{}` {} switches run {}",
                        d.platform,
                        d.role.as_str(),
                        qos_name(d, i),
                        peer.platform,
                        peer.role.as_str(),
                        qos_name(peer, pif)
                    ),
                    link(),
                    span,
                );
            }
        }
    }
    for ((kind, detail), (count, example, span)) in tally.0 {
        let (code, help) = match kind {
            "vxlan" => (
                codes::MTU_MISMATCH,
                "raise `roce.mtu` or lower `roce.host_mtu`",
            ),
            "mtu" => (
                codes::MTU_MISMATCH,
                "EOS takes at most 9214: set `roce.mtu: 9214` when EOS shares links with other platforms",
            ),
            _ => (
                codes::QOS_MISMATCH,
                "run a platform with QoS on both ends (FRR alone has none), or the same `roce` settings",
            ),
        };
        diags.push(
            Diagnostic::error(code, format!("{detail} ({count} link(s), e.g. {example})"))
                .at(
                    span,
                    if kind == "qos" {
                        "platform choice"
                    } else {
                        "MTU or platform choice"
                    },
                )
                .help(help),
        );
    }
}

type RoceClass<'a> = (
    bool,
    Option<(QosMode, &'a TrafficClass, &'a TrafficClass, &'a Vec<u8>)>,
);

/// What must agree on both ends of a link for RoCE to stay lossless: PFC on the port, and the
/// class (mode, RoCE and CNP mapping, PFC priorities).
fn roce_class<'a>(x: &'a DeviceIntent, xi: &Interface) -> RoceClass<'a> {
    (
        xi.lossless,
        x.qos
            .as_ref()
            .map(|q| (q.mode, &q.roce, &q.cnp, &q.pfc_priorities)),
    )
}

fn qos_name(d: &DeviceIntent, i: &Interface) -> String {
    match (&d.qos, i.lossless) {
        (Some(q), true) => format!(
            "DSCP {} on priority {} with PFC on {:?}",
            q.roce.dscp, q.roce.priority, q.pfc_priorities
        ),
        (Some(_), false) => "the default class only".into(),
        (None, _) => format!("no QoS (`{}`)", d.platform),
    }
}

fn router_ids(spec: &ClusterSpec, devs: &BTreeMap<String, DeviceIntent>, diags: &mut Diagnostics) {
    let mut seen: BTreeMap<std::net::Ipv4Addr, &str> = BTreeMap::new();
    for d in devs.values() {
        let Some(b) = &d.bgp else { continue };
        if let Some(first) = seen.insert(b.router_id, &d.hostname) {
            let span = [first, d.hostname.as_str()]
                .iter()
                .find_map(|n| spec.overrides.get(*n).and_then(|o| o.loopback.as_ref()))
                .and_then(|l| l.span)
                .or(spec.addressing.loopbacks.span);
            diags.push(
                Diagnostic::error(
                    codes::ROUTER_ID_DUPLICATE,
                    format!(
                        "router-id {} is used by `{first}` and `{}`",
                        b.router_id, d.hostname
                    ),
                )
                .at(span, "loopback")
                .help(
                    "every switch needs its own loopback; drop the override or pick a free address",
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    /// The check has teeth: a default VRF that still aggregates a tenant's host block (the
    /// issue-12 defect) is reported; railyard's own intent is clean.
    #[test]
    fn a_default_vrf_aggregate_over_tenant_ports_is_reported() {
        let text = include_str!("../../inventories/spectrum-x-cloud-tenants.yaml");
        let c = crate::compile(&SourceFile::new("spx", text));
        let Some(crate::design::Design { spec, intents, .. }) = c.design else {
            panic!("did not compile");
        };
        let mut devs = intents.devices;
        let mut clean = Diagnostics::default();
        vrf_prefix_lists(&spec, &devs, &mut clean);
        assert!(clean.iter().next().is_none());
        let Some(leaf) = devs.get_mut("leaf-su01-01") else {
            panic!("no leaf-su01-01");
        };
        let tenant_block = leaf.vrfs[0].aggregates.clone();
        if let Some(b) = leaf.bgp.as_mut() {
            b.aggregates.extend(tenant_block);
        }
        let mut found = Diagnostics::default();
        vrf_prefix_lists(&spec, &devs, &mut found);
        let d: Vec<_> = found.iter().collect();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, codes::PREFIX_OTHER_VRF);
        assert!(
            d[0].message
                .contains("VRF default announces subnets of ports in VRF cust-a")
        );
        assert!(d[0].span.is_some(), "points at the tenant");
    }
}
