//! Compute-fabric sizing, one function per decision: rails and planes from the node, port and
//! uplink speeds, the switch models and their breakouts, the leaf (units per leaf, downlinks and
//! the uplinks the ratio requires); the spine (and core) tiers that connect every leaf evenly
//! are the shared Clos arithmetic of `clos.rs`, with the compute fabric's wording here.

use serde::Serialize;

use super::clos::{
    self, Core, CoreFit, CoreShort, Fault, LeafPorts, RunSpeed, Spines, Spread, Words,
};
use super::{CageRun, divisors, fmt_ratio, lanes, nonzero, parse_ratio, switch_model};
use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Speed, Transport};
use crate::spec::{ClusterSpec, ComputeSpec, Layout, Sp};

#[derive(Clone, Debug, Serialize)]
pub struct ComputePlan {
    pub transport: Transport,
    pub layout: Layout,
    pub planes: u32,
    pub rails: u32,
    pub rails_per_leaf: u32,
    /// Rail-optimized: the SU's node positions (one rail's length); top-of-rack: nodes per leaf.
    pub nodes_per_leaf: u32,
    /// Leaves one rail of an SU spans (1 where a leaf holds whole rails).
    #[serde(skip_serializing_if = "is_one")]
    pub leaves_per_rail: u32,
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

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The switch models of the three tiers and the port group (and lanes) each tier uses.
struct Models<'c> {
    leaf: LeafPorts<'c>,
    spine: Spines<'c>,
    /// `None`: no core declared; `Some(None)`: declared but unusable (already reported).
    core: Option<Option<&'c SwitchModel>>,
}

/// The leaf as sized: units (rails or nodes) per leaf, its downlinks and uplinks.
struct Leaf {
    per_leaf: u32,
    down: u32,
    up: u32,
    leaf_down: CageRun,
    leaf_up: CageRun,
    leaves_per_su: u32,
    leaves_per_rail: u32,
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
    let models = models(c, cat, speeds, ratio, diags)?;
    let leaf = leaf(spec, &models.leaf, rails, nps, diags)?;
    let fabric = Compute {
        c,
        core: models.core,
        leaves_per_su: leaf.leaves_per_su,
        words: Words {
            key: "compute",
            noun: String::new(),
            tiers: "tiers".into(),
            two_tier_count: "`compute.spine.count`".into(),
        },
    };
    let tiers = clos::declared_tiers(c.tiers.as_ref(), &fabric.words, diags)?;
    let leaves = sus * leaf.leaves_per_su;
    let upper = clos::upper(&fabric, &models.spine, leaves, leaf.up, tiers, diags)?;
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
    c: &'c ComputeSpec,
    cat: &'c Catalog,
    speeds: Speeds,
    ratio: super::Ratio,
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
        leaf: LeafPorts {
            model: leaf,
            down: down_g?,
            up: up_g?,
            port_speed: speeds.port,
            uplink_speed: speeds.uplink,
            ratio,
        },
        spine: Spines {
            model: spine,
            group: spine_g?,
            count: c.spine.count.as_ref(),
            speed: speeds.uplink,
            runs: RunSpeed::Lane,
        },
        core,
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
    lp: &LeafPorts<'_>,
    per_leaf: u32,
    unit_lanes: u32,
) -> Option<(u32, u32, CageRun, CageRun)> {
    let down = per_leaf * unit_lanes;
    let up = c
        .leaf
        .uplinks
        .as_ref()
        .map_or_else(|| lp.uplinks(down), |u| u.value);
    let (d, u) = lp.place(down, up)?;
    Some((down, up, d, u))
}

