//! The memo of a build, kept beside the outputs in `.railyard-memo.json` (not in the manifest:
//! it is the builder's bookkeeping, not a deliverable): which inputs each rendered unit (a
//! switch's `configs/<name>/`, a label sheet, the workbook) came from, and a [`Stamp`] of every
//! file as it was written.
//!
//! A rebuild trusts a file of the previous build without reading it when its stamp is still the
//! same (size, modification time, inode), as make, cargo and git do: an edit in place changes
//! the time, an editor's save-and-rename the inode. A file written in the same clock tick as the
//! memo itself could be edited after it without its time changing ("racy git"); such files are
//! hashed and compared with the manifest instead.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use railyard::artifacts::sha256_hex;

pub const FILE: &str = ".railyard-memo.json";
pub const MANIFEST: &str = "manifest.json";

/// One unit: the hex digest of its inputs and the files it was rendered into.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub inputs: String,
    pub files: Vec<String>,
}

/// What identifies a file's content without reading it: size, modification time (seconds,
/// nanoseconds) and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(u64, i64, i64, u64);

impl Stamp {
    pub fn of(m: &fs::Metadata) -> Self {
        Self(m.len(), m.mtime(), m.mtime_nsec(), m.ino())
    }

    fn len(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }

    fn time(self) -> (i64, i64) {
        (self.1, self.2)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct MemoFile {
    pub units: BTreeMap<String, Unit>,
    /// Every file of the build, by path relative to the output directory.
    pub files: BTreeMap<String, Stamp>,
    /// The SHA-256 of `manifest.json`, which does not list itself.
    pub manifest: String,
}

/// A file of the previous build that still holds what its manifest says.
#[derive(Clone, Debug)]
pub struct Kept {
    pub sha256: String,
    pub bytes: usize,
    pub stamp: Stamp,
}

/// An output directory an earlier build left, as it is now: what it may be updated in place
/// from. `None` from [`Previous::scan`] when there is nothing to build on (no directory, no memo
/// or manifest, or something in it a build never writes, such as a symbolic link): then the
/// build writes a whole new directory.
pub struct Previous {
    pub units: BTreeMap<String, Unit>,
    /// Files whose content is known (by stamp, or by hash for the racy ones).
    pub kept: BTreeMap<String, Kept>,
    /// Every regular file in the directory (the memo aside), kept or not.
    pub files: BTreeSet<String>,
    /// Every directory in it, parents before children.
    pub dirs: Vec<String>,
}

#[derive(Deserialize)]
struct Manifest {
    files: Vec<ManifestRow>,
}

#[derive(Deserialize)]
struct ManifestRow {
    path: String,
    sha256: String,
    bytes: usize,
}

impl Previous {
    pub fn scan(dir: &Path) -> Option<Self> {
        let memo_path = dir.join(FILE);
        let memo_time = Stamp::of(&fs::symlink_metadata(&memo_path).ok()?).time();
        let memo: MemoFile = serde_json::from_slice(&fs::read(&memo_path).ok()?).ok()?;
        let manifest: Manifest =
            serde_json::from_slice(&fs::read(dir.join(MANIFEST)).ok()?).ok()?;
        let manifest: BTreeMap<String, (String, usize)> = manifest
            .files
            .into_iter()
            .map(|r| (r.path, (r.sha256, r.bytes)))
            .chain(
                memo.files
                    .get(MANIFEST)
                    .map(|s| (MANIFEST.to_string(), (memo.manifest.clone(), s.len()))),
            )
            .collect();
        let mut prev = Self {
            units: memo.units,
            kept: BTreeMap::new(),
            files: BTreeSet::new(),
            dirs: Vec::new(),
        };
        let mut stack = vec![String::new()];
        while let Some(rel) = stack.pop() {
            for entry in fs::read_dir(dir.join(&rel)).ok()? {
                let entry = entry.ok()?;
                let name = entry.file_name().into_string().ok()?;
                let path = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                let kind = entry.file_type().ok()?;
                if kind.is_dir() {
                    if manifest.contains_key(&path) {
                        return None;
                    }
                    prev.dirs.push(path.clone());
                    stack.push(path);
                } else if !kind.is_file() {
                    return None;
                } else if path != FILE {
                    let stamp = Stamp::of(&entry.metadata().ok()?);
                    if let Some((sha, bytes)) = manifest.get(&path)
                        && memo.files.get(&path) == Some(&stamp)
                        && (stamp.time() < memo_time || hashes_to(&dir.join(&path), sha))
                    {
                        let (sha256, bytes) = (sha.clone(), *bytes);
                        prev.kept.insert(
                            path.clone(),
                            Kept {
                                sha256,
                                bytes,
                                stamp,
                            },
                        );
                    }
                    prev.files.insert(path);
                }
            }
        }
        // Parents first: a path sorts after its parent.
        prev.dirs.sort();
        Some(prev)
    }
}

fn hashes_to(path: &Path, sha: &str) -> bool {
    fs::read(path).is_ok_and(|b| sha256_hex(&b) == sha)
}
