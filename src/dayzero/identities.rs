//! The device identity file: a CSV whose header names the device column (`name`, `device` or
//! `hostname`) and a MAC (`mac_address`, `mac`) and/or serial (`serial`, `serial_number`)
//! column — NetBox's and Nautobot's device export names are accepted as they are; any other
//! column is ignored. Rows are checked against the plan's switches; every problem is reported,
//! located in the file.

use std::collections::BTreeMap;

use super::hw::{Mac, Serial};
use crate::diag::{Diagnostic, Diagnostics, SourceFile, Span, codes};
use crate::topology::Fabric;

const HELP: &str =
    "a header `name,mac_address,serial` (NetBox/Nautobot column names), then one row per switch";

/// One device's identity: at least one of the two is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub mac: Option<Mac>,
    pub serial: Option<Serial>,
    /// The device cell of its row: where a later finding about this device points.
    pub at: Span,
}

/// The identities of the plan's switches, by device name (natural name order is the caller's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identities(pub BTreeMap<String, Identity>);

/// The positions of the columns read.
struct Columns {
    name: usize,
    mac: Option<usize>,
    serial: Option<usize>,
}

/// Where each MAC, serial and device was first seen: a second sighting is a duplicate.
#[derive(Default)]
struct Seen {
    names: BTreeMap<String, Span>,
    macs: BTreeMap<Mac, String>,
    serials: BTreeMap<Serial, String>,
}

/// Read the identity file `src` against the plan's switches.
pub fn parse(src: &SourceFile, fabric: &Fabric, diags: &mut Diagnostics) -> Identities {
    let switches: BTreeMap<&str, ()> = fabric
        .devices()
        .filter(|d| d.role.is_switch())
        .map(|d| (d.name.as_str(), ()))
        .collect();
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .comment(Some(b'#'))
        .from_reader(src.text.as_bytes());
    let head_span = Span::new(0, src.text.lines().next().map_or(1, str::len).max(1));
    let Some(cols) = columns(&mut r, head_span, diags) else {
        return Identities::default();
    };
    let mut out = Identities::default();
    let mut seen = Seen::default();
    for rec in r.records() {
        let rec = match rec {
            Ok(rec) => rec,
            Err(e) => {
                let at = e.position().map_or(0, |p| p.byte() as usize);
                diags.push(error(
                    codes::IDENTITY_SYNTAX,
                    Span::new(at, 1),
                    format!("unreadable CSV row: {e}"),
                ));
                continue;
            }
        };
        let start = rec.position().map_or(0, |p| p.byte() as usize);
        let cell = |i: usize| rec.get(i).map(|v| (v, span_of(src, start, v)));
        let Some((name, name_span)) = cell(cols.name).filter(|(v, _)| !v.trim().is_empty()) else {
            diags.push(error(
                codes::IDENTITY_SYNTAX,
                Span::new(start, 1),
                "a row without a device name",
            ));
            continue;
        };
        let name = name.trim();
        // The cells are checked first, so a hostile value is reported on any row.
        let mac = value(cols.mac.and_then(&cell), Mac::parse, diags);
        let serial = value(cols.serial.and_then(&cell), Serial::parse, diags);
        if !switches.contains_key(name) {
            diags.push(error(
                codes::IDENTITY_UNKNOWN_DEVICE,
                name_span,
                format!("`{}` is not a switch of the plan", name.escape_debug()),
            ));
            continue;
        }
        if let Some(first) = seen.names.get(name) {
            let (line, _) = src.line_col(first.start);
            diags.push(duplicate(
                name_span,
                format!("`{name}` has a row already (line {line})"),
            ));
            continue;
        }
        seen.names.insert(name.to_owned(), name_span);
        let (Ok(mac), Ok(serial)) = (mac, serial) else {
            continue;
        };
        if mac.is_none() && serial.is_none() {
            diags.push(error(
                codes::IDENTITY_SYNTAX,
                name_span,
                format!("`{name}` has neither a MAC address nor a serial number"),
            ));
            continue;
        }
        if !seen.admit(name, mac, serial.as_ref(), name_span, diags) {
            continue;
        }
        out.0.insert(
            name.to_owned(),
            Identity {
                mac,
                serial,
                at: name_span,
            },
        );
    }
    out
}

impl Seen {
    /// Whether the MAC and serial are not another device's (a duplicate is reported).
    fn admit(
        &mut self,
        name: &str,
        mac: Option<Mac>,
        serial: Option<&Serial>,
        at: Span,
        diags: &mut Diagnostics,
    ) -> bool {
        if let Some(other) = mac.and_then(|m| self.macs.get(&m)) {
            diags.push(duplicate(
                at,
                format!("`{name}` has the MAC address of `{other}`"),
            ));
            return false;
        }
        if let Some(other) = serial.and_then(|s| self.serials.get(s)) {
            diags.push(duplicate(
                at,
                format!("`{name}` has the serial number of `{other}`"),
            ));
            return false;
        }
        if let Some(m) = mac {
            self.macs.insert(m, name.to_owned());
        }
        if let Some(s) = serial {
            self.serials.insert(s.clone(), name.to_owned());
        }
        true
    }
}

/// A typed cell: `Ok(None)` when empty, `Err` (reported) when it does not parse.
fn value<T>(
    cell: Option<(&str, Span)>,
    parse: fn(&str) -> Result<T, String>,
    diags: &mut Diagnostics,
) -> Result<Option<T>, ()> {
    match cell {
        None => Ok(None),
        Some(("", _)) => Ok(None),
        Some((v, span)) => parse(v).map(Some).map_err(|m| {
            diags.push(error(codes::IDENTITY_SYNTAX, span, m));
        }),
    }
}

/// The header: the device column and a MAC or serial column are needed.
fn columns(
    r: &mut csv::Reader<&[u8]>,
    head_span: Span,
    diags: &mut Diagnostics,
) -> Option<Columns> {
    let head = match r.headers() {
        Ok(h) => h.clone(),
        Err(e) => {
            diags.push(error(
                codes::IDENTITY_SYNTAX,
                head_span,
                format!("unreadable CSV header: {e}"),
            ));
            return None;
        }
    };
    let find = |names: &[&str]| {
        head.iter()
            .position(|h| names.iter().any(|n| h.trim().eq_ignore_ascii_case(n)))
    };
    let name = find(&["name", "device", "hostname"]);
    let mac = find(&["mac_address", "mac"]);
    let serial = find(&["serial", "serial_number"]);
    match name {
        Some(name) if mac.is_some() || serial.is_some() => Some(Columns { name, mac, serial }),
        _ => {
            diags.push(error(
                codes::IDENTITY_SYNTAX,
                head_span,
                "the header names no device column or neither a MAC nor a serial column",
            ));
            None
        }
    }
}

/// The span of cell text `v` in the row starting at byte `start` (the row's start when the
/// cell was quoted differently from how it reads).
fn span_of(src: &SourceFile, start: usize, v: &str) -> Span {
    let found = src
        .text
        .get(start..)
        .and_then(|rest| if v.is_empty() { None } else { rest.find(v) });
    match found {
        Some(off) => Span::new(start + off, v.len()),
        None => Span::new(start, 1),
    }
}

fn error(code: crate::diag::Code, span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message)
        .at(Some(span), "here")
        .help(HELP)
}

fn duplicate(span: Span, message: String) -> Diagnostic {
    error(codes::IDENTITY_DUPLICATE, span, message)
}
