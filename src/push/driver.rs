//! The small trait every platform driver implements, so the transaction engine is written once.
//!
//! Life of one device: `preflight` (connect, host key, capabilities, lock, fetch running, stage,
//! diff) → either `abort` (dry run, unchanged, or another device failed) or `commit_confirmed`
//! (the device reverts by itself unless confirmed) → `verify` (read back over a fresh session)
//! → `confirm`, or `cancel` + `check_reverted`.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use crate::output::digest::sha256_hex;

use super::netconf::client::{NetconfError, RpcError};
use super::ssh::SshError;
use crate::meaning::canonical;
use crate::meaning::disruptive::{self, LineForm};

/// What kind of failure, for exit codes and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailKind {
    /// TCP/SSH connect or transport loss.
    Connect,
    /// Host key unknown or mismatched: nothing was sent.
    HostKey,
    Auth,
    /// The device lacks a required capability.
    Capability,
    /// Someone else holds the configuration lock.
    Locked,
    /// The device refused the configuration (rpc-error, vtysh/frr-reload error).
    Rejected,
    /// A step timed out or the session broke; the device state is not known from here.
    Transport,
    /// Read-back differs from the intended configuration.
    Verify,
    /// The change is disruptive and `--allow-disruptive` was not given: nothing was committed.
    Disruptive,
}

/// A driver failure: a kind, a human message and, for NETCONF, the parsed errors.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DriverError {
    pub kind: FailKind,
    pub message: String,
    pub rpc_errors: Vec<RpcError>,
}

impl DriverError {
    pub fn new(kind: FailKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            rpc_errors: Vec::new(),
        }
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for DriverError {}

impl From<SshError> for DriverError {
    fn from(e: SshError) -> Self {
        let kind = match &e {
            SshError::HostKeyMismatch { .. }
            | SshError::HostKeyUnknown { .. }
            | SshError::HostKeyCheck(_) => FailKind::HostKey,
            SshError::Auth { .. } => FailKind::Auth,
            SshError::Connect(_)
            | SshError::Deadline {
                before_auth: true, ..
            } => FailKind::Connect,
            SshError::Channel(_)
            | SshError::Io(_)
            | SshError::Deadline { .. }
            | SshError::OutputTooLarge { .. } => FailKind::Transport,
        };
        DriverError::new(kind, e.to_string())
    }
}

impl From<NetconfError> for DriverError {
    fn from(e: NetconfError) -> Self {
        let kind = match &e {
            NetconfError::Rpc { errors, .. }
                if errors
                    .iter()
                    .any(|x| x.tag == "lock-denied" || x.tag == "in-use") =>
            {
                FailKind::Locked
            }
            NetconfError::Rpc { .. } => FailKind::Rejected,
            NetconfError::MissingCapability(_) => FailKind::Capability,
            _ => FailKind::Transport,
        };
        DriverError {
            kind,
            message: e.to_string(),
            rpc_errors: e.rpc_errors().to_vec(),
        }
    }
}

/// The files pushed to one device: the target's main file first (`openconfig.xml`, `frr.conf`,
/// `config_db.json`, …), then companions pushed in the same transaction (SONiC: `frr.conf`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigSet {
    pub files: Vec<(String, Vec<u8>)>,
}

impl ConfigSet {
    pub fn single(name: &str, bytes: Vec<u8>) -> Self {
        Self {
            files: vec![(name.to_string(), bytes)],
        }
    }

    /// The main file's bytes (empty for an empty set).
    pub fn main(&self) -> &[u8] {
        self.files.first().map(|(_, b)| b.as_slice()).unwrap_or(&[])
    }

    pub(crate) fn main_name(&self) -> &str {
        self.files.first().map(|(n, _)| n.as_str()).unwrap_or("")
    }

    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }

    /// One hash over every file (name and content), for the journal.
    pub fn sha256(&self) -> String {
        if let [(_, only)] = self.files.as_slice() {
            return sha256_hex(only);
        }
        let lines: Vec<String> = self
            .files
            .iter()
            .map(|(n, b)| format!("{n} {}", sha256_hex(b)))
            .collect();
        sha256_hex(lines.join("\n").as_bytes())
    }
}

