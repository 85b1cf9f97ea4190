//! What the command drivers (`nvue-ssh`, `eos-ssh`, `sonic-ssh`) share: SSH command sequences
//! following the transactional paths in PUSH-DESIGN §1 and §5, a platform tool called on the
//! device, and railyard's own files there. They are tested against *contract stand-ins*
//! (tests/push/push_contract.rs) that implement only the documented command sequences — not against
//! the vendors' devices — so what is asserted is railyard's sequencing, units and cleanup.
//!
//! Commands marked unverified in PUSH-DESIGN (NVUE `--confirm-yes/--confirm-no`, EOS over an exec
//! channel with commands on stdin) need a check on a real box before production use.

use crate::output::shell::quote as q;
use crate::push::PushSettings;
use crate::push::driver::DriverError;
use crate::push::remote::Remote;
use crate::push::targets::Target;

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
    pub fn file(&self, ext: &str) -> String {
        format!("{}/{}.{ext}", self.state_dir, self.tag)
    }

    pub(crate) fn upload(
        &self,
        r: &mut Remote,
        data: &[u8],
        ext: &str,
    ) -> Result<String, DriverError> {
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
    pub(crate) fn remove_uploads(&self, r: &mut Remote) {
        if r.is_connected() {
            let prefix = format!("{}/{}.", self.state_dir, self.tag);
            let _ = r.run(&format!("rm -f {}*", q(&prefix)), None);
        }
    }

    /// A target's settings within transaction `tag` (`<txid>-<device>`).
    pub(crate) fn for_target(t: &Target, tag: String) -> Self {
        Self {
            tool: t.tool.clone(),
            state_dir: t.state_dir.clone(),
            tag,
        }
    }
}

/// The SSH session a command driver runs its steps over.
pub(crate) fn remote(t: &Target, s: &PushSettings) -> Remote {
    Remote::new(
        t.endpoint.clone(),
        t.auth.clone(),
        s.connect.clone(),
        s.client.rpc_timeout,
    )
    .with_slow_timeout(s.client.commit_timeout)
}
