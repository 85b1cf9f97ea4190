//! Day zero: what a switch out of its box needs to provision itself. First piece: the device
//! identities (MAC address, serial number) an operator imports from an inventory
//! (`railyard build --identities FILE`, `docs/day-zero.md`), checked against the plan's devices.
//! A DHCP server's reservations are keyed on them (NVIDIA Config Manager reserves by MAC or by
//! the serial number Cumulus Linux 5.10+ sends as its DHCP client id).
//!
//! Pure: the parser takes a [`crate::diag::SourceFile`] and reports every problem located in
//! that file; identities never change a planned address (they are read beside the design, never
//! fed back into it).

mod hw;
mod identities;

pub use hw::{Mac, Serial};
pub use identities::{Identities, Identity, parse};
