//! `railyard push` against hostile input and hostile peers (issue 25): a config in the output
//! directory with a placeholder the build did not declare is refused before the environment is
//! read and before anything is sent; a peer that streams endless non-SSH lines, endless bytes
//! after its banner, or a NETCONF message that never ends makes push fail with its timeout or
//! byte budget instead of hanging. Every peer is a local `TcpListener` started by the test; no
//! root needed. No timing is asserted: a hang shows as the guard's panic.

use crate::push_support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use push_support::{lab_small_on, write_manifest};
use railyard::push::netconf::client::{Client, ClientOptions, NetconfError};
use railyard::push::netconf::framing::{Decoder, Framing, FramingError};
use railyard::push::{Auth, ConnectOptions, Endpoint, SshError, connect_ssh};

/// Far above any deadline the tests give push: reaching it means push hung.
const HANG: Duration = Duration::from_secs(120);

/// Run `f` on a thread; panic if it has not returned within [`HANG`].
fn bounded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(HANG)
        .unwrap_or_else(|_| panic!("{what}: still running after {HANG:?}: push hangs"))
}

/// A peer that accepts connections and, on each, writes `greeting` once and then `flood` over
/// and over until the client goes away. Counts the connections it accepted.
fn hostile_peer(greeting: &'static [u8], flood: &'static [u8]) -> (u16, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut s = s;
                let _ = s.write_all(greeting);
                while s.write_all(flood).is_ok() {}
            });
        }
    });
    (port, accepted)
}

/// `railyard push --from OUT --targets TARGETS --journal-dir JOURNAL`, without an agent, host
/// keys checked against `known_hosts` beside the journal directory (the operator's).
fn push_from(out: &Path, targets: &Path, journal: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_railyard"));
    c.arg("push")
        .arg("--from")
        .arg(out)
        .arg("--targets")
        .arg(targets)
        .arg("--journal-dir")
        .arg(journal)
        .arg("--known-hosts")
        .arg(journal.with_file_name("known_hosts"))
        .env_remove("SSH_AUTH_SOCK");
    c
}

fn endpoint(port: u16, dir: &Path) -> Endpoint {
    Endpoint {
        host: "127.0.0.1".into(),
        port,
        user: "admin".into(),
        known_hosts: dir.join("known_hosts"),
    }
}

fn connect_within(port: u16, secs: u64) -> Result<(), SshError> {
    bounded("ssh::connect", move || {
        let dir = tempfile::tempdir().expect("tempdir");
        let opts = ConnectOptions {
            connect_timeout: Duration::from_secs(secs),
            ..ConnectOptions::default()
        };
        connect_ssh(&endpoint(port, dir.path()), &Auth::default(), &opts).map(drop)
    })
}

#[test]
fn a_banner_flood_fails_with_the_connect_timeout() {
    let (port, _) = hostile_peer(
        b"",
        b"this is not an SSH server, and it never stops saying so\r\n",
    );
    let e = connect_within(port, 1).expect_err("a peer that never sends an SSH banner");
    assert!(
        matches!(
            e,
            SshError::Deadline {
                before_auth: true,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("timeout") && msg.contains("--connect-timeout"),
        "{msg}"
    );
}

#[test]
fn endless_bytes_after_the_banner_fail_the_connect() {
    // A valid banner, then bytes that never form a key exchange.
    let (port, _) = hostile_peer(b"SSH-2.0-OpenSSH_9.2\r\n", &[0x41; 4096]);
    let e = connect_within(port, 1).expect_err("a peer that never completes the key exchange");
    assert!(e.before_auth(), "{e:?}");
}

#[test]
fn push_to_a_banner_flood_fails_with_the_connect_timeout() {
    let (port, _) = hostile_peer(b"", b"not ssh\r\n");
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("out");
    std::fs::create_dir_all(out.join("configs/sw1")).expect("configs");
    std::fs::write(out.join("configs/sw1/openconfig.xml"), "<config/>\n").expect("config");
    write_manifest(&out);
    let targets = work.path().join("targets.yaml");
    std::fs::write(
        &targets,
        format!(
            "defaults: {{user: admin}}\ndevices:\n  \
             sw1: {{address: 127.0.0.1, port: {port}}}\n"
        ),
    )
    .expect("targets");
    let journal = work.path().join("journal");
    let o = bounded("railyard push", move || {
        push_from(&out, &targets, &journal)
            .args(["--connect-timeout", "1", "--rpc-timeout", "1"])
            .output()
            .expect("railyard push")
    });
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("--connect-timeout") || stderr.contains("--connect-timeout"),
        "the failure does not name the timeout:\n{stdout}\n{stderr}"
    );
}

#[test]
fn a_netconf_message_without_an_end_fails_with_the_hello_timeout() {
    // A peer whose hello never ends: bytes that never contain `]]>]]>`.
    let (ours, mut theirs) = UnixStream::pair().expect("socket pair");
    std::thread::spawn(move || {
        let _ = theirs.write_all(b"<hello xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\">");
        while theirs.write_all(b"<capability>x</capability>").is_ok() {}
    });
    let e = bounded("NETCONF hello", move || {
        let s = ours;
        let opts = ClientOptions {
            hello_timeout: Duration::from_secs(1),
            ..ClientOptions::default()
        };
        Client::handshake(s, opts).map(drop)
    })
    .expect_err("a hello that never ends");
    assert!(
        matches!(
            e,
            NetconfError::Timeout { .. } | NetconfError::Framing(FramingError::TooLarge { .. })
        ),
        "{e:?}"
    );
}

#[test]
fn an_endless_netconf_message_hits_the_byte_budget() {
    const LIMIT: usize = 1 << 20;
    for framing in [Framing::EndOfMessage, Framing::Chunked] {
        let e = bounded("NETCONF decoder", move || {
            let mut d = Decoder::with_limit(framing, LIMIT);
            // Chunked: one chunk header announcing more than the budget, then its bytes forever.
            if framing == Framing::Chunked {
                d.feed(b"\n#4000000000\n");
            }
            let mut endless = std::io::repeat(b'x');
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = endless.read(&mut buf).expect("repeat");
                d.feed(&buf[..n]);
                match d.next_message() {
                    Ok(None) => continue,
                    Ok(Some(_)) => panic!("a message without an end was returned"),
                    Err(e) => return e,
                }
            }
        });
        assert_eq!(e, FramingError::TooLarge { limit: LIMIT }, "{framing:?}");
    }
}

