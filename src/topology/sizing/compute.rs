//! Compute-fabric sizing, one function per decision: rails and planes from the node, port and
//! uplink speeds, the switch models and their breakouts, the leaf (units per leaf, downlinks and
//! the uplinks the ratio requires), the tier count, then the spine (and core) tier that connects
//! every leaf evenly.

use serde::Serialize;

use super::{
    CageRun, Ratio, divisors, even_count, fmt_ratio, lanes, leaf_capacity, nonzero, parse_ratio,
    place, switch_model, uplinks_for,
};
use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Speed, Transport};
use crate::spec::{ClusterSpec, ComputeSpec, Layout, Sp};

#[derive(Clone, Debug, Serialize)]
pub struct ComputePlan {
    pub transport: Transport,
    pub layout: &'static str,
    pub planes: u32,
    pub rails: u32,
    pub rails_per_leaf: u32,
    pub nodes_per_leaf: u32,
    pub leaves_per_su: u32,
    pub port_speed: Speed,
    pub uplink_speed: Speed,
    pub oversubscription: String,
    pub downlinks_per_leaf: u32,
    pub uplinks_per_leaf: u32,
    pub leaf_model: String,
    pub leaf_down: CageRun,
    pub leaf_up: CageRun,
    pub tiers: u32,
    pub spine_model: String,
    pub sus_per_group: u32,
    pub groups: u32,
    pub spines_per_group: u32,
    pub links_per_leaf_spine: u32,
    pub spine_down: CageRun,
    pub spine_up: Option<CageRun>,
    pub spine_uplinks: u32,
    pub core_model: Option<String>,
    pub cores_per_group: u32,
    pub links_per_spine_core: u32,
    pub core_down: Option<CageRun>,
}

impl ComputePlan {
    pub fn leaves_per_plane(&self, sus: u32) -> u32 {
        sus * self.leaves_per_su
    }
    pub fn spines_per_plane(&self) -> u32 {
        self.groups * self.spines_per_group
    }
    pub fn cores_per_plane(&self) -> u32 {
        if self.tiers == 3 {
            self.spines_per_group * self.cores_per_group
        } else {
            0
        }
    }
}

/// The switch models of the three tiers and the port group (and lanes) each tier uses.
struct Models<'c> {
    leaf: &'c SwitchModel,
    spine: &'c SwitchModel,
    /// `None`: no core declared; `Some(None)`: declared but unusable (already reported).
    core: Option<Option<&'c SwitchModel>>,
    down_g: (usize, u32),
    up_g: (usize, u32),
    spine_g: (usize, u32),
}

/// The leaf as sized: units (rails or nodes) per leaf, its downlinks and uplinks.
struct Leaf {
    per_leaf: u32,
    down: u32,
    up: u32,
    leaf_down: CageRun,
    leaf_up: CageRun,
    leaves_per_su: u32,
}

/// The tiers above the leaves.
struct Upper {
    tiers: u32,
    sus_per_group: u32,
    groups: u32,
    spines_per_group: u32,
    links_per_leaf_spine: u32,
    spine_down: CageRun,
    spine_up: Option<CageRun>,
    spine_uplinks: u32,
    cores_per_group: u32,
    links_per_spine_core: u32,
    core_down: Option<CageRun>,
}

/// Speeds the fabric runs at: node ports and leaf-spine (and spine-core) links.
#[derive(Clone, Copy)]
struct Speeds {
    port: Speed,
    uplink: Speed,
}

pub(super) fn compute_plan(
    spec: &ClusterSpec,
    cat: &Catalog,
    node: &NodeModel,
    sus: u32,
    nps: u32,
    diags: &mut Diagnostics,
) -> Option<ComputePlan> {
    let c = &spec.compute;
    let (rails, planes) = rails_and_planes(spec, node, diags)?;
    let speeds = speeds(spec, node, diags)?;
    let ratio = parse_ratio(&c.oversubscription, diags)?;
    let models = models(c, cat, speeds, diags)?;
    let leaf = leaf(spec, &models, rails, nps, speeds, &ratio, diags)?;
    let (tiers, two_tier_spines) = tiers(c, &models, &leaf, sus, diags)?;
    let upper = if tiers == 2 {
        two_tier(c, &models, &leaf, sus, two_tier_spines, diags)?
    } else {
        three_tier(c, &models, &leaf, sus, speeds, diags)?
    };
    Some(assemble(c, rails, planes, nps, speeds, &leaf, upper))
}

