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
//!
//! The memo only saves work: which files a rebuild may replace or remove comes from the
//! previous build's manifest ([`Previous`]), never from the memo, and a rebuild without a valid
//! memo writes every file again.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use railyard::output::digest::sha256_hex;
use railyard::output::manifest::PATH as MANIFEST;
use railyard::output::{Manifest, path};

use crate::cli::input;

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

/// What a rebuild may update in place, from the previous build's manifest and (when it holds)
/// its memo. Only what the manifest lists is railyard's: every other file in the directory is
/// the user's and is never read, replaced or removed. Without a valid memo nothing is known to
/// be intact ([`Previous::kept`] is empty) and the build writes every file again.
#[derive(Default)]
pub struct Previous {
    pub units: BTreeMap<String, Unit>,
    /// Files whose content is known (by stamp, or by hash for the racy ones).
    pub kept: BTreeMap<String, Kept>,
    /// The regular files a rebuild may replace or remove: the previous manifest's files that
    /// are still there, the manifest itself and the memo.
    pub listed: BTreeSet<String>,
    /// The directories they are in, parents first: the only ones a rebuild may remove (once
    /// empty).
    pub dirs: Vec<String>,
    /// The manifest's entry of each listed file, for a build of some groups only, which carries
    /// the other groups' files over as they are.
    pub entries: BTreeMap<String, railyard::output::ManifestEntry>,
}

impl Previous {
    /// The previous build in `dir`, from its `manifest` (whose SHA-256 the memo must name).
    /// An error where the previous build's files are behind a symbolic link or have become
    /// one, or a special file: railyard would write or delete through it.
    pub fn scan(dir: &Path, manifest: &Manifest, manifest_sha: &str) -> anyhow::Result<Self> {
        let memo = read_memo(dir, manifest_sha);
        let mut recorded: BTreeMap<&str, (&str, usize)> = manifest
            .files
            .iter()
            .map(|e| (e.path.as_str(), (e.sha256.as_str(), e.bytes)))
            .collect();
        let manifest_stamp = memo.as_ref().and_then(|(m, _)| m.files.get(MANIFEST));
        if let Some(stamp) = manifest_stamp {
            recorded.insert(MANIFEST, (manifest_sha, stamp.len()));
        }
        let mut tree = Tree::new(dir);
        let mut prev = Self::default();
        let candidates = recorded.keys().copied().chain([MANIFEST, FILE]);
        for rel in candidates {
            // A path this railyard would never write (an older one's `../x`) is left alone.
            if path::check(rel).is_err() {
                continue;
            }
            let Some(meta) = tree.file(rel)? else {
                continue;
            };
            prev.listed.insert(rel.to_string());
            if let Some(&(sha, bytes)) = recorded.get(rel).filter(|_| rel != MANIFEST) {
                prev.entries.insert(
                    rel.to_string(),
                    railyard::output::ManifestEntry {
                        path: rel.to_string(),
                        sha256: sha.to_string(),
                        bytes,
                    },
                );
            }
            let (Some((memo, memo_time)), Some(&(sha, bytes))) = (&memo, recorded.get(rel)) else {
                continue;
            };
            let stamp = Stamp::of(&meta);
            // Known by its stamp (written before the memo, so not touched since) or, when the
            // stamp is new (a directory restored from a CI cache or copied: new inodes and
            // times), by its content: the bytes still hash to what the manifest says.
            let same_stamp = memo.files.get(rel) == Some(&stamp);
            if (same_stamp && stamp.time() < *memo_time) || hashes_to(&path::join(dir, rel)?, sha) {
                let sha256 = sha.to_string();
                prev.kept.insert(
                    rel.to_string(),
                    Kept {
                        sha256,
                        bytes,
                        stamp,
                    },
                );
            }
        }
        prev.dirs = tree.dirs();
        if let Some((memo, _)) = memo {
            prev.units = memo.units;
        }
        Ok(prev)
    }
}

/// The memo beside the manifest whose SHA-256 is `manifest_sha`, with its modification time;
/// `None` when there is none, or it is not this build's or not intact.
fn read_memo(dir: &Path, manifest_sha: &str) -> Option<(MemoFile, (i64, i64))> {
    let path = dir.join(FILE);
    let meta = fs::symlink_metadata(&path)
        .ok()
        .filter(fs::Metadata::is_file)?;
    let memo = MemoFile::from_bytes(&input::read(&path, input::BUILD_RECORD).ok()?)?;
    (memo.manifest == manifest_sha).then(|| (memo, Stamp::of(&meta).time()))
}

/// The output directory as a rebuild finds it, looked at without following any link: each
/// directory a listed file is in is looked at once.
struct Tree<'a> {
    dir: &'a Path,
    /// Directory (relative) → whether it is one (`false`: missing, or a file).
    seen: BTreeMap<String, bool>,
}

impl<'a> Tree<'a> {
    fn new(dir: &'a Path) -> Self {
        Self {
            dir,
            seen: BTreeMap::new(),
        }
    }

    /// The listed file `rel` as it is now: `None` when it is not there or not a file (it is not
    /// the file railyard wrote, and is left alone); an error when it or a directory it is in is
    /// a symbolic link or a special file.
    fn file(&mut self, rel: &str) -> anyhow::Result<Option<fs::Metadata>> {
        for parent in path::ancestors(rel) {
            if !self.is_dir(parent)? {
                return Ok(None);
            }
        }
        let Some(meta) = self.lstat(rel)? else {
            return Ok(None);
        };
        Ok(meta.is_file().then_some(meta))
    }

    fn is_dir(&mut self, rel: &str) -> anyhow::Result<bool> {
        if let Some(&known) = self.seen.get(rel) {
            return Ok(known);
        }
        let is = self.lstat(rel)?.is_some_and(|m| m.is_dir());
        self.seen.insert(rel.to_string(), is);
        Ok(is)
    }

    /// `rel`'s metadata, `None` when missing; an error for a link or a special file.
    fn lstat(&self, rel: &str) -> anyhow::Result<Option<fs::Metadata>> {
        let full = path::join(self.dir, rel)?;
        let meta = match fs::symlink_metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            other => other.with_context(|| format!("reading `{}`", full.display()))?,
        };
        if !meta.is_file() && !meta.is_dir() {
            bail!(
                "`{}` is {}: railyard does not follow links or replace special files in its \
                 output directory (a rebuild would write or delete `{}` there); remove it, or \
                 name another directory with -o",
                full.display(),
                railyard::output::bounded::file_kind(meta.file_type()),
                rel.escape_debug()
            );
        }
        Ok(Some(meta))
    }

    /// The directories seen, parents first.
    fn dirs(self) -> Vec<String> {
        // A BTreeMap's keys are sorted, and a path sorts after its parent.
        self.seen
            .into_iter()
            .filter_map(|(d, is)| is.then_some(d))
            .collect()
    }
}

fn hashes_to(path: &Path, sha: &str) -> bool {
    fs::read(path).is_ok_and(|b| sha256_hex(&b) == sha)
}
