//! Test harness for push: real yuma123 `netconfd` behind a private real `sshd` on 127.0.0.1, per
//! LAB-NOTES. Everything a test starts is owned by a guard whose `Drop` kills it (by process
//! group, recorded at spawn) and removes its scratch directory, also when the test panics.
//!
//! Needs root (sshd privilege separation, mount and network namespaces). Without root a test
//! fails, unless `RAILYARD_SKIP=root` opts out on purpose (`prereq`); it never passes silently.

#![allow(dead_code)]

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use railyard::push::{Auth, ConnectOptions, Endpoint};

#[path = "../prereq/mod.rs"]
pub mod prereq;

/// True when the test may run (root); see `prereq` for what happens when it may not.
pub fn require_root(test: &str) -> bool {
    prereq::root(test)
}

/// Panics with an install hint when a program the lab needs is missing.
pub fn require_program(path: &str, package: &str) {
    assert!(
        Path::new(path).exists(),
        "{path} missing: apt-get install -y --no-install-recommends {package}"
    );
}

/// A child process killed with its whole process group on drop.
///
/// The group is signalled only while the leader is unreaped (running or a zombie): a zombie
/// still holds its pid, so the group id cannot have been handed to another process. Signalling
/// `-pgid` after reaping could kill an unrelated process group that reused the number — with
/// `pid_max` 32768 and several test binaries spawning daemons at once, that is how a freshly
/// started netconfd of another test could die ("netconfd exited" under load).
pub struct Daemon {
    pub name: String,
    child: Child,
    stopped: bool,
}

