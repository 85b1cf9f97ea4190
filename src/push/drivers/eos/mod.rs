//! The `eos-ssh` driver: Arista EOS configuration sessions over SSH. `configure session
//! railyard-…` + `rollback clean-config` + config → `show session-config named … diffs` →
//! `configure session … commit timer hh:mm:ss` → `configure session … commit` (cancel/cleanup:
//! `configure session … abort`). Compared by meaning as context-path lines (`canon.rs`), whose
//! facts `facts.rs` reads for disruptive changes.

use std::collections::BTreeSet;
use std::time::Duration;

use super::commands::{self, CliSettings};
use crate::meaning::eos::canon::eos_canonical;
use crate::meaning::eos::facts::EOS_LINES;
use crate::push::PushSettings;
use crate::push::driver::{
    AuditLines, ConfigSet, Driver, DriverError, FailKind, Preflight, read_back,
};
use crate::push::remote::Remote;
use crate::push::targets::Target;

/// The driver of a target within transaction `tag` (`<txid>-<device>`).
pub(crate) fn for_target(t: &Target, tag: String, s: &PushSettings) -> Box<dyn Driver> {
    Box::new(EosDriver::new(
        commands::remote(t, s),
        CliSettings::for_target(t, tag),
    ))
}

/// EOS's `commit timer`: hh:mm:ss (at most 23:59:59 is accepted by EOS's grammar here).
pub(crate) fn eos_window(t: Duration) -> String {
    let s = t.as_secs().clamp(1, 24 * 3600 - 1);
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// `eos-ssh`.
pub(crate) struct EosDriver {
    r: Remote,
    s: CliSettings,
    intended: Vec<u8>,
    pre: BTreeSet<String>,
    /// The last `show running-config` text (the pre-change config after preflight).
    pre_text: String,
}

impl EosDriver {
    pub(crate) fn new(r: Remote, s: CliSettings) -> Self {
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

    fn running_lines(&mut self) -> Result<BTreeSet<String>, DriverError> {
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
        self.pre = self.running_lines()?;
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
        let p = Preflight::compared(&EOS_LINES, &self.pre, &want, diff, intended_set.sha256());
        if !p.changed {
            self.abort()?;
        }
        Ok(Preflight {
            // `show running-config` is a whole config the session path replaces with.
            pre_config: Some(ConfigSet::single(
                intended_set.main_name(),
                self.pre_text.clone().into_bytes(),
            )),
            ..p
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
        let now = self.running_lines()?;
        read_back(&now, &want, "running-config differs from startup-config")
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
        Ok(self.running_lines()? == self.pre)
    }

    fn running(&mut self, intended: &ConfigSet) -> Result<AuditLines, DriverError> {
        // Preflight's read alone (`show running-config`, no `configure session`), both sides in
        // the context-path form push compares by.
        self.r.fresh();
        let build = eos_canonical(&String::from_utf8_lossy(intended.main()));
        Ok(AuditLines {
            device: self.running_lines()?,
            build,
            notes: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_explicit() {
        assert_eq!(eos_window(Duration::from_secs(300)), "00:05:00");
        assert_eq!(eos_window(Duration::from_secs(3725)), "01:02:05");
        assert_eq!(eos_window(Duration::from_secs(0)), "00:00:01");
    }
}
