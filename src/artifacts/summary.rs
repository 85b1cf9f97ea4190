//! The figures a designer checks first: GPUs, switches by role, cables by tier, oversubscription,
//! bisection bandwidth.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::model::{Network, Role, Tier};
use crate::tenancy::TenantPlan;
use crate::topology::Fabric;

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub cluster: String,
    pub gpus: u64,
    pub nodes: u64,
    pub scalable_units: u32,
    pub transport: String,
    pub layout: String,
    pub rails: u32,
    pub planes: u32,
    pub tiers: u32,
    pub switches: BTreeMap<&'static str, u64>,
    pub links: BTreeMap<String, u64>,
    pub oversubscription: BTreeMap<&'static str, String>,
    pub bisection_gbps: u64,
    /// Per plane, for twin-planar fabrics.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub planes_detail: BTreeMap<String, BTreeMap<String, u64>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tenants: Vec<TenantSummary>,
    /// Scale-up (NVLink domains) beside scale-out, for rack-scale systems.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_up: Option<ScaleUp>,
}

/// The NVLink side of a rack-scale cluster, kept apart from the scale-out fabric's figures: a
/// GPU's NVLink bandwidth is counted in GB/s both ways as NVIDIA prints it, the fabric in Gb/s.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleUp {
    pub system: String,
    /// NVLink domains with at least one tray installed.
    pub domains: u64,
    pub gpus_per_domain: u32,
    pub nvlink_gbytes_per_gpu: u32,
    /// Compute-fabric (scale-out) bandwidth of one GPU, Gb/s, over every plane.
    pub scale_out_gbps_per_gpu: u64,
    /// Power of one rack at most, kW, and of every rack together (a source's figure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rack_kw: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub racks_kw: Option<f64>,
}

/// One tenant, in a line: who, where, and its identifiers.
#[derive(Clone, Debug, Serialize)]
pub struct TenantSummary {
    pub name: String,
    pub id: u32,
    /// Hostlist (`gpu[001-016]`).
    pub nodes: String,
    pub gpus: u64,
    pub leaves: usize,
    pub l3vni: u32,
    pub route_target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pkey: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_services: Vec<String>,
}

/// The fabric's figures plus one line per tenant.
pub fn summarize_with(f: &Fabric, plan: &TenantPlan) -> Summary {
    let mut s = summarize(f);
    let gpn = u64::from(f.sizing.gpus_per_node);
    s.tenants = plan
        .tenants
        .iter()
        .map(|t| TenantSummary {
            name: t.name.clone(),
            id: t.id,
            nodes: super::scheduler::hostlist::compress(&t.nodes),
            gpus: t.nodes.len() as u64 * gpn,
            leaves: t.ports.len(),
            l3vni: t.l3vni,
            route_target: t.route_target.clone(),
            pkey: t.pkey.clone(),
            shared_services: t.shared_services.clone(),
        })
        .collect();
    s
}

fn link_key(network: Network, tier: Tier) -> String {
    match (network, tier) {
        (Network::Compute, t) => t.as_str().to_string(),
        (Network::Oob, _) => "oob".to_string(),
        (n, t) => format!("{}-{}", n.as_str(), t.as_str()),
    }
}

pub fn summarize(f: &Fabric) -> Summary {
    let s = &f.sizing;
    let c = &s.compute;
    let mut switches: BTreeMap<&'static str, u64> =
        ["leaf", "spine", "core", "storage", "inband", "oob"]
            .into_iter()
            .map(|k| (k, 0))
            .collect();
    let mut nodes = 0;
    for d in f.devices() {
        let key = match d.role {
            Role::Node => {
                nodes += 1;
                continue;
            }
            Role::Appliance | Role::NvlinkSwitchTray | Role::PowerShelf => continue,
            Role::Leaf => "leaf",
            Role::Spine => "spine",
            Role::Core => "core",
            Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => "storage",
            Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => "inband",
            Role::OobLeaf | Role::OobCore | Role::OobGateway => "oob",
        };
        *switches.entry(key).or_default() += 1;
    }
    let mut links: BTreeMap<String, u64> = ["node-leaf", "leaf-spine", "spine-core"]
        .into_iter()
        .map(|k| (k.to_string(), 0))
        .collect();
    let mut per_plane: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    // Capacity per plane and tier, in Gb/s, for the bisection figure.
    let mut cap: BTreeMap<(u32, Tier), u64> = BTreeMap::new();
    for l in f.links() {
        *links.entry(link_key(l.network, l.tier)).or_default() += 1;
        if l.network == Network::Compute {
            let p = l.plane.unwrap_or(1);
            *cap.entry((p, l.tier)).or_default() += u64::from(l.speed.as_gbps());
            if c.planes > 1 {
                *per_plane
                    .entry(format!("plane{p}"))
                    .or_default()
                    .entry(l.tier.as_str().to_string())
                    .or_default() += 1;
            }
        }
    }
    // Half the nodes talk to the other half: the narrowest tier's capacity over two, per plane.
    let bisection_gbps = (1..=c.planes)
        .map(|p| {
            let tiers: Vec<u64> = [Tier::NodeLeaf, Tier::LeafSpine, Tier::SpineCore]
                .into_iter()
                .filter(|t| *t != Tier::SpineCore || c.tiers == 3)
                .map(|t| cap.get(&(p, t)).copied().unwrap_or(0))
                .collect();
            let narrowest = if c.leaves_per_su * s.sus > 1 {
                tiers.into_iter().min().unwrap_or(0)
            } else {
                tiers[0]
            };
            narrowest / 2
        })
        .sum();
    let mut oversubscription = BTreeMap::new();
    let down = u64::from(c.downlinks_per_leaf) * u64::from(c.port_speed.as_gbps());
    let up = u64::from(c.uplinks_per_leaf) * u64::from(c.uplink_speed.as_gbps());
    oversubscription.insert("leaf", crate::topology::fmt_ratio(down, up));
    if c.tiers == 3 {
        oversubscription.insert("spine", "1:1".to_string());
    }
    Summary {
        cluster: f.name.clone(),
        gpus: nodes * u64::from(s.gpus_per_node),
        nodes,
        scalable_units: s.sus,
        transport: format!("{:?}", c.transport).to_lowercase(),
        layout: c.layout.to_string(),
        rails: c.rails,
        planes: c.planes,
        tiers: c.tiers,
        switches,
        links,
        oversubscription,
        bisection_gbps,
        planes_detail: per_plane,
        tenants: Vec::new(),
        scale_up: scale_up(f),
    }
}

