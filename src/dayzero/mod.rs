//! Day zero: what a switch out of its box needs to provision itself. The device identities (MAC
//! address, serial number) an operator imports from an inventory (`railyard build --identities
//! FILE`, `docs/day-zero.md`), checked against the plan's devices; from them and the plan, the
//! management network's DHCP server configuration (ISC Kea, `dayzero/kea-dhcp4.json`): a
//! reservation per switch by MAC or by the serial Cumulus Linux 5.10+ sends as its DHCP client
//! id (as NVIDIA Config Manager reserves), pointing at its OS's ZTP file under the provisioning
//! URL.
//!
//! Pure: the parser takes a [`crate::diag::SourceFile`] and reports every problem located in
//! that file; identities never change a planned address (they are read beside the design, never
//! fed back into it).

mod dhcp;
mod files;
mod hw;
mod identities;
pub mod kea;
mod order;
mod served;
mod url;
mod ztp;

pub use dhcp::kea_dhcp4;
pub use files::files;
pub use hw::{Mac, Serial};
pub use identities::{Identities, Identity, parse};
pub use served::{ZtpOption, first_file, serial_client_id};
pub use url::{ProvisioningUrl, UrlError};
