//! The eBGP underlay (RFC 7938, RFC 7938 and RFC 6996): one session per fabric link, ECMP over every uplink,
//! multipath-relax, BFD; leaves announce their loopback and their host block as one aggregate.
//!
//! Hardening: graceful restart (helper-only by default), a maximum-prefix limit on every fabric
//! session sized from the plan, an outbound policy on leaves (their own loopback, VTEP and host
//! aggregates, nothing learnt: a leaf is never transit), optional TCP-MD5 from the environment
//! and optional GTSM. Control-plane policing stays the platform's own (see `docs/bgp.md`).
//!
//! Maximum-prefix: a fabric session carries at most every prefix of its BGP domain (the network,
//! per plane), so the limit is the prefix count of the domain at full build-out — the leaves,
//! spines and cores its spine (or core) tier can hold, each with what it originates (a leaf its
//! loopback, VTEP and host aggregate; a spine or core its loopback) — times (100 + margin) %.
//! Full build-out, not today's count: the limit, like every other line of a leaf's config, does
//! not change when SUs are added to a fabric whose spines are declared.

use std::collections::BTreeMap;

use ipnet::IpNet;

use super::Attached;
use super::device::{
    Bfd, Bgp, GracefulRestart, GracefulRestartMode, Interface, InterfaceKind, MaxPrefix, Neighbor,
    PrefixRule,
};
use super::prefixes::HostPrefixes;
use crate::addressing::{Allocation, DeviceAlloc};
use crate::model::{Network, Role, Transport};
use crate::spec::{ClusterSpec, MaxPrefixAction};
use crate::topology::{Device, Fabric};

/// FRR's defaults (RFC 4724 leaves them to the implementation): 120 s restart, 360 s stale paths.
const RESTART_TIME_S: u32 = 120;
const STALE_PATH_TIME_S: u32 = 360;
/// Log a warning at this share of the limit, before it acts.
const WARNING_PERCENT: u8 = 80;

/// Switches of one BGP domain at full build-out, and what each kind originates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct BuildOut {
    leaves: u64,
    spines: u64,
    cores: u64,
}

impl BuildOut {
    /// The compute fabric, per plane: 2-tier, every port of the spines filled; 3-tier, every
    /// port of the cores (each spine group takes `links_per_spine_core` ports of each core).
    fn compute(f: &Fabric) -> Self {
        let c = &f.sizing.compute;
        let per_spine = u64::from(c.spine_down.capacity()) / u64::from(c.uplinks_per_leaf.max(1));
        let spines = u64::from(c.spines_per_group);
        let groups = match c.core_down {
            Some(k) if c.tiers == 3 => {
                u64::from(k.capacity()) / u64::from(c.links_per_spine_core.max(1))
            }
            _ => 1,
        };
        Self {
            leaves: groups * spines * per_spine,
            spines: groups * spines,
            cores: u64::from(c.cores_per_plane()),
        }
    }

    fn access(a: &crate::topology::AccessPlan) -> Self {
        let up = u64::from(a.uplinks_per_leaf.max(1));
        match (a.tiers, a.spine_down, a.core_down) {
            (2, Some(d), _) => Self {
                leaves: u64::from(a.spines) * u64::from(d.capacity()) / up,
                spines: u64::from(a.spines),
                cores: 0,
            },
            (3, Some(_), Some(k)) => {
                let groups = u64::from(k.capacity()) / u64::from(a.links_per_spine_core.max(1));
                Self {
                    leaves: groups * u64::from(a.leaves_per_group),
                    spines: groups * u64::from(a.spines),
                    cores: u64::from(a.cores_per_group) * u64::from(a.spines),
                }
            }
            _ => Self {
                leaves: u64::from(a.leaves()),
                spines: 0,
                cores: 0,
            },
        }
    }

    fn of(f: &Fabric, network: Network) -> Option<Self> {
        let s = &f.sizing;
        match network {
            Network::Compute if s.compute.transport == Transport::Ethernet => {
                Some(Self::compute(f))
            }
            Network::Storage => s
                .storage
                .as_ref()
                .filter(|a| a.transport == Transport::Ethernet)
                .map(Self::access),
            Network::Inband => s.inband.as_ref().map(Self::access),
            _ => None,
        }
    }
}

/// The most IPv4 and IPv6 prefixes one switch of each tier originates in its default VRF.
fn originations(f: &Fabric, alloc: &Allocation, network: Network) -> [(u64, u64); 2] {
    let mut leaf = (0u64, 0u64);
    let mut upper = (0u64, 0u64);
    for d in f
        .devices()
        .filter(|d| d.network == network && d.role.is_switch())
    {
        let Some(a) = alloc.devices.get(&d.name) else {
            continue;
        };
        let n = |x: &Option<IpNet>| u64::from(x.is_some());
        let v4 = n(&a.loopback) + n(&a.vtep) + n(&a.host_block);
        let v6 = n(&a.loopback_v6) + n(&a.host_block_v6);
        let slot = if d.role.is_leaf() {
            &mut leaf
        } else {
            &mut upper
        };
        *slot = (slot.0.max(v4), slot.1.max(v6));
    }
    [leaf, upper]
}

