//! What `-o DIR` names, and whether railyard may write there (README, "Output directory"):
//! nothing yet, an empty directory, or a directory with a railyard `manifest.json` (a rebuild)
//! are written; a directory holding anything else is someone else's and is refused, or with
//! `--move-aside` renamed to a new name beside it (never deleted); a file, a special file or a
//! link to nothing is refused. A link to a directory stands for the directory it points to.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use railyard::output::Manifest;
use railyard::output::digest::sha256_hex;
use railyard::output::manifest::PATH as MANIFEST;

use crate::cli::input::{self, BUILD_RECORD};

/// What is at the output directory now.
pub enum State {
    /// Nothing: the staged build becomes it.
    Absent,
    /// An empty directory: the staged files move into it.
    Empty,
    /// A railyard build: its manifest (and that file's SHA-256, which the memo names).
    Built { manifest: Manifest, sha256: String },
    /// Someone else's directory, moved aside (`--move-aside`) when the build is ready.
    Foreign,
}

/// The output directory to write, and what is there.
pub struct Destination {
    /// The directory written: `-o`, or the directory a link there points to (staging happens
    /// beside it, so every rename stays on its file system).
    pub dir: PathBuf,
    pub state: State,
}

/// What `output` is; an error, saying what is there and what to do, where railyard may not write.
pub fn open(output: &Path, move_aside: bool) -> anyhow::Result<Destination> {
    let meta = match fs::symlink_metadata(output) {
        Err(e) if e.kind() == ErrorKind::NotFound => return absent(output),
        other => other.with_context(|| format!("output directory `{}`", output.display()))?,
    };
    let dir = if meta.file_type().is_symlink() {
        linked(output)?
    } else if meta.is_dir() {
        fs::canonicalize(output)
            .with_context(|| format!("output directory `{}`", output.display()))?
    } else {
        bail!(
            "`{}` is {}, not a directory: railyard writes its outputs into a directory and \
             does not replace a file; name a directory with -o",
            output.display(),
            railyard::output::bounded::file_kind(meta.file_type())
        );
    };
    let state = state_of(&dir, output, move_aside)?;
    Ok(Destination { dir, state })
}

/// A nonexistent output directory, absolute: its parent resolved when it exists (it is created
/// when the build is written otherwise).
fn absent(output: &Path) -> anyhow::Result<Destination> {
    let Some(name) = output.file_name() else {
        bail!(
            "`{}` cannot be an output directory: it has no name of its own",
            output.display()
        );
    };
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = match fs::canonicalize(parent) {
        Ok(parent) => parent.join(name),
        Err(_) => std::path::absolute(output)
            .with_context(|| format!("output directory `{}`", output.display()))?,
    };
    Ok(Destination {
        dir,
        state: State::Absent,
    })
}

/// The directory the link `output` points to.
fn linked(output: &Path) -> anyhow::Result<PathBuf> {
    let shown = output.display();
    let to = fs::read_link(output).map_or_else(|_| "?".into(), |t| t.display().to_string());
    let meta = fs::metadata(output).with_context(|| {
        format!("`{shown}` is a symbolic link to `{to}`, which does not exist; create the directory or name it with -o")
    })?;
    if !meta.is_dir() {
        bail!(
            "`{shown}` is a symbolic link to `{to}`, which is {}, not a directory; name a \
             directory with -o",
            railyard::output::bounded::file_kind(meta.file_type())
        );
    }
    fs::canonicalize(output).with_context(|| format!("output directory `{shown}`"))
}

fn state_of(dir: &Path, output: &Path, move_aside: bool) -> anyhow::Result<State> {
    let shown = output.display();
    let mut entries = fs::read_dir(dir).with_context(|| format!("reading `{shown}`"))?;
    if entries.next().is_none() {
        return Ok(State::Empty);
    }
    let why = match railyard_manifest(dir) {
        Ok((manifest, sha256)) => return Ok(State::Built { manifest, sha256 }),
        Err(why) => why,
    };
    if move_aside {
        return Ok(State::Foreign);
    }
    bail!(
        "refusing to write into `{shown}`: it holds {} and {why}, so none of it is railyard's \
         to replace or delete.\nName a new or empty directory with -o, or add --move-aside to \
         have railyard rename `{shown}` to a new name beside it (nothing is deleted) and build \
         a fresh one.",
        listing(dir)
    )
}

