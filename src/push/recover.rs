//! `railyard push --resume ID` and `--rollback ID`: finish or undo an earlier transaction from
//! its journal.
//!
//! Resume takes over the devices whose last journalled state is committed-but-unconfirmed (the
//! controller died between commit and confirm): it re-verifies each by reading back over a fresh
//! session against the saved intended copy, then confirms (NETCONF: `<commit><persist-id>` from
//! a new session; FRR: disarm the revert timer). When the window had already closed the device
//! is read back and reported as rolled back. When the journal shows the transaction was failing
//! (a failed or unknown device, or a failed verify), pending devices are cancelled instead, as
//! the transaction itself would have done. Devices never committed are not touched.
//!
//! Rollback pushes the pre-change config saved (by hash, mode 0600) next to the journal back to
//! every device the journal says was confirmed, with the ordinary transaction (preflight, confirmed
//! commit, verify, confirm) under a new transaction id.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use super::driver::{Driver, DriverError, FailKind};
use super::journal::{self, Journal};
use super::targets::Target;
use super::txn::{DevicePlan, DeviceReport, DeviceState, Outcome, par_each};
use super::{PushSettings, make_driver};

/// What the journal says about one device.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    pub device: String,
    pub driver: String,
    pub wave: usize,
    /// The last journalled state (kebab-case `DeviceState`), `planned` when none.
    pub state: String,
    /// The error recorded with the last state, if any.
    pub error: Option<String>,
    pub pre_hash: Option<String>,
    pub pre_copy: Option<String>,
    pub new_copy: Option<String>,
    pub revision: Option<String>,
}

/// A parsed journal.
#[derive(Clone, Debug)]
pub struct JournalView {
    pub txid: String,
    pub path: PathBuf,
    pub devices: Vec<Recorded>,
    /// The exit code of the `end` event, when the transaction got that far.
    pub ended: Option<u64>,
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// Read the journal of transaction `txid` in `dir`.
pub fn read(dir: &Path, txid: &str) -> Result<JournalView, String> {
    let path = journal::path_of(dir, txid).map_err(|e| e.to_string())?;
    let lines = journal::read_lines(&path)
        .map_err(|e| format!("reading the journal `{}`: {e}", path.display()))?;
    let mut devices: Vec<Recorded> = Vec::new();
    let mut ended = None;
    for l in &lines {
        match l.get("event").and_then(Value::as_str) {
            Some("begin") => {
                for d in l["devices"].as_array().into_iter().flatten() {
                    if let Some(name) = d.as_str()
                        && !devices.iter().any(|x| x.device == name)
                    {
                        devices.push(Recorded {
                            device: name.to_string(),
                            state: "planned".into(),
                            ..Recorded::default()
                        });
                    }
                }
            }
            Some("state") => {
                let Some(name) = l.get("device").and_then(Value::as_str) else {
                    continue;
                };
                let i = match devices.iter().position(|x| x.device == name) {
                    Some(i) => i,
                    None => {
                        devices.push(Recorded {
                            device: name.to_string(),
                            ..Recorded::default()
                        });
                        devices.len() - 1
                    }
                };
                let r = &mut devices[i];
                if let Some(s) = str_of(l, "state") {
                    r.state = s;
                }
                r.error = str_of(l, "error");
                if let Some(d) = str_of(l, "driver") {
                    r.driver = d;
                }
                if let Some(w) = l.get("wave").and_then(Value::as_u64) {
                    r.wave = w as usize;
                }
                for (k, slot) in [
                    ("pre_hash", &mut r.pre_hash),
                    ("pre_copy", &mut r.pre_copy),
                    ("new_copy", &mut r.new_copy),
                    ("revision", &mut r.revision),
                ] {
                    if let Some(v) = str_of(l, k) {
                        *slot = Some(v);
                    }
                }
            }
            Some("end") => ended = l.get("exit_code").and_then(Value::as_u64),
            _ => {}
        }
    }
    if devices.is_empty() {
        return Err(format!("`{}` records no devices", path.display()));
    }
    Ok(JournalView {
        txid: txid.to_string(),
        path,
        devices,
        ended,
    })
}

fn state_from(s: &str) -> DeviceState {
    match s {
        "ready" => DeviceState::Ready,
        "unchanged" => DeviceState::Unchanged,
        "aborted" => DeviceState::Aborted,
        "committed" => DeviceState::Committed,
        "verified" => DeviceState::Verified,
        "confirmed" => DeviceState::Confirmed,
        "reverted" => DeviceState::Reverted,
        "failed" => DeviceState::Failed,
        "unknown" => DeviceState::Unknown,
        _ => DeviceState::Planned,
    }
}

/// Whether the journal shows the transaction was on its failure path (it would have cancelled).
pub fn was_failing(view: &JournalView) -> bool {
    view.devices.iter().any(|d| {
        matches!(d.state.as_str(), "failed" | "unknown" | "reverted")
            || (d.state == "committed" && d.error.is_some())
    })
}

struct Job<'a> {
    rec: &'a Recorded,
    target: Option<&'a Target>,
    driver: Option<Box<dyn Driver>>,
    report: DeviceReport,
    note: String,
}

