//! Storage and in-band fabric sizing, one function per decision: node ports and speeds, leaf
//! groups (pairs when nodes have two or more ports) and the uplinks the ratio requires, the leaf
//! count, then what joins the leaves: nothing (one leaf), routed peer links (one pair without
//! spines), spines (2-tier) or spine groups and cores (3-tier, when the spines' radix is
//! exhausted, like the compute fabric).

use serde::Serialize;

use super::{
    CageRun, Ratio, even_count, lanes, leaf_capacity, nonzero, parse_ratio, place, switch_model,
    uplinks_for,
};
use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Network, Speed, Transport};
use crate::spec::{AccessSpec, AccessSpineSpec, AccessSwitchSpec};

/// A storage or in-band fabric: nodes to leaf groups (pairs when nodes have two or more ports).
#[derive(Clone, Debug, Serialize)]
pub struct AccessPlan {
    pub network: Network,
    pub transport: Transport,
    /// Storage over RDMA: the fabric runs the RoCE class.
    pub rdma: bool,
    pub leaf_model: String,
    pub spine_model: Option<String>,
    pub core_model: Option<String>,
    /// Flat node-port indices carried by this network.
    pub node_ports: Vec<u16>,
    /// Leaves per group (2 = a redundant pair).
    pub width: u32,
    /// Lanes each node takes on each leaf of its group.
    pub lanes_per_node: u32,
    pub nodes_per_group: u32,
    pub groups: u32,
    pub port_speed: Speed,
    pub uplink_speed: Speed,
    /// Uplinks of a leaf to its spines (0 without spines).
    pub uplinks_per_leaf: u32,
    pub leaf_down: CageRun,
    pub leaf_up: CageRun,
    /// 1 (one leaf, or one pair joined by peer links), 2 (spines) or 3 (spine groups and cores).
    pub tiers: u32,
    /// Links between the two leaves of a pair that has no spines (0 otherwise).
    pub peer_links: u32,
    /// Leaves per spine group (every leaf in a 2-tier fabric).
    pub leaves_per_group: u32,
    pub spine_groups: u32,
    /// Spines per spine group.
    pub spines: u32,
    pub links_per_leaf_spine: u32,
    pub spine_down: Option<CageRun>,
    pub spine_up: Option<CageRun>,
    /// Uplinks of a spine to its core group (3-tier).
    pub spine_uplinks: u32,
    pub cores_per_group: u32,
    pub links_per_spine_core: u32,
    pub core_down: Option<CageRun>,
}

impl AccessPlan {
    pub fn leaves(&self) -> u32 {
        self.groups * self.width
    }
}

/// The leaf side: group width, lanes per node, nodes per group, uplinks, cage runs.
struct Leaves {
    width: u32,
    per_node: u32,
    npg: u32,
    up: u32,
    leaf_down: CageRun,
    leaf_up: CageRun,
}

/// What joins the leaves.
struct Upper {
    tiers: u32,
    peer_links: u32,
    spine_model: Option<String>,
    core_model: Option<String>,
    leaves_per_group: u32,
    spine_groups: u32,
    spines: u32,
    spine_down: Option<CageRun>,
    spine_up: Option<CageRun>,
    spine_uplinks: u32,
    cores_per_group: u32,
    core_down: Option<CageRun>,
}

impl Upper {
    fn leaves_only(tiers_links: u32, leaves: u32) -> Self {
        Self {
            tiers: 1,
            peer_links: tiers_links,
            spine_model: None,
            core_model: None,
            leaves_per_group: leaves,
            spine_groups: 0,
            spines: 0,
            spine_down: None,
            spine_up: None,
            spine_uplinks: 0,
            cores_per_group: 0,
            core_down: None,
        }
    }
}

