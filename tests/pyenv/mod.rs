//! The Python virtualenv of the tests that run Python consumers of railyard's output (pyavd, the
//! NVUE object-model schema, openpyxl). `scripts/pyenv.sh` builds it under `target/pyenv` from
//! the pinned `tests/python/requirements.txt`; `scripts/test.sh` runs it first, and a test runs
//! it itself when the venv is missing or stale. A venv that cannot be built is a missing prerequisite
//! (tests/prereq: a failure, or an announced skip when opted out with `RAILYARD_SKIP=pyenv`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::prereq;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The venv's python, built if needed; `None` when the test is skipped on purpose.
pub fn python(test: &str) -> Option<PathBuf> {
    let out = Command::new("bash")
        .arg(root().join("scripts/pyenv.sh"))
        .output();
    let (ok, detail) = match &out {
        Ok(o) if o.status.success() => (true, String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(o) => (false, String::from_utf8_lossy(&o.stderr).into_owned()),
        Err(e) => (false, e.to_string()),
    };
    let hint = format!(
        "bash scripts/pyenv.sh must build target/pyenv (python3-venv, pip access to PyPI): {}",
        detail.trim()
    );
    if !prereq::require(test, "pyenv", ok, &hint) {
        return None;
    }
    Some(PathBuf::from(detail.trim()))
}

/// A helper script under `tests/python/`.
pub fn script(name: &str) -> PathBuf {
    root().join("tests/python").join(name)
}
