//! SSH command-sequence drivers for NVIDIA Cumulus (NVUE), Arista EOS and SONiC, following the
//! transactional paths in PUSH-DESIGN §1 and §5. They are tested against *contract stand-ins*
//! (tests/push_contract.rs) that implement only the documented command sequences — not against
//! the vendors' devices — so what is asserted is railyard's sequencing, units and cleanup.
//!
//! * `nvue-ssh`: `nv config replace` → `nv config diff` → `nv config apply --confirm <N>s -y` →
//!   `nv config apply --confirm-yes` (cancel: `--confirm-no`; cleanup: `nv config detach`).
//!   Confirm window in NVUE's explicit seconds suffix (`300s`): the doc's bare number is ambiguous.
//! * `eos-ssh`: `configure session railyard-…` + `rollback clean-config` + config →
//!   `show session-config named … diffs` → `configure session … commit timer hh:mm:ss` →
//!   `configure session … commit` (cancel/cleanup: `configure session … abort`).
//! * `sonic-ssh`: both halves of a SONiC config in one transaction. `config_db.json`:
//!   `config checkpoint` → `config replace --dry-run` (GCU's own plan, and a gate) → `config
//!   replace`; `frr.conf` (split routing-config mode, where FRR owns its config — refused when
//!   `config_db.json` selects a mode in which CONFIG_DB generates it): the `frr-ssh` sequence run
//!   in the `bgp` container. One device-side revert timer covers both (`config rollback
//!   <checkpoint>` and frr-reload.py of the pre-change FRR config), armed before either is
//!   applied; confirm = disarm, `config save -y`, `write memory`, delete the checkpoint.
//!
//! Commands marked unverified in PUSH-DESIGN (NVUE `--confirm-yes/--confirm-no`, EOS over an exec
//! channel with commands on stdin) need a check on a real box before production use.

use std::collections::BTreeSet;
use std::time::Duration;

use super::disruptive::{self, Dialect};
use super::driver::{ConfigSet, Driver, DriverError, FailKind, Preflight};
use super::frr::canon::diff_text;
use super::frr::ops::{Baseline, FrrOps};
use super::remote::Remote;
use super::revert_timer;
use super::targets::FrrSpec;
use super::tree;
use crate::output::digest::sha256_hex;
use crate::output::shell::quote as q;

/// Settings common to the command drivers.
#[derive(Clone, Debug)]
pub struct CliSettings {
    /// The platform tool (`nv`, `Cli -p 15`, `config`); stand-ins and odd installs override it.
    pub tool: String,
    /// Where railyard keeps uploaded files and timers on the device.
    pub state_dir: String,
    /// `<txid>-<device>`.
    pub tag: String,
}

impl CliSettings {
    fn file(&self, ext: &str) -> String {
        format!("{}/{}.{ext}", self.state_dir, self.tag)
    }

    fn upload(&self, r: &mut Remote, data: &[u8], ext: &str) -> Result<String, DriverError> {
        let path = self.file(ext);
        r.ok(
            "upload",
            &format!(
                "umask 077 && mkdir -p {} && cat > {}",
                q(&self.state_dir),
                q(&path)
            ),
            Some(data),
        )?;
        Ok(path)
    }

    /// Remove this transaction's files from the device (best effort: only over a session that is
    /// already open, so an unreachable device costs no second connect timeout).
    fn remove_uploads(&self, r: &mut Remote) {
        if r.is_connected() {
            let prefix = format!("{}/{}.", self.state_dir, self.tag);
            let _ = r.run(&format!("rm -f {}*", q(&prefix)), None);
        }
    }
}

/// NVUE's confirm window: explicit seconds suffix.
pub fn nvue_window(t: Duration) -> String {
    format!("{}s", t.as_secs().max(1))
}

