//! The last step of a build into an existing directory, as one transaction: the files staged
//! beside the output directory move into it, what the previous build left and this one did not
//! write moves out, and the memo goes last. Every step is a rename within one file system; each
//! is logged, and a failing step undoes the ones before it in reverse, so the directory is
//! either the new output or the previous one, never a mix (a killed process can leave a mix,
//! which the next build repairs: the manifest is moved in first, so it lists every file moved
//! in after it, and the memo last, so a half-done commit is never trusted).
//!
//! Only the previous build's files (those its manifest lists) are ever replaced or moved out,
//! and only directories that held nothing else are removed. Anything else where a staged file
//! goes (a user's file, a symbolic link, a special file), or a link on the way to it, refuses
//! the commit before anything moves: links are never followed, a user's file never replaced.

use std::collections::BTreeSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use railyard::output::path;

use railyard::output::bounded::file_kind;

enum Step {
    /// A file of the previous output moved aside into the trash.
    Aside { from: PathBuf, to: PathBuf },
    /// A staged file moved into the output directory.
    Placed { from: PathBuf, to: PathBuf },
    /// A directory created in the output directory.
    Created(PathBuf),
    /// An empty directory of the previous output removed (a file goes in its place).
    Removed(PathBuf),
}

/// What to move: paths relative to the output directory, all checked by [`path::check`].
pub struct Moves<'a> {
    pub dir: &'a Path,
    pub stage: &'a Path,
    /// Where replaced and removed files go until the commit is done (then it is deleted).
    pub trash: &'a Path,
    /// Staged files, in order: the manifest first, the memo last.
    pub staged: &'a [String],
    /// Files of the previous output that this build does not produce.
    pub removed: &'a [String],
    /// The previous output's files: the only ones that may be replaced or moved out.
    pub listed: &'a BTreeSet<String>,
    /// The directories they are in, parents first: the only ones that may be removed.
    pub dirs: &'a [String],
}

/// Applies the moves, or none of them: what is in the way is refused before the first move; on
/// a failure the steps taken are undone and the trash is deleted (kept, and named in the
/// error, only if a step could not be undone).
pub fn commit(m: &Moves<'_>) -> anyhow::Result<()> {
    preflight(m)?;
    let mut log = Vec::new();
    let Err(e) = apply(m, &mut log) else {
        return Ok(());
    };
    if undo(log) {
        let _ = fs::remove_dir_all(m.trash);
        Err(e)
    } else {
        Err(e.context(format!(
            "the previous output could not be restored completely; what is missing is in `{}`",
            m.trash.display()
        )))
    }
}

/// What `rel` is in `dir`, without following a link; `None` when nothing is there.
fn kind_of(dir: &Path, rel: &str) -> anyhow::Result<Option<fs::FileType>> {
    let full = path::join(dir, rel)?;
    match fs::symlink_metadata(&full) {
        Ok(m) => Ok(Some(m.file_type())),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading `{}`", full.display())),
    }
}

/// Refuses a commit that would write through a link or over anything railyard did not write.
fn preflight(m: &Moves<'_>) -> anyhow::Result<()> {
    let dirs: BTreeSet<&str> = m.dirs.iter().map(String::as_str).collect();
    let mut checked = BTreeSet::new();
    for rel in m.staged.iter().chain(m.removed) {
        for parent in path::ancestors(rel) {
            if !checked.insert(parent) {
                continue;
            }
            match kind_of(m.dir, parent)? {
                None => {}
                Some(t) if t.is_dir() => {}
                // A file of the previous build where a directory goes now: it is moved out first.
                Some(t) if t.is_file() && m.listed.contains(parent) => {}
                Some(t) => bail!(in_the_way(m.dir, parent, rel, t)),
            }
        }
    }
    for rel in m.staged {
        match kind_of(m.dir, rel)? {
            None => {}
            Some(t) if t.is_file() && m.listed.contains(rel.as_str()) => {}
            // Emptied and removed when the files are moved, if it held only the previous build's.
            Some(t) if t.is_dir() && dirs.contains(rel.as_str()) => {}
            Some(t) => bail!(in_the_way(m.dir, rel, rel, t)),
        }
    }
    Ok(())
}

