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
//! * `sonic-ssh`: `config checkpoint` → `config replace --dry-run` → revert timer armed on the
//!   device (`config rollback <checkpoint>`) → `config replace` → confirm: disarm, `config save -y`,
//!   `config delete-checkpoint` (SONiC has no native confirm). Only config_db.json is pushed; the
//!   FRR part of split routing-config mode is not handled here.
//!
//! Commands marked unverified in PUSH-DESIGN (NVUE `--confirm-yes/--confirm-no`, EOS over an exec
//! channel with commands on stdin) need a check on a real box before production use.

use std::collections::BTreeSet;
use std::time::Duration;

use ssh2::Session;

use super::driver::{Driver, DriverError, FailKind, Preflight, sha256_hex};
use super::frr_driver::{arm_timer_script, disarm_timer_script, shell_quote as q};
use super::ssh::{self, Auth, ConnectOptions, Endpoint, ExecOutput};

/// SSH plumbing shared by the command drivers: one session, reconnect after a failure, every
/// command bounded by `timeout`.
pub struct Remote {
    endpoint: Endpoint,
    auth: Auth,
    connect: ConnectOptions,
    timeout: Duration,
    sess: Option<Session>,
}

impl Remote {
    pub fn new(endpoint: Endpoint, auth: Auth, connect: ConnectOptions, timeout: Duration) -> Self {
        Self {
            endpoint,
            auth,
            connect,
            timeout,
            sess: None,
        }
    }

    fn run(&mut self, cmd: &str, stdin: Option<&[u8]>) -> Result<ExecOutput, DriverError> {
        if self.sess.is_none() {
            self.sess = Some(ssh::connect(&self.endpoint, &self.auth, &self.connect)?);
        }
        let Some(sess) = self.sess.as_ref() else {
            return Err(DriverError::new(FailKind::Transport, "no session"));
        };
        let r = ssh::exec(sess, cmd, stdin, self.timeout);
        if r.is_err() {
            self.sess = None;
        }
        Ok(r?)
    }

    /// Run and require exit status 0; `what` names the step in the error.
    fn ok(&mut self, what: &str, cmd: &str, stdin: Option<&[u8]>) -> Result<String, DriverError> {
        let out = self.run(cmd, stdin)?;
        if out.status != 0 {
            let detail = if out.stderr.trim().is_empty() {
                out.stdout.trim().to_string()
            } else {
                out.stderr.trim().to_string()
            };
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("{what} failed (rc {}): {detail}", out.status),
            ));
        }
        Ok(out.stdout)
    }

    /// Forget the session: the next command opens a fresh one (verification reads back over a
    /// new session, as for NETCONF).
    fn fresh(&mut self) {
        self.sess = None;
    }
}

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

/// `nvue-ssh`.
pub struct NvueDriver {
    r: Remote,
    s: CliSettings,
    intended: Vec<u8>,
    pre: String,
}

impl NvueDriver {
    pub fn new(r: Remote, s: CliSettings) -> Self {
        Self {
            r,
            s,
            intended: Vec::new(),
            pre: String::new(),
        }
    }

    fn applied(&mut self) -> Result<String, DriverError> {
        let cmd = format!("{} config show -r applied -o yaml", self.s.tool);
        self.r.ok("nv config show", &cmd, None)
    }
}

