//! The fabric-wide transaction: preflight everywhere → abort all if any preflight fails →
//! confirmed commits in waves on a bounded pool of OS threads → verify each wave by reading back
//! over fresh sessions → confirm everything only if every device verified, else cancel
//! everywhere and read back that each touched device is at its old config.
//!
//! Exit codes: 0 all confirmed or unchanged (or a clean dry run); 1 failed and every touched device
//! read back at its old config; 2 mixed or unknown; 3 refused at preflight (nothing committed).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use super::driver::{Driver, DriverError, FailKind, Preflight};
use super::journal::Journal;

/// One device's rendered config and where it sits in the rollout.
pub struct DevicePlan {
    pub name: String,
    pub role: Option<String>,
    pub driver_name: String,
    pub intended: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct TxnOptions {
    pub dry_run: bool,
    /// Role names in rollout order (`spines`, `leaves`); devices matching none go last.
    pub waves: Vec<String>,
    pub parallel: usize,
    /// The device-side revert window of every confirmed commit.
    pub confirm_timeout: Duration,
}

/// Where a device ended (or is, during the push).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceState {
    Planned,
    /// Preflight done, change staged and locked.
    Ready,
    /// Nothing to change: never committed.
    Unchanged,
    /// Dry run or aborted before commit: untouched.
    Aborted,
    /// Committed, reverts by itself unless confirmed.
    Committed,
    Verified,
    Confirmed,
    /// Touched, then read back at its old config.
    Reverted,
    /// Failed before anything was applied.
    Failed,
    /// The device's config could not be established: it may be old or new.
    Unknown,
}

#[derive(Clone, Debug, Serialize)]
pub struct DeviceReport {
    pub device: String,
    pub driver: String,
    pub wave: usize,
    pub state: DeviceState,
    pub preflight: Option<Preflight>,
    pub revision: Option<String>,
    pub error: Option<DriverError>,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub txid: String,
    pub exit_code: u8,
    pub devices: Vec<DeviceReport>,
    pub journal: String,
}

struct Dev {
    plan: DevicePlan,
    driver: Box<dyn Driver>,
    report: DeviceReport,
}

/// Run `f` on every item, at most `parallel` at a time, on scoped OS threads (ssh2 is blocking,
/// so one thread per in-flight device, as Nornir does).
pub(crate) fn par_each<T: Send>(items: Vec<&mut T>, parallel: usize, f: impl Fn(&mut T) + Sync) {
    let n = items.len();
    if n == 0 {
        return;
    }
    let cells: Vec<Mutex<&mut T>> = items.into_iter().map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let workers = parallel.clamp(1, n);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(cell) = cells.get(i) else { break };
                    // Each index is taken by exactly one worker: the lock never waits, and a
                    // panic in another worker must not stop this device's cleanup.
                    let mut g = match cell.lock() {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    };
                    f(&mut g);
                }
            });
        }
    });
}

/// Which wave a role belongs to: `spines` matches `spine`, `leaves` matches `leaf`.
fn wave_of(role: Option<&str>, waves: &[String]) -> usize {
    let Some(role) = role else {
        return waves.len();
    };
    waves
        .iter()
        .position(|w| {
            let w = w.trim();
            w == role
                || w.strip_suffix('s') == Some(role)
                || w.strip_suffix("es") == Some(role)
                || (w.ends_with("ves")
                    && w.strip_suffix("ves").map(|b| format!("{b}f")).as_deref() == Some(role))
        })
        .unwrap_or(waves.len())
}

fn set(
    d: &mut Dev,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
    state: DeviceState,
    extra: serde_json::Value,
) {
    d.report.state = state;
    let mut fields = json!({ "state": state, "driver": d.report.driver, "wave": d.report.wave });
    if let (Some(o), serde_json::Value::Object(e)) = (fields.as_object_mut(), extra) {
        o.extend(e);
    }
    journal.record(Some(&d.plan.name), "state", fields);
    let err = d
        .report
        .error
        .as_ref()
        .map(|e| format!(": {}", e.message.lines().next().unwrap_or("")))
        .unwrap_or_default();
    progress(&format!(
        "  [wave {}] {:<20} {:?}{err}",
        d.report.wave + 1,
        d.plan.name,
        state
    ));
}

