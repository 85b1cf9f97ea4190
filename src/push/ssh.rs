//! SSH connections for push: strict host-key verification against railyard's own known_hosts
//! file *before* any credential is offered, then authentication (agent, key file, password from an
//! environment variable), then either the NETCONF subsystem or remote commands.
//!
//! Invariants: a host key mismatch is always fatal and reports both fingerprints; an unknown host
//! is fatal unless the caller opted into `accept_new` (trust on first use), and only then is the
//! key appended to railyard's known_hosts (never to `~/.ssh/known_hosts`); every libssh2 call has a
//! timeout (libssh2's default is to block forever), and every whole exchange a deadline on the
//! socket ([`Deadline`]: the handshake within the connect timeout, however many banner lines the
//! peer sends; a command within its timeout, however long it keeps printing) and a command's
//! output a byte budget; no secret is ever put into an error message.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};
use ssh2::{CheckResult, HostKeyType, KnownHostFileKind, MethodType, Session};

use super::deadline::Deadline;
use super::netconf::client::Transport;

/// The most a remote command may print on stdout or on stderr. The largest output railyard reads
/// is a switch's running configuration (`nv config show`, `sonic-cfggen -d --print-data`), a few
/// MB on a 64-port switch; 64 MiB is ten times a very large one and keeps a peer that never
/// stops printing from growing push's memory without bound.
pub(super) const MAX_COMMAND_OUTPUT: u64 = 64 << 20;

/// Where and as whom to connect.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    pub user: String,
    /// railyard's known_hosts file for this device.
    pub known_hosts: PathBuf,
}

/// How to authenticate. Holds no secret itself: a password is read from the named environment
/// variable at connect time.
#[derive(Clone, Debug, Default)]
pub struct Auth {
    /// Try every identity of the running ssh-agent (`SSH_AUTH_SOCK`).
    pub agent: bool,
    /// The agent's socket; `SSH_AUTH_SOCK` when `None`.
    pub agent_socket: Option<PathBuf>,
    /// A private key file (OpenSSH format); its passphrase, if any, from `key_passphrase_env`.
    pub key_file: Option<PathBuf>,
    pub key_passphrase_env: Option<String>,
    /// Name of the environment variable holding the password.
    pub password_env: Option<String>,
}

/// Connection settings.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    pub connect_timeout: Duration,
    /// Trust and record an unknown host key (explicit `--accept-new`).
    pub accept_new: bool,
    /// SSH keepalive interval, so long confirm windows keep the session alive.
    pub keepalive: Duration,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            accept_new: false,
            keepalive: Duration::from_secs(15),
        }
    }
}

/// Why an SSH connection failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SshError {
    Connect(String),
    /// The server's key differs from the recorded one: possible man-in-the-middle.
    HostKeyMismatch {
        host: String,
        presented: String,
        known: Vec<String>,
        /// The known_hosts file that holds the recorded key.
        known_hosts: PathBuf,
    },
    /// No key recorded for this host and `--accept-new` not given.
    HostKeyUnknown {
        host: String,
        presented: String,
        /// The known_hosts file that was searched.
        known_hosts: PathBuf,
    },
    HostKeyCheck(String),
    /// Every configured method failed (which ones were tried, never with what).
    Auth {
        user: String,
        tried: Vec<String>,
    },
    Channel(String),
    Io(String),
    /// `what` did not finish within `after`: the peer kept the exchange going (or went silent)
    /// past the deadline; the session was closed.
    Deadline {
        what: String,
        after: Duration,
        option: &'static str,
        /// Cut before any credential was offered (the handshake).
        before_auth: bool,
    },
    /// A command printed more than [`MAX_COMMAND_OUTPUT`] bytes on one stream.
    OutputTooLarge {
        stream: &'static str,
    },
}

impl SshError {
    /// Whether the failure happened before any credential left this machine.
    pub fn before_auth(&self) -> bool {
        matches!(
            self,
            SshError::Connect(_)
                | SshError::Deadline {
                    before_auth: true,
                    ..
                }
                | SshError::HostKeyMismatch { .. }
                | SshError::HostKeyUnknown { .. }
                | SshError::HostKeyCheck(_)
        )
    }
}

