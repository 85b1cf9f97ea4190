//! Atomic, incremental output: everything is written into a temporary sibling directory, which
//! then replaces the output directory, so a failed run leaves the previous outputs as they were.
//!
//! A rebuild over an existing output directory does not rewrite what did not change: a file whose
//! bytes equal the previous run's is hard-linked from the old directory into the new one (no data
//! written, no new inode), so adding one SU rewrites only the files that SU changes. The old
//! directory is only read until the final rename; a file someone edited there differs from the
//! new bytes and is written afresh. Directories are created once each, before any file, and the
//! files are written by one thread per core.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;

use railyard::artifacts::OutputFile;

fn sibling(dir: &Path, tag: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    dir.with_file_name(format!(".{name}.{tag}-{}", std::process::id()))
}

/// What a write did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Files whose bytes were written (new or changed).
    pub written: usize,
    /// Files carried over from the previous output unchanged (hard-linked).
    pub unchanged: usize,
}

/// Write `files` (paths relative to `dir`) as the new content of `dir`. Calls `on_file` after
/// each file (progress; from several threads).
pub fn write_atomically(
    dir: &Path,
    files: &[OutputFile],
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    let tmp = sibling(dir, "tmp");
    let _ = fs::remove_dir_all(&tmp);
    let previous = dir.is_dir().then_some(dir);
    let result = fill(&tmp, previous, files, on_file);
    let stats = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let old = sibling(dir, "old");
    if dir.exists() {
        fs::rename(dir, &old).with_context(|| format!("moving aside `{}`", dir.display()))?;
    }
    if let Err(e) = fs::rename(&tmp, dir) {
        let _ = fs::rename(&old, dir);
        return Err(e).context("replacing the output directory");
    }
    let _ = fs::remove_dir_all(&old);
    Ok(stats)
}

/// Creates every directory once, then writes (or links) the files on one thread per core.
fn fill(
    tmp: &Path,
    previous: Option<&Path>,
    files: &[OutputFile],
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    // Paths come from device names, which the checks restrict to safe characters.
    let dirs: BTreeSet<&Path> = files
        .iter()
        .filter_map(|f| Path::new(&f.path).parent())
        .collect();
    fs::create_dir_all(tmp).with_context(|| format!("creating `{}`", tmp.display()))?;
    for d in dirs {
        let p = tmp.join(d);
        fs::create_dir_all(&p).with_context(|| format!("creating `{}`", p.display()))?;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = files.len().div_ceil(threads).max(1);
    let unchanged = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                let unchanged = &unchanged;
                s.spawn(move || -> anyhow::Result<()> {
                    for f in part {
                        if place(tmp, previous, f)? {
                            unchanged.fetch_add(1, Ordering::Relaxed);
                        }
                        on_file();
                    }
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })?;
    let unchanged = unchanged.into_inner();
    Ok(WriteStats {
        written: files.len() - unchanged,
        unchanged,
    })
}

/// Puts one file into the new directory: a hard link to the previous run's file when its bytes
/// are the same (returns `true`), else the bytes.
fn place(tmp: &Path, previous: Option<&Path>, f: &OutputFile) -> anyhow::Result<bool> {
    let path = tmp.join(&f.path);
    if let Some(old) = previous.map(|p| p.join(&f.path))
        && same_bytes(&old, &f.bytes)
        && fs::hard_link(&old, &path).is_ok()
    {
        return Ok(true);
    }
    fs::write(&path, &f.bytes).with_context(|| format!("writing `{}`", path.display()))?;
    Ok(false)
}

/// The file holds exactly `bytes` (the size is compared first, from the metadata alone).
fn same_bytes(path: &Path, bytes: &[u8]) -> bool {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return false;
    };
    meta.is_file()
        && meta.len() == bytes.len() as u64
        && fs::read(path).is_ok_and(|old| old == bytes)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                    out.push((rel, fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_rebuild_writes_only_what_changed_and_drops_what_is_gone() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let first = vec![
            OutputFile::new("a/x.txt", "x1"),
            OutputFile::new("a/y.txt", "y1"),
            OutputFile::new("gone.txt", "bye"),
        ];
        let s = write_atomically(&out, &first, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (3, 0));
        // Someone edits a file in place: the rebuild must not carry the edit over.
        fs::write(out.join("a/y.txt"), "y-edited").unwrap();
        let second = vec![
            OutputFile::new("a/x.txt", "x1"),
            OutputFile::new("a/y.txt", "y1"),
            OutputFile::new("b/z.txt", "z1"),
        ];
        let s = write_atomically(&out, &second, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (2, 1));
        let want: Vec<(String, Vec<u8>)> = second
            .iter()
            .map(|f| (f.path.clone(), f.bytes.clone()))
            .collect();
        assert_eq!(read_all(&out), want);
        // No sibling left behind.
        let names: Vec<String> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out"]);
    }
}
