//! `plan.json`: the whole graph (devices with identity, cables with both ends) for other tools.

use serde::Serialize;

use super::names::LinkNames;
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{Device, Fabric};

#[derive(Serialize)]
struct EndOut<'a> {
    device: &'a str,
    port: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cage: Option<u16>,
}

#[derive(Serialize)]
struct LinkOut<'a> {
    cable_id: &'a str,
    label: String,
    network: &'a str,
    tier: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    plane: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rail: Option<u32>,
    a: EndOut<'a>,
    b: EndOut<'a>,
    speed: String,
    media: &'a str,
    length_m: f64,
    /// The module at each end (empty where the cable's end is built in) and the cable or fibre.
    a_module: &'a str,
    part: &'a str,
    b_module: &'a str,
}

#[derive(Serialize)]
struct Plan<'a> {
    format: &'static str,
    cluster: &'a str,
    site: Option<&'a str>,
    sizing: &'a crate::topology::Sizing,
    devices: Vec<&'a Device>,
    links: Vec<LinkOut<'a>>,
}

pub fn plan_json(f: &Fabric, n: &LinkNames) -> Result<OutputFile, FileError> {
    let links = f
        .links_with_ids()
        .map(|(i, l)| {
            let end = |e: &crate::topology::End, port: &str| EndOut {
                device: &f.device_of(e).name,
                port: port.to_string(),
                cage: e.port.cage(),
            };
            LinkOut {
                cable_id: &l.cable_id,
                label: n.label[i].clone(),
                network: l.network.as_str(),
                tier: l.tier.as_str(),
                plane: l.plane,
                rail: l.rail,
                a: end(&l.a, &n.a_port[i]),
                b: end(&l.b, &n.b_port[i]),
                speed: l.speed.to_string(),
                media: n.build[i].media,
                length_m: n.build[i].length_m,
                a_module: n.build[i].a_module,
                part: n.build[i].part,
                b_module: n.build[i].b_module,
            }
        })
        .collect();
    let plan = Plan {
        format: "railyard-plan/1",
        cluster: &f.name,
        site: f.site.as_deref(),
        sizing: &f.sizing,
        devices: f.devices().collect(),
        links,
    };
    let mut bytes = serde_json::to_vec(&plan).in_file("plan.json")?;
    bytes.push(b'\n');
    Ok(OutputFile::new(OutputGroup::Plan, "plan.json", bytes))
}
