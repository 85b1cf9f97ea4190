//! The fabric-wide transaction: preflight everywhere → stop if any preflight failed, any change
//! is disruptive without `--allow-disruptive`, or this is a dry run → confirmed commits in waves
//! on a bounded pool of OS threads → verify each wave by reading back over fresh sessions →
//! confirm everything only if every device verified, else cancel everywhere and read back that
//! each touched device is at its old config.
//!
//! Exit codes: 0 all confirmed or unchanged (or a clean dry run); 1 failed and every touched device
//! read back at its old config; 2 mixed or unknown; 3 refused at preflight (nothing committed).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use super::driver::{ConfigSet, Driver, DriverError, FailKind, Preflight};
use super::hooks;
use super::journal::Journal;

/// One device's rendered config and where it sits in the rollout.
pub struct DevicePlan {
    pub name: String,
    pub role: Option<String>,
    pub driver_name: String,
    /// What is sent: the rendered files with their placeholders filled.
    pub intended: ConfigSet,
    /// The rendered files as built (placeholders, never a secret): what the journal keeps.
    pub rendered: ConfigSet,
}

impl DevicePlan {
    /// A plan whose files hold no placeholder (sent as rendered).
    pub fn new(name: &str, role: Option<&str>, driver: &str, files: ConfigSet) -> Self {
        Self {
            name: name.to_string(),
            role: role.map(str::to_string),
            driver_name: driver.to_string(),
            intended: files.clone(),
            rendered: files,
        }
    }
}

#[derive(Clone, Debug)]
pub struct TxnOptions {
    pub dry_run: bool,
    /// Role names in rollout order (`spines`, `leaves`); devices matching none go last.
    pub waves: Vec<String>,
    pub parallel: usize,
    /// The device-side revert window of every confirmed commit.
    pub confirm_timeout: Duration,
    /// Push changes that `disruptive::findings` flags (ASN, router-id, sessions, addresses,
    /// MTU, breakout); without it they refuse the whole push at preflight.
    pub allow_disruptive: bool,
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
    /// Dry run: the change was staged, diffed and discarded.
    Diffed,
    /// Stopped before commit (another device failed or refused): untouched.
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
    /// Remarks that are not failures (`Driver::take_notes`).
    pub notes: Vec<String>,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub txid: String,
    pub exit_code: u8,
    /// The confirm window of the transaction (what a summary quotes).
    pub confirm_timeout_s: u64,
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

/// A device's files as the journal records them: `[[name, sha256], …]` of saved copies.
fn save_set(journal: &Journal, set: &ConfigSet) -> Result<serde_json::Value, String> {
    let mut v = Vec::new();
    for (name, bytes) in &set.files {
        let h = journal.save_copy(bytes).map_err(|e| e.to_string())?;
        v.push(json!([name, h]));
    }
    Ok(json!(v))
}

/// One transaction in progress.
struct Txn<'a> {
    devs: Vec<Dev>,
    opts: &'a TxnOptions,
    journal: &'a Journal,
    progress: &'a (dyn Fn(&str) + Sync),
    started: Instant,
}

