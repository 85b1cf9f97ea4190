//! The change between two designs as a work order (`railyard diff OLD NEW`, issue #29): the
//! cables to remove, move and add in an order they can be done in (`cables.rs`), the switches
//! whose configurations change, compared by meaning per device with disruptive changes flagged
//! (`configs.rs`), the numbers (addresses, ASNs, router-ids, tenant VNIs/VLANs/RTs/RDs/PKeys)
//! that an existing device or tenant would lose or get anew (`numbering.rs`), and the parts to
//! order (`bom.rs`); written as text (`text.rs`) and as one HTML page (`page.rs`).
//!
//! Pure: the input is two sets of rendered files in memory (path under the output directory →
//! bytes), whether compiled from specs or read from two build directories by the command line.
//! It reads the deliverables, not the compiled stages, so a build directory from last year
//! compares with today's spec. The configurations are compared in push's canonical line forms
//! (`push::drivers::<os>`) and their disruptive changes found by push's one engine
//! (`push::disruptive`): the same meaning `railyard push` would act on (ARCHITECTURE.md says
//! why `change` may name `push`).

pub mod bom;
pub mod cables;
pub mod cause;
pub mod configs;
pub mod files;
pub mod isolation;
pub mod layout;
pub mod markdown;
pub mod numbering;
pub mod order;
pub mod page;
pub mod racks;
pub mod reprint;
pub mod slots;
pub mod swaps;
pub mod table;
pub mod tenants;
pub mod text;

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// Rendered files by path under the output directory (`configs/spine01/startup.yaml`).
pub type Files = BTreeMap<String, Vec<u8>>;

/// Whether a path of an output directory is one [`compare`] reads: every file a build writes
/// (issue #39 item 1) — those no part reads by meaning are accounted for by `files.rs` — but
/// the manifest, which is the index of the others, not a deliverable.
pub fn reads(path: &str) -> bool {
    path != crate::output::manifest::PATH
}

/// Everything that changes from the old design to the new one.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChangeSet {
    /// Cable work, in the order it can be done: removals, moves, then additions, by rack.
    pub cables: Vec<cables::CableStep>,
    /// Devices whose configuration changes, appears or goes, by name.
    pub devices: Vec<configs::DeviceChange>,
    /// Numbers of an identity that change, go, or are new for a tenant.
    pub numbering: numbering::Numbering,
    /// Members that leave or join a tenant (its VRF, its partition).
    pub tenants: Vec<tenants::MembershipChange>,
    /// The bill of materials' delta, by part number.
    pub parts: Vec<bom::PartDelta>,
    /// The parts the replacements take out and fit, even where the totals cancel.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub swaps: Vec<swaps::PartSwap>,
    /// Every other file that differs, by path (tenant isolation files by meaning of lines).
    pub files: Vec<files::FileChange>,
    /// Racks (NVLink domains) of a rack-scale system added or removed.
    #[serde(skip_serializing_if = "racks::RackChange::is_empty")]
    pub racks: racks::RackChange,
}

/// What a change means for the running cluster, and the exit code CI reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Nothing changes: exit 0.
    Unchanged,
    /// Nothing running is disturbed: new cables, devices, numbers and parts, and configuration
    /// changes push's engine finds nothing disruptive in (push applies them without
    /// `--allow-disruptive`): exit 1.
    Safe,
    /// Something running is disturbed: a cable removed or moved, a device or config file
    /// removed, a disruptive configuration change (`push::disruptive`), or a number
    /// renumbered or gone: exit 2.
    Disruptive,
}

impl Verdict {
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Unchanged => 0,
            Verdict::Safe => 1,
            Verdict::Disruptive => 2,
        }
    }
}

impl ChangeSet {
    pub fn is_empty(&self) -> bool {
        self.cables.is_empty()
            && self.devices.is_empty()
            && self.numbering.is_empty()
            && self.tenants.is_empty()
            && self.parts.is_empty()
            && self.swaps.is_empty()
            && self.files.is_empty()
            && self.racks.is_empty()
    }

