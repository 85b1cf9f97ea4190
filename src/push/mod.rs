//! `railyard push`: deliver rendered configuration files to switches safely.
//!
//! Input: the rendered files (`configs/<device>/…`, from `Compiled::outputs` or an output
//! directory) and a targets file (device → address, port, user, driver, known_hosts). Push never
//! reads intent or the topology graph (DESIGN.md): it moves files.
//!
//! Invariant: every device ends at its old or its new configuration. Preflight runs on every
//! target before anything is committed; commits are confirmed commits (native, or a device-side
//! revert timer) that are confirmed only after every device verified by reading back.
//!
//! This file is push's façade: the command line (`push`, `audit`), the integration tests and the
//! fuzz targets use what it exports, and nothing else of push is public. `netconf` stays a public
//! module: railyard's NETCONF client and codec, tested against a real server and fuzzed on
//! their own. What a config means (canonical lines, facts, disruptive changes) is
//! `crate::meaning`'s, and a build directory is read through `crate::output::build_dir`.

// Keeps the façade honest: an item marked `pub` that nothing outside push can name is a warning.
#![warn(unreachable_pub)]

mod deadline;
mod driver;
mod drivers;
mod hooks;
mod inputs;
mod journal;
pub mod netconf;
mod operator;
mod recover;
mod remote;
mod revert_timer;
mod secrets;
mod ssh;
mod targets;
mod txn;

pub use driver::{AuditLines, ConfigSet, Driver, DriverError, FailKind, Preflight};
pub use drivers::commands::CliSettings;
pub use drivers::frr::FrrDriver;
pub use drivers::netconf::NetconfDriver;
pub use drivers::sonic::SonicDriver;
pub use inputs::{check_manifest, read_output_dir};
pub use journal::{Journal, default_dir as journal_dir, new_txid};
pub use operator::Operator;
pub use recover::{
    JournalView, load_intended, read as read_journal, record_declaration, resume, rollback_plans,
    was_failing,
};
pub use remote::Remote;
pub use secrets::{SecretError, Secrets, names as secret_names};
pub use ssh::{Auth, ConnectOptions, Endpoint, SshError, SshTransport, connect as connect_ssh};
pub use targets::{DriverKind, FrrSpec, Target, TargetsError, parse as parse_targets};
pub use txn::{DevicePlan, DeviceState, Outcome, TxnOptions, run};

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::model::Platform;
use crate::output::{self, secrets::Declaration};
use netconf::client::ClientOptions;

/// Everything a push needs besides the files.
#[derive(Clone, Debug)]
pub struct PushSettings {
    pub txn: TxnOptions,
    pub connect: ConnectOptions,
    pub client: ClientOptions,
}

impl Default for PushSettings {
    fn default() -> Self {
        Self {
            txn: TxnOptions {
                dry_run: false,
                waves: Vec::new(),
                parallel: 16,
                confirm_timeout: Duration::from_secs(300),
                allow_disruptive: false,
            },
            connect: ConnectOptions::default(),
            client: ClientOptions::default(),
        }
    }
}

/// Pair each target with its rendered files (`configs/<device>/<file>` in `files`, keyed by
/// path relative to the output directory): the main file and the driver's companions. Every
/// target must have all of them.
pub fn plan(
    targets: &[Target],
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<DevicePlan>, String> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for t in targets {
        let mut set = ConfigSet::default();
        for name in t.files() {
            let path = format!("configs/{}/{name}", t.name);
            match files.get(&path) {
                Some(bytes) => set.files.push((name, bytes.clone())),
                None => missing.push(path),
            }
        }
        out.push(DevicePlan::new(
            &t.name,
            t.role.as_deref(),
            t.driver.as_str(),
            set,
        ));
    }
    if missing.is_empty() {
        Ok(out)
    } else if missing.iter().any(|p| p.ends_with("/openconfig.xml")) {
        // The netconf driver's payload is rendered only where the spec declares it.
        Err(format!(
            "no rendered file {}: openconfig.xml is built only for the switches whose OS the \
             spec lists under `push.netconf` (e.g. `push: {{netconf: [eos]}}`); add the \
             device's OS there and build again, or push it with its OS's own driver",
            missing.join(", ")
        ))
    } else {
        Err(format!(
            "no rendered file {} (is the device's platform rendered to that file?)",
            missing.join(", ")
        ))
    }
}