/// EOS's `commit timer`: hh:mm:ss (at most 23:59:59 is accepted by EOS's grammar here).
pub fn eos_window(t: Duration) -> String {
    let s = t.as_secs().clamp(1, 24 * 3600 - 1);
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Parse YAML into a JSON value for order-insensitive comparison of maps.
fn yaml_value(text: &str) -> Option<serde_json::Value> {
    serde_saphyr::from_str::<serde_json::Value>(text).ok()
}

/// The canonical lines of an NVUE config (`startup.yaml` or `nv config show -o yaml`).
fn nvue_lines(text: &str) -> Option<BTreeSet<String>> {
    yaml_value(text).map(|v| tree::lines(&tree::nvue_config(&v)))
}

/// `nvue-ssh`.
pub struct NvueDriver {
    r: Remote,
    s: CliSettings,
    want: BTreeSet<String>,
    pre: BTreeSet<String>,
}

impl NvueDriver {
    pub fn new(r: Remote, s: CliSettings) -> Self {
        Self {
            r,
            s,
            want: BTreeSet::new(),
            pre: BTreeSet::new(),
        }
    }

    fn applied(&mut self) -> Result<BTreeSet<String>, DriverError> {
        let cmd = format!("{} config show -r applied -o yaml", self.s.tool);
        let text = self.r.ok("nv config show -r applied", &cmd, None)?;
        nvue_lines(&text).ok_or_else(|| {
            DriverError::new(
                FailKind::Rejected,
                "nv config show -r applied -o yaml printed no YAML",
            )
        })
    }
}

impl Driver for NvueDriver {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        let text = std::str::from_utf8(intended.main())
            .map_err(|_| DriverError::new(FailKind::Rejected, "startup.yaml is not UTF-8"))?;
        self.want = nvue_lines(text).ok_or_else(|| {
            DriverError::new(FailKind::Rejected, "startup.yaml is not valid YAML")
        })?;
        self.pre = self.applied()?;
        let file = self.s.upload(&mut self.r, intended.main(), "yaml")?;
        let tool = self.s.tool.clone();
        self.r.ok(
            "nv config replace",
            &format!("{tool} config replace {}", q(&file)),
            None,
        )?;
        let native = self
            .r
            .ok("nv config diff", &format!("{tool} config diff"), None)?;
        let (removed, added) = tree::diff(&self.pre, &self.want);
        let changed = !removed.is_empty() || !added.is_empty();
        if !changed {
            self.abort()?;
        }
        Ok(Preflight {
            native_diff: native,
            canonical_diff: diff_text(&removed, &added),
            changed,
            pre_hash: sha256_hex(
                self.pre
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
                    .as_bytes(),
            ),
            intended_hash: intended.sha256(),
            disruptive: disruptive::findings(
                Dialect::Nvue,
                &self.pre.iter().cloned().collect::<Vec<_>>(),
                &removed,
                &added,
            ),
            // `nv config show` prints the tree, not a startup file: no --rollback copy.
            pre_config: None,
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        let cmd = format!("{} config detach", self.s.tool);
        let r = self.r.ok("nv config detach", &cmd, None).map(|_| ());
        self.s.remove_uploads(&mut self.r);
        r
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        let cmd = format!(
            "{} config apply --confirm {} -y",
            self.s.tool,
            nvue_window(timeout)
        );
        self.r.ok("nv config apply --confirm", &cmd, None)?;
        Ok(format!("nvue-confirm:{}", self.s.tag))
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        self.r.fresh();
        let now = self.applied()?;
        let (removed, added) = tree::diff(&now, &self.want);
        if removed.is_empty() && added.is_empty() {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                format!(
                    "the applied NVUE config differs from startup.yaml:\n{}",
                    diff_text(&removed, &added).trim_end()
                ),
            ))
        }
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        let cmd = format!("{} config apply --confirm-yes", self.s.tool);
        self.r.ok("nv config apply --confirm-yes", &cmd, None)?;
        self.s.remove_uploads(&mut self.r);
        Ok(())
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        let cmd = format!("{} config apply --confirm-no", self.s.tool);
        let r = self.r.ok("nv config apply --confirm-no", &cmd, None);
        // Also drop anything still pending (a failed apply leaves the replaced pending config).
        let _ = self.abort();
        r.map(|_| ())
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        self.r.fresh();
        Ok(self.applied()? == self.pre)
    }
}

