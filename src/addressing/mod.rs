//! Stage 3: [`Fabric`] → [`Allocation`]: loopbacks, VTEPs, point-to-point and host-port
//! addresses, management addresses and ASNs.
//!
//! Input: the fabric graph and the spec's `addressing` and `bgp` keys. Output: addresses and ASNs
//! keyed by device name and by link position. Invariant: every value is an offset computed from
//! identity (SU, leaf, port, plane, group) and design constants, never from iteration order, so
//! adding an SU, node or port leaves every existing value unchanged.

mod asn;
mod ordinal;
mod pool;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use ipnet::IpNet;
use serde::Serialize;

pub use asn::{PRIVATE_2BYTE, PRIVATE_4BYTE};
pub use ordinal::Shape;
pub use pool::Pool;

use crate::diag::Diagnostics;
use crate::model::{Role, Tier, Transport};
use crate::spec::{ClusterSpec, Sp};
use crate::topology::{CageRun, Device, Fabric, Link, PerLink, PortId};
use pool::{Family, pow2};

/// What one device gets.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceAlloc {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asn: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loopback: Option<IpNet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loopback_v6: Option<IpNet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vtep: Option<IpNet>,
    /// Management (or BMC) address with its subnet's prefix length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mgmt: Option<IpNet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mgmt_gateway: Option<Ipv4Addr>,
    /// VLAN of the management subnet on the OOB switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mgmt_vlan: Option<u16>,
    /// The leaf's block of host-port /31s, advertised as one aggregate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_block: Option<IpNet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_block_v6: Option<IpNet>,
}

/// Addresses of one cable's two ends (`a` = lower tier, as in the graph).
#[derive(Clone, Debug, Default)]
pub struct LinkAlloc {
    pub a: Option<IpNet>,
    pub b: Option<IpNet>,
    pub a6: Option<IpNet>,
    pub b6: Option<IpNet>,
}

/// A management subnet: one VLAN on the OOB switches, its gateway on the OOB gateway.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MgmtSubnet {
    /// `mgmt-su01`, `mgmt-spine`, …
    pub name: String,
    pub subnet: IpNet,
    /// The gateway's address with the subnet's length (the first host).
    pub gateway: IpNet,
}

/// Every address and ASN of the cluster.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    pub devices: BTreeMap<String, DeviceAlloc>,
    /// Management subnets in use, by VLAN.
    pub mgmt_subnets: BTreeMap<u16, MgmtSubnet>,
    /// One entry per link.
    pub links: PerLink<LinkAlloc>,
    /// Fabric links carry no IPv4 (BGP unnumbered, RFC 5549).
    pub unnumbered: bool,
    pub reuse_leaf_asns: bool,
}

struct Pools {
    loopbacks: Option<Pool>,
    loopbacks_v6: Option<Pool>,
    fabric: Option<Pool>,
    fabric_v6: Option<Pool>,
    vteps: Option<Pool>,
    gpu: Option<Pool>,
    gpu_v6: Option<Pool>,
    storage: Option<Pool>,
    inband: Option<Pool>,
    oob: Option<Pool>,
}

