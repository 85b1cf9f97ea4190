//! The `frr-ssh` driver: FRR on Linux over SSH, compared by meaning (`canon.rs`; the facts of
//! its lines for disruptive changes: `facts.rs`).
//!
//! FRR has no native confirmed commit, so a device-side revert timer is armed *before* applying
//! and disarmed on confirm; it lives on the device so a lost controller still reverts.
//!
//! Sequence (`ops.rs`): upload → `vtysh -C -f` (syntax) → save `show running-config` as the
//! pre-change config → read the running and the intended config through a scratch FRR
//! (`scratch.rs`) → canonical diff (`canon.rs`: what changes in meaning; empty = unchanged, never
//! reloaded) → `frr-reload.py --test` (its own diff, and a gate: FRR 8.4 plans to delete
//! everything when the new file does not parse) → arm the timer → `frr-reload.py --reload`.
//! Verify = the running config, read through the scratch FRR, equals the intended one; confirm =
//! disarm, `write memory`, remove the transaction's files; cancel = disarm, reload the
//! pre-change config, and read back.

pub(crate) mod audit;
pub(crate) mod ops;
pub(crate) mod scratch;

use std::time::Duration;

use crate::meaning::canonical;
use crate::meaning::disruptive;
use crate::meaning::frr::facts::FRR_LINES;
use crate::output::digest::sha256_hex;
use crate::push::PushSettings;
use crate::push::driver::{AuditLines, ConfigSet, Driver, DriverError, FailKind, Preflight};
use crate::push::remote::Remote;
use crate::push::revert_timer;
use crate::push::ssh::{Auth, ConnectOptions, Endpoint};
use crate::push::targets::{FrrSpec, Target};
use ops::{Baseline, FrrOps};

/// The driver of a target within transaction `tag` (`<txid>-<device>`).
pub(crate) fn for_target(t: &Target, tag: String, s: &PushSettings) -> Box<dyn Driver> {
    Box::new(
        FrrDriver::new(
            t.endpoint.clone(),
            t.auth.clone(),
            s.connect.clone(),
            t.frr.clone(),
            tag,
            s.client.rpc_timeout,
        )
        .with_slow_timeout(s.client.commit_timeout),
    )
}

pub struct FrrDriver {
    r: Remote,
    ops: FrrOps,
    /// Something of this transaction is on the device (files, maybe a timer).
    touched: bool,
    /// What frr-reload.py said when it put the pre-change config back, if it complained.
    revert_note: Option<String>,
    /// What frr-reload.py said when it applied the intended config, if it complained: part of
    /// a verify failure's message.
    reload_note: Option<String>,
    /// Remarks for the report (`take_notes`).
    notes: Vec<String>,
}

impl FrrDriver {
    pub fn new(
        endpoint: Endpoint,
        auth: Auth,
        connect: ConnectOptions,
        frr: FrrSpec,
        tag: String,
        timeout: Duration,
    ) -> Self {
        Self {
            r: Remote::new(endpoint, auth, connect, timeout),
            ops: FrrOps::new(frr, tag),
            touched: false,
            revert_note: None,
            reload_note: None,
            notes: Vec::new(),
        }
    }

    /// The deadline of the whole-config steps (frr-reload.py, the scratch FRR).
    pub fn with_slow_timeout(mut self, t: Duration) -> Self {
        self.r = self.r.with_slow_timeout(t);
        self
    }

    fn disarm(&mut self) -> Result<bool, DriverError> {
        let cmd = revert_timer::disarm_script(&self.ops.file("timer.pid"));
        let out = self.r.run(&cmd, None)?;
        Ok(out.stdout.trim() == "disarmed")
    }
}

/// A drift as one message: what the device has that the baseline lacks (`-`), and the reverse.
pub(crate) fn drift_message(what: &str, removed: &[String], added: &[String]) -> String {
    format!(
        "{what}:\n{}",
        canonical::diff_text(removed, added).trim_end()
    )
}

