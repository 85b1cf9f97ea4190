//! The `nvue-ssh` driver: NVIDIA Cumulus Linux's NVUE over SSH. `nv config replace` → `nv config
//! diff` → `nv config apply --confirm <N>s -y` → `nv config apply --confirm-yes` (cancel:
//! `--confirm-no`; cleanup: `nv config detach`). Confirm window in NVUE's explicit seconds suffix
//! (`300s`): the doc's bare number is ambiguous. Compared by meaning as canonical tree lines
//! (`canon.rs`), whose facts `facts.rs` reads for disruptive changes.

use std::collections::BTreeSet;
use std::time::Duration;

use super::commands::{self, CliSettings};
use crate::meaning::nvue::canon::nvue_lines;
use crate::meaning::nvue::facts::NvueLines;
use crate::output::shell::quote as q;
use crate::push::PushSettings;
use crate::push::driver::{
    AuditLines, ConfigSet, Driver, DriverError, FailKind, Preflight, read_back,
};
use crate::push::remote::Remote;
use crate::push::targets::Target;

/// The driver of a target within transaction `tag` (`<txid>-<device>`).
pub(crate) fn for_target(t: &Target, tag: String, s: &PushSettings) -> Box<dyn Driver> {
    Box::new(NvueDriver::new(
        commands::remote(t, s),
        CliSettings::for_target(t, tag),
    ))
}

/// NVUE's confirm window: explicit seconds suffix.
pub(crate) fn nvue_window(t: Duration) -> String {
    format!("{}s", t.as_secs().max(1))
}

/// `nvue-ssh`.
pub(crate) struct NvueDriver {
    r: Remote,
    s: CliSettings,
    want: BTreeSet<String>,
    pre: BTreeSet<String>,
}

impl NvueDriver {
    pub(crate) fn new(r: Remote, s: CliSettings) -> Self {
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
        self.want = startup_lines(intended)?;
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
        let p = Preflight::compared(&NvueLines, &self.pre, &self.want, native, intended.sha256());
        if !p.changed {
            self.abort()?;
        }
        // `nv config show` prints the tree, not a startup file: no --rollback copy.
        Ok(p)
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
        read_back(
            &now,
            &self.want,
            "the applied NVUE config differs from startup.yaml",
        )
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

    fn running(&mut self, intended: &ConfigSet) -> Result<AuditLines, DriverError> {
        // Preflight's read alone (`nv config show -r applied`): no replace, no pending revision.
        let build = startup_lines(intended)?;
        self.r.fresh();
        Ok(AuditLines {
            device: self.applied()?,
            build,
            notes: Vec::new(),
        })
    }
}

/// The build's `startup.yaml` as canonical tree lines.
fn startup_lines(intended: &ConfigSet) -> Result<BTreeSet<String>, DriverError> {
    let text = std::str::from_utf8(intended.main())
        .map_err(|_| DriverError::new(FailKind::Rejected, "startup.yaml is not UTF-8"))?;
    nvue_lines(text)
        .ok_or_else(|| DriverError::new(FailKind::Rejected, "startup.yaml is not valid YAML"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_explicit() {
        assert_eq!(nvue_window(Duration::from_secs(300)), "300s");
    }
}