impl Pools {
    /// Every pool the spec set.
    fn all(&self) -> Vec<&Pool> {
        [
            &self.loopbacks,
            &self.loopbacks_v6,
            &self.fabric,
            &self.fabric_v6,
            &self.vteps,
            &self.gpu,
            &self.gpu_v6,
            &self.storage,
            &self.inband,
            &self.oob,
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

fn parse_pools(spec: &ClusterSpec, diags: &mut Diagnostics) -> (Pools, bool) {
    let a = &spec.addressing;
    let v4 = |k, v: &Sp<String>, d: &mut Diagnostics| Pool::parse(k, v, Family::V4, d);
    let v6 = |k, v: &Option<Sp<String>>, d: &mut Diagnostics| {
        v.as_ref().and_then(|v| Pool::parse(k, v, Family::V6, d))
    };
    let unnumbered = a.fabric_links.value.trim() == "unnumbered";
    let pools = Pools {
        loopbacks: v4("loopbacks", &a.loopbacks, diags),
        loopbacks_v6: v6("loopbacks_v6", &a.loopbacks_v6, diags),
        fabric: if unnumbered {
            None
        } else {
            v4("fabric_links", &a.fabric_links, diags)
        },
        fabric_v6: v6("fabric_links_v6", &a.fabric_links_v6, diags),
        vteps: a.vteps.as_ref().and_then(|v| v4("vteps", v, diags)),
        gpu: v4("gpu", &a.gpu, diags),
        gpu_v6: v6("gpu_v6", &a.gpu_v6, diags),
        storage: v4("storage", &a.storage, diags),
        inband: v4("inband", &a.inband, diags),
        oob: v4("oob", &a.oob, diags),
    };
    pool::check_disjoint(&pools.all(), diags);
    (pools, unnumbered)
}

/// Zones of the loopback pool: the pool is cut into 8 equal parts, one per role; the storage and
/// in-band cores share the last part, a half each. Returns (zone, half): `None` for a whole zone,
/// `Some(0 | 1)` for one half of it.
fn loopback_zone(role: Role) -> Option<(u128, Option<u128>)> {
    Some(match role {
        Role::Leaf => (0, None),
        Role::Spine => (1, None),
        Role::Core => (2, None),
        Role::StorageLeaf => (3, None),
        Role::StorageSpine => (4, None),
        Role::InbandLeaf => (5, None),
        Role::InbandSpine => (6, None),
        Role::StorageCore => (7, Some(0)),
        Role::InbandCore => (7, Some(1)),
        _ => return None,
    })
}

/// Management zones: one subnet per central role, then one per SU from subnet 16 on.
/// In a 3-tier fabric a spine group's spines join the subnet of the group's first SU, so the
/// central subnets stay bounded however many groups the fabric grows.
fn mgmt_zone(d: &Device, sh: &Shape) -> u128 {
    match d.role {
        Role::Spine if sh.three_tier => {
            let first_su = (d.group.unwrap_or(1) - 1) * sh.sus_per_group + 1;
            15 + u128::from(first_su)
        }
        Role::Spine => 1,
        Role::Core => 2,
        Role::StorageLeaf => 3,
        Role::StorageSpine => 4,
        Role::InbandLeaf => 5,
        Role::InbandSpine => 6,
        Role::OobCore => 7,
        Role::Appliance => 8,
        Role::StorageCore => 9,
        Role::InbandCore => 10,
        Role::OobGateway => 11,
        Role::Leaf | Role::OobLeaf | Role::Node | Role::NvlinkSwitchTray | Role::PowerShelf => {
            15 + u128::from(d.su.unwrap_or(1))
        }
    }
}

/// VLAN of a management zone: central roles 100 + zone (101-115), SU s 1000 + s. `None` beyond
/// the last VLAN id (4094).
fn mgmt_vlan(zone: u128) -> Option<u16> {
    let v = if zone < 16 {
        100 + zone
    } else {
        1000 + zone - 15
    };
    u16::try_from(v).ok().filter(|v| *v <= 4094)
}

/// The name of a management zone's VLAN.
fn zone_name(zone: u128) -> String {
    let role = match zone {
        1 => "spine",
        2 => "core",
        3 => "storage-leaf",
        4 => "storage-spine",
        5 => "inband-leaf",
        6 => "inband-spine",
        7 => "oob-core",
        8 => "appliance",
        9 => "storage-core",
        10 => "inband-core",
        11 => "oob-gateway",
        z if z >= 16 => return format!("mgmt-su{:02}", z - 15),
        _ => "central",
    };
    format!("mgmt-{role}")
}

/// Tracks, per pool, the addresses the highest identity needs, for one diagnostic per pool.
#[derive(Default)]
struct Need(BTreeMap<&'static str, (u128, String)>);

impl Need {
    fn note(&mut self, pool: &Pool, need: u128, what: &str) {
        let e = self.0.entry(pool.key).or_insert((0, String::new()));
        if need > e.0 {
            *e = (need, what.to_string());
        }
    }
}

struct Ctx<'a> {
    f: &'a Fabric,
    /// Management subnet → (highest offset asked for, its device), for subnets that overflow.
    mgmt_overflow: BTreeMap<u128, (u128, String)>,
    mgmt_len: u8,
    mgmt_span: Option<crate::diag::Span>,
    mgmt_subnets: BTreeMap<u16, MgmtSubnet>,
    /// The highest SU whose management VLAN does not fit, if any.
    vlan_overflow: Option<u128>,
    shape: Shape,
    pools: &'a Pools,
    need: Need,
}

impl<'a> Ctx<'a> {
    /// The leaf downlink run (host ports) and host pools of a leaf role.
    fn host_side(&self, role: Role) -> Option<(CageRun, &'a Pool, Option<&'a Pool>)> {
        let s = &self.f.sizing;
        let pools: &'a Pools = self.pools;
        match role {
            Role::Leaf if s.compute.transport == Transport::Ethernet => Some((
                s.compute.leaf_down,
                pools.gpu.as_ref()?,
                pools.gpu_v6.as_ref(),
            )),
            Role::StorageLeaf if self.f.transport_of(role) == Some(Transport::Ethernet) => {
                Some((s.storage.as_ref()?.leaf_down, pools.storage.as_ref()?, None))
            }
            Role::InbandLeaf => Some((s.inband.as_ref()?.leaf_down, pools.inband.as_ref()?, None)),
            _ => None,
        }
    }

    /// The run whose port position numbers a link's /31 inside the block of its upper end, and
    /// where that block sits in the fabric-link pools: (run, zone, quarter of the zone). The
    /// pools are cut into 4 zones (compute spines, compute cores, storage, in-band); the storage
    /// and in-band zones into quarters: spines, cores, the peer links of a pair.
    fn upper_side(&self, role: Role, tier: Tier) -> Option<(CageRun, u128, Option<u128>)> {
        let s = &self.f.sizing;
        if self.f.transport_of(role) != Some(Transport::Ethernet) {
            return None;
        }
        match (role, tier) {
            (Role::Spine, _) => Some((s.compute.spine_down, 0, None)),
            (Role::Core, _) => Some((s.compute.core_down?, 1, None)),
            (Role::StorageSpine, _) => Some((s.storage.as_ref()?.spine_down?, 2, Some(0))),
            (Role::StorageCore, _) => Some((s.storage.as_ref()?.core_down?, 2, Some(1))),
            (Role::StorageLeaf, Tier::LeafLeaf) => Some((s.storage.as_ref()?.leaf_up, 2, Some(2))),
            (Role::InbandSpine, _) => Some((s.inband.as_ref()?.spine_down?, 3, Some(0))),
            (Role::InbandCore, _) => Some((s.inband.as_ref()?.core_down?, 3, Some(1))),
            (Role::InbandLeaf, Tier::LeafLeaf) => Some((s.inband.as_ref()?.leaf_up, 3, Some(2))),
            _ => None,
        }
    }

    /// The block ordinal of a link's upper end: its ordinal among its role, or for a pair's peer
    /// links the pair's.
    fn upper_ordinal(&self, up: &Device, tier: Tier) -> u128 {
        if tier == Tier::LeafLeaf {
            return u128::from(up.group.unwrap_or(1) - 1);
        }
        u128::from(self.shape.ordinal(up))
    }

    fn block(&mut self, p: &Pool, index: u128, size: u128, what: &str) -> Option<IpNet> {
        self.need.note(p, (index + 1) * size, what);
        p.at(index * size, p.len_for(size))
    }

    fn device(&mut self, d: &Device, asns: &asn::AsnPlan, diags: &mut Diagnostics) -> DeviceAlloc {
        let mut out = DeviceAlloc::default();
        let ord = u128::from(self.shape.ordinal(d));
        let pools = self.pools;
        if let Some((z, half)) = loopback_zone(d.role)
            && self.f.transport_of(d.role) == Some(Transport::Ethernet)
        {
            for (p, slot, what) in [
                (
                    &pools.loopbacks,
                    &mut out.loopback,
                    "one loopback per switch",
                ),
                (
                    &pools.loopbacks_v6,
                    &mut out.loopback_v6,
                    "one loopback per switch",
                ),
            ] {
                if let Some(p) = p {
                    let zone = p.size() / 8;
                    let len = p.len_for(1);
                    let (base, room, parts) = match half {
                        None => (z * zone, zone, 8),
                        Some(h) => (z * zone + h * (zone / 2), zone / 2, 16),
                    };
                    self.need.note(p, (ord + 2) * parts, what);
                    *slot = (ord + 1 < room)
                        .then(|| p.at(base + ord + 1, len))
                        .flatten();
                }
            }
            if matches!(d.role, Role::Leaf)
                && let Some(p) = &pools.vteps
            {
                self.need.note(p, ord + 2, "one VTEP per leaf");
                out.vtep = p.at(ord + 1, 32);
            }
            let key = asn::AsnKey {
                network: d.network,
                role: d.role,
                ordinal: self.shape.ordinal(d),
                ordinal_in_su: self.shape.ordinal_in_su(d),
                spine_group: self.shape.spine_group(d),
            };
            match asns.asn(&key) {
                Ok(a) => out.asn = Some(a),
                Err((what, need, have)) => diags.push(asns.exhausted(what, need, have)),
            }
        }
        if let Some((run, p, p6)) = self.host_side(d.role) {
            let size = pow2(2 * u128::from(run.capacity()));
            out.host_block = self.block(p, ord, size, "a block of host-port /31s per leaf");
            if let Some(p6) = p6 {
                out.host_block_v6 =
                    self.block(p6, ord, size, "a block of host-port /127s per leaf");
            }
        }
        out
    }

    fn mgmt(&mut self, d: &Device, out: &mut DeviceAlloc) {
        let Some(p) = self.pools.oob.as_ref() else {
            return;
        };
        // The gateway holds the first address of every management subnet instead.
        if d.role == Role::OobGateway {
            return;
        }
        let len = self.mgmt_len;
        if u32::from(len) > 30 || len < p.net.prefix_len() {
            return; // reported once in `allocate`
        }
        let zone_size = 1u128 << (32 - u32::from(len));
        let sh = self.shape;
        let per_su_leaves = u128::from(sh.leaves_per_su * sh.planes);
        let offset = match d.role {
            Role::OobLeaf => 2 + u128::from(d.index - 1),
            Role::Leaf => 2 + u128::from(sh.oob_per_su) + u128::from(sh.ordinal_in_su(d)),
            Role::Node => 2 + u128::from(sh.oob_per_su) + per_su_leaves + u128::from(d.index - 1),
            // A rack-scale system's rack parts follow the SU's nodes.
            Role::NvlinkSwitchTray | Role::PowerShelf => {
                2 + u128::from(sh.oob_per_su)
                    + per_su_leaves
                    + u128::from(sh.nodes_per_su)
                    + u128::from(sh.rack_part_in_su(d))
            }
            Role::Spine if sh.three_tier => {
                2 + u128::from(sh.oob_per_su)
                    + per_su_leaves
                    + u128::from(sh.nodes_per_su)
                    + u128::from(sh.racks_per_su * sh.rack_parts)
                    + u128::from(sh.ordinal_in_su(d))
            }
            _ => 2 + u128::from(sh.ordinal(d)),
        };
        let zone = mgmt_zone(d, &sh);
        if offset + 1 >= zone_size {
            // One finding per overfull subnet (its highest offset), not one per device.
            let e = self.mgmt_overflow.entry(zone).or_insert((0, String::new()));
            if offset > e.0 {
                *e = (offset, d.name.clone());
            }
            return;
        }
        self.need.note(
            p,
            (zone + 1) * zone_size,
            "one management subnet per SU and central role",
        );
        out.mgmt = p.at(zone * zone_size + offset, len);
        out.mgmt_gateway = p.at(zone * zone_size + 1, 32).and_then(|n| match n {
            IpNet::V4(n) => Some(n.addr()),
            IpNet::V6(_) => None,
        });
        out.mgmt_vlan = mgmt_vlan(zone);
        match out.mgmt_vlan {
            Some(v) => {
                if let (Some(subnet), Some(gateway)) =
                    (p.at(zone * zone_size, len), p.at(zone * zone_size + 1, len))
                {
                    self.mgmt_subnets.entry(v).or_insert_with(|| MgmtSubnet {
                        name: zone_name(zone),
                        subnet,
                        gateway,
                    });
                }
            }
            None => self.vlan_overflow = self.vlan_overflow.max(Some(zone - 15)),
        }
    }
}

/// The position of a port in a cage run (0-based), if it belongs to the run.
fn run_position(run: &CageRun, port: PortId) -> Option<u128> {
    let (cage, lane) = match port {
        PortId::Cage { cage } => (u32::from(cage), 0),
        PortId::Lane { cage, lane } => (u32::from(cage), u32::from(lane)),
        _ => return None,
    };
    if cage < run.first || cage >= run.first + run.cages || lane >= run.lanes {
        return None;
    }
    Some(u128::from((cage - run.first) * run.lanes + lane))
}

/// Allocate every address and ASN. Problems (bad or overlapping pools, exhausted ranges) go to
/// `diags`; what could not be placed is left `None`.
pub fn allocate(spec: &ClusterSpec, f: &Fabric, diags: &mut Diagnostics) -> Allocation {
    let (pools, unnumbered) = parse_pools(spec, diags);
    let asns = asn::AsnPlan::new(spec);
    let mut cx = Ctx {
        f,
        mgmt_overflow: BTreeMap::new(),
        mgmt_len: *spec.addressing.oob_subnet,
        mgmt_span: spec.addressing.oob_subnet.span,
        mgmt_subnets: BTreeMap::new(),
        vlan_overflow: None,
        shape: Shape::of(&f.sizing),
        pools: &pools,
        need: Need::default(),
    };
    check_oob_subnet(spec, &pools, diags);
    let mut devices = BTreeMap::new();
    for d in f.devices() {
        let mut a = if d.role.is_switch() {
            cx.device(d, &asns, diags)
        } else {
            DeviceAlloc::default()
        };
        cx.mgmt(d, &mut a);
        devices.insert(d.name.clone(), a);
    }
    let links = PerLink::of(f, |_, l| cx.link(l, &devices));
    cx.report_mgmt_overflow(diags);
    for (key, (need, what)) in &cx.need.0 {
        if let Some(p) = pools.all().into_iter().find(|p| p.key == *key) {
            p.require(*need, what, diags);
        }
    }
    if let Some(su) = cx.vlan_overflow {
        diags.push(vlan_overflow(spec, su));
    }
    let mut fabric_asns: Vec<u64> = devices.values().filter_map(|d| d.asn).collect();
    fabric_asns.sort_unstable();
    fabric_asns.dedup();
    asn::check_external(spec, &fabric_asns, diags);
    Allocation {
        devices,
        mgmt_subnets: cx.mgmt_subnets,
        links,
        unnumbered,
        reuse_leaf_asns: asns.reuses_leaf_asns(),
    }
}

/// `addressing.oob_subnet` must fit inside `addressing.oob` and hold at least two hosts.
fn check_oob_subnet(spec: &ClusterSpec, pools: &Pools, diags: &mut Diagnostics) {
    let Some(p) = &pools.oob else {
        return;
    };
    let len = *spec.addressing.oob_subnet;
    if len > 30 || len < p.net.prefix_len() {
        diags.push(
            crate::diag::Diagnostic::error(
                crate::diag::codes::BAD_POOL,
                format!(
                    "`addressing.oob_subnet` /{len} does not fit `addressing.oob` ({})",
                    p.net
                ),
            )
            .at(spec.addressing.oob_subnet.span, "bad subnet length")
            .help(format!(
                "use a length between {} and 30",
                p.net.prefix_len()
            )),
        );
    }
}

/// The SU whose management VLAN would pass 4094.
fn vlan_overflow(spec: &ClusterSpec, su: u128) -> crate::diag::Diagnostic {
    crate::diag::Diagnostic::error(
        crate::diag::codes::OOB_VLANS,
        format!(
            "SU {su}'s management subnet would need VLAN {}, beyond 4094",
            1000 + su
        ),
    )
    .at(
        spec.scalable_units.count.span,
        "too many SUs for one OOB network",
    )
    .help("at most 3,094 SUs share one OOB network (SU s takes VLAN 1000 + s)")
}

impl Ctx<'_> {
    /// The addresses of one cable's ends.
    fn link(&mut self, l: &Link, devices: &BTreeMap<String, DeviceAlloc>) -> LinkAlloc {
        let up = self.f.device_of(&l.b);
        let mut la = LinkAlloc::default();
        match l.tier {
            Tier::NodeLeaf => {
                if let Some((run, _, _)) = self.host_side(up.role)
                    && let Some(pos) = run_position(&run, l.b.port)
                {
                    let leaf = &devices[&up.name];
                    if let Some(block) = leaf.host_block {
                        (la.a, la.b) = pair(block, pos, 31);
                    }
                    if let Some(block) = leaf.host_block_v6 {
                        (la.a6, la.b6) = pair(block, pos, 127);
                    }
                }
            }
            Tier::LeafSpine | Tier::SpineCore | Tier::LeafLeaf => {
                if let Some((run, zone, quarter)) = self.upper_side(up.role, l.tier)
                    && let Some(pos) = run_position(&run, l.b.port)
                {
                    let ord = self.upper_ordinal(up, l.tier);
                    let size = pow2(2 * u128::from(run.capacity()));
                    self.fabric_link(&mut la, pos, ord, size, (zone, quarter));
                }
            }
            Tier::Mgmt | Tier::OobUplink => {}
        }
        la
    }

    /// A fabric link's /31 (and /127) at position `pos` of the block `ord` (of `size`
    /// addresses) in the zone (and quarter) of its upper end.
    fn fabric_link(
        &mut self,
        la: &mut LinkAlloc,
        pos: u128,
        ord: u128,
        size: u128,
        (zone, quarter): (u128, Option<u128>),
    ) {
        let pools = self.pools;
        for (p, v6) in [(&pools.fabric, false), (&pools.fabric_v6, true)] {
            let Some(p) = p else { continue };
            let zone_size = p.size() / 4;
            let (base, room, parts) = match quarter {
                None => (zone * zone_size, zone_size, 4),
                Some(q) => (zone * zone_size + q * (zone_size / 4), zone_size / 4, 16),
            };
            self.need.note(
                p,
                parts * (ord + 1) * size,
                "a block of /31s per spine, core and leaf pair",
            );
            if (ord + 1) * size > room {
                continue;
            }
            let Some(block) = p.at(base + ord * size, p.len_for(size)) else {
                continue;
            };
            // The upper end takes the even address, the lower end the odd one.
            let (even, odd) = pair(block, pos, if v6 { 127 } else { 31 });
            if v6 {
                (la.b6, la.a6) = (even, odd);
            } else {
                (la.b, la.a) = (even, odd);
            }
        }
    }

    /// One finding per overfull management subnet, with the length that would hold it.
    fn report_mgmt_overflow(&self, diags: &mut Diagnostics) {
        let Some(p) = &self.pools.oob else {
            return;
        };
        let len = self.mgmt_len;
        let zone_size = 1u128 << (32 - u32::from(len.min(32)));
        for (offset, device) in self.mgmt_overflow.values() {
            diags.push(
                crate::diag::Diagnostic::error(
                    crate::diag::codes::POOL_TOO_SMALL,
                    format!(
                        "a /{len} management subnet holds {} hosts; `{device}` needs offset {offset}",
                        zone_size.saturating_sub(2)
                    ),
                )
                .at(self.mgmt_span, "subnet too small")
                .help(format!(
                    "set `addressing.oob_subnet` to {} or less",
                    p.len_for(pow2(offset + 2)).max(p.net.prefix_len())
                )),
            );
        }
    }
}

/// The /31 (or /127) at position `pos` of a block: (even address, odd address).
fn pair(block: IpNet, pos: u128, len: u8) -> (Option<IpNet>, Option<IpNet>) {
    let p = Pool {
        net: block,
        key: "block",
        span: None,
    };
    (p.at(2 * pos, len), p.at(2 * pos + 1, len))
}
