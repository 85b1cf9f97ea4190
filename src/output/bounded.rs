//! Reading a file railyard is given, bounded: every file the command line reads (spec, template
//! overrides, captures, push's targets file, a previous build's manifest and memo) and every file
//! push reads back (the rendered configs and the secrets declaration of an output directory, a
//! transaction journal and its saved copies) comes through [`read`], with the limit of its kind.
//! Only regular files are read: a FIFO would block the open, a device (`/dev/zero`) never ends,
//! and a symbolic link is followed to what it names, which must be a regular file too.

use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// One mebibyte, for limits.
pub const MIB: u64 = 1 << 20;

/// What a file is, for the messages, and how large it may be.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    pub what: &'static str,
    pub limit: u64,
}

/// Why a file was not read: names the file, and the limit when it was too large.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError(String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

/// The bytes of `path`, a regular file (or a link to one) of at most `kind.limit` bytes.
pub fn read(path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    read_all(open(path, kind)?, path, kind)
}

/// [`read_text`] of an entry that must itself be a regular file, never a link: for the files
/// railyard takes from inside a directory a user names (template overrides), where a link could
/// name any file the process can read (`/proc/self/environ`: the whole environment). The entry
/// is examined without following it, and what was opened must be that same entry (device and
/// inode), so a link swapped in between is refused too.
pub fn read_text_no_follow(path: &Path, kind: Kind) -> Result<String, ReadError> {
    use std::os::unix::fs::MetadataExt;
    let failed =
        |e: io::Error| ReadError(format!("reading {} `{}`: {e}", kind.what, path.display()));
    let entry = fs::symlink_metadata(path).map_err(failed)?;
    regular(&entry, path, kind)?;
    let file = fs::File::open(path).map_err(failed)?;
    let opened = file.metadata().map_err(failed)?;
    regular(&opened, path, kind)?;
    if (opened.dev(), opened.ino()) != (entry.dev(), entry.ino()) {
        return Err(ReadError(format!(
            "{} `{}` changed while it was opened (a link put in its place?)",
            kind.what,
            path.display()
        )));
    }
    let bounded = Bounded {
        file,
        left: kind.limit,
        path: path.to_path_buf(),
        kind,
    };
    utf8(read_all(bounded, path, kind)?, path, kind)
}

fn read_all(mut from: Bounded, path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    match from.read_to_end(&mut bytes) {
        Ok(_) => Ok(bytes),
        Err(e) if e.kind() == io::ErrorKind::FileTooLarge => Err(ReadError(e.to_string())),
        Err(e) => Err(ReadError(format!(
            "reading {} `{}`: {e}",
            kind.what,
            path.display()
        ))),
    }
}

/// `path`, a regular file (or a link to one) of at most `kind.limit` bytes, to be read as a
/// stream (an LLDP capture is parsed as it is read): refused when it is over the limit already,
/// and failing with the same message ([`io::ErrorKind::FileTooLarge`]) when it grew past it
/// since.
pub fn open(path: &Path, kind: Kind) -> Result<Bounded, ReadError> {
    let failed =
        |e: io::Error| ReadError(format!("reading {} `{}`: {e}", kind.what, path.display()));
    // Asked before opening: opening a FIFO blocks until someone writes to it.
    regular(&fs::metadata(path).map_err(failed)?, path, kind)?;
    let file = fs::File::open(path).map_err(failed)?;
    // Asked again of what was opened: the path may name something else by now.
    regular(&file.metadata().map_err(failed)?, path, kind)?;
    Ok(Bounded {
        file,
        left: kind.limit,
        path: path.to_path_buf(),
        kind,
    })
}

/// A file opened by [`open`]: gives at most the limit of its kind, and an error past it.
pub struct Bounded {
    file: fs::File,
    left: u64,
    path: PathBuf,
    kind: Kind,
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte more than allowed tells a file that grew past the limit from one at it.
        let room = buf
            .len()
            .min(usize::try_from(self.left + 1).unwrap_or(usize::MAX));
        let n = self.file.read(&mut buf[..room])?;
        if n as u64 > self.left {
            let message = too_large(&self.path, self.kind, None).0;
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, message));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, kind: Kind) -> Result<String, ReadError> {
    utf8(read(path, kind)?, path, kind)
}

fn utf8(bytes: Vec<u8>, path: &Path, kind: Kind) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|_| {
        ReadError(format!(
            "reading {} `{}`: not UTF-8 text",
            kind.what,
            path.display()
        ))
    })
}

