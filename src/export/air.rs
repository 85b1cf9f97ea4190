//! NVIDIA Air's topology, JSON form (`air.json`), as Air v2 imports it (CumulusNetworks/docs,
//! `content/nvidia-air-v2/Custom-Topology.md`, "JSON"): `{format: "JSON", title, ztp, content:
//! {nodes: {name: {os, cpu, memory, storage}}, links: [[{node, interface}, {node, interface}]]}}`.
//! `oob` and `netq` are left out: without `oob` Air enables its own out-of-band network with
//! default resources and connects every node to it (the same page), which stands in for the
//! plan's OOB cables; no NetQ server is planned.
//!
//! Nodes and links are the lab plan's (`labplan`): every Ethernet switch with a config and
//! every GPU node, one link per cable between them, ports named as Air's image of the switch's
//! OS names them (`kinds.rs`). Resources: the page's example values (switches 2 CPUs, 4096 MB,
//! 10 GB; servers 2 CPUs, 2048 MB, 10 GB).

use std::collections::BTreeMap;

use serde::Serialize;

use super::ExportError;
use super::images::Images;
use super::kinds;
use crate::labplan::{CableEnd, LabPlan};
use crate::model::Role;
use crate::output::{OutputFile, OutputGroup};
use crate::topology::Fabric;

pub(super) const PATH: &str = "air.json";

/// One node as Air takes it; the DOT form writes the same values as attributes.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Node {
    /// The DOT form's `function` (the node's role); not a field of the JSON form.
    #[serde(skip)]
    pub function: &'static str,
    pub os: String,
    pub cpu: u32,
    /// MB.
    pub memory: u32,
    /// GB.
    pub storage: u32,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct End {
    pub node: String,
    pub interface: String,
}

/// Nodes by name and links in cabling-plan order.
pub(super) struct Plan {
    pub title: String,
    pub comments: Vec<String>,
    pub nodes: BTreeMap<String, Node>,
    pub links: Vec<[End; 2]>,
}

#[derive(Serialize)]
struct Topology<'a> {
    format: &'static str,
    title: &'a str,
    ztp: Option<String>,
    content: Content<'a>,
}

#[derive(Serialize)]
struct Content<'a> {
    nodes: &'a BTreeMap<String, Node>,
    links: &'a [[End; 2]],
}

/// The Air plan of a lab plan, `file` naming the file in errors.
pub(super) fn plan(
    lab: &LabPlan,
    fabric: &Fabric,
    images: &Images,
    file: &str,
) -> Result<Plan, ExportError> {
    let platforms: BTreeMap<&str, _> = fabric
        .devices()
        .map(|d| (d.name.as_str(), d.platform))
        .collect();
    let kind_of = |name: &str| kinds::of(platforms.get(name).copied().flatten());
    let mut nodes = BTreeMap::new();
    for n in lab.nodes() {
        let kind = kind_of(n.name);
        let switch = n.role != Role::Node;
        nodes.insert(
            n.name.to_string(),
            Node {
                function: if switch { n.role.as_str() } else { "server" },
                os: images.air(kind.key).to_string(),
                cpu: 2,
                memory: if switch { 4096 } else { 2048 },
                storage: 10,
            },
        );
    }
    let end = |e: &CableEnd| -> Result<End, ExportError> {
        let interface = kinds::interface(kind_of(&e.device).air_ports, e)
            .map_err(|m| ExportError::new(file, m))?;
        Ok(End {
            node: e.device.clone(),
            interface,
        })
    };
    let links = lab
        .cables
        .iter()
        .map(|c| Ok([end(&c.a)?, end(&c.b)?]))
        .collect::<Result<Vec<_>, ExportError>>()?;
    let mut comments = vec![format!(
        "railyard export of `{}` for NVIDIA Air: {}",
        lab.lab,
        lab.size()
    )];
    comments.extend(super::scale_note(lab));
    Ok(Plan {
        title: lab.lab.clone(),
        comments,
        nodes,
        links,
    })
}

/// The JSON form of `p`.
pub(super) fn file(p: &Plan) -> Result<OutputFile, ExportError> {
    let t = Topology {
        format: "JSON",
        title: &p.title,
        ztp: None,
        content: Content {
            nodes: &p.nodes,
            links: &p.links,
        },
    };
    let mut bytes =
        serde_json::to_vec_pretty(&t).map_err(|e| ExportError::new(PATH, e.to_string()))?;
    bytes.push(b'\n');
    Ok(OutputFile::new(OutputGroup::Plan, PATH, bytes))
}