/// The names the diagnostics use: `storage` or `inband`, the spec key of this fabric.
struct Ctx<'a> {
    a: &'a AccessSpec,
    cat: &'a Catalog,
    key: &'a str,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn access_plan(
    network: Network,
    a: &AccessSpec,
    cat: &Catalog,
    node: &NodeModel,
    ports: &[u16],
    positions: u32,
    key: &str,
    diags: &mut Diagnostics,
) -> Option<AccessPlan> {
    let cx = Ctx { a, cat, key };
    let leaf = switch_model(cat, &a.leaf.model, Some(a.transport), diags)?;
    let (port_speed, uplink_speed) = speeds(&cx, network, leaf, node, ports, diags)?;
    let ratio = parse_ratio(&a.oversubscription, diags)?;
    let l = leaves(&cx, leaf, ports, port_speed, uplink_speed, &ratio, diags)?;
    let groups = groups(&cx, &l, positions, diags)?;
    rdma(&cx, diags)?;
    let upper = upper(&cx, &l, groups, positions, uplink_speed, diags)?;
    Some(AccessPlan {
        network,
        transport: a.transport,
        rdma: a.rdma.value,
        leaf_model: a.leaf.model.value.clone(),
        spine_model: upper.spine_model,
        core_model: upper.core_model,
        node_ports: ports.to_vec(),
        width: l.width,
        lanes_per_node: l.per_node,
        nodes_per_group: l.npg,
        groups,
        port_speed,
        uplink_speed,
        uplinks_per_leaf: if upper.spines > 0 { l.up } else { 0 },
        leaf_down: l.leaf_down,
        leaf_up: l.leaf_up,
        tiers: upper.tiers,
        peer_links: upper.peer_links,
        leaves_per_group: upper.leaves_per_group,
        spine_groups: upper.spine_groups,
        spines: upper.spines,
        links_per_leaf_spine: l.up.checked_div(upper.spines).unwrap_or(0),
        spine_down: upper.spine_down,
        spine_up: upper.spine_up,
        spine_uplinks: upper.spine_uplinks,
        cores_per_group: upper.cores_per_group,
        links_per_spine_core: upper
            .spine_uplinks
            .checked_div(upper.cores_per_group)
            .unwrap_or(0),
        core_down: upper.core_down,
    })
}

/// Node port speed (every node port of the network must run it) and the leaf-spine speed (the
/// fastest rate a leaf port runs at, unless declared).
fn speeds(
    cx: &Ctx<'_>,
    network: Network,
    leaf: &SwitchModel,
    node: &NodeModel,
    ports: &[u16],
    diags: &mut Diagnostics,
) -> Option<(Speed, Speed)> {
    let (a, key) = (cx.a, cx.key);
    if ports.is_empty() {
        diags.push(
            Diagnostic::error(
                codes::MISSING_PORTS,
                format!("node model has no {key} ports, but a `{key}` fabric is configured"),
            )
            .at(a.leaf.model.span, "no node ports to connect")
            .help(format!(
                "add `{key}:` ports to the node model, or remove the `{key}` section"
            )),
        );
        return None;
    }
    let node_ports: Vec<&crate::catalog::NodePort> = match network {
        Network::Storage => node.storage.iter().chain(&node.inband).collect(),
        _ => node.inband.iter().collect(),
    };
    let port_speed = a
        .port_speed
        .as_ref()
        .map_or(node_ports[0].speed, |s| s.value);
    if node_ports.iter().any(|p| !p.supports(port_speed)) {
        diags.push(
            Diagnostic::error(
                codes::SPEED_MISMATCH,
                format!("the node's {key} ports cannot run at {port_speed}"),
            )
            .at(
                a.port_speed
                    .as_ref()
                    .and_then(|s| s.span)
                    .or(a.leaf.model.span),
                "speed",
            )
            .help(format!(
                "the ports run at {}; set `{key}.port_speed` accordingly",
                node_ports[0].speed
            )),
        );
        return None;
    }
    // The fastest rate a port of the leaf can run at (a QM9700 cage is 800G but runs 2x400G).
    let fastest = leaf
        .port_groups
        .iter()
        .flat_map(|g| {
            g.breakouts
                .iter()
                .filter_map(|b| b.split_once('x')?.1.parse::<Speed>().ok())
        })
        .max()
        .unwrap_or(port_speed);
    Some((
        port_speed,
        a.uplink_speed.as_ref().map_or(fastest, |s| s.value),
    ))
}

