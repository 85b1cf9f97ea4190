//! Parsers for LLDP neighbour data, from text to [`Parsed`].
//!
//! Accepted documents (a file may hold several JSON documents one after another, e.g.
//! `{ lldpcli -f json0 show chassis; lldpcli -f json0 show neighbors; } > FILE`):
//!
//! - **lldpd `json0`** (`lldpcli -f json0 show neighbors`, `lldpctl -f json0`): every level is an
//!   array whatever the count. Verified against real lldpd 1.0.16 output on this project's
//!   machine: local port `lldp[0].interface[i].name`, remote system
//!   `.chassis[0].name[0].value` (absent when the neighbour sends no system name: then the chassis
//!   id `.chassis[0].id[0].value`), remote port `.port[0].id[0].{type,value}` and
//!   `.port[0].descr[0].value`. No neighbours: `{"lldp":[{}]}`.
//! - **lldpd plain `json`** (`lldpctl -f json`, `lldpcli -f json show neighbors`): the shape
//!   depends on the counts. Verified on lldpd 1.0.16: no neighbours `{"lldp":{}}`; one neighbour
//!   `{"lldp":{"interface":{"swp1":{…}}}}`; several `{"lldp":{"interface":[{"swp1":{…}},
//!   {"swp2":{…}}]}}`. Inside, `chassis` is `{"NAME":{"id":{…},…}}` (or `{"id":{…},…}` without a
//!   system name) and `port` is `{"id":{"type":…,"value":…},"descr":…}`. Arrays are accepted at
//!   every level, objects wherever lldpd collapses a one-element array.
//! - **lldpd local chassis** (`lldpcli -f json0|json show chassis`): `{"local-chassis":[{"chassis":
//!   [{"name":[{"value":NAME}]…}]}]}` or `{"local-chassis":{"chassis":{"NAME":{…}}}}` names the
//!   device the file belongs to.
//! - **NVUE** `nv show interface --output json`: an object keyed by interface name; each
//!   interface's `lldp.neighbor` is an object keyed by neighbour id, holding
//!   `chassis.{system-name,chassis-id}` and `port.{name,type,description}`. Verified in
//!   CumulusNetworks/docs `content/nvue-reference/Show-Commands/LLDP.md` (field tree of
//!   `nv show interface <if> lldp neighbor <id>`: `chassis` → `chassis-id`, `system-name`,
//!   `management-address-ipv4`; `port` → `description`, `name`, `ttl`, `type`), and the nesting
//!   `interface → lldp → neighbor → <id>` against a captured `nv show interface -o json` of
//!   Cumulus Linux 5.6 used as a test fixture in a public repository (the docs show the tree
//!   only as a table). A `{"interface":{…}}` wrapper (`nv show -o json`) is accepted too. NVUE's
//!   interface output does not name the switch: give `DEVICE=FILE`, or put `nv show system -o
//!   json` output (`{"hostname":…}`) in the same file.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// Which tool produced the neighbour data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputFormat {
    /// lldpd `-f json0`.
    LldpdJson0,
    /// lldpd `-f json`.
    LldpdJson,
    /// NVUE `nv show interface --output json`.
    Nvue,
}

impl InputFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::LldpdJson0 => "lldpd-json0",
            InputFormat::LldpdJson => "lldpd-json",
            InputFormat::Nvue => "nvue",
        }
    }
}

/// One neighbour entry as the device reported it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Neighbour {
    pub local_port: String,
    pub remote_device: String,
    pub remote_port: String,
}

/// The neighbour data of one file.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub format: InputFormat,
    /// The local chassis name, when the file holds it.
    pub local_device: Option<String>,
    pub neighbours: Vec<Neighbour>,
}

