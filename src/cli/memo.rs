//! The memo of a build, kept beside the outputs in `.railyard-memo.json` (not in the manifest:
//! it is the builder's bookkeeping, not a deliverable): which inputs each rendered unit (a
//! switch's `configs/<name>/`, a label sheet, the workbook) came from, and a [`Stamp`] of every
//! file as it was written.
//!
//! A rebuild trusts a file of the previous build without reading it when its stamp is still the
//! same (size, modification time, inode), as make, cargo and git do: an edit in place changes
//! the time, an editor's save-and-rename the inode. A file written in the same clock tick as the
//! memo itself could be edited after it without its time changing ("racy git"); such files are
//! hashed and compared with the manifest instead. The memo is sealed (its own SHA-256) and
//! names the manifest's: a memo edited by hand, or a manifest restored from another build, is
//! not trusted, and the build writes everything.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use railyard::output::Manifest;
use railyard::output::digest::sha256_hex;
use railyard::output::manifest::PATH as MANIFEST;

pub const FILE: &str = ".railyard-memo.json";

/// One unit: the hex digest of its inputs and the files it was rendered into.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub inputs: String,
    pub files: Vec<String>,
}

/// What identifies a file's content without reading it: size, modification time (seconds,
/// nanoseconds), inode, and mode (a file a fresh build would write with other permissions is
/// written again).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(u64, i64, i64, u64, u32);

impl Stamp {
    pub fn of(m: &fs::Metadata) -> Self {
        Self(m.len(), m.mtime(), m.mtime_nsec(), m.ino(), m.mode())
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
    /// The SHA-256 of the memo written with an empty seal: a memo edited by hand (or merged) is
    /// not trusted, and the build writes everything.
    #[serde(default)]
    seal: String,
    pub units: BTreeMap<String, Unit>,
    /// Every file of the build, by path relative to the output directory.
    pub files: BTreeMap<String, Stamp>,
    /// The SHA-256 of `manifest.json`, which does not list itself: a manifest edited or restored
    /// from another build is not trusted either.
    pub manifest: String,
}

impl MemoFile {
    /// Seals the memo; its bytes as written.
    pub fn seal(&mut self) -> serde_json::Result<Vec<u8>> {
        self.seal.clear();
        self.seal = sha256_hex(&serde_json::to_vec(self)?);
        serde_json::to_vec(self)
    }

    /// A memo whose seal holds.
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let mut memo: Self = serde_json::from_slice(bytes).ok()?;
        let seal = std::mem::take(&mut memo.seal);
        (sha256_hex(&serde_json::to_vec(&memo).ok()?) == seal).then_some(memo)
    }
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

impl Previous {
    pub fn scan(dir: &Path) -> Option<Self> {
        let memo_path = dir.join(FILE);
        let memo_time = Stamp::of(&fs::symlink_metadata(&memo_path).ok()?).time();
        let memo = MemoFile::from_bytes(&fs::read(&memo_path).ok()?)?;
        let manifest = fs::read(dir.join(MANIFEST)).ok()?;
        if sha256_hex(&manifest) != memo.manifest {
            return None;
        }
        let manifest = Manifest::parse(&manifest).ok()?;
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