/// Leaf groups: a node's ports alternate over the two leaves of its pair (one leaf when it has
/// one port); as many nodes per group as fit with the uplinks the ratio requires.
fn leaves(
    cx: &Ctx<'_>,
    leaf: &SwitchModel,
    ports: &[u16],
    port_speed: Speed,
    uplink_speed: Speed,
    ratio: &Ratio,
    diags: &mut Diagnostics,
) -> Option<Leaves> {
    let (a, key) = (cx.a, cx.key);
    let dg = lanes(leaf, &a.leaf.model, port_speed, "node ports", diags)?;
    let ug = lanes(leaf, &a.leaf.model, uplink_speed, "uplinks", diags)?;
    let width = if ports.len() >= 2 { 2 } else { 1 };
    let per_node = (ports.len() as u32).div_ceil(width);
    let up_for = |n: u32| match uplinks_for(n * per_node, port_speed, ratio, uplink_speed) {
        Ok(u) | Err(u) => u.max(1),
    };
    let capacity = leaf_capacity(leaf, dg);
    let Some(npg) = (1..=capacity / per_node)
        .rev()
        .find(|n| place(leaf, (dg.0, dg.1, n * per_node), (ug.0, ug.1, up_for(*n))).is_some())
    else {
        diags.push(
            Diagnostic::error(
                codes::ACCESS_RADIX,
                format!(
                    "`{}` cannot carry one node's {key} ports plus uplinks",
                    a.leaf.model.value
                ),
            )
            .at(a.leaf.model.span, "too small")
            .help("use a larger leaf model or a higher oversubscription ratio"),
        );
        return None;
    };
    let up = up_for(npg);
    let (leaf_down, leaf_up) = place(leaf, (dg.0, dg.1, npg * per_node), (ug.0, ug.1, up))?;
    Some(Leaves {
        width,
        per_node,
        npg,
        up,
        leaf_down,
        leaf_up,
    })
}

/// Leaf groups: what the node positions need, or the declared leaf count when it is larger
/// (empty leaves built now, so the spines are sized for them and growth recables nothing).
fn groups(cx: &Ctx<'_>, l: &Leaves, positions: u32, diags: &mut Diagnostics) -> Option<u32> {
    let need = positions.div_ceil(l.npg);
    let Some(declared) = &cx.a.leaf.count else {
        return Some(need);
    };
    let key = cx.key;
    let n = nonzero(declared, &format!("`{key}.leaf.count`"), diags)?;
    if n < need * l.width || !n.is_multiple_of(l.width) {
        let what = if l.width == 2 { "pairs of " } else { "" };
        diags.push(
            Diagnostic::error(
                codes::ACCESS_LEAF_COUNT,
                format!(
                    "{n} {key} leaves declared; {positions} node positions at {} nodes per leaf group need {}",
                    l.npg,
                    need * l.width
                ),
            )
            .at(declared.span, "too few, or not whole groups")
            .help(format!(
                "declare at least {} leaves, in {what}leaves (each node has a port on every leaf of its group), or leave `count` out",
                need * l.width
            )),
        );
        return None;
    }
    Some(n / l.width)
}

/// `rdma` is a property of an Ethernet storage fabric.
fn rdma(cx: &Ctx<'_>, diags: &mut Diagnostics) -> Option<()> {
    let a = cx.a;
    if a.rdma.value && a.transport == Transport::Infiniband {
        diags.push(
            Diagnostic::error(
                codes::RDMA_ON_INFINIBAND,
                format!("`{}.rdma` is set on an InfiniBand fabric", cx.key),
            )
            .at(a.rdma.span, "InfiniBand is RDMA by itself")
            .help(
                "remove `rdma`: it selects the RoCE lossless class of an Ethernet storage fabric",
            ),
        );
        return None;
    }
    Some(())
}

fn count_span(s: &AccessSpineSpec) -> Option<Span> {
    s.count.as_ref().and_then(|c| c.span).or(s.model.span)
}

