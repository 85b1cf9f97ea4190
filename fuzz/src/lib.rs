//! What each fuzz target does with one input, and the invariants it checks beyond "no panic".
//!
//! One module per target; each exposes `run(data: &[u8])`, which panics when an invariant is
//! broken (that is how libFuzzer learns of a finding). The same modules are compiled into
//! `tests/pipeline/fuzz_corpora.rs` (included by path), which replays every committed corpus file on
//! stable Rust, so a finding fixed once stays fixed in the ordinary `cargo test`.
//!
//! Only railyard's public API, `serde_json`, railyard's own readers (`serde-saphyr`, `quick-xml`)
//! and the standard library are used here: both the fuzz crate and the root package's tests can
//! compile this code unchanged.

pub mod lldp;
pub mod netconf_framing;
pub mod netconf_reply;
pub mod push_journal;
pub mod push_targets;
pub mod sinks;
pub mod spec;
pub mod spec_catalog;
