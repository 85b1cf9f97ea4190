//! railyard's own NETCONF client (RFC 6241) over SSH (RFC 6242): a pure framing codec, XML
//! helpers, a canonical config diff and the blocking client. The `netconf-rs` crate was not enough
//! (DESIGN.md): it lacks base:1.1 framing, key auth, host-key checks and edit-config.

pub mod client;
pub mod framing;
