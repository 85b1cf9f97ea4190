//! What NVUE's canonical lines (`interface > swp1 > link > mtu = 9216`, `canon.rs`) state for
//! disruptive changes.

use crate::meaning::disruptive::{Fact, LineForm, Peer, Scope};
use crate::meaning::tree;

/// NVUE configuration trees.
pub struct NvueLines;

impl LineForm for NvueLines {
    fn facts(&self, lines: &[String]) -> Vec<Fact> {
        let mut out = Vec::new();
        for l in lines {
            let (k, v) = tree::split(l);
            bgp(&k, v, &mut out);
            interface(&k, v, &mut out);
        }
        out
    }

    fn existed(&self, before: &[String], iface: &str) -> bool {
        let prefix = format!("interface > {iface} > ");
        before.iter().any(|l| l.starts_with(&prefix))
    }
}

/// `… > bgp > autonomous-system`, `… > bgp > router-id` (keyed by the container holding them)
/// and `… > bgp > neighbor > <peer> > …`.
fn bgp(k: &[&str], v: &str, out: &mut Vec<Fact>) {
    let n = k.len();
    if n >= 2 && k[n - 2] == "bgp" {
        let of = Scope::Path(k[..n - 1].join(" > "));
        let value = v.to_string();
        match k[n - 1] {
            "autonomous-system" => out.push(Fact::Asn { of, value }),
            "router-id" => out.push(Fact::RouterId { of, value }),
            _ => {}
        }
    }
    if let Some(i) = k.iter().position(|x| *x == "neighbor")
        && i >= 1
        && k[i - 1] == "bgp"
        && let Some(peer) = k.get(i + 1)
    {
        let remote_as = (k.get(i + 2) == Some(&"remote-as") && !v.is_empty()).then(|| v.into());
        out.push(Fact::Session {
            peer: Peer::Path(format!("{} > {peer}", k[..=i].join(" > "))),
            remote_as,
        });
    }
}

/// `interface > <name> > {ipv4,ipv6,ip} > address > <address>`, `… > link > mtu`,
/// `… > link > breakout > …`.
fn interface(k: &[&str], v: &str, out: &mut Vec<Fact>) {
    let n = k.len();
    if k.first() != Some(&"interface") || n < 2 {
        return;
    }
    let iface = k[1].to_string();
    if n >= 5 && (k[2] == "ipv4" || k[2] == "ipv6" || k[2] == "ip") && k[3] == "address" {
        out.push(Fact::Address {
            iface: iface.clone(),
            address: k[4].to_string(),
        });
    }
    if n == 4 && k[2] == "link" && k[3] == "mtu" {
        out.push(Fact::Mtu {
            iface: iface.clone(),
            value: v.to_string(),
        });
    }
    if n >= 4 && k[2] == "link" && k[3] == "breakout" {
        out.push(Fact::Breakout {
            iface,
            value: format!("{} {v}", k[4..].join(" ")).trim().to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::disruptive::{findings, lines};

    #[test]
    fn nvue_tree() {
        let f = findings(
            &NvueLines,
            &lines(&["interface > swp1 > link > mtu = 9216"]),
            &lines(&[
                "router > bgp > autonomous-system = 65001",
                "vrf > default > router > bgp > neighbor > swp51 > remote-as = external",
                "interface > swp1 > link > mtu = 9216",
            ]),
            &lines(&[
                "router > bgp > autonomous-system = 65002",
                "interface > swp1 > link > mtu = 1500",
            ]),
        );
        assert_eq!(f.len(), 3, "{f:#?}");
        assert!(
            f[0].starts_with("BGP ASN (router > bgp): 65001 → 65002"),
            "{f:#?}"
        );
    }
}