/// The label of a device's file in messages: its path under the output directory.
pub(crate) fn file_label(device: &str, file: &str) -> String {
    format!("configs/{device}/{file}")
}

/// The files of a build that a push or an audit of `targets` reads, as its manifest names them:
/// every target's files, and the secrets declaration when the build has one (it says which
/// placeholders may be filled).
pub fn manifest_paths(targets: &[Target], files: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let declaration = Some(output::secrets::PATH.to_string()).filter(|p| files.contains_key(p));
    targets
        .iter()
        .flat_map(|t| t.files().into_iter().map(|f| file_label(&t.name, &f)))
        .chain(declaration)
        .collect()
}

/// Which environment variables the plans' files need: name → files.
pub fn needed_secrets(plans: &[DevicePlan]) -> BTreeMap<String, BTreeSet<String>> {
    let labelled: Vec<(String, &[u8])> = plans
        .iter()
        .flat_map(|p| {
            p.rendered
                .files
                .iter()
                .map(move |(n, b)| (file_label(&p.name, n), b.as_slice()))
        })
        .collect();
    secrets::needed(labelled.iter().map(|(l, b)| (l.as_str(), *b)))
}

/// The placeholders of the plans' files that `declared` does not declare for their device:
/// name → files.
pub fn undeclared_secrets(
    plans: &[DevicePlan],
    declared: &Declaration,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in plans {
        for (file, bytes) in &p.rendered.files {
            for name in secrets::names(bytes) {
                if !declared.allows(&name, &p.name) {
                    out.entry(name)
                        .or_default()
                        .insert(file_label(&p.name, file));
                }
            }
        }
    }
    out
}

/// The build's declaration of its secrets among `files` (keyed by path in the output
/// directory); none declared when the build wrote none.
pub fn declaration_of(files: &BTreeMap<String, Vec<u8>>) -> Result<Declaration, String> {
    match files.get(output::secrets::PATH) {
        Some(bytes) => {
            Declaration::parse(bytes).map_err(|e| format!("{}: {e}", output::secrets::PATH))
        }
        None => Ok(Declaration::default()),
    }
}

/// Fill every placeholder of every plan from `lookup` (the environment). Refuses — before
/// anything is read from the environment or sent anywhere — a placeholder `declared` does not
/// declare for its device, and then an unset variable or a value that cannot go into a file.
pub fn fill_secrets(
    plans: &mut [DevicePlan],
    declared: &Declaration,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Secrets, SecretError> {
    let undeclared = undeclared_secrets(plans, declared);
    if !undeclared.is_empty() {
        return Err(SecretError::Undeclared(undeclared));
    }
    let secrets = Secrets::resolve(&needed_secrets(plans), lookup)?;
    for p in plans.iter_mut() {
        let mut filled = ConfigSet::default();
        for (name, bytes) in &p.rendered.files {
            let label = file_label(&p.name, name);
            filled
                .files
                .push((name.clone(), secrets.fill(&label, bytes)?));
        }
        p.intended = filled;
    }
    Ok(secrets)
}

/// The driver for one target within transaction `txid`: the generic NETCONF driver, or the
/// target's platform's own (`drivers/<os>/`).
pub fn make_driver(t: &Target, txid: &str, s: &PushSettings) -> Box<dyn Driver> {
    let tag = format!("{txid}-{}", t.name);
    match t.driver {
        DriverKind::Netconf => drivers::netconf::for_target(t, tag, s),
        DriverKind::Native(platform) => match platform {
            Platform::Nvue => drivers::nvue::for_target(t, tag, s),
            Platform::Sonic => drivers::sonic::for_target(t, tag, s),
            Platform::Frr => drivers::frr::for_target(t, tag, s),
            Platform::Eos => drivers::eos::for_target(t, tag, s),
        },
    }
}
