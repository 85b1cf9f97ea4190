//! The `frr-ssh` driver: FRR on Linux over SSH. FRR has no native confirmed commit, so a
//! device-side revert timer is armed *before* applying and disarmed on confirm; it lives on the
//! device so a lost controller still reverts.
//!
//! Sequence (PUSH-DESIGN §1.4, LAB-NOTES): upload intended → `vtysh -C -f` (syntax, rc 0) → save
//! running as the pre-change config → `frr-reload.py --test` (rc 0, no ERROR line; FRR 8.4 plans
//! to delete everything when the new file does not parse, so both gates are required) → arm the
//! timer (`sleep T; frr-reload.py --reload pre.conf`) → `frr-reload.py --reload new.conf`.
//! Verify = `--test` against the intended file shows nothing left to change; confirm = kill the
//! timer; cancel = kill the timer and reload the pre-change config.

use std::time::Duration;

use ssh2::Session;

use super::driver::{Driver, DriverError, FailKind, Preflight, sha256_hex};
use super::ssh::{self, Auth, ConnectOptions, Endpoint, ExecOutput};
use super::targets::FrrSpec;

pub struct FrrDriver {
    endpoint: Endpoint,
    auth: Auth,
    connect: ConnectOptions,
    frr: FrrSpec,
    /// `<txid>-<device>`: names the files and the timer on the device.
    tag: String,
    timeout: Duration,
    sess: Option<Session>,
}

/// Single-quote for the remote POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

use shell_quote as q;

/// Shell that arms a device-side revert: after `timeout`, run `revert` (logging to `log`).
/// `setsid` gives the timer its own process group (killed as a group on disarm) and detaches it
/// from the SSH session, so it fires even when railyard is gone. Prints `armed` on success.
pub fn arm_timer_script(pidfile: &str, timeout: Duration, revert: &str, log: &str) -> String {
    let body = format!(
        "sleep {secs}; {revert} >> {log} 2>&1; rm -f {pid}",
        secs = timeout.as_secs().max(1),
        log = q(log),
        pid = q(pidfile),
    );
    format!(
        "setsid sh -c {} < /dev/null > /dev/null 2>&1 & echo $! > {p}; \
         kill -0 $(cat {p}) && echo armed",
        q(&body),
        p = q(pidfile)
    )
}

/// Shell that disarms the timer: prints `disarmed` when it was still pending, `gone` when it had
/// already fired (or never existed).
pub fn disarm_timer_script(pidfile: &str) -> String {
    format!(
        "if [ -s {p} ]; then kill -TERM -- -$(cat {p}) 2>/dev/null; r=$?; rm -f {p}; \
         [ $r = 0 ] && echo disarmed || echo gone; else echo gone; fi",
        p = q(pidfile)
    )
}

/// frr-reload.py's "Lines To Delete / Lines To Add" sections, without its log lines.
fn reload_diff(stdout: &str) -> String {
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

/// Whether a `--test` diff has anything to do.
fn has_changes(diff: &str) -> bool {
    diff.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with("Lines To") && !t.chars().all(|c| c == '=')
    })
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
            endpoint,
            auth,
            connect,
            frr,
            tag,
            timeout,
            sess: None,
        }
    }

    fn dir(&self) -> String {
        self.frr
            .state_dir
            .clone()
            .unwrap_or_else(|| "/var/lib/railyard".into())
    }

    fn file(&self, what: &str) -> String {
        format!("{}/{}.{what}", self.dir(), self.tag)
    }

    fn vtysh(&self) -> String {
        match &self.frr.vty_socket {
            Some(s) => format!("vtysh --vty_socket {}", q(s)),
            None => "vtysh".into(),
        }
    }

    fn reload(&self) -> String {
        let bin = self
            .frr
            .reload
            .clone()
            .unwrap_or_else(|| "/usr/lib/frr/frr-reload.py".into());
        // --rundir: frr-reload.py writes its temporary files there; railyard's own state
        // directory always exists (preflight creates it), /var/run/frr may not.
        let base = format!("{} --rundir {}", q(&bin), q(&self.dir()));
        match &self.frr.vty_socket {
            Some(s) => format!("{base} --vty_socket {}", q(s)),
            None => base,
        }
    }

    fn session(&mut self) -> Result<&Session, DriverError> {
        if self.sess.is_none() {
            self.sess = Some(ssh::connect(&self.endpoint, &self.auth, &self.connect)?);
        }
        self.sess
            .as_ref()
            .ok_or_else(|| DriverError::new(FailKind::Transport, "no session"))
    }

    fn run(&mut self, cmd: &str, stdin: Option<&[u8]>) -> Result<ExecOutput, DriverError> {
        let timeout = self.timeout;
        let r = ssh::exec(self.session()?, cmd, stdin, timeout);
        if r.is_err() {
            // A broken session is not reused: the next step reconnects.
            self.sess = None;
        }
        Ok(r?)
    }

    /// `--test` of `file` against the live config: the diff text.
    fn test_against_running(&mut self, file: &str) -> Result<String, DriverError> {
        let cmd = format!("{} --test --stdout {} 2>&1", self.reload(), q(file));
        let out = self.run(&cmd, None)?;
        let errors = error_lines(&out);
        if out.status != 0 || !errors.is_empty() {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!(
                    "frr-reload.py --test failed (rc {}): {}",
                    out.status,
                    errors.join(" | ")
                ),
            ));
        }
        Ok(reload_diff(&out.stdout))
    }

    fn disarm(&mut self) -> Result<bool, DriverError> {
        let cmd = disarm_timer_script(&self.file("timer.pid"));
        let out = self.run(&cmd, None)?;
        Ok(out.stdout.trim() == "disarmed")
    }
}

