//! NVUE's `nv show interface --output json`, read as it streams: an object keyed by interface
//! name, each interface's `lldp.neighbor` an object keyed by neighbour id. The shape is described
//! in `parse.rs`.

use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess};

use super::lenient::{Leaf, Shape, non_empty, value};
use super::neighbour::{Neighbour, pick_port};

/// Members every NVUE interface has one of: how an interface map is told from other objects.
const INTERFACE_MEMBERS: [&str; 4] = ["lldp", "type", "ifindex", "link"];

/// Members of an object read as a map of NVUE interfaces.
#[derive(Default)]
pub(super) struct Interfaces {
    /// The value was an object.
    pub is_object: bool,
    members: usize,
    not_objects: usize,
    interfaces: usize,
    neighbours: Vec<Neighbour>,
}

impl Interfaces {
    /// A member that is an object.
    pub fn add(&mut self, name: &str, iface: Interface) {
        self.members += 1;
        if !iface.is_object {
            self.not_objects += 1;
        }
        if iface.looks_like {
            self.interfaces += 1;
        }
        self.neighbours.extend(
            iface
                .neighbours
                .into_iter()
                .map(|(device, port)| Neighbour {
                    local_port: name.to_string(),
                    remote_device: device,
                    remote_port: port,
                }),
        );
    }

    /// A member railyard reads as something else; `object` says whether it is one.
    pub fn add_other(&mut self, object: bool) {
        self.members += 1;
        if !object {
            self.not_objects += 1;
        }
    }

    /// An interface map: not empty, objects only, at least one of them an interface.
    pub fn looks_like(&self) -> bool {
        self.members > 0 && self.not_objects == 0 && self.interfaces > 0
    }

    pub fn into_neighbours(self) -> Vec<Neighbour> {
        self.neighbours
    }
}

impl<'de> Shape<'de> for Interfaces {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut all = Interfaces {
            is_object: true,
            ..Interfaces::default()
        };
        while let Some(name) = map.next_key::<String>()? {
            let iface = value::<Interface, _>(&mut map)?;
            all.add(&name, iface);
        }
        Ok(all)
    }
}

/// One interface: whether it looks like one, and the neighbours under `lldp.neighbor`.
#[derive(Default)]
pub(super) struct Interface {
    is_object: bool,
    looks_like: bool,
    /// `(remote device, remote port)`.
    neighbours: Vec<(String, String)>,
}

impl<'de> Shape<'de> for Interface {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut iface = Interface {
            is_object: true,
            ..Interface::default()
        };
        while let Some(key) = map.next_key::<String>()? {
            iface.looks_like |= INTERFACE_MEMBERS.contains(&key.as_str());
            if key == "lldp" {
                iface.neighbours = value::<Lldp, _>(&mut map)?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(iface)
    }
}

/// A document's `hostname` member: `nv show system`'s host name, or an interface of that name.
#[derive(Default)]
pub(super) enum Hostname {
    #[default]
    Other,
    Name(String),
    Interface(Interface),
}

impl<'de> Shape<'de> for Hostname {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(Hostname::Interface(Interface::object(map)?))
    }
    fn text(s: &str) -> Self {
        Hostname::Name(s.to_string())
    }
}

/// An interface's `lldp`: its `neighbor` member.
#[derive(Default)]
struct Lldp(Vec<(String, String)>);

impl<'de> Shape<'de> for Lldp {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut found = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "neighbor" {
                found = value::<Neighbors, _>(&mut map)?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Lldp(found))
    }
}

/// `lldp.neighbor`: neighbours keyed by id.
#[derive(Default)]
struct Neighbors(Vec<(String, String)>);

impl<'de> Shape<'de> for Neighbors {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut found = Vec::new();
        while let Some(id) = map.next_key::<String>()? {
            let n = value::<Neighbor, _>(&mut map)?;
            let device = n.system_name.or_else(|| non_empty(&id));
            let device = device.or(n.chassis_id);
            let port = pick_port(n.port_type.as_deref(), n.port_name, n.port_description);
            if let (Some(d), Some(p)) = (device, port) {
                found.push((d, p));
            }
        }
        Ok(Neighbors(found))
    }
}

/// One neighbour: `chassis.{system-name,chassis-id}`, `port.{type,name,description}`.
#[derive(Default)]
struct Neighbor {
    system_name: Option<String>,
    chassis_id: Option<String>,
    port_type: Option<String>,
    port_name: Option<String>,
    port_description: Option<String>,
}

impl<'de> Shape<'de> for Neighbor {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut n = Neighbor::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "chassis" => {
                    let [name, id] = value::<Members<ChassisLeaves, 2>, _>(&mut map)?.0;
                    (n.system_name, n.chassis_id) = (name, id);
                }
                "port" => {
                    let [kind, name, descr] = value::<Members<PortLeaves, 3>, _>(&mut map)?.0;
                    (n.port_type, n.port_name, n.port_description) = (kind, name, descr);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(n)
    }
}

/// The member names an object is read for.
trait Wanted<const N: usize> {
    const NAMES: [&'static str; N];
}

struct ChassisLeaves;
impl Wanted<2> for ChassisLeaves {
    const NAMES: [&'static str; 2] = ["system-name", "chassis-id"];
}

struct PortLeaves;
impl Wanted<3> for PortLeaves {
    const NAMES: [&'static str; 3] = ["type", "name", "description"];
}

/// The [`Leaf`] of each wanted member of an object (the last of a name, as a JSON object keeps
/// it); other members are skipped unread.
struct Members<W, const N: usize>([Option<String>; N], PhantomData<W>);

impl<W, const N: usize> Default for Members<W, N> {
    fn default() -> Self {
        Members(std::array::from_fn(|_| None), PhantomData)
    }
}

impl<'de, W: Wanted<N>, const N: usize> Shape<'de> for Members<W, N> {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut found = Self::default();
        while let Some(key) = map.next_key::<String>()? {
            match W::NAMES.iter().position(|n| *n == key) {
                Some(i) => found.0[i] = value::<Leaf, _>(&mut map)?.0,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}
