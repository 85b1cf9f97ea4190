//! Fan-out with injected failures against 20 real netconfd targets (each behind its own sshd on
//! 127.0.0.1): the transaction engine with the real `netconf` driver, two devices sabotaged in
//! the leaf wave. Every device must end at its old or new config — asserted by reading each one
//! back — with exit code 1 or 2 as specified, and a complete journal. Needs root.

use crate::push_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use push_support::{Fabric, NetconfLab, connect_opts, oc_interfaces, require_root};
use railyard::meaning::netconf::canon;
use railyard::meaning::netconf::payload::ConfigPayload;
use railyard::push::netconf::client::{Client, ClientOptions, Datastore};
use railyard::push::{
    Auth, ConfigSet, DevicePlan, DeviceState, Driver, DriverError, FailKind, Journal,
    NetconfDriver, Preflight, SshTransport, TxnOptions, connect_ssh,
};

const OLD: &[(&str, u32, &str)] = &[("eth1", 1500, "old")];

fn new_config(dev: &str) -> String {
    oc_interfaces(&[("eth1", 9000, dev), ("eth3", 9000, "new")])
}

/// Run once, from inside the faulty step.
type KillSwitch = Arc<Mutex<Option<Box<dyn FnOnce() + Send>>>>;

#[derive(Clone)]
enum Fault {
    None,
    /// The commit reaches the device, then the connection is cut before the reply is used.
    CutMidCommit,
    /// The device refuses the commit.
    CommitError,
    /// Verification fails and the device becomes unreachable (its sshd is stopped).
    VerifyFailsThenUnreachable(KillSwitch),
}

struct Faulty {
    inner: NetconfDriver,
    fault: Fault,
}

impl Driver for Faulty {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        self.inner.preflight(intended)
    }
    fn abort(&mut self) -> Result<(), DriverError> {
        self.inner.abort()
    }
    fn commit_confirmed(&mut self, t: Duration) -> Result<String, DriverError> {
        match self.fault {
            Fault::CutMidCommit => {
                self.inner.commit_confirmed(t)?;
                self.inner.drop_session();
                Err(DriverError::new(
                    FailKind::Transport,
                    "injected: connection cut mid-commit",
                ))
            }
            Fault::CommitError => Err(DriverError::new(
                FailKind::Rejected,
                "injected: commit refused",
            )),
            _ => self.inner.commit_confirmed(t),
        }
    }
    fn verify(&mut self) -> Result<(), DriverError> {
        if let Fault::VerifyFailsThenUnreachable(kill) = &self.fault {
            if let Some(k) = kill.lock().ok().and_then(|mut k| k.take()) {
                self.inner.drop_session();
                k();
            }
            return Err(DriverError::new(
                FailKind::Verify,
                "injected: verify failed",
            ));
        }
        self.inner.verify()
    }
    fn confirm(&mut self) -> Result<(), DriverError> {
        self.inner.confirm()
    }
    fn cancel(&mut self) -> Result<(), DriverError> {
        self.inner.cancel()
    }
    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        self.inner.check_reverted()
    }
}

fn driver_for(lab: &NetconfLab, txid: &str, name: &str, fault: Fault) -> Box<dyn Driver> {
    let auth = Auth {
        key_file: Some(lab.client_key.clone()),
        ..Auth::default()
    };
    Box::new(Faulty {
        inner: NetconfDriver::new(
            lab.endpoint(),
            auth,
            connect_opts(),
            ClientOptions {
                rpc_timeout: Duration::from_secs(20),
                commit_timeout: Duration::from_secs(30),
                ..ClientOptions::default()
            },
            format!("{txid}-{name}"),
            false,
        ),
        fault,
    })
}

fn running_is(lab: &NetconfLab, payload: &str) -> bool {
    let sess = connect_ssh(&lab.endpoint(), &lab.auth(), &connect_opts()).expect("connect");
    let t = SshTransport::netconf(sess, Duration::from_secs(20)).expect("subsystem");
    let mut c = Client::handshake(t, ClientOptions::default()).expect("hello");
    let data = c.get_config(Datastore::Running, None).expect("get-config");
    let p = ConfigPayload::from_xml(payload.as_bytes()).expect("payload");
    canon::diff(&data, p.tree()).is_empty()
}

fn plans(fabric: &Fabric) -> Vec<DevicePlan> {
    fabric
        .labs
        .iter()
        .map(|(n, r, _)| {
            DevicePlan::new(
                n,
                Some(r),
                "netconf",
                ConfigSet::single("openconfig.xml", new_config(n).into_bytes()),
            )
        })
        .collect()
}

