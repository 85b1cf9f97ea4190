//! `--avd`: railyard and Arista AVD (pyavd, from the test venv) render the EOS configs of the
//! same fabric in one run, and the per-device figures are printed side by side.
//!
//! The fabric is `inventories/eos-ai-fabric.yaml` with its SU count set; every EOS switch of it
//! is rendered by both. railyard: `render::device` (the startup-config and whatever else the
//! switch gets), one thread, best of five passes. pyavd: AVD's structured config (written from
//! the same intent by `tests/avd/structured.rs`, the mapping the pyavd cross-check proves line
//! for line) validated, then rendered by `get_device_config`; import time not counted. Both on
//! one core, so the ratio is per device, not a parallel speed-up.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use railyard::diag::SourceFile;
use railyard::intent::DeviceIntent;
use railyard::model::Platform;
use serde_json::Value;

use crate::structured::structured_config;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The venv's python: `scripts/pyenv.sh` builds it if needed and prints its path.
fn python() -> String {
    let out = Command::new("bash")
        .arg(format!("{ROOT}/scripts/pyenv.sh"))
        .output()
        .expect("bash runs scripts/pyenv.sh");
    assert!(
        out.status.success(),
        "scripts/pyenv.sh could not build target/pyenv: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// pyavd's totals for `cases`: (validate seconds, render seconds, config lines).
fn pyavd(cases: &BTreeMap<String, Value>) -> (f64, f64, u64) {
    let mut child = Command::new(python())
        .arg(format!("{ROOT}/tests/python/avd_bench.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python runs");
    let input = serde_json::to_vec(cases).expect("structured configs are JSON");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("pyavd reads its input");
    let out = child.wait_with_output().expect("pyavd finishes");
    assert!(out.status.success(), "pyavd failed");
    let r: Value = serde_json::from_slice(&out.stdout).expect("pyavd's figures");
    let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    (
        f("validate_s"),
        f("render_s"),
        r["lines"].as_u64().unwrap_or(0),
    )
}

pub fn side_by_side(sus: u32) {
    let text = std::fs::read_to_string(format!("{ROOT}/inventories/eos-ai-fabric.yaml"))
        .expect("the EOS example");
    let spec = text.replacen("  count: 2\n", &format!("  count: {sus}\n"), 1);
    let compiled = railyard::compile(&SourceFile::new("eos-ai-fabric.yaml", spec));
    let Some(intents) = compiled.design.map(|d| d.intents) else {
        for d in compiled.diagnostics.sorted() {
            eprintln!("{}: {}", d.code.id, d.message);
        }
        panic!("the EOS example at {sus} SUs did not compile");
    };
    let eos: Vec<&DeviceIntent> = intents
        .devices
        .values()
        .filter(|d| d.platform == Platform::Eos)
        .collect();
    let env = railyard::render::Templates::default().environment();
    let mut ours = f64::MAX;
    let mut bytes = 0;
    for _ in 0..5 {
        let t = Instant::now();
        bytes = 0;
        for d in &eos {
            let files = railyard::render::device(&env, d, &[]).expect("render");
            bytes += files.iter().map(|f| f.bytes.len()).sum::<usize>();
        }
        ours = ours.min(t.elapsed().as_secs_f64());
    }
    let cases: BTreeMap<String, Value> = eos
        .iter()
        .map(|d| (d.hostname.clone(), structured_config(d)))
        .collect();
    let (validate_s, render_s, lines) = pyavd(&cases);
    let n = eos.len() as f64;
    let ms = |s: f64| s * 1e3 / n;
    println!(
        "EOS fabric: inventories/eos-ai-fabric.yaml at {sus} SUs, {} EOS switches",
        eos.len()
    );
    println!(
        "{:>10} {:>12} {:>14} {:>14} {:>10} {:>10}",
        "", "ms/device", "pyavd_render", "pyavd+valid.", "ratio", "ratio+val."
    );
    println!(
        "{:>10} {:>12.4} {:>14.2} {:>14.2} {:>10.0} {:>10.0}",
        "railyard",
        ms(ours),
        ms(render_s),
        ms(render_s + validate_s),
        render_s / ours,
        (render_s + validate_s) / ours
    );
    println!(
        "railyard wrote {:.1} KB/device; pyavd {:.0} config lines/device",
        bytes as f64 / 1e3 / n,
        lines as f64 / n
    );
}