/// The state letter of `/proc/<pid>/stat` (`R`, `S`, `Z`, …), without reaping anything.
fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) S …`: comm may contain spaces and parentheses; the state follows the last `)`.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
}

impl Daemon {
    pub fn spawn(name: &str, cmd: &mut Command) -> Daemon {
        use std::os::unix::process::CommandExt;
        // Own process group: sshd forks per connection and netconf-subsystem per channel; the
        // group kill on drop reaches all of them.
        cmd.process_group(0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        Daemon {
            name: name.into(),
            child,
            stopped: false,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process still runs (a zombie does not), without reaping it.
    pub fn is_running(&mut self) -> bool {
        !self.stopped && !matches!(proc_state(self.child.id()), None | Some('Z') | Some('X'))
    }

    /// How it ended (reaps it; only for messages once `is_running` said it is gone).
    pub fn exit_status(&mut self) -> String {
        self.stopped = true;
        match self.child.wait() {
            Ok(s) => s.to_string(),
            Err(e) => format!("unknown ({e})"),
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Daemon {
    /// Ask the process group to stop without waiting (lets many daemons stop in parallel; the
    /// drop still waits and kills whatever is left).
    pub fn signal_term(&self) {
        if !self.stopped {
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
        }
    }

    /// Kill the whole process group and reap the leader (idempotent).
    pub fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            // Already reaped: its pid may belong to someone else by now.
            return;
        }
        let pid = self.child.id();
        let pg = format!("-{pid}");
        let _ = Command::new("kill")
            .args(["-TERM", "--", &pg])
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline && !matches!(proc_state(pid), None | Some('Z') | Some('X'))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        // The leader is unreaped here: the group id is still ours.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &pg])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// A file for a daemon's stdout/stderr (appended, so both streams can share it).
pub fn output_file(path: &Path) -> Stdio {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(Stdio::from)
        .unwrap_or_else(|_| Stdio::null())
}

/// A free TCP port on 127.0.0.1 (bound and released: a tiny race, acceptable in tests), never
/// one this process handed out before: every push test runs in this one test binary, and two
/// tests given the same port would each reach the other's sshd (a host key mismatch).
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("no free port on 127.0.0.1");
        let mut given = GIVEN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if given.insert(port) {
            return port;
        }
    }
}

pub fn keygen(path: &Path, comment: &str) {
    keygen_with_passphrase(path, comment, "");
}

pub fn keygen_with_passphrase(path: &Path, comment: &str, passphrase: &str) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", passphrase, "-C", comment, "-f"])
        .arg(path)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "ssh-keygen failed for {}", path.display());
}

/// Wait until `cond` holds or panic after `limit` with `what`.
pub fn wait_for(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while t.elapsed() < limit {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out after {limit:?} waiting for {what}");
}

/// The modules netconfd loads: what the rendered `openconfig.xml` uses (its imports are found
/// on the module path).
pub const OC_MODULES: &[&str] = &["iana-if-type", "openconfig-interfaces", "openconfig-if-ip"];

/// The OpenConfig modules netconfd loads, vendored under `tests/fixtures/yang` (see its README).
pub fn openconfig_dir() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yang");
    assert!(
        p.join("openconfig-interfaces.yang").exists(),
        "OpenConfig models not found at {}",
        p.display()
    );
    p
}

/// One netconfd + sshd pair with its own host key, client key, known_hosts and scratch dir.
pub struct NetconfLab {
    // Field order = drop order: daemons die before their directory is removed.
    pub sshd: Daemon,
    pub netconfd: Daemon,
    pub port: u16,
    pub client_key: PathBuf,
    pub known_hosts: PathBuf,
    pub host_key_pub: PathBuf,
    pub sshd_log: PathBuf,
    pub dir: tempfile::TempDir,
}

/// An OpenConfig interfaces payload: `(name, mtu, description)` per interface.
pub fn oc_interfaces(ifs: &[(&str, u32, &str)]) -> String {
    let mut s = String::from(
        r#"<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="http://openconfig.net/yang/interfaces">"#,
    );
    for (name, mtu, descr) in ifs {
        s.push_str(&format!(
            "<interface><name>{name}</name><config><name>{name}</name>\
             <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
             <mtu>{mtu}</mtu><description>{}</description></config></interface>",
            descr.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
        ));
    }
    s.push_str("</interfaces></config>");
    s
}

impl NetconfLab {
    /// Start netconfd (in its own network namespace) and sshd (on 127.0.0.1, in a private mount
    /// namespace with a tmpfs `/run`, so the system's `/run/sshd` is never touched).
    pub fn start(startup: Option<&str>) -> NetconfLab {
        Self::start_with(startup, &[])
    }

    pub fn start_with(startup: Option<&str>, netconfd_extra: &[&str]) -> NetconfLab {
        Self::start_full(startup, netconfd_extra, None)
    }

    /// `authorized_pub`: also authorize this public key file (so one operator key can reach many
    /// labs, as one key reaches a fabric).
    pub fn start_full(
        startup: Option<&str>,
        netconfd_extra: &[&str],
        authorized_pub: Option<&Path>,
    ) -> NetconfLab {
        Self::start_modules(startup, netconfd_extra, authorized_pub, OC_MODULES)
    }

    /// With only these YANG modules loaded.
    pub fn start_modules(
        startup: Option<&str>,
        netconfd_extra: &[&str],
        authorized_pub: Option<&Path>,
        modules: &[&str],
    ) -> NetconfLab {
        require_program("/usr/sbin/netconfd", "netconfd");
        require_program("/usr/sbin/sshd", "openssh-server");
        let oc = openconfig_dir();
        let dir = tempfile::Builder::new()
            .prefix("railyard-nc-")
            .tempdir()
            .expect("tempdir");
        let w = dir.path();
        let port = free_port();
        let sock = w.join("ncxserver.sock");
        // netconfd refuses a startup file without a root element: `<config/>` is the empty one.
        std::fs::write(w.join("startup.xml"), startup.unwrap_or("<config/>")).expect("startup");
        let mut cmd = Command::new("unshare");
        cmd.arg("-n")
            .arg("/usr/sbin/netconfd")
            .args(modules.iter().map(|m| format!("--module={m}")))
            .arg(format!(
                "--modpath={}:/usr/share/yuma/modules",
                oc.display()
            ))
            .arg("--target=candidate")
            .arg("--with-validate=true")
            .arg("--with-startup=false")
            .arg(format!("--startup={}", w.join("startup.xml").display()))
            .arg("--superuser=root")
            // netconfd only accepts sessions whose SSH port it was told about.
            .arg(format!("--port={port}"))
            .arg(format!("--ncxserver-sockname={}", sock.display()))
            .arg(format!("--log={}", w.join("netconfd.log").display()))
            .arg("--log-level=info")
            .args(netconfd_extra)
            // netconfd keeps its confirmed-commit backup in $HOME: one HOME per server.
            .env("HOME", w)
            .stdin(Stdio::null())
            // unshare's own errors (and anything netconfd prints before its log opens) land here.
            .stdout(output_file(&w.join("netconfd.out")))
            .stderr(output_file(&w.join("netconfd.out")));
        let mut netconfd = Daemon::spawn("netconfd", &mut cmd);
        // Generous: module loading takes seconds when the machine is busy.
        wait_for("netconfd socket", Duration::from_secs(30), || {
            if !netconfd.is_running() {
                panic!(
                    "netconfd exited ({}) before opening {}\n--- output ---\n{}\n--- log ---\n{}",
                    netconfd.exit_status(),
                    sock.display(),
                    std::fs::read_to_string(w.join("netconfd.out")).unwrap_or_default(),
                    std::fs::read_to_string(w.join("netconfd.log")).unwrap_or_default()
                );
            }
            sock.exists()
        });

        let host_key = w.join("ssh_host_ed25519_key");
        keygen(&host_key, "lab-host");
        let client_key = w.join("id_client");
        keygen(&client_key, "railyard-test");
        // The lab's own key (tests read back with it) plus an operator key if given.
        let mut authorized = std::fs::read_to_string(w.join("id_client.pub")).expect("pub");
        if let Some(p) = authorized_pub {
            authorized.push_str(&std::fs::read_to_string(p).expect("operator pub"));
        }
        std::fs::write(w.join("authorized_keys"), authorized).expect("authorized_keys");
        let sshd_log = w.join("sshd.log");
        let cfg = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {hk}\nPidFile none\nStrictModes no\n\
             UsePAM no\nPermitRootLogin prohibit-password\nAllowUsers root\n\
             AuthorizedKeysFile {ak}\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             LogLevel DEBUG1\nSubsystem netconf /usr/sbin/netconf-subsystem \
             --ncxserver-sockname={port}@{sock}\n",
            hk = host_key.display(),
            ak = w.join("authorized_keys").display(),
            sock = sock.display(),
        );
        let cfg_path = w.join("sshd_config");
        std::fs::write(&cfg_path, cfg).expect("sshd_config");
        let sshd = spawn_sshd(&cfg_path, &sshd_log, port);
        let host_key_pub = w.join("ssh_host_ed25519_key.pub");
        let known_hosts = w.join("known_hosts");
        write_known_host(&known_hosts, port, &host_key_pub);
        NetconfLab {
            sshd,
            netconfd,
            port,
            client_key,
            known_hosts,
            host_key_pub,
            sshd_log,
            dir,
        }
    }

    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            host: "127.0.0.1".into(),
            port: self.port,
            user: "root".into(),
            known_hosts: self.known_hosts.clone(),
        }
    }

    pub fn auth(&self) -> Auth {
        Auth {
            key_file: Some(self.client_key.clone()),
            ..Auth::default()
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn netconfd_log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.path().join("netconfd.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    pub fn sshd_log(&self) -> String {
        std::fs::read_to_string(&self.sshd_log).unwrap_or_default()
    }
}

/// `[127.0.0.1]:port <type> <key>` from a `.pub` file.
pub fn write_known_host(known_hosts: &Path, port: u16, host_key_pub: &Path) {
    let pubkey = std::fs::read_to_string(host_key_pub).expect("host key pub");
    let mut parts = pubkey.split_whitespace();
    let (kt, key) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut f = std::fs::File::create(known_hosts).expect("known_hosts");
    writeln!(f, "[127.0.0.1]:{port} {kt} {key}").expect("write known_hosts");
}

pub fn connect_opts() -> ConnectOptions {
    ConnectOptions {
        connect_timeout: Duration::from_secs(10),
        accept_new: false,
        keepalive: Duration::from_secs(15),
    }
}

/// Append `[127.0.0.1]:port <type> <key>` to a known_hosts file shared by several labs.
pub fn append_known_host(known_hosts: &Path, port: u16, host_key_pub: &Path) {
    let pubkey = std::fs::read_to_string(host_key_pub).expect("host key pub");
    let mut parts = pubkey.split_whitespace();
    let (kt, key) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(known_hosts)
        .expect("known_hosts");
    writeln!(f, "[127.0.0.1]:{port} {kt} {key}").expect("write known_hosts");
}

/// A small fabric of netconfd targets reachable with one operator key.
pub struct Fabric {
    // Labs first: they are dropped (killed) before the operator's directory goes.
    pub labs: Vec<(String, String, NetconfLab)>,
    pub key: PathBuf,
    pub known_hosts: PathBuf,
    pub dir: tempfile::TempDir,
}

impl Drop for Fabric {
    fn drop(&mut self) {
        for (_, _, lab) in &self.labs {
            lab.sshd.signal_term();
            lab.netconfd.signal_term();
        }
    }
}

impl Fabric {
    /// `devices`: (name, role); each starts with `startup` as its running config. The operator
    /// key has `passphrase` (given to railyard through an environment variable).
    pub fn start(devices: &[(&str, &str)], startup: &str, passphrase: &str) -> Fabric {
        let dir = tempfile::Builder::new()
            .prefix("railyard-fabric-")
            .tempdir()
            .expect("tempdir");
        let key = dir.path().join("id_operator");
        keygen_with_passphrase(&key, "operator", passphrase);
        let known_hosts = dir.path().join("known_hosts");
        let pubkey = dir.path().join("id_operator.pub");
        let labs: Vec<(String, String, NetconfLab)> = std::thread::scope(|s| {
            let handles: Vec<_> = devices
                .iter()
                .map(|(n, r)| {
                    let pubkey = pubkey.clone();
                    s.spawn(move || {
                        (
                            n.to_string(),
                            r.to_string(),
                            NetconfLab::start_full(Some(startup), &[], Some(&pubkey)),
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("lab start"))
                .collect()
        });
        for (_, _, lab) in &labs {
            append_known_host(&known_hosts, lab.port, &lab.host_key_pub);
        }
        Fabric {
            labs,
            key,
            known_hosts,
            dir,
        }
    }

    /// A targets file for all labs (netconf driver, user root, operator key + passphrase env).
    pub fn targets_yaml(&self, passphrase_env: &str) -> String {
        let mut s = format!(
            "known_hosts: {}\nauth:\n  agent: false\n  key_file: {}\n  key_passphrase_env: {}\n\
             defaults: {{user: root, driver: netconf}}\ndevices:\n",
            self.known_hosts.display(),
            self.key.display(),
            passphrase_env
        );
        for (name, role, lab) in &self.labs {
            s.push_str(&format!(
                "  {name}: {{address: 127.0.0.1, port: {}, role: {role}}}\n",
                lab.port
            ));
        }
        s
    }

    /// Write `configs/<device>/openconfig.xml` for every device into `out`.
    pub fn write_configs(&self, out: &Path, payload: impl Fn(&str) -> String) {
        for (name, _, _) in &self.labs {
            let d = out.join("configs").join(name);
            std::fs::create_dir_all(&d).expect("configs dir");
            std::fs::write(d.join("openconfig.xml"), payload(name)).expect("config");
        }
    }

    pub fn lab(&self, name: &str) -> &NetconfLab {
        &self
            .labs
            .iter()
            .find(|(n, _, _)| n == name)
            .expect("no such device")
            .2
    }
}

/// sshd in a private mount namespace with a tmpfs `/run` (its privilege-separation directory
/// `/run/sshd` then never touches the system's), waited for until it accepts connections.
pub fn spawn_sshd(cfg_path: &Path, sshd_log: &Path, port: u16) -> Daemon {
    spawn_sshd_as(cfg_path, sshd_log, port, None)
}

/// Like [`spawn_sshd`], optionally in a UTS namespace with `hostname`: commands run over SSH
/// then see the switch's hostname, as on a real switch.
pub fn spawn_sshd_as(
    cfg_path: &Path,
    sshd_log: &Path,
    port: u16,
    hostname: Option<&str>,
) -> Daemon {
    let mut cmd = Command::new("unshare");
    cmd.args(["-m", "--propagation", "private"]);
    if hostname.is_some() {
        cmd.arg("--uts");
    }
    cmd.args(["sh", "-c"])
        .arg(
            "mount -t tmpfs -o mode=755 railyard-run /run && mkdir -p /run/sshd && \
             { [ -z \"$3\" ] || hostname \"$3\"; } && \
             exec /usr/sbin/sshd -D -f \"$1\" -E \"$2\"",
        )
        .arg("sh")
        .arg(cfg_path)
        .arg(sshd_log)
        .arg(hostname.unwrap_or(""))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut sshd = Daemon::spawn("sshd", &mut cmd);
    wait_for("sshd listening", Duration::from_secs(30), || {
        if !sshd.is_running() {
            panic!(
                "sshd exited ({}): {}",
                sshd.exit_status(),
                std::fs::read_to_string(sshd_log).unwrap_or_default()
            );
        }
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    sshd
}

/// A second sshd in front of the lab's netconfd (after the first was killed).
pub fn restart_sshd(lab: &NetconfLab) -> Daemon {
    spawn_sshd(&lab.path().join("sshd_config"), &lab.sshd_log, lab.port)
}

/// A plain "switch" reachable over SSH as root on 127.0.0.1 (for the command drivers): its own
/// host key, a client key, a known_hosts file and a scratch directory.
pub struct SshBox {
    pub sshd: Daemon,
    pub port: u16,
    pub key: PathBuf,
    pub known_hosts: PathBuf,
    pub dir: tempfile::TempDir,
}

impl SshBox {
    pub fn start(hostname: Option<&str>) -> SshBox {
        require_program("/usr/sbin/sshd", "openssh-server");
        let dir = tempfile::Builder::new()
            .prefix("railyard-box-")
            .tempdir()
            .expect("tempdir");
        let w = dir.path();
        let port = free_port();
        keygen(&w.join("host_key"), "box-host");
        let key = w.join("id_client");
        keygen(&key, "railyard-test");
        std::fs::copy(w.join("id_client.pub"), w.join("authorized_keys")).expect("authorized");
        let cfg = w.join("sshd_config");
        std::fs::write(
            &cfg,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile none\nStrictModes no\n\
                 UsePAM no\nPermitRootLogin prohibit-password\nAllowUsers root\n\
                 AuthorizedKeysFile {}\nPasswordAuthentication no\nLogLevel VERBOSE\n",
                w.join("host_key").display(),
                w.join("authorized_keys").display()
            ),
        )
        .expect("sshd_config");
        let sshd = spawn_sshd_as(&cfg, &w.join("sshd.log"), port, hostname);
        let known_hosts = w.join("known_hosts");
        write_known_host(&known_hosts, port, &w.join("host_key.pub"));
        SshBox {
            sshd,
            port,
            key,
            known_hosts,
            dir,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            host: "127.0.0.1".into(),
            port: self.port,
            user: "root".into(),
            known_hosts: self.known_hosts.clone(),
        }
    }

    pub fn auth(&self) -> Auth {
        Auth {
            key_file: Some(self.key.clone()),
            ..Auth::default()
        }
    }
}

/// A NETCONF session to a lab device over the test's own known_hosts and key.
pub fn open(
    lab: &NetconfLab,
) -> railyard::push::netconf::client::Client<railyard::push::SshTransport> {
    use railyard::push::netconf::client::{Client, ClientOptions};
    use railyard::push::{SshTransport, connect_ssh};
    let sess = connect_ssh(&lab.endpoint(), &lab.auth(), &connect_opts()).expect("connect");
    let t = SshTransport::netconf(sess, Duration::from_secs(20)).expect("subsystem");
    Client::handshake(t, ClientOptions::default()).expect("hello")
}

/// Whether the device's running config equals `payload` on the managed subtree (canonical,
/// order-insensitive).
pub fn running_is(lab: &NetconfLab, payload: &str) -> bool {
    use railyard::meaning::netconf::canon;
    use railyard::meaning::netconf::payload::ConfigPayload;
    use railyard::push::netconf::client::Datastore;
    let mut c = open(lab);
    let data = c.get_config(Datastore::Running, None).expect("get-config");
    let p = ConfigPayload::from_xml(payload.as_bytes()).expect("payload");
    canon::diff(&data, p.tree()).is_empty()
}

/// Each of `devices` confirmed by the push `r` over NETCONF, its running datastore reading back
/// as the `openconfig.xml` the build `out` rendered for it.
pub fn confirmed_as_rendered(r: &Run, fabric: &Fabric, out: &Path, devices: &[String]) {
    for d in devices {
        assert!(
            r.stdout.contains(&format!("== {d} (netconf): Confirmed")),
            "{d}: {}",
            r.stdout
        );
        let payload = std::fs::read_to_string(out.join(format!("configs/{d}/openconfig.xml")))
            .expect("payload");
        assert!(
            running_is(fabric.lab(d), &payload),
            "{d}: running datastore differs from the rendered payload"
        );
    }
}

/// One run of the `railyard` binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
}

/// `railyard push ARGS` against the targets file (trusted: the operator's own) and journal
/// directory in `dir`, with no agent (the key file must do) and the key passphrase, if any, in the environment. Asserts the
/// passphrase never reaches the output.
pub fn run_push(dir: &Path, args: &[&str], env: &[(&str, &str)], passphrase: Option<&str>) -> Run {
    let t = Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_railyard"));
    // The lab's targets file is the operator's own (the test wrote it): its key file and
    // known_hosts are read (`--trust-targets-file`).
    cmd.arg("push")
        .args(args)
        .arg("--targets")
        .arg(dir.join("targets.yaml"))
        .arg("--trust-targets-file")
        .arg("--journal-dir")
        .arg(dir.join("journal"))
        .env_remove("SSH_AUTH_SOCK");
    if let Some(p) = passphrase {
        cmd.env("RY_TEST_PASSPHRASE", p);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run railyard");
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        seconds: t.elapsed().as_secs_f64(),
    };
    eprintln!(
        "railyard push {args:?} → exit {} in {:.2} s\n--- stdout ---\n{}--- stderr ---\n{}",
        r.code, r.seconds, r.stdout, r.stderr
    );
    if let Some(p) = passphrase {
        assert!(!r.stdout.contains(p) && !r.stderr.contains(p));
    }
    r
}

/// `railyard audit --format json` against the targets file in `dir` and the build `out`: the
/// exit code and the report.
pub fn run_audit(dir: &Path, out: &Path) -> (i32, serde_json::Value) {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("audit")
        .arg("--targets")
        .arg(dir.join("targets.yaml"))
        .arg("--trust-targets-file")
        .arg("--from")
        .arg(out)
        .args(["--format", "json"])
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .expect("run railyard audit");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    eprintln!(
        "railyard audit → {:?} in {:.2} s\n--- stdout ---\n{stdout}--- stderr ---\n{stderr}",
        o.status.code(),
        t.elapsed().as_secs_f64()
    );
    let v = serde_json::from_str(&stdout).expect("audit JSON");
    (o.status.code().unwrap_or(-1), v)
}

/// A fabric of netconfd targets at `old`, a scratch dir with its targets file, and the rendered
/// configs (`new_config(device)`) under `out/`.
pub fn setup_push(
    devices: &[(&str, &str)],
    old: &str,
    passphrase: &str,
    prefix: &str,
    new_config: impl Fn(&str) -> String,
) -> (Fabric, tempfile::TempDir) {
    let fabric = Fabric::start(devices, old, passphrase);
    let work = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("tempdir");
    std::fs::write(
        work.path().join("targets.yaml"),
        fabric.targets_yaml("RY_TEST_PASSPHRASE"),
    )
    .expect("targets");
    fabric.write_configs(&work.path().join("out"), new_config);
    write_manifest(&work.path().join("out"));
    (fabric, work)
}

/// `manifest.json` over every file under `out/configs`, as `railyard build` writes it, for
/// payloads a test wrote by hand (so `--from` checks them as it checks a build).
pub fn write_manifest(out: &Path) {
    fn walk(dir: &Path, root: &Path, files: &mut Vec<serde_json::Value>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, files);
            } else {
                let bytes = std::fs::read(&p).expect("read");
                let rel = p
                    .strip_prefix(root)
                    .expect("under root")
                    .display()
                    .to_string();
                files.push(serde_json::json!({
                    "path": rel,
                    "sha256": railyard::output::digest::sha256_hex(&bytes),
                    "bytes": bytes.len(),
                }));
            }
        }
    }
    let mut files = Vec::new();
    walk(&out.join("configs"), out, &mut files);
    let doc = serde_json::json!({ "generator": "railyard tests", "files": files });
    std::fs::write(out.join("manifest.json"), doc.to_string()).expect("manifest.json");
}

/// Deletes a network namespace on drop.
pub struct Netns(pub String);

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

/// A namespace name unique to this process and call (other tests and engineers run labs too).
pub fn unique_netns(prefix: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// One FRR "switch": zebra, bgpd, staticd and bfdd (what the rendered frr.conf needs) in a
/// network namespace of its own, with its hostname (a UTS namespace per daemon: `hostname` in
/// frr.conf does not reach the daemons in FRR 8.4), vty sockets in `vty`.
pub struct FrrRouter {
    pub name: String,
    // Drop order: daemons, then the namespace.
    daemons: Vec<Daemon>,
    _ns: Netns,
    pub vty: PathBuf,
    /// Where the push keeps its files on this "switch" and where `write memory` saves.
    pub state_dir: PathBuf,
    pub config_dir: PathBuf,
}

/// The daemons each lab router runs.
pub const FRR_DAEMONS: &[&str] = &["zebra", "bgpd", "staticd", "bfdd"];

impl FrrRouter {
    fn start(name: &str, dir: &Path) -> FrrRouter {
        let base = dir.join(name);
        let vty = base.join("vty");
        let config_dir = base.join("etc");
        let state_dir = base.join("state");
        for d in [&vty, &config_dir] {
            std::fs::create_dir_all(d).expect("router dirs");
        }
        // As Debian's /etc/frr/vtysh.conf: `write memory` saves one integrated frr.conf.
        std::fs::write(
            config_dir.join("vtysh.conf"),
            "service integrated-vtysh-config\n",
        )
        .expect("vtysh.conf");
        for d in [&base, &vty, &config_dir] {
            // The daemons run as `frr` and need their run directory.
            let ok = Command::new("chown")
                .arg("frr:frr")
                .arg(d)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, "chown frr:frr {}", d.display());
        }
        let ns = Netns(unique_netns("ryfrr"));
        let ok = Command::new("ip")
            .args(["netns", "add", &ns.0])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "ip netns add {}", ns.0);
        let _ = Command::new("ip")
            .args(["netns", "exec", &ns.0, "ip", "link", "set", "lo", "up"])
            .status();
        let mut daemons = Vec::new();
        for d in FRR_DAEMONS {
            let mut cmd = Command::new("ip");
            cmd.args(["netns", "exec", &ns.0, "unshare", "--uts", "sh", "-c"])
                .arg("hostname \"$1\" && shift && exec \"$@\"")
                .arg("sh")
                .arg(name)
                .arg(format!("/usr/lib/frr/{d}"))
                .args(["-F", "datacenter", "-P", "0", "-u", "frr", "-g", "frr"])
                .arg("--vty_socket")
                .arg(&vty)
                .arg("-z")
                .arg(vty.join("zserv.api"))
                .arg("-i")
                .arg(vty.join(format!("{d}.pid")))
                .arg("--log")
                .arg(format!("file:{}", base.join(format!("{d}.log")).display()))
                // Without -f the daemons would read /etc/frr.
                .args(["-f", "/dev/null"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(output_file(&base.join(format!("{d}.out"))));
            let mut daemon = Daemon::spawn(d, &mut cmd);
            let sock = vty.join(format!("{d}.vty"));
            wait_for(&format!("{name}: {d} vty"), Duration::from_secs(30), || {
                if !daemon.is_running() {
                    panic!(
                        "{name}: {d} exited ({}): {}",
                        daemon.exit_status(),
                        std::fs::read_to_string(base.join(format!("{d}.out"))).unwrap_or_default()
                    );
                }
                sock.exists()
            });
            daemons.push(daemon);
        }
        FrrRouter {
            name: name.to_string(),
            daemons,
            _ns: ns,
            vty,
            state_dir,
            config_dir,
        }
    }

    /// `vtysh -c CMD…` against this router.
    pub fn vtysh(&self, cmds: &[&str]) -> String {
        let mut c = Command::new("vtysh");
        c.arg("--vty_socket").arg(&self.vty);
        for x in cmds {
            c.args(["-c", x]);
        }
        let out = c.output().expect("vtysh");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn running(&self) -> String {
        self.vtysh(&["show running-config"])
    }

    /// Files the push left in the state directory.
    pub fn leftovers(&self) -> Vec<String> {
        std::fs::read_dir(&self.state_dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for FrrRouter {
    fn drop(&mut self) {
        for d in &self.daemons {
            d.signal_term();
        }
    }
}

/// FRR "switches" behind one real sshd on 127.0.0.1 (as root, in a UTS namespace): what the
/// `frr-ssh` driver configures, each router reached through its own vty socket directory.
pub struct FrrLab {
    // Drop order: sshd, routers, then the directory.
    pub sshd: Daemon,
    pub routers: Vec<FrrRouter>,
    pub port: u16,
    pub key: PathBuf,
    pub known_hosts: PathBuf,
    pub dir: tempfile::TempDir,
}

impl FrrLab {
    pub fn start(names: &[&str]) -> FrrLab {
        require_program("/usr/lib/frr/zebra", "frr");
        require_program("/usr/lib/frr/frr-reload.py", "frr-pythontools");
        require_program("/usr/sbin/sshd", "openssh-server");
        let dir = tempfile::Builder::new()
            .prefix("railyard-frr-")
            .tempdir()
            .expect("tempdir");
        let w = dir.path();
        // The `frr` user must reach the routers' directories.
        let _ = Command::new("chmod").arg("755").arg(w).status();
        let routers: Vec<FrrRouter> = names.iter().map(|n| FrrRouter::start(n, w)).collect();
        let port = free_port();
        let host_key = w.join("host_key");
        keygen(&host_key, "frr-host");
        let key = w.join("id_client");
        keygen(&key, "railyard-test");
        std::fs::copy(w.join("id_client.pub"), w.join("authorized_keys")).expect("authorized");
        let cfg = w.join("sshd_config");
        std::fs::write(
            &cfg,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile none\nStrictModes no\n\
                 UsePAM no\nPermitRootLogin prohibit-password\nAllowUsers root\n\
                 AuthorizedKeysFile {}\nPasswordAuthentication no\nLogLevel VERBOSE\n",
                host_key.display(),
                w.join("authorized_keys").display()
            ),
        )
        .expect("sshd_config");
        let sshd = spawn_sshd(&cfg, &w.join("sshd.log"), port);
        let known_hosts = w.join("known_hosts");
        write_known_host(&known_hosts, port, &w.join("host_key.pub"));
        FrrLab {
            sshd,
            routers,
            port,
            key,
            known_hosts,
            dir,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn router(&self, name: &str) -> &FrrRouter {
        self.routers
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no router {name}"))
    }

    /// The `frr:` settings of one router in a targets file.
    pub fn frr_yaml(&self, r: &FrrRouter) -> String {
        format!(
            "{{vty_socket: {}, state_dir: {}, config_dir: {}}}",
            r.vty.display(),
            r.state_dir.display(),
            r.config_dir.display()
        )
    }

    /// A targets file for every router (`frr-ssh`), written to `<lab>/targets.yaml`.
    pub fn write_targets(&self, roles: &dyn Fn(&str) -> String) {
        let mut s = format!(
            "known_hosts: {}\nauth: {{agent: false, key_file: {}}}\n\
             defaults: {{user: root, driver: frr-ssh, port: {}}}\ndevices:\n",
            self.known_hosts.display(),
            self.key.display(),
            self.port
        );
        for r in &self.routers {
            s.push_str(&format!(
                "  {}: {{address: 127.0.0.1, role: {}, frr: {}}}\n",
                r.name,
                roles(&r.name),
                self.frr_yaml(r)
            ));
        }
        std::fs::write(self.path().join("targets.yaml"), s).expect("targets");
    }

    /// Whether anyone authenticated over this lab's sshd (i.e. something was sent).
    pub fn any_login(&self) -> bool {
        std::fs::read_to_string(self.path().join("sshd.log"))
            .unwrap_or_default()
            .contains("Accepted publickey")
    }
}

impl Drop for FrrLab {
    fn drop(&mut self) {
        self.sshd.signal_term();
    }
}

/// `railyard build SPEC -o OUT` with the binary under test; panics unless it succeeds.
pub fn build(spec: &Path, out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("build")
        .arg(spec)
        .arg("-o")
        .arg(out)
        .args(["--format", "short"])
        .output()
        .expect("run railyard build");
    assert!(
        o.status.success(),
        "railyard build failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The built-in lab-small spec with every switch on one platform.
pub fn lab_small_on(platform: &str, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories/lab-small.yaml"),
    )
    .expect("lab-small.yaml");
    let text = text.replacen(
        "\nsite: lab\n",
        &format!("\nsite: lab\nplatforms: {{default: {platform}}}\n"),
        1,
    );
    assert!(text.contains("platforms:"), "lab-small.yaml changed shape");
    let p = dir.join(format!("lab-small-{platform}.yaml"));
    std::fs::write(&p, text).expect("spec");
    p
}

/// The switches that have a `configs/<name>/<file>` in an output directory.
pub fn devices_with(out: &Path, file: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out.join("configs"))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().join(file).is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
