//! Arista EOS: the canonical line form of its configs and the facts its lines state.

pub mod canon;
pub mod facts;
