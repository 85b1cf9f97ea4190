//! What "the same config" means, as pure data: the canonical line form of each OS's rendered
//! files (`canonical.rs`, the one line diff; `<os>/canon.rs`), the facts those lines state
//! (`<os>/facts.rs`: ASN and router-id, sessions, addresses, MTU, breakout) and the one engine
//! that finds a disruptive change between two sets of facts (`disruptive.rs`). `tree.rs`
//! flattens a JSON tree (NVUE's and SONiC's documents) to lines; `context.rs` the context-path
//! lines of the CLI-style configs (FRR, EOS).
//!
//! One meaning for everyone who compares configs: `push` (its dry-run diff and its
//! `--allow-disruptive` gate), `audit` (running against built) and `change` (`railyard diff`
//! between two designs). Pure: no I/O, no clock, no environment; it names only foundations.

pub mod canonical;
pub mod context;
pub mod disruptive;
pub mod eos;
pub mod frr;
pub mod netconf;
pub mod nvue;
pub mod sonic;
pub mod tree;
