//! What engineers capture on the installed cluster, read back into railyard: InfiniBand port
//! GUIDs (`ibnetdiscover`, `ibstat`, a GUID CSV → OpenSM partitions, [`ib`]) and one real node's
//! PCI topology (`nvidia-smi topo -m`, `lspci -tv` or a `/sys/bus/pci/devices` listing,
//! `ibdev2netdev` → a verified catalog node model, [`node`]).
//!
//! Pure: every parser takes a [`SourceFile`] and reports problems as diagnostics whose spans
//! point into that capture (file:line:col), all problems at once; the CLI reads the files and
//! writes the result atomically. Matching captures against the plan reads the compiled intent,
//! so this module sits after `intent` in the stage order.

pub mod ib;
pub mod node;

use crate::diag::{Diagnostic, SourceFile, Span};

/// One line of a capture with its byte offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    pub start: usize,
    pub text: &'a str,
}

impl<'a> Line<'a> {
    /// The span of `part`, a subslice of this line (the whole line when it is not one).
    pub fn span_of(&self, part: &str) -> Span {
        let base = self.text.as_ptr() as usize;
        let p = part.as_ptr() as usize;
        if p >= base && p + part.len() <= base + self.text.len() {
            Span::new(self.start + (p - base), part.len().max(1))
        } else {
            self.span()
        }
    }

    pub fn span(&self) -> Span {
        Span::new(self.start, self.text.trim_end().len().max(1))
    }
}

/// The lines of a file, without line terminators, with their offsets.
pub(crate) fn lines(src: &SourceFile) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for raw in src.text.split_inclusive('\n') {
        let text = raw.trim_end_matches(['\n', '\r']);
        out.push(Line { start, text });
        start += raw.len();
    }
    out
}

/// A span at the very end of the file: where a truncated capture stops.
pub(crate) fn end_span(src: &SourceFile) -> Span {
    let end = src.text.trim_end().len();
    Span::new(end.saturating_sub(1), 1)
}

/// An error located in a capture.
pub(crate) fn error(
    code: crate::diag::Code,
    span: Span,
    message: impl Into<String>,
    label: &str,
    help: impl Into<String>,
) -> Diagnostic {
    Diagnostic::error(code, message)
        .at(Some(span), label)
        .help(help)
}
