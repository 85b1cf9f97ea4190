//! Switch configurations compared by meaning, per device: each rendered file read into its OS's
//! canonical lines (push's line forms, `push::drivers::<os>`), the lines only one side has, the
//! BGP sessions they add or remove and the disruptive changes push's engine finds in them
//! (`push::disruptive::findings`: ASN/router-id, sessions, addresses, MTU, speed/breakout).
//!
//! Rendered twins are compared once: `nv-set.sh` states `startup.yaml`'s tree, and a switch's
//! `openconfig.xml` states what its own OS's file does, so it is compared only for a device
//! that has no other. Files with no line form (subnet-manager files, SNMP traps) compare as
//! sets of text lines.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{ChangeError, Files};
use crate::meaning::canonical;
use crate::meaning::disruptive::{self, Fact, LineForm};
use crate::meaning::netconf::canon::canonical_lines;
use crate::meaning::netconf::payload::ConfigPayload;
use crate::meaning::tree;
use crate::meaning::{eos, frr, netconf, nvue, sonic};

/// How one rendered file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Frr,
    Eos,
    Nvue,
    ConfigDb,
    OpenConfig,
    /// Text lines as a set, with no facts.
    Lines,
}

impl Form {
    /// The form of a file by its name; `None` for a twin of another file.
    fn of(file: &str) -> Option<Form> {
        Some(match file {
            "frr.conf" => Form::Frr,
            "startup-config" => Form::Eos,
            "startup.yaml" => Form::Nvue,
            "config_db.json" => Form::ConfigDb,
            "openconfig.xml" => Form::OpenConfig,
            "nv-set.sh" => return None,
            _ => Form::Lines,
        })
    }

    fn facts(self) -> Option<&'static dyn LineForm> {
        match self {
            Form::Frr => Some(&frr::facts::FRR_LINES),
            Form::Eos => Some(&eos::facts::EOS_LINES),
            Form::Nvue => Some(&nvue::facts::NvueLines),
            Form::ConfigDb => Some(&sonic::facts::ConfigDbLines),
            Form::OpenConfig => Some(&netconf::facts::OpenConfigLines),
            Form::Lines => None,
        }
    }

    fn lines(self, bytes: &[u8]) -> Result<BTreeSet<String>, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
        match self {
            Form::Frr => Ok(frr::canon::lines(text)),
            Form::Eos => Ok(eos::canon::eos_canonical(text)),
            Form::Nvue => nvue::canon::nvue_lines(text).ok_or_else(|| "not YAML".to_string()),
            Form::ConfigDb => serde_json::from_str::<serde_json::Value>(text)
                .map(|v| tree::lines(&v))
                .map_err(|e| format!("not JSON: {e}")),
            Form::OpenConfig => ConfigPayload::from_xml(bytes)
                .map(|p| canonical_lines(p.tree()).into_iter().collect())
                .map_err(|e| format!("not a NETCONF <config>: {e}")),
            Form::Lines => Ok(text
                .lines()
                .map(str::trim_end)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceStatus {
    Added,
    Removed,
    #[default]
    Changed,
}

/// One device's change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceChange {
    pub device: String,
    pub status: DeviceStatus,
    /// Per file, what changes by meaning (an added or removed device: its files' line counts).
    pub files: Vec<FileChange>,
}

impl DeviceChange {
    /// Whether the change disturbs the running device: it goes, one of its files goes, or push's
    /// engine finds a disruptive fact (ASN/router-id, sessions, addresses, MTU, breakout). A
    /// line removed without one (a prefix-list entry narrowed when a tenant takes ports) is a
    /// change push applies without `--allow-disruptive`, and so is not.
    pub fn disturbs(&self) -> bool {
        self.status == DeviceStatus::Removed
            || self
                .files
                .iter()
                .any(|f| f.status == DeviceStatus::Removed || !f.disruptive.is_empty())
    }
}

/// One file's change by meaning.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FileChange {
    pub file: String,
    /// Whether the file appears, goes, or changes.
    pub status: DeviceStatus,
    /// Canonical lines only the old file has (empty for a device added or removed).
    pub removed: Vec<String>,
    /// Canonical lines only the new file has (empty for a device added or removed).
    pub added: Vec<String>,
    /// The file's text line count on the side it exists, when it appears or goes whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<usize>,
    /// BGP sessions the added lines define, as push names them.
    pub sessions_added: Vec<String>,
    /// BGP sessions the removed lines defined.
    pub sessions_removed: Vec<String>,
    /// push's disruptive findings.
    pub disruptive: Vec<String>,
}

/// `configs/<device>/<file>` → (device, file).
fn device_files(files: &Files) -> BTreeMap<&str, BTreeMap<&str, &[u8]>> {
    let mut out: BTreeMap<&str, BTreeMap<&str, &[u8]>> = BTreeMap::new();
    for (path, bytes) in files {
        if let Some((dev, file)) = path
            .strip_prefix("configs/")
            .and_then(|rest| rest.split_once('/'))
            .filter(|(_, f)| !f.contains('/'))
        {
            out.entry(dev).or_default().insert(file, bytes);
        }
    }
    out
}

/// The files of one device that are compared, with their forms.
fn compared<'a>(files: &BTreeMap<&'a str, &'a [u8]>) -> Vec<(&'a str, Form)> {
    let native = files.keys().any(|f| {
        matches!(
            Form::of(f),
            Some(Form::Frr | Form::Eos | Form::Nvue | Form::ConfigDb)
        )
    });
    files
        .keys()
        .filter_map(|f| Form::of(f).map(|form| (*f, form)))
        .filter(|(_, form)| !(native && *form == Form::OpenConfig))
        .collect()
}