fn fail(d: &mut Dev, e: DriverError) -> serde_json::Value {
    let v = json!({ "error": e.message, "kind": e.kind, "rpc_errors": e.rpc_errors });
    d.report.error = Some(e);
    v
}

/// Run one push transaction. `drivers[i]` serves `plans[i]`.
pub fn run(
    plans: Vec<DevicePlan>,
    drivers: Vec<Box<dyn Driver>>,
    opts: &TxnOptions,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
) -> Outcome {
    let started = Instant::now();
    let mut devs: Vec<Dev> = plans
        .into_iter()
        .zip(drivers)
        .map(|(plan, driver)| {
            let wave = wave_of(plan.role.as_deref(), &opts.waves);
            Dev {
                report: DeviceReport {
                    device: plan.name.clone(),
                    driver: plan.driver_name.clone(),
                    wave,
                    state: DeviceState::Planned,
                    preflight: None,
                    revision: None,
                    error: None,
                    seconds: 0.0,
                },
                plan,
                driver,
            }
        })
        .collect();
    journal.record(
        None,
        "begin",
        json!({
            "devices": devs.iter().map(|d| &d.plan.name).collect::<Vec<_>>(),
            "dry_run": opts.dry_run,
            "waves": opts.waves,
            "confirm_timeout_s": opts.confirm_timeout.as_secs(),
        }),
    );
    let p = opts.parallel;

    // 1. Preflight everywhere.
    progress(&format!("preflight: {} device(s)", devs.len()));
    par_each(devs.iter_mut().collect(), p, |d| {
        let t = Instant::now();
        let r = d.driver.preflight(&d.plan.intended);
        d.report.seconds += t.elapsed().as_secs_f64();
        match r {
            Ok(pf) => {
                let state = if pf.changed {
                    DeviceState::Ready
                } else {
                    DeviceState::Unchanged
                };
                let mut extra = json!({
                    "pre_hash": pf.pre_hash,
                    "intended_hash": pf.intended_hash,
                    "changed": pf.changed,
                    "diff_lines": pf.canonical_diff.lines().count(),
                });
                if pf.changed && !opts.dry_run {
                    // Copies for `--resume` (the intended config, to verify against) and
                    // `--rollback` (the pre-change config), named by hash next to the journal.
                    let copies = [
                        ("pre_copy", pf.pre_config.as_deref()),
                        ("new_copy", Some(&d.plan.intended[..])),
                    ];
                    for (key, bytes) in copies {
                        let Some(bytes) = bytes else { continue };
                        match journal.save_copy(bytes) {
                            Ok(h) => extra[key] = json!(h),
                            Err(e) => extra[format!("{key}_error")] = json!(e.to_string()),
                        }
                    }
                }
                d.report.preflight = Some(pf);
                set(d, journal, progress, state, extra);
            }
            Err(e) => {
                let extra = fail(d, e);
                set(d, journal, progress, DeviceState::Failed, extra);
            }
        }
    });
    let refused = devs.iter().any(|d| d.report.state == DeviceState::Failed);
    if refused || opts.dry_run {
        // Nothing was committed anywhere: release every lock and staged change.
        par_each(devs.iter_mut().collect(), p, |d| {
            let _ = d.driver.abort();
            if matches!(d.report.state, DeviceState::Ready) {
                set(d, journal, progress, DeviceState::Aborted, json!({}));
            }
        });
        let code = if refused { 3 } else { 0 };
        return finish(devs, code, journal, started);
    }

    // Unchanged devices are released now and never committed.
    par_each(
        devs.iter_mut()
            .filter(|d| d.report.state == DeviceState::Unchanged)
            .collect(),
        p,
        |d| {
            let _ = d.driver.abort();
        },
    );

    // 2. Waves: commit-confirmed, then verify by reading back.
    let n_waves = devs
        .iter()
        .map(|d| d.report.wave)
        .max()
        .map_or(0, |m| m + 1);
    let mut failed = false;
    for w in 0..n_waves {
        let wave: Vec<&mut Dev> = devs
            .iter_mut()
            .filter(|d| d.report.wave == w && d.report.state == DeviceState::Ready)
            .collect();
        if wave.is_empty() {
            continue;
        }
        progress(&format!(
            "wave {}/{}: committing {} device(s) (revert in {} s unless confirmed)",
            w + 1,
            n_waves,
            wave.len(),
            opts.confirm_timeout.as_secs()
        ));
        par_each(wave, p, |d| {
            let t = Instant::now();
            let r = d.driver.commit_confirmed(opts.confirm_timeout);
            d.report.seconds += t.elapsed().as_secs_f64();
            match r {
                Ok(rev) => {
                    d.report.revision = Some(rev.clone());
                    set(
                        d,
                        journal,
                        progress,
                        DeviceState::Committed,
                        json!({ "revision": rev }),
                    );
                }
                Err(e) => {
                    // A refused commit left the device as it was; a lost session may or may not
                    // have applied it. Either way the cancel/read-back below settles it.
                    let state = if e.kind == FailKind::Rejected {
                        DeviceState::Failed
                    } else {
                        DeviceState::Unknown
                    };
                    let extra = fail(d, e);
                    set(d, journal, progress, state, extra);
                }
            }
        });
        if devs.iter().any(|d| {
            d.report.wave == w
                && matches!(d.report.state, DeviceState::Failed | DeviceState::Unknown)
        }) {
            failed = true;
            break;
        }
        progress(&format!("wave {}/{}: verifying", w + 1, n_waves));
        par_each(
            devs.iter_mut()
                .filter(|d| d.report.wave == w && d.report.state == DeviceState::Committed)
                .collect(),
            p,
            |d| {
                let t = Instant::now();
                let r = d.driver.verify();
                d.report.seconds += t.elapsed().as_secs_f64();
                match r {
                    Ok(()) => set(d, journal, progress, DeviceState::Verified, json!({})),
                    Err(e) => {
                        let extra = fail(d, e);
                        // Still pending: the cancel below reverts it.
                        set(d, journal, progress, DeviceState::Committed, extra);
                    }
                }
            },
        );
        if devs
            .iter()
            .any(|d| d.report.wave == w && d.report.state == DeviceState::Committed)
        {
            failed = true;
            break;
        }
    }

    if !failed {
        // 3a. Every device verified: confirm all.
        progress("confirming all devices");
        par_each(
            devs.iter_mut()
                .filter(|d| d.report.state == DeviceState::Verified)
                .collect(),
            p,
            |d| {
                let t = Instant::now();
                let r = d.driver.confirm();
                d.report.seconds += t.elapsed().as_secs_f64();
                match r {
                    Ok(()) => set(d, journal, progress, DeviceState::Confirmed, json!({})),
                    Err(e) => {
                        // It will revert by itself at the timer: its final state is not ours
                        // to know from here.
                        let extra = fail(d, e);
                        set(d, journal, progress, DeviceState::Unknown, extra);
                    }
                }
            },
        );
        let all_ok = devs.iter().all(|d| {
            matches!(
                d.report.state,
                DeviceState::Confirmed | DeviceState::Unchanged
            )
        });
        return finish(devs, if all_ok { 0 } else { 2 }, journal, started);
    }

    // 3b. Something failed: cancel everywhere that was touched, and read back.
    progress("failure: cancelling every pending commit");
    par_each(
        devs.iter_mut()
            .filter(|d| d.report.state == DeviceState::Ready)
            .collect(),
        p,
        |d| {
            let _ = d.driver.abort();
            set(d, journal, progress, DeviceState::Aborted, json!({}));
        },
    );
    par_each(
        devs.iter_mut()
            .filter(|d| {
                matches!(
                    d.report.state,
                    DeviceState::Committed
                        | DeviceState::Verified
                        | DeviceState::Unknown
                        | DeviceState::Failed
                ) && d.report.preflight.is_some()
            })
            .collect(),
        p,
        |d| {
            let t = Instant::now();
            let cancel = d.driver.cancel();
            let back = d.driver.check_reverted();
            d.report.seconds += t.elapsed().as_secs_f64();
            let extra = json!({
                "cancel": cancel.as_ref().err().map(|e| e.message.clone()),
            });
            match back {
                Ok(true) => set(d, journal, progress, DeviceState::Reverted, extra),
                Ok(false) => set(d, journal, progress, DeviceState::Unknown, extra),
                Err(e) => {
                    let mut extra = extra;
                    extra["readback_error"] = json!(e.message);
                    set(d, journal, progress, DeviceState::Unknown, extra);
                }
            }
        },
    );
    let all_back = devs.iter().all(|d| {
        matches!(
            d.report.state,
            DeviceState::Reverted | DeviceState::Unchanged | DeviceState::Aborted
        )
    });
    finish(devs, if all_back { 1 } else { 2 }, journal, started)
}

