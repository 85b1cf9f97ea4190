//! `railyard push --resume ID` and `--rollback ID`: finish or undo an earlier transaction from
//! its journal.
//!
//! Resume settles every device whose outcome the journal cannot tell, by connecting to it and
//! reading it back — never by assuming:
//! - committed or verified (the controller died between commit and confirm): re-verify over a
//!   fresh session against the saved intended copy, then confirm (NETCONF: `<commit><persist-id>`
//!   from a new session; FRR: disarm the revert timer); a device already back at its old config
//!   (its window closed) is reported rolled back;
//! - ready or unknown (a commit may or may not have reached it): read back first; at its old
//!   config it is untouched (railyard's leftovers are removed), otherwise it is settled as a
//!   pending commit.
//!
//! When the journal shows the transaction was failing (a failed or unknown device, or a failed
//! verify), pending devices are cancelled instead, as the transaction itself would have done.
//! Devices the journal shows were never committed (planned, aborted, diffed, unchanged, failed at
//! preflight) are not touched.
//!
//! Rollback pushes the pre-change config saved (by hash, mode 0600) next to the journal back to
//! every device the journal says was confirmed, with the ordinary transaction (preflight, confirmed
//! commit, verify, confirm) under a new transaction id.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use super::driver::{ConfigSet, Driver, DriverError, FailKind};
use super::journal::{self, Journal};
use super::secrets::{SecretError, Secrets};
use super::targets::Target;
use super::txn::{DevicePlan, DeviceReport, DeviceState, Outcome, par_each};
use super::{PushSettings, fill_secrets, make_driver};
use crate::output::secrets::Declaration;

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
    /// Saved copies: `(file name, sha256)`, the main file first.
    pub pre_copy: Option<Vec<(String, String)>>,
    pub new_copy: Option<Vec<(String, String)>>,
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
    /// The transaction's own confirm window (its `begin` event).
    pub confirm_timeout_s: Option<u64>,
    /// The secrets the pushed build declared (its `secrets-declared` event): all that resume
    /// and rollback fill.
    pub declaration: Declaration,
}

/// The journal event recording the build's secrets declaration.
pub(super) const DECLARED_EVENT: &str = "secrets-declared";

