//! One policy for tests that need something outside the crate (root, a daemon, a program):
//!
//! - present → the test runs;
//! - missing under `CI=true` → the test FAILS with the install hint (CI must never pass a check
//!   it did not run);
//! - missing elsewhere → the test FAILS with the install hint, unless the developer opted out on
//!   purpose with `RAILYARD_SKIP=<name>[,<name>…]` (or `all`). An opted-out skip is written to
//!   stderr and recorded in `target/tmp/railyard-skipped.txt`, which `scripts/test.sh` prints at
//!   the end of a run, so a skip is never silent.
//!
//! Names: `root`, and the program or tool name the test needs (`lldpd`, `yanglint`, `slurm`,
//! `netconfd`, `bash`, `gvpr`, `iperf3`, …), as the failure message says.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where opted-out skips are recorded for `scripts/test.sh` to print.
pub const SKIP_LOG: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/railyard-skipped.txt");

/// Whether the prerequisite `name` is available; see the module doc for what happens when not.
/// `test` names the test (for the skip record), `hint` says how to get the prerequisite.
#[must_use]
pub fn require(test: &str, name: &str, available: bool, hint: &str) -> bool {
    if available {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    if !ci && opted_out(name) {
        let line = format!("SKIPPED {test}: {name} missing ({hint}); RAILYARD_SKIP opted out");
        let _ = writeln!(std::io::stderr(), "\n*** {line} ***\n");
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(SKIP_LOG)
        {
            let _ = writeln!(f, "{line}");
        }
        return false;
    }
    let how = if ci {
        "CI=true: a missing prerequisite is a failure".to_string()
    } else {
        format!("or set RAILYARD_SKIP={name} to skip this test on purpose")
    };
    panic!("{test}: {name} is missing: {hint} ({how})");
}

/// Root (namespaces, private sshd, daemons as other users).
#[must_use]
pub fn root(test: &str) -> bool {
    require(
        test,
        "root",
        is_root(),
        "run the test as root (sudo -E cargo test); CI runs as root",
    )
}

/// A program found on PATH or in the sbin directories; `package` is its Debian package.
#[must_use]
pub fn program(test: &str, bin: &str, package: &str) -> Option<PathBuf> {
    let found = find(bin);
    let hint = format!("apt-get install -y --no-install-recommends {package}");
    if require(test, bin, found.is_some(), &hint) {
        found
    } else {
        None
    }
}

fn opted_out(name: &str) -> bool {
    std::env::var("RAILYARD_SKIP")
        .is_ok_and(|v| v.split(',').map(str::trim).any(|s| s == name || s == "all"))
}

pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}

/// A program on PATH, or in /usr/sbin and /sbin (daemons live there).
pub fn find(bin: &str) -> Option<PathBuf> {
    if bin.contains('/') {
        return Path::new(bin).is_file().then(|| PathBuf::from(bin));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into(), "/usr/bin".into()])
        .map(|d| d.join(bin))
        .find(|p| p.is_file())
}

/// How to get the offline ZPL renderer of the label tests (`zplenv`), after why it failed.
pub fn zplenv_hint(why: &str) -> String {
    format!(
        "bash scripts/zplenv.sh must install zpl-renderer-js under target/zplenv (node and npm: \
         apt-get install nodejs npm; the npm registry reachable once): {why}"
    )
}
