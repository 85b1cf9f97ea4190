//! The GPU nodes' side of the compute fabric: per node, every compute NIC port with its rail and
//! plane, the leaf port it is cabled to, its /31 and the leaf-side gateway, its MTU and the NIC
//! QoS (`mlnx_qos`, `cma_roce_tos`; NVIDIA MLNX_EN/DOCA QoS chapter). The NIC values come from the same `roce` settings as the switch QoS
//! (`qos.rs`) unless `hosts.nic_*` overrides them; every disagreement with the leaves' intent is
//! a diagnostic (RY0706), never a silent fallback to a lossy class.
//!
//! Input: the graph, the allocation, the switch intents already built. Output: [`HostIntents`],
//! names and values only, nodes by name and ports in (rail, plane) order.

use std::collections::BTreeMap;
use std::net::IpAddr;

use ipnet::IpNet;
use serde::Serialize;

use super::device::{DeviceIntent, Interface, Qos, TrafficClass};
use crate::addressing::Allocation;
use crate::catalog::{NodeModel, PortNames, is_busid, is_token};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Network, Role, Speed, Tier, Transport};
use crate::spec::{ClusterSpec, RoceMode};
use crate::topology::{Fabric, PortId};

/// ECN codepoint ECT(0) in the low two ToS bits: RoCE traffic is sent ECN-capable so switches
/// mark instead of drop (ToS 106 = DSCP 26 × 4 + 2).
pub const ECT0: u8 = 2;

/// Everything the host artifacts are made from.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostIntents {
    /// Transport of the compute fabric; `None` when there are no GPU nodes.
    pub transport: Option<Transport>,
    /// NIC *i* of every node reaches the leaf of rail *i* (NCCL must not cross rails).
    pub rail_optimized: bool,
    /// Compute planes (2 = twin-planar: one NIC port per plane).
    pub planes: u32,
    /// The node model of the cluster (one per spec).
    pub node_model: String,
    /// NIC QoS on RoCE; `None` on InfiniBand, where the subnet manager sets service levels.
    pub nic_qos: Option<NicQos>,
    /// MTU of the compute NICs.
    pub mtu: u32,
    /// The GPU supernets the rail routes point at.
    pub gpu_pool: Option<IpNet>,
    pub gpu_pool_v6: Option<IpNet>,
    pub gid_index: i32,
    /// Explicit rail/plane ids for NCCL (`hosts.nccl_rails`).
    pub nccl_rails: bool,
    /// `hosts.socket_ifname` when the spec sets it; `None`: railyard derives the value
    /// (`artifacts::hosts::bootstrap`).
    pub socket_ifname: Option<String>,
    pub nccl_topo_file: String,
    /// The model's PCIe layout passed its checks, so an NCCL topology file can be written.
    pub pcie_ok: bool,
    /// ... and it is verified, so nodes may load it (`NCCL_TOPO_FILE`).
    pub pcie_verified: bool,
    pub nodes: BTreeMap<String, HostIntent>,
}

/// The RoCE settings of a ConnectX/BlueField NIC (`mlnx_qos`, `cma_roce_tos`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NicQos {
    /// `mlnx_qos --trust`: classify on DSCP, like the switches.
    pub trust: String,
    pub roce: TrafficClass,
    pub cnp: TrafficClass,
    /// Priorities with PFC (empty when lossy).
    pub pfc_priorities: Vec<u8>,
    /// Priorities on which DCQCN runs, both as notification point (CNPs for CE-marked packets)
    /// and reaction point (rate cut on CNPs): the RoCE priority, whose traffic class the switches
    /// ECN-mark.
    pub dcqcn_priorities: Vec<u8>,
    /// RDMA-CM and verbs ToS: DSCP × 4 + ECT(0); also `NCCL_IB_TC`.
    pub tos: u8,
    /// `cma_roce_mode -m`: 2 = RoCEv2.
    pub roce_mode: u8,
}