impl Driver for FrrDriver {
    fn preflight(&mut self, intended: &[u8]) -> Result<Preflight, DriverError> {
        let (dir, new, pre) = (self.dir(), self.file("new.conf"), self.file("pre.conf"));
        let out = self.run(
            &format!(
                "umask 077 && mkdir -p {d} && cat > {n}",
                d = q(&dir),
                n = q(&new)
            ),
            Some(intended),
        )?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Transport,
                format!("uploading the config: {}", out.stderr.trim()),
            ));
        }
        let out = self.run(&format!("vtysh -C -f {} 2>&1", q(&new)), None)?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("vtysh -C rejected the config: {}", out.stdout.trim()),
            ));
        }
        let out = self.run(
            &format!(
                // The banner lines of `show running-config` are not commands: strip them so
                // pre.conf can be fed back to frr-reload.py on revert.
                // A failed read must fail here: an empty pre.conf would be a revert to nothing.
                "umask 077 && run=$({} -c 'show running-config') && [ -n \"$run\" ] && \
                 printf '%s\\n' \"$run\" | sed -e '/^Building configuration/d' \
                 -e '/^Current configuration/d' > {p} && cat {p}",
                self.vtysh(),
                p = q(&pre)
            ),
            None,
        )?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Connect,
                format!("reading the running config: {}", out.stderr.trim()),
            ));
        }
        let pre_hash = sha256_hex(out.stdout.as_bytes());
        let diff = self.test_against_running(&new)?;
        Ok(Preflight {
            changed: has_changes(&diff),
            native_diff: diff.clone(),
            canonical_diff: diff,
            pre_hash,
            intended_hash: sha256_hex(intended),
            disruptive: Vec::new(),
            pre_config: Some(out.stdout.into_bytes()),
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        if self.sess.is_none() {
            return Ok(());
        }
        let cmd = format!(
            "rm -f {} {}",
            q(&self.file("new.conf")),
            q(&self.file("pre.conf"))
        );
        let r = self.run(&cmd, None);
        self.sess = None;
        r.map(|_| ())
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        let (new, pre, pidfile, log) = (
            self.file("new.conf"),
            self.file("pre.conf"),
            self.file("timer.pid"),
            self.file("revert.log"),
        );
        // Arm first: if railyard dies between the two steps the device still goes back.
        let revert = format!("{} --reload {}", self.reload(), q(&pre));
        let arm = arm_timer_script(&pidfile, timeout, &revert, &log);
        let out = self.run(&arm, None)?;
        if out.stdout.trim() != "armed" {
            return Err(DriverError::new(
                FailKind::Rejected,
                format!("could not arm the revert timer: {}", out.stderr.trim()),
            ));
        }
        let out = self.run(
            &format!("{} --reload {} 2>&1", self.reload(), q(&new)),
            None,
        )?;
        let errors = error_lines(&out);
        if out.status != 0 || !errors.is_empty() {
            // frr-reload applies line by line: a failure may leave a partial config, which the
            // cancel path (reload of pre.conf) repairs.
            return Err(DriverError::new(
                FailKind::Transport,
                format!(
                    "frr-reload.py --reload failed (rc {}): {}",
                    out.status,
                    errors.join(" | ")
                ),
            ));
        }
        Ok(format!("timer:{}", self.tag))
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        // A fresh session, as for NETCONF: the one that applied may be lying.
        self.sess = None;
        let new = self.file("new.conf");
        let diff = self.test_against_running(&new)?;
        if has_changes(&diff) {
            return Err(DriverError::new(
                FailKind::Verify,
                format!("running differs from intended after reload:\n{diff}"),
            ));
        }
        Ok(())
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        if !self.disarm()? {
            return Err(DriverError::new(
                FailKind::Transport,
                "the revert timer had already fired: the device went back to its old config",
            ));
        }
        let _ = self.abort();
        Ok(())
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        let _ = self.disarm()?;
        let pre = self.file("pre.conf");
        let out = self.run(
            &format!("{} --reload {} 2>&1", self.reload(), q(&pre)),
            None,
        )?;
        if out.status != 0 {
            return Err(DriverError::new(
                FailKind::Transport,
                format!("restoring the pre-change config failed (rc {})", out.status),
            ));
        }
        Ok(())
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        self.sess = None;
        let pre = self.file("pre.conf");
        let diff = self.test_against_running(&pre)?;
        let back = !has_changes(&diff);
        if back {
            let _ = self.abort();
        }
        Ok(back)
    }

    fn adopt(&mut self, _intended: &[u8], _pre_hash: &str) -> Result<(), DriverError> {
        // new.conf, pre.conf and the timer pid file are still on the device under this
        // transaction's tag: verify, confirm (disarm), cancel and check_reverted use them.
        Ok(())
    }
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
        assert!(has_changes(&d));
        assert!(!d.contains("INFO"));
        assert!(!has_changes(&reload_diff(
            "2026-11-22 04:10:48,061  INFO: Called via x\n"
        )));
    }

    #[test]
    fn quoting() {
        assert_eq!(q("a'b"), r"'a'\''b'");
    }
}