/// Rails (one per compute NIC in a rail-optimized fabric) and planes (a NIC port per plane).
fn rails_and_planes(
    spec: &ClusterSpec,
    node: &NodeModel,
    diags: &mut Diagnostics,
) -> Option<(u32, u32)> {
    let c = &spec.compute;
    let model = &spec.scalable_units.node_model;
    let nics = node.compute.len() as u32;
    if nics == 0 {
        diags.push(
            Diagnostic::error(
                codes::BAD_CATALOG_ENTRY,
                format!("node model `{}` has no compute NICs", model.value),
            )
            .at(model.span, "no compute NICs")
            .help("list the compute NICs under `compute:` in the node model"),
        );
        return None;
    }
    let rails = match &c.rails {
        Some(r) if r.value != nics && c.layout == Layout::RailOptimized => {
            diags.push(
                Diagnostic::error(
                    codes::RAILS_NIC_MISMATCH,
                    format!(
                        "{} rails declared, but `{}` has {nics} compute NICs",
                        r.value, model.value
                    ),
                )
                .at(r.span, format!("the node has {nics} compute NICs"))
                .help(format!(
                    "set `rails: {nics}` or remove it (it defaults to the NIC count)"
                )),
            );
            return None;
        }
        Some(r) => nonzero(r, "`compute.rails`", diags)?,
        None => nics,
    };
    let planes = nonzero(&c.planes, "`compute.planes`", diags)?;
    if let Some(short) = node
        .compute
        .iter()
        .position(|n| (n.ports.len() as u32) < planes)
    {
        diags.push(
            Diagnostic::error(
                codes::PLANES_NIC_PORTS,
                format!(
                    "{planes} planes need {planes} ports per compute NIC; NIC {} of `{}` has {}",
                    short + 1,
                    model.value,
                    node.compute[short].ports.len()
                ),
            )
            .at(c.planes.span, "too many planes")
            .help("use `planes: 1`, or a node model whose compute NICs list a port per plane"),
        );
        return None;
    }
    Some((rails, planes))
}

/// Node port speed (the NIC's unless declared, and every NIC must run it) and uplink speed.
fn speeds(spec: &ClusterSpec, node: &NodeModel, diags: &mut Diagnostics) -> Option<Speeds> {
    let c = &spec.compute;
    let model = &spec.scalable_units.node_model;
    let port = c
        .port_speed
        .as_ref()
        .map_or(node.compute[0].speed, |s| s.value);
    if let Some(bad) = node.compute.iter().position(|n| !n.supports(port)) {
        let span = c.port_speed.as_ref().and_then(|s| s.span).or(model.span);
        diags.push(
            Diagnostic::error(
                codes::SPEED_MISMATCH,
                format!(
                    "compute NIC {} of `{}` cannot run at {port}",
                    bad + 1,
                    model.value
                ),
            )
            .at(span, format!("leaf ports at {port}"))
            .help(format!(
                "the NIC runs at {}; set `compute.port_speed` to a rate both ends support",
                node.compute[bad].speed
            )),
        );
        return None;
    }
    let uplink = c.uplink_speed.as_ref().map_or(port, |s| s.value);
    Some(Speeds { port, uplink })
}