/// Record a device's new state in the journal and on the progress stream.
fn set(
    d: &mut Dev,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
    state: DeviceState,
    extra: serde_json::Value,
) {
    d.report.state = state;
    let mut fields = json!({ "state": state, "driver": d.report.driver, "wave": d.report.wave });
    if !d.report.notes.is_empty() {
        fields["notes"] = json!(d.report.notes);
    }
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

/// Run `step` on a device's driver, adding its time and its notes to the device's report.
fn timed<R>(d: &mut Dev, step: impl FnOnce(&mut dyn Driver) -> R) -> R {
    let t = Instant::now();
    let r = step(d.driver.as_mut());
    d.report.seconds += t.elapsed().as_secs_f64();
    d.report.notes.extend(d.driver.take_notes());
    r
}

/// Run one push transaction. `drivers[i]` serves `plans[i]`.
pub fn run(
    plans: Vec<DevicePlan>,
    drivers: Vec<Box<dyn Driver>>,
    opts: &TxnOptions,
    journal: &Journal,
    progress: &(dyn Fn(&str) + Sync),
) -> Outcome {
    let mut t = Txn::new(plans, drivers, opts, journal, progress);
    t.begin();
    t.preflight_all();
    if let Some(code) = t.stop_before_commit() {
        return t.finish(code);
    }
    t.release_unchanged();
    let code = if t.roll_out() {
        t.confirm_all()
    } else {
        t.cancel_touched()
    };
    t.finish(code)
}

impl<'a> Txn<'a> {
    fn new(
        plans: Vec<DevicePlan>,
        drivers: Vec<Box<dyn Driver>>,
        opts: &'a TxnOptions,
        journal: &'a Journal,
        progress: &'a (dyn Fn(&str) + Sync),
    ) -> Self {
        let devs = plans
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
                        notes: Vec::new(),
                        seconds: 0.0,
                    },
                    plan,
                    driver,
                }
            })
            .collect();
        Txn {
            devs,
            opts,
            journal,
            progress,
            started: Instant::now(),
        }
    }

    /// The devices in `states` (all of them when `wave` is `None`, else that wave's).
    fn select(&mut self, wave: Option<usize>, states: &[DeviceState]) -> Vec<&mut Dev> {
        self.devs
            .iter_mut()
            .filter(|d| wave.is_none_or(|w| d.report.wave == w) && states.contains(&d.report.state))
            .collect()
    }

    /// Run `f` on the selected devices, in parallel.
    fn each(&mut self, wave: Option<usize>, states: &[DeviceState], f: impl Fn(&mut Dev) + Sync) {
        let parallel = self.opts.parallel;
        par_each(self.select(wave, states), parallel, f);
    }

    fn any(&self, wave: Option<usize>, states: &[DeviceState]) -> bool {
        self.devs
            .iter()
            .any(|d| wave.is_none_or(|w| d.report.wave == w) && states.contains(&d.report.state))
    }

    fn begin(&self) {
        self.journal.record(
            None,
            "begin",
            json!({
                "devices": self.devs.iter().map(|d| &d.plan.name).collect::<Vec<_>>(),
                "dry_run": self.opts.dry_run,
                "waves": self.opts.waves,
                "confirm_timeout_s": self.opts.confirm_timeout.as_secs(),
                "allow_disruptive": self.opts.allow_disruptive,
            }),
        );
    }

    /// Step 1: Stage and diff on every device; save the copies `--resume` and `--rollback` need.
    fn preflight_all(&mut self) {
        (self.progress)(&format!("preflight: {} device(s)", self.devs.len()));
        let (journal, progress, dry) = (self.journal, self.progress, self.opts.dry_run);
        par_each(self.devs.iter_mut().collect(), self.opts.parallel, |d| {
            let intended = d.plan.intended.clone();
            match timed(d, |drv| drv.preflight(&intended)) {
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
                        "disruptive": pf.disruptive,
                    });
                    if pf.changed && !dry {
                        // `--resume` verifies against the rendered copy (filled again from the
                        // environment); `--rollback` pushes the pre-change copy back.
                        let copies = [
                            ("pre_copy", pf.pre_config.as_ref()),
                            ("new_copy", Some(&d.plan.rendered)),
                        ];
                        for (key, set) in copies {
                            let Some(set) = set else { continue };
                            match save_set(journal, set) {
                                Ok(v) => extra[key] = v,
                                Err(e) => extra[format!("{key}_error")] = json!(e),
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
    }

    /// Step 2: Nothing is committed when a preflight failed, a change is disruptive and not allowed,
    /// or this is a dry run: every staged change is discarded. Returns the exit code then.
    fn stop_before_commit(&mut self) -> Option<u8> {
        if !self.opts.dry_run && !self.opts.allow_disruptive {
            let (journal, progress) = (self.journal, self.progress);
            for d in self.select(None, &[DeviceState::Ready]) {
                let findings = d
                    .report
                    .preflight
                    .as_ref()
                    .map(|p| p.disruptive.clone())
                    .unwrap_or_default();
                if findings.is_empty() {
                    continue;
                }
                let e = DriverError::new(
                    FailKind::Disruptive,
                    format!(
                        "{} disruptive change(s) refused: {} — review them with --dry-run and \
                         re-run with --allow-disruptive to push them",
                        findings.len(),
                        findings.join("; ")
                    ),
                );
                let extra = fail(d, e);
                set(d, journal, progress, DeviceState::Failed, extra);
            }
        }
        let refused = self.any(None, &[DeviceState::Failed]);
        if !refused && !self.opts.dry_run {
            return None;
        }
        let (journal, progress) = (self.journal, self.progress);
        // A dry run's diffs stand even when another device failed its preflight.
        let staged = if self.opts.dry_run {
            DeviceState::Diffed
        } else {
            DeviceState::Aborted
        };
        par_each(self.devs.iter_mut().collect(), self.opts.parallel, |d| {
            let _ = timed(d, |drv| drv.abort());
            if d.report.state == DeviceState::Ready {
                set(d, journal, progress, staged, json!({}));
            }
        });
        Some(if refused { 3 } else { 0 })
    }

    /// Unchanged devices are released now and never committed.
    fn release_unchanged(&mut self) {
        self.each(None, &[DeviceState::Unchanged], |d| {
            let _ = timed(d, |drv| drv.abort());
        });
    }

    /// Step 3: Waves: commit-confirmed, then verify by reading back. False when a wave failed.
    fn roll_out(&mut self) -> bool {
        let n_waves = self
            .devs
            .iter()
            .map(|d| d.report.wave)
            .max()
            .map_or(0, |m| m + 1);
        for w in 0..n_waves {
            let n = self.select(Some(w), &[DeviceState::Ready]).len();
            if n == 0 {
                continue;
            }
            (self.progress)(&format!(
                "wave {}/{n_waves}: committing {n} device(s) (revert in {} s unless confirmed)",
                w + 1,
                self.opts.confirm_timeout.as_secs()
            ));
            self.commit_wave(w);
            if self.any(Some(w), &[DeviceState::Failed, DeviceState::Unknown]) {
                return false;
            }
            (self.progress)(&format!("wave {}/{n_waves}: verifying", w + 1));
            self.verify_wave(w);
            if self.any(Some(w), &[DeviceState::Committed]) {
                return false;
            }
        }
        true
    }

    fn commit_wave(&mut self, w: usize) {
        let (journal, progress, timeout) = (self.journal, self.progress, self.opts.confirm_timeout);
        self.each(Some(w), &[DeviceState::Ready], |d| {
            match timed(d, |drv| drv.commit_confirmed(timeout)) {
                Ok(rev) => {
                    hooks::reached("commit-sent");
                    d.report.revision = Some(rev.clone());
                    set(
                        d,
                        journal,
                        progress,
                        DeviceState::Committed,
                        json!({ "revision": rev }),
                    );
                    hooks::reached("committed");
                }
                Err(e) => {
                    // A refused commit left the device as it was; a lost session may or may not
                    // have applied it. Either way the cancel/read-back settles it.
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
    }

    fn verify_wave(&mut self, w: usize) {
        let (journal, progress) = (self.journal, self.progress);
        self.each(Some(w), &[DeviceState::Committed], |d| {
            match timed(d, |drv| drv.verify()) {
                Ok(()) => set(d, journal, progress, DeviceState::Verified, json!({})),
                Err(e) => {
                    let extra = fail(d, e);
                    // Still pending: the cancel reverts it.
                    set(d, journal, progress, DeviceState::Committed, extra);
                }
            }
        });
    }

    /// Step 4a: Every device verified: confirm all.
    fn confirm_all(&mut self) -> u8 {
        (self.progress)("confirming all devices");
        let (journal, progress) = (self.journal, self.progress);
        self.each(None, &[DeviceState::Verified], |d| {
            match timed(d, |drv| drv.confirm()) {
                Ok(()) => set(d, journal, progress, DeviceState::Confirmed, json!({})),
                Err(e) => {
                    // It reverts by itself at the timer: its final state is not known from here.
                    let extra = fail(d, e);
                    set(d, journal, progress, DeviceState::Unknown, extra);
                }
            }
        });
        let all_ok = self.devs.iter().all(|d| {
            matches!(
                d.report.state,
                DeviceState::Confirmed | DeviceState::Unchanged
            )
        });
        if all_ok { 0 } else { 2 }
    }

    /// Step 4b: Something failed: discard what is staged, cancel what was committed, and read back.
    fn cancel_touched(&mut self) -> u8 {
        (self.progress)("failure: cancelling every pending commit");
        let (journal, progress) = (self.journal, self.progress);
        self.each(None, &[DeviceState::Ready], |d| {
            let _ = timed(d, |drv| drv.abort());
            set(d, journal, progress, DeviceState::Aborted, json!({}));
        });
        let touched = [
            DeviceState::Committed,
            DeviceState::Verified,
            DeviceState::Unknown,
            DeviceState::Failed,
        ];
        self.each(None, &touched, |d| {
            if d.report.preflight.is_none() {
                return;
            }
            let cancel = timed(d, |drv| drv.cancel());
            let back = timed(d, |drv| drv.check_reverted());
            let mut extra = json!({ "cancel": cancel.as_ref().err().map(|e| e.message.clone()) });
            match back {
                Ok(true) => set(d, journal, progress, DeviceState::Reverted, extra),
                Ok(false) => set(d, journal, progress, DeviceState::Unknown, extra),
                Err(e) => {
                    extra["readback_error"] = json!(e.message);
                    set(d, journal, progress, DeviceState::Unknown, extra);
                }
            }
        });
        let all_back = self.devs.iter().all(|d| {
            matches!(
                d.report.state,
                DeviceState::Reverted | DeviceState::Unchanged | DeviceState::Aborted
            )
        });
        if all_back { 1 } else { 2 }
    }

    fn finish(self, code: u8) -> Outcome {
        let devices: Vec<DeviceReport> = self.devs.into_iter().map(|d| d.report).collect();
        self.journal.record(
            None,
            "end",
            json!({
                "exit_code": code,
                "seconds": self.started.elapsed().as_secs_f64(),
                "states": devices.iter().map(|d| json!({"device": d.device, "state": d.state})).collect::<Vec<_>>(),
            }),
        );
        if matches!(code, 1 | 3) {
            // Nothing stayed changed: no copy is needed for a resume or a rollback.
            self.journal.discard_copies();
        }
        Outcome {
            txid: self.journal.txid().to_string(),
            exit_code: code,
            confirm_timeout_s: self.opts.confirm_timeout.as_secs(),
            devices,
            journal: self.journal.path().display().to_string(),
        }
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
        disruptive: Vec<String>,
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
        fn preflight(&mut self, _: &ConfigSet) -> Result<Preflight, DriverError> {
            self.step("preflight")?;
            Ok(Preflight {
                changed: self.changed,
                disruptive: self.disruptive.clone(),
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
        go_with(devs, dry_run, &[], false)
    }

    fn go_with(
        devs: &[(&str, &str, bool, Option<&'static str>, bool)],
        dry_run: bool,
        disruptive_on: &[&str],
        allow_disruptive: bool,
    ) -> (Outcome, Vec<String>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let plans = devs
            .iter()
            .map(|(n, role, ..)| DevicePlan::new(n, Some(role), "fake", ConfigSet::default()))
            .collect();
        let drivers: Vec<Box<dyn Driver>> = devs
            .iter()
            .map(|(n, _, changed, fail_at, reverts)| {
                Box::new(Fake {
                    name: n.to_string(),
                    changed: *changed,
                    disruptive: if disruptive_on.contains(n) {
                        vec!["MTU on swp1: 1500 → 9216".to_string()]
                    } else {
                        Vec::new()
                    },
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
            allow_disruptive,
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
        assert_eq!(state(&o, "s1"), DeviceState::Diffed);
        assert_eq!(state(&o, "l1"), DeviceState::Unchanged);
    }

    #[test]
    fn a_disruptive_change_refuses_the_push_unless_allowed() {
        let devs = [
            ("s1", "spine", true, None, true),
            ("l1", "leaf", true, None, true),
        ];
        let (o, log) = go_with(&devs, false, &["l1"], false);
        assert_eq!(o.exit_code, 3);
        assert!(log.iter().all(|l| !l.ends_with(":commit")), "{log:?}");
        assert_eq!(state(&o, "l1"), DeviceState::Failed);
        assert_eq!(state(&o, "s1"), DeviceState::Aborted);
        let e = o.devices[1].error.as_ref().unwrap();
        assert_eq!(e.kind, FailKind::Disruptive);
        assert!(
            e.message.contains("MTU on swp1: 1500 → 9216"),
            "{}",
            e.message
        );
        assert!(e.message.contains("--allow-disruptive"), "{}", e.message);
        // Listed, not refused, in a dry run; pushed when allowed.
        let (o, _) = go_with(&devs, true, &["l1"], false);
        assert_eq!((o.exit_code, state(&o, "l1")), (0, DeviceState::Diffed));
        let (o, _) = go_with(&devs, false, &["l1"], true);
        assert_eq!((o.exit_code, state(&o, "l1")), (0, DeviceState::Confirmed));
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
