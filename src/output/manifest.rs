//! `manifest.json`: every file of a build with its SHA-256 and size. One type writes it
//! ([`Manifest::to_file`]) and reads it back ([`Manifest::parse`]), for the rebuild memo and
//! for push, which refuses a config edited after the build.

use serde::{Deserialize, Serialize};

use super::OutputFile;
use super::digest::sha256_hex;

/// The manifest's own path in the output directory.
pub const PATH: &str = "manifest.json";

/// This railyard: its release and the commit it was built from (`railyard --version`).
pub const RAILYARD: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("RAILYARD_COMMIT"),
    ")"
);

/// One manifest entry: a file's path, SHA-256 and size. A writer computes them while writing,
/// without keeping the bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    // Field order is the file's key order (alphabetical, as the first manifests were written).
    pub bytes: usize,
    pub path: String,
    pub sha256: String,
}

impl ManifestEntry {
    pub fn of(f: &OutputFile) -> Self {
        Self {
            path: f.path.clone(),
            sha256: sha256_hex(&f.bytes),
            bytes: f.bytes.len(),
        }
    }
}

/// The manifest of one build: which railyard wrote it, from which spec, and every file but
/// itself. `railyard` and `spec_sha256` are absent from manifests written before they were
/// recorded (and `spec_sha256` from a directory not built from a spec, such as `report`'s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub files: Vec<ManifestEntry>,
    pub generator: String,
    /// The railyard that wrote it, with its commit ([`RAILYARD`]): `diff` says when two builds
    /// come from different ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub railyard: Option<String>,
    /// The SHA-256 of the spec's text the build was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_sha256: Option<String>,
}

impl Default for Manifest {
    fn default() -> Self {
        Self {
            generator: concat!("railyard ", env!("CARGO_PKG_VERSION")).to_string(),
            files: Vec::new(),
            railyard: Some(RAILYARD.to_string()),
            spec_sha256: None,
        }
    }
}

impl Manifest {
    /// This railyard's manifest over `entries`, sorted here by path (so the order they came in
    /// is irrelevant).
    pub fn of(mut entries: Vec<ManifestEntry>) -> Self {
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Self {
            files: entries,
            ..Self::default()
        }
    }

    /// The same manifest, recording the SHA-256 of the spec it was built from.
    #[must_use]
    pub fn built_from(mut self, spec_sha256: Option<String>) -> Self {
        self.spec_sha256 = spec_sha256;
        self
    }

    /// `manifest.json`: pretty JSON and a final newline.
    pub fn to_file(&self) -> OutputFile {
        // Strings and numbers only: serializing cannot fail.
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        OutputFile {
            path: PATH.to_string(),
            bytes,
            group: None,
        }
    }

    /// A manifest read back; `Err` says why it is not one.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("not a railyard manifest: {e}"))
    }

    /// The recorded SHA-256 of `path`.
    pub fn sha256_of(&self, path: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|e| e.path == path)
            .map(|e| e.sha256.as_str())
    }
}

/// A sink that keeps every file; [`Collector::finish`] sorts them by path and appends the
/// manifest.
#[derive(Default)]
pub struct Collector(std::sync::Mutex<Vec<OutputFile>>);

impl Collector {
    pub fn put(&self, f: OutputFile) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(f);
    }

    pub fn finish(self) -> Vec<OutputFile> {
        let mut files = self
            .0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let manifest = Manifest::of(files.iter().map(ManifestEntry::of).collect()).to_file();
        files.push(manifest);
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::OutputGroup;

    #[test]
    fn written_and_read_by_one_type() {
        let c = Collector::default();
        c.put(OutputFile::new(OutputGroup::Cabling, "b.csv", "b\n"));
        c.put(OutputFile::new(OutputGroup::Plan, "a.json", "{}"));
        let files = c.finish();
        let last = files.last().unwrap();
        assert_eq!(last.path, PATH);
        let text = String::from_utf8(last.bytes.clone()).unwrap();
        assert!(
            text.starts_with("{\n  \"files\": [\n    {\n      \"bytes\": "),
            "{text}"
        );
        assert!(text.contains("\"generator\": \"railyard "), "{text}");
        assert!(text.ends_with("}\n"));
        let m = Manifest::parse(&last.bytes).unwrap();
        let paths: Vec<&str> = m.files.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["a.json", "b.csv"]);
        assert_eq!(m.sha256_of("b.csv"), Some(sha256_hex(b"b\n").as_str()));
        assert!(Manifest::parse(b"[]").is_err());
    }
}