/// What preflight learned.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Preflight {
    /// The device's own view of the change (NETCONF: candidate vs running; FRR: frr-reload's
    /// "lines to delete / add").
    pub native_diff: String,
    /// Order-insensitive diff of intended vs running (`- old` / `+ new` lines).
    pub canonical_diff: String,
    /// Whether anything would change; an unchanged device is never committed.
    pub changed: bool,
    /// sha256 of the canonical running config before the change.
    pub pre_hash: String,
    /// sha256 of the canonical intended config.
    pub intended_hash: String,
    /// Disruptive changes found in the canonical diff (`disruptive::findings`): refused without
    /// `--allow-disruptive`.
    pub disruptive: Vec<String>,
    /// The pre-change config in a form the same driver accepts as an intended config (NETCONF:
    /// the managed running subtrees as `<config>`; FRR: `show running-config`). Saved next to
    /// the journal (mode 0600) so `--rollback` can push it back; never serialized in reports.
    #[serde(skip)]
    pub pre_config: Option<ConfigSet>,
}

impl Preflight {
    /// What comparing the device's canonical lines `pre` with the intended `want` learned, the
    /// disruptive changes read in the OS's line form; no pre-change copy for `--rollback`.
    pub fn compared(
        form: &dyn LineForm,
        pre: &BTreeSet<String>,
        want: &BTreeSet<String>,
        native_diff: String,
        intended_hash: String,
    ) -> Preflight {
        let (removed, added) = canonical::diff(pre, want);
        let before: Vec<String> = pre.iter().cloned().collect();
        Preflight {
            native_diff,
            canonical_diff: canonical::diff_text(&removed, &added),
            changed: !removed.is_empty() || !added.is_empty(),
            pre_hash: canonical::digest(pre),
            intended_hash,
            disruptive: disruptive::findings(form, &before, &removed, &added),
            pre_config: None,
        }
    }
}

/// A read-back: `Ok` when the device's canonical lines `now` are the intended `want`, else a
/// verify failure saying `what` differs, then how (`-` what only the device has, `+` the reverse).
pub(super) fn read_back(
    now: &BTreeSet<String>,
    want: &BTreeSet<String>,
    what: &str,
) -> Result<(), DriverError> {
    let (removed, added) = canonical::diff(now, want);
    if removed.is_empty() && added.is_empty() {
        return Ok(());
    }
    Err(DriverError::new(
        FailKind::Verify,
        format!(
            "{what}:\n{}",
            canonical::diff_text(&removed, &added).trim_end()
        ),
    ))
}

/// What an audit read: the device's running configuration and the build's intended one, both as
/// the driver's canonical lines, and remarks on how they were compared (a weaker comparison
/// that can show false drift says so here).
#[derive(Clone, Debug, Default)]
pub struct AuditLines {
    pub device: BTreeSet<String>,
    pub build: BTreeSet<String>,
    pub notes: Vec<String>,
}

/// A device driver. Implementations keep their session between calls; every call has bounded
/// time (drivers set timeouts on every network operation).
pub trait Driver: Send {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError>;
    /// Undo staging, release locks and remove railyard's files from the device (dry run,
    /// unchanged, another device failed, or a finished transaction's cleanup).
    fn abort(&mut self) -> Result<(), DriverError>;
    /// Apply with a device-side revert after `timeout`; returns the native revision/timer id.
    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError>;
    /// Read back over a fresh session: `Ok(())` when running equals intended.
    fn verify(&mut self) -> Result<(), DriverError>;
    /// Make the change permanent (disarm the revert).
    fn confirm(&mut self) -> Result<(), DriverError>;
    /// Revert the pending change now.
    fn cancel(&mut self) -> Result<(), DriverError>;
    /// Read back over a fresh session: `Ok(true)` when running equals the pre-change config.
    fn check_reverted(&mut self) -> Result<bool, DriverError>;
    /// Remarks from the last steps that are not failures but worth a human's eye (frr-reload.py
    /// complaining about a line while the read-back by meaning is fine). Drained by the caller.
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// Take over a pending confirmed commit of an earlier process (`--resume`): remember the
    /// intended config and the pre-change hash without changing the device, so `verify`,
    /// `confirm`, `cancel` and `check_reverted` work from fresh sessions.
    fn adopt(&mut self, intended: &ConfigSet, pre_hash: &str) -> Result<(), DriverError> {
        let _ = (intended, pre_hash);
        Err(DriverError::new(
            FailKind::Capability,
            "this driver cannot resume a pending commit; it reverts by itself at its timer",
        ))
    }
    /// Read-only (`railyard audit`): the running configuration and `intended` (the build's files,
    /// placeholders filled), each as canonical lines in this driver's form. Never stages, locks,
    /// edits a candidate, creates a file on the device or commits.
    fn running(&mut self, intended: &ConfigSet) -> Result<AuditLines, DriverError> {
        let _ = intended;
        Err(DriverError::new(
            FailKind::Capability,
            "this driver cannot audit",
        ))
    }
}
