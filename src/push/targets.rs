//! The targets file: where each device is reached and with which driver. Never secrets, and
//! not the credentials or the known_hosts either: those are the operator's ([`super::operator`]);
//! `auth:` and `known_hosts:` are read only from a file the operator vouches for
//! (`--trust-targets-file`). Unknown keys (such as `password:`) are rejected.
//!
//! ```yaml
//! defaults: { user: admin, port: 830, driver: netconf }
//! devices:
//!   spine1: { address: 10.0.0.1, role: spine }
//!   leaf1:  { address: 10.0.0.11, role: leaf, driver: frr-ssh, port: 22 }
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, EnumAccess, VariantAccess, Visitor};

use super::operator::{self, Operator};
use super::ssh::{Auth, Endpoint};
use crate::model::{Delivery, Platform};
use crate::output::shell::quote;

/// How a device is pushed to: the generic NETCONF driver, or the platform's own driver
/// (`push/drivers/<os>/`), whose name and defaults are its platform's row (`Platform::row`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DriverKind {
    /// Generic NETCONF (candidate + confirmed commit) of the OpenConfig payload
    /// `openconfig.xml`, rendered for the switches whose OS the spec's `push.netconf` names.
    Netconf,
    /// The platform's own driver over SSH (`frr-ssh`, `nvue-ssh`, `eos-ssh`, `sonic-ssh`).
    Native(Platform),
}

/// The generic driver's name and defaults.
const NETCONF: Delivery = Delivery {
    driver: "netconf",
    file: "openconfig.xml",
    companions: &[],
    port: 830,
    tool: "",
    frr_exec: None,
};

const KINDS: usize = 1 + Platform::ALL.len();

impl DriverKind {
    /// Every driver, in the order of their names in messages.
    pub const ALL: [DriverKind; KINDS] = {
        let mut all = [DriverKind::Netconf; KINDS];
        let mut i = 0;
        while i < Platform::ALL.len() {
            all[i + 1] = DriverKind::Native(Platform::ALL[i]);
            i += 1;
        }
        all
    };

    /// The targets file's names of the drivers, in the order of [`DriverKind::ALL`].
    const NAMES: [&'static str; KINDS] = {
        let mut names = [""; KINDS];
        let mut i = 0;
        while i < KINDS {
            names[i] = DriverKind::ALL[i].delivery().driver;
            i += 1;
        }
        names
    };

    /// Its name and defaults: the generic driver's, or the platform's row's.
    pub(crate) const fn delivery(self) -> &'static Delivery {
        match self {
            DriverKind::Netconf => &NETCONF,
            DriverKind::Native(p) => &p.row().push,
        }
    }

    /// The driver the targets file names `name`.
    pub(crate) fn from_name(name: &str) -> Option<DriverKind> {
        DriverKind::ALL
            .into_iter()
            .find(|k| k.delivery().driver == name)
    }

    pub fn as_str(self) -> &'static str {
        self.delivery().driver
    }

    /// The rendered file under `configs/<device>/` this driver pushes by default.
    pub(crate) fn default_file(self) -> &'static str {
        self.delivery().file
    }

    /// Files pushed in the same transaction besides the main one.
    pub(crate) fn companions(self) -> &'static [&'static str] {
        self.delivery().companions
    }

    pub(crate) fn default_port(self) -> u16 {
        self.delivery().port
    }

    /// The platform tool the command drivers call (overridable per device with `tool:`).
    pub(crate) fn default_tool(self) -> &'static str {
        self.delivery().tool
    }
}

/// A driver is written as its name (`driver: nvue-ssh`); read as serde reads a unit-only enum,
/// so every message about a wrong one is serde's own.
impl<'de> Deserialize<'de> for DriverKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_enum("DriverKind", &DriverKind::NAMES, KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = DriverKind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("enum DriverKind")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<DriverKind, A::Error> {
        let (Named(kind), variant) = data.variant::<Named>()?;
        variant.unit_variant()?;
        Ok(kind)
    }
}

/// A driver's name as an enum variant's identifier.
struct Named(DriverKind);

impl<'de> Deserialize<'de> for Named {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_identifier(NameVisitor)
    }
}

struct NameVisitor;