/// One GPU node.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostIntent {
    pub name: String,
    pub model: String,
    /// Compute NIC ports in (rail, plane) order.
    pub ports: Vec<HostPort>,
}

/// One compute NIC port and what it is cabled to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostPort {
    /// Index of the NIC in the model's `compute` list (0-based).
    pub nic: u32,
    /// Port of that NIC (0-based, = plane index on twin-planar fabrics).
    pub port_index: u32,
    /// Rail of the leaf this port is cabled to (1-based, as in the cabling plan).
    pub rail: u32,
    /// Plane (1-based) on multi-plane fabrics.
    pub plane: Option<u32>,
    /// Catalog port name (`OSFP4P2`).
    pub port: String,
    pub rdma: Option<String>,
    /// Linux interface name, from the catalog or derived from the bus id.
    pub netdev: Option<String>,
    /// True when `netdev` was derived from the bus id rather than given by the catalog.
    pub netdev_derived: bool,
    pub busid: Option<String>,
    pub speed: Speed,
    pub leaf: String,
    pub leaf_port: String,
    pub cable: String,
    /// The NIC's address (even end of the /31) and the leaf's (odd end), the NIC's gateway.
    pub address: Option<IpNet>,
    pub gateway: Option<IpAddr>,
    pub address_v6: Option<IpNet>,
    pub gateway_v6: Option<IpAddr>,
    pub mtu: u32,
}

/// The systemd "path" name of a PCI network function (systemd.net-naming-scheme(7)):
/// `en` [`P<domain>`] `p<bus>s<slot>` [`f<function>`] `np<port>`, numbers in decimal; `f` only on
/// multi-function devices. A derivation, not a lookup: the files that use it say so.
fn derived_netdev(busid: &str, port: u32, multi: bool) -> Option<String> {
    if !is_busid(busid) {
        return None;
    }
    let num = |r: std::ops::Range<usize>| u32::from_str_radix(&busid[r], 16).ok();
    let (domain, bus, slot, func) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..12)?);
    let mut s = String::from("en");
    if domain != 0 {
        s.push_str(&format!("P{domain}"));
    }
    s.push_str(&format!("p{bus}s{slot}"));
    if multi {
        s.push_str(&format!("f{}", func + port));
    }
    s.push_str(&format!("np{port}"));
    Some(s)
}

/// The bus id of port `k` of a NIC whose first function is `busid` (one function per port).
fn port_busid(busid: &str, k: u32) -> Option<String> {
    if !is_busid(busid) {
        return None;
    }
    let func = busid[11..12].parse::<u32>().ok()? + k;
    (func <= 7).then(|| format!("{}{func}", &busid[..11]))
}

/// Per compute NIC of the model: (bus id, rdma names, netdev names) from the PCIe layout.
fn pcie_names(m: &NodeModel) -> BTreeMap<u32, (String, Vec<String>, Vec<String>)> {
    let mut out = BTreeMap::new();
    for cpu in m.pcie.iter().flat_map(|p| &p.cpus) {
        for sw in &cpu.switches {
            for n in &sw.nics {
                out.insert(n.nic, (n.busid.clone(), n.rdma.clone(), n.netdev.clone()));
            }
        }
    }
    out
}

/// `PortId::Nic(i)` → (compute NIC index, port of that NIC), when `i` is a compute port.
fn compute_port(m: &NodeModel, i: u16) -> Option<(u32, u32)> {
    let mut left = usize::from(i);
    for (n, nic) in m.compute.iter().enumerate() {
        if left < nic.ports.len() {
            return Some((u32::try_from(n).ok()?, u32::try_from(left).ok()?));
        }
        left -= nic.ports.len();
    }
    None
}

fn ip(n: Option<IpNet>) -> Option<IpAddr> {
    n.map(|n| n.addr())
}