/// The manifest of a railyard build in `dir`, or why there is none.
fn railyard_manifest(dir: &Path) -> Result<(Manifest, String), String> {
    let path = dir.join(MANIFEST);
    match fs::symlink_metadata(&path) {
        Err(_) => return Err(format!("no {MANIFEST} of a railyard build")),
        Ok(m) if !m.is_file() => {
            return Err(format!(
                "its {MANIFEST} is {}",
                railyard::output::bounded::file_kind(m.file_type())
            ));
        }
        Ok(_) => {}
    }
    let bytes = input::read(&path, BUILD_RECORD).map_err(|e| format!("{e:#}"))?;
    let manifest = Manifest::parse(&bytes).map_err(|e| format!("its {MANIFEST} is {e}"))?;
    if !manifest.generator.starts_with("railyard ") {
        return Err(format!(
            "its {MANIFEST} was written by `{}`, not railyard",
            manifest.generator.escape_debug()
        ));
    }
    Ok((manifest, sha256_hex(&bytes)))
}

/// A few of the names in `dir`, for the refusal.
fn listing(dir: &Path) -> String {
    const SHOWN: usize = 3;
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let slash = if e.file_type().is_ok_and(|t| t.is_dir()) {
                        "/"
                    } else {
                        ""
                    };
                    format!(
                        "`{}{slash}`",
                        e.file_name().to_string_lossy().escape_debug()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let more = names.len().saturating_sub(SHOWN);
    names.truncate(SHOWN);
    match more {
        0 => names.join(", "),
        n => format!("{} and {n} more", names.join(", ")),
    }
}

/// Renames `dir` to a new name beside it (`NAME.moved-aside`, `NAME.moved-aside-2`, …) and
/// returns that name. The new name is created first, empty and exclusively, then `dir` renamed
/// over it: nothing that exists under that name can be replaced.
pub fn move_aside(dir: &Path) -> anyhow::Result<PathBuf> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .context("the output directory has no name")?;
    for n in 1..=1000 {
        let aside = match n {
            1 => dir.with_file_name(format!("{name}.moved-aside")),
            n => dir.with_file_name(format!("{name}.moved-aside-{n}")),
        };
        match fs::create_dir(&aside) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            other => other.with_context(|| format!("creating `{}`", aside.display()))?,
        }
        if let Err(e) = fs::rename(dir, &aside) {
            let _ = fs::remove_dir(&aside);
            return Err(e).with_context(|| format!("moving `{}` aside", dir.display()));
        }
        return Ok(aside);
    }
    bail!(
        "`{}`: a thousand names `{name}.moved-aside-N` are taken; tidy up beside it",
        dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(output: &Path, move_aside: bool) -> String {
        match open(output, move_aside) {
            Ok(_) => panic!("`{}` accepted", output.display()),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn a_foreign_directory_is_refused_and_moved_aside_on_request() {
        let root = tempfile::tempdir().unwrap();
        let site = root.path().join("site");
        fs::create_dir_all(site.join("notes")).unwrap();
        fs::write(site.join("cluster.yaml"), "name: x\n").unwrap();
        let e = refusal(&site, false);
        assert!(
            e.contains("`cluster.yaml`, `notes/`") && e.contains("no manifest.json"),
            "{e}"
        );
        assert!(e.contains("--move-aside"), "{e}");
        // Another tool's manifest is not railyard's.
        fs::write(
            site.join(MANIFEST),
            r#"{"files": [], "generator": "other 1"}"#,
        )
        .unwrap();
        let e = refusal(&site, false);
        assert!(e.contains("written by `other 1`"), "{e}");

        let d = open(&site, true).unwrap();
        assert!(matches!(d.state, State::Foreign));
        fs::create_dir(root.path().join("site.moved-aside")).unwrap();
        let aside = move_aside(&d.dir).unwrap();
        assert_eq!(aside, d.dir.with_file_name("site.moved-aside-2"));
        assert!(aside.join("cluster.yaml").is_file() && !site.exists());
    }

    #[test]
    fn a_file_a_device_or_a_dangling_link_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("some-file");
        fs::write(&file, "mine").unwrap();
        assert!(refusal(&file, true).contains("is a regular file, not a directory"));
        assert!(refusal(Path::new("/dev/null"), true).contains("is a character device"));
        let link = root.path().join("link");
        std::os::unix::fs::symlink(root.path().join("nowhere"), &link).unwrap();
        assert!(refusal(&link, true).contains("which does not exist"));
        let to_file = root.path().join("to-file");
        std::os::unix::fs::symlink(&file, &to_file).unwrap();
        assert!(refusal(&to_file, true).contains("which is a regular file"));
        assert_eq!(fs::read(&file).unwrap(), b"mine");
    }

    #[test]
    fn a_link_to_a_directory_stands_for_the_directory() {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir(root.path().join("real")).unwrap();
        let link = root.path().join("link");
        std::os::unix::fs::symlink("real", &link).unwrap();
        let d = open(&link, false).unwrap();
        assert_eq!(d.dir, fs::canonicalize(root.path().join("real")).unwrap());
        assert!(matches!(d.state, State::Empty));
        let d = open(&root.path().join("new/out"), false).unwrap();
        assert!(matches!(d.state, State::Absent) && d.dir.ends_with("new/out"));
    }
}
