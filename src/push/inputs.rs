//! The files a push sends when they come from an output directory (`--from DIR`): read
//! `DIR/configs/**`, and check each file to push against `DIR/manifest.json`, the SHA-256 list
//! `railyard build` wrote with them. A file edited after the build (or missing from the
//! manifest) is refused unless the user says it was edited on purpose (`--allow-edited`):
//! what is pushed is then what was reviewed. Every file is read bounded, with the limit of its
//! kind (`output::bounded`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::output::bounded::{self, Kind, MIB};
use crate::output::build_dir::{BuildDir, OpenError};
use crate::output::secrets;

/// One rendered config. The largest (a 64-port switch's NVUE `startup.yaml` or SONiC
/// `config_db.json` with every tenant) is some hundreds of KB; 64 MiB is a hundred times that.
pub(super) const CONFIG: Kind = Kind {
    what: "rendered config",
    limit: 64 * MIB,
};

/// `configs/secrets.json`: a few names, each with its devices (~30 bytes each): under 1 MB for
/// the largest fabric.
pub(super) const DECLARATION: Kind = Kind {
    what: "secrets declaration",
    limit: 16 * MIB,
};

/// `configs/**` of an output directory (each device's files, and the build's secrets
/// declaration), keyed by path relative to it.
pub fn read_output_dir(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    let root = dir.join("configs");
    let devices =
        std::fs::read_dir(&root).map_err(|e| format!("reading {}: {e}", root.display()))?;
    for dev in devices.flatten() {
        if !dev.path().is_dir() {
            continue;
        }
        let files = std::fs::read_dir(dev.path())
            .map_err(|e| format!("reading {}: {e}", dev.path().display()))?;
        for f in files.flatten() {
            let p = f.path();
            if p.is_file()
                && let (Some(d), Some(n)) = (dev.file_name().to_str(), f.file_name().to_str())
            {
                let bytes = bounded::read(&p, CONFIG).map_err(|e| e.to_string())?;
                out.insert(format!("configs/{d}/{n}"), bytes);
            }
        }
    }
    let declaration = dir.join(secrets::PATH);
    if declaration.exists() {
        let bytes = bounded::read(&declaration, DECLARATION).map_err(|e| e.to_string())?;
        out.insert(secrets::PATH.to_string(), bytes);
    }
    Ok(out)
}

/// Check `paths` (relative to `dir`) against `dir/manifest.json`. The error names every file
/// that differs from its recorded hash or is not listed, and the manifest.
pub fn check_manifest(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    paths: &[String],
) -> Result<(), String> {
    let build = BuildDir::open(dir).map_err(|e| match e {
        OpenError::Unreadable(e) => format!(
            "{e} — without the build's manifest the files cannot be checked against what \
             was built (re-run `railyard build`, or pass --allow-edited to push them as they are)"
        ),
        OpenError::Malformed(e) => e,
    })?;
    let (edited, unlisted) = build.deviations(files, paths);
    let manifest_path = build.manifest_path();
    if edited.is_empty() && unlisted.is_empty() {
        return Ok(());
    }
    let mut parts = Vec::new();
    if !edited.is_empty() {
        parts.push(format!(
            "edited after the build (SHA-256 differs from {}): {}",
            manifest_path.display(),
            edited.join(", ")
        ));
    }
    if !unlisted.is_empty() {
        parts.push(format!(
            "not listed in {}: {}",
            manifest_path.display(),
            unlisted.join(", ")
        ));
    }
    Err(format!(
        "{} — push what was built (re-run `railyard build`), or pass --allow-edited to push the \
         edited files",
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::digest::sha256_hex;

    #[test]
    fn edited_and_unlisted_files_are_named() {
        let d = tempfile::tempdir().unwrap();
        let files: BTreeMap<String, Vec<u8>> = [
            ("configs/a/frr.conf".to_string(), b"a\n".to_vec()),
            ("configs/b/frr.conf".to_string(), b"edited\n".to_vec()),
            ("configs/c/frr.conf".to_string(), b"c\n".to_vec()),
        ]
        .into();
        let paths: Vec<String> = files.keys().cloned().collect();
        assert!(
            check_manifest(d.path(), &files, &paths)
                .unwrap_err()
                .contains("manifest.json")
        );
        let manifest = serde_json::json!({"files": [
            {"path": "configs/a/frr.conf", "sha256": sha256_hex(b"a\n"), "bytes": 2},
            {"path": "configs/b/frr.conf", "sha256": sha256_hex(b"b\n"), "bytes": 2},
        ], "generator": "railyard 0.1.0"});
        std::fs::write(d.path().join("manifest.json"), manifest.to_string()).unwrap();
        let e = check_manifest(d.path(), &files, &paths).unwrap_err();
        assert!(e.contains("edited after the build"), "{e}");
        assert!(e.contains("configs/b/frr.conf"), "{e}");
        assert!(e.contains("not listed in"), "{e}");
        assert!(e.contains("configs/c/frr.conf"), "{e}");
        assert!(!e.contains("configs/a/frr.conf"), "{e}");
        assert!(check_manifest(d.path(), &files, &paths[..1]).is_ok());
    }
}
