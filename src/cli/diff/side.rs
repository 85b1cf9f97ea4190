//! One side of `railyard diff`: a build directory's files (read through its manifest), a spec's
//! rendered in memory, or nothing (`--missing-is-empty`); and where it came from (`Origin`:
//! which railyard made it, the digests a reviewed plan records and `push --plan` checks).

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use railyard::change::{self, Files};
use railyard::output::bounded::{Kind, MIB};
use railyard::output::build_dir::{BuildDir, OpenError};
use railyard::output::digest::sha256_hex;
use railyard::output::manifest::RAILYARD;
use railyard::output::{OutputFile, OutputGroup, Selection};

/// One file of a build directory: as large as push accepts a rendered config.
const BUILT_FILE: Kind = Kind {
    what: "built file",
    limit: 256 * MIB,
};

/// Where one side of the comparison came from.
#[derive(Clone, Debug, Serialize)]
pub struct Origin {
    /// `build` (a build directory), `spec`, or `none` (a side `--missing-is-empty` made empty).
    pub kind: &'static str,
    /// The path as given.
    pub path: String,
    /// The railyard that made it: a build's manifest's (`generator` for a manifest older than
    /// the `railyard` field), this railyard for a spec.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub railyard: Option<String>,
    /// A build directory's `manifest.json` SHA-256: the digest of the whole build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_sha256: Option<String>,
    /// The spec's SHA-256: a spec side's own, or the one a build's manifest records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_sha256: Option<String>,
}

/// A side's files, and where they came from.
pub enum Side {
    Dir(Files, Origin),
    /// A spec's files, with the output group of each.
    Spec(Vec<OutputFile>, Origin),
    /// No design (`--missing-is-empty`): every file of the other side is new, or gone.
    Empty(Origin),
}

impl Side {
    pub fn origin(&self) -> &Origin {
        match self {
            Side::Dir(_, o) | Side::Spec(_, o) | Side::Empty(o) => o,
        }
    }

    /// Both sides' files. A build directory holds the groups it was built with (`--only`): a
    /// spec compared with one keeps only the groups the directory has a file of, so a group the
    /// build left out is not a difference of design.
    pub fn against(self, other: Side) -> (Files, Files) {
        match (self, other) {
            (Side::Spec(s, _), Side::Dir(d, _)) => (kept(s, &d), d),
            (Side::Dir(d, _), Side::Spec(s, _)) => {
                let s = kept(s, &d);
                (d, s)
            }
            (a, b) => (a.files(), b.files()),
        }
    }

    fn files(self) -> Files {
        match self {
            Side::Dir(d, _) => d,
            Side::Spec(s, _) => s.into_iter().map(|f| (f.path, f.bytes)).collect(),
            Side::Empty(_) => Files::new(),
        }
    }
}

/// The nothing a missing side is.
pub fn empty(path: &Path) -> Side {
    Side::Empty(Origin {
        kind: "none",
        path: path.display().to_string(),
        railyard: None,
        manifest_sha256: None,
        spec_sha256: None,
    })
}

/// The spec's files of the groups `dir` has at least one file of.
fn kept(spec: Vec<OutputFile>, dir: &Files) -> Files {
    let built: BTreeSet<Option<OutputGroup>> = spec
        .iter()
        .filter(|f| dir.contains_key(&f.path))
        .map(|f| f.group)
        .collect();
    spec.into_iter()
        .filter(|f| built.contains(&f.group))
        .map(|f| (f.path, f.bytes))
        .collect()
}

