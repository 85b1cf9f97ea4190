//! Commands on a device over SSH: one session reused while healthy, a fresh one after any
//! failure (or on request: read-backs use a new session, as for NETCONF), every command bounded
//! by a deadline and its output by a byte budget (`ssh::exec`). Files travel as a command's stdin (`cat > path`), so no scp/sftp subsystem is
//! needed on the device.

use std::time::Duration;

use super::driver::{DriverError, FailKind};
use super::ssh::{self, Auth, ConnectOptions, Connection, Endpoint, ExecOutput};

/// An SSH command runner for one device.
pub struct Remote {
    endpoint: Endpoint,
    auth: Auth,
    connect: ConnectOptions,
    timeout: Duration,
    /// For steps that apply or read a whole config (frr-reload.py, a scratch FRR): seconds on
    /// a busy switch, so they get the commit deadline rather than a command's.
    slow_timeout: Duration,
    sess: Option<Connection>,
}

impl Remote {
    pub fn new(endpoint: Endpoint, auth: Auth, connect: ConnectOptions, timeout: Duration) -> Self {
        Self {
            endpoint,
            auth,
            connect,
            timeout,
            slow_timeout: timeout,
            sess: None,
        }
    }

    /// The deadline of `run_slow` (never shorter than a command's).
    pub fn with_slow_timeout(mut self, t: Duration) -> Self {
        self.slow_timeout = t.max(self.timeout);
        self
    }

    /// Whether a session is open (something was done on the device by this runner).
    pub(crate) fn is_connected(&self) -> bool {
        self.sess.is_some()
    }

    pub fn run(&mut self, cmd: &str, stdin: Option<&[u8]>) -> Result<ExecOutput, DriverError> {
        self.run_within(cmd, stdin, self.timeout)
    }

    /// `run` with the slow-step deadline.
    pub(crate) fn run_slow(
        &mut self,
        cmd: &str,
        stdin: Option<&[u8]>,
    ) -> Result<ExecOutput, DriverError> {
        self.run_within(cmd, stdin, self.slow_timeout)
    }

    fn run_within(
        &mut self,
        cmd: &str,
        stdin: Option<&[u8]>,
        timeout: Duration,
    ) -> Result<ExecOutput, DriverError> {
        if self.sess.is_none() {
            self.sess = Some(ssh::connect(&self.endpoint, &self.auth, &self.connect)?);
        }
        let Some(sess) = self.sess.as_ref() else {
            return Err(DriverError::new(FailKind::Transport, "no SSH session"));
        };
        let r = ssh::exec(sess, cmd, stdin, timeout);
        if r.is_err() {
            // A broken session is not reused: the next step reconnects.
            self.sess = None;
        }
        Ok(r?)
    }

    /// Run and require exit status 0; `what` names the step in the error.
    pub fn ok(
        &mut self,
        what: &str,
        cmd: &str,
        stdin: Option<&[u8]>,
    ) -> Result<String, DriverError> {
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

    /// Forget the session: the next command opens a fresh one.
    pub fn fresh(&mut self) {
        self.sess = None;
    }
}
