//! Atomic, incremental output: everything is written into a temporary sibling directory, which
//! then replaces the output directory, so a failed run leaves the previous outputs as they were.
//!
//! A rebuild over an existing output directory does not rewrite what did not change: a file whose
//! bytes equal the previous run's is hard-linked from the old directory into the new one (no data
//! written, no new inode), so adding one SU rewrites only the files that SU changes. The old
//! directory is only read until the final rename; a file someone edited there differs from the
//! new bytes and is written afresh. Files are written as they are rendered, by the rendering
//! threads, and dropped once written: the output is never all in memory at once. Each directory
//! is created once. Switch configs, label sheets and the workbook whose inputs did not change are
//! not even rendered: the writer is the build's [`railyard::Memo`] and hard-links them from the
//! old directory (`memo.rs`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::Context;

use railyard::Memo;
use railyard::artifacts::{ManifestEntry, OutputFile, Sink, manifest_of};

use super::memo::{self, MemoFile, Previous, Unit};

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

/// Write the files `produce` hands to its sink as the new content of `dir`, each one as it comes
/// (the bytes are dropped once written; the SHA-256 for `manifest.json` is taken on the way), then
/// the manifest, then the swap. A producer error, or the first write error, leaves `dir` as it
/// was. Calls `on_file` after each file.
pub fn write_streaming(
    dir: &Path,
    produce: impl FnOnce(&Sink<'_>, &dyn Memo) -> anyhow::Result<()>,
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    let tmp = sibling(dir, "tmp");
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).with_context(|| format!("creating `{}`", tmp.display()))?;
    let previous = dir.is_dir().then_some(dir);
    let w = Writer {
        tmp: &tmp,
        previous,
        before: previous.map(Previous::load),
        memo: Mutex::new(MemoFile::default()),
        dirs: Mutex::new(BTreeSet::new()),
        entries: Mutex::new(Vec::new()),
        unchanged: AtomicUsize::new(0),
        error: Mutex::new(None),
        on_file,
    };
    let produced = produce(&|f| w.put(&f), &w);
    let result = produced.and_then(|()| w.finish());
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

/// Write `files` (paths relative to `dir`, their `manifest.json` among them or not) as the new
/// content of `dir`; the manifest is written afresh over them.
pub fn write_atomically(
    dir: &Path,
    files: &[OutputFile],
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    write_streaming(
        dir,
        |sink, _| {
            for f in files.iter().filter(|f| f.path != MANIFEST) {
                sink(f.clone());
            }
            Ok(())
        },
        on_file,
    )
}

const MANIFEST: &str = "manifest.json";

/// The writing side of [`write_streaming`], shared by the producer's threads.
struct Writer<'a> {
    tmp: &'a Path,
    previous: Option<&'a Path>,
    /// The previous build's memo and manifest.
    before: Option<Previous>,
    /// This build's memo: every unit rendered or carried over.
    memo: Mutex<MemoFile>,
    /// Directories already created under `tmp`.
    dirs: Mutex<BTreeSet<PathBuf>>,
    entries: Mutex<Vec<ManifestEntry>>,
    unchanged: AtomicUsize,
    /// The first failure; later files are dropped.
    error: Mutex<Option<anyhow::Error>>,
    on_file: &'a (dyn Fn() + Sync),
}