impl fmt::Display for SshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SshError::Connect(e) => write!(f, "connect: {e}"),
            SshError::HostKeyMismatch {
                host,
                presented,
                known,
                known_hosts,
            } => write!(
                f,
                "HOST KEY MISMATCH for {host}: server presented {presented}, {} has {} \
                 — refusing to authenticate (possible man-in-the-middle; if the key really \
                 changed, remove the old entry for {host} from {})",
                known_hosts.display(),
                if known.is_empty() {
                    "a different key".to_string()
                } else {
                    known.join(", ")
                },
                known_hosts.display()
            ),
            SshError::HostKeyUnknown {
                host,
                presented,
                known_hosts,
            } => write!(
                f,
                "unknown host key for {host} ({presented}): not in {}; verify it and re-run \
                 with --accept-new to record it there",
                known_hosts.display()
            ),
            SshError::HostKeyCheck(e) => write!(f, "host key check failed: {e}"),
            SshError::Auth { user, tried } => write!(
                f,
                "authentication as `{user}` failed (tried: {})",
                if tried.is_empty() {
                    "nothing configured".to_string()
                } else {
                    tried.join(", ")
                }
            ),
            SshError::Channel(e) => write!(f, "channel: {e}"),
            SshError::Io(e) => write!(f, "io: {e}"),
            SshError::Deadline {
                what,
                after,
                option,
                ..
            } => write!(
                f,
                "timeout: {what} did not finish within {} s ({option}); the peer kept it going \
                 or went silent, and the connection was closed",
                after.as_secs_f64()
            ),
            SshError::OutputTooLarge { stream } => write!(
                f,
                "a command on the device printed more than {} MiB on {stream} (the limit for \
                 one command's output); the connection was closed",
                MAX_COMMAND_OUTPUT >> 20
            ),
        }
    }
}

impl std::error::Error for SshError {}

fn e2s(e: &ssh2::Error) -> String {
    e.message().to_string()
}

/// The name libssh2 and OpenSSH use for this endpoint in known_hosts.
pub(super) fn known_hosts_name(host: &str, port: u16) -> String {
    if port == 22 {
        host.to_string()
    } else {
        format!("[{host}]:{port}")
    }
}

/// `SHA256:<base64 without padding>` of a raw public key blob, as OpenSSH prints it.
pub(super) fn fingerprint(blob: &[u8]) -> String {
    let b64 = base64_encode(&Sha256::digest(blob));
    format!("SHA256:{}", b64.trim_end_matches('='))
}

fn key_type_name(t: HostKeyType) -> Option<&'static str> {
    Some(match t {
        HostKeyType::Rsa => "ssh-rsa",
        HostKeyType::Dss => "ssh-dss",
        HostKeyType::Ecdsa256 => "ecdsa-sha2-nistp256",
        HostKeyType::Ecdsa384 => "ecdsa-sha2-nistp384",
        HostKeyType::Ecdsa521 => "ecdsa-sha2-nistp521",
        HostKeyType::Ed25519 => "ssh-ed25519",
        HostKeyType::Unknown => return None,
    })
}

/// (key type, base64 blob) of every plain-text known_hosts line naming this endpoint. Hashed
/// entries are checked by libssh2 but cannot be listed here.
fn recorded_keys(path: &Path, host: &str, port: u16) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let names = [known_hosts_name(host, port), host.to_string()];
    let mut out = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(mut patterns) = f.next() else {
            continue;
        };
        if patterns.starts_with('#') {
            continue;
        }
        if patterns.starts_with('@') {
            // `@revoked` / `@cert-authority` markers: not plain host keys.
            continue;
        }
        if patterns.starts_with('|') {
            patterns = "";
        }
        // libssh2 accepts a plain-host entry for any port too, so list those as well.
        let matches = patterns.split(',').any(|p| names.iter().any(|n| n == p));
        if let (true, Some(kt), Some(key)) = (matches, f.next(), f.next()) {
            out.push((kt.to_string(), key.to_string()));
        }
    }
    out
}

/// An authenticated SSH session, with its socket kept to put deadlines on whole exchanges.
pub struct Connection {
    sess: Session,
    socket: TcpStream,
}

impl Connection {
    pub fn session(&self) -> &Session {
        &self.sess
    }

    /// A deadline on the next exchange; without one, refuse to start it.
    fn deadline(&self, after: Duration) -> Result<Deadline, SshError> {
        Deadline::arm(&self.socket, after)
            .ok_or_else(|| SshError::Io("cannot watch the connection's deadline".into()))
    }
}