impl Driver for NvueDriver {
    fn preflight(&mut self, intended: &[u8]) -> Result<Preflight, DriverError> {
        let text = std::str::from_utf8(intended)
            .map_err(|_| DriverError::new(FailKind::Rejected, "startup.yaml is not UTF-8"))?;
        if yaml_value(text).is_none() {
            return Err(DriverError::new(
                FailKind::Rejected,
                "startup.yaml is not valid YAML",
            ));
        }
        self.intended = intended.to_vec();
        self.pre = self.applied()?;
        let file = self.s.upload(&mut self.r, intended, "yaml")?;
        let tool = self.s.tool.clone();
        self.r.ok(
            "nv config replace",
            &format!("{tool} config replace {}", q(&file)),
            None,
        )?;
        let diff = self
            .r
            .ok("nv config diff", &format!("{tool} config diff"), None)?;
        let changed = !diff.trim().is_empty();
        if !changed {
            self.r
                .ok("nv config detach", &format!("{tool} config detach"), None)?;
        }
        Ok(Preflight {
            native_diff: diff.clone(),
            canonical_diff: diff,
            changed,
            pre_hash: sha256_hex(self.pre.as_bytes()),
            intended_hash: sha256_hex(intended),
            disruptive: Vec::new(),
            // Not known to be re-appliable as an intended config: no --rollback.
            pre_config: None,
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        let cmd = format!("{} config detach", self.s.tool);
        self.r.ok("nv config detach", &cmd, None).map(|_| ())
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
        let applied = self.applied()?;
        let want = yaml_value(&String::from_utf8_lossy(&self.intended));
        if yaml_value(&applied) == want {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                "applied NVUE config differs from startup.yaml",
            ))
        }
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        let cmd = format!("{} config apply --confirm-yes", self.s.tool);
        self.r
            .ok("nv config apply --confirm-yes", &cmd, None)
            .map(|_| ())
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
        let now = self.applied()?;
        Ok(yaml_value(&now) == yaml_value(&self.pre))
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
}

impl EosDriver {
    pub fn new(r: Remote, s: CliSettings) -> Self {
        Self {
            r,
            s,
            intended: Vec::new(),
            pre: BTreeSet::new(),
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
        Ok(eos_canonical(
            &self.cli("show running-config", "show running-config\n")?,
        ))
    }
}

impl Driver for EosDriver {
    fn preflight(&mut self, intended: &[u8]) -> Result<Preflight, DriverError> {
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
        let canonical: String = self
            .pre
            .difference(&want)
            .map(|l| format!("- {l}\n"))
            .chain(want.difference(&self.pre).map(|l| format!("+ {l}\n")))
            .collect();
        let changed = !canonical.is_empty();
        if !changed {
            self.abort()?;
        }
        Ok(Preflight {
            native_diff: diff,
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
            intended_hash: sha256_hex(intended),
            disruptive: Vec::new(),
            // Not known to be re-appliable as an intended config: no --rollback.
            pre_config: None,
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
        if self.running()? == want {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                "running-config differs from the intended config",
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

/// `sonic-ssh`.
pub struct SonicDriver {
    r: Remote,
    s: CliSettings,
    file: String,
}

impl SonicDriver {
    pub fn new(r: Remote, s: CliSettings) -> Self {
        Self {
            r,
            s,
            file: String::new(),
        }
    }

    fn checkpoint(&self) -> String {
        format!("railyard-{}", self.s.tag)
    }

    /// Whether a GCU dry run plans nothing (its patch is `[]`).
    fn plans_nothing(out: &str) -> bool {
        out.lines().any(|l| l.trim() == "[]")
    }
}

impl Driver for SonicDriver {
    fn preflight(&mut self, intended: &[u8]) -> Result<Preflight, DriverError> {
        if serde_json::from_slice::<serde_json::Value>(intended).is_err() {
            return Err(DriverError::new(
                FailKind::Rejected,
                "config_db.json is not valid JSON",
            ));
        }
        self.file = self.s.upload(&mut self.r, intended, "json")?;
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
        let changed = !Self::plans_nothing(&plan);
        if !changed {
            self.abort()?;
        }
        Ok(Preflight {
            native_diff: plan.clone(),
            canonical_diff: plan,
            changed,
            pre_hash: String::new(),
            intended_hash: sha256_hex(intended),
            disruptive: Vec::new(),
            // Not known to be re-appliable as an intended config: no --rollback.
            pre_config: None,
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        let (tool, cp) = (self.s.tool.clone(), self.checkpoint());
        let r = self.r.ok(
            "config delete-checkpoint",
            &format!("{tool} delete-checkpoint {}", q(&cp)),
            None,
        );
        let _ = self.r.run(&format!("rm -f {}", q(&self.file)), None);
        r.map(|_| ())
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        let (tool, cp, file) = (self.s.tool.clone(), self.checkpoint(), self.file.clone());
        // No native confirm: arm the device-side rollback first, then apply.
        let revert = format!("{tool} rollback {}", q(&cp));
        let pidfile = self.s.file("timer.pid");
        let out = self.r.ok(
            "arming the revert timer",
            &arm_timer_script(&pidfile, timeout, &revert, &self.s.file("revert.log")),
            None,
        )?;
        if out.trim() != "armed" {
            return Err(DriverError::new(
                FailKind::Rejected,
                "revert timer not armed",
            ));
        }
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
        Ok(cp)
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        self.r.fresh();
        let (tool, file) = (self.s.tool.clone(), self.file.clone());
        let plan = self.r.ok(
            "config replace --dry-run",
            &format!("{tool} replace --dry-run {}", q(&file)),
            None,
        )?;
        if Self::plans_nothing(&plan) {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                format!("CONFIG_DB still differs from config_db.json:\n{plan}"),
            ))
        }
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        let pidfile = self.s.file("timer.pid");
        let out = self
            .r
            .ok("disarming", &disarm_timer_script(&pidfile), None)?;
        if out.trim() != "disarmed" {
            return Err(DriverError::new(
                FailKind::Transport,
                "the revert timer had already fired: the device rolled back",
            ));
        }
        let tool = self.s.tool.clone();
        self.r.ok("config save", &format!("{tool} save -y"), None)?;
        self.abort()
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        let pidfile = self.s.file("timer.pid");
        let _ = self.r.ok("disarming", &disarm_timer_script(&pidfile), None);
        let (tool, cp) = (self.s.tool.clone(), self.checkpoint());
        self.r
            .ok(
                "config rollback",
                &format!("{tool} rollback {}", q(&cp)),
                None,
            )
            .map(|_| ())
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        self.r.fresh();
        let (tool, cp) = (self.s.tool.clone(), self.checkpoint());
        let plan = self.r.ok(
            "config rollback --dry-run",
            &format!("{tool} rollback --dry-run {}", q(&cp)),
            None,
        )?;
        let back = Self::plans_nothing(&plan);
        if back {
            let _ = self.abort();
        }
        Ok(back)
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