/// Why a file could not be read as LLDP data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON.
    Json(String),
    /// JSON, but none of the accepted shapes.
    UnknownFormat(String),
    /// Only chassis data, no neighbour list (not even an empty one).
    NoNeighbourData,
    /// Nothing says which device the data belongs to.
    NoLocalDevice,
    /// Two documents in one file name different local devices.
    ConflictingDevice { first: String, second: String },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Json(e) => write!(f, "not JSON: {e}"),
            ParseError::UnknownFormat(what) => write!(
                f,
                "not LLDP neighbour data ({what}); expected `lldpcli -f json0 show neighbors`, \
                 `lldpctl -f json` or NVUE `nv show interface --output json` output"
            ),
            ParseError::NoNeighbourData => write!(
                f,
                "no neighbour list in the file (only chassis data); add `lldpcli -f json0 show \
                 neighbors` output"
            ),
            ParseError::NoLocalDevice => write!(
                f,
                "the data does not say which device it was collected on; pass it as \
                 `--lldp DEVICE=FILE`, or add `lldpcli -f json0 show chassis` output to the file"
            ),
            ParseError::ConflictingDevice { first, second } => write!(
                f,
                "the file names two local devices, `{first}` and `{second}`; use one file per \
                 device"
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parse one file: one or more JSON documents.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let mut format = None;
    let mut local: Option<String> = None;
    let mut neighbours = Vec::new();
    let mut docs = 0usize;
    for doc in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let doc = doc.map_err(|e| ParseError::Json(e.to_string()))?;
        docs += 1;
        let mut set_local = |name: Option<String>| -> Result<(), ParseError> {
            match (&local, name) {
                (_, None) => Ok(()),
                (None, Some(n)) => {
                    local = Some(n);
                    Ok(())
                }
                (Some(a), Some(b)) if *a == b => Ok(()),
                (Some(a), Some(b)) => Err(ParseError::ConflictingDevice {
                    first: a.clone(),
                    second: b,
                }),
            }
        };
        let Value::Object(obj) = &doc else {
            return Err(ParseError::UnknownFormat(format!(
                "document {docs} is not a JSON object"
            )));
        };
        if let Some(lldp) = obj.get("lldp") {
            let f = if lldp.is_array() {
                InputFormat::LldpdJson0
            } else {
                InputFormat::LldpdJson
            };
            lldpd_neighbours(lldp, &mut neighbours);
            format.get_or_insert(f);
        } else if let Some(lc) = obj.get("local-chassis") {
            set_local(local_chassis_name(lc))?;
        } else if let Some(Value::String(h)) = obj.get("hostname") {
            // `nv show system -o json`.
            set_local(Some(h.clone()))?;
        } else if let Some(ifaces) = nvue_interfaces(obj) {
            nvue_neighbours(ifaces, &mut neighbours);
            format.get_or_insert(InputFormat::Nvue);
        } else {
            let keys: Vec<&str> = obj.keys().map(String::as_str).take(5).collect();
            return Err(ParseError::UnknownFormat(format!(
                "document {docs} has keys {keys:?}"
            )));
        }
    }
    if docs == 0 {
        return Err(ParseError::UnknownFormat("the file is empty".into()));
    }
    let Some(format) = format else {
        return Err(ParseError::NoNeighbourData);
    };
    neighbours.sort();
    neighbours.dedup();
    Ok(Parsed {
        format,
        local_device: local,
        neighbours,
    })
}

/// Elements of a value that lldpd writes as an array in json0 and as an object when it holds one
/// element in plain json.
fn items(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    }
}

