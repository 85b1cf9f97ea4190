//! Atomic output: everything is written into a temporary sibling directory, which then replaces
//! the output directory, so a failed run leaves the previous outputs as they were.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

use railyard::artifacts::OutputFile;

fn sibling(dir: &Path, tag: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    dir.with_file_name(format!(".{name}.{tag}-{}", std::process::id()))
}

/// Calls `on_file` after each file is written (progress).
pub fn write_atomically(
    dir: &Path,
    files: &[OutputFile],
    on_file: &dyn Fn(),
) -> anyhow::Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    let tmp = sibling(dir, "tmp");
    let _ = fs::remove_dir_all(&tmp);
    let result = (|| -> anyhow::Result<()> {
        for f in files {
            // Paths come from device names, which the checks restrict to safe characters.
            let path = tmp.join(&f.path);
            if let Some(p) = path.parent() {
                fs::create_dir_all(p)?;
            }
            fs::write(&path, &f.bytes).with_context(|| format!("writing `{}`", path.display()))?;
            on_file();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let old = sibling(dir, "old");
    if dir.exists() {
        fs::rename(dir, &old).with_context(|| format!("moving aside `{}`", dir.display()))?;
    }
    if let Err(e) = fs::rename(&tmp, dir) {
        let _ = fs::rename(&old, dir);
        return Err(e).context("replacing the output directory");
    }
    let _ = fs::remove_dir_all(&old);
    Ok(())
}

/// Write one file atomically: a temporary sibling, then a rename over the target, so a failed
/// run leaves an existing file as it was.
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    let tmp = sibling(path, "tmp");
    fs::write(&tmp, bytes).with_context(|| format!("writing `{}`", tmp.display()))?;
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("replacing `{}`", path.display()));
    }
    Ok(())
}
