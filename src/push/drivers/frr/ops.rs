//! The FRR operations railyard runs on a device, shared by the `frr-ssh` driver (FRR on Linux)
//! and the FRR half of the `sonic-ssh` driver (split routing-config mode, FRR in the `bgp`
//! container, reached through an exec prefix such as `docker exec -i bgp`).
//!
//! Files live under the state directory, all named `<txid>-<device>.*`, plus one private
//! directory `<txid>-<device>.d` used as frr-reload.py's `--rundir` and `--confdir` (frr-reload.py
//! runs `vtysh write` after every `--reload` of a file other than `<confdir>/frr.conf`; pointed at
//! the private directory, that write cannot persist an unconfirmed change). `cleanup` removes
//! them all. Persisting is a separate, explicit `write memory` at confirm, into FRR's own config
//! directory (or `frr.config_dir`), whose vtysh.conf says `service integrated-vtysh-config` on
//! an integrated-config install.

use std::collections::BTreeSet;

use super::scratch;
use crate::meaning::canonical;
use crate::meaning::frr::canon;
use crate::output::shell::quote as q;
use crate::push::driver::{DriverError, FailKind};
use crate::push::remote::Remote;
use crate::push::ssh::ExecOutput;
use crate::push::targets::FrrSpec;

/// Which normalized config a read-back is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Baseline {
    /// The intended config (verify).
    Intended,
    /// The config before the change (check that a revert brought it back).
    Previous,
}

/// What staging learned.
pub(crate) struct Staged {
    /// The running config as `show running-config` printed it (banner stripped).
    pub running: String,
    /// frr-reload.py's "Lines To Delete / Lines To Add".
    pub native_diff: String,
    /// The running config's canonical lines (for `disruptive::findings`).
    pub previous: Vec<String>,
    pub removed: Vec<String>,
    pub added: Vec<String>,
}

pub(crate) struct FrrOps {
    spec: FrrSpec,
    /// `<txid>-<device>`: names every file of this transaction on the device.
    tag: String,
    intended: Option<BTreeSet<String>>,
    previous: Option<BTreeSet<String>>,
}

impl FrrOps {
    pub(crate) fn new(spec: FrrSpec, tag: String) -> Self {
        Self {
            spec,
            tag,
            intended: None,
            previous: None,
        }
    }

    fn dir(&self) -> String {
        self.spec
            .state_dir
            .clone()
            .unwrap_or_else(|| "/var/lib/railyard".into())
    }

    pub(crate) fn file(&self, what: &str) -> String {
        format!("{}/{}.{what}", self.dir(), self.tag)
    }

    fn private_dir(&self) -> String {
        self.file("d")
    }