/// The leaf, spine and core models, and the port group each tier runs at its speed.
fn models<'c>(
    c: &ComputeSpec,
    cat: &'c Catalog,
    speeds: Speeds,
    diags: &mut Diagnostics,
) -> Option<Models<'c>> {
    let transport = c.transport;
    let leaf = switch_model(cat, &c.leaf.model, Some(transport), diags);
    let spine = switch_model(cat, &c.spine.model, Some(transport), diags);
    let core = c
        .core
        .as_ref()
        .map(|k| switch_model(cat, &k.model, Some(transport), diags));
    let (leaf, spine) = (leaf?, spine?);
    let down_g = lanes(leaf, &c.leaf.model, speeds.port, "node ports", diags);
    let up_g = lanes(leaf, &c.leaf.model, speeds.uplink, "uplinks", diags);
    if let Some(sp) = &c.spine.port_speed
        && sp.value != speeds.uplink
    {
        diags.push(
            Diagnostic::error(
                codes::SPEED_MISMATCH,
                format!(
                    "spine ports at {} but leaf uplinks at {}",
                    sp.value, speeds.uplink
                ),
            )
            .at(sp.span, "does not match the leaf uplinks")
            .help("set `compute.uplink_speed` and `compute.spine.port_speed` to the same rate"),
        );
        return None;
    }
    let spine_g = lanes(spine, &c.spine.model, speeds.uplink, "ports", diags);
    Some(Models {
        leaf,
        spine,
        core,
        down_g: down_g?,
        up_g: up_g?,
        spine_g: spine_g?,
    })
}

/// What a leaf serves: (units per SU, lanes per unit, span of the explicit key, explicit key).
/// Rail-optimized leaves serve rails (a rail is `nps` lanes); top-of-rack leaves serve nodes (a
/// node is `rails` lanes).
fn units(c: &ComputeSpec, rails: u32, nps: u32) -> (u32, u32, Option<&Sp<u32>>) {
    match c.layout {
        Layout::RailOptimized => (rails, nps, c.leaf.rails_per_leaf.as_ref()),
        Layout::TopOfRack => (nps, rails, c.leaf.nodes_per_leaf.as_ref()),
    }
}

/// Downlinks of `per_leaf` units and the uplinks the ratio requires (or the declared count),
/// placed on the leaf's cages; `None` when they do not fit.
fn fit(
    c: &ComputeSpec,
    m: &Models<'_>,
    speeds: Speeds,
    ratio: &Ratio,
    per_leaf: u32,
    unit_lanes: u32,
) -> Option<(u32, u32, CageRun, CageRun)> {
    let down = per_leaf * unit_lanes;
    let up = match &c.leaf.uplinks {
        Some(u) => u.value,
        None => match uplinks_for(down, speeds.port, ratio, speeds.uplink) {
            Ok(u) | Err(u) => u,
        },
    };
    let (d, u) = place(
        m.leaf,
        (m.down_g.0, m.down_g.1, down),
        (m.up_g.0, m.up_g.1, up),
    )?;
    Some((down, up, d, u))
}

/// Units per leaf: the declared count (which must divide the units), else the most that fit.
#[allow(clippy::too_many_arguments)]
fn per_leaf(
    c: &ComputeSpec,
    m: &Models<'_>,
    speeds: Speeds,
    ratio: &Ratio,
    unit_count: u32,
    unit_lanes: u32,
    explicit: Option<&Sp<u32>>,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let Some(k) = explicit else {
        return Some(
            (1..=unit_count)
                .rev()
                .filter(|k| unit_count.is_multiple_of(*k))
                .find(|k| fit(c, m, speeds, ratio, *k, unit_lanes).is_some())
                .unwrap_or(1),
        );
    };
    let span = k.span;
    let k = nonzero(k, "units per leaf", diags)?;
    if !unit_count.is_multiple_of(k) {
        let (code, what) = match c.layout {
            Layout::RailOptimized => (
                codes::RAILS_PER_LEAF_DIVIDE,
                format!("{k} rails per leaf does not divide {unit_count} rails"),
            ),
            Layout::TopOfRack => (
                codes::NODES_PER_LEAF,
                format!("{k} nodes per leaf does not divide {unit_count} nodes per SU"),
            ),
        };
        let divisors: Vec<String> = (1..=unit_count)
            .filter(|d| unit_count.is_multiple_of(*d))
            .map(|d| d.to_string())
            .collect();
        diags.push(
            Diagnostic::error(code, what)
                .at(span, "does not divide")
                .help(format!("use one of {}", divisors.join(", "))),
        );
        return None;
    }
    Some(k)
}