/// Connect, verify the host key, authenticate. The TCP connect and the SSH handshake must finish
/// within `opts.connect_timeout`, and so must authentication.
pub fn connect(ep: &Endpoint, auth: &Auth, opts: &ConnectOptions) -> Result<Connection, SshError> {
    let addr = (ep.host.as_str(), ep.port)
        .to_socket_addrs()
        .map_err(|e| SshError::Connect(format!("{}:{}: {e}", ep.host, ep.port)))?
        .next()
        .ok_or_else(|| SshError::Connect(format!("{}: no address", ep.host)))?;
    let tcp = TcpStream::connect_timeout(&addr, opts.connect_timeout)
        .map_err(|e| SshError::Connect(format!("{addr}: {e}")))?;
    let _ = tcp.set_nodelay(true);
    let socket = tcp
        .try_clone()
        .map_err(|e| SshError::Connect(format!("{addr}: {e}")))?;
    let mut conn = Connection {
        sess: Session::new().map_err(|e| SshError::Connect(e2s(&e)))?,
        socket,
    };
    conn.sess.set_tcp_stream(tcp);
    conn.sess.set_timeout(millis(opts.connect_timeout));
    prefer_recorded_key_types(&conn.sess, ep);
    let within = |what: String, before_auth: bool| SshError::Deadline {
        what,
        after: opts.connect_timeout,
        option: "--connect-timeout",
        before_auth,
    };
    let deadline = conn.deadline(opts.connect_timeout)?;
    let shook = conn.sess.handshake();
    if deadline.fired() {
        return Err(within(format!("the SSH handshake with {addr}"), true));
    }
    shook.map_err(|e| SshError::Connect(format!("handshake with {addr}: {}", e2s(&e))))?;
    drop(deadline);
    let sess = &conn.sess;
    verify_host_key(sess, ep, opts.accept_new)?;
    let deadline = conn.deadline(opts.connect_timeout)?;
    let authenticated = authenticate(sess, &ep.user, auth);
    if deadline.fired() {
        return Err(within(format!("authentication at {addr}"), false));
    }
    authenticated?;
    drop(deadline);
    if !opts.keepalive.is_zero() {
        sess.set_keepalive(true, opts.keepalive.as_secs().clamp(1, 3600) as u32);
    }
    Ok(conn)
}

/// Prefer the host-key algorithms we have on record, as OpenSSH does: otherwise the server may
/// pick a key type we never recorded and a known host would look unknown.
fn prefer_recorded_key_types(sess: &Session, ep: &Endpoint) {
    let recorded = recorded_keys(&ep.known_hosts, &ep.host, ep.port);
    if recorded.is_empty() {
        return;
    }
    let mut prefs: Vec<&str> = recorded.iter().map(|(t, _)| t.as_str()).collect();
    for t in [
        "ssh-ed25519",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "rsa-sha2-512",
        "rsa-sha2-256",
        "ssh-rsa",
    ] {
        if !prefs.contains(&t) {
            prefs.push(t);
        }
    }
    let _ = sess.method_pref(MethodType::HostKey, &prefs.join(","));
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX).max(1)
}

fn verify_host_key(sess: &Session, ep: &Endpoint, accept_new: bool) -> Result<(), SshError> {
    let name = known_hosts_name(&ep.host, ep.port);
    let (key, kind) = sess
        .host_key()
        .ok_or_else(|| SshError::HostKeyCheck("server sent no host key".into()))?;
    let key = key.to_vec();
    let presented = format!(
        "{} {}",
        key_type_name(kind).unwrap_or("unknown-type"),
        fingerprint(&key)
    );
    // libssh2 panics-free only with NUL-free names (ssh2 unwraps CString::new).
    if ep.host.contains('\0') {
        return Err(SshError::HostKeyCheck("host name contains NUL".into()));
    }
    let mut kh = sess
        .known_hosts()
        .map_err(|e| SshError::HostKeyCheck(e2s(&e)))?;
    if ep.known_hosts.exists() {
        kh.read_file(&ep.known_hosts, KnownHostFileKind::OpenSSH)
            .map_err(|e| {
                SshError::HostKeyCheck(format!("reading {}: {}", ep.known_hosts.display(), e2s(&e)))
            })?;
    }
    match kh.check_port(&ep.host, ep.port, &key) {
        CheckResult::Match => Ok(()),
        CheckResult::Mismatch => Err(SshError::HostKeyMismatch {
            host: name,
            presented,
            known_hosts: ep.known_hosts.clone(),
            known: recorded_keys(&ep.known_hosts, &ep.host, ep.port)
                .iter()
                .filter_map(|(t, b)| {
                    base64_decode(b).map(|blob| format!("{t} {}", fingerprint(&blob)))
                })
                .collect(),
        }),
        CheckResult::NotFound if accept_new => {
            let Some(kt) = key_type_name(kind) else {
                return Err(SshError::HostKeyCheck("unknown host key type".into()));
            };
            append_known_host(&ep.known_hosts, &name, kt, &key)
                .map_err(|e| SshError::HostKeyCheck(format!("recording host key: {e}")))?;
            eprintln!(
                "push: --accept-new: recorded {name} {presented} in {}",
                ep.known_hosts.display()
            );
            Ok(())
        }
        CheckResult::NotFound => Err(SshError::HostKeyUnknown {
            host: name,
            presented,
            known_hosts: ep.known_hosts.clone(),
        }),
        CheckResult::Failure => Err(SshError::HostKeyCheck("libssh2 check failed".into())),
    }
}