impl Visitor<'_> for NameVisitor {
    type Value = Named;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Named, E> {
        let index = format!("variant index 0 <= i < {KINDS}");
        usize::try_from(v)
            .ok()
            .and_then(|i| DriverKind::ALL.get(i))
            .map(|k| Named(*k))
            .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &index.as_str()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Named, E> {
        DriverKind::from_name(v)
            .map(Named)
            .ok_or_else(|| E::unknown_variant(v, &DriverKind::NAMES))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Named, E> {
        match std::str::from_utf8(v) {
            Ok(s) => self.visit_str(s),
            Err(_) => Err(E::unknown_variant(
                &String::from_utf8_lossy(v),
                &DriverKind::NAMES,
            )),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AuthSpec {
    #[serde(default)]
    pub agent: Option<bool>,
    pub agent_socket: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    pub key_passphrase_env: Option<String>,
    pub password_env: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Defaults {
    pub user: Option<String>,
    pub port: Option<u16>,
    pub driver: Option<DriverKind>,
}

/// FRR settings (paths on the device), for `frr-ssh` and the FRR half of `sonic-ssh`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrrSpec {
    /// `--vty_socket` for vtysh and frr-reload.py (FRR in a namespace or a pathspace); also
    /// where railyard looks for the daemons FRR runs (default `/var/run/frr`).
    pub vty_socket: Option<String>,
    /// Where railyard keeps intended/pre-change configs and the revert timer on the device
    /// (default `/var/lib/railyard`).
    pub state_dir: Option<String>,
    /// frr-reload.py's path (default `/usr/lib/frr/frr-reload.py`).
    pub reload: Option<String>,
    /// Where `write memory` saves `frr.conf` at confirm (vtysh `--config_dir`; FRR's own
    /// default, `/etc/frr`, when unset).
    pub config_dir: Option<String>,
    /// Save the confirmed config with `write memory` (default true).
    pub save: Option<bool>,
    /// The FRR daemons' directory, for the scratch FRR that reads configs (default
    /// `/usr/lib/frr`).
    pub daemon_dir: Option<String>,
    /// A command prefix to reach FRR (SONiC default `docker exec -i bgp`; `""` for none).
    pub exec: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DeviceSpec {
    pub address: String,
    pub port: Option<u16>,
    pub user: Option<String>,
    pub driver: Option<DriverKind>,
    /// For `--wave`: `spine`, `leaf`, … (push never reads the topology to find it).
    pub role: Option<String>,
    pub known_hosts: Option<PathBuf>,
    /// File under `configs/<device>/` to push, when not the driver's default.
    pub file: Option<String>,
    #[serde(default)]
    pub frr: FrrSpec,
    /// Command drivers: the platform tool's command line (`nv`, `Cli -p 15`, `sudo config`):
    /// words separated by spaces, each taken literally (no shell syntax).
    pub tool: Option<String>,
    /// Command drivers: where railyard keeps uploads and timers on the device (default
    /// `.railyard` in the login's home).
    pub state_dir: Option<String>,
    /// `sonic-ssh`: the command printing the running CONFIG_DB as JSON (default
    /// `sudo sonic-cfggen -d --print-data`).
    pub read: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TargetsFile {
    pub known_hosts: Option<PathBuf>,
    /// Read only with `--trust-targets-file` ([`super::operator`]).
    pub auth: Option<AuthSpec>,
    #[serde(default)]
    pub defaults: Defaults,
    pub devices: BTreeMap<String, DeviceSpec>,
}

/// One resolved target.
#[derive(Clone, Debug)]
pub struct Target {
    pub name: String,
    pub role: Option<String>,
    pub driver: DriverKind,
    pub endpoint: Endpoint,
    pub auth: Auth,
    /// The main file under `configs/<device>/`.
    pub file: String,
    /// `frr.exec` here is shell-quoted word by word, as `tool` and `read` are.
    pub frr: FrrSpec,
    /// The platform tool's command line, every word shell-quoted ([`command_line`]).
    pub tool: String,
    pub state_dir: String,
    /// `sonic-ssh`'s CONFIG_DB read command, every word shell-quoted.
    pub read: String,
}

impl Target {
    /// Every file pushed to this device, the main one first.
    pub fn files(&self) -> Vec<String> {
        let mut v = vec![self.file.clone()];
        v.extend(self.driver.companions().iter().map(|c| c.to_string()));
        v
    }
}

/// A targets file that cannot be used; says which file and what is wrong.
#[derive(Debug)]
pub struct TargetsError {
    pub file: PathBuf,
    pub message: String,
}

impl fmt::Display for TargetsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "targets file {}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for TargetsError {}

/// railyard's own known_hosts: `$XDG_CONFIG_HOME/railyard/known_hosts` or
/// `~/.config/railyard/known_hosts`; never `~/.ssh/known_hosts` implicitly.
pub(super) fn default_known_hosts() -> PathBuf {
    config_home().join("railyard/known_hosts")
}

fn config_home() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from(".railyard"))
}

fn expand(p: &Path, base: &Path) -> PathBuf {
    let s = p.to_string_lossy();
    if let Some(rest) = s.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// A command line the targets file gives (`tool`, `read`, `frr.exec`) as railyard runs it on a
/// device: its words (split at spaces), each through the one shell quoting
/// (`output::shell::quote`), so a word is never shell syntax — `;`, `$(…)`, quotes and globs
/// are literal characters of a word, and `tool: "nv; reboot"` runs a program named `nv;`. A
/// control character (a newline would end the command) is refused.
fn command_line(line: &str) -> Result<String, String> {
    if line.chars().any(char::is_control) {
        return Err(
            "contains a control character (a tab or a line break); give the command's words \
             separated by spaces"
                .into(),
        );
    }
    let words: Vec<String> = line
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(quote)
        .collect();
    Ok(words.join(" "))
}

/// The credentials and the default known_hosts of a push: the operator's flags, or a trusted
/// targets file's `auth:`/`known_hosts:` where no flag names them; an untrusted file that names
/// either is refused.
fn trusted(f: &TargetsFile, op: &Operator, base: &Path) -> Result<(Auth, PathBuf), String> {
    if !op.trust_targets_file {
        let per_device = f.devices.values().any(|d| d.known_hosts.is_some());
        if f.auth.is_some() {
            return Err(operator::refusal("credentials (`auth:`)"));
        }
        if f.known_hosts.is_some() || per_device {
            return Err(operator::refusal("its own known_hosts (`known_hosts:`)"));
        }
    }
    let auth = match &f.auth {
        Some(a) if !op.names_credentials() => Auth {
            agent: a.agent.unwrap_or(true),
            agent_socket: a.agent_socket.as_deref().map(|p| expand(p, base)),
            key_file: a.key_file.as_deref().map(|p| expand(p, base)),
            key_passphrase_env: a.key_passphrase_env.clone(),
            password_env: a.password_env.clone(),
        },
        _ => op.auth.clone(),
    };
    let known_hosts = match (&op.known_hosts, &f.known_hosts) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) => expand(p, base),
        (None, None) => default_known_hosts(),
    };
    Ok((auth, known_hosts))
}

/// Parse the targets file at `path` (its text in `text`), with the operator's credentials and
/// known_hosts; relative paths in it are relative to its directory.
pub fn parse(text: &str, path: &Path, op: &Operator) -> Result<Vec<Target>, TargetsError> {
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let err = |message: String| TargetsError {
        file: path.to_path_buf(),
        message,
    };
    let f: TargetsFile = serde_saphyr::from_str(text).map_err(|e| {
        // Only the first line: the rest is a source snippet, which could quote a secret someone
        // wrongly put into the file. The parser's own `error:` prefix would double the CLI's.
        let msg = e.to_string();
        let first = msg.lines().next().unwrap_or("invalid YAML");
        let first = first.strip_prefix("error: ").unwrap_or(first).to_string();
        let lower = first.to_ascii_lowercase();
        if ["password", "passphrase", "secret"]
            .iter()
            .any(|k| lower.contains(k))
        {
            // The quoted key may hold the secret itself (`password:hunter2`, without a space, is
            // one plain scalar): say where, quote nothing.
            let place = e
                .location()
                .map(|l| format!("line {} column {}: ", l.line(), l.column()))
                .unwrap_or_default();
            err(format!(
                "{place}a key names a password, passphrase or secret — secrets never go into the \
                 targets file: push takes --password-env (the name of an environment variable) or \
                 --key-file"
            ))
        } else {
            err(first)
        }
    })?;
    let (auth, kh_default) = trusted(&f, op, base).map_err(err)?;
    let mut out = Vec::new();
    for (name, d) in f.devices {
        if name.is_empty() || name.contains(['/', '\0']) || name.starts_with('.') {
            return Err(err(format!("device name `{name}` is not a plain name")));
        }
        let driver = d
            .driver
            .or(f.defaults.driver)
            .unwrap_or(DriverKind::Netconf);
        let user = d
            .user
            .or_else(|| f.defaults.user.clone())
            .ok_or_else(|| err(format!("{name}: no `user` (nor defaults.user)")))?;
        let file = d.file.unwrap_or_else(|| driver.default_file().to_string());
        if file.contains("..") || file.starts_with('/') {
            return Err(err(format!(
                "{name}: `file` must stay under configs/{name}/"
            )));
        }
        let words = |field: &str, line: &str| {
            command_line(line).map_err(|why| err(format!("{name}: `{field}` {why}")))
        };
        let tool = words(
            "tool",
            d.tool.as_deref().unwrap_or_else(|| driver.default_tool()),
        )?;
        let read = words(
            "read",
            d.read
                .as_deref()
                .unwrap_or("sudo sonic-cfggen -d --print-data"),
        )?;
        let mut frr = d.frr;
        // Where FRR runs in a container (SONiC: `bgp`), the way into it.
        let exec = frr
            .exec
            .take()
            .or_else(|| driver.delivery().frr_exec.map(str::to_string));
        frr.exec = exec.map(|e| words("frr.exec", &e)).transpose()?;
        out.push(Target {
            endpoint: Endpoint {
                host: d.address,
                port: d
                    .port
                    .or(f.defaults.port)
                    .unwrap_or_else(|| driver.default_port()),
                user,
                // The operator's `--known-hosts` wins over a trusted file's per-device one.
                known_hosts: d
                    .known_hosts
                    .as_deref()
                    .filter(|_| op.known_hosts.is_none())
                    .map(|p| expand(p, base))
                    .unwrap_or_else(|| kh_default.clone()),
            },
            name,
            role: d.role,
            driver,
            auth: auth.clone(),
            file,
            frr,
            tool,
            state_dir: d.state_dir.unwrap_or_else(|| ".railyard".to_string()),
            read,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_applies_defaults() {
        let t = parse(
            "known_hosts: kh\nauth: {key_file: id, password_env: PW}\n\
             defaults: {user: admin}\ndevices:\n  s1: {address: 127.0.0.1, role: spine}\n  \
             l1: {address: 127.0.0.1, port: 2222, driver: frr-ssh}\n",
            Path::new("/base/targets.yaml"),
            &Operator {
                trust_targets_file: true,
                ..Operator::default()
            },
        )
        .unwrap();
        assert_eq!(t.len(), 2);
        let l1 = &t[0];
        assert_eq!(l1.name, "l1");
        assert_eq!(l1.driver, DriverKind::Native(Platform::Frr));
        assert_eq!(l1.file, "frr.conf");
        assert_eq!(l1.endpoint.port, 2222);
        assert_eq!(l1.endpoint.known_hosts, PathBuf::from("/base/kh"));
        assert_eq!(t[1].endpoint.port, 830);
        assert_eq!(t[1].auth.password_env.as_deref(), Some("PW"));
    }

    #[test]
    fn drivers_are_named_by_their_rows() {
        for k in DriverKind::ALL {
            let text = format!(
                "devices:\n  s1: {{address: x, user: u, driver: {}}}\n",
                k.as_str()
            );
            let t = parse(&text, Path::new("/t.yaml"), &Operator::default()).unwrap();
            assert_eq!(t[0].driver, k);
            assert_eq!(t[0].file, k.default_file());
            assert_eq!(t[0].endpoint.port, k.default_port());
        }
        let t = parse(
            "devices:\n  s1: {address: x, user: u, driver: sonic-ssh}\n",
            Path::new("/t.yaml"),
            &Operator::default(),
        )
        .unwrap();
        assert_eq!(t[0].driver, DriverKind::Native(Platform::Sonic));
        assert_eq!(t[0].frr.exec.as_deref(), Some("docker exec -i bgp"));
        assert_eq!(t[0].files(), ["config_db.json", "frr.conf"]);
        // serde's message, with today's names first in today's order.
        let e = parse(
            "devices:\n  s1: {address: x, user: u, driver: bogus}\n",
            Path::new("/t.yaml"),
            &Operator::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains(
                "unknown variant `bogus`, expected one of netconf, frr-ssh, nvue-ssh, eos-ssh, \
                 sonic-ssh"
            ),
            "{e}"
        );
    }

    #[test]
    fn tool_words_are_shell_quoted_and_control_characters_refused() {
        let t = parse(
            "defaults: {user: u, driver: nvue-ssh}\ndevices:\n  \
             a: {address: x, tool: 'nv; touch /tmp/pwned $(id)', read: 'cat  db.json'}\n  \
             b: {address: y, driver: eos-ssh, frr: {exec: 'docker exec -i bgp'}}\n",
            Path::new("t.yaml"),
            &Operator::default(),
        )
        .unwrap();
        assert_eq!(t[0].tool, "'nv;' touch /tmp/pwned '$(id)'");
        assert_eq!(t[0].read, "cat db.json");
        // The defaults are plain words: unchanged.
        assert_eq!(t[1].tool, "Cli -p 15");
        assert_eq!(t[1].frr.exec.as_deref(), Some("docker exec -i bgp"));
        let e = parse(
            "devices:\n  a: {address: x, user: u, tool: \"nv\\nreboot\"}\n",
            Path::new("t.yaml"),
            &Operator::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("`tool` contains a control character"),
            "{e}"
        );
    }

    #[test]
    fn secrets_are_refused() {
        let e = parse(
            "devices:\n  s1: {address: x, user: u, password: hunter2}\n",
            Path::new("/t.yaml"),
            &Operator::default(),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("targets file /t.yaml: "), "{e}");
        assert!(!e.to_string().contains("error:"), "{e}");
        assert!(e.to_string().contains("password"), "{e}");
        assert!(!e.to_string().contains("hunter2"), "{e}");
    }

    /// A targets file (one can come from a pull request) does not choose the credentials or
    /// the known_hosts: refused without `--trust-targets-file`, naming the flags; the operator's
    /// flags are what a target carries, and win over a trusted file's (#38 item 5).
    #[test]
    fn credentials_and_known_hosts_are_the_operators() {
        let hostile = [
            "auth: {password_env: AWS_SECRET_ACCESS_KEY}\n",
            "known_hosts: ./kh\n",
            "auth: {agent: false}\n",
        ];
        for head in hostile {
            let text = format!("{head}devices:\n  s1: {{address: 203.0.113.9, user: u}}\n");
            let e = parse(&text, Path::new("/t.yaml"), &Operator::default()).unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains("--trust-targets-file"), "{msg}");
            assert!(msg.contains("--password-env"), "{msg}");
        }
        let per_device = "devices:\n  s1: {address: x, user: u, known_hosts: ./kh}\n";
        assert!(parse(per_device, Path::new("/t.yaml"), &Operator::default()).is_err());

        let op = Operator {
            auth: Auth {
                agent: false,
                password_env: Some("RY_PUSH_PASSWORD".into()),
                ..Auth::default()
            },
            known_hosts: Some(PathBuf::from("/etc/railyard/known_hosts")),
            trust_targets_file: false,
        };
        let t = parse(
            "devices:\n  s1: {address: x, user: u}\n",
            Path::new("/t.yaml"),
            &op,
        )
        .unwrap();
        assert_eq!(t[0].auth.password_env.as_deref(), Some("RY_PUSH_PASSWORD"));
        assert!(!t[0].auth.agent);
        assert_eq!(
            t[0].endpoint.known_hosts,
            PathBuf::from("/etc/railyard/known_hosts")
        );
        // Trusted: the flags still win over the file's auth and known_hosts.
        let trusted = Operator {
            trust_targets_file: true,
            ..op
        };
        let text = "known_hosts: kh\nauth: {password_env: FILE_PW}\n\
                    devices:\n  s1: {address: x, user: u, known_hosts: dev_kh}\n";
        let t = parse(text, Path::new("/t.yaml"), &trusted).unwrap();
        assert_eq!(t[0].auth.password_env.as_deref(), Some("RY_PUSH_PASSWORD"));
        assert_eq!(
            t[0].endpoint.known_hosts,
            PathBuf::from("/etc/railyard/known_hosts")
        );
        // No flag: an untrusted file gets the agent and railyard's own known_hosts.
        let t = parse(
            "devices:\n  s1: {address: x, user: u}\n",
            Path::new("/t.yaml"),
            &Operator::default(),
        )
        .unwrap();
        assert!(t[0].auth.agent && t[0].auth.password_env.is_none());
        assert_eq!(t[0].endpoint.known_hosts, default_known_hosts());
    }
}
