//! The built-in lab-small booted whole for the lab tests that act on a running lab
//! (`tests/lab/impact_lab.rs`, `tests/lab/acceptance_lab.rs`): one lab at a time across test binaries,
//! taken down again when a test fails half-way.

use std::io::Write;
use std::path::PathBuf;

use railyard::diag::SourceFile;
use railyard::lab::{self, UpOptions};
use railyard::model::Platform;
use railyard::output::{OutputGroup, Selection};

/// The same lock as `tests/lab/lab.rs`: one lab at a time across test binaries.
pub const LOCK: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/railyard-lab-tests.lock");

/// The name `railyard` gives the built-in spec: the lab commands check the lab runs it.
pub const BUILTIN: &str = "lab-small.yaml (built-in example)";

pub fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// Runs `down` when the test fails half-way (`.1` set once the test took the lab down itself).
pub struct Running(pub PathBuf, pub bool);

impl Drop for Running {
    fn drop(&mut self) {
        if !self.1 {
            let _ = lab::down(&self.0, &mut |_| {});
        }
    }
}

/// lab-small compiled for FRR, booted whole in a fresh state directory named `prefix…`, and
/// converged; with its compilation, for what the test plans from it.
pub fn boot(prefix: &str) -> (Running, railyard::Compiled) {
    let c = railyard::compile_for_platform(
        &SourceFile::new(BUILTIN, railyard::LAB_SMALL),
        Platform::Frr,
    );
    let configs_only = Selection::of(&[OutputGroup::Configs]);
    let files = match c.outputs_only(&railyard::render::Templates::default(), &configs_only) {
        Some(Ok(f)) => f,
        _ => panic!("lab-small did not render"),
    };
    let plan = lab::plan(&c, false).expect("lab plan");
    let configs = lab::configs(&plan, &files).expect("configs");
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("tempdir")
        .keep();
    let guard = Running(dir.clone(), false);
    let opts = UpOptions::new(&dir, BUILTIN);
    let s = lab::up(plan, &configs, &opts, &mut |m| say(&format!("  [lab] {m}"))).expect("lab up");
    assert!(s.converged, "not converged: {:?}", s.pending);
    (guard, c)
}
