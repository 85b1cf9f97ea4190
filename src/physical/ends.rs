//! Each cable end as the solver sees it: the cage it plugs into, how many logical ports share
//! that cage and which one this is. A switch cage is shared by the ports of its breakout
//! (`swp1s0`..`swp1s3`), a node cage by the NIC ports that name the same `cage` (a DGX compute
//! OSFP carries two ConnectX-7 ports, DGX H100 user guide: OSFP1P1/OSFP1P2).

use std::collections::BTreeMap;

use crate::catalog::{Cage, NodeModel};
use crate::model::{Fits, Form, LaneRate, Role, Top};
use crate::topology::{Device, DeviceId, End, Fabric, PortId};

/// One end of a link, resolved.
#[derive(Clone, Copy, Debug)]
pub struct EndCage {
    pub device: DeviceId,
    /// The cage within the device (switch: front-panel number; node: cage ordinal + 1 << 20;
    /// management port: `u32::MAX`).
    pub cage_key: u32,
    /// Index into [`Cages::all`].
    pub cage: usize,
    /// Dense number of (device, cage_key), in that order (`number_slots`): the solver's tables
    /// are vectors indexed by it, not maps keyed by the pair.
    pub slot: u32,
    /// Logical ports sharing the cage.
    pub ports: u32,
    /// This port's position among them (0-based).
    pub index: u32,
}

/// Number every (device, cage) the ends use densely, in (device, cage) order; returns how many.
pub fn number_slots(ends: &mut [(EndCage, EndCage)]) -> usize {
    let key = |e: &EndCage| (e.device, e.cage_key);
    let mut at: Vec<((DeviceId, u32), u32)> = Vec::with_capacity(ends.len() * 2);
    for (i, (a, b)) in ends.iter().enumerate() {
        at.push((key(a), 2 * i as u32));
        at.push((key(b), 2 * i as u32 + 1));
    }
    at.sort_unstable();
    let mut slots = 0;
    let mut last = None;
    for (k, end) in at {
        if last != Some(k) {
            slots += usize::from(last.is_some());
            last = Some(k);
        }
        let (a, b) = &mut ends[end as usize / 2];
        let e = if end % 2 == 0 { a } else { b };
        e.slot = slots as u32;
    }
    slots + usize::from(last.is_some())
}

impl EndCage {
    /// Electrical lanes this port may use.
    pub fn lanes(&self, cages: &Cages) -> u32 {
        (cages.all[self.cage].lanes / self.ports.max(1)).max(1)
    }
}

/// The cage kinds of a build, interned (a 131k-GPU fabric has a million ends, a dozen kinds).
#[derive(Default)]
pub struct Cages {
    pub all: Vec<Cage>,
    /// Human name of each cage kind, e.g. `QSFP56 cage of sn3700`.
    pub names: Vec<String>,
    by_key: BTreeMap<String, usize>,
    node_ports: BTreeMap<String, Vec<(usize, u32, u32, u32)>>,
    /// Cage kind by switch model and port group: looked up without building the key.
    switch_kinds: BTreeMap<String, BTreeMap<usize, usize>>,
}

impl Cages {
    fn intern(&mut self, key: &str, make: impl FnOnce() -> (Cage, String)) -> usize {
        if let Some(i) = self.by_key.get(key) {
            return *i;
        }
        let (cage, name) = make();
        self.all.push(cage);
        self.names.push(name);
        self.by_key.insert(key.to_string(), self.all.len() - 1);
        self.all.len() - 1
    }

    /// A split QSFP-family switch cage whose only cabled port is one lane wide takes a QSFP-to-SFP
    /// adapter (QSA) and an SFP module instead: one SFP in a QSFP port, the port run at 10G or
    /// 25G (Cumulus Linux, Switch Port Attributes, "QSFP-to-SFP adapter (QSA)",
    /// CumulusNetworks/docs content/cumulus-linux-512/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/Switch-Port-Attributes.md).
    /// Returns the end as an SFP28 cage, or `None` where the rule does not apply.
    pub fn qsa(&mut self, e: &EndCage, used: usize) -> Option<EndCage> {
        let c = &self.all[e.cage];
        let qsfp = matches!(
            c.form,
            Form::Qsfp28 | Form::Qsfp56 | Form::Qsfp112 | Form::QsfpDd
        );
        if !(qsfp && c.host == Fits::Switch && used == 1 && e.ports > 1 && e.lanes(self) == 1) {
            return None;
        }
        let rates: Vec<LaneRate> = c
            .rates
            .iter()
            .copied()
            .filter(|r| matches!(r, LaneRate::G25Nrz | LaneRate::G10Nrz))
            .collect();
        let name = format!("{} through a QSA adapter", self.names[e.cage]);
        let vendor_lock = c.vendor_lock.clone();
        let cage = self.intern(&format!("qsa/{}", e.cage), || {
            let mut c = Cage::new(Form::Sfp28, None, Some(1), &rates, Fits::Switch);
            c.vendor_lock = vendor_lock;
            (c, name)
        });
        Some(EndCage {
            cage,
            ports: 1,
            index: 0,
            ..*e
        })
    }

