//! Cabling verification: compare the LLDP neighbours switches report with the cabling plan.
//!
//! Input: the [`Fabric`](crate::topology::Fabric) of a compiled spec and one or more LLDP
//! captures, each the text of one device's LLDP output (`lldpcli -f json0 show neighbors`,
//! `lldpctl -f json`, or NVUE `nv show interface --output json`). Output: a [`Report`] with every
//! planned cable that LLDP proves correct, and findings for cables that are miswired (swapped
//! ports, wrong port, wrong device, wrong rail), missing or unexpected, each naming the planned
//! cable ends, the cable label and the cable id to fix.
//!
//! Invariants:
//! - Pure: no file, clock or environment access; the CLI reads the files.
//! - The report is byte-identical for the same plan and the same observations, whatever the order
//!   of the captures or of the neighbours inside them.
//! - Partial observation is normal (nodes often run no LLDP agent): a planned cable is reported
//!   missing only when one of its ends was captured and the other end is known to send LLDP (it
//!   was captured with a neighbour, or seen as a neighbour somewhere); otherwise it is not
//!   verified, and the result is INCOMPLETE, never PASS, unless the scope leaves it out
//!   (`scope.rs`).

mod lenient;
mod lldpd;
mod names;
mod neighbour;
mod nvue;
mod parse;
mod scope;
mod text;
mod verify;

pub use names::PortAliases;
pub use neighbour::Neighbour;
pub use parse::{InputFormat, ParseError, Parsed, parse, parse_reader};
pub use scope::{Gap, NotInPlan, Scope, Status, tier_named};
pub use verify::{
    CableRef, CaptureInfo, Class, EndRef, Finding, MiswireKind, ObservedLink, Report, Summary,
    Unseen, Unverified, verify, verify_named, verify_scoped,
};

use serde::Serialize;

/// One LLDP neighbour entry, normalized: `local_device:local_port` sees
/// `remote_device:remote_port`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Observation {
    pub local_device: String,
    pub local_port: String,
    pub remote_device: String,
    pub remote_port: String,
}

/// The LLDP data of one device, attributed to it.
#[derive(Clone, Debug, Serialize)]
pub struct Capture {
    /// The device the data was collected on.
    pub device: String,
    /// Where the data came from (a file name), for the report.
    pub source: String,
    pub format: InputFormat,
    pub observations: Vec<Observation>,
}

/// Parse one capture. The device it belongs to is `device` when given (`--lldp DEVICE=FILE`),
/// else the local chassis name found in the data (`lldpcli -f json0 show chassis` output, or
/// NVUE `nv show system` output, in the same file). Errors when neither names it.
pub fn capture(source: &str, text: &str, device: Option<&str>) -> Result<Capture, ParseError> {
    capture_of(source, parse(text)?, device)
}

/// [`capture`] of data already parsed (e.g. by [`parse_reader`]).
pub fn capture_of(
    source: &str,
    parsed: Parsed,
    device: Option<&str>,
) -> Result<Capture, ParseError> {
    let device = match (device, parsed.local_device) {
        (Some(d), _) => d.to_string(),
        (None, Some(d)) => d,
        (None, None) => return Err(ParseError::NoLocalDevice),
    };
    let observations = parsed
        .neighbours
        .into_iter()
        .map(|n| Observation {
            local_device: device.clone(),
            local_port: n.local_port,
            remote_device: n.remote_device,
            remote_port: n.remote_port,
        })
        .collect();
    Ok(Capture {
        device,
        source: source.to_string(),
        format: parsed.format,
        observations,
    })
}