    /// A shell command as run where FRR lives (through the exec prefix, if any).
    pub(crate) fn sh(&self, script: &str) -> String {
        match self
            .spec
            .exec
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            Some(prefix) => format!("{prefix} sh -c {}", q(script)),
            None => script.to_string(),
        }
    }

    fn vtysh(&self) -> String {
        match &self.spec.vty_socket {
            Some(s) => format!("vtysh --vty_socket {}", q(s)),
            None => "vtysh".into(),
        }
    }

    fn reload(&self) -> String {
        let bin = self
            .spec
            .reload
            .clone()
            .unwrap_or_else(|| "/usr/lib/frr/frr-reload.py".into());
        let d = self.private_dir();
        let base = format!("{} --rundir {d} --confdir {d}", q(&bin), d = q(&d));
        match &self.spec.vty_socket {
            Some(s) => format!("{base} --vty_socket {}", q(s)),
            None => base,
        }
    }

    /// The command that puts the pre-change config back (for a revert timer).
    pub(crate) fn revert_command(&self) -> String {
        self.sh(&format!(
            "{} --reload {}",
            self.reload(),
            q(&self.file("pre.conf"))
        ))
    }

    fn run(
        &self,
        r: &mut Remote,
        script: &str,
        stdin: Option<&[u8]>,
    ) -> Result<ExecOutput, DriverError> {
        r.run(&self.sh(script), stdin)
    }

    /// A step that applies or reads a whole config: the slow deadline.
    fn run_slow(&self, r: &mut Remote, script: &str) -> Result<ExecOutput, DriverError> {
        r.run_slow(&self.sh(script), None)
    }

    /// Upload, check syntax, save the running config, read both through a scratch FRR, and ask
    /// frr-reload.py for its own diff (which also gates: it must parse the file cleanly).
    pub(crate) fn stage(&mut self, r: &mut Remote, intended: &[u8]) -> Result<Staged, DriverError> {
        let new = self.file("new.conf");
        let out = self.run(
            r,
            &format!(
                // The private confdir's vtysh.conf: integrated mode, so frr-reload.py's `write`
                // goes to this directory's frr.conf (without it each daemon would write its
                // own file, e.g. /etc/frr/bgpd.conf).
                "umask 077 && mkdir -p {d} {p} && \
                 echo 'service integrated-vtysh-config' > {p}/vtysh.conf && cat > {n}",
                d = q(&self.dir()),
                p = q(&self.private_dir()),
                n = q(&new)
            ),
            Some(intended),
        )?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Transport,
                format!(
                    "uploading frr.conf to {}: {}",
                    self.dir(),
                    out.stderr.trim()
                ),
            ));
        }
        let out = self.run(r, &format!("vtysh -C -f {} 2>&1", q(&new)), None)?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("vtysh -C rejected frr.conf: {}", out.stdout.trim()),
            ));
        }
        let running = self.save_running(r, &self.file("pre.conf"))?;
        let profile = canon::defaults_profile(&running);
        let daemons = self.daemons(r)?;
        let previous = self.normalize(
            r,
            &self.file("pre.conf"),
            &self.file("pre.norm"),
            &profile,
            &daemons,
        )?;
        let want = self.normalize(r, &new, &self.file("new.norm"), &profile, &daemons)?;
        let native_diff = self.test_against_running(r, &new)?;
        let (removed, added) = canonical::diff(&previous, &want);
        let lines = previous.iter().cloned().collect();
        self.previous = Some(previous);
        self.intended = Some(want);
        Ok(Staged {
            running,
            native_diff,
            previous: lines,
            removed,
            added,
        })
    }

    /// `show running-config` into `path` (banner stripped, so the file can be reloaded); its text.
    fn save_running(&self, r: &mut Remote, path: &str) -> Result<String, DriverError> {
        let out = self.run(
            r,
            &format!(
                // A failed read must fail here: an empty pre.conf would be a revert to nothing.
                "umask 077 && run=$({} -c 'show running-config') && [ -n \"$run\" ] && \
                 printf '%s\\n' \"$run\" | sed -e '/^Building configuration/d' \
                 -e '/^Current configuration/d' > {p} && cat {p}",
                self.vtysh(),
                p = q(path)
            ),
            None,
        )?;
        running_text(out, false)
    }

    /// The daemons the device runs (the names of its vty sockets; read-only).
    pub(crate) fn daemons(&self, r: &mut Remote) -> Result<Vec<String>, DriverError> {
        let dir = self
            .spec
            .vty_socket
            .clone()
            .unwrap_or_else(|| "/var/run/frr".into());
        let out = self.run(r, &scratch::daemons_command(&dir), None)?;
        let d = scratch::daemons(&out.stdout);
        if d.is_empty() {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("no FRR daemon has a vty socket in {dir}: is FRR running there?"),
            ));
        }
        Ok(d)
    }

    /// Read-only (audit): `show running-config` as FRR renders it, nothing written anywhere.
    pub(crate) fn read_running(&self, r: &mut Remote) -> Result<String, DriverError> {
        let out = self.run(
            r,
            &format!("{} -c 'show running-config'", self.vtysh()),
            None,
        )?;
        running_text(out, true)
    }

    /// `conf` as FRR itself reads it (see `scratch.rs`), saved to `out` on the device.
    fn normalize(
        &self,
        r: &mut Remote,
        conf: &str,
        out_file: &str,
        profile: &str,
        daemons: &[String],
    ) -> Result<BTreeSet<String>, DriverError> {
        let profile: String = profile
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let bindir = self
            .spec
            .daemon_dir
            .clone()
            .unwrap_or_else(|| "/usr/lib/frr".into());
        let cmd = format!(
            "umask 077 && {} && cat {}",
            scratch::normalize_command(conf, out_file, &profile, daemons, &bindir),
            q(out_file)
        );
        let out = self.run_slow(r, &cmd)?;
        if out.status != 0 || out.stdout.trim().is_empty() {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!(
                    "reading {conf} through a scratch FRR (unshare -n, {}) failed (rc {}): {}",
                    daemons.join(" "),
                    out.status,
                    out.stderr.trim()
                ),
            ));
        }
        Ok(canon::lines(&out.stdout))
    }

    /// frr-reload.py `--test` of `file` against the live config: its diff text.
    fn test_against_running(&self, r: &mut Remote, file: &str) -> Result<String, DriverError> {
        let cmd = format!("{} --test --stdout {} 2>&1", self.reload(), q(file));
        let out = self.run_slow(r, &cmd)?;
        let errors = error_lines(&out);
        // FRR 8.4 plans to delete everything when the new file does not parse: both the exit
        // status and the absence of ERROR lines are required.
        if out.status != 0 || !errors.is_empty() {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!(
                    "frr-reload.py --test rejected frr.conf (rc {}): {}",
                    out.status,
                    errors.join(" | ")
                ),
            ));
        }
        Ok(reload_diff(&out.stdout))
    }

    /// Apply the intended file. frr-reload.py exits 1 when any single line fails, also when the
    /// config is right in meaning afterwards (it cannot delete `interface eth0` that the file
    /// spells `interface eth0 vrf mgmt`); so a failure with no ERROR line is a note (returned),
    /// and the read-back by meaning in `verify` is the verdict. ERROR lines (the file did not
    /// parse) are fatal.
    pub(crate) fn reload_intended(&self, r: &mut Remote) -> Result<Option<String>, DriverError> {
        let cmd = format!(
            "{} --reload {} 2>&1",
            self.reload(),
            q(&self.file("new.conf"))
        );
        let out = self.run_slow(r, &cmd)?;
        if out.status == 0 {
            return Ok(None);
        }
        let errors: Vec<String> = error_lines(&out)
            .into_iter()
            .filter(|l| l.contains("ERROR"))
            .collect();
        if !errors.is_empty() {
            // frr-reload applies line by line: a failure may leave a partial config, which the
            // cancel path (reload of pre.conf, then a read-back) repairs.
            return Err(DriverError::new(
                FailKind::Transport,
                format!(
                    "frr-reload.py --reload of frr.conf failed (rc {}): {}",
                    out.status,
                    errors.join(" | ")
                ),
            ));
        }
        Ok(Some(format!(
            "frr-reload.py --reload of frr.conf exited {}: {} — the read-back decides",
            out.status,
            complaints(&out).join(" | ")
        )))
    }

    /// Put the pre-change config back. frr-reload.py exits 1 when it cannot remove a node it
    /// created (an empty `bfd`, an `interface` it added) even though the config is back in
    /// meaning, so its status is not the verdict: the caller reads back (`drift`).
    pub(crate) fn reload_previous(&self, r: &mut Remote) -> Result<Option<String>, DriverError> {
        let cmd = format!(
            "{} --reload {} 2>&1",
            self.reload(),
            q(&self.file("pre.conf"))
        );
        let out = self.run_slow(r, &cmd)?;
        if out.status == 0 {
            return Ok(None);
        }
        Ok(Some(format!(
            "frr-reload.py --reload of the pre-change config exited {}: {} — the read-back decides",
            out.status,
            complaints(&out).join(" | ")
        )))
    }

    /// Read the running config now (over the given session) through a scratch FRR and compare
    /// with a baseline: `(removed, added)`, empty when equal in meaning.
    pub(crate) fn drift(
        &mut self,
        r: &mut Remote,
        baseline: Baseline,
    ) -> Result<(Vec<String>, Vec<String>), DriverError> {
        self.load_baselines(r)?;
        let now_conf = self.file("now.conf");
        let running = self.save_running(r, &now_conf)?;
        let profile = canon::defaults_profile(&running);
        let daemons = self.daemons(r)?;
        let now = self.normalize(r, &now_conf, &self.file("now.norm"), &profile, &daemons)?;
        let base = match baseline {
            Baseline::Intended => self.intended.as_ref(),
            Baseline::Previous => self.previous.as_ref(),
        };
        let Some(base) = base else {
            return Err(DriverError::new(FailKind::Transport, "no staged baseline"));
        };
        Ok(canonical::diff(&now, base))
    }

    /// After `--resume`: the normalized baselines saved on the device by `stage`.
    fn load_baselines(&mut self, r: &mut Remote) -> Result<(), DriverError> {
        if self.intended.is_some() && self.previous.is_some() {
            return Ok(());
        }
        let mut texts = Vec::new();
        for what in ["new.norm", "pre.norm"] {
            let path = self.file(what);
            let out = self.run(r, &format!("cat {}", q(&path)), None)?;
            if out.status != 0 {
                return Err(DriverError::new(
                    FailKind::Rejected,
                    format!("{path} is gone from the device: the transaction's files were removed"),
                ));
            }
            texts.push(canon::lines(&out.stdout));
        }
        self.previous = texts.pop();
        self.intended = texts.pop();
        Ok(())
    }

    /// Persist the running config (`write memory`) where FRR reads it at start.
    pub(crate) fn persist(&self, r: &mut Remote) -> Result<(), DriverError> {
        if self.spec.save == Some(false) {
            return Ok(());
        }
        let cmd = match &self.spec.config_dir {
            Some(d) => format!(
                "{} --config_dir {} -c 'write memory' 2>&1",
                self.vtysh(),
                q(d)
            ),
            None => format!("{} -c 'write memory' 2>&1", self.vtysh()),
        };
        let out = self.run(r, &cmd, None)?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Transport,
                format!(
                    "write memory failed (rc {}): {} — the change is live but not saved",
                    out.status,
                    out.stdout.trim()
                ),
            ));
        }
        Ok(())
    }

    /// Remove every file of this transaction from the device.
    pub(crate) fn cleanup(&self, r: &mut Remote) -> Result<(), DriverError> {
        let prefix = format!("{}/{}.", self.dir(), self.tag);
        let cmd = format!("rm -rf {}*", q(&prefix));
        let out = self.run(r, &cmd, None)?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Transport,
                format!("removing {prefix}* from the device: {}", out.stderr.trim()),
            ));
        }
        Ok(())
    }
}

