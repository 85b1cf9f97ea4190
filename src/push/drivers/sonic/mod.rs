//! The `sonic-ssh` driver: both halves of a SONiC config in one transaction. `config_db.json`:
//! `config checkpoint` → `config replace --dry-run` (GCU's own plan, and a gate) → `config
//! replace`; `frr.conf` (split routing-config mode, where FRR owns its config — refused when
//! `config_db.json` selects a mode in which CONFIG_DB generates it): the `frr-ssh` sequence run
//! in the `bgp` container (`drivers::frr::ops`). One device-side revert timer covers both
//! (`config rollback <checkpoint>` and frr-reload.py of the pre-change FRR config), armed before
//! either is applied; confirm = disarm, `config save -y`, `write memory`, delete the checkpoint.
//! CONFIG_DB is compared by meaning as canonical tree lines (`push::tree`), whose facts
//! `facts.rs` reads for disruptive changes; `frr.conf` as FRR's.

use std::collections::BTreeSet;
use std::time::Duration;

use super::commands::{self, CliSettings};
use super::frr::audit as frr_audit;
use super::frr::ops::{Baseline, FrrOps};
use crate::meaning::canonical::{self, diff_text};
use crate::meaning::disruptive;
use crate::meaning::frr::facts::FRR_LINES;
use crate::meaning::sonic::facts::ConfigDbLines;
use crate::meaning::tree;
use crate::output::shell::quote as q;
use crate::push::PushSettings;
use crate::push::driver::{AuditLines, ConfigSet, Driver, DriverError, FailKind, Preflight};
use crate::push::remote::Remote;
use crate::push::revert_timer;
use crate::push::targets::{FrrSpec, Target};

/// The driver of a target within transaction `tag` (`<txid>-<device>`).
pub(crate) fn for_target(t: &Target, tag: String, s: &PushSettings) -> Box<dyn Driver> {
    Box::new(SonicDriver::new(
        commands::remote(t, s),
        CliSettings::for_target(t, tag),
        t.read.clone(),
        t.frr.clone(),
    ))
}

/// `sonic-ssh`: `config_db.json` through GCU and `frr.conf` through frr-reload.py, one
/// transaction, one revert timer.
pub struct SonicDriver {
    r: Remote,
    s: CliSettings,
    /// The command printing the running CONFIG_DB as JSON.
    read: String,
    frr: FrrOps,
    /// The uploaded `config_db.json` on the device.
    file: String,
    /// Canonical CONFIG_DB before the change, and intended.
    pre: BTreeSet<String>,
    want: BTreeSet<String>,
    db_changed: bool,
    frr_changed: bool,
    /// Whether `frr.conf` is part of this push.
    with_frr: bool,
    touched: bool,
    notes: Vec<String>,
}

/// `DEVICE_METADATA|localhost|docker_routing_config_mode` values in which FRR owns its config
/// (`split`, `split-unified`: the FRR config files are read as they are, so `frr.conf` can be
/// pushed); in `separated`/`unified` the `bgp` container generates it from CONFIG_DB.
const FRR_OWNS_CONFIG: &[&str] = &["split", "split-unified"];

impl SonicDriver {
    pub fn new(r: Remote, s: CliSettings, read: String, frr: FrrSpec) -> Self {
        let tag = s.tag.clone();
        Self {
            r,
            s,
            read,
            frr: FrrOps::new(frr, tag),
            file: String::new(),
            pre: BTreeSet::new(),
            want: BTreeSet::new(),
            db_changed: false,
            frr_changed: false,
            with_frr: false,
            touched: false,
            notes: Vec::new(),
        }
    }

    fn checkpoint(&self) -> String {
        format!("railyard-{}", self.s.tag)
    }

    fn running_db(&mut self) -> Result<(String, BTreeSet<String>), DriverError> {
        let read = self.read.clone();
        let text = self.r.ok("reading CONFIG_DB", &read, None)?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            DriverError::new(
                FailKind::Rejected,
                format!("`{read}` printed no JSON CONFIG_DB: {e}"),
            )
        })?;
        Ok((text, tree::lines(&v)))
    }

    /// Both halves read back and compared with a baseline; the differences, tagged by file.
    fn drift(&mut self, baseline: Baseline) -> Result<String, DriverError> {
        self.r.fresh();
        let (_, now) = self.running_db()?;
        let base = match baseline {
            Baseline::Intended => &self.want,
            Baseline::Previous => &self.pre,
        };
        let (removed, added) = canonical::diff(&now, base);
        let mut text = tagged("config_db.json", &removed, &added);
        if self.with_frr {
            let (removed, added) = self.frr.drift(&mut self.r, baseline)?;
            text.push_str(&tagged("frr.conf", &removed, &added));
        }
        Ok(text)
    }

    fn disarm(&mut self) -> Result<bool, DriverError> {
        let out = self.r.ok(
            "disarming the revert timer",
            &revert_timer::disarm_script(&self.s.file("timer.pid")),
            None,
        )?;
        Ok(out.trim() == "disarmed")
    }
}