impl Writer<'_> {
    fn put(&self, f: &OutputFile) {
        if lock(&self.error).is_some() {
            return;
        }
        let entry = ManifestEntry::of(f);
        match self.place(f) {
            Ok(linked) => {
                if linked {
                    self.unchanged.fetch_add(1, Ordering::Relaxed);
                }
                lock(&self.entries).push(entry);
                (self.on_file)();
            }
            Err(e) => {
                lock(&self.error).get_or_insert(e);
            }
        }
    }

    /// Puts one file into the new directory: a hard link to the previous run's file when its
    /// bytes are the same (returns `true`), else the bytes. Paths come from device names, which
    /// the checks restrict to safe characters.
    fn place(&self, f: &OutputFile) -> anyhow::Result<bool> {
        let path = self.tmp.join(&f.path);
        self.parent_of(&f.path)?;
        if let Some(old) = self.previous.map(|p| p.join(&f.path))
            && same_bytes(&old, &f.bytes)
            && fs::hard_link(&old, &path).is_ok()
        {
            return Ok(true);
        }
        fs::write(&path, &f.bytes).with_context(|| format!("writing `{}`", path.display()))?;
        Ok(false)
    }

    /// Creates the directory of `rel` under the new directory, once.
    fn parent_of(&self, rel: &str) -> anyhow::Result<()> {
        if let Some(parent) = Path::new(rel)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            && !lock(&self.dirs).contains(parent)
        {
            let p = self.tmp.join(parent);
            fs::create_dir_all(&p).with_context(|| format!("creating `{}`", p.display()))?;
            lock(&self.dirs).insert(parent.to_path_buf());
        }
        Ok(())
    }

    /// The manifest entries of `unit`'s files in the previous directory when the previous build
    /// rendered it from `inputs` and every file still hashes to what its manifest says.
    fn intact(&self, unit: &str, inputs: &str) -> Option<(&Unit, Vec<ManifestEntry>)> {
        let (dir, before) = (self.previous?, self.before.as_ref()?);
        let old = before.units.get(unit).filter(|u| u.inputs == inputs)?;
        let mut entries = Vec::with_capacity(old.files.len());
        for path in &old.files {
            // A memo names files inside the directory only (it could have been edited).
            if !Path::new(path)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
            {
                return None;
            }
            let (sha, bytes) = before.manifest.get(path)?;
            let from = dir.join(path);
            // A regular file, as a fresh build writes: not a symlink to the same bytes.
            if !fs::symlink_metadata(&from).is_ok_and(|m| m.is_file()) {
                return None;
            }
            let data = fs::read(&from).ok()?;
            let entry = ManifestEntry::of(&OutputFile::new(path.clone(), data));
            if entry.sha256 != *sha || entry.bytes != *bytes {
                return None;
            }
            entries.push(entry);
        }
        Some((old, entries))
    }

    /// Writes the manifest over every file received, and the memo beside it; the first write
    /// error, if any.
    fn finish(self) -> anyhow::Result<WriteStats> {
        let entries = std::mem::take(&mut *lock(&self.entries));
        let files = entries.len() + 1;
        self.put(&manifest_of(entries));
        let memo = std::mem::take(&mut *lock(&self.memo));
        if !memo.units.is_empty() {
            let path = self.tmp.join(memo::FILE);
            let bytes = serde_json::to_vec(&memo).context("the build memo")?;
            fs::write(&path, bytes).with_context(|| format!("writing `{}`", path.display()))?;
        }
        if let Some(e) = self
            .error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
        {
            return Err(e);
        }
        let unchanged = self.unchanged.into_inner();
        Ok(WriteStats {
            written: files - unchanged,
            unchanged,
        })
    }
}

impl Memo for Writer<'_> {
    fn reuse(&self, unit: &str, inputs: &[u8; 32]) -> bool {
        if lock(&self.error).is_some() {
            return false;
        }
        let inputs = memo::hex(inputs);
        let Some((old, entries)) = self.intact(unit, &inputs) else {
            return false;
        };
        let Some(dir) = self.previous else {
            return false;
        };
        let mut linked: Vec<PathBuf> = Vec::with_capacity(old.files.len());
        for path in &old.files {
            let to = self.tmp.join(path);
            if self.parent_of(path).is_err() || fs::hard_link(dir.join(path), &to).is_err() {
                // Render the unit after all; nothing of it may stay behind: a link left in place
                // would have the new bytes written through it into the previous directory.
                for l in linked {
                    if let Err(e) = fs::remove_file(&l) {
                        lock(&self.error).get_or_insert(
                            anyhow::Error::new(e).context(format!("removing `{}`", l.display())),
                        );
                    }
                }
                return false;
            }
            linked.push(to);
        }
        self.unchanged.fetch_add(entries.len(), Ordering::Relaxed);
        for _ in &entries {
            (self.on_file)();
        }
        lock(&self.entries).extend(entries);
        lock(&self.memo).units.insert(unit.to_string(), old.clone());
        true
    }

    fn record(&self, unit: &str, inputs: &[u8; 32], paths: Vec<String>) {
        lock(&self.memo).units.insert(
            unit.to_string(),
            Unit {
                inputs: memo::hex(inputs),
                files: paths,
            },
        );
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
        // The three files and their manifest.
        assert_eq!((s.written, s.unchanged), (4, 0));
        // Someone edits a file in place: the rebuild must not carry the edit over.
        fs::write(out.join("a/y.txt"), "y-edited").unwrap();
        let second = vec![
            OutputFile::new("a/x.txt", "x1"),
            OutputFile::new("a/y.txt", "y1"),
            OutputFile::new("b/z.txt", "z1"),
        ];
        let s = write_atomically(&out, &second, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (3, 1));
        let mut want: Vec<(String, Vec<u8>)> = second
            .iter()
            .map(|f| (f.path.clone(), f.bytes.clone()))
            .collect();
        want.push((
            "manifest.json".into(),
            railyard::artifacts::manifest_of(second.iter().map(ManifestEntry::of).collect()).bytes,
        ));
        want.sort();
        assert_eq!(read_all(&out), want);
        // No sibling left behind.
        let names: Vec<String> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out"]);
    }

    #[test]
    fn a_failing_producer_leaves_the_previous_output_as_it_was() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        write_atomically(&out, &[OutputFile::new("a.txt", "old")], &|| {}).unwrap();
        let before = read_all(&out);
        let r = write_streaming(
            &out,
            |sink, _| {
                sink(OutputFile::new("a.txt", "new"));
                sink(OutputFile::new("b/c.txt", "half"));
                anyhow::bail!("the renderer failed")
            },
            &|| {},
        );
        assert!(r.unwrap_err().to_string().contains("the renderer failed"));
        assert_eq!(read_all(&out), before);
        assert_eq!(
            fs::read_dir(root.path()).unwrap().count(),
            1,
            "no sibling left"
        );
    }
}
