//! `railyard push`: deliver rendered configuration files to switches safely.
//!
//! Input: the rendered files (`configs/<device>/…`, from `Compiled::outputs` or an output
//! directory) and a targets file (device → address, port, user, driver, known_hosts). Push never
//! reads intent or the topology graph (DESIGN.md): it moves files.
//!
//! Invariant: every device ends at its old or its new configuration. Preflight runs on every
//! target before anything is committed; commits are confirmed commits (native, or a device-side
//! revert timer) that are confirmed only after every device verified by reading back.

pub mod canonical;
pub mod disruptive;
pub mod driver;
pub mod drivers;
pub mod hooks;
pub mod inputs;
pub mod journal;
pub mod netconf;
pub mod recover;
pub mod remote;
pub mod revert_timer;
pub mod secrets;
pub mod ssh;
pub mod targets;
pub mod tree;
pub mod txn;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::model::Platform;
use driver::{ConfigSet, Driver};
use netconf::client::ClientOptions;
use secrets::{SecretError, Secrets};
use ssh::ConnectOptions;
use targets::{DriverKind, Target};
use txn::{DevicePlan, TxnOptions};

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
    } else {
        Err(format!(
            "no rendered file {} (is the device's platform rendered to that file?)",
            missing.join(", ")
        ))
    }
}

/// The label of a device's file in messages: its path under the output directory.
pub fn file_label(device: &str, file: &str) -> String {
    format!("configs/{device}/{file}")
}

/// Which environment variables the plans' files need: name → files.
pub fn needed_secrets(
    plans: &[DevicePlan],
) -> BTreeMap<String, std::collections::BTreeSet<String>> {
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

/// Fill every placeholder of every plan from `lookup` (the environment). Refuses — before
/// anything is sent anywhere — when a variable is unset or a value cannot go into a file.
pub fn fill_secrets(
    plans: &mut [DevicePlan],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Secrets, SecretError> {
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
