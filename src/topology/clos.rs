//! The leaf → spine → core wiring every Clos fabric shares (each compute plane, storage,
//! in-band): spines in spine groups, core group j for spine j of every group, and the cables
//! between the tiers. Ports and cable ids derive from identity (leaf, spine group, spine,
//! uplink), so growth only appends ports.

use petgraph::graph::NodeIndex;

use super::builder::{Builder, Identity};
use super::sizing::CageRun;
use crate::model::{Network, Role, Speed, Tier};

type Ix = NodeIndex<u32>;

/// One fabric's tiers above its leaves, as sized.
pub struct Tiers<'p> {
    pub network: Network,
    /// The plane of a multi-plane compute fabric.
    pub plane: Option<u32>,
    pub spine_role: Role,
    pub core_role: Role,
    pub spine_model: &'p str,
    /// The core model of a 3-tier fabric.
    pub core_model: Option<&'p str>,
    pub tiers: u32,
    pub groups: u32,
    pub spines_per_group: u32,
    pub cores_per_group: u32,
    pub leaves_per_group: u32,
    pub links_per_leaf_spine: u32,
    pub links_per_spine_core: u32,
    pub leaf_up: &'p CageRun,
    pub spine_down: &'p CageRun,
    pub spine_up: Option<&'p CageRun>,
    pub core_down: Option<&'p CageRun>,
    pub speed: Speed,
    /// Cable ids start `<prefix>-`: the fabric and plane.
    pub prefix: String,
    /// Leaves per SU when a cable id names a leaf by its SU (`su3-l2`), else by place (`l7`).
    pub leaves_per_su: Option<u32>,
}

/// Spines [group-1][spine-1] and cores [core group-1][core-1].
pub struct Switches {
    spines: Vec<Vec<Ix>>,
    cores: Vec<Vec<Ix>>,
}

/// Spine groups, then the core groups of a 3-tier fabric (core group j serves spine j of every
/// group). Devices are added in this order, which fixes their graph indices.
pub fn add_switches(b: &mut Builder<'_>, t: &Tiers<'_>) -> Switches {
    let spines = (1..=t.groups)
        .map(|g| {
            (1..=t.spines_per_group)
                .map(|k| {
                    let id = Identity {
                        plane: t.plane,
                        group: (t.tiers == 3).then_some(g),
                        index: k,
                        ..Identity::default()
                    };
                    b.add_device(t.spine_role, t.network, t.spine_model, id)
                })
                .collect()
        })
        .collect();
    let cores = match t.core_model.filter(|_| t.tiers == 3) {
        Some(model) => (1..=t.spines_per_group)
            .map(|j| {
                (1..=t.cores_per_group)
                    .map(|k| {
                        let id = Identity {
                            plane: t.plane,
                            group: Some(j),
                            index: (j - 1) * t.cores_per_group + k,
                            ..Identity::default()
                        };
                        b.add_device(t.core_role, t.network, model, id)
                    })
                    .collect()
            })
            .collect(),
        None => Vec::new(),
    };
    Switches { spines, cores }
}

/// Leaves (in order) to spines, then spines to cores.
pub fn wire(b: &mut Builder<'_>, t: &Tiers<'_>, leaves: &[Ix], sw: &Switches) {
    leaf_spine_links(b, t, leaves, &sw.spines);
    spine_core_links(b, t, sw);
}

/// Leaf uplink u = spine k × links-per-pair + m; on the spine, leaf q of its spine group takes
/// ports q × links-per-pair + m, so added leaves only append ports.
fn leaf_spine_links(b: &mut Builder<'_>, t: &Tiers<'_>, leaves: &[Ix], spines: &[Vec<Ix>]) {
    let lps = t.links_per_leaf_spine;
    for (li, leaf) in leaves.iter().enumerate() {
        let li = li as u32;
        let (g, q) = (li / t.leaves_per_group, li % t.leaves_per_group);
        let Some(group) = spines.get(g as usize) else {
            continue;
        };
        let name = match t.leaves_per_su {
            Some(n) => format!("su{}-l{}", li / n + 1, li % n + 1),
            None => format!("l{}", li + 1),
        };
        for (k, spine) in group.iter().enumerate() {
            for m in 0..lps {
                let u = k as u32 * lps + m;
                let lp = b.run_port(*leaf, t.leaf_up, u);
                let sp = b.run_port(*spine, t.spine_down, q * lps + m);
                let id = format!("{}-{name}-u{}", t.prefix, u + 1);
                b.add_link(
                    id,
                    t.network,
                    Tier::LeafSpine,
                    t.plane,
                    None,
                    (*leaf, lp),
                    (*spine, sp),
                    t.speed,
                );
            }
        }
    }
}

/// Spine k of every group to each core of core group k; group g takes ports
/// g × links-per-pair + m on the core, so adding a group only appends ports.
fn spine_core_links(b: &mut Builder<'_>, t: &Tiers<'_>, sw: &Switches) {
    let (Some(up), Some(down)) = (t.spine_up, t.core_down) else {
        return;
    };
    let lpc = t.links_per_spine_core;
    for (g, group) in sw.spines.iter().enumerate() {
        for (k, spine) in group.iter().enumerate() {
            let Some(cores) = sw.cores.get(k) else {
                continue;
            };
            for (ci, core) in cores.iter().enumerate() {
                for m in 0..lpc {
                    let u = ci as u32 * lpc + m;
                    let sp = b.run_port(*spine, up, u);
                    let cp = b.run_port(*core, down, g as u32 * lpc + m);
                    let id = format!("{}-g{}-s{}-u{}", t.prefix, g + 1, k + 1, u + 1);
                    b.add_link(
                        id,
                        t.network,
                        Tier::SpineCore,
                        t.plane,
                        None,
                        (*spine, sp),
                        (*core, cp),
                        t.speed,
                    );
                }
            }
        }
    }
}