/// Units per leaf: the declared count (which must divide the units), else the most that fit.
fn per_leaf(
    c: &ComputeSpec,
    lp: &LeafPorts<'_>,
    (unit_count, unit_lanes): (u32, u32),
    explicit: Option<&Sp<u32>>,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let Some(k) = explicit else {
        return Some(
            (1..=unit_count)
                .rev()
                .filter(|k| unit_count.is_multiple_of(*k))
                .find(|k| fit(c, lp, *k, unit_lanes).is_some())
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
        diags.push(
            Diagnostic::error(code, what)
                .at(span, "does not divide")
                .help(format!("use one of {}", divisors(unit_count))),
        );
        return None;
    }
    Some(k)
}

/// The leaf radix finding, saying what does fit.
fn leaf_radix(
    spec: &ClusterSpec,
    lp: &LeafPorts<'_>,
    per_leaf: u32,
    unit_lanes: u32,
    nps: u32,
    diags: &mut Diagnostics,
) {
    let c = &spec.compute;
    let largest = match c.layout {
        Layout::RailOptimized => (1..nps).rev().find(|n| {
            let down = per_leaf * n;
            lp.place(down, lp.uplinks(down)).is_some()
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
                "leaf `{}` has {} ports at {}, too few for {} downlinks plus their uplinks",
                c.leaf.model.value,
                lp.capacity(),
                lp.port_speed,
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
    lp: &LeafPorts<'_>,
    down: u32,
    up: u32,
    diags: &mut Diagnostics,
) -> Option<()> {
    if lp.exact_uplinks(down) == Ok(up) {
        return Some(());
    }
    let (port_speed, uplink_speed) = (lp.port_speed, lp.uplink_speed);
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
    lp: &LeafPorts<'_>,
    rails: u32,
    nps: u32,
    diags: &mut Diagnostics,
) -> Option<Leaf> {
    let c = &spec.compute;
    let (unit_count, unit_lanes, explicit) = units(c, rails, nps);
    if c.layout == Layout::RailOptimized
        && explicit.is_none()
        && fit(c, lp, 1, unit_lanes).is_none()
        && let Some(leaf) = spanning_leaf(c, lp, rails, nps)
    {
        return Some(leaf);
    }
    let per_leaf = per_leaf(c, lp, (unit_count, unit_lanes), explicit, diags)?;
    let Some((down, up, leaf_down, leaf_up)) = fit(c, lp, per_leaf, unit_lanes) else {
        leaf_radix(spec, lp, per_leaf, unit_lanes, nps, diags);
        return None;
    };
    realised_ratio(c, lp, down, up, diags)?;
    Some(Leaf {
        per_leaf,
        down,
        up,
        leaf_down,
        leaf_up,
        leaves_per_su: unit_count / per_leaf,
        leaves_per_rail: 1,
    })
}

/// A rail-optimized leaf when one rail of the SU is longer than a leaf takes (NVIDIA-sized SUs of
/// rack-scale trays): the most downlinks a leaf carries with exactly the ratio's uplinks, the
/// rail continuing on the next leaf. `None` when not even that fits (the radix finding follows).
fn spanning_leaf(c: &ComputeSpec, lp: &LeafPorts<'_>, rails: u32, nps: u32) -> Option<Leaf> {
    let exact = |d: u32, up: u32| c.leaf.uplinks.is_some() || lp.exact_uplinks(d) == Ok(up);
    let (down, up, leaf_down, leaf_up) = (1..nps.min(lp.capacity()))
        .rev()
        .filter_map(|d| fit(c, lp, d, 1))
        .find(|(d, up, _, _)| exact(*d, *up))?;
    Some(Leaf {
        per_leaf: 1,
        down,
        up,
        leaf_down,
        leaf_up,
        leaves_per_su: (rails * nps).div_ceil(down),
        leaves_per_rail: nps.div_ceil(down),
    })
}

/// The compute fabric to the shared Clos sizing: spine groups of `sus_per_group` SUs, findings
/// that count SUs.
struct Compute<'c> {
    c: &'c ComputeSpec,
    core: Option<Option<&'c SwitchModel>>,
    leaves_per_su: u32,
    words: Words,
}

impl clos::Fabric for Compute<'_> {
    fn words(&self) -> &Words {
        &self.words
    }

    fn core_declared(&self) -> bool {
        self.c.core.is_some()
    }

    fn core(&self, diags: &mut Diagnostics) -> Option<Core<'_>> {
        let c = self.c;
        if let (Some(Some(model)), Some(k)) = (self.core, &c.core) {
            return Some(Core {
                model,
                name: &k.model,
                count: k.count.as_ref(),
            });
        }
        diags.push(clos::needs_core(
            &self.words,
            c.tiers.as_ref(),
            &c.spine.model,
        ));
        None
    }

    fn leaves_per_group(&self, _down_ports: u32, diags: &mut Diagnostics) -> Option<u32> {
        let g = &self.c.spine.sus_per_group;
        Some(nonzero(g, "`compute.spine.sus_per_group`", diags)? * self.leaves_per_su)
    }

    fn spread_fault(&self, s: &Spread, fault: Fault) -> Diagnostic {
        let c = self.c;
        let (up, ports, su_up) = (s.up, s.ports, self.leaves_per_su * s.up);
        let total = s.leaves * up;
        let model = &c.spine.model;
        let span = c.spine.count.as_ref().and_then(|s| s.span).or(model.span);
        let per = if s.three_tier { " per group" } else { "" };
        match (s.three_tier, fault) {
            (false, Fault::NoEvenCount) => Diagnostic::error(codes::SPINE_TWO_TIER, format!(
                "{total} leaf uplinks need more than {up} spines of {ports} ports; a 2-tier fabric cannot connect every leaf to every spine"))
                .at(c.tiers.as_ref().and_then(|t| t.span).or(span), "2-tier does not fit")
                .help(format!("use `tiers: 3` with a `core` model (a 2-tier fabric of `{}` holds at most {} SUs)", model.value, (up * ports) / su_up.max(1))),
            (true, Fault::NoEvenCount) => Diagnostic::error(codes::SPINE_TWO_TIER, format!(
                "a spine group of {} SUs has {total} leaf uplinks; `{}` spines cannot take them evenly", s.leaves / self.leaves_per_su, model.value))
                .at(c.spine.sus_per_group.span.or(model.span), "group too large")
                .help("use fewer `sus_per_group`, or a spine model with more ports"),
            (_, Fault::Uneven(n)) => Diagnostic::error(
                codes::UNEQUAL_LINKS,
                format!("{up} uplinks per leaf do not spread evenly over {n} spines{per}"),
            )
            .at(span, "uneven")
            .help(format!("use a spine count that divides {up}: {}", divisors(up))),
            (false, Fault::TooFewPorts(n)) => Diagnostic::error(
                codes::SWITCH_RADIX,
                format!("{n} spines × {ports} ports cannot take {total} leaf uplinks"),
            )
            .at(span, "too few spine ports")
            .help(format!(
                "at most {} SUs fit on {n} `{}` spines; add spines or use `tiers: 3`",
                (n * ports) / su_up,
                model.value
            )),
            (true, Fault::TooFewPorts(n)) => Diagnostic::error(codes::SWITCH_RADIX, format!("{n} spines × {ports} downlink ports cannot take a group's {total} leaf uplinks"))
                .at(span, "too few spine ports")
                .help(format!("at most {} SUs per spine group fit; lower `sus_per_group` or add spines", (n * ports) / su_up)),
        }
    }

    fn core_help(&self, fit: &CoreFit, short: CoreShort) -> String {
        let g = fit.leaves_per_group / self.leaves_per_su;
        let (su, cp) = (fit.spine_uplinks, fit.core_ports);
        match short {
            CoreShort::Radix => format!(
                "at most {} SUs fit with this core model",
                (su * cp / su.max(1)) / su.max(1) * g
            ),
            CoreShort::Ports(per_group) => {
                format!("at most {} SUs fit; add cores", (per_group * cp / su) * g)
            }
        }
    }
}

/// The plan from its decided parts.
fn assemble(
    c: &ComputeSpec,
    rails: u32,
    planes: u32,
    nps: u32,
    speeds: Speeds,
    leaf: &Leaf,
    u: clos::Upper,
) -> ComputePlan {
    let rail_optimized = c.layout == Layout::RailOptimized;
    ComputePlan {
        transport: c.transport,
        layout: c.layout,
        planes,
        rails,
        rails_per_leaf: if rail_optimized { leaf.per_leaf } else { rails },
        nodes_per_leaf: if rail_optimized { nps } else { leaf.per_leaf },
        leaves_per_rail: leaf.leaves_per_rail,
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
        sus_per_group: u.leaves_per_group / leaf.leaves_per_su,
        groups: u.groups,
        spines_per_group: u.spines,
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