/// What joins the leaves: nothing, peer links, spines, or spine groups and cores.
fn upper(
    cx: &Ctx<'_>,
    l: &Leaves,
    groups: u32,
    positions: u32,
    uplink_speed: Speed,
    diags: &mut Diagnostics,
) -> Option<Upper> {
    let (a, key) = (cx.a, cx.key);
    let leaves = groups * l.width;
    let Some(s) = &a.spine else {
        if groups > 1 {
            diags.push(
                Diagnostic::error(codes::ACCESS_RADIX, format!("{leaves} {key} leaves are needed for {positions} node positions; they need spines"))
                    .at(a.leaf.model.span, format!("{} nodes per leaf group", l.npg))
                    .help(format!("add `{key}.spine.model`: every leaf group then reaches every other through the spines (one pair alone is joined by peer links)")),
            );
            return None;
        }
        // One leaf routes between its own ports; one pair is joined by routed peer links that
        // take the uplinks the ratio reserves, so cross-pair traffic keeps the declared ratio.
        let peer_links = if l.width == 2 { l.up } else { 0 };
        return Some(Upper::leaves_only(peer_links, leaves));
    };
    let tiers = match &a.tiers {
        Some(t) if !matches!(t.value, 2 | 3) => {
            diags.push(
                Diagnostic::error(
                    codes::TIERS,
                    format!("`{key}.tiers: {}` is not supported", t.value),
                )
                .at(t.span, "2 or 3")
                .help("use 2, 3, or leave it out for automatic"),
            );
            return None;
        }
        Some(t) => Some(t.value),
        None => None,
    };
    let m = switch_model(cx.cat, &s.model, Some(a.transport), diags)?;
    let sg = lanes(m, &s.model, uplink_speed, "ports", diags)?;
    let grp = &m.port_groups[sg.0];
    let ports_per = grp.count * sg.1;
    let total = leaves * l.up;
    let fits_two = match &s.count {
        Some(_) if tiers == Some(3) => None,
        Some(c) => Some(nonzero(c, "spine count", diags)?),
        None => even_count(total, ports_per, l.up),
    };
    let three = match tiers {
        Some(t) => t == 3,
        None => fits_two.is_none() && a.core.is_some(),
    };
    if three {
        return three_tier(cx, s, m, sg, l, leaves, uplink_speed, diags);
    }
    let n = fits_two.unwrap_or(l.up);
    if !l.up.is_multiple_of(n) || total > n * ports_per {
        let help = if a.core.is_none() && s.count.is_none() {
            format!(
                "use a spine model with more ports, or add `{key}.core.model` for a third tier (spine groups joined by cores)"
            )
        } else {
            format!(
                "use a spine count that divides {} and gives at least {total} ports",
                l.up
            )
        };
        diags.push(
            Diagnostic::error(codes::UNEQUAL_LINKS, format!("{leaves} {key} leaves × {} uplinks do not spread evenly over {n} spines of {ports_per} ports", l.up))
                .at(count_span(s), "uneven or too small")
                .help(help),
        );
        return None;
    }
    Some(Upper {
        tiers: 2,
        peer_links: 0,
        spine_model: Some(s.model.value.clone()),
        core_model: None,
        leaves_per_group: leaves,
        spine_groups: 1,
        spines: n,
        spine_down: Some(CageRun {
            first: grp.first,
            cages: grp.count,
            lanes: sg.1,
            speed: uplink_speed,
        }),
        spine_up: None,
        spine_uplinks: 0,
        cores_per_group: 0,
        core_down: None,
    })
}

/// 3-tier: spine groups of `leaves_per_group` leaves, each spine with half its ports down and
/// half up; spine j of every group joins core group j.
#[allow(clippy::too_many_arguments)]
fn three_tier(
    cx: &Ctx<'_>,
    s: &AccessSpineSpec,
    m: &SwitchModel,
    sg: (usize, u32),
    l: &Leaves,
    leaves: u32,
    uplink_speed: Speed,
    diags: &mut Diagnostics,
) -> Option<Upper> {
    let (a, key) = (cx.a, cx.key);
    let Some(core_spec) = &a.core else {
        diags.push(
            Diagnostic::error(
                codes::TIERS,
                format!("a 3-tier {key} fabric needs a `core` switch model"),
            )
            .at(
                a.tiers.as_ref().and_then(|t| t.span).or(s.model.span),
                "3 tiers",
            )
            .help(format!("add `{key}.core.model`")),
        );
        return None;
    };
    let core = switch_model(cx.cat, &core_spec.model, Some(a.transport), diags)?;
    let cg = lanes(core, &core_spec.model, uplink_speed, "ports", diags)?;
    let grp = &m.port_groups[sg.0];
    let half = grp.count / 2;
    let down_ports = half * sg.1;
    let up_ports = (grp.count - half) * sg.1;
    let lpg = leaves_per_group(cx, s, l, down_ports, diags)?;
    let group_up = lpg * l.up;
    let spines = match &s.count {
        Some(c) => nonzero(c, &format!("`{key}.spine.count`"), diags)?,
        None => match even_count(group_up, down_ports, l.up) {
            Some(n) => n,
            None => {
                diags.push(
                    Diagnostic::error(codes::SWITCH_RADIX, format!("a {key} spine group of {lpg} leaves has {group_up} uplinks; `{}` spines with {down_ports} downlink ports cannot take them evenly", s.model.value))
                        .at(s.leaves_per_group.as_ref().and_then(|x| x.span).or(s.model.span), "group too large")
                        .help(format!("use at most {down_ports} `leaves_per_group`, or a spine model with more ports")),
                );
                return None;
            }
        },
    };
    if !l.up.is_multiple_of(spines) || group_up > spines * down_ports {
        diags.push(
            Diagnostic::error(codes::UNEQUAL_LINKS, format!("{lpg} {key} leaves × {} uplinks do not spread evenly over {spines} spines with {down_ports} downlink ports", l.up))
                .at(count_span(s), "uneven or too small")
                .help(format!("use a spine count per group that divides {} and gives at least {group_up} downlink ports", l.up)),
        );
        return None;
    }
    let spine_uplinks = group_up / spines; // 1:1 at the spine
    if spine_uplinks > up_ports {
        diags.push(
            Diagnostic::error(codes::SWITCH_RADIX, format!("{key} spines need {spine_uplinks} uplinks to the cores but have {up_ports} ports left"))
                .at(count_span(s), "too few spine ports")
                .help("add spines per group or use fewer `leaves_per_group`"),
        );
        return None;
    }
    let spine_groups = leaves.div_ceil(lpg);
    let core_group = &core.port_groups[cg.0];
    let core_ports = core_group.count * cg.1;
    let cores_per_group = cores_per_group(
        cx,
        core_spec,
        spines,
        spine_uplinks,
        spine_groups,
        core_ports,
        diags,
    )?;
    Some(Upper {
        tiers: 3,
        peer_links: 0,
        spine_model: Some(s.model.value.clone()),
        core_model: Some(core_spec.model.value.clone()),
        leaves_per_group: lpg,
        spine_groups,
        spines,
        spine_down: Some(CageRun {
            first: grp.first,
            cages: half,
            lanes: sg.1,
            speed: uplink_speed,
        }),
        spine_up: Some(CageRun {
            first: grp.first + half,
            cages: grp.count - half,
            lanes: sg.1,
            speed: uplink_speed,
        }),
        spine_uplinks,
        cores_per_group,
        core_down: Some(CageRun {
            first: core_group.first,
            cages: core_group.count,
            lanes: cg.1,
            speed: uplink_speed,
        }),
    })
}