fn finish(devs: Vec<Dev>, code: u8, journal: &Journal, started: Instant) -> Outcome {
    let devices: Vec<DeviceReport> = devs.into_iter().map(|d| d.report).collect();
    journal.record(
        None,
        "end",
        json!({
            "exit_code": code,
            "seconds": started.elapsed().as_secs_f64(),
            "states": devices.iter().map(|d| json!({"device": d.device, "state": d.state})).collect::<Vec<_>>(),
        }),
    );
    Outcome {
        txid: journal.txid().to_string(),
        exit_code: code,
        devices,
        journal: journal.path().display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A scripted device: `fail_at` names the step that fails; `reverts` whether a cancel takes it
    /// back. Records every call so sequencing can be asserted.
    struct Fake {
        name: String,
        changed: bool,
        fail_at: Option<&'static str>,
        reverts: bool,
        log: Arc<Mutex<Vec<String>>>,
    }

    impl Fake {
        fn step(&self, s: &str) -> Result<(), DriverError> {
            if let Ok(mut l) = self.log.lock() {
                l.push(format!("{}:{s}", self.name));
            }
            if self.fail_at == Some(s) {
                let kind = if s == "commit" {
                    FailKind::Rejected
                } else {
                    FailKind::Locked
                };
                return Err(DriverError::new(kind, format!("{s} failed")));
            }
            Ok(())
        }
    }

    impl Driver for Fake {
        fn preflight(&mut self, _: &[u8]) -> Result<Preflight, DriverError> {
            self.step("preflight")?;
            Ok(Preflight {
                changed: self.changed,
                ..Preflight::default()
            })
        }
        fn abort(&mut self) -> Result<(), DriverError> {
            self.step("abort")
        }
        fn commit_confirmed(&mut self, t: Duration) -> Result<String, DriverError> {
            self.step("commit")?;
            Ok(format!("rev-{}", t.as_secs()))
        }
        fn verify(&mut self) -> Result<(), DriverError> {
            self.step("verify")
        }
        fn confirm(&mut self) -> Result<(), DriverError> {
            self.step("confirm")
        }
        fn cancel(&mut self) -> Result<(), DriverError> {
            self.step("cancel")
        }
        fn check_reverted(&mut self) -> Result<bool, DriverError> {
            self.step("readback")?;
            Ok(self.reverts)
        }
    }

    fn go(
        devs: &[(&str, &str, bool, Option<&'static str>, bool)],
        dry_run: bool,
    ) -> (Outcome, Vec<String>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let plans = devs
            .iter()
            .map(|(n, role, ..)| DevicePlan {
                name: n.to_string(),
                role: Some(role.to_string()),
                driver_name: "fake".into(),
                intended: Vec::new(),
            })
            .collect();
        let drivers: Vec<Box<dyn Driver>> = devs
            .iter()
            .map(|(n, _, changed, fail_at, reverts)| {
                Box::new(Fake {
                    name: n.to_string(),
                    changed: *changed,
                    fail_at: *fail_at,
                    reverts: *reverts,
                    log: log.clone(),
                }) as Box<dyn Driver>
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::create(dir.path(), "ry-test").unwrap();
        let opts = TxnOptions {
            dry_run,
            waves: vec!["spines".into(), "leaves".into()],
            parallel: 4,
            confirm_timeout: Duration::from_secs(120),
        };
        let o = run(plans, drivers, &opts, &j, &|_| {});
        let l = log.lock().unwrap().clone();
        (o, l)
    }

    fn state(o: &Outcome, d: &str) -> DeviceState {
        o.devices.iter().find(|r| r.device == d).unwrap().state
    }

    fn pos(log: &[String], e: &str) -> usize {
        log.iter()
            .position(|x| x == e)
            .unwrap_or_else(|| panic!("{e} not in {log:?}"))
    }

    #[test]
    fn all_good_confirms_after_every_wave_verified() {
        let (o, log) = go(
            &[
                ("s1", "spine", true, None, true),
                ("l1", "leaf", true, None, true),
                ("l2", "leaf", false, None, true),
            ],
            false,
        );
        assert_eq!(o.exit_code, 0);
        assert_eq!(state(&o, "s1"), DeviceState::Confirmed);
        assert_eq!(state(&o, "l2"), DeviceState::Unchanged);
        // The spine wave commits and verifies before any leaf commits; nothing is confirmed
        // before every device verified; the unchanged device is never committed.
        assert!(pos(&log, "s1:verify") < pos(&log, "l1:commit"));
        assert!(pos(&log, "l1:verify") < pos(&log, "s1:confirm"));
        assert!(!log.contains(&"l2:commit".to_string()));
        assert!(log.contains(&"l2:abort".to_string()));
    }

    #[test]
    fn one_refused_preflight_aborts_everything() {
        let (o, log) = go(
            &[
                ("s1", "spine", true, None, true),
                ("l1", "leaf", true, Some("preflight"), true),
            ],
            false,
        );
        assert_eq!(o.exit_code, 3);
        assert!(log.iter().all(|l| !l.ends_with(":commit")));
        assert!(log.contains(&"s1:abort".to_string()));
    }

    #[test]
    fn leaf_commit_error_cancels_the_spine() {
        let (o, log) = go(
            &[
                ("s1", "spine", true, None, true),
                ("l1", "leaf", true, Some("commit"), true),
                ("l2", "leaf", true, None, true),
            ],
            false,
        );
        assert_eq!(o.exit_code, 1, "{:?}", o.devices);
        assert_eq!(state(&o, "s1"), DeviceState::Reverted);
        assert_eq!(state(&o, "l1"), DeviceState::Reverted);
        assert!(log.contains(&"s1:cancel".to_string()));
        assert!(log.iter().all(|l| !l.ends_with(":confirm")));
    }

    #[test]
    fn verify_failure_with_a_device_that_does_not_come_back_is_mixed() {
        let (o, _) = go(
            &[
                ("s1", "spine", true, Some("verify"), false),
                ("l1", "leaf", true, None, true),
            ],
            false,
        );
        assert_eq!(o.exit_code, 2);
        assert_eq!(state(&o, "s1"), DeviceState::Unknown);
        // The leaf wave never started: its staged change was discarded.
        assert_eq!(state(&o, "l1"), DeviceState::Aborted);
    }

    #[test]
    fn dry_run_commits_nothing() {
        let (o, log) = go(
            &[
                ("s1", "spine", true, None, true),
                ("l1", "leaf", false, None, true),
            ],
            true,
        );
        assert_eq!(o.exit_code, 0);
        assert!(log.iter().all(|l| !l.ends_with(":commit")));
        assert_eq!(state(&o, "s1"), DeviceState::Aborted);
    }

    #[test]
    fn waves_match_plural_roles() {
        let w = vec!["spines".to_string(), "leaves".to_string()];
        assert_eq!(wave_of(Some("spine"), &w), 0);
        assert_eq!(wave_of(Some("leaf"), &w), 1);
        assert_eq!(wave_of(Some("leaves"), &w), 1);
        assert_eq!(wave_of(Some("border"), &w), 2);
        assert_eq!(wave_of(None, &w), 2);
    }
}