/// The maximum-prefix limit of every fabric session of each BGP domain.
pub fn limits(spec: &ClusterSpec, f: &Fabric, alloc: &Allocation) -> BTreeMap<Network, MaxPrefix> {
    let m = &spec.bgp.max_prefix;
    let margin = u64::from(*m.margin_percent);
    let mut out = BTreeMap::new();
    for network in [Network::Compute, Network::Storage, Network::Inband] {
        let Some(b) = BuildOut::of(f, network) else {
            continue;
        };
        let [leaf, upper] = originations(f, alloc, network);
        let total = |leaf: u64, upper: u64| b.leaves * leaf + (b.spines + b.cores) * upper;
        let (v4, v6) = (total(leaf.0, upper.0), total(leaf.1, upper.1));
        let limit = |n: u64| u32::try_from((n * (100 + margin)).div_ceil(100)).unwrap_or(u32::MAX);
        out.insert(
            network,
            MaxPrefix {
                ipv4: limit(v4),
                ipv6: limit(v6),
                warning_percent: WARNING_PERCENT,
                restart_minutes: match m.action {
                    MaxPrefixAction::Restart => Some(*m.restart_minutes),
                    MaxPrefixAction::WarningOnly => None,
                },
                basis: format!(
                    "full build-out {} leaves x {} + {} spines and cores x {} = {v4} IPv4 prefixes, +{margin} %",
                    b.leaves,
                    leaf.0,
                    b.spines + b.cores,
                    upper.0
                ),
            },
        );
    }
    out
}

/// Exactly this prefix, no longer ones.
fn exact(p: &IpNet) -> PrefixRule {
    PrefixRule {
        prefix: *p,
        le: None,
    }
}

/// The default VRF's policy and limits of one switch, decided before its sessions.
pub struct Policy<'a> {
    /// The default VRF's host prefixes (only the ports that stay in it).
    pub hosts: HostPrefixes,
    pub max_prefix: Option<&'a MaxPrefix>,
}

pub fn build(
    spec: &ClusterSpec,
    alloc: &Allocation,
    d: &Device,
    own: &DeviceAlloc,
    links: &[Attached<'_>],
    ifs: &[Interface],
    policy: Policy<'_>,
) -> Option<Bgp> {
    let asn = own.asn?;
    let router_id = match own.loopback? {
        IpNet::V4(n) => n.addr(),
        IpNet::V6(_) => return None,
    };
    let mut neighbors = Vec::new();
    let mut uplinks = 0u32;
    let mut bundle: BTreeMap<&str, u32> = BTreeMap::new();
    // `ifs` holds the interfaces of `links`, in the same order.
    let data = links
        .iter()
        .filter(|a| super::interfaces::carries_interface(a));
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
        let la = &alloc.links[a.id];
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
    let ipv6_prefer_global = prefer_global(ifs, widest);
    let hosts = policy.hosts;
    let mut redistribute: Vec<PrefixRule> = own.loopback.iter().map(exact).collect();
    redistribute.extend(own.vtep.iter().map(exact));
    redistribute.extend(hosts.redistribute);
    let mut redistribute_v6: Vec<PrefixRule> = own.loopback_v6.iter().map(exact).collect();
    redistribute_v6.extend(hosts.redistribute_v6);
    let aggregates = hosts.aggregates;
    // A leaf announces what it originates and nothing it learnt: the aggregates (their
    // more-specifics are suppressed), loopback and VTEP.
    let (export, export_v6) = if d.role.is_leaf() {
        let is_v4 = |p: &&IpNet| p.addr().is_ipv4();
        let mut v4: Vec<PrefixRule> = own.loopback.iter().chain(&own.vtep).map(exact).collect();
        v4.extend(aggregates.iter().filter(is_v4).map(exact));
        let mut v6: Vec<PrefixRule> = own.loopback_v6.iter().map(exact).collect();
        v6.extend(aggregates.iter().filter(|p| !is_v4(p)).map(exact));
        (v4, v6)
    } else {
        (Vec::new(), Vec::new())
    };
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
        graceful_restart: graceful_restart(b.graceful_restart.value),
        max_prefix: policy.max_prefix.cloned(),
        export,
        export_v6,
        password: b.auth_env.as_ref().map(|e| format!("${{{}}}", e.value)),
        gtsm: b.gtsm.value,
        ipv6_prefer_global,
    })
}

/// Cumulus Linux, Equal Cost Multipath Load Sharing / adaptive routing, "IPv6 Next Hop
/// Preference": with several BGP peerings to the same router and adaptive routing on, an
/// inbound route map should prefer the global IPv6 next hop, which FRR otherwise passes over for
/// the link-local one. It selects something only when the links carry a global IPv6 address
/// (`addressing.fabric_links_v6`): without one FRR sends its link-local address in both fields
/// (FRRouting/frr bgpd/bgp_zebra.c `bgp_nexthop_set`). So: a fabric port with adaptive routing
/// and a global IPv6 address, and more than one session to some neighbour.
fn prefer_global(ifs: &[Interface], widest: u32) -> bool {
    widest > 1
        && ifs
            .iter()
            .any(|i| i.kind == InterfaceKind::Fabric && i.adaptive_routing && i.ipv6.is_some())
}

fn graceful_restart(mode: crate::spec::GracefulRestart) -> GracefulRestart {
    use crate::spec::GracefulRestart as G;
    GracefulRestart {
        mode: match mode {
            G::HelperOnly => GracefulRestartMode::HelperOnly,
            G::Full => GracefulRestartMode::Full,
            G::Disabled => GracefulRestartMode::Disabled,
        },
        restart_time_s: RESTART_TIME_S,
        stale_path_time_s: STALE_PATH_TIME_S,
    }
}