    /// Resolve one end of a link run at `speed`'s breakout.
    pub fn end(&mut self, f: &Fabric, e: &End) -> EndCage {
        let d = f.device_of(e);
        let device = f.device_id(e);
        match e.port {
            PortId::Mgmt => {
                let host = if d.role.is_switch() {
                    Fits::Switch
                } else {
                    Fits::Nic
                };
                let key = match host {
                    Fits::Switch => "rj45/switch",
                    _ => "rj45/nic",
                };
                let cage = self.intern(key, || {
                    let c = Cage::new(Form::Rj45, None, Some(1), &[LaneRate::G1], host);
                    (c, "RJ45 management port".into())
                });
                EndCage {
                    device,
                    cage_key: u32::MAX,
                    cage,
                    slot: 0,
                    ports: 1,
                    index: 0,
                }
            }
            PortId::Cage { cage: n } | PortId::Lane { cage: n, .. } => self.switch_end(f, d, e, n),
            PortId::Nic(i) => match f.node_model(d) {
                Some(m) if d.role == Role::Node => self.node_end(d, m, device, i),
                // A fabric-manager appliance (UFM) has single-port ConnectX-7 NICs with flat
                // OSFP cages (NVIDIA QM97x0 user manual, Interfaces: UFM side RHS modules).
                _ => {
                    let cage = self.intern("appliance", || {
                        let c = Cage::new(Form::Osfp, Some(Top::Flat), Some(4), &[], Fits::Nic);
                        (c, "fabric-manager OSFP NIC cage".into())
                    });
                    EndCage {
                        device,
                        cage_key: u32::from(i) + (1 << 20),
                        cage,
                        slot: 0,
                        ports: 1,
                        index: 0,
                    }
                }
            },
        }
    }

    fn switch_end(&mut self, f: &Fabric, d: &Device, e: &End, n: u16) -> EndCage {
        let device = f.device_id(e);
        let model = f.switch_model(d);
        let group = model.and_then(|m| {
            m.port_groups
                .iter()
                .position(|g| u32::from(n) >= g.first && u32::from(n) < g.first + g.count)
        });
        let g = group.unwrap_or(usize::MAX);
        let cached = self
            .switch_kinds
            .get(d.model.as_str())
            .and_then(|k| k.get(&g));
        let cage = match cached {
            Some(c) => *c,
            None => {
                let c = self.intern(&format!("{}/{g}", d.model), || match (model, group) {
                    (Some(m), Some(g)) => {
                        let pg = &m.port_groups[g];
                        let mut c = pg.cage();
                        c.vendor_lock = m.optics_vendor.clone();
                        (c, format!("{} cage of {}", pg.form.as_str(), d.model))
                    }
                    _ => (
                        Cage::new(Form::Osfp, None, None, &[], Fits::Switch),
                        format!("cage of {}", d.model),
                    ),
                });
                let kinds = self.switch_kinds.entry(d.model.to_string()).or_default();
                kinds.insert(g, c);
                c
            }
        };
        let ports = d
            .cage_lanes
            .get(usize::from(n).saturating_sub(1))
            .map_or(1, |l| u32::from(*l).max(1));
        let index = match e.port {
            PortId::Lane { lane, .. } => u32::from(lane),
            _ => 0,
        };
        EndCage {
            device,
            cage_key: u32::from(n),
            cage,
            slot: 0,
            ports,
            index,
        }
    }

    fn node_end(&mut self, d: &Device, m: &NodeModel, device: DeviceId, i: u16) -> EndCage {
        if !self.node_ports.contains_key(&d.model) {
            let table = self.node_table(&d.model, m);
            self.node_ports.insert(d.model.clone(), table);
        }
        let (cage, key, ports, index) = self
            .node_ports
            .get(&d.model)
            .and_then(|t| t.get(usize::from(i)).copied())
            .unwrap_or((0, 0, 1, 0));
        EndCage {
            device,
            cage_key: key + (1 << 20),
            cage,
            slot: 0,
            ports,
            index,
        }
    }

    /// Per flat port of a node model (compute, storage, in-band order, as `PortId::Nic` counts):
    /// (cage kind, cage ordinal, ports sharing the cage, index among them).
    fn node_table(&mut self, model: &str, m: &NodeModel) -> Vec<(usize, u32, u32, u32)> {
        let entries: Vec<_> = m
            .compute
            .iter()
            .chain(&m.storage)
            .chain(&m.inband)
            .collect();
        // A cage is named by `cage`, or is the entry itself when it names none.
        let cage_name = |k: usize| {
            entries[k]
                .cage
                .as_ref()
                .map_or_else(|| format!("#{k}"), |c| c.to_string())
        };
        let mut order: Vec<String> = Vec::new();
        let mut members: BTreeMap<String, u32> = BTreeMap::new();
        for (k, p) in entries.iter().enumerate() {
            let name = cage_name(k);
            if !order.contains(&name) {
                order.push(name.clone());
            }
            *members.entry(name).or_default() += p.ports.len() as u32;
        }
        let mut seen: BTreeMap<String, u32> = BTreeMap::new();
        let mut out = Vec::new();
        for (k, p) in entries.iter().enumerate() {
            let name = cage_name(k);
            let spec = p.cage_spec();
            let kind = self.intern(&format!("{model}/{name}"), || {
                (spec, format!("{} cage {name} of {model}", p.form.as_str()))
            });
            let ordinal = order.iter().position(|o| *o == name).unwrap_or(0) as u32;
            for _ in &p.ports {
                let at = seen.entry(name.clone()).or_default();
                out.push((kind, ordinal, members[&name], *at));
                *at += 1;
            }
        }
        out
    }
}
