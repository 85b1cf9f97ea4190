//! `hosts/<model>/roce.sh`: the NIC half of the RoCE class — trust DSCP, PFC on the
//! lossless priority, RDMA-CM and verbs ToS, RoCEv2 — with values from the host intent, which
//! takes them from the same `roce` settings as the switch QoS.
//!
//! The interface `mlnx_qos` acts on is the catalog's name where it gives one; otherwise the
//! script looks it up from the RDMA device in sysfs at run time rather than trusting a name
//! derived from the bus id (netplan has no such lookup and uses the derived name, flagged).
//!
//! Rendered from `templates/hosts/roce.sh.j2` in a minijinja environment of its own (strict
//! undefined). Every value that reaches the script is a token checked in `intent/host.rs`
//! (letters, digits, `_.:-`) or a number, so nothing in it can be read as shell syntax.

use std::collections::BTreeMap;

use minijinja::Environment;
use serde::Serialize;

use crate::catalog::{NodeModel, is_token};
use crate::intent::host::{HostIntent, HostIntents, HostPort, NicQos};
use crate::output::{FileError, InFile};

const TEMPLATE: &str = include_str!("../../../templates/hosts/roce.sh.j2");

#[derive(Serialize)]
struct Mapping {
    dscp: u8,
    priority: u8,
}

#[derive(Serialize)]
struct Ctx<'a> {
    scope: String,
    qos: &'a NicQos,
    /// `mlnx_qos --pfc`: eight 0/1 flags, priority 0 first.
    pfc: String,
    /// DSCP → priority entries the NIC's default map (DSCP / 8) does not already give.
    dscp2prio: Vec<Mapping>,
    unverified: Vec<String>,
    ports: Vec<&'a HostPort>,
}

/// The script of `node`, written as `path`; `None` when it would configure no port.
fn render(
    path: &str,
    env: &Environment<'_>,
    h: &HostIntents,
    model: &NodeModel,
    qos: &NicQos,
    node: &HostIntent,
) -> Result<Option<String>, FileError> {
    let pfc = (0u8..8)
        .map(|p| {
            if qos.pfc_priorities.contains(&p) {
                "1"
            } else {
                "0"
            }
        })
        .collect::<Vec<_>>()
        .join(",");
    let dscp2prio = [&qos.roce, &qos.cnp]
        .into_iter()
        .filter(|c| c.dscp / 8 != c.priority)
        .map(|c| Mapping {
            dscp: c.dscp,
            priority: c.priority,
        })
        .collect();
    let unverified: Vec<String> = model
        .pcie
        .iter()
        .flat_map(|p| p.unverified.iter().cloned())
        .collect();
    // Defence in depth: the intent already rejected unsafe names; one that slipped through is
    // an error, not a port silently left unconfigured.
    if let Some(bad) = node.ports.iter().find(|p| {
        !(p.netdev.as_deref().is_none_or(is_token) && p.rdma.as_deref().is_none_or(is_token))
    }) {
        return Err(FileError::new(
            path,
            format!(
                "node `{}` port `{}`: its interface or RDMA device name is not a plain token",
                node.name.escape_default(),
                bad.port.escape_default()
            ),
        ));
    }
    let ports = node.ports.iter().collect();
    let ctx = Ctx {
        scope: format!("node model {}", h.node_model),
        qos,
        pfc,
        dscp2prio,
        unverified,
        ports,
    };
    // A script that would configure no port is not written at all.
    if ctx.ports.iter().all(|p| p.rdma.is_none()) {
        return Ok(None);
    }
    env.render_str(TEMPLATE, &ctx).map(Some).in_file(path)
}

/// The script of every node, by node name (grouped into model and odd-node files by the caller).
pub fn render_all(
    h: &HostIntents,
    model: &NodeModel,
) -> Result<BTreeMap<String, String>, FileError> {
    let Some(qos) = &h.nic_qos else {
        return Ok(BTreeMap::new());
    };
    let env = super::environment();
    let path = format!("hosts/{}/roce.sh", h.node_model);
    let mut out = BTreeMap::new();
    for (n, node) in &h.nodes {
        if let Some(text) = render(&path, &env, h, model, qos, node)? {
            out.insert(n.clone(), text);
        }
    }
    Ok(out)
}
