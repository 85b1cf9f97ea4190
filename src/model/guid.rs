//! InfiniBand port GUIDs of the installed nodes, imported from captures (`railyard ib import`):
//! what OpenSM's partitions.conf names members by.

use std::collections::BTreeMap;
use std::fmt;

/// A 64-bit EUI-64 port GUID; printed as OpenSM and `ibstat` print it (`0x` + 16 hex digits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Guid(pub u64);

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:016x}", self.0)
    }
}

impl Guid {
    /// `0xb8cef60300000001`, `b8cef60300000001` or `b8ce:f603:0000:0001` (ibstat -p, UFM, sysfs).
    pub fn parse(s: &str) -> Option<Guid> {
        let s = s.trim();
        let hex = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s)
            .replace(':', "");
        if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(&hex, 16).ok().map(Guid)
    }
}

/// Port GUID of each node port: (node name, catalog port name) → GUID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortGuids(pub BTreeMap<(String, String), Guid>);

impl PortGuids {
    pub fn get(&self, node: &str, port: &str) -> Option<Guid> {
        self.0.get(&(node.to_string(), port.to_string())).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_forms() {
        let g = Guid(0xb8ce_f603_0000_0001);
        assert_eq!(Guid::parse("0xb8cef60300000001"), Some(g));
        assert_eq!(Guid::parse("b8cef60300000001"), Some(g));
        assert_eq!(Guid::parse("b8ce:f603:0000:0001"), Some(g));
        assert_eq!(g.to_string(), "0xb8cef60300000001");
        assert_eq!(Guid::parse("0x"), None);
        assert_eq!(Guid::parse("0x1b8cef60300000001"), None);
        assert_eq!(Guid::parse("xyz"), None);
    }
}
