//! Aggregate cables into bundles, one pass over the cables: a bundle per pair of ends (units,
//! frames or stubs, see the contract in `mod.rs`) and rail.

use std::collections::{BTreeMap, BTreeSet};

use super::columns::Columns;
use super::units::Units;
use super::{Bundle, Placement};
use crate::model::{Network, Tier};
use crate::topology::{DeviceId, Fabric, Link, PerDevice, PerLink};

/// Cables into bundles.
pub struct Bundled {
    pub bundles: Vec<Bundle>,
    /// Bundle index of every cable.
    pub cable_bundle: PerLink<usize>,
    /// Rails of the compute fabric's node cables.
    pub rails: BTreeSet<u32>,
    pub networks: BTreeSet<&'static str>,
}

/// A bundle's lower end, upper end and rail.
type Key = (String, String, Option<u32>);

pub fn aggregate(
    f: &Fabric,
    cols: &Columns,
    placements: &PerDevice<Placement>,
    units: &mut Units,
) -> Bundled {
    let mut ends = Ends {
        cols,
        placements,
        units,
    };
    let mut bundle_index: BTreeMap<Key, usize> = BTreeMap::new();
    let mut out = Bundled {
        bundles: Vec::new(),
        cable_bundle: PerLink::default(),
        rails: BTreeSet::new(),
        networks: BTreeSet::new(),
    };
    let mut speeds: Vec<BTreeSet<String>> = Vec::new();
    let mut cable_bundle = Vec::with_capacity(f.link_count());
    for (ci, l) in f.links().enumerate() {
        let (ai, bi) = (f.device_id(&l.a), f.device_id(&l.b));
        out.networks.insert(l.network.as_str());
        let key = match l.tier {
            Tier::NodeLeaf if !f.device(ai).role.is_switch() => {
                if l.network == Network::Compute
                    && let Some(r) = l.rail
                {
                    out.rails.insert(r);
                }
                ends.node_leaf(l, ai, bi)
            }
            Tier::Mgmt => ends.mgmt(l, ai, bi),
            _ => ends.between_switches(ai, bi),
        };
        let n = out.bundles.len();
        let bundle = *bundle_index.entry(key.clone()).or_insert(n);
        if bundle == n {
            out.bundles.push(Bundle {
                from: key.0,
                to: key.1,
                network: l.network,
                tier: l.tier,
                rail: key.2,
                plane: l.plane,
                cables: Vec::new(),
                speeds: String::new(),
            });
            speeds.push(BTreeSet::new());
        }
        out.bundles[bundle].cables.push(ci);
        speeds[bundle].insert(l.speed.to_string());
        cable_bundle.push(bundle);
    }
    out.cable_bundle = PerLink::in_link_order(f, cable_bundle).unwrap_or_default();
    for (b, sp) in out.bundles.iter_mut().zip(speeds) {
        b.speeds = sp.into_iter().collect::<Vec<_>>().join("+");
    }
    out
}

/// The ends of a cable's bundle, from the placements of its devices.
struct Ends<'a> {
    cols: &'a Columns,
    placements: &'a PerDevice<Placement>,
    units: &'a mut Units,
}

impl Ends<'_> {
    /// Node to leaf: the node's unit and rail on the compute fabric, else the stub of the
    /// node's column in that network's panel.
    fn node_leaf(&mut self, l: &Link, ai: DeviceId, bi: DeviceId) -> Key {
        if l.network == Network::Compute {
            (
                self.placements[ai].unit.clone(),
                self.placements[bi].unit.clone(),
                l.rail,
            )
        } else {
            let col = &self.placements[ai].col;
            let s = self
                .units
                .stub(l.network, col, format!("{} nodes", self.cols.short(col)));
            (s, self.placements[bi].unit.clone(), None)
        }
    }

    /// A management port to its OOB switch: the stub of the device's column in the OOB panel.
    fn mgmt(&mut self, l: &Link, ai: DeviceId, bi: DeviceId) -> Key {
        let col = &self.placements[ai].col;
        let label = if col == "central" {
            "central".to_string()
        } else {
            format!("{} devices", self.cols.short(col))
        };
        let s = self.units.stub(l.network, col, label);
        (s, self.placements[bi].unit.clone(), None)
    }

    /// Switch to switch: frame to frame (or a unit without a frame).
    fn between_switches(&self, ai: DeviceId, bi: DeviceId) -> Key {
        let end = |i: DeviceId| {
            let p = &self.placements[i];
            if p.frame.is_empty() {
                p.unit.clone()
            } else {
                p.frame.clone()
            }
        };
        let (a, b) = (end(ai), end(bi));
        if a == b {
            // Links inside one frame (a storage leaf pair's peer links) join the two
            // switches, not the frame to itself.
            (
                self.placements[ai].unit.clone(),
                self.placements[bi].unit.clone(),
                None,
            )
        } else {
            (a, b, None)
        }
    }
}