/// Every device whose configuration changes, appears or goes.
pub fn compare(old: &Files, new: &Files) -> Result<Vec<DeviceChange>, Vec<ChangeError>> {
    compare_designs(old, new, false)
}

/// [`compare`]; `nothing`: one side is no design at all (a spec added or deleted), so every
/// switch of the other side is new or gone.
pub fn compare_designs(
    old: &Files,
    new: &Files,
    nothing: bool,
) -> Result<Vec<DeviceChange>, Vec<ChangeError>> {
    let (old, new) = (device_files(old), device_files(new));
    if old.is_empty() != new.is_empty() && !nothing {
        // A build without its configs (`build --only`) is not a design without switches.
        let side = if old.is_empty() { "new" } else { "old" };
        return Err(vec![ChangeError::new(
            "configs/",
            format!("only the {side} design has switch configs (was one built with --only?)"),
        )]);
    }
    let names: BTreeSet<&str> = old.keys().chain(new.keys()).copied().collect();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let empty = BTreeMap::new();
    for dev in names {
        let (o, n) = (
            old.get(dev).unwrap_or(&empty),
            new.get(dev).unwrap_or(&empty),
        );
        match device(dev, o, n) {
            Ok(Some(c)) => out.push(c),
            Ok(None) => {}
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn device(
    dev: &str,
    old: &BTreeMap<&str, &[u8]>,
    new: &BTreeMap<&str, &[u8]>,
) -> Result<Option<DeviceChange>, Vec<ChangeError>> {
    let status = match (old.is_empty(), new.is_empty()) {
        (true, _) => DeviceStatus::Added,
        (_, true) => DeviceStatus::Removed,
        _ => DeviceStatus::Changed,
    };
    let names: BTreeMap<&str, Form> = compared(old).into_iter().chain(compared(new)).collect();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for (file, form) in names {
        match (old.get(file).copied(), new.get(file).copied()) {
            // The same bytes state the same: not read (most files of a growth).
            (Some(o), Some(n)) if o == n => {}
            (Some(o), Some(n)) => {
                let path = format!("configs/{dev}/{file}");
                let read = |b: &[u8]| form.lines(b).map_err(|e| ChangeError::new(&path, e));
                match (read(o), read(n)) {
                    (Ok(o), Ok(n)) => files.extend(file_change(file, form, o, n)),
                    (o, n) => errors.extend(o.err().into_iter().chain(n.err())),
                }
            }
            // A whole file appears or goes: its size in text lines, not read by meaning.
            (Some(bytes), None) | (None, Some(bytes)) => files.push(FileChange {
                file: file.to_string(),
                status: if new.contains_key(file) {
                    DeviceStatus::Added
                } else {
                    DeviceStatus::Removed
                },
                lines: Some(
                    bytes
                        .split(|&b| b == b'\n')
                        .filter(|l| !l.is_empty())
                        .count(),
                ),
                ..FileChange::default()
            }),
            (None, None) => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok((!files.is_empty()).then(|| DeviceChange {
        device: dev.to_string(),
        status,
        files,
    }))
}

/// One file's change; `None` when it states the same on both sides.
fn file_change(
    file: &str,
    form: Form,
    old: BTreeSet<String>,
    new: BTreeSet<String>,
) -> Option<FileChange> {
    let (removed, added) = canonical::diff(&old, &new);
    if removed.is_empty() && added.is_empty() {
        return None;
    }
    let mut change = FileChange {
        file: file.to_string(),
        ..FileChange::default()
    };
    if let Some(facts) = form.facts() {
        let before: Vec<String> = old.into_iter().collect();
        change.disruptive = disruptive::findings(facts, &before, &removed, &added);
        change.sessions_added = sessions(facts, &added);
        change.sessions_removed = sessions(facts, &removed);
    }
    change.removed = removed;
    change.added = added;
    Some(change)
}

/// The BGP sessions some lines define, named as push's findings name them.
fn sessions(form: &dyn LineForm, lines: &[String]) -> Vec<String> {
    let set: BTreeSet<String> = form
        .facts(lines)
        .into_iter()
        .filter_map(|f| match f {
            Fact::Session { peer, .. } => Some(peer.to_string()),
            _ => None,
        })
        .collect();
    set.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::tests::files;

    #[test]
    fn an_added_frr_neighbor_is_a_new_session_and_nothing_disruptive() {
        let old = files(&[(
            "configs/s1/frr.conf",
            "router bgp 65001\n neighbor swp1 interface remote-as external\n",
        )]);
        let new = files(&[(
            "configs/s1/frr.conf",
            "router bgp 65001\n neighbor swp1 interface remote-as external\n neighbor swp2 interface remote-as external\n",
        )]);
        let c = compare(&old, &new).unwrap();
        assert_eq!(c.len(), 1);
        let f = &c[0].files[0];
        assert!(f.removed.is_empty() && f.disruptive.is_empty(), "{f:?}");
        assert_eq!(f.sessions_added.len(), 1, "{f:?}");
        assert!(f.sessions_added[0].contains("swp2"), "{f:?}");
        assert!(!c[0].disturbs());
    }

    #[test]
    fn an_asn_change_is_disruptive_and_twins_are_not_compared_twice() {
        let old = files(&[
            ("configs/s1/frr.conf", "router bgp 65001\n"),
            ("configs/s1/openconfig.xml", "<config/>"),
        ]);
        let new = files(&[
            ("configs/s1/frr.conf", "router bgp 65002\n"),
            ("configs/s1/openconfig.xml", "<not xml"),
        ]);
        let c = compare(&old, &new).unwrap();
        assert_eq!(c[0].files.len(), 1);
        assert!(!c[0].files[0].disruptive.is_empty());
        assert!(c[0].disturbs());
    }
}