fn record(
    j: &mut Job<'_>,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
    state: DeviceState,
    note: &str,
) {
    j.report.state = state;
    j.note = note.to_string();
    let mut fields = json!({
        "state": state, "driver": j.report.driver, "wave": j.report.wave, "by": "resume",
        "note": note,
    });
    if let Some(e) = &j.report.error {
        fields["error"] = json!(e.message);
    }
    journal.record(Some(&j.rec.device), "state", fields);
    progress(&format!("  {:<20} {state:?}: {note}", j.rec.device));
}

/// Settle one pending device: verify + confirm, or cancel, then read back when needed.
fn settle(j: &mut Job<'_>, failing: bool, journal: &Journal, progress: &(dyn Fn(&str) + Sync)) {
    let t = Instant::now();
    let (Some(driver), Some(intended)) = (j.driver.as_mut(), j.rec.new_copy.as_deref()) else {
        return;
    };
    let prepared = journal::load_copy(journal.path(), intended)
        .map_err(|e| DriverError::new(FailKind::Rejected, format!("saved intended copy: {e}")))
        .and_then(|bytes| driver.adopt(&bytes, j.rec.pre_hash.as_deref().unwrap_or("")));
    if let Err(e) = prepared {
        j.report.error = Some(e);
        record(
            j,
            journal,
            progress,
            DeviceState::Unknown,
            "cannot take over the pending commit",
        );
        return;
    }
    let Some(driver) = j.driver.as_mut() else {
        return;
    };
    let (state, note, err) = if !failing {
        match driver.verify() {
            Ok(()) => match driver.confirm() {
                Ok(()) => (DeviceState::Confirmed, "verified and confirmed", None),
                Err(e) => match driver.check_reverted() {
                    Ok(true) => (
                        DeviceState::Reverted,
                        "confirm window had closed: already rolled back",
                        Some(e),
                    ),
                    _ => (DeviceState::Unknown, "confirm failed", Some(e)),
                },
            },
            Err(e) => match driver.check_reverted() {
                Ok(true) => (
                    DeviceState::Reverted,
                    "already rolled back (its confirm window had closed)",
                    None,
                ),
                _ => {
                    // Not the intended config and not the old one: take it back now.
                    let c = driver.cancel().err();
                    match driver.check_reverted() {
                        Ok(true) => (DeviceState::Reverted, "did not verify: cancelled", Some(e)),
                        _ => (
                            DeviceState::Unknown,
                            "did not verify; cancel failed",
                            c.or(Some(e)),
                        ),
                    }
                }
            },
        }
    } else {
        let c = driver.cancel().err();
        match driver.check_reverted() {
            Ok(true) => (
                DeviceState::Reverted,
                "transaction was failing: cancelled (or already rolled back)",
                None,
            ),
            Ok(false) => (DeviceState::Unknown, "cancel did not bring it back", c),
            Err(e) => (DeviceState::Unknown, "read-back failed", Some(e)),
        }
    };
    j.report.seconds += t.elapsed().as_secs_f64();
    j.report.error = err;
    record(j, journal, progress, state, note);
}

