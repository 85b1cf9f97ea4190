//! Storage and in-band fabric sizing, one function per decision: node ports and speeds, leaf
//! groups (pairs when nodes have two or more ports) and the uplinks the ratio requires, the leaf
//! count, then what joins the leaves: nothing (one leaf), routed peer links (one pair without
//! spines), or the shared Clos tiers of `clos.rs` — spines (2-tier) or spine groups and cores
//! (3-tier, when the spines' radix is exhausted) — with the access fabrics' wording here.

use serde::Serialize;

use super::clos::{
    self, Core, CoreFit, CoreShort, Fault, LeafPorts, RunSpeed, Spines, Spread, Words,
};
use super::{CageRun, Ratio, lanes, nonzero, parse_ratio, switch_model};
use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Network, Speed, Transport};
use crate::spec::{AccessSpec, AccessSpineSpec};

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

/// The fabric's spec section and the names its diagnostics use: `storage` or `inband`, the spec
/// key of this fabric.
struct Ctx<'a> {
    a: &'a AccessSpec,
    cat: &'a Catalog,
    key: &'static str,
    words: Words,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn access_plan(
    network: Network,
    a: &AccessSpec,
    cat: &Catalog,
    node: &NodeModel,
    ports: &[u16],
    positions: u32,
    key: &'static str,
    diags: &mut Diagnostics,
) -> Option<AccessPlan> {
    let words = Words {
        key,
        noun: format!("{key} "),
        tiers: format!("{key}.tiers"),
        two_tier_count: "spine count".into(),
    };
    let cx = Ctx { a, cat, key, words };
    let leaf = switch_model(cat, &a.leaf.model, Some(a.transport), diags)?;
    let (port_speed, uplink_speed) = speeds(&cx, network, leaf, node, ports, diags)?;
    let ratio = parse_ratio(&a.oversubscription, diags)?;
    let l = leaves(&cx, leaf, ports, (port_speed, uplink_speed), ratio, diags)?;
    let groups = groups(&cx, &l, positions, diags)?;
    rdma(&cx, diags)?;
    let upper = upper(&cx, &l, groups, positions, uplink_speed, diags)?;
    let u = upper.as_ref();
    Some(AccessPlan {
        network,
        transport: a.transport,
        rdma: a.rdma.value,
        leaf_model: a.leaf.model.value.clone(),
        spine_model: u.and(a.spine.as_ref()).map(|s| s.model.value.clone()),
        core_model: u
            .filter(|u| u.tiers == 3)
            .and(a.core.as_ref())
            .map(|c| c.model.value.clone()),
        node_ports: ports.to_vec(),
        width: l.width,
        lanes_per_node: l.per_node,
        nodes_per_group: l.npg,
        groups,
        port_speed,
        uplink_speed,
        uplinks_per_leaf: if u.is_some() { l.up } else { 0 },
        leaf_down: l.leaf_down,
        leaf_up: l.leaf_up,
        tiers: u.map_or(1, |u| u.tiers),
        // One pair without spines is joined by routed peer links that take the uplinks the
        // ratio reserves, so cross-pair traffic keeps the declared ratio.
        peer_links: if u.is_none() && l.width == 2 { l.up } else { 0 },
        leaves_per_group: u.map_or(groups * l.width, |u| u.leaves_per_group),
        spine_groups: u.map_or(0, |u| u.groups),
        spines: u.map_or(0, |u| u.spines),
        links_per_leaf_spine: u.map_or(0, |u| u.links_per_leaf_spine),
        spine_down: u.map(|u| u.spine_down),
        spine_up: u.and_then(|u| u.spine_up),
        spine_uplinks: u.map_or(0, |u| u.spine_uplinks),
        cores_per_group: u.map_or(0, |u| u.cores_per_group),
        links_per_spine_core: u.map_or(0, |u| u.links_per_spine_core),
        core_down: u.and_then(|u| u.core_down),
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
    (port_speed, uplink_speed): (Speed, Speed),
    ratio: Ratio,
    diags: &mut Diagnostics,
) -> Option<Leaves> {
    let (a, key) = (cx.a, cx.key);
    let dg = lanes(leaf, &a.leaf.model, port_speed, "node ports", diags)?;
    let ug = lanes(leaf, &a.leaf.model, uplink_speed, "uplinks", diags)?;
    let lp = LeafPorts {
        model: leaf,
        down: dg,
        up: ug,
        port_speed,
        uplink_speed,
        ratio,
    };
    let width = if ports.len() >= 2 { 2 } else { 1 };
    let per_node = (ports.len() as u32).div_ceil(width);
    let up_for = |n: u32| lp.uplinks(n * per_node).max(1);
    let Some(npg) = (1..=lp.capacity() / per_node)
        .rev()
        .find(|n| lp.place(n * per_node, up_for(*n)).is_some())
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
    let (leaf_down, leaf_up) = lp.place(npg * per_node, up)?;
    Some(Leaves {
        width,
        per_node,
        npg,
        up,
        leaf_down,
        leaf_up,
    })
}

/// Leaf groups: what the node positions need, or the declared leaf count when it says the same.
/// A leaf group serves the positions from its first one on; a group beyond the spec's positions
/// would stand in an SU the spec does not have, with no rack or OOB switch for its management
/// port, so more leaves than the positions need is an error (spines sized for growth are
/// declared with the spine count instead).
fn groups(cx: &Ctx<'_>, l: &Leaves, positions: u32, diags: &mut Diagnostics) -> Option<u32> {
    let need = positions.div_ceil(l.npg);
    let Some(declared) = &cx.a.leaf.count else {
        return Some(need);
    };
    let key = cx.key;
    let n = nonzero(declared, &format!("`{key}.leaf.count`"), diags)?;
    let want = need * l.width;
    let (message, label, help) = if n > want && n.is_multiple_of(l.width) {
        (
            format!(
                "{n} {key} leaves declared; the {positions} node positions of the spec's SUs need {want}, and the others would serve positions of SUs the spec does not have (no rack, no OOB switch for their management ports)"
            ),
            "more than the node positions need",
            format!(
                "declare {want} leaves, or leave `count` out; leaves come with the SUs they serve (declare `{key}.spine.count` to size the spines for growth)"
            ),
        )
    } else if n < want || !n.is_multiple_of(l.width) {
        let what = if l.width == 2 { "pairs of " } else { "" };
        (
            format!(
                "{n} {key} leaves declared; {positions} node positions at {} nodes per leaf group need {want}",
                l.npg
            ),
            "too few, or not whole groups",
            format!(
                "declare at least {want} leaves, in {what}leaves (each node has a port on every leaf of its group), or leave `count` out"
            ),
        )
    } else {
        return Some(n / l.width);
    };
    diags.push(
        Diagnostic::error(codes::ACCESS_LEAF_COUNT, message)
            .at(declared.span, label)
            .help(help),
    );
    None
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

/// What joins the leaves: nothing or peer links (`None`), or the Clos tiers above them.
fn upper(
    cx: &Ctx<'_>,
    l: &Leaves,
    groups: u32,
    positions: u32,
    uplink_speed: Speed,
    diags: &mut Diagnostics,
) -> Option<Option<clos::Upper>> {
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
        return Some(None);
    };
    let tiers = clos::declared_tiers(a.tiers.as_ref(), &cx.words, diags)?;
    let m = switch_model(cx.cat, &s.model, Some(a.transport), diags)?;
    let spines = Spines {
        model: m,
        group: lanes(m, &s.model, uplink_speed, "ports", diags)?,
        count: s.count.as_ref(),
        speed: uplink_speed,
        runs: RunSpeed::Link,
    };
    let fabric = Access {
        cx,
        spine: s,
        width: l.width,
    };
    clos::upper(&fabric, &spines, leaves, l.up, tiers, diags).map(Some)
}

/// A storage or in-band fabric to the shared Clos sizing: spine groups of whole leaf groups,
/// findings that count leaves.
struct Access<'a> {
    cx: &'a Ctx<'a>,
    spine: &'a AccessSpineSpec,
    width: u32,
}

impl clos::Fabric for Access<'_> {
    fn words(&self) -> &Words {
        &self.cx.words
    }

    fn core_declared(&self) -> bool {
        self.cx.a.core.is_some()
    }

    fn core(&self, diags: &mut Diagnostics) -> Option<Core<'_>> {
        let a = self.cx.a;
        let Some(core) = &a.core else {
            diags.push(clos::needs_core(
                &self.cx.words,
                a.tiers.as_ref(),
                &self.spine.model,
            ));
            return None;
        };
        Some(Core {
            model: switch_model(self.cx.cat, &core.model, Some(a.transport), diags)?,
            name: &core.model,
            count: core.count.as_ref(),
        })
    }

    /// Declared (whole leaf groups), else as many as the spines' downlink half takes with one
    /// link per leaf and spine. A design constant, never the current leaf count, so growth
    /// appends spine groups instead of reshaping them.
    fn leaves_per_group(&self, down_ports: u32, diags: &mut Diagnostics) -> Option<u32> {
        let (s, width) = (self.spine, self.width);
        let Some(v) = &s.leaves_per_group else {
            let n = down_ports / width * width;
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
            return Some(n);
        };
        let n = nonzero(
            v,
            &format!("`{}.spine.leaves_per_group`", self.cx.key),
            diags,
        )?;
        if !n.is_multiple_of(width) {
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

    fn spread_fault(&self, s: &Spread, fault: Fault) -> Diagnostic {
        let (key, sp) = (self.cx.key, self.spine);
        let (leaves, up, ports) = (s.leaves, s.up, s.ports);
        let total = leaves * up;
        let n = match fault {
            // No count spreads evenly: the one spine per uplink has too few ports.
            Fault::NoEvenCount => up,
            Fault::Uneven(n) | Fault::TooFewPorts(n) => n,
        };
        if !s.three_tier {
            let help = if self.cx.a.core.is_none() && sp.count.is_none() {
                format!(
                    "use a spine model with more ports, or add `{key}.core.model` for a third tier (spine groups joined by cores)"
                )
            } else {
                format!("use a spine count that divides {up} and gives at least {total} ports")
            };
            return Diagnostic::error(codes::UNEQUAL_LINKS, format!("{leaves} {key} leaves × {up} uplinks do not spread evenly over {n} spines of {ports} ports"))
                .at(count_span(sp), "uneven or too small")
                .help(help);
        }
        if let Fault::NoEvenCount = fault {
            return Diagnostic::error(codes::SWITCH_RADIX, format!("a {key} spine group of {leaves} leaves has {total} uplinks; `{}` spines with {ports} downlink ports cannot take them evenly", sp.model.value))
                .at(sp.leaves_per_group.as_ref().and_then(|x| x.span).or(sp.model.span), "group too large")
                .help(format!("use at most {ports} `leaves_per_group`, or a spine model with more ports"));
        }
        Diagnostic::error(codes::UNEQUAL_LINKS, format!("{leaves} {key} leaves × {up} uplinks do not spread evenly over {n} spines with {ports} downlink ports"))
            .at(count_span(sp), "uneven or too small")
            .help(format!("use a spine count per group that divides {up} and gives at least {total} downlink ports"))
    }

    fn core_help(&self, _fit: &CoreFit, short: CoreShort) -> String {
        match short {
            CoreShort::Radix => "use a core model with more ports, or fewer, larger spine groups",
            CoreShort::Ports(_) => "add cores",
        }
        .into()
    }
}