    /// The verdict: disruptive when anything running is disturbed, safe otherwise.
    pub fn verdict(&self) -> Verdict {
        let disturbs = self
            .cables
            .iter()
            .any(|c| !matches!(c.action, cables::Action::Add | cables::Action::Rename))
            || self.devices.iter().any(configs::DeviceChange::disturbs)
            || self.numbering.disturbs()
            || self.tenants.iter().any(tenants::MembershipChange::disturbs)
            || self.files.iter().any(|f| f.disruptive)
            || !self.racks.removed.is_empty();
        if disturbs {
            Verdict::Disruptive
        } else if self.is_empty() {
            Verdict::Unchanged
        } else {
            Verdict::Safe
        }
    }
}

/// Why two designs could not be compared: a file that one side lacks or that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangeError {
    /// The file, by path under the output directory.
    pub file: String,
    pub message: String,
}

impl ChangeError {
    pub fn new(file: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// One file's bytes on the old and the new side.
pub(crate) type Pair<'a> = (&'a [u8], &'a [u8]);

/// Both sides of one file: `None` when neither has it (a build without that output group),
/// an error when only one side has it.
pub(crate) fn both<'a>(
    old: &'a Files,
    new: &'a Files,
    path: &str,
) -> Result<Option<Pair<'a>>, ChangeError> {
    match (old.get(path), new.get(path)) {
        (Some(o), Some(n)) => Ok(Some((o, n))),
        (None, None) => Ok(None),
        (Some(_), None) => Err(ChangeError::new(path, "only the old design has this file")),
        (None, Some(_)) => Err(ChangeError::new(path, "only the new design has this file")),
    }
}

/// A design of nothing beside `other`: each of its tables with no row (the header kept, so the
/// tables compare), nothing else. What a spec added in a pull request is compared with.
fn hollow(other: &Files) -> Files {
    other
        .iter()
        .filter(|(p, _)| p.ends_with(".csv"))
        .map(|(p, bytes)| {
            let head = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
            let mut h = head.to_vec();
            h.push(b'\n');
            (p.clone(), h)
        })
        .collect()
}

/// The change from `old` to `new`, or every reason they cannot be compared. An empty side is no
/// design: everything of the other side is added (a new spec) or removed (a deleted one).
pub fn compare(old: &Files, new: &Files) -> Result<ChangeSet, Vec<ChangeError>> {
    let nothing = old.is_empty() != new.is_empty();
    let (h_old, h_new);
    let (old, new) = match (old.is_empty(), new.is_empty()) {
        (true, false) => {
            h_old = hollow(new);
            (&h_old, new)
        }
        (false, true) => {
            h_new = hollow(old);
            (old, &h_new)
        }
        _ => (old, new),
    };
    let mut errors = Vec::new();
    let cables = cables::plans(old, new).map(|(o, n)| {
        let mut steps = cables::steps(&o, &n);
        cause::explain(&mut steps, &o, &n);
        steps
    });
    let cables = kept(cables.map_err(|e| vec![e]), &mut errors);
    let devices = kept(configs::compare_designs(old, new, nothing), &mut errors);
    let numbering = kept(numbering::compare(old, new), &mut errors);
    let tenants = kept(tenants::compare(old, new).map_err(|e| vec![e]), &mut errors);
    let parts = kept(bom::compare(old, new).map_err(|e| vec![e]), &mut errors);
    match (cables, devices, numbering, tenants, parts) {
        (Some(cables), Some(devices), Some(numbering), Some(tenants), Some(parts)) => {
            Ok(ChangeSet {
                swaps: swaps::swaps(&cables),
                cables,
                devices,
                numbering,
                tenants,
                parts,
                files: files::compare(old, new),
                racks: racks::compare(old, new),
            })
        }
        _ => Err(errors),
    }
}

/// A part's value, its errors kept with the others' (every problem at once).
fn kept<T>(r: Result<T, Vec<ChangeError>>, errors: &mut Vec<ChangeError>) -> Option<T> {
    r.map_err(|e| errors.extend(e)).ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::Files;

    /// Files from (path, text) pairs.
    pub(crate) fn files(pairs: &[(&str, &str)]) -> Files {
        pairs
            .iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect()
    }
}