fn exit_code(reports: &[DeviceReport]) -> u8 {
    use DeviceState as S;
    let all_new = reports
        .iter()
        .all(|r| matches!(r.state, S::Confirmed | S::Unchanged));
    let all_old = reports
        .iter()
        .all(|r| matches!(r.state, S::Reverted | S::Unchanged | S::Aborted | S::Failed));
    if all_new {
        0
    } else if all_old {
        1
    } else {
        2
    }
}

/// `--resume`: settle the pending devices of `view`, appending to its journal.
pub fn resume(
    view: &JournalView,
    targets: &[Target],
    settings: &PushSettings,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
) -> Outcome {
    let started = Instant::now();
    let failing = was_failing(view);
    journal.record(
        None,
        "resume",
        json!({ "pid": std::process::id(), "cancel_pending": failing }),
    );
    let mut settings = settings.clone();
    settings.txn.dry_run = false;
    let mut jobs: Vec<Job<'_>> = view
        .devices
        .iter()
        .map(|rec| {
            let target = targets.iter().find(|t| t.name == rec.device);
            Job {
                rec,
                target,
                driver: None,
                report: DeviceReport {
                    device: rec.device.clone(),
                    driver: rec.driver.clone(),
                    wave: rec.wave,
                    state: state_from(&rec.state),
                    preflight: None,
                    revision: rec.revision.clone(),
                    error: None,
                    seconds: 0.0,
                },
                note: String::new(),
            }
        })
        .collect();
    // Report what needs nothing, find the targets of what does.
    for j in &mut jobs {
        let pending = matches!(j.rec.state.as_str(), "committed" | "verified")
            || (j.rec.state == "unknown" && j.rec.revision.is_some());
        if !pending {
            let note = match j.report.state {
                DeviceState::Planned | DeviceState::Ready | DeviceState::Aborted => {
                    j.report.state = DeviceState::Aborted;
                    "never committed: untouched"
                }
                DeviceState::Confirmed => "already confirmed",
                DeviceState::Unchanged => "unchanged",
                DeviceState::Reverted => "already back at its old config",
                _ => "not committed by this transaction: untouched",
            };
            j.note = note.to_string();
            progress(&format!(
                "  {:<20} {:?}: {note}",
                j.rec.device, j.report.state
            ));
            continue;
        }
        match j.target {
            Some(t) if j.rec.new_copy.is_some() => {
                j.driver = Some(make_driver(t, &view.txid, &settings));
            }
            Some(_) => {
                j.report.error = Some(DriverError::new(
                    FailKind::Rejected,
                    "the journal keeps no copy of the intended config (journal from an older railyard)",
                ));
                record(j, journal, progress, DeviceState::Unknown, "cannot verify");
            }
            None => {
                j.report.error = Some(DriverError::new(
                    FailKind::Connect,
                    "device not in the targets file",
                ));
                record(j, journal, progress, DeviceState::Unknown, "cannot reach");
            }
        }
    }
    let n = jobs.iter().filter(|j| j.driver.is_some()).count();
    progress(&format!(
        "resume {}: {n} pending device(s), {}",
        view.txid,
        if failing {
            "the transaction was failing: cancelling"
        } else {
            "re-verifying and confirming"
        }
    ));
    par_each(
        jobs.iter_mut().filter(|j| j.driver.is_some()).collect(),
        settings.txn.parallel,
        |j| settle(j, failing, journal, progress),
    );
    let devices: Vec<DeviceReport> = jobs.into_iter().map(|j| j.report).collect();
    let code = exit_code(&devices);
    journal.record(
        None,
        "end",
        json!({
            "by": "resume",
            "exit_code": code,
            "seconds": started.elapsed().as_secs_f64(),
            "states": devices.iter().map(|d| json!({"device": d.device, "state": d.state})).collect::<Vec<_>>(),
        }),
    );
    Outcome {
        txid: view.txid.clone(),
        exit_code: code,
        devices,
        journal: journal.path().display().to_string(),
    }
}