impl Driver for FrrDriver {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        self.touched = true;
        let st = self.ops.stage(&mut self.r, intended.main())?;
        let canonical = canonical::diff_text(&st.removed, &st.added);
        Ok(Preflight {
            changed: !canonical.is_empty(),
            native_diff: st.native_diff,
            disruptive: disruptive::findings(&FRR_LINES, &st.previous, &st.removed, &st.added),
            canonical_diff: canonical,
            pre_hash: sha256_hex(st.running.as_bytes()),
            intended_hash: intended.sha256(),
            pre_config: Some(ConfigSet::single(
                intended.main_name(),
                st.running.into_bytes(),
            )),
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        if !std::mem::replace(&mut self.touched, false) {
            return Ok(());
        }
        let _ = self.disarm();
        let r = self.ops.cleanup(&mut self.r);
        self.r.fresh();
        r
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        // Arm first: if railyard dies between the two steps the device still goes back.
        let arm = revert_timer::arm_script(
            &self.ops.file("timer.pid"),
            timeout,
            &self.ops.revert_command(),
            &self.ops.file("revert.log"),
        );
        let out = self.r.run(&arm, None)?;
        if out.stdout.trim() != "armed" {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!(
                    "could not arm the revert timer ({}): {}",
                    self.ops.file("timer.pid"),
                    out.stderr.trim()
                ),
            ));
        }
        self.reload_note = self.ops.reload_intended(&mut self.r)?;
        self.notes.extend(self.reload_note.clone());
        Ok(format!("timer:{}", self.ops.file("timer.pid")))
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        // A fresh session, as for NETCONF: the one that applied may be lying.
        self.r.fresh();
        let (removed, added) = self.ops.drift(&mut self.r, Baseline::Intended)?;
        if removed.is_empty() && added.is_empty() {
            return Ok(());
        }
        let mut msg = drift_message(
            "the running config differs in meaning from frr.conf after the reload",
            &removed,
            &added,
        );
        if let Some(n) = &self.reload_note {
            msg.push_str(&format!("\n({n})"));
        }
        Err(DriverError::new(FailKind::Verify, msg))
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        if !self.disarm()? {
            return Err(DriverError::new(
                FailKind::Transport,
                "the revert timer had already fired: the device went back to its old config",
            ));
        }
        self.ops.persist(&mut self.r)?;
        let _ = self.abort();
        Ok(())
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        let _ = self.disarm()?;
        // frr-reload.py's exit status is not the verdict (see `reload_previous`): the read-back
        // in `check_reverted` is.
        self.revert_note = self.ops.reload_previous(&mut self.r)?;
        self.notes.extend(self.revert_note.clone());
        Ok(())
    }

    fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        self.r.fresh();
        let (removed, added) = self.ops.drift(&mut self.r, Baseline::Previous)?;
        if removed.is_empty() && added.is_empty() {
            self.touched = true;
            let _ = self.abort();
            return Ok(true);
        }
        let mut msg = drift_message(
            "after the revert the running config still differs from the pre-change config",
            &removed,
            &added,
        );
        if let Some(n) = &self.revert_note {
            msg.push_str(&format!("\n({n})"));
        }
        Err(DriverError::new(FailKind::Verify, msg))
    }

    fn adopt(&mut self, _intended: &ConfigSet, _pre_hash: &str) -> Result<(), DriverError> {
        // The transaction's files (pre.conf, the normalized baselines, the timer's pid file) are
        // still on the device under this transaction's tag: the other steps read them there.
        self.touched = true;
        Ok(())
    }

    fn running(&mut self, intended: &ConfigSet) -> Result<AuditLines, DriverError> {
        // Two reads over SSH (the daemons' vty sockets, `show running-config`); nothing staged.
        self.r.fresh();
        let daemons = self.ops.daemons(&mut self.r)?;
        let text = self.ops.read_running(&mut self.r)?;
        let (device, build, note) = audit::lines(&text, intended.main(), &daemons);
        Ok(AuditLines {
            device,
            build,
            notes: note.into_iter().collect(),
        })
    }
}
