//! Reading a file a user named, bounded: every file the command line reads (spec, template
//! overrides, InfiniBand captures and port-GUID CSVs, push's targets file, a previous build's
//! manifest and memo) comes through [`read`], with the limit of its kind. Only regular files
//! are read: a FIFO would block the open, a device (`/dev/zero`) never ends, and a symbolic
//! link is followed to what it names, which must be a regular file too.

use std::fs;
use std::io::Read as _;
use std::path::Path;

use anyhow::{Context, bail};

const MIB: u64 = 1 << 20;

/// What a file is, for the messages, and how large it may be.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    pub what: &'static str,
    pub limit: u64,
}

/// A spec. The largest real spec (a site catalog overlay with every node model inline) is
/// tens of KB and a 131k-GPU spec under 10 KB; 16 MiB is hundreds of times that, and keeps the
/// YAML parser's memory for a hostile spec in the hundreds of MB.
pub const SPEC: Kind = Kind {
    what: "spec",
    limit: 16 * MIB,
};

/// A template override. The built-in templates are a few KB each (the largest, the report's
/// script, which cannot be overridden, is 18 KB); 1 MiB is far beyond any real one.
pub const TEMPLATE: Kind = Kind {
    what: "template",
    limit: MIB,
};

/// An InfiniBand capture (`ibnetdiscover`, `ibstat`) or a port-GUID CSV. The largest fabric
/// railyard plans (131k GPUs: ~16k nodes with 8 HCAs, ~5k switches of 64 ports, ~100 bytes a
/// line) gives an `ibnetdiscover` of about 50 MB; 256 MiB leaves five times that.
pub const IB_CAPTURE: Kind = Kind {
    what: "InfiniBand capture",
    limit: 256 * MIB,
};

/// A port-GUID CSV (`railyard ib import` output): one ~60-byte row per node port, about 8 MB
/// at 131k GPUs; the capture's limit.
pub const PORT_GUIDS: Kind = Kind {
    what: "port-GUID CSV",
    limit: IB_CAPTURE.limit,
};

/// Push's targets file: one entry of ~100 bytes per switch, about 1 MB for the largest fabric.
pub const TARGETS: Kind = Kind {
    what: "targets file",
    limit: 16 * MIB,
};

/// A previous build's `manifest.json` or `.railyard-memo.json`. A 4,096-GPU build's manifest
/// is 179 KB (1,126 files), so about 6 MB at 131k GPUs; 64 MiB is ten times that.
pub const BUILD_RECORD: Kind = Kind {
    what: "build record",
    limit: 64 * MIB,
};

/// The bytes of `path`, a regular file (or a link to one) of at most `kind.limit` bytes.
pub fn read(path: &Path, kind: Kind) -> anyhow::Result<Vec<u8>> {
    let shown = path.display();
    let (what, limit) = (kind.what, kind.limit);
    // Asked before opening: opening a FIFO blocks until someone writes to it.
    let meta = fs::metadata(path).with_context(|| format!("reading {what} `{shown}`"))?;
    regular(&meta, path, kind)?;
    let file = fs::File::open(path).with_context(|| format!("reading {what} `{shown}`"))?;
    // Asked again of what was opened: the path may name something else by now.
    regular(&file.metadata()?, path, kind)?;
    let mut bytes = Vec::new();
    // One byte more than allowed tells a file that grew past the limit from one at it.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {what} `{shown}`"))?;
    if bytes.len() as u64 > limit {
        bail!(too_large(path, kind, None));
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, kind: Kind) -> anyhow::Result<String> {
    String::from_utf8(read(path, kind)?)
        .map_err(|_| anyhow::anyhow!("reading {} `{}`: not UTF-8 text", kind.what, path.display()))
}

fn regular(meta: &fs::Metadata, path: &Path, kind: Kind) -> anyhow::Result<()> {
    if !meta.is_file() {
        bail!(
            "{} `{}` is {}, not a regular file; railyard reads a {} only from a regular file \
             (at most {})",
            kind.what,
            path.display(),
            file_kind(meta.file_type()),
            kind.what,
            size(kind.limit)
        );
    }
    if meta.len() > kind.limit {
        bail!(too_large(path, kind, Some(meta.len())));
    }
    Ok(())
}

fn too_large(path: &Path, kind: Kind, len: Option<u64>) -> String {
    let is = len.map_or_else(
        || "larger than".to_string(),
        |n| format!("{}, over", size(n)),
    );
    format!(
        "{} `{}` is {is} the limit of {} for a {}; is it the right file?",
        kind.what,
        path.display(),
        size(kind.limit),
        kind.what
    )
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
fn size(n: u64) -> String {
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