/// The NIC QoS: the fabric's `roce` values, each replaced by its `hosts.nic_*` override.
fn nic_qos(spec: &ClusterSpec) -> NicQos {
    let (r, h) = (&spec.roce, &spec.hosts);
    let dscp = h.nic_roce_dscp.as_ref().map_or(*r.dscp, |v| **v);
    let priority = h.nic_roce_priority.as_ref().map_or(*r.priority, |v| **v);
    let default_pfc = if r.mode == RoceMode::Lossless {
        vec![*r.priority]
    } else {
        Vec::new()
    };
    let mut pfc_priorities = h
        .nic_pfc_priorities
        .as_ref()
        .map_or(default_pfc, |v| v.value.clone());
    pfc_priorities.sort_unstable();
    pfc_priorities.dedup();
    NicQos {
        trust: "dscp".into(),
        roce: TrafficClass {
            dscp,
            priority,
            traffic_class: priority,
        },
        cnp: TrafficClass {
            dscp: *r.cnp_dscp,
            priority: *r.cnp_priority,
            traffic_class: *r.cnp_priority,
        },
        pfc_priorities,
        dcqcn_priorities: vec![priority],
        tos: (dscp & 0x3f) * 4 + ECT0,
        roce_mode: 2,
    }
}

/// Ranges and shapes of the `hosts` keys (the `roce` keys are checked at parse time).
fn check_spec(spec: &ClusterSpec, diags: &mut Diagnostics) {
    let h = &spec.hosts;
    let bad = |key: &str, what: String, span: Option<Span>, help: &str| {
        Diagnostic::error(codes::BAD_QOS, format!("`hosts.{key}` {what}"))
            .at(span, "out of range")
            .help(help.to_string())
    };
    if let Some(v) = &h.nic_roce_dscp
        && **v > 63
    {
        diags.push(bad(
            "nic_roce_dscp",
            format!("is {}, outside 0–63", **v),
            v.span,
            "use a value from 0 to 63",
        ));
    }
    if let Some(v) = &h.nic_roce_priority
        && **v > 7
    {
        diags.push(bad(
            "nic_roce_priority",
            format!("is {}, outside 0–7", **v),
            v.span,
            "use a value from 0 to 7",
        ));
    }
    if let Some(v) = &h.nic_pfc_priorities
        && v.iter().any(|p| *p > 7)
    {
        diags.push(bad(
            "nic_pfc_priorities",
            "lists a priority outside 0–7".into(),
            v.span,
            "list priorities from 0 to 7",
        ));
    }
    if let Some(v) = &h.nic_mtu
        && !(1280..=9216).contains(&**v)
    {
        diags.push(bad(
            "nic_mtu",
            format!("is {}, outside 1280–9216", **v),
            v.span,
            "hosts usually run 9000",
        ));
    }
    let invalid = |key: &str, msg: String, span: Option<Span>, help: &str| {
        Diagnostic::error(codes::INVALID_VALUE, format!("`hosts.{key}` {msg}"))
            .at(span, "invalid")
            .help(help.to_string())
    };
    if *h.gid_index < -1 || *h.gid_index > 255 {
        diags.push(invalid(
            "gid_index",
            format!(
                "is {}, not -1 (automatic) or a GID table index",
                *h.gid_index
            ),
            h.gid_index.span,
            "use 3 (RoCEv2 IPv4 on ConnectX) or -1 to let NCCL choose",
        ));
    }
    // `socket_ifname` and `nccl_topo_file` are held in their grammars' types (spec::grammar).
}