/// frr-reload.py's "Lines To Delete / Lines To Add" sections, without its log lines.
pub(crate) fn reload_diff(stdout: &str) -> String {
    let mut out = String::new();
    let mut on = false;
    for l in stdout.lines() {
        if l.starts_with("Lines To Delete") || l.starts_with("Lines To Add") {
            on = true;
        }
        if on && !is_log_line(l) {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

fn is_log_line(l: &str) -> bool {
    // `2026-11-22 04:10:48,061  INFO: …`
    l.len() > 24 && l.as_bytes()[4] == b'-' && l.as_bytes()[10] == b' ' && l.contains(": ")
}

/// What frr-reload.py said went wrong: ERROR and `% …` lines, and its "we failed to remove this
/// command" lines (at most five).
fn complaints(out: &ExecOutput) -> Vec<String> {
    let mut v = error_lines(out);
    v.extend(
        out.stdout
            .lines()
            .filter(|l| l.contains("we failed to"))
            .map(|l| l.trim().to_string()),
    );
    v.truncate(5);
    v
}

fn error_lines(out: &ExecOutput) -> Vec<String> {
    let all: Vec<&str> = out.stdout.lines().chain(out.stderr.lines()).collect();
    let mut v: Vec<String> = all
        .iter()
        .filter(|l| l.contains("ERROR") || l.contains("% "))
        .map(|l| l.to_string())
        .collect();
    if let Some(i) = all.iter().position(|l| l.contains("Traceback")) {
        // A Python crash: its last lines say why.
        let tail = &all[i..];
        v.extend(
            tail[tail.len().saturating_sub(4)..]
                .iter()
                .map(|l| l.to_string()),
        );
    }
    v
}

/// The running config a vtysh read printed, or a transport error (also for empty output when
/// `non_empty`: an empty read means nothing was read).
fn running_text(out: ExecOutput, non_empty: bool) -> Result<String, DriverError> {
    if out.status != 0 || (non_empty && out.stdout.trim().is_empty()) {
        return Err(DriverError::new(
            FailKind::Transport,
            format!(
                "reading the running config with vtysh (rc {}): {}",
                out.status,
                out.stderr.trim()
            ),
        ));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_reload_output() {
        let out = "2026-11-22 04:10:48,061  INFO: Loading Config object from file n.conf\n\
                   \nLines To Delete\n===============\nrouter bgp 65001\n no bgp router-id 10.0.0.1\n\
                   \nLines To Add\n============\nrouter bgp 65001\n bgp router-id 10.0.0.2\n";
        let d = reload_diff(out);
        assert!(d.contains("bgp router-id 10.0.0.2"));
        assert!(!d.contains("INFO"));
    }

    #[test]
    fn exec_prefix_wraps_every_command() {
        let spec = FrrSpec {
            exec: Some("docker exec -i bgp".into()),
            state_dir: Some("/var/lib/railyard".into()),
            ..FrrSpec::default()
        };
        let ops = FrrOps::new(spec, "ry-1-leaf1".into());
        assert_eq!(ops.sh("cat x"), "docker exec -i bgp sh -c 'cat x'");
        assert!(
            ops.revert_command()
                .starts_with("docker exec -i bgp sh -c ")
        );
        assert!(ops.revert_command().contains("ry-1-leaf1.pre.conf"));
        assert!(ops.revert_command().contains("--confdir"));
    }
}