/// One side's files: a build directory's, or a spec's rendered in memory. Compared with
/// another spec, a spec renders only the groups the comparison needs; compared with a build
/// directory (`beside_build`), every group a build writes (but the on-request label sheets), so
/// that the directory's report and workbook are compared, not taken for removed files.
pub fn side(path: &Path, beside_build: bool) -> Result<Side, String> {
    if path.is_dir() {
        return build_dir(path);
    }
    let src = super::super::load(Some(path)).map_err(|e| format!("{e:#}"))?;
    let compiled = railyard::compile(&src);
    super::super::report::print(&src, &compiled.diagnostics, super::super::Format::Short);
    let templates = super::super::templates::load(None).map_err(|e| format!("{e:#}"))?;
    let only = if beside_build {
        Selection::all()
    } else {
        Selection::of(&[
            OutputGroup::Configs,
            OutputGroup::Cabling,
            OutputGroup::Addresses,
            OutputGroup::Hosts,
            OutputGroup::Plan,
        ])
    };
    let origin = Origin {
        kind: "spec",
        path: path.display().to_string(),
        railyard: Some(RAILYARD.to_string()),
        manifest_sha256: None,
        spec_sha256: Some(sha256_hex(src.text.as_bytes())),
    };
    match compiled.outputs_only(&templates, &only) {
        None => Err(format!(
            "the spec {} has errors: nothing to compare",
            src.name
        )),
        Some(Err(e)) => Err(format!("{}: {e}", src.name)),
        Some(Ok(files)) => Ok(Side::Spec(
            files
                .into_iter()
                .filter(|f| change::reads(&f.path))
                .collect(),
            origin,
        )),
    }
}

/// The files of a build directory the comparison reads: every one its manifest lists, each read
/// bounded and checked against the manifest's SHA-256 (an edited build is not the design).
fn build_dir(dir: &Path) -> Result<Side, String> {
    let build = BuildDir::open(dir).map_err(|e| match e {
        OpenError::Unreadable(e) => {
            format!("{e} — a build directory is recognised by its manifest.json")
        }
        OpenError::Malformed(e) => e,
    })?;
    let files = build.listed(change::reads, BUILT_FILE)?;
    let manifest = build.manifest();
    let origin = Origin {
        kind: "build",
        path: dir.display().to_string(),
        railyard: Some(
            manifest
                .railyard
                .clone()
                .unwrap_or_else(|| manifest.generator.clone()),
        ),
        manifest_sha256: Some(build.manifest_sha256().to_string()),
        spec_sha256: manifest.spec_sha256.clone(),
    };
    Ok(Side::Dir(files, origin))
}

/// A railyard as a manifest or this binary names it: its release, and its commit when known
/// (`0.1.0 (commit abc123)`; a manifest older than the `railyard` field has only
/// `generator: railyard 0.1.0`).
fn release_and_commit(name: &str) -> (&str, Option<&str>) {
    let name = name.strip_prefix("railyard ").unwrap_or(name);
    match name.split_once(' ') {
        Some((release, commit)) => (release, Some(commit)),
        None => (name, None),
    }
}

/// The two railyards when the sides come from different ones: different releases, or the same
/// release from different commits (when both name theirs).
pub fn different_railyards(old: &Origin, new: &Origin) -> Option<(String, String)> {
    let (a, b) = (old.railyard.as_deref()?, new.railyard.as_deref()?);
    let ((ra, ca), (rb, cb)) = (release_and_commit(a), release_and_commit(b));
    let differ = ra != rb || matches!((ca, cb), (Some(x), Some(y)) if x != y);
    differ.then(|| (a.to_string(), b.to_string()))
}

#[cfg(test)]
mod tests {
    use super::{Origin, different_railyards};

    fn made_by(railyard: &str) -> Origin {
        Origin {
            kind: "build",
            path: String::new(),
            railyard: Some(railyard.to_string()),
            manifest_sha256: None,
            spec_sha256: None,
        }
    }

    #[test]
    fn releases_and_commits_are_compared_as_far_as_both_are_known() {
        let now = made_by("0.2.0 (commit abc)");
        assert!(different_railyards(&made_by("0.1.0 (commit abc)"), &now).is_some());
        assert!(different_railyards(&made_by("0.2.0 (commit def)"), &now).is_some());
        assert!(different_railyards(&made_by("0.2.0 (commit abc)"), &now).is_none());
        // An older manifest names its release only.
        assert!(different_railyards(&made_by("railyard 0.2.0"), &now).is_none());
        assert!(different_railyards(&made_by("railyard 0.1.0"), &now).is_some());
    }
}