/// Append `name keytype base64` to railyard's known_hosts (created 0600 with its directory).
fn append_known_host(path: &Path, name: &str, kt: &str, key: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    writeln!(f, "{name} {kt} {}", base64_encode(key))
}

fn authenticate(sess: &Session, user: &str, auth: &Auth) -> Result<(), SshError> {
    let mut tried = Vec::new();
    let offered = sess
        .auth_methods(user)
        .map(str::to_string)
        .unwrap_or_default();
    if sess.authenticated() {
        return Ok(());
    }
    let allows = |m: &str| offered.is_empty() || offered.split(',').any(|o| o == m);
    let agent_socket = auth
        .agent_socket
        .clone()
        .or_else(|| std::env::var_os("SSH_AUTH_SOCK").map(PathBuf::from));
    if auth.agent
        && allows("publickey")
        && let Some(socket) = agent_socket
    {
        tried.push("agent".to_string());
        // ssh2's userauth_agent tries only the first identity: iterate all of them ourselves.
        if let Ok(mut agent) = sess.agent()
            && agent.set_identity_path(&socket).is_ok()
            && agent.connect().is_ok()
            && agent.list_identities().is_ok()
        {
            for id in agent.identities().unwrap_or_default() {
                if agent.userauth(user, &id).is_ok() && sess.authenticated() {
                    let _ = agent.disconnect();
                    return Ok(());
                }
            }
            let _ = agent.disconnect();
        }
    }
    if let Some(key) = &auth.key_file
        && allows("publickey")
    {
        let pass = auth
            .key_passphrase_env
            .as_deref()
            .and_then(|v| std::env::var(v).ok());
        match (&auth.key_passphrase_env, &pass) {
            (Some(v), None) => tried.push(format!(
                "key {} (its passphrase variable ${v}, --key-passphrase-env, is not set)",
                key.display()
            )),
            _ => tried.push(format!("key {}", key.display())),
        }
        if sess
            .userauth_pubkey_file(user, None, key, pass.as_deref())
            .is_ok()
            && sess.authenticated()
        {
            return Ok(());
        }
    }
    if let Some(var) = &auth.password_env {
        match std::env::var(var).ok().filter(|p| !p.is_empty()) {
            // An unset variable is not a wrong password: nothing was offered.
            None => tried.push(format!(
                "password not offered: environment variable ${var} (--password-env) is not set"
            )),
            Some(_) if !allows("password") => tried.push(format!(
                "password from ${var} not offered: the server accepts only {offered}"
            )),
            Some(pw) => {
                tried.push(format!("password from ${var}"));
                if sess.userauth_password(user, &pw).is_ok() && sess.authenticated() {
                    return Ok(());
                }
            }
        }
    }
    Err(SshError::Auth {
        user: user.to_string(),
        tried,
    })
}

/// The NETCONF subsystem channel as a [`Transport`].
pub struct SshTransport {
    conn: Connection,
    chan: ssh2::Channel,
}

impl SshTransport {
    /// Open the `netconf` subsystem on an authenticated session. (The client bounds each message
    /// by its own deadline and byte budget.)
    pub fn netconf(conn: Connection, timeout: Duration) -> Result<Self, SshError> {
        conn.sess.set_timeout(millis(timeout));
        let mut chan = conn
            .sess
            .channel_session()
            .map_err(|e| SshError::Channel(e2s(&e)))?;
        chan.subsystem("netconf")
            .map_err(|e| SshError::Channel(format!("netconf subsystem: {}", e2s(&e))))?;
        Ok(Self { conn, chan })
    }