/// Indentation-aware canonical lines of an EOS config: each line prefixed by its parents, so
/// order inside a block does not matter; comments, `!` and `end` ignored.
pub fn eos_canonical(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim_end();
        let body = t.trim_start();
        if body.is_empty() || body.starts_with('!') || body == "end" {
            continue;
        }
        let indent = t.len() - body.len();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path: Vec<&str> = stack.iter().map(|(_, s)| s.as_str()).collect();
        out.insert(if path.is_empty() {
            body.to_string()
        } else {
            format!("{} > {body}", path.join(" > "))
        });
        stack.push((indent, body.to_string()));
    }
    out
}

/// `eos-ssh`.
pub struct EosDriver {
    r: Remote,
    s: CliSettings,
    intended: Vec<u8>,
    pre: BTreeSet<String>,
    /// The last `show running-config` text (the pre-change config after preflight).
    pre_text: String,
}

impl EosDriver {
    pub fn new(r: Remote, s: CliSettings) -> Self {
        Self {
            r,
            s,
            intended: Vec::new(),
            pre: BTreeSet::new(),
            pre_text: String::new(),
        }
    }

    /// EOS session names allow letters, digits, `-` and `_`.
    fn session(&self) -> String {
        let name: String = self
            .s
            .tag
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("railyard-{name}")
    }

    /// Feed CLI commands on stdin to the EOS CLI.
    fn cli(&mut self, what: &str, commands: &str) -> Result<String, DriverError> {
        let out = self
            .r
            .run(&self.s.tool.clone(), Some(commands.as_bytes()))?;
        // EOS reports errors as `% …` lines, not always with a non-zero exit status.
        let errs: Vec<&str> = out
            .stdout
            .lines()
            .chain(out.stderr.lines())
            .filter(|l| l.trim_start().starts_with('%'))
            .collect();
        if out.status != 0 || !errs.is_empty() {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("{what} failed (rc {}): {}", out.status, errs.join(" | ")),
            ));
        }
        Ok(out.stdout)
    }

    fn running(&mut self) -> Result<BTreeSet<String>, DriverError> {
        let text = self.cli("show running-config", "show running-config\n")?;
        let lines = eos_canonical(&text);
        self.pre_text = text;
        Ok(lines)
    }
}

