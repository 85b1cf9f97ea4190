//! Where a command's spec comes from: the file named on the command line, `-` for standard
//! input, `--example NAME` for a built-in example, or `./cluster.yaml` when none is given. The
//! built-in demo is used only on request: a command run without a spec in a directory holding
//! a build must never build the demo over it.

use std::io::Read as _;
use std::path::Path;

use anyhow::bail;
use railyard::diag::SourceFile;

use super::{globals, input};

/// The spec looked for when none is named.
pub const DEFAULT_SPEC: &str = "cluster.yaml";

/// The spec a command reads.
pub fn load(spec: Option<&Path>) -> anyhow::Result<SourceFile> {
    let example = globals::get().example.as_deref();
    match (spec, example) {
        (Some(p), Some(name)) => bail!(
            "both a spec (`{}`) and `--example {name}` were given; name one",
            p.display()
        ),
        (None, Some(name)) => builtin(name),
        (Some(p), None) if p == Path::new("-") => stdin(),
        (Some(p), None) => file(p),
        (None, None) if Path::new(DEFAULT_SPEC).is_file() => file(Path::new(DEFAULT_SPEC)),
        (None, None) => bail!(
            "no spec: name a spec file (or `-` for standard input), put one at ./{DEFAULT_SPEC}, \
             or use a built-in example with `--example lab-small` (`railyard catalog` lists the \
             examples)"
        ),
    }
}

/// The spec of something built earlier (the lab) whose source name was recorded: the one
/// named on the command line, or else the recorded one again.
pub fn load_recorded(spec: Option<&Path>, recorded: &str) -> anyhow::Result<SourceFile> {
    if spec.is_some() || globals::get().example.is_some() {
        return load(spec);
    }
    match recorded.strip_suffix(BUILTIN_SUFFIX) {
        Some(stem) => builtin(stem.strip_suffix(".yaml").unwrap_or(stem)),
        None => file(Path::new(recorded)),
    }
}

/// How a built-in example names itself in diagnostics (and in the lab's state).
const BUILTIN_SUFFIX: &str = " (built-in example)";

fn file(p: &Path) -> anyhow::Result<SourceFile> {
    let text = input::read_text(p, input::SPEC)?;
    Ok(SourceFile::new(p.display().to_string(), text))
}

fn builtin(name: &str) -> anyhow::Result<SourceFile> {
    match railyard::EXAMPLES.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => Ok(SourceFile::new(format!("{n}.yaml{BUILTIN_SUFFIX}"), *text)),
        None => bail!("no built-in example `{name}`; `railyard catalog` lists them"),
    }
}

/// A spec piped in: read to the same limit as a file.
fn stdin() -> anyhow::Result<SourceFile> {
    let limit = input::SPEC.limit;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        bail!(
            "the spec on standard input is over {} MiB; railyard reads a spec of at most that",
            limit >> 20
        );
    }
    let Ok(text) = String::from_utf8(bytes) else {
        bail!("the spec on standard input is not UTF-8 text");
    };
    Ok(SourceFile::new("<stdin>", text))
}
