//! One real node's PCI topology read back (`lspci -tv`): the parser a node-model import will
//! build on. No command uses it yet: a verified node model is declared in the spec's `catalog:`
//! (`railyard explain RY0902`).
pub mod lspci;
