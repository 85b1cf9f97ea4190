//! The per-push journal: append-only JSON lines, file mode 0600, one file per transaction
//! (`<dir>/<txid>.jsonl`). Each line is flushed before the next step, so the journal says how far
//! a push got even when the machine running it dies.
//!
//! It records transaction id, per-device state transitions with timestamps, config hashes
//! (never configs), native revision ids (NETCONF persist-id, FRR timer) and parsed errors. It
//! never records credentials: callers pass only hashes, ids and server messages.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    txid: String,
}

/// Default journal directory: `$XDG_STATE_HOME/railyard/tx` or `~/.local/state/railyard/tx`.
pub fn default_dir() -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(|| PathBuf::from(".railyard-state"))
        .join("railyard/tx")
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// A transaction id: time plus process id, unique per machine and sortable.
pub fn new_txid() -> String {
    format!("ry-{:x}-{:x}", now_ms(), std::process::id())
}

impl Journal {
    /// Create `<dir>/<txid>.jsonl` (mode 0600, directory 0700 when created).
    pub fn create(dir: &Path, txid: &str) -> std::io::Result<Journal> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let path = dir.join(format!("{txid}.jsonl"));
        let file = std::fs::OpenOptions::new()
            .create_new(true)
            .append(true)
            .mode(0o600)
            .open(&path)?;
        Ok(Journal {
            path,
            file: Mutex::new(file),
            txid: txid.to_string(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn txid(&self) -> &str {
        &self.txid
    }

    /// Append one event. `fields` must be an object; journal failures are reported on stderr but
    /// do not stop a push half-way (stopping would be worse for the devices).
    pub fn record(&self, device: Option<&str>, event: &str, fields: Value) {
        let mut line = json!({
            "ts_ms": now_ms() as u64,
            "tx": self.txid,
            "event": event,
        });
        if let (Some(obj), Some(d)) = (line.as_object_mut(), device) {
            obj.insert("device".into(), Value::String(d.to_string()));
        }
        if let (Some(obj), Value::Object(extra)) = (line.as_object_mut(), fields) {
            for (k, v) in extra {
                obj.insert(k, v);
            }
        }
        let mut text = line.to_string();
        text.push('\n');
        let r = match self.file.lock() {
            Ok(mut f) => f.write_all(text.as_bytes()).and_then(|()| f.sync_data()),
            Err(_) => Err(std::io::Error::other("journal lock poisoned")),
        };
        if let Err(e) = r {
            eprintln!("push: journal {}: {e}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_is_private_and_lines_are_json() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let j = Journal::create(&d.path().join("tx"), "ry-1").unwrap();
        j.record(Some("leaf1"), "committed", json!({"persist_id": "p"}));
        j.record(None, "done", json!({}));
        let mode = std::fs::metadata(j.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let text = std::fs::read_to_string(j.path()).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["device"], "leaf1");
        assert_eq!(lines[0]["persist_id"], "p");
        assert_eq!(lines[1]["event"], "done");
    }
}
