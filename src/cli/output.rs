//! Atomic, incremental output. A first build writes everything into a temporary sibling
//! directory, which then replaces the output directory. A rebuild over an output directory this
//! writer made (its memo, `memo.rs`, says what every file was and what it was rendered from)
//! stages only the files whose bytes changed, then moves them in as one transaction
//! (`commit.rs`), with the files this build no longer produces moved out. Either way a failed
//! run leaves the previous outputs as they were.
//!
//! Nothing of the previous build is read back: a file is unchanged when the SHA-256 of its new
//! bytes (taken for the manifest anyway) equals the previous manifest's and the file still has
//! the stamp the memo recorded. Switch configs, label sheets and the workbook whose inputs did
//! not change are not even rendered: the writer is the build's [`railyard::output::Memo`]. Files are
//! written as they are rendered, by the rendering threads, and dropped once written: the output
//! is never all in memory at once. Each directory is created once.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::Context;

use railyard::output::digest::{hex, sha256_hex};
use railyard::output::{Manifest, ManifestEntry, Memo, OutputFile, Sink};

use super::commit::{self, Moves};
pub use super::memo::Previous;
use super::memo::{self, MemoFile, Stamp, Unit};
use railyard::output::manifest::PATH as MANIFEST;

fn sibling(dir: &Path, tag: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    dir.with_file_name(format!(".{name}.{tag}-{}", std::process::id()))
}

