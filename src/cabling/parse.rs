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
use std::io::{BufReader, Read};

use serde::Serialize;
use serde::de::{MapAccess, SeqAccess};

use super::lenient::{Lenient, Shape, skip_array, value};
use super::lldpd::{Lldp, LocalChassis};
use super::neighbour::Neighbour;
use super::nvue::{Hostname, Interface, Interfaces};

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
    /// Reading failed (not a parse error): the reader's message, e.g. the size limit the
    /// command line's bounded reader enforces.
    Read(String),
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
            ParseError::Read(e) => write!(f, "could not read: {e}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parse one file: one or more JSON documents.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    parse_documents(serde_json::de::StrRead::new(text))
}

/// Parse one file from `reader`, streaming: what is kept is the neighbour list, never the text
/// (`lenient.rs`). Gives what [`parse`] gives for the same bytes (that are UTF-8). The reader
/// bounds the size (the command line's reader fails past its limit: [`ParseError::Read`]).
pub fn parse_reader(reader: impl Read) -> Result<Parsed, ParseError> {
    // serde_json reads an `io::Read` byte by byte: the buffer makes those reads cheap.
    parse_documents(serde_json::de::IoRead::new(BufReader::new(reader)))
}

fn parse_documents<'de, R: serde_json::de::Read<'de>>(read: R) -> Result<Parsed, ParseError> {
    let mut file = File::default();
    let documents = serde_json::Deserializer::new(read).into_iter::<Lenient<Document>>();
    for doc in documents {
        let Lenient(doc) = doc.map_err(|e| match e.classify() {
            serde_json::error::Category::Io => ParseError::Read(e.to_string()),
            _ => ParseError::Json(e.to_string()),
        })?;
        file.add(doc)?;
    }
    file.finish()
}

/// What the documents of a file said so far.
#[derive(Default)]
struct File {
    documents: usize,
    format: Option<InputFormat>,
    local: Option<String>,
    neighbours: Vec<Neighbour>,
}

impl File {
    /// Take in one document, by the first of its members that says what it is: `lldp`,
    /// `local-chassis`, a string `hostname`, an `interface` map, or the document itself as an
    /// NVUE interface map.
    fn add(&mut self, doc: Document) -> Result<(), ParseError> {
        self.documents += 1;
        let n = self.documents;
        if !doc.is_object {
            return Err(ParseError::UnknownFormat(format!(
                "document {n} is not a JSON object"
            )));
        }
        if let Some(lldp) = doc.lldp {
            let format = if lldp.json0 {
                InputFormat::LldpdJson0
            } else {
                InputFormat::LldpdJson
            };
            self.format.get_or_insert(format);
            self.neighbours.extend(lldp.neighbours);
        } else if let Some(name) = doc.local_chassis {
            self.set_local(name)?;
        } else if let Some(name) = doc.hostname {
            self.set_local(Some(name))?;
        } else if let Some(ifaces) = doc.wrapper.filter(Interfaces::looks_like) {
            self.add_nvue(ifaces);
        } else if doc.members.looks_like() {
            self.add_nvue(doc.members);
        } else {
            return Err(ParseError::UnknownFormat(format!(
                "document {n} has keys {:?}",
                doc.first_keys
            )));
        }
        Ok(())
    }

    fn add_nvue(&mut self, ifaces: Interfaces) {
        self.format.get_or_insert(InputFormat::Nvue);
        self.neighbours.extend(ifaces.into_neighbours());
    }

    fn set_local(&mut self, name: Option<String>) -> Result<(), ParseError> {
        match (&self.local, name) {
            (_, None) => Ok(()),
            (None, Some(n)) => {
                self.local = Some(n);
                Ok(())
            }
            (Some(a), Some(b)) if *a == b => Ok(()),
            (Some(a), Some(b)) => Err(ParseError::ConflictingDevice {
                first: a.clone(),
                second: b,
            }),
        }
    }

    fn finish(mut self) -> Result<Parsed, ParseError> {
        if self.documents == 0 {
            return Err(ParseError::UnknownFormat("the file is empty".into()));
        }
        let Some(format) = self.format else {
            return Err(ParseError::NoNeighbourData);
        };
        self.neighbours.sort();
        self.neighbours.dedup();
        Ok(Parsed {
            format,
            local_device: self.local,
            neighbours: self.neighbours,
        })
    }
}

/// How many of a document's keys an unknown-format message names.
const KEYS_NAMED: usize = 5;

/// One top-level JSON document, read for every shape it could be at once (a stream is read
/// once); [`File::add`] decides which it is.
#[derive(Default)]
struct Document {
    is_object: bool,
    lldp: Option<Lldp>,
    /// `Some` when a `local-chassis` member is present, with the name it gives.
    local_chassis: Option<Option<String>>,
    hostname: Option<String>,
    /// An `interface` member that is an object (`nv show -o json`).
    wrapper: Option<Interfaces>,
    /// Every member, as an NVUE interface (`nv show interface -o json`).
    members: Interfaces,
    first_keys: Vec<String>,
}

impl<'de> Shape<'de> for Document {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut doc = Document {
            is_object: true,
            ..Document::default()
        };
        while let Some(key) = map.next_key::<String>()? {
            if doc.first_keys.len() < KEYS_NAMED {
                doc.first_keys.push(key.clone());
            }
            doc.member(key, &mut map)?;
        }
        Ok(doc)
    }
    fn array<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        skip_array(seq)?;
        Ok(Document::default())
    }
}

impl Document {
    fn member<'de, A: MapAccess<'de>>(&mut self, key: String, map: &mut A) -> Result<(), A::Error> {
        match key.as_str() {
            "lldp" => {
                let lldp = value::<Lldp, _>(map)?;
                match &mut self.lldp {
                    Some(seen) => seen.neighbours.extend(lldp.neighbours),
                    None => self.lldp = Some(lldp),
                }
                self.members.add_other(true);
            }
            "local-chassis" => {
                self.local_chassis = Some(value::<LocalChassis, _>(map)?.0);
                self.members.add_other(true);
            }
            "hostname" => match value::<Hostname, _>(map)? {
                Hostname::Name(name) => {
                    self.hostname = Some(name);
                    self.members.add_other(false);
                }
                Hostname::Interface(iface) => self.members.add(&key, iface),
                Hostname::Other => self.members.add_other(false),
            },
            "interface" => {
                let ifaces = value::<Interfaces, _>(map)?;
                self.members.add_other(ifaces.is_object);
                if ifaces.is_object {
                    self.wrapper = Some(ifaces);
                }
            }
            _ => {
                let iface = value::<Interface, _>(map)?;
                self.members.add(&key, iface);
            }
        }
        Ok(())
    }
}
