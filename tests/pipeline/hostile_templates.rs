//! Template overrides as an attacker with a pull request writes them (issue 38 items 1 and 3):
//! `railyard build --templates DIR` (the binary) where `frr/system.j2` in DIR is a symbolic link
//! to a file outside (a file holding a marker, `/proc/self/environ` with a marker in the
//! environment), a named pipe, or a template that prints or joins copies of a 100 MB string
//! (within its fuel). Each is refused: exit 2 with an `error:` naming the file (the link, the
//! pipe) or the template and the byte limit, no output directory, the marker nowhere, and never
//! a signal. The memory cases run under `ulimit -v` (4 GiB of address space), which the test sets
//! through `sh -c`: without the byte budget the render aborts there (SIGABRT).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const MARKER: &str = "RAILYARD_TEMPLATE_CANARY_7f3d";

/// 4 GiB of address space, in KiB for `ulimit -v`.
const CAP_KIB: u64 = 4 << 20;

fn lab_small_frr(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("inventories/lab-small.yaml")).expect("spec");
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, format!("{text}\nplatforms: {{default: frr}}\n")).expect("spec");
    spec
}

/// `railyard build SPEC -o out --templates over` in `dir`, under `ulimit -v CAP` when `cap`,
/// with the marker in the environment; fails the test if it runs past two minutes.
fn build(dir: &Path, cap: bool) -> Output {
    let spec = lab_small_frr(dir);
    let bin = env!("CARGO_BIN_EXE_railyard");
    let mut c = if cap {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\""))
            .arg(bin);
        c
    } else {
        Command::new(bin)
    };
    c.arg("build")
        .arg(&spec)
        .args(["-o", "out", "--templates", "over"])
        .current_dir(dir)
        .env("RY_TEMPLATE_CANARY", MARKER);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(c.output().expect("run railyard build"));
    });
    rx.recv_timeout(Duration::from_secs(300))
        .expect("railyard build still running after 5 minutes (a pipe blocked the read?)")
}

/// The build refused with exit 2 and an `error:` holding every `needle`, no signal, no output
/// directory, and the marker nowhere in what it printed.
fn refused(dir: &Path, o: &Output, needles: &[&str]) {
    use std::os::unix::process::ExitStatusExt;
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.signal(),
        None,
        "killed by a signal (abort?):\n{stderr}"
    );
    assert_eq!(o.status.code(), Some(2), "{stdout}\n{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "no {n:?} in:\n{stderr}");
    }
    assert!(!stderr.contains(MARKER) && !stdout.contains(MARKER));
    assert!(!dir.join("out").exists(), "an output directory was written");
}

fn over_dir(dir: &Path) -> PathBuf {
    let frr = dir.join("over/frr");
    std::fs::create_dir_all(&frr).expect("mkdir");
    frr.join("system.j2")
}

#[test]
fn an_override_that_is_a_link_is_refused_whatever_it_names() {
    let outside = tempfile::tempdir().expect("tmp");
    let secret = outside.path().join("secret.j2");
    std::fs::write(&secret, format!("banner motd line {MARKER}\n")).expect("secret");
    for target in [secret.as_path(), Path::new("/proc/self/environ")] {
        let dir = tempfile::tempdir().expect("tmp");
        std::os::unix::fs::symlink(target, over_dir(dir.path())).expect("symlink");
        let o = build(dir.path(), false);
        refused(dir.path(), &o, &["frr/system.j2", "symbolic link"]);
    }
}

#[test]
fn an_override_that_is_a_named_pipe_is_refused_without_blocking() {
    let dir = tempfile::tempdir().expect("tmp");
    let fifo = over_dir(dir.path());
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let o = build(dir.path(), false);
    refused(dir.path(), &o, &["frr/system.j2", "named pipe"]);
}

/// Templates that stay within their fuel but print, capture or join gigabytes: each fails
/// naming the template and the 64 MiB budget, under a 4 GiB cap.
#[test]
fn an_override_that_prints_or_joins_gigabytes_fails_naming_the_template_and_the_budget() {
    let big = r#"{% set s = "x" * 100000000 %}"#;
    let cases = [
        // 10 GB printed into the file.
        format!("{big}{{% for i in range(100) %}}{{{{ s }}}}{{% endfor %}}\n"),
        // 3 GB joined into one string.
        format!("{big}{{{{ ([s] * 30) | join }}}}\n"),
        // 4 GB captured in a block that never reaches the file.
        format!(
            "{big}{{% set c %}}{{% for i in range(40) %}}{{{{ s }}}}{{% endfor %}}{{% endset %}}\
             {{{{ c | length }}}}\n"
        ),
    ];
    for template in cases {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(over_dir(dir.path()), &template).expect("template");
        let o = build(dir.path(), true);
        refused(dir.path(), &o, &["frr/system.j2", "64 MiB"]);
    }
}