/// The build's `config_db.json` as JSON.
fn intended_db(intended: &ConfigSet) -> Result<serde_json::Value, DriverError> {
    serde_json::from_slice(intended.main()).map_err(|e| {
        DriverError::new(
            FailKind::Rejected,
            format!("{} is not valid JSON: {e}", intended.main_name()),
        )
    })
}

/// `file: line` for every line, so drift names the half it is in.
fn in_file(file: &str, lines: BTreeSet<String>) -> impl Iterator<Item = String> + '_ {
    lines.into_iter().map(move |l| format!("{file}: {l}"))
}

/// `- file: line` / `+ file: line`.
fn tagged(file: &str, removed: &[String], added: &[String]) -> String {
    let r: Vec<String> = removed.iter().map(|l| format!("{file}: {l}")).collect();
    let a: Vec<String> = added.iter().map(|l| format!("{file}: {l}")).collect();
    diff_text(&r, &a)
}

impl Driver for SonicDriver {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        let db = intended_db(intended)?;
        let frr_conf = intended.get("frr.conf");
        if frr_conf.is_some() {
            let mode = db
                .pointer("/DEVICE_METADATA/localhost/docker_routing_config_mode")
                .and_then(|m| m.as_str())
                .unwrap_or("(unset)");
            if !FRR_OWNS_CONFIG.contains(&mode) {
                return Err(DriverError::new(
                    FailKind::Rejected,
                    format!(
                        "{} sets DEVICE_METADATA|localhost|docker_routing_config_mode to {mode}: \
                         in that mode the bgp container generates FRR's config from CONFIG_DB, so \
                         frr.conf cannot be pushed (render with split-unified)",
                        intended.main_name()
                    ),
                ));
            }
        }
        self.with_frr = frr_conf.is_some();
        self.touched = true;
        self.want = tree::lines(&db);
        let (pre_text, pre) = self.running_db()?;
        self.pre = pre;
        self.file = self.s.upload(&mut self.r, intended.main(), "json")?;
        let (tool, cp, file) = (self.s.tool.clone(), self.checkpoint(), self.file.clone());
        self.r.ok(
            "config checkpoint",
            &format!("{tool} checkpoint {}", q(&cp)),
            None,
        )?;
        let plan = self.r.ok(
            "config replace --dry-run",
            &format!("{tool} replace --dry-run {}", q(&file)),
            None,
        )?;
        let (db_removed, db_added) = canonical::diff(&self.pre, &self.want);
        self.db_changed = !db_removed.is_empty() || !db_added.is_empty();
        let mut canonical = tagged("config_db.json", &db_removed, &db_added);
        let mut native = format!("config_db.json (GCU dry run):\n{plan}");
        let before: Vec<String> = self.pre.iter().cloned().collect();
        let mut findings = disruptive::findings(&ConfigDbLines, &before, &db_removed, &db_added);
        let mut pre_config = ConfigSet::single(intended.main_name(), pre_text.into_bytes());
        if let Some(conf) = frr_conf {
            let st = self.frr.stage(&mut self.r, conf)?;
            self.frr_changed = !st.removed.is_empty() || !st.added.is_empty();
            canonical.push_str(&tagged("frr.conf", &st.removed, &st.added));
            native.push_str(&format!(
                "\nfrr.conf (frr-reload.py --test):\n{}",
                st.native_diff
            ));
            findings.extend(
                disruptive::findings(&FRR_LINES, &st.previous, &st.removed, &st.added)
                    .into_iter()
                    .map(|f| format!("frr.conf: {f}")),
            );
            pre_config
                .files
                .push(("frr.conf".to_string(), st.running.into_bytes()));
        }
        let changed = self.db_changed || self.frr_changed;
        if !changed {
            self.abort()?;
        }
        Ok(Preflight {
            native_diff: native,
            canonical_diff: canonical,
            changed,
            pre_hash: canonical::digest(&self.pre),
            intended_hash: intended.sha256(),
            disruptive: findings,
            pre_config: Some(pre_config),
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        if !std::mem::replace(&mut self.touched, false) {
            return Ok(());
        }
        let (tool, cp) = (self.s.tool.clone(), self.checkpoint());
        let r = self.r.ok(
            "config delete-checkpoint",
            &format!("{tool} delete-checkpoint {}", q(&cp)),
            None,
        );
        self.s.remove_uploads(&mut self.r);
        if self.with_frr {
            let _ = self.frr.cleanup(&mut self.r);
        }
        r.map(|_| ())
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        let (tool, cp, file) = (self.s.tool.clone(), self.checkpoint(), self.file.clone());
        // No native confirm: arm one device-side revert for both halves first, then apply.
        let mut revert = format!("{tool} rollback {}", q(&cp));
        if self.with_frr {
            revert.push_str(&format!("; {}", self.frr.revert_command()));
        }
        let out = self.r.ok(
            "arming the revert timer",
            &revert_timer::arm_script(
                &self.s.file("timer.pid"),
                timeout,
                &revert,
                &self.s.file("revert.log"),
            ),
            None,
        )?;
        if out.trim() != "armed" {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("revert timer not armed ({})", self.s.file("timer.pid")),
            ));
        }
        if self.db_changed {
            let r = self.r.ok(
                "config replace",
                &format!("{tool} replace {}", q(&file)),
                None,
            );
            if let Err(mut e) = r {
                // GCU does no recovery of its own: the state is unknown until cancel restores it.
                e.kind = FailKind::Transport;
                return Err(e);
            }
        }
        if self.frr_changed
            && let Some(note) = self.frr.reload_intended(&mut self.r)?
        {
            self.notes.push(note);
        }
        Ok(cp)
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        let drift = self.drift(Baseline::Intended)?;
        if drift.is_empty() {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                format!(
                    "the device differs from the intended config after the change:\n{}",
                    drift.trim_end()
                ),
            ))
        }
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        if !self.disarm()? {
            return Err(DriverError::new(
                FailKind::Transport,
                "the revert timer had already fired: the device rolled back",
            ));
        }
        let tool = self.s.tool.clone();
        self.r.ok("config save", &format!("{tool} save -y"), None)?;
        if self.with_frr && self.frr_changed {
            self.frr.persist(&mut self.r)?;
        }
        self.abort()
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        let _ = self.disarm();
        let (tool, cp) = (self.s.tool.clone(), self.checkpoint());
        let db = self.r.ok(
            "config rollback",
            &format!("{tool} rollback {}", q(&cp)),
            None,
        );
        if self.with_frr {
            // Not the verdict (see FrrOps::reload_previous): `check_reverted` reads back.
            self.notes.extend(self.frr.reload_previous(&mut self.r)?);
        }
        db.map(|_| ())
    }

    fn running(&mut self, intended: &ConfigSet) -> Result<AuditLines, DriverError> {
        // Preflight's reads alone: the CONFIG_DB read command and, with `frr.conf` in the build,
        // FRR's `show running-config` in the bgp container (both halves as push compares them);
        // no checkpoint, no upload, no timer.
        let build_db = tree::lines(&intended_db(intended)?);
        self.r.fresh();
        let (_, device_db) = self.running_db()?;
        let mut lines = AuditLines {
            device: in_file("config_db.json", device_db).collect(),
            build: in_file("config_db.json", build_db).collect(),
            notes: Vec::new(),
        };
        if let Some(conf) = intended.get("frr.conf") {
            let daemons = self.frr.daemons(&mut self.r)?;
            let text = self.frr.read_running(&mut self.r)?;
            let (device, build, note) = frr_audit::lines(&text, conf, &daemons);
            lines.device.extend(in_file("frr.conf", device));
            lines.build.extend(in_file("frr.conf", build));
            lines.notes.extend(note);
        }
        Ok(lines)
    }

    fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        let drift = self.drift(Baseline::Previous)?;
        if drift.is_empty() {
            let _ = self.abort();
            return Ok(true);
        }
        Err(DriverError::new(
            FailKind::Verify,
            format!(
                "after the rollback the device still differs from its pre-change config:\n{}",
                drift.trim_end()
            ),
        ))
    }
}
