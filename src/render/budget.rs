//! The byte budget of one render: fuel ([`super::Templates::FUEL`]) counts steps, not bytes, so a
//! template override could print a 100 MB string (`"x" * 100000000`, which minijinja allows) in
//! a loop of a few steps, or join copies of it, and exhaust memory within its fuel (issue 38:
//! 2.1 GB from a two-line template). Every render writes into a [`Budget`] that refuses to grow
//! past [`OUTPUT`]; every value the template writes counts against the same budget where it is
//! written (into the file, or into a `{% set %}` block, a macro's or a filter block's captured
//! text, which do not reach the writer); and `join` (the filter that builds one string from many)
//! stops at it. Each failure names the template and the limit.
//!
//! Not bounded here: text a template builds without writing or joining it, such as a chain of
//! `~` over a 100 MB string, or raw template text repeated inside a captured block; the fuel
//! and the template size (1 MiB) bound those only loosely. SECURITY.md says so.

use std::cell::Cell;
use std::io;

use minijinja::value::Value;
use minijinja::{Error, ErrorKind};

/// The most one rendered file may hold: 64 MiB, the most `railyard push` reads back of a rendered
/// config (`push::inputs`), so a larger file could not be pushed anyway. The largest built-in
/// output is far below it: `partitions.conf` grows with the InfiniBand ports in tenants, about 40
/// bytes a member line, some 5 MB at 131k GPUs (16k nodes of 8 ports); a switch's config is
/// tens of kilobytes (an NVUE `startup.yaml` of the 16k-GPU bench: under 100 KB).
pub const OUTPUT: usize = 64 << 20;

/// What to add to the message of a render that failed with `e` because it passed the budget.
pub(crate) fn over_budget(e: &Error) -> Option<String> {
    (e.kind() == ErrorKind::WriteFailure
        || e.detail().is_some_and(|d| d.contains(OVER_BUDGET)))
    .then(|| {
        format!(
            "the rendered text passed {} MiB, the limit of one rendered file (`render::budget::OUTPUT`, \
             src/render/budget.rs): a loop or a join that repeats far more than the spec holds",
            OUTPUT >> 20
        )
    })
}

const OVER_BUDGET: &str = "the byte budget of one render";

thread_local! {
    /// Bytes of values written by the render running on this thread (a render runs on one
    /// thread; [`start`] resets it).
    static WRITTEN: Cell<usize> = const { Cell::new(0) };
}

/// A render begins on this thread.
pub(crate) fn start() {
    WRITTEN.with(|w| w.set(0));
}

/// Count a value the template writes (into the file or a captured block); past [`OUTPUT`] the
/// render fails.
pub(crate) fn count(value: &Value) -> Result<(), Error> {
    let len = value.as_str().map_or(0, str::len);
    let total = WRITTEN.with(|w| {
        let t = w.get().saturating_add(len);
        w.set(t);
        t
    });
    if total > OUTPUT {
        return Err(Error::new(ErrorKind::InvalidOperation, OVER_BUDGET));
    }
    Ok(())
}

/// A rendered file being written: refuses a write that would take it past [`OUTPUT`].
#[derive(Default)]
pub(crate) struct Budget {
    pub bytes: Vec<u8>,
}

impl io::Write for Budget {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > OUTPUT {
            return Err(io::Error::other(OVER_BUDGET));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// minijinja's `join`, stopping at [`OUTPUT`]: the items of `value` (the characters of a string)
/// as text, `joiner` between them.
pub(crate) fn join(value: &Value, joiner: Option<&str>) -> Result<Value, Error> {
    use std::fmt::Write as _;
    let joiner = joiner.unwrap_or("");
    if value.is_none() || value.is_undefined() {
        return Ok(Value::from(""));
    }
    let mut out = String::new();
    let mut push = |i: usize, item: &dyn std::fmt::Display| {
        if i > 0 {
            out.push_str(joiner);
        }
        let _ = write!(out, "{item}");
        if out.len() > OUTPUT {
            return Err(Error::new(ErrorKind::InvalidOperation, OVER_BUDGET));
        }
        Ok(())
    };
    if let Some(s) = value.as_str() {
        for (i, c) in s.chars().enumerate() {
            push(i, &c)?;
        }
    } else {
        for (i, item) in value.try_iter()?.enumerate() {
            push(i, &item)?;
        }
    }
    Ok(Value::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn the_budget_refuses_the_write_that_passes_it() {
        let mut b = Budget::default();
        assert!(b.write_all(&vec![b'x'; OUTPUT]).is_ok());
        assert!(b.write_all(b"y").is_err());
        assert_eq!(b.bytes.len(), OUTPUT);
    }

    #[test]
    fn join_is_minijinjas_within_the_budget() {
        let v = Value::from(vec!["a", "b", "c"]);
        assert_eq!(join(&v, Some(", ")).unwrap().as_str(), Some("a, b, c"));
        assert_eq!(
            join(&Value::from("abc"), Some("-")).unwrap().as_str(),
            Some("a-b-c")
        );
        assert_eq!(
            join(&Value::from(vec![1, 2]), None).unwrap().as_str(),
            Some("12")
        );
        let big = Value::from("x".repeat(OUTPUT / 4 + 1));
        let e = join(&Value::from(vec![big; 8]), None).unwrap_err();
        assert!(over_budget(&e).is_some(), "{e}");
    }
}