/// Record `declaration` in `journal`, for resume and rollback.
pub fn record_declaration(journal: &Journal, declaration: &Declaration) {
    journal.record(None, DECLARED_EVENT, json!({ "declaration": declaration }));
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A copy reference: `[[name, hash], …]`.
fn copies_of(v: &Value, k: &str) -> Option<Vec<(String, String)>> {
    let list = v.get(k)?.as_array()?;
    Some(
        list.iter()
            .filter_map(|e| {
                Some((
                    e.get(0)?.as_str()?.to_string(),
                    e.get(1)?.as_str()?.to_string(),
                ))
            })
            .collect(),
    )
}

/// Read the journal of transaction `txid` in `dir`.
pub fn read(dir: &Path, txid: &str) -> Result<JournalView, String> {
    let path = journal::path_of(dir, txid).map_err(|e| e.to_string())?;
    let lines = journal::read_lines(&path).map_err(|e| e.to_string())?;
    let mut devices: Vec<Recorded> = Vec::new();
    let mut declaration = Declaration::default();
    let mut ended = None;
    let mut confirm_timeout_s = None;
    for l in &lines {
        match l.get("event").and_then(Value::as_str) {
            Some("begin") => {
                confirm_timeout_s = l.get("confirm_timeout_s").and_then(Value::as_u64);
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
                for (k, slot) in [("pre_hash", &mut r.pre_hash), ("revision", &mut r.revision)] {
                    if let Some(v) = str_of(l, k) {
                        *slot = Some(v);
                    }
                }
                for (k, slot) in [("pre_copy", &mut r.pre_copy), ("new_copy", &mut r.new_copy)] {
                    if let Some(v) = copies_of(l, k) {
                        *slot = Some(v);
                    }
                }
            }
            Some("end") => ended = l.get("exit_code").and_then(Value::as_u64),
            // Unreadable: nothing declared, so every placeholder is refused.
            Some(DECLARED_EVENT) => {
                declaration = serde_json::from_value(l["declaration"].clone()).unwrap_or_default();
            }
            _ => {}
        }
    }
    if devices.is_empty() {
        return Err(format!("{} records no devices", path.display()));
    }
    Ok(JournalView {
        txid: txid.to_string(),
        path,
        devices,
        ended,
        confirm_timeout_s,
        declaration,
    })
}

fn state_from(s: &str) -> DeviceState {
    match s {
        "ready" => DeviceState::Ready,
        "unchanged" => DeviceState::Unchanged,
        "diffed" => DeviceState::Diffed,
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

/// Whether the journal cannot tell this device's config: resume connects and reads it.
fn unsettled(r: &Recorded) -> bool {
    matches!(
        r.state.as_str(),
        "ready" | "committed" | "verified" | "unknown"
    )
}

/// Load one saved copy set.
fn load_set(journal_path: &Path, refs: &[(String, String)]) -> Result<ConfigSet, String> {
    let mut set = ConfigSet::default();
    for (name, hash) in refs {
        let bytes = journal::load_copy(journal_path, hash)
            .map_err(|e| format!("saved copy of {name}: {e}"))?;
        set.files.push((name.clone(), bytes));
    }
    Ok(set)
}

/// The intended copies of the devices resume must read, filled from the environment.
pub struct Resumable {
    intended: BTreeMap<String, ConfigSet>,
    pub secrets: Secrets,
}

/// Load the intended copies resume needs and fill their placeholders from `lookup` — only those
/// the pushed build declared (the journal's record of it). Refuses (before connecting anywhere)
/// an undeclared placeholder or an unset variable: verifying needs the filled config.
pub fn load_intended(
    view: &JournalView,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Resumable, String> {
    let mut plans = Vec::new();
    for r in view.devices.iter().filter(|r| unsettled(r)) {
        if let Some(refs) = &r.new_copy {
            let set = load_set(&view.path, refs)?;
            plans.push(DevicePlan::new(&r.device, None, &r.driver, set));
        }
    }
    let secrets = fill_secrets(&mut plans, &view.declaration, lookup)
        .map_err(|e: SecretError| e.to_string())?;
    let intended = plans.into_iter().map(|p| (p.name, p.intended)).collect();
    Ok(Resumable { intended, secrets })
}

struct Job<'a> {
    rec: &'a Recorded,
    target: Option<&'a Target>,
    intended: Option<&'a ConfigSet>,
    driver: Option<Box<dyn Driver>>,
    report: DeviceReport,
}

fn record(
    j: &mut Job<'_>,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
    state: DeviceState,
    note: &str,
) {
    j.report.state = state;
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

/// What settling one device decided.
type Settled = (DeviceState, &'static str, Option<DriverError>);

/// A device with a commit pending: verify and confirm, or cancel when the transaction was failing.
fn settle_pending(driver: &mut dyn Driver, failing: bool) -> Settled {
    if failing {
        let c = driver.cancel().err();
        return match driver.check_reverted() {
            Ok(true) => (
                DeviceState::Reverted,
                "transaction was failing: cancelled (or already rolled back)",
                None,
            ),
            Ok(false) => (DeviceState::Unknown, "cancel did not bring it back", c),
            Err(e) => (
                DeviceState::Unknown,
                "read-back after the cancel failed",
                Some(e),
            ),
        };
    }
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
}

/// Settle one unsettled device by reading it.
fn settle(j: &mut Job<'_>, failing: bool, journal: &Journal, progress: &(dyn Fn(&str) + Sync)) {
    let t = Instant::now();
    let (Some(driver), Some(intended)) = (j.driver.as_mut(), j.intended) else {
        return;
    };
    if let Err(e) = driver.adopt(intended, j.rec.pre_hash.as_deref().unwrap_or("")) {
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
    let outcome_unknown = matches!(j.rec.state.as_str(), "ready" | "unknown");
    let (state, note, err) = if outcome_unknown {
        // Did the commit reach it? Read it back before anything else.
        match driver.check_reverted() {
            Ok(true) => {
                let _ = driver.abort();
                if j.rec.state == "ready" {
                    (
                        DeviceState::Aborted,
                        "read back at its old config: the commit never applied (or its window closed)",
                        None,
                    )
                } else {
                    (DeviceState::Reverted, "read back at its old config", None)
                }
            }
            Ok(false) | Err(_) => settle_pending(driver.as_mut(), failing),
        }
    } else {
        settle_pending(driver.as_mut(), failing)
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
    let all_old = reports.iter().all(|r| {
        matches!(
            r.state,
            S::Reverted | S::Unchanged | S::Aborted | S::Failed | S::Diffed
        )
    });
    if all_new {
        0
    } else if all_old {
        1
    } else {
        2
    }
}

/// `--resume`: settle the unsettled devices of `view`, appending to its journal.
pub fn resume(
    view: &JournalView,
    loaded: &Resumable,
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
        .map(|rec| Job {
            rec,
            target: targets.iter().find(|t| t.name == rec.device),
            intended: loaded.intended.get(&rec.device),
            driver: None,
            report: DeviceReport {
                device: rec.device.clone(),
                driver: rec.driver.clone(),
                wave: rec.wave,
                state: state_from(&rec.state),
                preflight: None,
                revision: rec.revision.clone(),
                error: None,
                notes: Vec::new(),
                seconds: 0.0,
            },
        })
        .collect();
    // Report what the journal settles, find the targets of what it does not.
    for j in &mut jobs {
        if !unsettled(j.rec) {
            let note = match j.report.state {
                DeviceState::Planned | DeviceState::Aborted | DeviceState::Diffed => {
                    j.report.state = DeviceState::Aborted;
                    "never committed (journal): untouched"
                }
                DeviceState::Confirmed => "already confirmed",
                DeviceState::Unchanged => "unchanged",
                DeviceState::Reverted => "already back at its old config",
                _ => "failed before its commit (journal): untouched",
            };
            progress(&format!(
                "  {:<20} {:?}: {note}",
                j.rec.device, j.report.state
            ));
            continue;
        }
        match (j.target, j.intended) {
            (Some(t), Some(_)) => {
                j.driver = Some(make_driver(t, &view.txid, &settings));
            }
            (Some(_), None) => {
                j.report.error = Some(DriverError::new(
                    FailKind::Rejected,
                    format!(
                        "the journal {} keeps no copy of {}'s intended config",
                        view.path.display(),
                        j.rec.device
                    ),
                ));
                record(j, journal, progress, DeviceState::Unknown, "cannot verify");
            }
            (None, _) => {
                j.report.error = Some(DriverError::new(
                    FailKind::Connect,
                    format!("{} is not in the targets file", j.rec.device),
                ));
                record(j, journal, progress, DeviceState::Unknown, "cannot reach");
            }
        }
    }
    let n = jobs.iter().filter(|j| j.driver.is_some()).count();
    progress(&format!(
        "resume {}: reading {n} device(s) whose outcome the journal cannot tell; {}",
        view.txid,
        if failing {
            "the transaction was failing: cancelling what is pending"
        } else {
            "re-verifying and confirming what is pending"
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
        confirm_timeout_s: view
            .confirm_timeout_s
            .unwrap_or(settings.txn.confirm_timeout.as_secs()),
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
            problems.push(format!("{} is not in the targets file", rec.device));
            continue;
        };
        let Some(refs) = rec.pre_copy.as_deref() else {
            problems.push(format!(
                "{}: the journal keeps no copy of its previous config",
                rec.device
            ));
            continue;
        };
        match load_set(&view.path, refs) {
            Ok(set) => {
                plans.push(DevicePlan::new(
                    &t.name,
                    t.role.as_deref(),
                    t.driver.as_str(),
                    set,
                ));
                used.push(t);
            }
            Err(e) => problems.push(format!("{}: {e}", rec.device)),
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
        j.record(
            None,
            "begin",
            json!({"devices": ["a", "b", "c"], "confirm_timeout_s": 42}),
        );
        j.record(
            Some("a"),
            "state",
            json!({"state": "ready", "pre_hash": "p", "pre_copy": [["openconfig.xml", h]], "new_copy": [["openconfig.xml", h]]}),
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
            json!({"state": "confirmed", "pre_copy": [["openconfig.xml", h]]}),
        );
        let v = read(d.path(), "ry-t").unwrap();
        assert_eq!(v.devices.len(), 3);
        assert_eq!(v.confirm_timeout_s, Some(42));
        let a = &v.devices[0];
        assert_eq!(a.state, "committed");
        assert_eq!(a.pre_hash.as_deref(), Some("p"));
        assert_eq!(
            a.new_copy.as_deref(),
            Some(&[("openconfig.xml".to_string(), h.clone())][..])
        );
        assert_eq!(a.revision.as_deref(), Some("ry-t-a"));
        assert!(
            unsettled(&v.devices[1]),
            "a ready device may have been committed"
        );
        assert!(!was_failing(&v));
        assert_eq!(v.ended, None);
        let loaded = load_intended(&v, &|_| None).unwrap();
        assert_eq!(loaded.intended["a"].main(), b"<config/>");
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
            notes: Vec::new(),
            seconds: 0.0,
        };
        use DeviceState as S;
        assert_eq!(exit_code(&[r(S::Confirmed), r(S::Unchanged)]), 0);
        assert_eq!(exit_code(&[r(S::Reverted), r(S::Aborted)]), 1);
        assert_eq!(exit_code(&[r(S::Confirmed), r(S::Aborted)]), 2);
        assert_eq!(exit_code(&[r(S::Unknown)]), 2);
    }
}
