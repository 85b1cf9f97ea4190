//! What canonical OpenConfig lines (`/interfaces:interfaces/interface[name=swp1]/config/mtu =
//! 9216`, `push::netconf::canon`) state for disruptive changes.

use crate::meaning::disruptive::{Fact, LineForm, Peer, Scope};

/// OpenConfig paths with their values.
pub struct OpenConfigLines;

impl LineForm for OpenConfigLines {
    fn facts(&self, lines: &[String]) -> Vec<Fact> {
        let mut out = Vec::new();
        for l in lines {
            let (path, value) = l.split_once(" = ").unwrap_or((l, ""));
            if let Some(f) = interface(path, value)
                // An address is spread over several leaves (`ip`, `prefix-length`): once each.
                && !(matches!(f, Fact::Address { .. }) && out.contains(&f))
            {
                out.push(f);
            }
            let value = value.to_string();
            if path.ends_with("/global/config/as") {
                out.push(Fact::Asn {
                    of: Scope::Global,
                    value: value.clone(),
                });
            }
            if path.ends_with("/global/config/router-id") {
                out.push(Fact::RouterId {
                    of: Scope::Global,
                    value,
                });
            }
            if let Some(p) = key(path, "neighbor[neighbor-address=") {
                out.push(Fact::Session {
                    peer: Peer::Address(p.to_string()),
                    remote_as: None,
                });
            }
        }
        out
    }

    fn existed(&self, before: &[String], iface: &str) -> bool {
        let (entry, name) = (
            format!("/interfaces:interfaces/interface[name={iface}]/"),
            format!("/interface/name = {iface}"),
        );
        before
            .iter()
            .any(|l| l.starts_with(&entry) || l.ends_with(&name))
    }
}

/// The value of the first list key `list` (`interface[name=`) in a path.
fn key<'a>(path: &'a str, list: &str) -> Option<&'a str> {
    path.split(list).nth(1).and_then(|r| r.split(']').next())
}

/// An address, MTU or speed/breakout leaf of an interface.
fn interface(path: &str, value: &str) -> Option<Fact> {
    let iface = key(path, "interface[name=")
        .unwrap_or("the interface")
        .to_string();
    if path.contains("/addresses/address") {
        let ip = key(path, "address[ip=").map(str::to_string).or_else(|| {
            (path.ends_with("/address/ip") || path.ends_with("/address/config/ip"))
                .then(|| value.to_string())
        })?;
        Some(Fact::Address { iface, address: ip })
    } else if path.ends_with("/config/mtu") {
        Some(Fact::Mtu {
            iface,
            value: value.to_string(),
        })
    } else if path.contains("port-speed") || path.contains("breakout") {
        Some(Fact::Speed {
            iface,
            value: value.to_string(),
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::disruptive::{findings, lines};

    #[test]
    fn openconfig_mtu_and_address() {
        let p = "/interfaces:interfaces/interface[name=swp1]";
        let f = findings(
            &OpenConfigLines,
            &lines(&[&format!("{p}/name = swp1")]),
            &lines(&[
                &format!("{p}/config/mtu = 1500"),
                &format!("{p}/subinterfaces/subinterface/index = 0"),
                &format!(
                    "{p}/subinterfaces/subinterface/ip:ipv4/addresses/address/config/ip = 10.0.0.1"
                ),
            ]),
            &lines(&[
                &format!("{p}/config/mtu = 9216"),
                "/interfaces:interfaces/interface[name=swp2]/name = swp2",
                "/interfaces:interfaces/interface[name=swp2]/config/mtu = 9216",
            ]),
        );
        assert_eq!(
            f,
            vec![
                "MTU on swp1: 1500 → 9216 — frames of the old size are dropped until both ends agree",
                "address on swp1: 10.0.0.1 removed — the peer on this link loses its session",
            ]
        );
    }
}
