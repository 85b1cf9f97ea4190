//! NETCONF's side of config meaning: the XML element tree (`xml.rs`), the payload railyard
//! renders (`payload.rs`), its canonical lines (`canon.rs`) and the facts they state (`facts.rs`).

pub mod canon;
pub mod facts;
pub mod payload;
pub mod xml;
