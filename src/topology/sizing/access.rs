//! Storage and in-band fabric sizing: node ports to leaf groups (pairs when nodes have two or
//! more ports), the uplinks the ratio requires, and the spines.

use serde::Serialize;

use super::{
    CageRun, even_count, lanes, leaf_capacity, nonzero, parse_ratio, place, switch_model,
    uplinks_for,
};
use crate::catalog::{Catalog, NodeModel};
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Network, Speed, Transport};
use crate::spec::AccessSpec;

/// A storage or in-band fabric: nodes to leaf groups (pairs when nodes have two or more ports).
#[derive(Clone, Debug, Serialize)]
pub struct AccessPlan {
    pub network: Network,
    pub transport: Transport,
    pub leaf_model: String,
    pub spine_model: Option<String>,
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
    pub uplinks_per_leaf: u32,
    pub leaf_down: CageRun,
    pub leaf_up: CageRun,
    pub spines: u32,
    pub links_per_leaf_spine: u32,
    pub spine_down: Option<CageRun>,
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
    let leaf = switch_model(cat, &a.leaf.model, Some(a.transport), diags)?;
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
    let uplink_speed = a.uplink_speed.as_ref().map_or(fastest, |s| s.value);
    let ratio = parse_ratio(&a.oversubscription, diags)?;
    let dg = lanes(leaf, &a.leaf.model, port_speed, "node ports", diags)?;
    let ug = lanes(leaf, &a.leaf.model, uplink_speed, "uplinks", diags)?;
    let width = if ports.len() >= 2 { 2 } else { 1 };
    let per_node = (ports.len() as u32).div_ceil(width);
    let up_for = |n: u32| match uplinks_for(n * per_node, port_speed, &ratio, uplink_speed) {
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
    let groups = positions.div_ceil(npg);
    let leaves = groups * width;
    let (spines, spine_model, spine_down) = match (&a.spine, leaves > width) {
        (Some(s), _) => {
            let m = switch_model(cat, &s.model, Some(a.transport), diags)?;
            let sg = lanes(m, &s.model, uplink_speed, "ports", diags)?;
            let grp = &m.port_groups[sg.0];
            let ports_per = grp.count * sg.1;
            let total = leaves * up;
            let n = match &s.count {
                Some(c) => nonzero(c, "spine count", diags)?,
                None => even_count(total, ports_per, up).unwrap_or(up),
            };
            if up % n != 0 || total > n * ports_per {
                diags.push(
                    Diagnostic::error(codes::UNEQUAL_LINKS, format!("{leaves} {key} leaves × {up} uplinks do not spread evenly over {n} spines of {ports_per} ports"))
                        .at(s.count.as_ref().and_then(|c| c.span).or(s.model.span), "uneven or too small")
                        .help(format!("use a spine count that divides {up} and gives at least {total} ports")),
                );
                return None;
            }
            (
                n,
                Some(s.model.value.clone()),
                Some(CageRun {
                    first: grp.first,
                    cages: grp.count,
                    lanes: sg.1,
                    speed: uplink_speed,
                }),
            )
        }
        (None, true) => {
            diags.push(
                Diagnostic::error(codes::ACCESS_RADIX, format!("{leaves} {key} leaves are needed for {positions} node positions; they need spines"))
                    .at(a.leaf.model.span, format!("{npg} nodes per leaf group"))
                    .help(format!("add `{key}.spine.model`")),
            );
            return None;
        }
        (None, false) => (0, None, None),
    };
    Some(AccessPlan {
        network,
        transport: a.transport,
        leaf_model: a.leaf.model.value.clone(),
        spine_model,
        node_ports: ports.to_vec(),
        width,
        lanes_per_node: per_node,
        nodes_per_group: npg,
        groups,
        port_speed,
        uplink_speed,
        uplinks_per_leaf: if spines > 0 { up } else { 0 },
        leaf_down,
        leaf_up,
        spines,
        links_per_leaf_spine: up.checked_div(spines).unwrap_or(0),
        spine_down,
    })
}