fn non_empty(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// A leaf that json0 wraps as `[{"value": X}]` and plain json writes as `X`.
fn leaf(v: Option<&Value>) -> Option<&str> {
    let v = v?;
    match v {
        Value::String(s) => non_empty(Some(s)),
        Value::Array(a) => a.iter().find_map(|x| leaf(Some(x))),
        Value::Object(o) => leaf(o.get("value")),
        _ => None,
    }
}

/// The port to compare with the plan: the port id when it is an interface name (or locally
/// assigned), else the port description (Linux hosts send a MAC as port id and the interface name
/// as description), else whatever the id is.
fn pick_port(id_type: Option<&str>, id_value: Option<&str>, descr: Option<&str>) -> Option<String> {
    let (id_value, descr) = (non_empty(id_value), non_empty(descr));
    let by_name = matches!(id_type, None | Some("ifname" | "local"));
    if by_name && id_value.is_some() {
        return id_value.map(str::to_string);
    }
    descr.or(id_value).map(str::to_string)
}

fn lldpd_neighbours(lldp: &Value, out: &mut Vec<Neighbour>) {
    for section in items(lldp) {
        let Some(ifaces) = section.get("interface") else {
            continue;
        };
        for iface in items(ifaces) {
            let Value::Object(o) = iface else { continue };
            if let Some(Value::String(name)) = o.get("name") {
                // json0: `{"name": "swp1", "chassis": [...], "port": [...]}`.
                lldpd_entry(name, iface, out);
            } else {
                // plain json: `{"swp1": {...}}`, possibly several keys, each possibly an array.
                for (name, details) in o {
                    for d in items(details) {
                        lldpd_entry(name, d, out);
                    }
                }
            }
        }
    }
}

fn lldpd_entry(local_port: &str, entry: &Value, out: &mut Vec<Neighbour>) {
    let Some(chassis) = entry.get("chassis") else {
        return;
    };
    let mut remotes = Vec::new();
    for c in items(chassis) {
        let Value::Object(co) = c else { continue };
        if co.contains_key("name") || co.contains_key("id") {
            // json0 (`name: [{value}]`), or plain json without a system name (`id: {...}`).
            let name = leaf(co.get("name")).or_else(|| chassis_id(co.get("id")));
            remotes.extend(name.map(str::to_string));
        } else {
            // plain json: keyed by system name.
            remotes.extend(co.keys().cloned());
        }
    }
    let port = entry.get("port").map(items).unwrap_or_default();
    let remote_port = port.first().and_then(|p| {
        let id = p.get("id").map(items).unwrap_or_default();
        let id = id.first();
        let id_type = id.and_then(|i| leaf(i.get("type")));
        let id_value = id.and_then(|i| match i {
            Value::String(s) => Some(s.as_str()),
            _ => leaf(i.get("value")),
        });
        pick_port(id_type, id_value, leaf(p.get("descr")))
    });
    let Some(remote_port) = remote_port else {
        return;
    };
    for remote_device in remotes {
        out.push(Neighbour {
            local_port: local_port.to_string(),
            remote_device,
            remote_port: remote_port.clone(),
        });
    }
}

fn chassis_id(v: Option<&Value>) -> Option<&str> {
    let v = v?;
    match v {
        Value::Array(a) => a.iter().find_map(|x| chassis_id(Some(x))),
        Value::Object(o) => leaf(o.get("value")),
        Value::String(s) => non_empty(Some(s)),
        _ => None,
    }
}

fn local_chassis_name(lc: &Value) -> Option<String> {
    for l in items(lc) {
        for c in l.get("chassis").map(items).unwrap_or_default() {
            let Value::Object(co) = c else { continue };
            if let Some(n) = leaf(co.get("name")) {
                return Some(n.to_string());
            }
            if !co.contains_key("id")
                && let Some(k) = co.keys().next()
            {
                return Some(k.clone());
            }
        }
    }
    None
}

/// The interface map of an NVUE document: the object itself, or its `interface` member. An
/// interface map is an object of objects, at least one of which looks like an NVUE interface.
fn nvue_interfaces(obj: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let looks_like = |m: &Map<String, Value>| {
        !m.is_empty()
            && m.values().all(Value::is_object)
            && m.values().any(|v| {
                ["lldp", "type", "ifindex", "link"]
                    .iter()
                    .any(|k| v.get(k).is_some())
            })
    };
    if let Some(Value::Object(inner)) = obj.get("interface")
        && looks_like(inner)
    {
        return Some(inner);
    }
    looks_like(obj).then_some(obj)
}

fn nvue_neighbours(ifaces: &Map<String, Value>, out: &mut Vec<Neighbour>) {
    for (local_port, iface) in ifaces {
        let Some(Value::Object(neigh)) = iface.get("lldp").and_then(|l| l.get("neighbor")) else {
            continue;
        };
        for (id, n) in neigh {
            let chassis = n.get("chassis");
            let remote_device = chassis
                .and_then(|c| leaf(c.get("system-name")))
                .or(non_empty(Some(id)))
                .or_else(|| chassis.and_then(|c| leaf(c.get("chassis-id"))));
            let port = n.get("port");
            let remote_port = pick_port(
                port.and_then(|p| leaf(p.get("type"))),
                port.and_then(|p| leaf(p.get("name"))),
                port.and_then(|p| leaf(p.get("description"))),
            );
            if let (Some(d), Some(p)) = (remote_device, remote_port) {
                out.push(Neighbour {
                    local_port: local_port.clone(),
                    remote_device: d.to_string(),
                    remote_port: p,
                });
            }
        }
    }
}