/// The leaf radix finding, saying what does fit.
#[allow(clippy::too_many_arguments)]
fn leaf_radix(
    spec: &ClusterSpec,
    m: &Models<'_>,
    speeds: Speeds,
    ratio: &Ratio,
    per_leaf: u32,
    unit_lanes: u32,
    nps: u32,
    diags: &mut Diagnostics,
) {
    let c = &spec.compute;
    let lanes_free = leaf_capacity(m.leaf, m.down_g);
    let largest = match c.layout {
        Layout::RailOptimized => (1..nps).rev().find(|n| {
            let down = per_leaf * n;
            let up = match uplinks_for(down, speeds.port, ratio, speeds.uplink) {
                Ok(u) | Err(u) => u,
            };
            place(
                m.leaf,
                (m.down_g.0, m.down_g.1, down),
                (m.up_g.0, m.up_g.1, up),
            )
            .is_some()
        }),
        Layout::TopOfRack => None,
    };
    let help = match largest {
        Some(n) => format!(
            "at most {n} nodes per SU fit with {per_leaf} rails per leaf at `{}`; or use fewer rails per leaf, a larger leaf, or a higher ratio",
            c.oversubscription.value
        ),
        None => "use a larger leaf model, fewer nodes or rails per leaf, or a higher oversubscription ratio".to_string(),
    };
    diags.push(
        Diagnostic::error(
            codes::LEAF_RADIX,
            format!(
                "leaf `{}` has {lanes_free} ports at {}, too few for {} downlinks plus their uplinks",
                c.leaf.model.value,
                speeds.port,
                per_leaf * unit_lanes
            ),
        )
        .at(
            spec.scalable_units.nodes_per_su.span,
            "needs more leaf ports than the model has",
        )
        .help(help),
    );
}

/// The declared ratio must be what the ports realise.
fn realised_ratio(
    c: &ComputeSpec,
    speeds: Speeds,
    ratio: &Ratio,
    down: u32,
    up: u32,
    diags: &mut Diagnostics,
) -> Option<()> {
    let realised_ok = match uplinks_for(down, speeds.port, ratio, speeds.uplink) {
        Ok(u) => u == up,
        Err(_) => false,
    };
    if realised_ok {
        return Some(());
    }
    let (port_speed, uplink_speed) = (speeds.port, speeds.uplink);
    let down_bw = u64::from(down) * u64::from(port_speed.as_gbps());
    let up_bw = u64::from(up) * u64::from(uplink_speed.as_gbps());
    let span = c
        .leaf
        .uplinks
        .as_ref()
        .and_then(|u| u.span)
        .or(c.oversubscription.span);
    diags.push(
        Diagnostic::error(codes::OVERSUBSCRIPTION_MISMATCH, format!(
            "declared oversubscription `{}`, but {down} × {port_speed} down over {up} × {uplink_speed} up is {}",
            c.oversubscription.value, fmt_ratio(down_bw, up_bw)))
            .at(span, "not what the ports give")
            .help(format!("declare `oversubscription: \"{}\"`, or change the uplink count or speed", fmt_ratio(down_bw, up_bw))),
    );
    None
}

/// The leaf: units per leaf, downlinks, the uplinks the ratio requires, leaves per SU.
fn leaf(
    spec: &ClusterSpec,
    m: &Models<'_>,
    rails: u32,
    nps: u32,
    speeds: Speeds,
    ratio: &Ratio,
    diags: &mut Diagnostics,
) -> Option<Leaf> {
    let c = &spec.compute;
    let (unit_count, unit_lanes, explicit) = units(c, rails, nps);
    let per_leaf = per_leaf(c, m, speeds, ratio, unit_count, unit_lanes, explicit, diags)?;
    let Some((down, up, leaf_down, leaf_up)) = fit(c, m, speeds, ratio, per_leaf, unit_lanes)
    else {
        leaf_radix(spec, m, speeds, ratio, per_leaf, unit_lanes, nps, diags);
        return None;
    };
    realised_ratio(c, speeds, ratio, down, up, diags)?;
    Some(Leaf {
        per_leaf,
        down,
        up,
        leaf_down,
        leaf_up,
        leaves_per_su: unit_count / per_leaf,
    })
}

