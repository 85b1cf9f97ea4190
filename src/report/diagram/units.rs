//! Units: the drawn boxes by key, as devices and cables name them (a unit is created by the
//! first device or cable that names it and counts every device in), and their subtitles.

use std::collections::{BTreeMap, BTreeSet};

use super::{Rect, Unit, UnitKind};
use crate::model::Network;
use crate::topology::Device;

/// A unit as the device that brings it names it.
pub struct UnitOf {
    pub key: String,
    pub kind: UnitKind,
    pub role: &'static str,
    pub network: Network,
    pub title: String,
}

impl UnitOf {
    /// A switch drawn on its own, under its name.
    pub fn switch(d: &Device, role: &'static str, network: Network) -> Self {
        Self {
            key: format!("d-{}", d.name),
            kind: UnitKind::Switch,
            role,
            network,
            title: d.name.clone(),
        }
    }

    pub fn aggregate(key: String, role: &'static str, network: Network, title: String) -> Self {
        Self {
            key,
            kind: UnitKind::Aggregate,
            role,
            network,
            title,
        }
    }
}

/// The units so far, in order of creation, and where each key is.
#[derive(Default)]
pub struct Units {
    list: Vec<Unit>,
    index: BTreeMap<String, usize>,
}

impl Units {
    fn new_unit(of: UnitOf, device: Option<usize>) -> Unit {
        Unit {
            key: of.key,
            kind: of.kind,
            role: of.role,
            network: of.network,
            title: of.title,
            sub: String::new(),
            switches: 0,
            devices: 0,
            rails: BTreeSet::new(),
            device,
            rect: Rect::default(),
        }
    }

    /// The unit `of` names, created on first use; `d` (device `dev`) is counted in.
    pub fn add(&mut self, of: UnitOf, dev: usize, d: &Device) -> usize {
        let i = match self.index.get(&of.key) {
            Some(&i) => i,
            None => {
                self.index.insert(of.key.clone(), self.list.len());
                let device = (of.kind == UnitKind::Switch).then_some(dev);
                self.list.push(Self::new_unit(of, device));
                self.list.len() - 1
            }
        };
        let u = &mut self.list[i];
        u.devices += 1;
        if d.role.is_switch() {
            u.switches += 1;
        }
        u.rails.extend(d.rails.iter().copied());
        i
    }

    pub fn key(&self, unit: usize) -> &str {
        &self.list[unit].key
    }

    /// The stub standing for column `col`'s devices in network `net`'s panel; its key.
    pub fn stub(&mut self, net: Network, col: &str, label: String) -> String {
        let key = format!("s-{}-{col}", net.as_str());
        if !self.index.contains_key(&key) {
            let of = UnitOf {
                key: key.clone(),
                kind: UnitKind::Stub,
                role: "stub",
                network: net,
                title: label,
            };
            self.list.push(Self::new_unit(of, None));
            self.index.insert(key.clone(), self.list.len() - 1);
        }
        key
    }

    /// Every unit with its subtitle: a switch's model and rails, an aggregate's count.
    pub fn subtitled(self, devices: &[&Device]) -> Vec<Unit> {
        let mut list = self.list;
        for u in &mut list {
            u.sub = subtitle(u, devices);
        }
        list
    }
}

fn subtitle(u: &Unit, devices: &[&Device]) -> String {
    match u.kind {
        UnitKind::Switch => {
            let d = u.device.map(|i| devices[i]);
            let model = d.map_or("", |d| d.model.as_str());
            let r = rails_text(&u.rails);
            if r.is_empty() {
                model.to_string()
            } else {
                format!("{model} · {r}")
            }
        }
        UnitKind::Aggregate => plural(u.switches, "switch"),
        UnitKind::Nodes => plural(
            u.devices,
            if u.role == "node" {
                "node"
            } else {
                "appliance"
            },
        ),
        UnitKind::Stub => String::new(),
    }
}

fn rails_text(rails: &BTreeSet<u32>) -> String {
    let v: Vec<u32> = rails.iter().copied().collect();
    match v.as_slice() {
        [] => String::new(),
        [r] => format!("rail {r}"),
        [first, .., last] if (*last - *first) as usize + 1 == v.len() => {
            format!("rails {first}–{last}")
        }
        _ => format!(
            "rails {}",
            v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        ),
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else if one.ends_with('x') || one.ends_with("ch") {
        format!("{n} {one}es")
    } else {
        format!("{n} {one}s")
    }
}