#[test]
fn twenty_targets_two_injected_failures_all_back_at_old_config() {
    if !require_root("twenty_targets_two_injected_failures_all_back_at_old_config") {
        return;
    }
    let names: Vec<(String, &str)> = (1..=2)
        .map(|i| (format!("spine{i:02}"), "spine"))
        .chain((1..=18).map(|i| (format!("leaf{i:02}"), "leaf")))
        .collect();
    let devices: Vec<(&str, &str)> = names.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let t = Instant::now();
    let fabric = Fabric::start(&devices, &oc_interfaces(OLD), "");
    eprintln!("20 netconfd+sshd pairs up in {:?}", t.elapsed());
    let jdir = tempfile::tempdir().expect("tempdir");
    let txid = "ry-fanout";
    let journal = Journal::create(jdir.path(), txid).expect("journal");
    let drivers: Vec<Box<dyn Driver>> = fabric
        .labs
        .iter()
        .map(|(n, _, lab)| {
            let fault = match n.as_str() {
                "leaf07" => Fault::CutMidCommit,
                "leaf13" => Fault::CommitError,
                _ => Fault::None,
            };
            driver_for(lab, txid, n, fault)
        })
        .collect();
    let opts = TxnOptions {
        dry_run: false,
        waves: vec!["spines".into(), "leaves".into()],
        parallel: 8,
        confirm_timeout: Duration::from_secs(120),
        // The new configs change eth1's MTU: this test is about failures, not that policy.
        allow_disruptive: true,
    };
    let t = Instant::now();
    let out = railyard::push::run(plans(&fabric), drivers, &opts, &journal, &|l| {
        eprintln!("{l}")
    });
    eprintln!("transaction: exit {} in {:?}", out.exit_code, t.elapsed());
    for d in &out.devices {
        eprintln!(
            "{:<8} {:?} {:?}",
            d.device,
            d.state,
            d.error.as_ref().map(|e| &e.message)
        );
    }
    assert_eq!(out.exit_code, 1, "every touched device should be back");
    let state = |n: &str| out.devices.iter().find(|d| d.device == n).map(|d| d.state);
    assert_eq!(state("leaf07"), Some(DeviceState::Reverted));
    assert_eq!(state("leaf13"), Some(DeviceState::Reverted));
    assert_eq!(state("spine01"), Some(DeviceState::Reverted));

    // Every device, read back: the old config (nobody was confirmed).
    let old = oc_interfaces(OLD);
    for (n, _, lab) in &fabric.labs {
        assert!(running_is(lab, &old), "{n} is not at its old config");
    }
    // The journal is complete: begin, a ready and a final state per device, end.
    let text = std::fs::read_to_string(journal.path()).expect("journal");
    assert!(
        text.lines()
            .next()
            .unwrap_or("")
            .contains("\"event\":\"begin\"")
    );
    assert!(
        text.lines()
            .last()
            .unwrap_or("")
            .contains("\"event\":\"end\"")
    );
    for (n, _, _) in &fabric.labs {
        let mine: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.contains(&format!("\"device\":\"{n}\"")) && l.contains("\"event\":\"state\"")
            })
            .collect();
        assert!(
            mine.first()
                .is_some_and(|l| l.contains("\"state\":\"ready\"")),
            "{n}: {mine:?}"
        );
        let last = mine.last().copied().unwrap_or("");
        assert!(
            last.contains("\"state\":\"reverted\"") || last.contains("\"state\":\"aborted\""),
            "{n} ends {last}"
        );
    }
    assert!(text.contains("injected: connection cut mid-commit"));
}

#[test]
fn unreachable_during_cancel_is_reported_mixed_and_the_device_reverts_by_itself() {
    if !require_root("unreachable_during_cancel_is_reported_mixed_and_the_device_reverts_by_itself")
    {
        return;
    }
    let fabric = Fabric::start(
        &[("spine01", "spine"), ("leaf01", "leaf")],
        &oc_interfaces(OLD),
        "",
    );
    let jdir = tempfile::tempdir().expect("tempdir");
    let txid = "ry-mixed";
    let journal = Journal::create(jdir.path(), txid).expect("journal");
    let spine_idx = fabric
        .labs
        .iter()
        .position(|(n, _, _)| n == "spine01")
        .expect("spine01");
    // Inside verify, spine01's sshd (and its sessions) are killed by process group: the device
    // is unreachable for the cancel that follows.
    let pgid = format!("-{}", fabric.labs[spine_idx].2.sshd.pid());
    let kill: Box<dyn FnOnce() + Send> = Box::new(move || {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", "--", &pgid])
            .status();
        std::thread::sleep(Duration::from_millis(300));
    });
    let drivers: Vec<Box<dyn Driver>> = fabric
        .labs
        .iter()
        .map(|(n, _, lab)| {
            let fault = if n == "spine01" {
                Fault::VerifyFailsThenUnreachable(Arc::new(Mutex::new(None)))
            } else {
                Fault::None
            };
            driver_for(lab, txid, n, fault)
        })
        .collect();
    let mut drivers = drivers;
    drivers[spine_idx] = driver_for(
        &fabric.labs[spine_idx].2,
        txid,
        "spine01",
        Fault::VerifyFailsThenUnreachable(Arc::new(Mutex::new(Some(kill)))),
    );
    let opts = TxnOptions {
        dry_run: false,
        waves: vec!["spines".into(), "leaves".into()],
        parallel: 4,
        confirm_timeout: Duration::from_secs(3),
        // The new configs change eth1's MTU: this test is about failures, not that policy.
        allow_disruptive: true,
    };
    let out = railyard::push::run(plans(&fabric), drivers, &opts, &journal, &|l| {
        eprintln!("{l}")
    });
    for d in &out.devices {
        eprintln!(
            "{:<8} {:?} {:?}",
            d.device,
            d.state,
            d.error.as_ref().map(|e| &e.message)
        );
    }
    assert_eq!(out.exit_code, 2);
    let state = |n: &str| out.devices.iter().find(|d| d.device == n).map(|d| d.state);
    assert_eq!(state("spine01"), Some(DeviceState::Unknown));
    // The leaf wave never started: untouched.
    assert_eq!(state("leaf01"), Some(DeviceState::Aborted));
    assert!(running_is(
        &fabric.labs[1 - spine_idx].2,
        &oc_interfaces(OLD)
    ));
    // The spine's own timer takes it back (persisted confirmed commit, 3 s): read it back over a
    // new sshd in front of the same netconfd once the window has passed (idle server).
    std::thread::sleep(Duration::from_millis(5000));
    let lab = &fabric.labs[spine_idx].2;
    let _sshd2 = push_support::restart_sshd(lab);
    assert!(
        running_is(lab, &oc_interfaces(OLD)),
        "spine01 did not revert by itself"
    );
}
