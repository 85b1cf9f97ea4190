//! Spec loader: arbitrary text → `railyard::compile` → diagnostics, and for a spec that
//! compiles, every output file.
//!
//! Invariants checked:
//! - no panic in any stage, nor in rendering a spec that compiled;
//! - every diagnostic that has a span points inside the input, on character boundaries (a span
//!   past the end or inside a UTF-8 sequence would print a wrong line:column);
//! - compiling is deterministic: the same text gives the same diagnostics and byte-identical
//!   output files;
//! - a spec that compiled without errors renders with the built-in templates (a `RenderError`
//!   there is a template bug, not a user mistake).
//!
//! Size: a few bytes can describe a million-node cluster, which is the benchmark's business, not
//! the fuzzer's (it would only report a slow or huge input). Parsing always runs; the later
//! stages run only for clusters within [`MAX_NODE_POSITIONS`] and [`MAX_COUNT`].

use railyard::diag::{Diagnostic, Diagnostics, SourceFile};
use railyard::spec::ClusterSpec;

/// Largest `count × nodes_per_su` compiled past parsing.
pub const MAX_NODE_POSITIONS: u64 = 256;
/// Largest explicit switch count, plane count or tenant count compiled past parsing.
pub const MAX_COUNT: u32 = 64;

pub fn run(data: &[u8]) {
    check(&String::from_utf8_lossy(data));
}

/// Compile `text` and check the invariants above.
pub fn check(text: &str) {
    let src = SourceFile::new("fuzz.yaml", text);
    let mut diags = Diagnostics::default();
    let parsed = railyard::spec::parse(&src, &mut diags);
    assert_located(&src, diags.iter());
    let Some(spec) = parsed else {
        return;
    };
    if !small_enough(&spec) {
        return;
    }
    let first = railyard::compile(&src);
    assert_located(&src, first.diagnostics.iter());
    let second = railyard::compile(&src);
    assert_eq!(
        first.diagnostics.sorted(),
        second.diagnostics.sorted(),
        "the same spec gave different diagnostics"
    );
    let templates = railyard::render::Templates::default();
    match (first.outputs(&templates), second.outputs(&templates)) {
        (None, None) => assert!(
            first.diagnostics.has_errors(),
            "no outputs although compiling reported no error"
        ),
        (Some(a), Some(b)) => {
            let a = a.unwrap_or_else(|e| panic!("a compiled spec failed to render: {e}"));
            let b = b.unwrap_or_else(|e| panic!("a compiled spec failed to render: {e}"));
            assert_eq!(a.len(), b.len(), "output file lists differ");
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.path, y.path, "output file lists differ");
                assert!(x.bytes == y.bytes, "{} differs between two runs", x.path);
            }
        }
        _ => panic!("one of two identical compiles succeeded"),
    }
}

/// Every located diagnostic lies inside `src` and starts and ends on character boundaries.
pub fn assert_located<'a>(src: &SourceFile, diags: impl Iterator<Item = &'a Diagnostic>) {
    for d in diags {
        let Some(span) = d.span else { continue };
        let (start, len) = (span.start as usize, span.len as usize);
        let end = start.checked_add(len);
        assert!(
            end.is_some_and(|e| e <= src.text.len()),
            "{} span {start}+{len} lies outside the {}-byte input: {}",
            d.code.id,
            src.text.len(),
            d.message
        );
        assert!(
            src.text.is_char_boundary(start) && src.text.is_char_boundary(start + len),
            "{} span {start}+{len} splits a character: {}",
            d.code.id,
            d.message
        );
        let (line, col) = src.line_col(span.start);
        assert!(line >= 1 && col >= 1);
    }
}

/// Whether the parsed spec is small enough to compile on every fuzz iteration.
pub fn small_enough(spec: &ClusterSpec) -> bool {
    let su = &spec.scalable_units;
    let positions = u64::from(*su.count) * u64::from(*su.nodes_per_su);
    let counts = [
        Some(*spec.compute.planes),
        spec.compute.spine.count.as_deref().copied(),
        spec.compute
            .core
            .as_ref()
            .and_then(|c| c.count.as_deref().copied()),
        spec.compute.leaf.uplinks.as_deref().copied(),
        spec.compute.fabric_managers.as_ref().map(|f| *f.count),
        spec.oob.switches_per_su.as_deref().copied(),
        spec.storage
            .as_ref()
            .and_then(|s| s.leaf.count.as_deref().copied()),
        spec.storage
            .as_ref()
            .and_then(|s| s.spine.as_ref())
            .and_then(|s| s.count.as_deref().copied()),
        spec.inband
            .as_ref()
            .and_then(|i| i.leaf.as_ref())
            .and_then(|l| l.count.as_deref().copied()),
        spec.inband
            .as_ref()
            .and_then(|i| i.spine.as_ref())
            .and_then(|s| s.count.as_deref().copied()),
        u32::try_from(spec.tenants.len()).ok(),
    ];
    positions <= MAX_NODE_POSITIONS && counts.into_iter().flatten().all(|c| c <= MAX_COUNT)
}