/// 2 or 3 tiers: as declared, else 2-tier whenever an even spread over the spines exists (a
/// declared core waits for growth). Returns the 2-tier spine count when one exists.
fn tiers(
    c: &ComputeSpec,
    m: &Models<'_>,
    leaf: &Leaf,
    sus: u32,
    diags: &mut Diagnostics,
) -> Option<(u32, Option<u32>)> {
    let spine_ports = leaf_capacity(m.spine, m.spine_g);
    let tiers_req = c.tiers.as_ref().map(|t| t.value);
    if let Some(t) = &c.tiers
        && !matches!(t.value, 2 | 3)
    {
        diags.push(
            Diagnostic::error(
                codes::TIERS,
                format!("`tiers: {}` is not supported", t.value),
            )
            .at(t.span, "2 or 3")
            .help("use 2, 3, or leave it out for automatic"),
        );
        return None;
    }
    let total_up = sus * leaf.leaves_per_su * leaf.up;
    let two_tier_spines = match c.spine.count.as_ref() {
        Some(s) if tiers_req != Some(3) => Some(nonzero(s, "`compute.spine.count`", diags)?),
        _ => even_count(total_up, spine_ports, leaf.up),
    };
    let tiers = match tiers_req {
        Some(t) => t,
        None if two_tier_spines.is_some() => 2,
        None if c.core.is_some() => 3,
        None => 2,
    };
    Some((tiers, two_tier_spines))
}

/// The speed one lane of a port group runs at.
fn lane_speed(m: &SwitchModel, g: (usize, u32)) -> Speed {
    Speed::gbps(m.port_groups[g.0].speed.as_gbps() / g.1)
}

/// 2-tier: every leaf reaches every spine with the same number of links.
fn two_tier(
    c: &ComputeSpec,
    m: &Models<'_>,
    leaf: &Leaf,
    sus: u32,
    two_tier_spines: Option<u32>,
    diags: &mut Diagnostics,
) -> Option<Upper> {
    let (up, leaves_per_su) = (leaf.up, leaf.leaves_per_su);
    let spine_ports = leaf_capacity(m.spine, m.spine_g);
    let total_up = sus * leaves_per_su * up;
    let span = c
        .spine
        .count
        .as_ref()
        .and_then(|s| s.span)
        .or(c.spine.model.span);
    let Some(spines) = two_tier_spines else {
        diags.push(
            Diagnostic::error(codes::SPINE_TWO_TIER, format!(
                "{total_up} leaf uplinks need more than {up} spines of {spine_ports} ports; a 2-tier fabric cannot connect every leaf to every spine"))
                .at(c.tiers.as_ref().and_then(|t| t.span).or(span), "2-tier does not fit")
                .help(format!("use `tiers: 3` with a `core` model (a 2-tier fabric of `{}` holds at most {} SUs)", c.spine.model.value, (up * spine_ports) / (leaves_per_su * up).max(1))),
        );
        return None;
    };
    if !up.is_multiple_of(spines) {
        diags.push(
            Diagnostic::error(
                codes::UNEQUAL_LINKS,
                format!("{up} uplinks per leaf do not spread evenly over {spines} spines"),
            )
            .at(span, "uneven")
            .help(format!(
                "use a spine count that divides {up}: {}",
                divisors(up)
            )),
        );
        return None;
    }
    if total_up > spines * spine_ports {
        let fit_sus = (spines * spine_ports) / (leaves_per_su * up);
        diags.push(
            Diagnostic::error(
                codes::SWITCH_RADIX,
                format!(
                    "{spines} spines × {spine_ports} ports cannot take {total_up} leaf uplinks"
                ),
            )
            .at(span, "too few spine ports")
            .help(format!(
                "at most {fit_sus} SUs fit on {spines} `{}` spines; add spines or use `tiers: 3`",
                c.spine.model.value
            )),
        );
        return None;
    }
    let spine_group = &m.spine.port_groups[m.spine_g.0];
    Some(Upper {
        tiers: 2,
        sus_per_group: sus,
        groups: 1,
        spines_per_group: spines,
        links_per_leaf_spine: up / spines,
        spine_down: CageRun {
            first: spine_group.first,
            cages: spine_group.count,
            lanes: m.spine_g.1,
            speed: lane_speed(m.spine, m.spine_g),
        },
        spine_up: None,
        spine_uplinks: 0,
        cores_per_group: 0,
        links_per_spine_core: 0,
        core_down: None,
    })
}

