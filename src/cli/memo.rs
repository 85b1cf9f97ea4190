//! The memo of a build: which inputs each rendered unit (a switch's `configs/<name>/`) came
//! from, kept beside the outputs in `.railyard-memo.json` (not in the manifest: it is the
//! builder's bookkeeping, not a deliverable). A rebuild reads it with the previous manifest and
//! carries a unit over when its inputs' digest is the same and its files still hash to what the
//! manifest says (a file edited in place is rendered again).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub const FILE: &str = ".railyard-memo.json";

/// One unit: the hex digest of its inputs and the files it was rendered into.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub inputs: String,
    pub files: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct MemoFile {
    pub units: BTreeMap<String, Unit>,
}

/// What an earlier build left: its memo and its manifest (path → SHA-256, size). Empty when the
/// directory has none or they do not parse (then everything is rendered).
pub struct Previous {
    pub units: BTreeMap<String, Unit>,
    pub manifest: BTreeMap<String, (String, usize)>,
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
    pub fn load(dir: &Path) -> Self {
        let units = std::fs::read(dir.join(FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<MemoFile>(&b).ok())
            .map(|m| m.units)
            .unwrap_or_default();
        let manifest = std::fs::read(dir.join("manifest.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
            .map(|m| {
                m.files
                    .into_iter()
                    .map(|r| (r.path, (r.sha256, r.bytes)))
                    .collect()
            })
            .unwrap_or_default();
        Self { units, manifest }
    }
}

pub fn hex(digest: &[u8; 32]) -> String {
    use std::fmt::Write as _;
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
