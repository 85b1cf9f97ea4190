//! lldpd's JSON (`json0` and plain `json`), read as it streams: the neighbour list of
//! `show neighbors` and the name of `show chassis`. The shapes are described in `parse.rs`.

use serde::de::{IgnoredAny, MapAccess, SeqAccess};

use super::lenient::{First, Items, Leaf, Lenient, Shape, value};
use super::neighbour::{Neighbour, pick_port};

/// The value of a document's `lldp` member.
#[derive(Default)]
pub(super) struct Lldp {
    /// json0 writes every level as an array.
    pub json0: bool,
    pub neighbours: Vec<Neighbour>,
}

impl<'de> Shape<'de> for Lldp {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(Lldp {
            json0: false,
            neighbours: Section::object(map)?.0,
        })
    }
    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut neighbours = Vec::new();
        while let Some(Lenient(section)) = seq.next_element::<Lenient<Section>>()? {
            neighbours.extend(section.0);
        }
        Ok(Lldp {
            json0: true,
            neighbours,
        })
    }
}

/// One element of `lldp`: its `interface` member holds the neighbours.
#[derive(Default)]
struct Section(Vec<Neighbour>);

impl<'de> Shape<'de> for Section {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut out = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "interface" {
                out.extend(value::<Interfaces, _>(&mut map)?.0);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Section(out))
    }
}

/// The value of `interface`: one [`Interface`] or an array of them, each turned into its
/// neighbours as soon as it is read.
#[derive(Default)]
struct Interfaces(Vec<Neighbour>);

impl<'de> Shape<'de> for Interfaces {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(Interfaces(Interface::object(map)?.neighbours()))
    }
    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut out = Vec::new();
        while let Some(Lenient(iface)) = seq.next_element::<Lenient<Interface>>()? {
            out.extend(iface.neighbours());
        }
        Ok(Interfaces(out))
    }
}

/// One element of `interface`: json0's `{"name": "swp1", "chassis": […], "port": […]}`, or plain
/// json's `{"swp1": {…}}` (possibly several keys, each possibly an array of entries).
#[derive(Default)]
struct Interface {
    /// json0: the local port.
    name: Option<String>,
    /// json0: the neighbour, read from `chassis` and `port`.
    entry: Entry,
    /// Plain json: the neighbours of every other member, the member's name as the local port.
    keyed: Vec<Neighbour>,
}

impl Interface {
    fn neighbours(self) -> Vec<Neighbour> {
        match self.name {
            Some(name) => self.entry.neighbours(&name),
            None => self.keyed,
        }
    }
}

impl<'de> Shape<'de> for Interface {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut iface = Interface::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => iface.name = value::<Text, _>(&mut map)?.0,
                "chassis" | "port" => iface.entry.read(&key, &mut map)?,
                _ => {
                    let entries = value::<Items<Entry>, _>(&mut map)?.0;
                    for e in entries {
                        iface.keyed.extend(e.neighbours(&key));
                    }
                }
            }
        }
        Ok(iface)
    }
}

/// A string as it is (json0's interface `name`).
#[derive(Default)]
struct Text(Option<String>);

impl<'de> Shape<'de> for Text {
    fn text(s: &str) -> Self {
        Text(Some(s.to_string()))
    }
}

/// One neighbour entry: `chassis` (the remote system) and `port` (the remote port).
#[derive(Default)]
struct Entry {
    /// `None` without a `chassis` member: no neighbour at all.
    remotes: Option<Vec<String>>,
    port: Option<String>,
}

impl Entry {
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        if key == "chassis" {
            let chassis = value::<Items<Chassis>, _>(map)?.0;
            self.remotes = Some(chassis.into_iter().flat_map(|c| c.names()).collect());
        } else {
            self.port = value::<First<Port>, _>(map)?.0.and_then(Port::pick);
        }
        Ok(())
    }

    fn neighbours(self, local_port: &str) -> Vec<Neighbour> {
        let (Some(remotes), Some(remote_port)) = (self.remotes, self.port) else {
            return Vec::new();
        };
        remotes
            .into_iter()
            .map(|remote_device| Neighbour {
                local_port: local_port.to_string(),
                remote_device,
                remote_port: remote_port.clone(),
            })
            .collect()
    }
}

impl<'de> Shape<'de> for Entry {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut entry = Entry::default();
        while let Some(key) = map.next_key::<String>()? {
            if key == "chassis" || key == "port" {
                entry.read(&key, &mut map)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(entry)
    }
}

/// One element of `chassis`: json0's `{"id": […], "name": [{"value": N}]}`, plain json's
/// `{"id": {…}}` without a system name, or plain json's `{"N": {…}}` keyed by the system name.
#[derive(Default)]
struct Chassis {
    name: Option<String>,
    id: Option<String>,
    /// A `name` or `id` member was present: the object is not keyed by system name.
    described: bool,
    keys: Vec<String>,
}

impl Chassis {
    /// The remote system names: the name (else the chassis id), or the keys.
    fn names(self) -> Vec<String> {
        if self.described {
            self.name.or(self.id).into_iter().collect()
        } else {
            self.keys
        }
    }
}

impl<'de> Shape<'de> for Chassis {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut c = Chassis::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => {
                    c.described = true;
                    c.name = value::<Leaf, _>(&mut map)?.0;
                }
                "id" => {
                    c.described = true;
                    c.id = value::<Leaf, _>(&mut map)?.0;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    c.keys.push(key);
                }
            }
        }
        Ok(c)
    }
}

/// The first element of `port`: `id` (`{"type": T, "value": V}` or a bare string) and `descr`.
#[derive(Default)]
struct Port {
    id: PortId,
    descr: Option<String>,
}

impl Port {
    fn pick(self) -> Option<String> {
        pick_port(self.id.kind.as_deref(), self.id.value, self.descr)
    }
}

impl<'de> Shape<'de> for Port {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut p = Port::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => p.id = value::<First<PortId>, _>(&mut map)?.0.unwrap_or_default(),
                "descr" => p.descr = value::<Leaf, _>(&mut map)?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(p)
    }
}

#[derive(Default)]
struct PortId {
    kind: Option<String>,
    value: Option<String>,
}

impl<'de> Shape<'de> for PortId {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut id = PortId::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => id.kind = value::<Leaf, _>(&mut map)?.0,
                "value" => id.value = value::<Leaf, _>(&mut map)?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(id)
    }
    fn text(s: &str) -> Self {
        PortId {
            kind: None,
            value: Leaf::text(s).0,
        }
    }
}

/// The device a `show chassis` document names: the first chassis with a system name, or the key
/// of one keyed by it (plain json).
#[derive(Default)]
pub(super) struct LocalChassis(pub Option<String>);

impl<'de> Shape<'de> for LocalChassis {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(LocalChassis(LocalItem::object(map)?.0))
    }
    fn array<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        let items = Items::<LocalItem>::array(seq)?.0;
        Ok(LocalChassis(items.into_iter().find_map(|i| i.0)))
    }
}

/// One element of `local-chassis`: its `chassis` member.
#[derive(Default)]
struct LocalItem(Option<String>);

impl<'de> Shape<'de> for LocalItem {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "chassis" {
                let chassis = value::<Items<Chassis>, _>(&mut map)?.0;
                found = chassis.into_iter().find_map(Chassis::local_name);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(LocalItem(found))
    }
}

impl Chassis {
    /// The local system's name: its `name`, else (keyed by name, no `id`) its first key.
    fn local_name(self) -> Option<String> {
        match (self.name, self.described) {
            (Some(name), _) => Some(name),
            (None, true) => None,
            (None, false) => self.keys.into_iter().next(),
        }
    }
}
