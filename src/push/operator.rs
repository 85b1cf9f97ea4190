//! What the operator decides for a push or an audit, never the targets file: the credentials
//! offered to the devices and the known_hosts their keys are checked against.
//!
//! Why: a targets file says where devices are and how to reach them, and it can come from the
//! same pull request as the spec. If it could also name the credentials, a pull request could
//! set `password_env: AWS_SECRET_ACCESS_KEY`, point a device at its own address and ship a
//! `known_hosts` holding its own host key: push would then send the CI job's secret as the SSH
//! password to a host of the attacker's (issue 38). So the credentials (which environment
//! variable holds the password, which key file, which agent) and the known_hosts come from the
//! command line (`--password-env`, `--key-file`, `--key-passphrase-env`, `--agent-socket`,
//! `--no-agent`, `--known-hosts`; railyard's own known_hosts by default). A targets file that
//! names any of them (`auth:`, `known_hosts:`) is refused, unless the operator says that the
//! file is theirs (`--trust-targets-file`: written by them, kept where no pull request changes
//! it); then its `auth:` and `known_hosts:` are read as before, and a flag given still wins.

use std::path::PathBuf;

use super::ssh::Auth;

/// The operator's choices, from the command line.
#[derive(Clone, Debug)]
pub struct Operator {
    /// The credentials to offer: `--no-agent`, `--agent-socket`, `--key-file`,
    /// `--key-passphrase-env`, `--password-env`.
    pub auth: Auth,
    /// `--known-hosts`: the file host keys are checked against (and `--accept-new` records
    /// into); railyard's own when `None`.
    pub known_hosts: Option<PathBuf>,
    /// `--trust-targets-file`: the targets file is the operator's own; its `auth:` and
    /// `known_hosts:` are honoured (where no flag above is given).
    pub trust_targets_file: bool,
}

impl Default for Operator {
    /// No flag given: the agent (`SSH_AUTH_SOCK`), railyard's known_hosts, an untrusted file.
    fn default() -> Self {
        Self {
            auth: Auth {
                agent: true,
                ..Auth::default()
            },
            known_hosts: None,
            trust_targets_file: false,
        }
    }
}

impl Operator {
    /// Whether a flag named a credential (then the targets file's `auth:` is not read).
    pub(super) fn names_credentials(&self) -> bool {
        let a = &self.auth;
        !a.agent
            || a.agent_socket.is_some()
            || a.key_file.is_some()
            || a.key_passphrase_env.is_some()
            || a.password_env.is_some()
    }
}

/// The refusal of a targets file that names a credential or a known_hosts without
/// `--trust-targets-file`: what it named, and where the operator gives it instead.
pub(super) fn refusal(named: &str) -> String {
    format!(
        "it names {named}: which credentials push offers and which known_hosts it trusts are the \
         operator's choice, not a targets file's (one can come from a pull request); give them on \
         the command line (--password-env, --key-file, --key-passphrase-env, --agent-socket, \
         --no-agent, --known-hosts), or pass --trust-targets-file when this file is your own \
         (see SECURITY.md, \"Push credentials\")"
    )
}