const AWS_VALUE: &str = "wJalrXUtnFEMI-K7MDENG-bPxRfiCY-never-sent-5521";

/// A build of lab-small (FRR) declaring `bgp.auth_env: BGP_PASSWORD`, then one leaf's frr.conf
/// edited to carry `${AWS_SECRET_ACCESS_KEY}`; targets point at a listener that counts logins.
#[test]
fn an_undeclared_placeholder_is_refused_and_its_value_never_read() {
    let work = tempfile::tempdir().expect("tempdir");
    let spec = lab_small_on("frr", work.path());
    let text = std::fs::read_to_string(&spec).expect("spec") + "bgp: {auth_env: BGP_PASSWORD}\n";
    std::fs::write(&spec, text).expect("spec");
    let out = work.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("build")
        .arg(&spec)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("railyard build");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let declared = std::fs::read_to_string(out.join("configs/secrets.json")).expect("declaration");
    assert!(declared.contains("BGP_PASSWORD"), "{declared}");
    let leaf = "leaf-su01-01";
    let conf = out.join(format!("configs/{leaf}/frr.conf"));
    let rendered = std::fs::read_to_string(&conf).expect("frr.conf");
    assert!(
        rendered.contains("${BGP_PASSWORD}"),
        "the build declared what it wrote"
    );
    std::fs::write(
        &conf,
        rendered.replacen("${BGP_PASSWORD}", "${AWS_SECRET_ACCESS_KEY}", 1),
    )
    .expect("tamper");

    let (port, logins) = hostile_peer(b"", b"");
    let targets = work.path().join("targets.yaml");
    std::fs::write(
        &targets,
        format!(
            "defaults: {{user: admin, driver: frr-ssh}}\ndevices:\n  \
             {leaf}: {{address: 127.0.0.1, port: {port}}}\n"
        ),
    )
    .expect("targets");
    let journal = work.path().join("journal");
    let push = |extra: &[&str]| {
        let o = push_from(&out, &targets, &journal)
            .arg("--allow-edited")
            .args(extra)
            .env("AWS_SECRET_ACCESS_KEY", AWS_VALUE)
            .env("BGP_PASSWORD", "declared-bgp-password")
            .output()
            .expect("railyard push");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!text.contains(AWS_VALUE), "the value was shown:\n{text}");
        (o.status.code(), text)
    };
    for extra in [&[][..], &["--dry-run"][..]] {
        let (code, text) = push(extra);
        assert_eq!(code, Some(3), "{text}");
        assert!(
            text.contains("${AWS_SECRET_ACCESS_KEY}")
                && text.contains(&format!("configs/{leaf}/frr.conf"))
                && text.contains("did not declare"),
            "{text}"
        );
    }
    let (code, text) = push(&["--list-secrets"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("AWS_SECRET_ACCESS_KEY") && text.contains("UNDECLARED"),
        "{text}"
    );
    assert_eq!(
        logins.load(Ordering::SeqCst),
        0,
        "push connected to the device"
    );
    assert!(!journal.exists(), "a refused push wrote a journal");
}
