//! The mutable workspace of one expansion: devices and cables are added in identity order, names
//! rendered from patterns, ports marked used so a double use is caught at once.

use std::collections::BTreeMap;

use petgraph::graph::{NodeIndex, UnGraph};

use super::media;
use super::naming::{Fields, Names};
use super::sizing::{CageRun, Sizing};
use super::{Device, End, Link, PortId};
use crate::catalog::Catalog;
use crate::model::{Network, Role, Speed, Tier};
use crate::spec::ClusterSpec;

pub struct Builder<'a> {
    pub spec: &'a ClusterSpec,
    pub catalog: &'a Catalog,
    pub sizing: &'a Sizing,
    pub names: &'a Names,
    pub graph: UnGraph<Device, Link, u32>,
    /// Ports in use per device, to prove no port carries two cables.
    used: BTreeMap<u32, Vec<PortId>>,
    pub double_used: Vec<(String, PortId)>,
    /// OOB switches whose uplink found no free gateway port: (switches, gateway ports).
    pub gateway_overflow: Option<(u32, u32)>,
}

/// A device's identity as the naming pattern and the output see it.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    pub plane: Option<u32>,
    pub su: Option<u32>,
    pub group: Option<u32>,
    pub index: u32,
    pub rails: Vec<u32>,
    pub node: Option<u32>,
    pub leaf: Option<u32>,
    /// NVLink domain (cluster-wide, 1-based) and tray within it, for rack-scale nodes.
    pub domain: Option<u32>,
    pub tray: Option<u32>,
}

impl<'a> Builder<'a> {
    pub fn new(
        spec: &'a ClusterSpec,
        catalog: &'a Catalog,
        sizing: &'a Sizing,
        names: &'a Names,
    ) -> Self {
        Self {
            spec,
            catalog,
            sizing,
            names,
            graph: UnGraph::default(),
            used: BTreeMap::new(),
            double_used: Vec::new(),
            gateway_overflow: None,
        }
    }

    pub fn fields<'f>(&'f self, id: &'f Identity) -> Fields<'f> {
        Fields {
            cluster: &self.spec.name.value,
            su: id.su,
            slot: id.node.and(Some(id.index)),
            node: id.node,
            plane: id.plane,
            leaf: id.leaf,
            rail: id.rails.first().copied(),
            group: id.group,
            index: Some(id.index),
            rack: id.domain,
            tray: id.tray,
        }
    }

    pub fn add_device(
        &mut self,
        role: Role,
        network: Network,
        model: &str,
        id: Identity,
    ) -> NodeIndex<u32> {
        let pattern = self.names.for_role(role);
        let name = pattern.render(&self.fields(&id));
        let cage_lanes = self
            .catalog
            .switches
            .get(model)
            .map_or_else(Vec::new, |m| vec![0u8; m.total_cages() as usize]);
        let rack = media::rack_of(self.spec, self.sizing, role, (id.su, id.domain), id.index);
        let platform = super::platforms::choose(self.spec, self.catalog, role, model);
        self.graph.add_node(Device {
            name,
            role,
            network,
            model: model.to_string(),
            plane: id.plane,
            su: id.su,
            group: id.group,
            index: id.index,
            rails: id.rails,
            domain: id.domain,
            rack,
            platform,
            cage_lanes,
        })
    }

    /// The port for logical index `i` of a cage run, marking the cage's breakout on the device.
    pub fn run_port(&mut self, dev: NodeIndex<u32>, run: &CageRun, i: u32) -> PortId {
        let cage = run.first + i / run.lanes;
        let lane = i % run.lanes;
        let d = &mut self.graph[dev];
        if let Some(slot) = d.cage_lanes.get_mut((cage - 1) as usize) {
            *slot = u8::try_from(run.lanes).unwrap_or(u8::MAX);
        }
        let cage = u16::try_from(cage).unwrap_or(u16::MAX);
        if run.lanes == 1 {
            PortId::Cage { cage }
        } else {
            PortId::Lane {
                cage,
                lane: u8::try_from(lane).unwrap_or(u8::MAX),
            }
        }
    }

    fn mark(&mut self, e: End) {
        let list = self.used.entry(e.device.index() as u32).or_default();
        if list.contains(&e.port) {
            let name = self.graph[e.device].name.clone();
            self.double_used.push((name, e.port));
        } else {
            list.push(e.port);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn add_link(
        &mut self,
        cable_id: String,
        network: Network,
        tier: Tier,
        plane: Option<u32>,
        rail: Option<u32>,
        a: (NodeIndex<u32>, PortId),
        b: (NodeIndex<u32>, PortId),
        speed: Speed,
    ) {
        let a = End {
            device: a.0,
            port: a.1,
        };
        let b = End {
            device: b.0,
            port: b.1,
        };
        self.mark(a);
        self.mark(b);
        let length_m = media::length(
            self.spec,
            &self.graph[a.device],
            &self.graph[b.device],
            tier,
        );
        let route_m = media::route(
            self.spec,
            &self.graph[a.device],
            &self.graph[b.device],
            tier,
        );
        self.graph.add_edge(
            a.device,
            b.device,
            Link {
                cable_id,
                network,
                tier,
                plane,
                rail,
                a,
                b,
                speed,
                length_m,
                route_m,
            },
        );
    }

    /// The graph and what went wrong while building it (ports used twice, OOB uplinks without a
    /// gateway port).
    pub fn finish(self) -> (UnGraph<Device, Link, u32>, Problems) {
        (
            self.graph,
            Problems {
                double_used: self.double_used,
                gateway_overflow: self.gateway_overflow,
            },
        )
    }
}

/// Findings of an expansion, reported by the graph checks.
pub struct Problems {
    pub double_used: Vec<(String, PortId)>,
    pub gateway_overflow: Option<(u32, u32)>,
}
