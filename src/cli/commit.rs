//! The last step of an incremental build, as one transaction: the files staged beside the output
//! directory move into it, what the previous build left and this one did not write moves out,
//! and the memo goes last. Every step is a rename within one file system; each is logged, and a
//! failing step undoes the ones before it in reverse, so the directory is either the new
//! output or the previous one, never a mix (a killed process can leave a mix, which the next
//! build repairs: the memo is replaced last, and a file moved in has an inode the old memo
//! does not know).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

enum Step {
    /// A file of the previous output moved aside into the trash.
    Aside { from: PathBuf, to: PathBuf },
    /// A staged file moved into the output directory.
    Placed { from: PathBuf, to: PathBuf },
    /// A directory created in the output directory.
    Created(PathBuf),
}

/// What to move: paths relative to the output directory.
pub struct Moves<'a> {
    pub dir: &'a Path,
    pub stage: &'a Path,
    /// Where replaced and removed files go until the commit is done (then it is deleted).
    pub trash: &'a Path,
    /// Staged files, in order; the memo last.
    pub staged: &'a [String],
    /// Files of the previous output that this build does not produce.
    pub removed: &'a [String],
    /// Directories that already exist in the output directory.
    pub dirs: &'a [String],
}

/// Applies the moves, or none of them: on a failure the steps taken are undone and the trash is
/// deleted (kept, and named in the error, only if a step could not be undone).
pub fn commit(m: &Moves<'_>) -> anyhow::Result<()> {
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

fn apply(m: &Moves<'_>, log: &mut Vec<Step>) -> anyhow::Result<()> {
    let mut existing: BTreeSet<PathBuf> = m.dirs.iter().map(|d| m.dir.join(d)).collect();
    let mut trash_dirs = BTreeSet::new();
    let mut in_the_way = 0;
    let mut aside = |rel: &str, log: &mut Vec<Step>| -> anyhow::Result<()> {
        let from = m.dir.join(rel);
        // A directory where a file goes (what it held is already aside) gets a name of its own:
        // under its path, the trash may hold its files.
        let to = if fs::symlink_metadata(&from).is_ok_and(|f| f.is_dir()) {
            in_the_way += 1;
            m.trash.join(format!(".in-the-way-{in_the_way}"))
        } else {
            m.trash.join(rel)
        };
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
        aside(rel, log)?;
    }
    for rel in m.staged {
        let to = m.dir.join(rel);
        if fs::symlink_metadata(&to).is_ok() {
            aside(rel, log)?;
        }
        if let Some(parent) = to.parent() {
            create_dirs(parent, m.dir, &mut existing, log)?;
        }
        let from = m.stage.join(rel);
        fs::rename(&from, &to).with_context(|| format!("replacing `{}`", to.display()))?;
        log.push(Step::Placed { from, to });
    }
    Ok(())
}

/// Creates `dir` and its missing parents up to `root`, logging each one.
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
    fs::create_dir(dir).with_context(|| format!("creating `{}`", dir.display()))?;
    existing.insert(dir.to_path_buf());
    log.push(Step::Created(dir.to_path_buf()));
    Ok(())
}

/// Undoes the logged steps, last first; `false` if one of them could not be undone.
fn undo(log: Vec<Step>) -> bool {
    let mut complete = true;
    for step in log.into_iter().rev() {
        let undone = match step {
            Step::Aside { from, to } | Step::Placed { from, to } => fs::rename(to, from),
            Step::Created(dir) => fs::remove_dir(dir),
        };
        complete &= undone.is_ok();
    }
    complete
}

/// After a commit: the directories of the previous output that hold nothing of this one are
/// removed (deepest first), as a fresh build would not have them.
pub fn prune(dir: &Path, dirs: &[String], produced: &BTreeSet<String>) {
    let mut needed = BTreeSet::new();
    for p in produced {
        let mut path = Path::new(p.as_str());
        while let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !needed.insert(parent) {
                break;
            }
            path = parent;
        }
    }
    for d in dirs.iter().rev() {
        if !needed.contains(Path::new(d.as_str())) {
            let _ = fs::remove_dir(dir.join(d));
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
        let moves = Moves {
            dir: &dir,
            stage: &stage,
            trash: &trash,
            staged: &staged,
            removed: &removed,
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