impl Driver for EosDriver {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        let intended_set = intended;
        let intended = intended.main();
        let text = String::from_utf8(intended.to_vec())
            .map_err(|_| DriverError::new(FailKind::Rejected, "startup-config is not UTF-8"))?;
        self.intended = intended.to_vec();
        self.pre = self.running()?;
        let s = self.session();
        // Full replace: a clean session, then the whole intended config (PUSH-DESIGN §1.3).
        let mut cmds = format!("configure session {s}\nrollback clean-config\n");
        for l in text.lines() {
            let b = l.trim_start();
            if b.is_empty() || b.starts_with('!') || b == "end" {
                continue;
            }
            cmds.push_str(l);
            cmds.push('\n');
        }
        cmds.push_str("end\n");
        self.cli("staging the config session", &cmds)?;
        let diff = self.cli(
            "show session-config diffs",
            &format!("show session-config named {s} diffs\n"),
        )?;
        let want = eos_canonical(&text);
        let removed: Vec<String> = self.pre.difference(&want).cloned().collect();
        let added: Vec<String> = want.difference(&self.pre).cloned().collect();
        let changed = !removed.is_empty() || !added.is_empty();
        if !changed {
            self.abort()?;
        }
        Ok(Preflight {
            native_diff: diff,
            canonical_diff: diff_text(&removed, &added),
            changed,
            pre_hash: sha256_hex(
                self.pre
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
                    .as_bytes(),
            ),
            intended_hash: intended_set.sha256(),
            disruptive: disruptive::findings(
                Dialect::Eos,
                &self.pre.iter().cloned().collect::<Vec<_>>(),
                &removed,
                &added,
            ),
            // `show running-config` is a whole config the session path replaces with.
            pre_config: Some(ConfigSet::single(
                intended_set.main_name(),
                self.pre_text.clone().into_bytes(),
            )),
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        let s = self.session();
        self.cli("session abort", &format!("configure session {s} abort\n"))
            .map(|_| ())
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        let s = self.session();
        self.cli(
            "commit timer",
            &format!(
                "configure session {s} commit timer {}\n",
                eos_window(timeout)
            ),
        )?;
        Ok(s)
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        self.r.fresh();
        let want = eos_canonical(&String::from_utf8_lossy(&self.intended));
        let now = self.running()?;
        let removed: Vec<String> = now.difference(&want).cloned().collect();
        let added: Vec<String> = want.difference(&now).cloned().collect();
        if removed.is_empty() && added.is_empty() {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                format!(
                    "running-config differs from startup-config:\n{}",
                    diff_text(&removed, &added).trim_end()
                ),
            ))
        }
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        let s = self.session();
        self.cli(
            "confirming commit",
            &format!("configure session {s} commit\n"),
        )
        .map(|_| ())
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        self.abort()
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        self.r.fresh();
        Ok(self.running()? == self.pre)
    }
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
        let (removed, added) = tree::diff(&now, base);
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

/// `- file: line` / `+ file: line`.
fn tagged(file: &str, removed: &[String], added: &[String]) -> String {
    let r: Vec<String> = removed.iter().map(|l| format!("{file}: {l}")).collect();
    let a: Vec<String> = added.iter().map(|l| format!("{file}: {l}")).collect();
    diff_text(&r, &a)
}

impl Driver for SonicDriver {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        let db: serde_json::Value = serde_json::from_slice(intended.main()).map_err(|e| {
            DriverError::new(
                FailKind::Rejected,
                format!("{} is not valid JSON: {e}", intended.main_name()),
            )
        })?;
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
        let (db_removed, db_added) = tree::diff(&self.pre, &self.want);
        self.db_changed = !db_removed.is_empty() || !db_added.is_empty();
        let mut canonical = tagged("config_db.json", &db_removed, &db_added);
        let mut native = format!("config_db.json (GCU dry run):\n{plan}");
        let before: Vec<String> = self.pre.iter().cloned().collect();
        let mut findings = disruptive::findings(Dialect::Sonic, &before, &db_removed, &db_added);
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
                disruptive::findings(Dialect::Frr, &st.previous, &st.removed, &st.added)
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
            pre_hash: sha256_hex(
                self.pre
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
                    .as_bytes(),
            ),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_explicit() {
        assert_eq!(nvue_window(Duration::from_secs(300)), "300s");
        assert_eq!(eos_window(Duration::from_secs(300)), "00:05:00");
        assert_eq!(eos_window(Duration::from_secs(3725)), "01:02:05");
        assert_eq!(eos_window(Duration::from_secs(0)), "00:00:01");
    }

    #[test]
    fn eos_canonical_ignores_order_within_blocks() {
        let a = eos_canonical(
            "hostname a\n!\nrouter bgp 1\n   neighbor x remote-as 2\n   router-id 1.1.1.1\nend\n",
        );
        let b = eos_canonical(
            "router bgp 1\n   router-id 1.1.1.1\n   neighbor x remote-as 2\n!\nhostname a\n",
        );
        assert_eq!(a, b);
        assert!(a.contains("router bgp 1 > router-id 1.1.1.1"));
    }
}