fn scale_up(f: &Fabric) -> Option<ScaleUp> {
    let s = &f.sizing;
    let d = s.domains.as_ref()?;
    let domains: std::collections::BTreeSet<u32> = f
        .devices()
        .filter(|x| x.role == Role::Node)
        .filter_map(|x| x.domain)
        .collect();
    let c = &s.compute;
    let per_node = u64::from(c.rails) * u64::from(c.planes) * u64::from(c.port_speed.as_gbps());
    Some(ScaleUp {
        system: d.system.clone(),
        domains: domains.len() as u64,
        gpus_per_domain: d.gpus,
        nvlink_gbytes_per_gpu: d.nvlink_gbytes_per_gpu,
        scale_out_gbps_per_gpu: per_node / u64::from(s.gpus_per_node.max(1)),
        rack_kw: d.rack_kw,
        racks_kw: d.rack_kw.map(|kw| kw * domains.len() as f64),
    })
}

/// `summary.json` (an error rather than an empty file if it cannot be written).
pub fn to_json(s: &Summary) -> Result<Vec<u8>, serde_json::Error> {
    let mut v = serde_json::to_vec_pretty(s)?;
    v.push(b'\n');
    Ok(v)
}

/// A readable table for the terminal.
pub fn to_table(s: &Summary) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "cluster           {}", s.cluster);
    let _ = writeln!(
        t,
        "GPUs / nodes      {} / {} in {} SU(s)",
        s.gpus, s.nodes, s.scalable_units
    );
    let _ = writeln!(
        t,
        "compute fabric    {} {}, {} rails, {} plane(s), {}-tier",
        s.transport, s.layout, s.rails, s.planes, s.tiers
    );
    let _ = writeln!(t, "bisection         {} Gb/s", s.bisection_gbps);
    if let Some(u) = &s.scale_up {
        let _ = writeln!(
            t,
            "scale-up          NVLink: {} domain(s) of {} GPUs ({}), {} GB/s per GPU",
            u.domains, u.gpus_per_domain, u.system, u.nvlink_gbytes_per_gpu
        );
        let _ = writeln!(
            t,
            "scale-out         {} Gb/s per GPU on the compute fabric",
            u.scale_out_gbps_per_gpu
        );
        if let (Some(one), Some(all)) = (u.rack_kw, u.racks_kw) {
            let _ = writeln!(
                t,
                "rack power        up to {one} kW a rack, {all} kW for all racks"
            );
        }
    }
    for (k, v) in &s.oversubscription {
        let _ = writeln!(t, "oversubscription  {k} {v}");
    }
    let _ = writeln!(t, "\nswitches");
    for (k, v) in &s.switches {
        let _ = writeln!(t, "  {k:<22}{v:>8}");
    }
    let _ = writeln!(t, "\ncables");
    for (k, v) in &s.links {
        let _ = writeln!(t, "  {k:<22}{v:>8}");
    }
    if !s.tenants.is_empty() {
        let _ = writeln!(t, "\ntenants");
        for x in &s.tenants {
            let key = x.pkey.as_ref().map_or_else(
                || format!("VNI {} RT {}", x.l3vni, x.route_target),
                |p| format!("PKey {p}"),
            );
            let shared = if x.shared_services.is_empty() {
                String::new()
            } else {
                format!(", shares {}", x.shared_services.join(" "))
            };
            let _ = writeln!(
                t,
                "  {:<14} id {:<4} {:>6} GPUs on {:>3} leaves  {key}{shared}  {}",
                x.name, x.id, x.gpus, x.leaves, x.nodes
            );
        }
    }
    t
}