/// Removes what killed runs left beside `dir`: stage and trash directories of processes that
/// no longer run (a running build's are its own).
fn sweep(dir: &Path) {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let name = name.to_string_lossy();
    // Whether a process runs is asked of /proc; without it nothing is removed.
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    if !Path::new("/proc/self").exists() {
        return;
    }
    for e in entries.flatten() {
        let file = e.file_name();
        let file = file.to_string_lossy();
        let pid = ["tmp", "old"].iter().find_map(|tag| {
            file.strip_prefix(&format!(".{name}.{tag}-"))
                .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        });
        if let Some(pid) = pid
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// What a write did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Files whose bytes were written (new or changed).
    pub written: usize,
    /// Files left as the previous build wrote them.
    pub unchanged: usize,
}

/// Write the files `produce` hands to its sink as the new content of `dir`, each one as it comes
/// (the bytes are dropped once written; the SHA-256 for `manifest.json` is taken on the way), then
/// the manifest, then the commit. A producer error, or the first write error, leaves `dir` as it
/// was. Calls `on_file` after each file.
pub fn write_streaming(
    dir: &Path,
    produce: impl FnOnce(&Sink<'_>, &dyn Memo) -> anyhow::Result<()>,
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    write_over(dir, previous(dir), produce, on_file)
}

/// What a build over `dir` can update in place (see [`Previous::scan`]); scanned by
/// `railyard build` while the spec compiles.
pub fn previous(dir: &Path) -> Option<Previous> {
    // A symbolic link is replaced as a whole, as before incremental builds: its target may be
    // on another file system, where the stage's files could not be renamed.
    fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir())
        .then(|| Previous::scan(dir))
        .flatten()
}

/// [`write_streaming`] over a previous output scanned beforehand.
pub fn write_over(
    dir: &Path,
    before: Option<Previous>,
    produce: impl FnOnce(&Sink<'_>, &dyn Memo) -> anyhow::Result<()>,
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    sweep(dir);
    let stage = sibling(dir, "tmp");
    let _ = fs::remove_dir_all(&stage);
    fs::create_dir_all(&stage).with_context(|| format!("creating `{}`", stage.display()))?;
    let w = Writer {
        stage: &stage,
        before,
        memo: Mutex::new(MemoFile::default()),
        dirs: Mutex::new(BTreeSet::new()),
        staged: Mutex::new(Vec::new()),
        entries: Mutex::new(Vec::new()),
        unchanged: AtomicUsize::new(0),
        error: Mutex::new(None),
        on_file,
    };
    let produced = produce(&|f| w.put(&f), &w);
    let result = produced.and_then(|()| w.finish(dir));
    let _ = fs::remove_dir_all(&stage);
    result
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

/// The writing side of [`write_streaming`], shared by the producer's threads.
struct Writer<'a> {
    stage: &'a Path,
    /// The previous build, when this one can update it in place.
    before: Option<Previous>,
    /// This build's memo: every unit rendered or carried over, every file's stamp.
    memo: Mutex<MemoFile>,
    /// Directories already created under `stage`.
    dirs: Mutex<BTreeSet<PathBuf>>,
    /// Files written under `stage`, in the order they were written.
    staged: Mutex<Vec<String>>,
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
        let kept = self
            .before
            .as_ref()
            .and_then(|b| b.kept.get(&f.path))
            .filter(|k| k.sha256 == entry.sha256 && k.bytes == entry.bytes);
        let stamp = match kept {
            Some(k) => {
                self.unchanged.fetch_add(1, Ordering::Relaxed);
                Ok(k.stamp)
            }
            None => self.stage_file(f),
        };
        match stamp {
            Ok(stamp) => {
                lock(&self.memo).files.insert(f.path.clone(), stamp);
                lock(&self.entries).push(entry);
                (self.on_file)();
            }
            Err(e) => {
                lock(&self.error).get_or_insert(e);
            }
        }
    }

    /// Writes one file under the stage directory. Paths come from device names, which the
    /// checks restrict to safe characters.
    fn stage_file(&self, f: &OutputFile) -> anyhow::Result<Stamp> {
        let path = self.stage.join(&f.path);
        self.parent_of(&f.path)?;
        let mut file =
            fs::File::create(&path).with_context(|| format!("writing `{}`", path.display()))?;
        file.write_all(&f.bytes)
            .with_context(|| format!("writing `{}`", path.display()))?;
        let stamp = Stamp::of(&file.metadata()?);
        lock(&self.staged).push(f.path.clone());
        Ok(stamp)
    }

    /// Creates the directory of `rel` under the stage directory, once.
    fn parent_of(&self, rel: &str) -> anyhow::Result<()> {
        if let Some(parent) = Path::new(rel)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            && !lock(&self.dirs).contains(parent)
        {
            let p = self.stage.join(parent);
            fs::create_dir_all(&p).with_context(|| format!("creating `{}`", p.display()))?;
            lock(&self.dirs).insert(parent.to_path_buf());
        }
        Ok(())
    }

    /// Writes the manifest over every file received and the memo beside it, then makes the stage
    /// the content of `dir`: moved in file by file over a previous build, else renamed whole.
    fn finish(self, dir: &Path) -> anyhow::Result<WriteStats> {
        let entries = std::mem::take(&mut *lock(&self.entries));
        let files = entries.len() + 1;
        let manifest = Manifest::of(entries).to_file();
        lock(&self.memo).manifest = sha256_hex(&manifest.bytes);
        self.put(&manifest);
        if let Some(e) = lock(&self.error).take() {
            return Err(e);
        }
        let mut memo = std::mem::take(&mut *lock(&self.memo));
        let bytes = memo.seal().context("the build memo")?;
        let path = self.stage.join(memo::FILE);
        fs::write(&path, bytes).with_context(|| format!("writing `{}`", path.display()))?;
        let mut staged = std::mem::take(&mut *lock(&self.staged));
        let written = staged.len();
        staged.push(memo::FILE.to_string());
        match &self.before {
            Some(before) => {
                let trash = sibling(dir, "old");
                let _ = fs::remove_dir_all(&trash);
                let removed: Vec<String> = before
                    .files
                    .iter()
                    .filter(|p| !memo.files.contains_key(*p))
                    .cloned()
                    .collect();
                commit::commit(&Moves {
                    dir,
                    stage: self.stage,
                    trash: &trash,
                    staged: &staged,
                    removed: &removed,
                    dirs: &before.dirs,
                })?;
                let produced: BTreeSet<String> = memo.files.into_keys().collect();
                commit::prune(dir, &before.dirs, &produced);
                let _ = fs::remove_dir_all(&trash);
            }
            None => swap(dir, self.stage)?,
        }
        Ok(WriteStats {
            written,
            unchanged: files - written,
        })
    }
}

/// Replaces `dir` (if any) by `stage` with two renames.
fn swap(dir: &Path, stage: &Path) -> anyhow::Result<()> {
    let old = sibling(dir, "old");
    if dir.exists() {
        fs::rename(dir, &old).with_context(|| format!("moving aside `{}`", dir.display()))?;
    }
    if let Err(e) = fs::rename(stage, dir) {
        let _ = fs::rename(&old, dir);
        return Err(e).context("replacing the output directory");
    }
    let _ = fs::remove_dir_all(&old);
    Ok(())
}

impl Memo for Writer<'_> {
    /// A unit is carried over when the previous build rendered it from the same inputs and every
    /// one of its files is still as it was written; nothing is read or written for it.
    fn reuse(&self, unit: &str, inputs: &[u8; 32]) -> bool {
        if lock(&self.error).is_some() {
            return false;
        }
        let Some(before) = &self.before else {
            return false;
        };
        let inputs = hex(inputs);
        let Some(old) = before.units.get(unit).filter(|u| u.inputs == inputs) else {
            return false;
        };
        let Some(kept): Option<Vec<_>> = old
            .files
            .iter()
            .map(|p| before.kept.get(p).map(|k| (p, k)))
            .collect()
        else {
            return false;
        };
        self.unchanged.fetch_add(kept.len(), Ordering::Relaxed);
        {
            let mut memo = lock(&self.memo);
            let mut entries = lock(&self.entries);
            for &(path, k) in &kept {
                memo.files.insert(path.clone(), k.stamp);
                entries.push(ManifestEntry {
                    path: path.clone(),
                    sha256: k.sha256.clone(),
                    bytes: k.bytes,
                });
            }
            memo.units.insert(unit.to_string(), old.clone());
        }
        kept.iter().for_each(|_| (self.on_file)());
        true
    }

    fn record(&self, unit: &str, inputs: &[u8; 32], paths: Vec<String>) {
        lock(&self.memo).units.insert(
            unit.to_string(),
            Unit {
                inputs: hex(inputs),
                files: paths,
            },
        );
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
    use railyard::output::OutputGroup;

    /// Every file under `dir` but the memo, relative path → bytes.
    fn read_all(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if !p.ends_with(memo::FILE) {
                    let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                    out.push((rel, fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    fn with_manifest(files: &[OutputFile]) -> Vec<(String, Vec<u8>)> {
        let mut want: Vec<(String, Vec<u8>)> = files
            .iter()
            .map(|f| (f.path.clone(), f.bytes.clone()))
            .collect();
        want.push((
            MANIFEST.into(),
            Manifest::of(files.iter().map(ManifestEntry::of).collect())
                .to_file()
                .bytes,
        ));
        want.sort();
        want
    }

    fn siblings(root: &Path) -> Vec<String> {
        fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_rebuild_writes_only_what_changed_and_drops_what_is_gone() {
        use std::os::unix::fs::MetadataExt;
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let first = vec![
            OutputFile::new(OutputGroup::Plan, "a/x.txt", "x1"),
            OutputFile::new(OutputGroup::Plan, "a/y.txt", "y1"),
            OutputFile::new(OutputGroup::Plan, "k/keep.txt", "k"),
            OutputFile::new(OutputGroup::Plan, "gone/deep/gone.txt", "bye"),
        ];
        let s = write_atomically(&out, &first, &|| {}).unwrap();
        // The four files and their manifest.
        assert_eq!((s.written, s.unchanged), (5, 0));
        let inode = |p: &str| fs::metadata(out.join(p)).unwrap().ino();
        let kept = inode("k/keep.txt");
        // Someone edits a file in place, to the same length, and leaves a file of their own:
        // the rebuild must not carry either over.
        fs::write(out.join("a/y.txt"), "y2").unwrap();
        fs::write(out.join("a/notes.txt"), "mine").unwrap();
        let second = vec![
            OutputFile::new(OutputGroup::Plan, "a/x.txt", "x1"),
            OutputFile::new(OutputGroup::Plan, "a/y.txt", "y1"),
            OutputFile::new(OutputGroup::Plan, "k/keep.txt", "k"),
            OutputFile::new(OutputGroup::Plan, "b/z.txt", "z1"),
        ];
        let s = write_atomically(&out, &second, &|| {}).unwrap();
        // y restored, z new, the manifest changed; x and keep untouched.
        assert_eq!((s.written, s.unchanged), (3, 2));
        assert_eq!(read_all(&out), with_manifest(&second));
        assert_eq!(
            inode("k/keep.txt"),
            kept,
            "an unchanged file is left in place"
        );
        assert!(!out.join("gone").exists(), "emptied directories go too");
        assert_eq!(siblings(root.path()), ["out"], "no sibling left behind");
        // Nothing changed: nothing written.
        let s = write_atomically(&out, &second, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (0, 5));
    }

    /// A manifest or memo changed since (edited, restored from another build) is not trusted:
    /// everything is written again. A directory where a file now goes is moved aside with what
    /// it held; what killed runs left beside the output is swept.
    #[test]
    fn a_rebuild_trusts_only_its_own_bookkeeping() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let files = [
            OutputFile::new(OutputGroup::Plan, "a.txt", "a"),
            OutputFile::new(OutputGroup::Plan, "b/c.txt", "c"),
        ];
        write_atomically(&out, &files, &|| {}).unwrap();
        let manifest = out.join(MANIFEST);
        let mut text = fs::read(&manifest).unwrap();
        text.push(b'\n');
        fs::write(&manifest, &text).unwrap();
        let s = write_atomically(&out, &files, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (3, 0), "edited manifest");
        let memo_path = out.join(memo::FILE);
        let mut memo: serde_json::Value =
            serde_json::from_slice(&fs::read(&memo_path).unwrap()).unwrap();
        memo["units"]["b"] = serde_json::json!({"inputs": "00", "files": ["b/c.txt"]});
        fs::write(&memo_path, serde_json::to_vec(&memo).unwrap()).unwrap();
        let s = write_atomically(&out, &files, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (3, 0), "edited memo");
        let s = write_atomically(&out, &files, &|| {}).unwrap();
        assert_eq!((s.written, s.unchanged), (0, 3), "its own bookkeeping");

        fs::create_dir_all(out.join("x/deep")).unwrap();
        fs::write(out.join("x/deep/mine.txt"), "foreign").unwrap();
        let stale = root.path().join(".out.tmp-4294967295");
        fs::create_dir_all(stale.join("half")).unwrap();
        let more = [
            files[0].clone(),
            files[1].clone(),
            OutputFile::new(OutputGroup::Plan, "x", "now a file"),
        ];
        write_atomically(&out, &more, &|| {}).unwrap();
        assert_eq!(read_all(&out), with_manifest(&more));
        assert_eq!(siblings(root.path()), ["out"], "stale stage swept");
    }

    #[test]
    fn a_failing_producer_leaves_the_previous_output_as_it_was() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        write_atomically(
            &out,
            &[OutputFile::new(OutputGroup::Plan, "a.txt", "old")],
            &|| {},
        )
        .unwrap();
        let before = read_all(&out);
        let r = write_streaming(
            &out,
            |sink, _| {
                sink(OutputFile::new(OutputGroup::Plan, "a.txt", "new"));
                sink(OutputFile::new(OutputGroup::Plan, "b/c.txt", "half"));
                anyhow::bail!("the renderer failed")
            },
            &|| {},
        );
        assert!(r.unwrap_err().to_string().contains("the renderer failed"));
        assert_eq!(read_all(&out), before);
        assert_eq!(siblings(root.path()), ["out"], "no sibling left");
    }
}
