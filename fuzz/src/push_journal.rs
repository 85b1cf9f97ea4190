//! The push journal (`<dir>/<txid>.jsonl`) as `push --resume` and `--rollback` read it back.
//!
//! Input: `[mode, rest…]`. An even `mode` stores `rest` as a journal file, as a crash, a full
//! disk or a hand edit may have left it, and reads it back. An odd `mode` writes a journal with
//! railyard's own writer from events drawn from `rest` (one `device<TAB>state` per line), then
//! cuts its last line short as a crash mid-write would.
//!
//! Invariants checked:
//! - reading any file gives a view or an error, never a panic; a view lists each device once;
//!   the failure-path decision and the rollback planning run on it;
//! - what the writer recorded is what the reader sees: each device's last state;
//! - a torn last line (a prefix without its newline) changes nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use railyard::push::{Journal, parse_targets, read_journal, rollback_plans};
use serde_json::json;

pub fn run(data: &[u8]) {
    let [mode, rest @ ..] = data else {
        return;
    };
    let dir = Scratch::new();
    if mode % 2 == 0 {
        read_stored(&dir.0, rest);
    } else {
        write_then_read(&dir.0, rest);
    }
}

/// A fresh directory for one input, removed afterwards (in memory where the system offers it).
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        static N: AtomicU64 = AtomicU64::new(0);
        let shm = Path::new("/dev/shm");
        let root = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = root.join(format!("railyard-fuzz-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn read_stored(dir: &Path, bytes: &[u8]) {
    let path = dir.join("ry-fuzz.jsonl");
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let Ok(view) = read_journal(dir, "ry-fuzz") else {
        return;
    };
    assert!(!view.devices.is_empty(), "a view without devices");
    for (i, d) in view.devices.iter().enumerate() {
        assert!(
            view.devices[..i].iter().all(|o| o.device != d.device),
            "device {:?} listed twice",
            d.device
        );
    }
    let _ = railyard::push::was_failing(&view);
    let targets = parse_targets(
        "defaults: {user: admin}\ndevices:\n  leaf1: {address: 127.0.0.1}\n  \
         spine1: {address: 127.0.0.1, driver: frr-ssh}\n",
        dir,
        &railyard::push::Operator::default(),
    )
    .unwrap_or_else(|e| panic!("fixed targets: {e}"));
    let _ = rollback_plans(&view, &targets);
    let _ = rollback_plans(&view, &[]);
}

fn write_then_read(dir: &Path, rest: &[u8]) {
    let text = String::from_utf8_lossy(rest);
    let events: Vec<(&str, &str)> = text
        .lines()
        .take(64)
        .map(|l| l.split_once('\t').unwrap_or((l, "ready")))
        .collect();
    let j = Journal::create(dir, "ry-fuzz").unwrap_or_else(|e| panic!("journal: {e}"));
    let devices: Vec<&str> = events.iter().map(|(d, _)| *d).collect();
    j.record(None, "begin", json!({ "devices": devices }));
    for (wave, (device, state)) in events.iter().enumerate() {
        j.record(
            Some(device),
            "state",
            json!({"state": state, "driver": "netconf", "wave": wave}),
        );
    }
    let read = |what: &str| read_journal(dir, "ry-fuzz").unwrap_or_else(|e| panic!("{what}: {e}"));
    if events.is_empty() {
        assert!(
            read_journal(dir, "ry-fuzz").is_err(),
            "a journal of no device read back"
        );
        return;
    }
    let view = read("reading back what was written");
    for (device, _) in &events {
        let last = events
            .iter()
            .rev()
            .find(|(d, _)| d == device)
            .map(|(_, s)| *s);
        let got = view.devices.iter().find(|r| r.device == *device);
        assert_eq!(
            got.map(|r| r.state.as_str()),
            last,
            "device {device:?}: written and read states differ"
        );
    }

    // A crash while appending the next line leaves a prefix of it.
    let line = json!({"ts_ms": 1, "tx": "ry-fuzz", "event": "state", "device": devices[0],
                      "state": "failed", "error": text.as_ref()})
    .to_string();
    let cut = line.len() * usize::from(rest.first().copied().unwrap_or(0)) / 256;
    let cut = (0..=cut)
        .rev()
        .find(|&i| line.is_char_boundary(i))
        .unwrap_or(0);
    let path = dir.join("ry-fuzz.jsonl");
    let mut bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes.extend_from_slice(&line.as_bytes()[..cut]);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let torn = read("reading a journal with a torn last line");
    let states = |v: &railyard::push::JournalView| -> Vec<(String, String)> {
        v.devices
            .iter()
            .map(|d| (d.device.clone(), d.state.clone()))
            .collect()
    };
    assert_eq!(
        states(&view),
        states(&torn),
        "a torn last line changed the journal"
    );
}
