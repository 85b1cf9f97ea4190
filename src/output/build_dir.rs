//! A build directory read back: its `manifest.json` and the files it lists, each read bounded
//! and checked against the SHA-256 the manifest records. The one reader of a build directory:
//! `railyard diff` reads a build's files through it, push and audit check the configs they send
//! against it. An edited file is never taken for what was built.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Manifest;
use super::bounded::{self, Kind, MIB};
use super::digest::sha256_hex;
use super::path as out_path;

/// The build's `manifest.json`: about 6 MB at 131k GPUs (see the command line's build record).
pub const MANIFEST: Kind = Kind {
    what: "manifest",
    limit: 64 * MIB,
};

/// A build directory whose manifest was read.
pub struct BuildDir {
    dir: PathBuf,
    manifest_path: PathBuf,
    manifest: Manifest,
    /// The SHA-256 of `manifest.json` as read: the whole build's digest (it lists every
    /// file's), what a reviewed plan records (`diff --out`, `push --plan`).
    manifest_sha256: String,
}

/// Why a directory's manifest could not be had: not read (each caller says what that means for
/// it), or not a manifest.
pub enum OpenError {
    Unreadable(String),
    Malformed(String),
}

impl BuildDir {
    pub fn open(dir: &Path) -> Result<Self, OpenError> {
        let manifest_path = dir.join(super::manifest::PATH);
        let bytes = bounded::read(&manifest_path, MANIFEST)
            .map_err(|e| OpenError::Unreadable(e.to_string()))?;
        let manifest = Manifest::parse(&bytes)
            .map_err(|e| OpenError::Malformed(format!("{}: {e}", manifest_path.display())))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            manifest_path,
            manifest,
            manifest_sha256: super::digest::sha256_hex(&bytes),
        })
    }

    /// The manifest read.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The SHA-256 of `manifest.json` as read: the digest of the whole build.
    pub fn manifest_sha256(&self) -> &str {
        &self.manifest_sha256
    }

    /// The listed files `keep` accepts, each read bounded (`kind`) and checked against its
    /// recorded SHA-256; the error names every file that could not be read or was edited.
    pub fn listed(
        &self,
        keep: impl Fn(&str) -> bool,
        kind: Kind,
    ) -> Result<BTreeMap<String, Vec<u8>>, String> {
        let mut files = BTreeMap::new();
        let mut problems = Vec::new();
        for entry in self.manifest.files.iter().filter(|e| keep(&e.path)) {
            let read = out_path::join(&self.dir, &entry.path)
                .map_err(|e| e.to_string())
                .and_then(|p| bounded::read(&p, kind).map_err(|e| e.to_string()));
            match read {
                Ok(b) if sha256_hex(&b) == entry.sha256 => {
                    files.insert(entry.path.clone(), b);
                }
                Ok(_) => problems.push(format!(
                    "{}: edited after the build (SHA-256 differs from {})",
                    self.dir.join(&entry.path).display(),
                    self.manifest_path.display()
                )),
                Err(e) => problems.push(e),
            }
        }
        if problems.is_empty() {
            Ok(files)
        } else {
            Err(problems.join("\n"))
        }
    }

    /// The files of `paths` (relative to the directory) that differ from their recorded hash,
    /// and those the manifest does not list, as paths under the directory.
    pub fn deviations(
        &self,
        files: &BTreeMap<String, Vec<u8>>,
        paths: &[String],
    ) -> (Vec<String>, Vec<String>) {
        let recorded: BTreeMap<&str, &str> = self
            .manifest
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.sha256.as_str()))
            .collect();
        let mut edited = Vec::new();
        let mut unlisted = Vec::new();
        for p in paths {
            let Some(bytes) = files.get(p) else { continue };
            match recorded.get(p.as_str()) {
                Some(h) if *h == sha256_hex(bytes) => {}
                Some(_) => edited.push(self.dir.join(p).display().to_string()),
                None => unlisted.push(self.dir.join(p).display().to_string()),
            }
        }
        (edited, unlisted)
    }

    pub fn manifest_path(&self) -> &Path {
        &self.manifest_path
    }
}
