//! The per-push journal: append-only JSON lines, file mode 0600, one file per transaction
//! (`<dir>/<txid>.jsonl`). Each line is flushed before the next step, so the journal says how far
//! a push got even when the machine running it dies.
//!
//! It records transaction id, per-device state transitions with timestamps, config hashes
//! (never configs), native revision ids (NETCONF persist-id, FRR timer) and parsed errors. It
//! never records credentials: callers pass only hashes, ids and server messages, and every line
//! goes through the push's `Secrets::redact` before it is written (a device's error message may
//! quote a configuration line holding a filled-in secret).
//!
//! The configs themselves (the pre-change config for `--rollback`, the intended one for
//! `--resume`) are saved at preflight as separate files named by their sha256 in
//! `<dir>.saved/<txid>/` beside the journal directory (directories 0700, files 0600); the
//! journal records only the hashes. Copies hold placeholders, never secret values
//! (`Secrets::to_placeholders`). A transaction that changed nothing in the end (exit 1 or 3)
//! leaves no copies.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::secrets::Secrets;
use crate::output::bounded::{self, Kind, MIB};

pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    txid: String,
    secrets: Secrets,
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
            secrets: Secrets::default(),
        })
    }

    /// The secret values of this push: redacted from every line, replaced by their
    /// placeholders in saved copies.
    pub fn set_secrets(&mut self, secrets: Secrets) {
        self.secrets = secrets;
    }

    /// Reopen the journal of an earlier transaction to append to it (`--resume`).
    pub fn open_existing(dir: &Path, txid: &str) -> std::io::Result<Journal> {
        let path = path_of(dir, txid)?;
        let file = std::fs::OpenOptions::new().append(true).open(&path)?;
        Ok(Journal {
            path,
            file: Mutex::new(file),
            txid: txid.to_string(),
            secrets: Secrets::default(),
        })
    }

    /// Save a config copy next to the journal, named by its sha256
    /// (`<dir>.saved/<txid>/<sha256>.conf`, file 0600, directories 0700). Returns the hash.
    pub(crate) fn save_copy(&self, bytes: &[u8]) -> std::io::Result<String> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let bytes = &self.secrets.to_placeholders(bytes)[..];
        let hash = crate::output::digest::sha256_hex(bytes);
        let dir = saved_dir(&self.path);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        let target = dir.join(format!("{hash}.conf"));
        if target.exists() {
            return Ok(hash);
        }
        // Write under a temporary name, then rename: a half-written copy is never taken for one.
        let tmp = dir.join(format!(".{hash}.{}.tmp", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        Ok(hash)
    }

    /// Remove this transaction's saved copies (and their directory).
    pub(crate) fn discard_copies(&self) {
        let dir = saved_dir(&self.path);
        if dir.exists() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        // The `tx.saved/` parent goes too when this was its only transaction.
        if let Some(parent) = dir.parent() {
            let _ = std::fs::remove_dir(parent);
        }
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
        let mut text = self.secrets.redact(&line.to_string());
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

/// `<dir>/<txid>.jsonl`, refusing ids that are not plain names.
pub(super) fn path_of(dir: &Path, txid: &str) -> std::io::Result<PathBuf> {
    if txid.is_empty()
        || !txid
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        || txid.starts_with('.')
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{txid}` is not a transaction id"),
        ));
    }
    Ok(dir.join(format!("{txid}.jsonl")))
}

/// Where the config copies of the journal at `journal_path` live: beside the journal directory,
/// not in it, so the directory keeps one file per transaction (`tx/` → `tx.saved/<txid>/`).
pub(super) fn saved_dir(journal_path: &Path) -> PathBuf {
    let stem = journal_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = journal_path.parent().unwrap_or(Path::new("."));
    match dir.file_name() {
        Some(name) => dir
            .with_file_name(format!("{}.saved", name.to_string_lossy()))
            .join(stem),
        None => dir.join(".railyard-saved").join(stem),
    }
}

/// Read a saved copy back, checking that its content still has the recorded hash.
pub(super) fn load_copy(journal_path: &Path, hash: &str) -> std::io::Result<Vec<u8>> {
    if hash.len() != 64 || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("`{hash}` is not a sha256"),
        ));
    }
    let p = saved_dir(journal_path).join(format!("{hash}.conf"));
    let bytes = bounded::read(&p, super::inputs::CONFIG)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    if crate::output::digest::sha256_hex(&bytes) != hash {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: content does not match its hash", p.display()),
        ));
    }
    Ok(bytes)
}

/// A transaction journal: one line of a few hundred bytes per device event, about ten events
/// per device, so some 50 MB for a push to every switch of the largest fabric; 256 MiB is five
/// times that.
pub(super) const JOURNAL: Kind = Kind {
    what: "transaction journal",
    limit: 256 * MIB,
};

/// Every line of a journal, parsed (unparseable lines, e.g. a torn last write, are skipped).
/// The error names the file (and the limit, for a journal over [`JOURNAL`]).
pub(super) fn read_lines(path: &Path) -> Result<Vec<Value>, bounded::ReadError> {
    let bytes = bounded::read(path, JOURNAL)?;
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
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
        let h = j.save_copy(b"old config").unwrap();
        assert_eq!(load_copy(j.path(), &h).unwrap(), b"old config");
        let saved = d.path().join("tx.saved/ry-1").join(format!("{h}.conf"));
        let mode = std::fs::metadata(saved).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(path_of(d.path(), "../x").is_err());
        let again = Journal::open_existing(&d.path().join("tx"), "ry-1").unwrap();
        again.record(None, "resume", json!({}));
        assert_eq!(read_lines(j.path()).unwrap().len(), 3);
    }
}
