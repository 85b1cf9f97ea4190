//! The write itself: a build's files staged beside the output directory, then moved in as one
//! transaction (`commit.rs`), or renamed into place when the directory is new.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, bail};

use railyard::output::digest::{hex, sha256_hex};
use railyard::output::{Manifest, ManifestEntry, Memo, OutputFile, Sink, path};

use super::commit::{self, Moves};
use super::destination::{self, State};
use super::memo::{self, MemoFile, Previous, Stamp, Unit};
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
        // Only railyard's own directories by that name (a link is not followed).
        if let Some(pid) = pid
            && e.file_type().is_ok_and(|t| t.is_dir())
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
    /// Files of groups this build did not write (`--only`), kept as they were.
    pub carried: usize,
}

/// How the staged build becomes the output directory.
enum Plan {
    /// Nothing is there: the stage is renamed to it.
    Create,
    /// An empty directory or a previous build: the staged files move in.
    Update,
    /// Someone else's directory: renamed to a new name beside it, then the stage renamed.
    MoveAside,
}

/// An output directory ready to be written: where, how, and what a rebuild may keep, replace
/// or remove.
pub struct Target {
    dir: PathBuf,
    plan: Plan,
    before: Previous,
    /// A build of some groups only (`--only`): the previous build's other files stay, listed in
    /// the new manifest as they were, instead of being removed.
    carry_over: bool,
    /// The SHA-256 of the spec the build is made from, for its manifest.
    spec_sha256: Option<String>,
}

impl Target {
    /// Keep the previous build's files this build does not write (it writes some groups only).
    pub fn carrying_over(mut self) -> Self {
        self.carry_over = true;
        self
    }

    /// Record in the manifest the SHA-256 of the spec this build is made from.
    pub fn built_from(mut self, spec_sha256: String) -> Self {
        self.spec_sha256 = Some(spec_sha256);
        self
    }
}

/// The output directory `output` names, if railyard may write there (refused with the reason
/// otherwise: `destination.rs`), with what a build over it can update in place (see
/// [`Previous::scan`]); found out by `railyard build` while the spec compiles.
pub fn target(output: &Path, move_aside: bool) -> anyhow::Result<Target> {
    let dest = destination::open(output, move_aside)?;
    let (plan, before) = match &dest.state {
        State::Absent => (Plan::Create, Previous::default()),
        State::Empty => (Plan::Update, Previous::default()),
        State::Foreign => (Plan::MoveAside, Previous::default()),
        State::Built { manifest, sha256 } => {
            (Plan::Update, Previous::scan(&dest.dir, manifest, sha256)?)
        }
    };
    Ok(Target {
        dir: dest.dir,
        plan,
        before,
        carry_over: false,
        spec_sha256: None,
    })
}

