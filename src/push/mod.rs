//! `railyard push`: deliver rendered configuration files to switches safely.
//!
//! Input: the rendered files (`configs/<device>/…`, from `Compiled::outputs` or an output
//! directory) and a targets file (device → address, port, user, driver, known_hosts). Push never
//! reads intent or the topology graph (DESIGN.md): it moves files.
//!
//! Invariant: every device ends at its old or its new configuration. Preflight runs on every
//! target before anything is committed; commits are confirmed commits (native, or a device-side
//! revert timer) that are confirmed only after every device verified by reading back.

pub mod cli_drivers;
pub mod driver;
pub mod frr_driver;
pub mod journal;
pub mod netconf;
pub mod netconf_driver;
pub mod recover;
pub mod ssh;
pub mod targets;
pub mod txn;

use std::collections::BTreeMap;
use std::time::Duration;

use driver::Driver;
use netconf::client::ClientOptions;
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
            },
            connect: ConnectOptions::default(),
            client: ClientOptions::default(),
        }
    }
}

/// Pair each target with its rendered file (`configs/<device>/<file>` in `files`, keyed by
/// path relative to the output directory). Every target must have its file.
pub fn plan(
    targets: &[Target],
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<DevicePlan>, String> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for t in targets {
        let path = format!("configs/{}/{}", t.name, t.file);
        match files.get(&path) {
            Some(bytes) => out.push(DevicePlan {
                name: t.name.clone(),
                role: t.role.clone(),
                driver_name: t.driver.as_str().to_string(),
                intended: bytes.clone(),
            }),
            None => missing.push(path),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "no rendered file for: {} (is the device's platform rendered to that file?)",
            missing.join(", ")
        ))
    }
}

/// The driver for one target within transaction `txid`.
pub fn make_driver(t: &Target, txid: &str, s: &PushSettings) -> Box<dyn Driver> {
    match t.driver {
        DriverKind::Netconf => Box::new(netconf_driver::NetconfDriver::new(
            t.endpoint.clone(),
            t.auth.clone(),
            s.connect.clone(),
            s.client.clone(),
            format!("{txid}-{}", t.name),
            s.txn.dry_run,
        )),
        DriverKind::FrrSsh => Box::new(frr_driver::FrrDriver::new(
            t.endpoint.clone(),
            t.auth.clone(),
            s.connect.clone(),
            t.frr.clone(),
            format!("{txid}-{}", t.name),
            s.client.rpc_timeout,
        )),
        DriverKind::NvueSsh | DriverKind::EosSsh | DriverKind::SonicSsh => {
            let r = cli_drivers::Remote::new(
                t.endpoint.clone(),
                t.auth.clone(),
                s.connect.clone(),
                s.client.rpc_timeout,
            );
            let cs = cli_drivers::CliSettings {
                tool: t.tool.clone(),
                state_dir: t.state_dir.clone(),
                tag: format!("{txid}-{}", t.name),
            };
            match t.driver {
                DriverKind::NvueSsh => Box::new(cli_drivers::NvueDriver::new(r, cs)),
                DriverKind::EosSsh => Box::new(cli_drivers::EosDriver::new(r, cs)),
                _ => Box::new(cli_drivers::SonicDriver::new(r, cs)),
            }
        }
    }
}
