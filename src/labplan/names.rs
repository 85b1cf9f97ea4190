//! The kernel's names of the lab's objects: a namespace per device and per tenant VRF of a leaf,
//! and an interface per cabled port, named as the cabling plan's port when the name fits.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Every namespace of a lab starts with this, followed by `-` (devices) or `.` (tenant VRFs).
pub const PREFIX: &str = "rylab";

/// Linux limits interface names to 15 bytes (IFNAMSIZ − 1).
pub const IFNAMSIZ_MAX: usize = 15;

/// A port whose name the kernel cannot take, and the interface name it runs under instead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Renamed {
    pub device: String,
    pub port: String,
    pub ifname: String,
}

/// Namespace of a device.
pub fn device_ns(device: &str) -> String {
    format!("{PREFIX}-{device}")
}

/// Namespace of a tenant VRF on a leaf (`.` never starts a device name's suffix, so the two
/// kinds never collide).
pub fn vrf_ns(leaf: &str, vrf: &str) -> String {
    format!("{PREFIX}.{leaf}.{vrf}")
}

/// A kernel-safe interface name, unique on its device: the port name when it fits, else its
/// first characters and a counter.
pub(super) fn ifname(port: &str, used: &mut BTreeSet<String>) -> String {
    let ok = |s: &str| {
        !s.is_empty()
            && s.len() <= IFNAMSIZ_MAX
            && s != "."
            && s != ".."
            && !s.contains(['/', ':'])
            && !s.chars().any(char::is_whitespace)
    };
    if ok(port) && used.insert(port.to_string()) {
        return port.to_string();
    }
    let stem: String = port
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(IFNAMSIZ_MAX - 4)
        .collect();
    for k in 0u32.. {
        let name = format!("{stem}-{k}");
        if used.insert(name.clone()) {
            return name;
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_port_names_are_mapped_to_unique_kernel_names() {
        let mut used = BTreeSet::new();
        assert_eq!(ifname("swp1s0", &mut used), "swp1s0");
        let long = ifname("enp154s0f1np1extra", &mut used);
        assert!(long.len() <= IFNAMSIZ_MAX, "{long}");
        assert_eq!(long, "enp154s0f1n-0");
        assert_eq!(ifname("swp1s0", &mut used), "swp1s0-0");
    }

    #[test]
    fn device_and_vrf_namespaces_never_collide() {
        assert_eq!(device_ns("leaf1"), "rylab-leaf1");
        assert_eq!(vrf_ns("leaf1", "t1"), "rylab.leaf1.t1");
    }
}
