//! A targets file is not the operator (issue 38 item 5): one from a pull request names
//! `password_env: AWS_SECRET_ACCESS_KEY`, ships its own `known_hosts` holding the key of a host
//! it points a device at, and asks `push --dry-run` (or `audit`) to go there. Push and audit
//! refuse it before reading the environment or connecting (exit 3, the message naming the
//! operator's flags); the stand-in host (a local listener started here) sees no connection and
//! the value appears nowhere. With the same settings given by the operator (`--password-env`,
//! `--known-hosts`) the file is read, and only then does push go to the device. No root needed.

use crate::push_support;

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use push_support::write_manifest;

const AWS_VALUE: &str = "wJalrXUtnFEMI-K7MDENG-bPxRfiCY-targets-trust-8812";

/// A host that counts the connections it accepts and closes each at once.
fn counting_host() -> (u16, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            drop(s);
        }
    });
    (port, accepted)
}

/// An output directory with one switch's NETCONF payload, and the hostile targets file beside
/// it: its own known_hosts (the "attacker's" host key line for the listener) and credentials.
fn hostile_setup(port: u16) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("out");
    std::fs::create_dir_all(out.join("configs/sw1")).expect("configs");
    std::fs::write(out.join("configs/sw1/openconfig.xml"), "<config/>\n").expect("config");
    write_manifest(&out);
    let kh = work.path().join("pr_known_hosts");
    std::fs::write(
        &kh,
        format!(
            "[127.0.0.1]:{port} ssh-ed25519 \
             AAAAC3NzaC1lZDI1NTE5AAAAIEu4x2bXPr0Dk3cT1wq5mB2QJ4o3Yd7nq0R5T3s1m2xK\n"
        ),
    )
    .expect("known_hosts");
    let targets = work.path().join("targets.yaml");
    std::fs::write(
        &targets,
        format!(
            "known_hosts: {}\nauth: {{agent: false, password_env: AWS_SECRET_ACCESS_KEY}}\n\
             defaults: {{user: admin}}\ndevices:\n  sw1: {{address: 127.0.0.1, port: {port}}}\n",
            kh.display()
        ),
    )
    .expect("targets");
    (work, out, targets)
}

fn run(cmd: &mut Command) -> (Option<i32>, String) {
    let o = cmd
        .env("AWS_SECRET_ACCESS_KEY", AWS_VALUE)
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .expect("railyard");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!text.contains(AWS_VALUE), "the value was shown:\n{text}");
    (o.status.code(), text)
}

fn push(out: &Path, targets: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_railyard"));
    c.arg("push")
        .arg("--from")
        .arg(out)
        .arg("--targets")
        .arg(targets)
        .arg("--journal-dir")
        .arg(out.with_file_name("journal"))
        .args(["--connect-timeout", "2", "--rpc-timeout", "2"])
        .args(extra);
    c
}

fn refused(code: Option<i32>, text: &str) {
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("--trust-targets-file")
            && text.contains("--password-env")
            && text.contains("--known-hosts"),
        "the refusal does not say where the operator gives them:\n{text}"
    );
}

#[test]
fn a_targets_file_does_not_choose_the_secret_push_sends_nor_the_host_keys() {
    let (port, accepted) = counting_host();
    let (work, out, targets) = hostile_setup(port);
    for extra in [&["--dry-run"][..], &[][..], &["--list-secrets"][..]] {
        let (code, text) = run(&mut push(&out, &targets, extra));
        refused(code, &text);
    }
    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("audit")
        .arg("--targets")
        .arg(&targets)
        .arg("--from")
        .arg(&out));
    refused(code, &text);
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "a device was contacted");
    assert!(
        !work.path().join("journal").exists(),
        "a journal was written"
    );
}

#[test]
fn the_operators_flags_are_what_push_uses() {
    let (port, accepted) = counting_host();
    let (work, out, targets) = hostile_setup(port);
    // The same file without the settings the operator owns: read, and push goes to the device
    // with the operator's choices (the listener closes at once: the push fails to connect).
    let text = std::fs::read_to_string(&targets).expect("targets");
    let plain: String = text
        .lines()
        .filter(|l| !l.starts_with("known_hosts:") && !l.starts_with("auth:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&targets, plain).expect("targets");
    let kh = work.path().join("operator_known_hosts");
    let kh = kh.to_str().expect("utf-8");
    let (code, text) = run(&mut push(
        &out,
        &targets,
        &[
            "--dry-run",
            "--no-agent",
            "--password-env",
            "RY_OPERATOR_PASSWORD",
            "--known-hosts",
            kh,
        ],
    ));
    assert_ne!(code, Some(0), "{text}");
    assert!(!text.contains("--trust-targets-file"), "refused:\n{text}");
    assert!(
        accepted.load(Ordering::SeqCst) > 0,
        "push never went to the device:\n{text}"
    );
}