/// Why `rel` (on the way to the staged `to`) stops the commit.
fn in_the_way(dir: &Path, rel: &str, to: &str, t: fs::FileType) -> String {
    let full = dir.join(rel);
    if t.is_file() || t.is_dir() {
        format!(
            "`{}` is not railyard's (the previous build's manifest does not list it), and this \
             build writes `{}` there; railyard does not replace what it did not write: move it \
             away, or name another directory with -o",
            full.display(),
            to.escape_debug()
        )
    } else {
        format!(
            "`{}` is {}: railyard does not follow links or replace special files in its output \
             directory (this build writes `{}` there); remove it, or name another directory \
             with -o",
            full.display(),
            file_kind(t),
            to.escape_debug()
        )
    }
}

fn apply(m: &Moves<'_>, log: &mut Vec<Step>) -> anyhow::Result<()> {
    let dirs: BTreeSet<&str> = m.dirs.iter().map(String::as_str).collect();
    let mut existing = BTreeSet::new();
    for d in m.dirs {
        existing.insert(path::join(m.dir, d)?);
    }
    let mut trash_dirs = BTreeSet::new();
    let mut aside = |rel: &str, log: &mut Vec<Step>| -> anyhow::Result<()> {
        let from = path::join(m.dir, rel)?;
        let to = path::join(m.trash, rel)?;
        if let Some(parent) = to.parent()
            && trash_dirs.insert(parent.to_path_buf())
        {
            fs::create_dir_all(parent)
                .with_context(|| format!("creating `{}`", parent.display()))?;
        }
        fs::rename(&from, &to).with_context(|| format!("moving aside `{}`", from.display()))?;
        log.push(Step::Aside { from, to });
        Ok(())
    };
    for rel in m.removed {
        // Deleted since the previous build: nothing to move.
        if kind_of(m.dir, rel)?.is_some() {
            aside(rel, log)?;
        }
    }
    for rel in m.staged {
        let to = path::join(m.dir, rel)?;
        match kind_of(m.dir, rel)? {
            Some(t) if t.is_dir() => remove_empty(m.dir, rel, &dirs, log)?,
            Some(_) => aside(rel, log)?,
            None => {}
        }
        if let Some(parent) = to.parent() {
            create_dirs(parent, m.dir, &mut existing, log)?;
        }
        let from = path::join(m.stage, rel)?;
        fs::rename(&from, &to).with_context(|| format!("replacing `{}`", to.display()))?;
        log.push(Step::Placed { from, to });
    }
    Ok(())
}

/// Removes the directory `rel` of the previous output, where a file goes now, and the empty
/// directories of the previous output in it (deepest first); an error if it holds anything else.
fn remove_empty(
    root: &Path,
    rel: &str,
    dirs: &BTreeSet<&str>,
    log: &mut Vec<Step>,
) -> anyhow::Result<()> {
    let full = path::join(root, rel)?;
    for entry in fs::read_dir(&full).with_context(|| format!("reading `{}`", full.display()))? {
        let entry = entry?;
        let child = entry
            .file_name()
            .into_string()
            .map(|n| format!("{rel}/{n}"));
        if entry.file_type()?.is_dir()
            && let Ok(child) = child
            && dirs.contains(child.as_str())
        {
            remove_empty(root, &child, dirs, log)?;
        } else {
            bail!(
                "`{}` holds `{}`, which railyard did not write, and this build writes a file \
                 `{}` in its place: move it away, or name another directory with -o",
                full.display(),
                entry.file_name().to_string_lossy().escape_debug(),
                rel.escape_debug()
            );
        }
    }
    fs::remove_dir(&full).with_context(|| format!("removing `{}`", full.display()))?;
    log.push(Step::Removed(full));
    Ok(())
}

/// Creates `dir` and its missing parents up to `root`, logging each one it created.
fn create_dirs(
    dir: &Path,
    root: &Path,
    existing: &mut BTreeSet<PathBuf>,
    log: &mut Vec<Step>,
) -> anyhow::Result<()> {
    if dir == root || existing.contains(dir) {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dirs(parent, root, existing, log)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => log.push(Step::Created(dir.to_path_buf())),
        // A directory that is not the previous build's (the user's): the checks found it a
        // real directory, and it stays when the build is undone.
        Err(e)
            if e.kind() == ErrorKind::AlreadyExists
                && fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) => {}
        Err(e) => return Err(e).with_context(|| format!("creating `{}`", dir.display())),
    }
    existing.insert(dir.to_path_buf());
    Ok(())
}