/// 3-tier: spine groups of `sus_per_group` SUs; spine j of every group joins core group j.
fn three_tier(
    c: &ComputeSpec,
    m: &Models<'_>,
    leaf: &Leaf,
    sus: u32,
    speeds: Speeds,
    diags: &mut Diagnostics,
) -> Option<Upper> {
    let (up, leaves_per_su) = (leaf.up, leaf.leaves_per_su);
    let Some(Some(core)) = m.core else {
        diags.push(
            Diagnostic::error(codes::TIERS, "a 3-tier fabric needs a `core` switch model")
                .at(
                    c.tiers.as_ref().and_then(|t| t.span).or(c.spine.model.span),
                    "3 tiers",
                )
                .help("add `compute.core.model`"),
        );
        return None;
    };
    let core_spec = c.core.as_ref()?;
    let core_g = lanes(core, &core_spec.model, speeds.uplink, "ports", diags)?;
    let g = nonzero(
        &c.spine.sus_per_group,
        "`compute.spine.sus_per_group`",
        diags,
    )?;
    let groups = sus.div_ceil(g);
    let spine_group = &m.spine.port_groups[m.spine_g.0];
    let half = spine_group.count / 2;
    let spine_down_ports = half * m.spine_g.1;
    let group_up = g * leaves_per_su * up;
    let spines = spines_per_group(c, up, g, leaves_per_su * up, spine_down_ports, diags)?;
    let spine_uplinks = group_up / spines; // 1:1 at the spine
    let core_group = &core.port_groups[core_g.0];
    let core_ports = core_group.count * core_g.1;
    let cores_per_group = cores_per_group(
        core_spec,
        spines,
        spine_uplinks,
        groups * spine_uplinks,
        core_ports,
        g,
        diags,
    )?;
    let spine_speed = lane_speed(m.spine, m.spine_g);
    Some(Upper {
        tiers: 3,
        sus_per_group: g,
        groups,
        spines_per_group: spines,
        links_per_leaf_spine: up / spines,
        spine_down: CageRun {
            first: spine_group.first,
            cages: half,
            lanes: m.spine_g.1,
            speed: spine_speed,
        },
        spine_up: Some(CageRun {
            first: spine_group.first + half,
            cages: spine_group.count - half,
            lanes: m.spine_g.1,
            speed: spine_speed,
        }),
        spine_uplinks,
        cores_per_group,
        links_per_spine_core: spine_uplinks / cores_per_group,
        core_down: Some(CageRun {
            first: core_group.first,
            cages: core_group.count,
            lanes: core_g.1,
            speed: lane_speed(core, core_g),
        }),
    })
}

/// Spines per group of a 3-tier fabric: declared, else the fewest that take a group's uplinks
/// evenly on half their ports (the other half go up to the cores).
fn spines_per_group(
    c: &ComputeSpec,
    up: u32,
    g: u32,
    su_up: u32,
    spine_down_ports: u32,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let group_up = g * su_up;
    let explicit = c.spine.count.as_ref();
    let spines = match explicit {
        Some(s) => nonzero(s, "`compute.spine.count`", diags)?,
        None => match even_count(group_up, spine_down_ports, up) {
            Some(s) => s,
            None => {
                diags.push(
                    Diagnostic::error(codes::SPINE_TWO_TIER, format!("a spine group of {g} SUs has {group_up} leaf uplinks; `{}` spines cannot take them evenly", c.spine.model.value))
                        .at(c.spine.sus_per_group.span.or(c.spine.model.span), "group too large")
                        .help("use fewer `sus_per_group`, or a spine model with more ports"),
                );
                return None;
            }
        },
    };
    let spine_span = explicit.and_then(|s| s.span).or(c.spine.model.span);
    if !up.is_multiple_of(spines) {
        diags.push(
            Diagnostic::error(
                codes::UNEQUAL_LINKS,
                format!(
                    "{up} uplinks per leaf do not spread evenly over {spines} spines per group"
                ),
            )
            .at(spine_span, "uneven")
            .help(format!(
                "use a spine count that divides {up}: {}",
                divisors(up)
            )),
        );
        return None;
    }
    if group_up > spines * spine_down_ports {
        diags.push(
            Diagnostic::error(codes::SWITCH_RADIX, format!("{spines} spines × {spine_down_ports} downlink ports cannot take a group's {group_up} leaf uplinks"))
                .at(spine_span, "too few spine ports")
                .help(format!("at most {} SUs per spine group fit; lower `sus_per_group` or add spines", (spines * spine_down_ports) / su_up)),
        );
        return None;
    }
    Some(spines)
}

