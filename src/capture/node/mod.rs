//! One real node's PCI topology → a catalog node model with a verified PCIe layout
//! (`railyard hosts import`).
pub mod lspci;