/// `--rollback`: plans that push each confirmed device's saved pre-change config back, and the
/// targets they go to. Refuses (Err) when a confirmed device has no usable saved copy or
/// target, or nothing was confirmed.
pub fn rollback_plans<'a>(
    view: &JournalView,
    targets: &'a [Target],
) -> Result<(Vec<DevicePlan>, Vec<&'a Target>), String> {
    let mut plans = Vec::new();
    let mut used = Vec::new();
    let mut problems = Vec::new();
    for rec in view.devices.iter().filter(|d| d.state == "confirmed") {
        let Some(t) = targets.iter().find(|t| t.name == rec.device) else {
            problems.push(format!("{}: not in the targets file", rec.device));
            continue;
        };
        let Some(h) = rec.pre_copy.as_deref() else {
            problems.push(format!(
                "{}: the journal keeps no copy of its previous config",
                rec.device
            ));
            continue;
        };
        match journal::load_copy(&view.path, h) {
            Ok(bytes) => {
                plans.push(DevicePlan {
                    name: t.name.clone(),
                    role: t.role.clone(),
                    driver_name: t.driver.as_str().to_string(),
                    intended: bytes,
                });
                used.push(t);
            }
            Err(e) => problems.push(format!("{}: saved previous config: {e}", rec.device)),
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    if plans.is_empty() {
        return Err(format!(
            "transaction {} confirmed no device: nothing to roll back",
            view.txid
        ));
    }
    Ok((plans, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_last_states_copies_and_failure_path() {
        let d = tempfile::tempdir().unwrap();
        let j = Journal::create(d.path(), "ry-t").unwrap();
        let h = j.save_copy(b"<config/>").unwrap();
        j.record(None, "begin", json!({"devices": ["a", "b", "c"]}));
        j.record(
            Some("a"),
            "state",
            json!({"state": "ready", "pre_hash": "p", "pre_copy": h, "new_copy": h}),
        );
        j.record(
            Some("a"),
            "state",
            json!({"state": "committed", "revision": "ry-t-a"}),
        );
        j.record(Some("b"), "state", json!({"state": "ready"}));
        j.record(
            Some("c"),
            "state",
            json!({"state": "confirmed", "pre_copy": h}),
        );
        let v = read(d.path(), "ry-t").unwrap();
        assert_eq!(v.devices.len(), 3);
        let a = &v.devices[0];
        assert_eq!(a.state, "committed");
        assert_eq!(a.pre_hash.as_deref(), Some("p"));
        assert_eq!(a.new_copy.as_deref(), Some(h.as_str()));
        assert_eq!(a.revision.as_deref(), Some("ry-t-a"));
        assert!(!was_failing(&v));
        assert_eq!(v.ended, None);
        // A verify failure puts the transaction on its cancel path.
        j.record(
            Some("a"),
            "state",
            json!({"state": "committed", "error": "differs"}),
        );
        assert!(was_failing(&read(d.path(), "ry-t").unwrap()));
        assert!(read(d.path(), "ry-none").is_err());
        assert!(read(d.path(), "../etc/passwd").is_err());
    }

    #[test]
    fn exit_codes() {
        let r = |state| DeviceReport {
            device: "x".into(),
            driver: "netconf".into(),
            wave: 0,
            state,
            preflight: None,
            revision: None,
            error: None,
            seconds: 0.0,
        };
        use DeviceState as S;
        assert_eq!(exit_code(&[r(S::Confirmed), r(S::Unchanged)]), 0);
        assert_eq!(exit_code(&[r(S::Reverted), r(S::Aborted)]), 1);
        assert_eq!(exit_code(&[r(S::Confirmed), r(S::Aborted)]), 2);
        assert_eq!(exit_code(&[r(S::Unknown)]), 2);
    }
}