fn regular(meta: &fs::Metadata, path: &Path, kind: Kind) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError(format!(
            "{} `{}` is {}, not a regular file; railyard reads a {} only from a regular file \
             (at most {})",
            kind.what,
            path.display(),
            file_kind(meta.file_type()),
            kind.what,
            size(kind.limit)
        )));
    }
    if meta.len() > kind.limit {
        return Err(too_large(path, kind, Some(meta.len())));
    }
    Ok(())
}

fn too_large(path: &Path, kind: Kind, len: Option<u64>) -> ReadError {
    let is = len.map_or_else(
        || "larger than".to_string(),
        |n| format!("{}, over", size(n)),
    );
    ReadError(format!(
        "{} `{}` is {is} the limit of {} for a {}; is it the right file?",
        kind.what,
        path.display(),
        size(kind.limit),
        kind.what
    ))
}

/// What a file system entry is, in words.
pub fn file_kind(t: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    type Is = fn(&fs::FileType) -> bool;
    let kinds: [(Is, &'static str); 7] = [
        (fs::FileType::is_dir, "a directory"),
        (fs::FileType::is_symlink, "a symbolic link"),
        (fs::FileType::is_file, "a regular file"),
        (FileTypeExt::is_char_device, "a character device"),
        (FileTypeExt::is_block_device, "a block device"),
        (FileTypeExt::is_fifo, "a named pipe"),
        (FileTypeExt::is_socket, "a socket"),
    ];
    kinds
        .iter()
        .find(|(is, _)| is(&t))
        .map_or("a special file", |&(_, name)| name)
}

/// `n` bytes, in the largest binary unit that divides it or with one decimal.
pub fn size(n: u64) -> String {
    match n {
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n if n >= MIB => format!("{:.1} MiB", n as f64 / MIB as f64),
        n if n >= 1024 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: Kind = Kind {
        what: "spec",
        limit: 8,
    };
    const SPEC: Kind = Kind {
        what: "spec",
        limit: 16 * MIB,
    };

    #[test]
    fn a_regular_file_within_the_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.yaml");
        fs::write(&p, "12345678").unwrap();
        assert_eq!(read_text(&p, TINY).unwrap(), "12345678");
        // Through a link to it as well.
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert_eq!(read(&link, TINY).unwrap(), b"12345678");
    }

    #[test]
    fn a_file_that_grows_past_the_limit_while_open_is_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("growing.json");
        fs::write(&p, "12345678").unwrap();
        let mut opened = open(&p, TINY).unwrap();
        fs::write(&p, "123456789").unwrap();
        let mut bytes = Vec::new();
        let e = opened.read_to_end(&mut bytes).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("limit of 8 bytes"), "{e}");
        assert!(bytes.len() <= 8);
        // At the limit exactly, read to the end.
        fs::write(&p, "12345678").unwrap();
        let mut bytes = Vec::new();
        open(&p, TINY).unwrap().read_to_end(&mut bytes).unwrap();
        assert_eq!(bytes, b"12345678");
    }

    #[test]
    fn a_larger_file_is_refused_naming_file_and_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.yaml");
        fs::write(&p, "123456789").unwrap();
        let e = format!("{:#}", read(&p, TINY).unwrap_err());
        assert!(
            e.contains("big.yaml") && e.contains("limit of 8 bytes"),
            "{e}"
        );
    }

    #[test]
    fn a_device_a_pipe_and_a_directory_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = format!("{:#}", read(Path::new("/dev/zero"), SPEC).unwrap_err());
        assert!(
            e.contains("`/dev/zero` is a character device") && e.contains("16 MiB"),
            "{e}"
        );
        let e = format!("{:#}", read(dir.path(), SPEC).unwrap_err());
        assert!(e.contains("is a directory"), "{e}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Refused without opening it (an open would block: nobody writes to it).
        let e = format!("{:#}", read(&fifo, SPEC).unwrap_err());
        assert!(e.contains("is a named pipe"), "{e}");
    }

    #[test]
    fn sizes_are_shown_in_binary_units() {
        assert_eq!(size(16 * MIB), "16 MiB");
        assert_eq!(size(3 * MIB / 2), "1.5 MiB");
        assert_eq!(size(2048), "2.0 KiB");
        assert_eq!(size(9), "9 bytes");
    }
}