/// Catalog names that reach NCCL settings and shell scripts, and the PCIe layout.
fn check_model(spec: &ClusterSpec, name: &str, m: &NodeModel, diags: &mut Diagnostics) -> bool {
    let mut problems: Vec<String> = m
        .compute
        .iter()
        .filter_map(|n| n.rdma.as_ref())
        .filter(|r| !is_token(r))
        .map(|r| format!("RDMA name `{r}` may hold only letters, digits and `_.:-`"))
        .collect();
    let pcie_ok = match &m.pcie {
        Some(p) => {
            let own = p.problems(m);
            let ok = own.is_empty();
            problems.extend(own.into_iter().map(|p| format!("pcie: {p}")));
            ok
        }
        None => false,
    };
    if !problems.is_empty() {
        diags.push(
            Diagnostic::error(
                codes::BAD_CATALOG_ENTRY,
                format!(
                    "node model `{name}` cannot describe its NICs to NCCL: {}",
                    problems.join("; ")
                ),
            )
            .at(spec.scalable_units.node_model.span, "node model")
            .help("fix the model's `compute` or `pcie` entries under `catalog.nodes`"),
        );
    }
    if m.port_names == PortNames::Neutral {
        diags.push(
            Diagnostic::warning(
                codes::NEUTRAL_PORT_NAMES,
                format!(
                    "node model `{name}` names its ports by a neutral scheme ({}): they are not \
                     on the chassis, and the cabling sheets and labels print them",
                    m.compute
                        .iter()
                        .flat_map(|n| n.ports.iter().map(|p| p.to_string()))
                        .take(2)
                        .chain(std::iter::once("…".to_string()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .at(spec.scalable_units.node_model.span, "node model")
            .help(
                "declare the model under `catalog: nodes:` with the chassis port labels or the OS \
                 names (`railyard explain RY0911`)",
            ),
        );
    }
    let ok = pcie_ok && problems.is_empty();
    if ok && m.pcie.as_ref().is_some_and(|p| !p.verified) {
        diags.push(
            Diagnostic::warning(
                codes::PCIE_UNVERIFIED,
                format!(
                    "node model `{name}` has an unverified PCIe layout: nccl-topo.xml is written for \
                     review only and nccl.env sets no NCCL_TOPO_FILE"
                ),
            )
            .at(spec.scalable_units.node_model.span, "node model")
            .help(
                "capture `nvidia-smi topo -m`, `lspci -tv` and `ibdev2netdev -v` on one node and \
                 declare the model under `catalog: nodes:` with that `pcie:` layout and \
                 `verified: true` (`railyard explain RY0902`)",
            ),
        );
    }
    ok
}

/// Build the host intent of every GPU node and check it against the leaves' intent.
pub fn build(
    spec: &ClusterSpec,
    f: &Fabric,
    alloc: &Allocation,
    devices: &BTreeMap<String, DeviceIntent>,
    diags: &mut Diagnostics,
) -> HostIntents {
    check_spec(spec, diags);
    let s = &f.sizing;
    let model_name = s.node_model.clone();
    let Some(model) = f.catalog.nodes.get(&model_name) else {
        return HostIntents::default();
    };
    let pcie_ok = check_model(spec, &model_name, model, diags);
    let transport = s.compute.transport;
    let qos = (transport == Transport::Ethernet).then(|| nic_qos(spec));
    let mtu = spec
        .hosts
        .nic_mtu
        .as_ref()
        .map_or(*spec.roce.host_mtu, |v| **v);
    let names = pcie_names(model);
    let multi_plane = s.compute.planes > 1;
    let mut nodes: BTreeMap<String, HostIntent> = BTreeMap::new();
    for (i, l) in f.links_with_ids() {
        if l.network != Network::Compute || l.tier != Tier::NodeLeaf {
            continue;
        }
        let (node, leaf) = (f.device_of(&l.a), f.device_of(&l.b));
        let (Role::Node, PortId::Nic(pi), Some(rail)) = (node.role, l.a.port, l.rail) else {
            continue;
        };
        let Some(m) = f.node_model(node) else {
            continue;
        };
        let Some((nic, k)) = compute_port(m, pi) else {
            continue;
        };
        let entry = names.get(&nic).filter(|_| node.model == model_name);
        let busid = entry.and_then(|(b, _, _)| port_busid(b, k));
        let rdma = entry
            .and_then(|(_, r, _)| r.get(k as usize).cloned())
            .or_else(|| {
                (k == 0)
                    .then(|| {
                        m.compute
                            .get(nic as usize)
                            .and_then(|n| n.rdma.as_ref().map(|r| r.to_string()))
                    })
                    .flatten()
            });
        let ports_of_nic = m.compute.get(nic as usize).map_or(1, |n| n.ports.len());
        let given = entry.and_then(|(_, _, n)| n.get(k as usize).cloned());
        let derived = match (&given, entry, transport) {
            (None, Some((b, _, _)), Transport::Ethernet) => derived_netdev(b, k, ports_of_nic > 1),
            _ => None,
        };
        let la = alloc.links.get(i).cloned().unwrap_or_default();
        let port = HostPort {
            nic,
            port_index: k,
            rail,
            plane: l.plane.filter(|_| multi_plane),
            port: f.port_name(node, l.a.port),
            rdma,
            netdev_derived: given.is_none() && derived.is_some(),
            netdev: given.or(derived),
            busid,
            speed: l.speed,
            leaf: leaf.name.clone(),
            leaf_port: f.port_name(leaf, l.b.port),
            cable: l.cable_id.clone(),
            address: la.a,
            gateway: ip(la.b),
            address_v6: la.a6,
            gateway_v6: ip(la.b6),
            mtu,
        };
        nodes
            .entry(node.name.clone())
            .or_insert_with(|| HostIntent {
                name: node.name.clone(),
                model: node.model.clone(),
                ports: Vec::new(),
            })
            .ports
            .push(port);
    }
    for n in nodes.values_mut() {
        n.ports
            .sort_by_key(|p| (p.rail, p.plane, p.nic, p.port_index));
    }
    let hosts = HostIntents {
        transport: Some(transport),
        rail_optimized: s.compute.layout == crate::spec::Layout::RailOptimized,
        planes: s.compute.planes,
        node_model: model_name,
        nic_qos: qos,
        mtu,
        gpu_pool: spec.addressing.gpu.value.trim().parse().ok(),
        gpu_pool_v6: spec
            .addressing
            .gpu_v6
            .as_ref()
            .and_then(|v| v.value.trim().parse().ok()),
        gid_index: *spec.hosts.gid_index,
        nccl_rails: spec.hosts.nccl_rails,
        socket_ifname: spec
            .hosts
            .socket_ifname
            .span
            .map(|_| spec.hosts.socket_ifname.value.to_string()),
        nccl_topo_file: spec.hosts.nccl_topo_file.value.to_string(),
        pcie_ok,
        pcie_verified: pcie_ok && model.pcie.as_ref().is_some_and(|p| p.verified),
        nodes,
    };
    check(spec, &hosts, devices, diags);
    hosts
}

/// Findings repeated on many NIC ports, reported once with a count and one example.
#[derive(Default)]
struct Tally(BTreeMap<(&'static str, String), (u32, String)>);

impl Tally {
    fn add(&mut self, kind: &'static str, detail: String, link: &str) {
        let e = self
            .0
            .entry((kind, detail))
            .or_insert((0, link.to_string()));
        e.0 += 1;
    }

    /// One NIC port against the leaf port it is cabled to.
    fn port(
        &mut self,
        nic: &NicQos,
        p: &HostPort,
        leaf: &DeviceIntent,
        iface: &Interface,
        link: &str,
    ) {
        if p.mtu > iface.mtu {
            self.add(
                "mtu",
                format!(
                    "NIC MTU {} exceeds the {} MTU {} of `{}` leaf ports",
                    p.mtu, leaf.platform, iface.mtu, leaf.model
                ),
                link,
            );
        }
        // A leaf without QoS is RY0704's finding (the fabric itself is not lossless).
        let Some(q) = &leaf.qos else { return };
        self.roce_class(nic, q, link);
        self.congestion(nic, q, iface, link);
    }

    /// How RoCE packets are marked and classified: DSCP, priority, trust.
    fn roce_class(&mut self, nic: &NicQos, q: &Qos, link: &str) {
        if nic.roce.dscp != q.roce.dscp {
            self.add(
                "dscp",
                format!(
                    "NICs mark RoCE with DSCP {} but the leaves classify DSCP {} as RoCE",
                    nic.roce.dscp, q.roce.dscp
                ),
                link,
            );
        }
        if nic.roce.priority != q.roce.priority {
            self.add(
                "priority",
                format!(
                    "NICs put RoCE on priority {} but the leaves on priority {}",
                    nic.roce.priority, q.roce.priority
                ),
                link,
            );
        }
        // The switches' RoCE class trusts DSCP (intent/qos.rs): the NIC must too.
        if nic.trust != "dscp" {
            self.add(
                "trust",
                format!(
                    "NICs trust {} but the leaves classify RoCE by DSCP",
                    nic.trust
                ),
                link,
            );
        }
    }

    /// Congestion control: CNPs, DCQCN on the ECN-marked priorities, PFC.
    fn congestion(&mut self, nic: &NicQos, q: &Qos, iface: &Interface, link: &str) {
        if nic.cnp.dscp != q.cnp.dscp || nic.cnp.priority != q.cnp.priority {
            self.add(
                "cnp",
                format!(
                    "NICs send CNPs with DSCP {} on priority {} but the leaves expect DSCP {} \
                     on priority {}",
                    nic.cnp.dscp, nic.cnp.priority, q.cnp.dscp, q.cnp.priority
                ),
                link,
            );
        }
        // The priority whose traffic class the leaves ECN-mark must run DCQCN on the NICs,
        // or marked packets are never answered with a rate cut.
        let marked: Vec<u8> = [&q.roce, &q.cnp]
            .into_iter()
            .filter(|c| c.traffic_class == q.ecn.traffic_class)
            .map(|c| c.priority)
            .collect();
        if marked.iter().any(|p| !nic.dcqcn_priorities.contains(p)) {
            self.add(
                "dcqcn",
                format!(
                    "NICs run DCQCN on priorities {:?} but the leaves ECN-mark priority {:?}",
                    nic.dcqcn_priorities, marked
                ),
                link,
            );
        }
        let switch_pfc: Vec<u8> = if iface.lossless {
            q.pfc_priorities.clone()
        } else {
            Vec::new()
        };
        if nic.pfc_priorities != switch_pfc {
            self.add(
                "pfc",
                format!(
                    "NICs run PFC on priorities {:?} but the leaf ports on {:?}",
                    nic.pfc_priorities, switch_pfc
                ),
                link,
            );
        }
    }
}

/// NIC against switch, port by port: DSCP, priority, PFC priorities, MTU (RY0706).
fn check(
    spec: &ClusterSpec,
    hosts: &HostIntents,
    devices: &BTreeMap<String, DeviceIntent>,
    diags: &mut Diagnostics,
) {
    let Some(nic) = &hosts.nic_qos else { return };
    let mut tally = Tally::default();
    for h in hosts.nodes.values() {
        for p in &h.ports {
            let Some(leaf) = devices.get(&p.leaf) else {
                continue;
            };
            let Some(iface) = leaf.interfaces.iter().find(|i| i.name == p.leaf_port) else {
                continue;
            };
            let link = format!("{}:{} ↔ {}:{}", h.name, p.port, p.leaf, p.leaf_port);
            tally.port(nic, p, leaf, iface, &link);
        }
    }
    for ((kind, detail), (count, example)) in tally.0 {
        let (span, help) = where_to_fix(spec, kind);
        diags.push(
            Diagnostic::error(
                codes::NIC_SWITCH_QOS_MISMATCH,
                format!("{detail} ({count} NIC port(s), e.g. {example})"),
            )
            .at(span.or(spec.scalable_units.node_model.span), "NIC setting")
            .help(help),
        );
    }
}

/// The spec key behind a kind of NIC-vs-switch finding, and how to fix it.
fn where_to_fix(spec: &ClusterSpec, kind: &str) -> (Option<Span>, &'static str) {
    let h = &spec.hosts;
    match kind {
        "dscp" => (
            h.nic_roce_dscp
                .as_ref()
                .and_then(|v| v.span)
                .or(spec.roce.dscp.span),
            "set `hosts.nic_roce_dscp` to `roce.dscp`, or drop it",
        ),
        "priority" => (
            h.nic_roce_priority
                .as_ref()
                .and_then(|v| v.span)
                .or(spec.roce.priority.span),
            "set `hosts.nic_roce_priority` to `roce.priority`, or drop it",
        ),
        "trust" | "cnp" | "dcqcn" => (
            spec.roce.cnp_dscp.span.or(spec.roce.dscp.span),
            "the NIC script takes CNP and DCQCN values from `roce`; a switch override that \
             moves them needs the same change on the NICs",
        ),
        "pfc" => (
            h.nic_pfc_priorities
                .as_ref()
                .and_then(|v| v.span)
                .or(spec.roce.priority.span),
            "PFC must run on exactly the switches' lossless priority (`roce.priority`)",
        ),
        _ => (
            h.nic_mtu
                .as_ref()
                .and_then(|v| v.span)
                .or(spec.roce.host_mtu.span),
            "lower the NIC MTU to at most the leaf ports' MTU (hosts usually run 9000)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netdev_follows_systemd_path_naming() {
        assert_eq!(
            derived_netdev("0000:18:00.0", 0, false).as_deref(),
            Some("enp24s0np0")
        );
        assert_eq!(
            derived_netdev("0000:9a:00.0", 1, true).as_deref(),
            Some("enp154s0f1np1")
        );
        assert_eq!(
            derived_netdev("0001:01:02.0", 0, false).as_deref(),
            Some("enP1p1s2np0")
        );
        assert_eq!(derived_netdev("bogus", 0, false), None);
    }

    /// A leaf whose CNP class or ECN-marked class moved (as a future override or a template
    /// change could) no longer agrees with the NIC script: RY0706 names it.
    #[test]
    fn cnp_and_dcqcn_are_checked_against_the_leaves() {
        let c = crate::compile(&crate::diag::SourceFile::new("s.yaml", crate::LAB_SMALL));
        let Some(crate::design::Design { spec, intents, .. }) = &c.design else {
            panic!("lab-small compiles");
        };
        let mut diags = Diagnostics::default();
        check(spec, &intents.hosts, &intents.devices, &mut diags);
        assert!(diags.is_empty(), "the built intent agrees with itself");
        let leaf = intents
            .devices
            .values()
            .find(|d| d.role == Role::Leaf && d.qos.is_some())
            .map(|d| d.hostname.clone())
            .expect("a leaf with QoS");
        for (what, edit) in [
            (
                "CNPs",
                Box::new(|q: &mut super::super::device::Qos| q.cnp.dscp = 46)
                    as Box<dyn Fn(&mut _)>,
            ),
            (
                "DCQCN",
                Box::new(|q: &mut super::super::device::Qos| q.ecn.traffic_class = 5),
            ),
        ] {
            let mut devices = intents.devices.clone();
            let q = devices
                .get_mut(&leaf)
                .and_then(|d| d.qos.as_mut())
                .expect("qos");
            edit(q);
            if what == "DCQCN" {
                q.cnp.traffic_class = 5;
            }
            let mut diags = Diagnostics::default();
            check(spec, &intents.hosts, &devices, &mut diags);
            assert!(
                diags
                    .iter()
                    .any(|d| d.code == codes::NIC_SWITCH_QOS_MISMATCH
                        && d.message.contains(what)
                        && d.span.is_some()),
                "{what}: {:?}",
                diags.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn port_busid_steps_the_function() {
        assert_eq!(
            port_busid("0000:18:00.0", 1).as_deref(),
            Some("0000:18:00.1")
        );
        assert_eq!(port_busid("0000:18:00.7", 1), None);
    }
}
