//! The one way a relative output path becomes a file system path. Output paths are built from
//! spec strings (device names, catalog keys, rack names); the spec boundary checks their
//! grammar, and this module is the second line of defence that holds on its own: a path is
//! accepted only as `/`-joined plain components, so nothing joined through [`join`] can name a
//! place outside the directory it is joined to (no `..`, no absolute path, no `\` a Windows
//! tool would read as a separator, no control character a terminal or a shell would act on).

use std::fmt;
use std::path::{Path, PathBuf};

/// Longest component, in bytes: Linux's `NAME_MAX`; a longer name cannot be created anyway,
/// and refusing it here names the path before anything is written.
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Longest path, in bytes. The deepest output (`hosts/nodes/<node>/netplan.yaml`) is four
/// components of at most a host name (253) each; 1024 holds every real one with room, and stays
/// far below `PATH_MAX` (4096) once joined to an output directory.
pub const MAX_PATH_BYTES: usize = 1024;

/// Why a relative output path is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// The path is empty.
    Empty,
    /// The path starts with `/`.
    Absolute,
    /// Two `/` in a row, or one at the end.
    EmptyComponent,
    /// A component is `.`.
    CurrentDir,
    /// A component is `..`.
    ParentDir,
    /// A `\`: a separator to Windows tools, an escape to shells.
    Backslash,
    /// A control character (NUL, newline, escape, …).
    Control(char),
    /// A component longer than [`MAX_COMPONENT_BYTES`] (its length).
    ComponentTooLong(usize),
    /// A path longer than [`MAX_PATH_BYTES`] (its length).
    TooLong(usize),
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "the path is empty"),
            Self::Absolute => write!(f, "an absolute path (it starts with `/`)"),
            Self::EmptyComponent => write!(f, "an empty component (`//` or a trailing `/`)"),
            Self::CurrentDir => write!(f, "a `.` component"),
            Self::ParentDir => write!(f, "a `..` component (it would leave the directory)"),
            Self::Backslash => write!(f, "a backslash"),
            Self::Control(c) => write!(f, "the control character {:?}", c),
            Self::ComponentTooLong(n) => write!(
                f,
                "a component of {n} bytes (at most {MAX_COMPONENT_BYTES})"
            ),
            Self::TooLong(n) => write!(f, "{n} bytes long (at most {MAX_PATH_BYTES})"),
        }
    }
}

impl std::error::Error for PathError {}

/// A refused path with the reason, as [`join`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub path: String,
    pub why: PathError,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "output path {} is refused: {}",
            shown(&self.path),
            self.why
        )
    }
}

impl std::error::Error for Refused {}

/// Checks that `rel` is `/`-joined plain components.
pub fn check(rel: &str) -> Result<(), PathError> {
    if rel.is_empty() {
        return Err(PathError::Empty);
    }
    if rel.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong(rel.len()));
    }
    if rel.starts_with('/') {
        return Err(PathError::Absolute);
    }
    rel.split('/').try_for_each(component)
}

fn component(c: &str) -> Result<(), PathError> {
    match c {
        "" => Err(PathError::EmptyComponent),
        "." => Err(PathError::CurrentDir),
        ".." => Err(PathError::ParentDir),
        _ if c.len() > MAX_COMPONENT_BYTES => Err(PathError::ComponentTooLong(c.len())),
        _ => match c.chars().find(|&ch| ch == '\\' || ch.is_control()) {
            Some('\\') => Err(PathError::Backslash),
            Some(ch) => Err(PathError::Control(ch)),
            None => Ok(()),
        },
    }
}

/// `base` joined with the checked `rel`, one component at a time.
pub fn join(base: &Path, rel: &str) -> Result<PathBuf, Refused> {
    check(rel).map_err(|why| Refused {
        path: rel.to_string(),
        why,
    })?;
    let mut path = base.to_path_buf();
    path.extend(rel.split('/'));
    Ok(path)
}

/// The directories `rel` lies in, outermost first (`a/b/c` → `a`, `a/b`).
pub fn ancestors(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(i, _)| &rel[..i])
}

/// `rel` as it may be shown on a terminal: quoted, control characters escaped.
pub fn shown(rel: &str) -> String {
    format!("`{}`", rel.escape_debug())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_components_are_joined_one_by_one() {
        let base = Path::new("/out");
        assert_eq!(
            join(base, "hosts/dgx-h100/roce.sh").unwrap(),
            Path::new("/out/hosts/dgx-h100/roce.sh")
        );
        assert_eq!(join(base, ".x/é ü").unwrap(), Path::new("/out/.x/é ü"));
        assert_eq!(
            ancestors("a/b/c").collect::<Vec<_>>(),
            ["a", "a/b"],
            "the directories a path lies in"
        );
        assert_eq!(ancestors("a").count(), 0);
    }

    #[test]
    fn an_empty_path_is_refused() {
        assert_eq!(check(""), Err(PathError::Empty));
    }

    #[test]
    fn an_absolute_path_is_refused() {
        assert_eq!(check("/etc/passwd"), Err(PathError::Absolute));
        let e = join(Path::new("/out"), "/tmp/x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "output path `/tmp/x` is refused: an absolute path (it starts with `/`)"
        );
    }

    #[test]
    fn an_empty_component_is_refused() {
        assert_eq!(check("a//b"), Err(PathError::EmptyComponent));
        assert_eq!(check("a/"), Err(PathError::EmptyComponent));
    }

    #[test]
    fn a_dot_component_is_refused() {
        assert_eq!(check("./a"), Err(PathError::CurrentDir));
        assert_eq!(check("a/."), Err(PathError::CurrentDir));
    }

    #[test]
    fn a_parent_component_is_refused() {
        assert_eq!(
            check("hosts/../../../../tmp/x/roce.sh"),
            Err(PathError::ParentDir)
        );
        assert_eq!(check(".."), Err(PathError::ParentDir));
    }

    #[test]
    fn a_backslash_is_refused() {
        assert_eq!(check("a\\..\\b"), Err(PathError::Backslash));
    }

    #[test]
    fn a_control_character_is_refused() {
        assert_eq!(check("a\0b"), Err(PathError::Control('\0')));
        assert_eq!(check("a\nb/c"), Err(PathError::Control('\n')));
        assert_eq!(check("a/\u{1b}[2J"), Err(PathError::Control('\u{1b}')));
        assert_eq!(check("a\u{7f}"), Err(PathError::Control('\u{7f}')));
        assert_eq!(check("a\u{9b}"), Err(PathError::Control('\u{9b}')));
    }

    #[test]
    fn a_long_component_or_path_is_refused() {
        let long = "x".repeat(MAX_COMPONENT_BYTES + 1);
        assert_eq!(
            check(&format!("a/{long}")),
            Err(PathError::ComponentTooLong(MAX_COMPONENT_BYTES + 1))
        );
        assert!(check(&"x".repeat(MAX_COMPONENT_BYTES)).is_ok());
        let deep = ["abcdefgh"; 120].join("/");
        assert_eq!(check(&deep), Err(PathError::TooLong(deep.len())));
    }

    #[test]
    fn a_refused_path_is_shown_escaped() {
        assert_eq!(shown("a\nrm -rf /"), "`a\\nrm -rf /`");
        assert_eq!(
            PathError::Control('\u{1b}').to_string(),
            "the control character '\\u{1b}'"
        );
    }
}