    /// Drop the connection without a goodbye (tests simulate a dying laptop with this).
    pub fn abort(self) {
        let _ = self
            .conn
            .sess
            .disconnect(None, "railyard aborted the session", None);
    }
}

impl Read for SshTransport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.chan.read(buf)
    }
}

impl Write for SshTransport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.chan.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.chan.flush()
    }
}

impl Transport for SshTransport {
    fn set_timeout(&mut self, timeout: Duration) {
        self.conn.sess.set_timeout(millis(timeout));
    }
}

impl Drop for SshTransport {
    fn drop(&mut self) {
        // Best effort: tell the server the channel is done so it frees the session promptly.
        self.conn.sess.set_timeout(1000);
        let _ = self.chan.send_eof();
        let _ = self.chan.close();
    }
}

/// What a remote command produced.
#[derive(Clone, Debug, Default)]
pub struct ExecOutput {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run `cmd` on the device, feeding `stdin` (files are uploaded this way: `cat > path`, so no
/// scp/sftp subsystem is needed on the device). The whole exchange must finish within `timeout`
/// and each output stream stay within [`MAX_COMMAND_OUTPUT`].
pub(super) fn exec(
    conn: &Connection,
    cmd: &str,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<ExecOutput, SshError> {
    let deadline = conn.deadline(timeout)?;
    let out = exec_unwatched(&conn.sess, cmd, stdin, timeout);
    if deadline.fired() {
        return Err(SshError::Deadline {
            what: "a command on the device".into(),
            after: timeout,
            option: "--rpc-timeout",
            before_auth: false,
        });
    }
    out
}

fn exec_unwatched(
    sess: &Session,
    cmd: &str,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<ExecOutput, SshError> {
    sess.set_timeout(millis(timeout));
    let mut ch = sess
        .channel_session()
        .map_err(|e| SshError::Channel(e2s(&e)))?;
    ch.exec(cmd)
        .map_err(|e| SshError::Channel(format!("exec: {}", e2s(&e))))?;
    if let Some(data) = stdin {
        ch.write_all(data)
            .map_err(|e| SshError::Io(e.to_string()))?;
    }
    ch.send_eof().map_err(|e| SshError::Io(e2s(&e)))?;
    let stdout = read_within_budget(&mut ch, "stdout")?;
    let stderr = read_within_budget(&mut ch.stderr(), "stderr")?;
    ch.wait_close().map_err(|e| SshError::Io(e2s(&e)))?;
    let status = ch.exit_status().map_err(|e| SshError::Io(e2s(&e)))?;
    Ok(ExecOutput {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

/// Everything `r` gives until its end, or `OutputTooLarge` past [`MAX_COMMAND_OUTPUT`].
fn read_within_budget(r: &mut impl Read, stream: &'static str) -> Result<Vec<u8>, SshError> {
    let mut out = Vec::new();
    r.take(MAX_COMMAND_OUTPUT + 1)
        .read_to_end(&mut out)
        .map_err(|e| SshError::Io(e.to_string()))?;
    if out.len() as u64 > MAX_COMMAND_OUTPUT {
        return Err(SshError::OutputTooLarge { stream });
    }
    Ok(out)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (known_hosts and fingerprints; no dependency for 20 lines).
pub(super) fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decode standard base64; `None` on any invalid character.
pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for ch in s.trim_end_matches('=').bytes() {
        let v = B64.iter().position(|&b| b == ch)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_roundtrip() {
        for data in [&b""[..], b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar"] {
            let e = base64_encode(data);
            assert_eq!(base64_decode(&e).as_deref(), Some(data));
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
    }

    #[test]
    fn recorded_keys_match_port_form() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("kh");
        std::fs::write(
            &p,
            "# c\n[10.0.0.1]:830 ssh-ed25519 AAAA\n10.0.0.1 ssh-rsa BBBB\n|1|x|y ssh-rsa CCCC\n",
        )
        .unwrap();
        assert_eq!(
            recorded_keys(&p, "10.0.0.1", 830),
            vec![
                ("ssh-ed25519".to_string(), "AAAA".to_string()),
                ("ssh-rsa".to_string(), "BBBB".to_string())
            ]
        );
        assert_eq!(
            recorded_keys(&p, "10.0.0.1", 22),
            vec![("ssh-rsa".to_string(), "BBBB".to_string())]
        );
    }
}
