//! The rebuild memo as a producer sees it: which units an earlier build already rendered.

/// What an earlier build of the same output directory rendered, so a rebuild skips the work
/// whose inputs did not change. A unit (one switch's `configs/<name>/`, one label sheet, the
/// workbook) is identified by a digest of everything it is rendered from ([`unit_digest`]);
/// the memo carries the unit's files over when the earlier build rendered it from the same
/// digest and its files are intact, and the producer then renders nothing for it.
pub trait Memo: Sync {
    /// Carry over `unit`'s files if an earlier build rendered them from `inputs`; `true` when
    /// done (the unit must then not be rendered or sent to the sink).
    fn reuse(&self, unit: &str, inputs: &[u8; 32]) -> bool;
    /// `unit` was rendered from `inputs` into `paths` (sent to the sink).
    fn record(&self, unit: &str, inputs: &[u8; 32], paths: Vec<String>);
}

/// No earlier build: everything is rendered.
pub struct NoMemo;

impl Memo for NoMemo {
    fn reuse(&self, _: &str, _: &[u8; 32]) -> bool {
        false
    }
    fn record(&self, _: &str, _: &[u8; 32], _: Vec<String>) {}
}

/// The digest of a unit's inputs: this railyard's sources (code, built-in templates and
/// catalog, locked dependencies: `build.rs`), then each part (the template overrides, the
/// unit's intent as YAML, …) with its length, so no two sequences of parts collide.
pub fn unit_digest(parts: &[&[u8]]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(env!("RAILYARD_SOURCE_DIGEST").as_bytes());
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}