/// Cores per core group (core group j takes spine j of every group): declared (a multiple of
/// the spines per group), else the fewest that take the spines' uplinks evenly.
fn cores_per_group(
    core_spec: &crate::spec::CoreSpec,
    spines: u32,
    spine_uplinks: u32,
    core_links: u32,
    core_ports: u32,
    g: u32,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let cores_per_group = match &core_spec.count {
        Some(k) => {
            let k = nonzero(k, "`compute.core.count`", diags)?;
            if !k.is_multiple_of(spines) || !spine_uplinks.is_multiple_of((k / spines).max(1)) {
                diags.push(
                    Diagnostic::error(codes::UNEQUAL_LINKS, format!("{k} cores do not form {spines} equal core groups that each spine reaches evenly"))
                        .at(k_span(core_spec), "uneven")
                        .help(format!("use a multiple of {spines} whose quotient divides {spine_uplinks}")),
                );
                return None;
            }
            k / spines
        }
        None => match even_count(core_links, core_ports, spine_uplinks) {
            Some(k) => k,
            None => {
                diags.push(
                    Diagnostic::error(codes::SWITCH_RADIX, format!("{core_links} spine uplinks per core group exceed what `{}` cores can take evenly", core_spec.model.value))
                        .at(core_spec.model.span, "core radix")
                        .help(format!("at most {} SUs fit with this core model", (spine_uplinks * core_ports / spine_uplinks.max(1)) / spine_uplinks.max(1) * g)),
                );
                return None;
            }
        },
    };
    if core_links > cores_per_group * core_ports {
        diags.push(
            Diagnostic::error(
                codes::SWITCH_RADIX,
                format!(
                    "{} cores × {core_ports} ports cannot take {} spine uplinks",
                    cores_per_group * spines,
                    core_links * spines
                ),
            )
            .at(k_span(core_spec), "too few core ports")
            .help(format!(
                "at most {} SUs fit; add cores",
                (cores_per_group * core_ports / spine_uplinks) * g
            )),
        );
        return None;
    }
    Some(cores_per_group)
}

fn k_span(core: &crate::spec::CoreSpec) -> Option<Span> {
    core.count.as_ref().and_then(|c| c.span).or(core.model.span)
}

/// The plan from its decided parts.
fn assemble(
    c: &ComputeSpec,
    rails: u32,
    planes: u32,
    nps: u32,
    speeds: Speeds,
    leaf: &Leaf,
    u: Upper,
) -> ComputePlan {
    let rail_optimized = c.layout == Layout::RailOptimized;
    ComputePlan {
        transport: c.transport,
        layout: if rail_optimized {
            "rail-optimized"
        } else {
            "top-of-rack"
        },
        planes,
        rails,
        rails_per_leaf: if rail_optimized { leaf.per_leaf } else { rails },
        nodes_per_leaf: if rail_optimized { nps } else { leaf.per_leaf },
        leaves_per_su: leaf.leaves_per_su,
        port_speed: speeds.port,
        uplink_speed: speeds.uplink,
        oversubscription: c.oversubscription.value.clone(),
        downlinks_per_leaf: leaf.down,
        uplinks_per_leaf: leaf.up,
        leaf_model: c.leaf.model.value.clone(),
        leaf_down: leaf.leaf_down,
        leaf_up: leaf.leaf_up,
        tiers: u.tiers,
        spine_model: c.spine.model.value.clone(),
        sus_per_group: u.sus_per_group,
        groups: u.groups,
        spines_per_group: u.spines_per_group,
        links_per_leaf_spine: u.links_per_leaf_spine,
        spine_down: u.spine_down,
        spine_up: u.spine_up,
        spine_uplinks: u.spine_uplinks,
        core_model: c.core.as_ref().map(|k| k.model.value.clone()),
        cores_per_group: u.cores_per_group,
        links_per_spine_core: u.links_per_spine_core,
        core_down: u.core_down,
    }
}