/// Undoes the logged steps, last first; `false` if one of them could not be undone.
fn undo(log: Vec<Step>) -> bool {
    let mut complete = true;
    for step in log.into_iter().rev() {
        let undone = match step {
            Step::Aside { from, to } | Step::Placed { from, to } => fs::rename(to, from),
            Step::Created(dir) => fs::remove_dir(dir),
            Step::Removed(dir) => fs::create_dir(dir),
        };
        complete &= undone.is_ok();
    }
    complete
}

/// After a commit: the directories of the previous output that hold nothing of this one are
/// removed (deepest first), as a fresh build would not have them. A directory still holding
/// anything (a user's file) is not empty and stays: only the previous build's files were moved
/// out of it.
pub fn prune(dir: &Path, dirs: &[String], produced: &BTreeSet<String>) {
    let needed: BTreeSet<&str> = produced.iter().flat_map(|p| path::ancestors(p)).collect();
    for d in dirs.iter().rev() {
        if !needed.contains(d.as_str())
            && let Ok(full) = path::join(dir, d)
        {
            let _ = fs::remove_dir(full);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p.clone());
                }
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                let text = fs::read_to_string(&p).unwrap_or_default();
                out.push((rel, text));
            }
        }
        out.sort();
        out
    }

    /// A move that fails halfway (here a staged file that is not there) undoes the moves before
    /// it: files set aside come back, files moved in go back, created directories go.
    #[test]
    fn a_failing_move_restores_the_previous_output() {
        let root = tempfile::tempdir().unwrap();
        let (dir, stage, trash) = (
            root.path().join("out"),
            root.path().join("stage"),
            root.path().join("trash"),
        );
        for (p, text) in [
            ("out/a.txt", "a1"),
            ("out/old.txt", "o"),
            ("stage/a.txt", "a2"),
        ] {
            fs::create_dir_all(root.path().join(p).parent().unwrap()).unwrap();
            fs::write(root.path().join(p), text).unwrap();
        }
        fs::create_dir_all(stage.join("new")).unwrap();
        fs::write(stage.join("new/n.txt"), "n").unwrap();
        let before = files(&dir);
        let staged = ["a.txt", "new/n.txt", "missing.txt"].map(String::from);
        let removed = ["old.txt".to_string()];
        let listed = BTreeSet::from(["a.txt".to_string(), "old.txt".to_string()]);
        let moves = Moves {
            dir: &dir,
            stage: &stage,
            trash: &trash,
            staged: &staged,
            removed: &removed,
            listed: &listed,
            dirs: &[],
        };
        let e = commit(&moves).unwrap_err();
        assert!(format!("{e:#}").contains("missing.txt"), "{e:#}");
        assert_eq!(files(&dir), before);
        assert_eq!(fs::read_to_string(stage.join("a.txt")).unwrap(), "a2");
        assert!(!trash.exists());

        // The same moves with every staged file there.
        fs::write(stage.join("missing.txt"), "m").unwrap();
        commit(&moves).unwrap();
        let want: Vec<(String, String)> = [
            ("a.txt", "a2"),
            ("missing.txt", "m"),
            ("new", ""),
            ("new/n.txt", "n"),
        ]
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .to_vec();
        assert_eq!(files(&dir), want);
    }

    #[test]
    fn pruning_removes_only_directories_nothing_produced_is_in() {
        let root = tempfile::tempdir().unwrap();
        for d in ["a/b", "a/c", "d"] {
            fs::create_dir_all(root.path().join(d)).unwrap();
        }
        fs::write(root.path().join("a/c/f"), "").unwrap();
        let dirs = ["a", "a/b", "a/c", "d"].map(String::from);
        prune(root.path(), &dirs, &BTreeSet::from(["a/c/f".to_string()]));
        assert!(root.path().join("a/c/f").exists());
        assert!(!root.path().join("a/b").exists() && !root.path().join("d").exists());
    }
}