/// Write the files `produce` hands to its sink as the new content of `output` (`move_aside`:
/// rename someone else's directory there aside first), each one as it comes (the bytes are
/// dropped once written; the SHA-256 for `manifest.json` is taken on the way), then the
/// manifest, then the commit. A producer error, or the first write error, leaves `output` as
/// it was. Calls `on_file` after each file.
pub fn write_streaming(
    output: &Path,
    move_aside: bool,
    produce: impl FnOnce(&Sink<'_>, &dyn Memo) -> anyhow::Result<()>,
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    write_over(target(output, move_aside)?, produce, on_file)
}

/// [`write_streaming`] into a target scanned beforehand.
pub fn write_over(
    target: Target,
    produce: impl FnOnce(&Sink<'_>, &dyn Memo) -> anyhow::Result<()>,
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    let dir = &target.dir;
    let parent = dir.parent().context("the output directory has no parent")?;
    fs::create_dir_all(parent).with_context(|| format!("creating `{}`", parent.display()))?;
    sweep(dir);
    let stage = sibling(dir, "tmp");
    let _ = fs::remove_dir_all(&stage);
    fs::create_dir(&stage).with_context(|| format!("creating `{}`", stage.display()))?;
    let w = Writer {
        stage: &stage,
        before: &target.before,
        carry_over: target.carry_over,
        spec_sha256: target.spec_sha256.clone(),
        carried: Mutex::new(BTreeSet::new()),
        memo: Mutex::new(MemoFile::default()),
        dirs: Mutex::new(BTreeSet::new()),
        staged: Mutex::new(Vec::new()),
        entries: Mutex::new(Vec::new()),
        unchanged: AtomicUsize::new(0),
        error: Mutex::new(None),
        on_file,
    };
    let produced = produce(&|f| w.put(&f), &w);
    let result = produced.and_then(|()| w.finish(dir, &target.plan));
    let _ = fs::remove_dir_all(&stage);
    result
}

/// Write `files` (paths relative to `output`, their `manifest.json` among them or not) as the
/// new content of `output`; the manifest is written afresh over them.
pub fn write_atomically(
    output: &Path,
    move_aside: bool,
    files: &[OutputFile],
    on_file: &(dyn Fn() + Sync),
) -> anyhow::Result<WriteStats> {
    write_streaming(
        output,
        move_aside,
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
    /// The previous build (empty when there is none).
    before: &'a Previous,
    /// Keep the previous build's files this one does not write ([`Target::carrying_over`]).
    carry_over: bool,
    /// The spec's SHA-256 for the manifest ([`Target::built_from`]).
    spec_sha256: Option<String>,
    /// Those files, once known.
    carried: Mutex<BTreeSet<String>>,
    /// This build's memo: every unit rendered or carried over, every file's stamp.
    memo: Mutex<MemoFile>,
    /// Directories already created under `stage`.
    dirs: Mutex<BTreeSet<String>>,
    /// Files written under `stage`, in the order they were written.
    staged: Mutex<Vec<String>>,
    entries: Mutex<Vec<ManifestEntry>>,
    unchanged: AtomicUsize,
    /// The first failure; later files are dropped.
    error: Mutex<Option<anyhow::Error>>,
    on_file: &'a (dyn Fn() + Sync),
}

impl Writer<'_> {
    /// A producer's file: its path must be plain components and not one of the writer's own.
    fn put(&self, f: &OutputFile) {
        let refused = match path::check(&f.path) {
            Err(why) => Some(why.to_string()),
            Ok(()) if f.path == MANIFEST || f.path == memo::FILE => {
                Some("the writer's own bookkeeping has that name".to_string())
            }
            Ok(()) => None,
        };
        match refused {
            Some(why) => {
                let e = anyhow::anyhow!(
                    "output path {} is refused: {why}; the output directory is left as it was",
                    path::shown(&f.path)
                );
                lock(&self.error).get_or_insert(e);
            }
            None => self.accept(f),
        }
    }

    fn accept(&self, f: &OutputFile) {
        if lock(&self.error).is_some() {
            return;
        }
        let entry = ManifestEntry::of(f);
        let kept = self
            .before
            .kept
            .get(&f.path)
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

    /// Writes one file under the stage directory, as a new file: a path produced twice is an
    /// error, and nothing there is ever followed or overwritten.
    fn stage_file(&self, f: &OutputFile) -> anyhow::Result<Stamp> {
        let path = path::join(self.stage, &f.path)?;
        self.parent_of(&f.path)?;
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("writing {}", path::shown(&f.path)))?;
        file.write_all(&f.bytes)
            .with_context(|| format!("writing `{}`", path.display()))?;
        let stamp = Stamp::of(&file.metadata()?);
        lock(&self.staged).push(f.path.clone());
        Ok(stamp)
    }

    /// Creates the directory of `rel` under the stage directory, once.
    fn parent_of(&self, rel: &str) -> anyhow::Result<()> {
        if let Some(parent) = path::ancestors(rel).last()
            && !lock(&self.dirs).contains(parent)
        {
            let p = path::join(self.stage, parent)?;
            fs::create_dir_all(&p).with_context(|| format!("creating `{}`", p.display()))?;
            lock(&self.dirs).insert(parent.to_string());
        }
        Ok(())
    }

    /// Writes the manifest over every file received and the memo beside it, then makes the stage
    /// the content of `dir` as `plan` says.
    fn finish(self, dir: &Path, plan: &Plan) -> anyhow::Result<WriteStats> {
        if self.carry_over {
            self.carry();
        }
        let carried = lock(&self.carried).len();
        let entries = std::mem::take(&mut *lock(&self.entries));
        let files = entries.len() + 1;
        let manifest = Manifest::of(entries)
            .built_from(self.spec_sha256.clone())
            .to_file();
        lock(&self.memo).manifest = sha256_hex(&manifest.bytes);
        self.accept(&manifest);
        if let Some(e) = lock(&self.error).take() {
            return Err(e);
        }
        let mut memo = std::mem::take(&mut *lock(&self.memo));
        let bytes = memo.seal().context("the build memo")?;
        let path = self.stage.join(memo::FILE);
        fs::write(&path, bytes).with_context(|| format!("writing `{}`", path.display()))?;
        let mut staged = std::mem::take(&mut *lock(&self.staged));
        let written = staged.len();
        // The manifest first: from then on it lists every file moved in (a killed commit
        // leaves nothing railyard wrote unlisted); the memo last.
        if let Some(i) = staged.iter().position(|p| p == MANIFEST) {
            staged[..=i].rotate_right(1);
        }
        staged.push(memo::FILE.to_string());
        match plan {
            Plan::Update => self.update(dir, &staged, memo)?,
            Plan::Create => create(dir, self.stage)?,
            Plan::MoveAside => {
                let aside = destination::move_aside(dir)?;
                eprintln!(
                    "moved `{}` aside to `{}` (it was not railyard's; nothing in it was deleted)",
                    dir.display(),
                    aside.display()
                );
                if let Err(e) = create(dir, self.stage) {
                    let _ = fs::rename(&aside, dir);
                    return Err(e);
                }
            }
        }
        Ok(WriteStats {
            written,
            unchanged: files - written - carried,
            carried,
        })
    }

    /// The previous build's files this one did not write, kept in place and listed in the new
    /// manifest as the previous one listed them (a later full build compares them as usual).
    fn carry(&self) {
        let mut memo = lock(&self.memo);
        let mut entries = lock(&self.entries);
        let mut carried = lock(&self.carried);
        for (path, e) in &self.before.entries {
            if memo.files.contains_key(path) || path == memo::FILE {
                continue;
            }
            if let Some(k) = self.before.kept.get(path) {
                memo.files.insert(path.clone(), k.stamp);
            }
            entries.push(e.clone());
            carried.insert(path.clone());
        }
    }

    /// Moves the staged files into `dir` and the previous build's files this one does not
    /// produce out, then removes the previous build's directories left empty.
    fn update(&self, dir: &Path, staged: &[String], memo: MemoFile) -> anyhow::Result<()> {
        let before = self.before;
        let trash = sibling(dir, "old");
        let _ = fs::remove_dir_all(&trash);
        let carried = lock(&self.carried);
        let removed: Vec<String> = before
            .listed
            .iter()
            .filter(|p| *p != memo::FILE && !memo.files.contains_key(*p) && !carried.contains(*p))
            .cloned()
            .collect();
        drop(carried);
        commit::commit(&Moves {
            dir,
            stage: self.stage,
            trash: &trash,
            staged,
            removed: &removed,
            listed: &before.listed,
            dirs: &before.dirs,
        })?;
        let produced: BTreeSet<String> = memo.files.into_keys().collect();
        commit::prune(dir, &before.dirs, &produced);
        let _ = fs::remove_dir_all(&trash);
        Ok(())
    }
}

/// Makes `stage` the new directory `dir`: one rename, which fails rather than replace anything
/// that appeared there since (only an empty directory can be renamed over).
fn create(dir: &Path, stage: &Path) -> anyhow::Result<()> {
    if fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
        bail!("`{}` appeared during the build", dir.display());
    }
    fs::rename(stage, dir).with_context(|| format!("moving the new output to `{}`", dir.display()))
}

impl Memo for Writer<'_> {
    /// A unit is carried over when the previous build rendered it from the same inputs and every
    /// one of its files is still as it was written; nothing is read or written for it.
    fn reuse(&self, unit: &str, inputs: &[u8; 32]) -> bool {
        if lock(&self.error).is_some() {
            return false;
        }
        let before = self.before;
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

    fn plan(path: &str, text: &str) -> OutputFile {
        OutputFile::new(OutputGroup::Plan, path, text)
    }

    fn write(out: &Path, files: &[OutputFile]) -> anyhow::Result<WriteStats> {
        write_atomically(out, false, files, &|| {})
    }

    /// `read_all` of the build's files plus the user's `mine`.
    fn with_mine(files: &[OutputFile], mine: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        let mut want = with_manifest(files);
        want.extend(
            mine.iter()
                .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())),
        );
        want.sort();
        want
    }

    #[test]
    fn a_rebuild_writes_only_what_changed_and_drops_only_its_own_files() {
        use std::os::unix::fs::MetadataExt;
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let first = vec![
            plan("a/x.txt", "x1"),
            plan("a/y.txt", "y1"),
            plan("k/keep.txt", "k"),
            plan("gone/deep/gone.txt", "bye"),
            plan("held/h.txt", "h"),
        ];
        let s = write(&out, &first).unwrap();
        // The five files and their manifest.
        assert_eq!((s.written, s.unchanged), (6, 0));
        let inode = |p: &str| fs::metadata(out.join(p)).unwrap().ino();
        let kept = inode("k/keep.txt");
        // Someone edits a file in place, to the same length, and leaves files of their own, one
        // in a directory the next build no longer needs: the rebuild restores the edited file
        // and leaves theirs (and that directory) where they are.
        fs::write(out.join("a/y.txt"), "y2").unwrap();
        let mine = [
            ("a/notes.txt", "mine"),
            ("held/mine.txt", "also mine"),
            ("top.txt", "mine too"),
        ];
        for (p, text) in mine {
            fs::write(out.join(p), text).unwrap();
        }
        let second = vec![
            plan("a/x.txt", "x1"),
            plan("a/y.txt", "y1"),
            plan("k/keep.txt", "k"),
            plan("b/z.txt", "z1"),
        ];
        let s = write(&out, &second).unwrap();
        // y restored, z new, the manifest changed; x and keep untouched.
        assert_eq!((s.written, s.unchanged), (3, 2));
        assert_eq!(read_all(&out), with_mine(&second, &mine));
        assert_eq!(
            inode("k/keep.txt"),
            kept,
            "an unchanged file is left in place"
        );
        assert!(!out.join("gone").exists(), "emptied directories go too");
        assert_eq!(siblings(root.path()), ["out"], "no sibling left behind");
        // Nothing changed: nothing written.
        let s = write(&out, &second).unwrap();
        assert_eq!((s.written, s.unchanged), (0, 5));
    }

    /// A manifest or memo changed since (edited, restored from another build) is not trusted:
    /// everything is written again; without a memo at all the manifest still says what is
    /// railyard's. What killed runs left beside the output is swept.
    #[test]
    fn a_rebuild_trusts_only_its_own_bookkeeping() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let files = [plan("a.txt", "a"), plan("b/c.txt", "c")];
        write(&out, &files).unwrap();
        let manifest = out.join(MANIFEST);
        let mut text = fs::read(&manifest).unwrap();
        text.push(b'\n');
        fs::write(&manifest, &text).unwrap();
        let s = write(&out, &files).unwrap();
        assert_eq!((s.written, s.unchanged), (3, 0), "edited manifest");
        let memo_path = out.join(memo::FILE);
        let mut memo: serde_json::Value =
            serde_json::from_slice(&fs::read(&memo_path).unwrap()).unwrap();
        memo["units"]["b"] = serde_json::json!({"inputs": "00", "files": ["b/c.txt"]});
        fs::write(&memo_path, serde_json::to_vec(&memo).unwrap()).unwrap();
        let s = write(&out, &files).unwrap();
        assert_eq!((s.written, s.unchanged), (3, 0), "edited memo");
        let s = write(&out, &files).unwrap();
        assert_eq!((s.written, s.unchanged), (0, 3), "its own bookkeeping");

        fs::remove_file(&memo_path).unwrap();
        fs::write(out.join("b/mine.txt"), "mine").unwrap();
        let fewer = [plan("a.txt", "a2")];
        let s = write(&out, &fewer).unwrap();
        assert_eq!((s.written, s.unchanged), (2, 0), "no memo");
        assert_eq!(read_all(&out), with_mine(&fewer, &[("b/mine.txt", "mine")]));

        let stale = root.path().join(".out.tmp-4294967295");
        fs::create_dir_all(stale.join("half")).unwrap();
        write(&out, &fewer).unwrap();
        assert_eq!(siblings(root.path()), ["out"], "stale stage swept");
    }

    /// A directory of the previous build where a file goes now is removed when it holds only
    /// the previous build's files; one holding a user's file refuses the build, which then
    /// changes nothing.
    #[test]
    fn a_directory_in_the_way_goes_only_if_it_was_all_railyards() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        write(&out, &[plan("x/deep/a.txt", "a"), plan("y/b.txt", "b")]).unwrap();
        fs::write(out.join("y/mine.txt"), "mine").unwrap();
        let before = read_all(&out);
        let e = write(&out, &[plan("x", "a file"), plan("y", "a file")]).unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.contains("holds `mine.txt`, which railyard did not write"),
            "{e}"
        );
        assert_eq!(read_all(&out), before);
        assert_eq!(siblings(root.path()), ["out"]);

        let files = [plan("x", "a file"), plan("y/b.txt", "b")];
        write(&out, &files).unwrap();
        assert_eq!(read_all(&out), with_mine(&files, &[("y/mine.txt", "mine")]));
    }

    /// A file of the user's where this build writes, or a link on the way, refuses the build
    /// before anything moves; a link elsewhere is left alone.
    #[test]
    fn what_railyard_did_not_write_is_never_replaced_or_followed() {
        let root = tempfile::tempdir().unwrap();
        let (out, elsewhere) = (root.path().join("out"), root.path().join("elsewhere"));
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("c.txt"), "theirs").unwrap();
        write(&out, &[plan("a.txt", "a"), plan("b/c.txt", "c")]).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("link")).unwrap();
        write(&out, &[plan("a.txt", "a2")]).unwrap();
        assert!(
            out.join("link").is_symlink(),
            "a link railyard does not write to"
        );

        fs::write(out.join("new.txt"), "mine").unwrap();
        let e = format!("{:#}", write(&out, &[plan("new.txt", "n")]).unwrap_err());
        assert!(e.contains("new.txt` is not railyard's"), "{e}");
        assert_eq!(fs::read(out.join("new.txt")).unwrap(), b"mine");

        let e = format!("{:#}", write(&out, &[plan("link/c.txt", "c")]).unwrap_err());
        assert!(e.contains("link` is a symbolic link"), "{e}");
        // The previous build's directory replaced by a link: neither written nor emptied.
        write(&out, &[plan("a.txt", "a"), plan("b/c.txt", "c")]).unwrap();
        fs::remove_dir_all(out.join("b")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("b")).unwrap();
        for files in [&[plan("a.txt", "a")][..], &[plan("b/c.txt", "c2")]] {
            let e = format!("{:#}", write(&out, files).unwrap_err());
            assert!(e.contains("b` is a symbolic link"), "{e}");
        }
        assert_eq!(fs::read(elsewhere.join("c.txt")).unwrap(), b"theirs");
    }

    /// An output path that is not plain components fails the build before anything is written
    /// anywhere; the output directory is as it was.
    #[test]
    fn an_output_path_leaving_the_directory_fails_the_build() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("a/out");
        write(&out, &[plan("x.txt", "x")]).unwrap();
        let before = read_all(&out);
        for bad in [
            "../../escaped.txt",
            "/tmp/escaped.txt",
            "a\nb",
            "",
            "manifest.json",
        ] {
            let produce = |sink: &Sink<'_>, _: &dyn Memo| {
                sink(plan("y.txt", "y"));
                sink(plan(bad, "evil"));
                Ok(())
            };
            let e = write_streaming(&out, false, produce, &|| {}).unwrap_err();
            let e = format!("{e:#}");
            assert!(e.contains(&format!("`{}`", bad.escape_debug())), "{e}");
            assert_eq!(read_all(&out), before, "{bad}");
        }
        assert!(!root.path().join("escaped.txt").exists());
        assert_eq!(siblings(root.path()), ["a"]);
    }

    /// A manifest listing a path outside the directory (an older railyard wrote such paths)
    /// does not make a rebuild remove it: only plain relative paths are the build's.
    #[test]
    fn a_manifest_path_outside_the_directory_is_never_removed() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        write(&out, &[plan("a.txt", "a")]).unwrap();
        fs::write(root.path().join("outside.txt"), "theirs").unwrap();
        let mut m = Manifest::parse(&fs::read(out.join(MANIFEST)).unwrap()).unwrap();
        for p in ["../outside.txt", "/etc/hostname"] {
            m.files.push(ManifestEntry::of(&plan(p, "x")));
        }
        let bytes = m.to_file().bytes;
        fs::write(out.join(MANIFEST), &bytes).unwrap();
        let before = Previous::scan(&out, &m, &sha256_hex(&bytes)).unwrap();
        let listed: Vec<&str> = before.listed.iter().map(String::as_str).collect();
        assert_eq!(listed, [memo::FILE, "a.txt", MANIFEST]);
        let files = [plan("b.txt", "b")];
        write(&out, &files).unwrap();
        assert_eq!(read_all(&out), with_manifest(&files));
        assert_eq!(
            fs::read(root.path().join("outside.txt")).unwrap(),
            b"theirs"
        );
    }

    /// An empty directory is written in place (the user's directory stays the same one); someone
    /// else's is moved aside only on request, and a failed build moves nothing.
    #[test]
    fn an_empty_directory_is_used_and_a_foreign_one_moved_aside_on_request() {
        use std::os::unix::fs::MetadataExt;
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        fs::create_dir(&out).unwrap();
        let inode = fs::metadata(&out).unwrap().ino();
        let files = [plan("a.txt", "a")];
        write(&out, &files).unwrap();
        assert_eq!(fs::metadata(&out).unwrap().ino(), inode);
        assert_eq!(read_all(&out), with_manifest(&files));

        let site = root.path().join("site");
        fs::create_dir(&site).unwrap();
        fs::write(site.join("cluster.yaml"), "spec").unwrap();
        assert!(write(&site, &files).is_err());
        let failed = write_streaming(&site, true, |_, _| anyhow::bail!("no"), &|| {});
        assert!(failed.is_err());
        assert_eq!(read_all(&site), [("cluster.yaml".into(), b"spec".to_vec())]);
        write_atomically(&site, true, &files, &|| {}).unwrap();
        assert_eq!(read_all(&site), with_manifest(&files));
        let aside = root.path().join("site.moved-aside");
        assert_eq!(
            read_all(&aside),
            [("cluster.yaml".into(), b"spec".to_vec())]
        );
    }

    #[test]
    fn a_failing_producer_leaves_the_previous_output_as_it_was() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        write(&out, &[plan("a.txt", "old")]).unwrap();
        let before = read_all(&out);
        let r = write_streaming(
            &out,
            false,
            |sink, _| {
                sink(plan("a.txt", "new"));
                sink(plan("b/c.txt", "half"));
                anyhow::bail!("the renderer failed")
            },
            &|| {},
        );
        assert!(r.unwrap_err().to_string().contains("the renderer failed"));
        assert_eq!(read_all(&out), before);
        assert_eq!(siblings(root.path()), ["out"], "no sibling left");
    }
}