/// Leaves per spine group: declared (whole leaf groups), else as many as the spines' downlink
/// half takes with one link per leaf and spine. A design constant, never the current leaf
/// count, so growth appends spine groups instead of reshaping them.
fn leaves_per_group(
    cx: &Ctx<'_>,
    s: &AccessSpineSpec,
    l: &Leaves,
    down_ports: u32,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let key = cx.key;
    match &s.leaves_per_group {
        Some(v) => {
            let n = nonzero(v, &format!("`{key}.spine.leaves_per_group`"), diags)?;
            if !n.is_multiple_of(l.width) {
                diags.push(
                    Diagnostic::error(
                        codes::ACCESS_LEAF_COUNT,
                        format!("{n} leaves per spine group split a leaf pair"),
                    )
                    .at(v.span, "odd")
                    .help("use an even number: both leaves of a pair join the same spine group"),
                );
                return None;
            }
            Some(n)
        }
        None => {
            let n = down_ports / l.width * l.width;
            if n == 0 {
                diags.push(
                    Diagnostic::error(
                        codes::SWITCH_RADIX,
                        format!("`{}` spines have no room for a leaf pair", s.model.value),
                    )
                    .at(s.model.span, "too small")
                    .help("use a spine model with more ports"),
                );
                return None;
            }
            Some(n)
        }
    }
}

/// Cores per core group: declared (a multiple of the spines per group), else the fewest that
/// take the spines' uplinks evenly.
fn cores_per_group(
    cx: &Ctx<'_>,
    core: &AccessSwitchSpec,
    spines: u32,
    spine_uplinks: u32,
    spine_groups: u32,
    core_ports: u32,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let key = cx.key;
    let span = core.count.as_ref().and_then(|c| c.span).or(core.model.span);
    let core_links = spine_groups * spine_uplinks;
    let per_group = match &core.count {
        Some(k) => {
            let k = nonzero(k, &format!("`{key}.core.count`"), diags)?;
            if !k.is_multiple_of(spines) || !spine_uplinks.is_multiple_of((k / spines).max(1)) {
                diags.push(
                    Diagnostic::error(codes::UNEQUAL_LINKS, format!("{k} {key} cores do not form {spines} equal core groups that each spine reaches evenly"))
                        .at(span, "uneven")
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
                    Diagnostic::error(codes::SWITCH_RADIX, format!("{core_links} {key} spine uplinks per core group exceed what `{}` cores can take evenly", core.model.value))
                        .at(core.model.span, "core radix")
                        .help("use a core model with more ports, or fewer, larger spine groups"),
                );
                return None;
            }
        },
    };
    if core_links > per_group * core_ports {
        diags.push(
            Diagnostic::error(
                codes::SWITCH_RADIX,
                format!(
                    "{} {key} cores × {core_ports} ports cannot take {} spine uplinks",
                    per_group * spines,
                    core_links * spines
                ),
            )
            .at(span, "too few core ports")
            .help("add cores"),
        );
        return None;
    }
    Some(per_group)
}
