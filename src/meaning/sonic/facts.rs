//! What SONiC's canonical CONFIG_DB lines (`PORT > Ethernet0 > mtu = 9216`: `tree::lines` of
//! `config_db.json`) state for disruptive changes. The `frr.conf` half is FRR's
//! (`drivers::frr::facts`).

use crate::meaning::disruptive::{Fact, LineForm, Peer, Scope};
use crate::meaning::tree;

/// CONFIG_DB tables.
pub struct ConfigDbLines;

impl LineForm for ConfigDbLines {
    fn facts(&self, lines: &[String]) -> Vec<Fact> {
        let mut out = Vec::new();
        for l in lines {
            let (k, v) = tree::split(l);
            let key = |s: &str| s.to_string();
            let value = v.to_string();
            out.extend(match k.as_slice() {
                ["DEVICE_METADATA", "localhost", "bgp_asn"] => Some(Fact::Asn {
                    of: Scope::Path("DEVICE_METADATA".into()),
                    value,
                }),
                ["BGP_NEIGHBOR", peer, rest @ ..] => Some(Fact::Session {
                    peer: Peer::Row(key(peer)),
                    remote_as: (rest == ["asn"] && !v.is_empty()).then_some(value),
                }),
                [table, row, ..] if table.ends_with("INTERFACE") && row.contains('|') => {
                    let (iface, a) = row.split_once('|').unwrap_or((row, ""));
                    Some(Fact::Address {
                        iface: key(iface),
                        address: key(a.rsplit('|').next().unwrap_or(a)),
                    })
                }
                ["PORT" | "PORTCHANNEL", port, "mtu"] => Some(Fact::Mtu {
                    iface: key(port),
                    value,
                }),
                ["BREAKOUT_CFG", port, "brkout_mode"] => Some(Fact::Breakout {
                    iface: key(port),
                    value,
                }),
                _ => None,
            });
        }
        out
    }

    fn existed(&self, before: &[String], iface: &str) -> bool {
        let (port, channel) = (
            format!("PORT > {iface} > "),
            format!("PORTCHANNEL > {iface} > "),
        );
        before
            .iter()
            .any(|l| l.starts_with(&port) || l.starts_with(&channel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::disruptive::{findings, lines};

    #[test]
    fn a_new_port_with_an_mtu_is_not_disruptive() {
        let added = lines(&[
            "PORT > Ethernet4 > mtu = 9216",
            "PORT > Ethernet4 > lanes = 4,5,6,7",
        ]);
        assert!(findings(&ConfigDbLines, &[], &[], &added).is_empty());
        let before = lines(&["PORT > Ethernet4 > lanes = 4,5,6,7"]);
        assert_eq!(
            findings(&ConfigDbLines, &before, &[], &added[..1]),
            vec![
                "MTU on Ethernet4: default → 9216 — frames of the old size are dropped until both ends agree"
            ]
        );
    }

    #[test]
    fn sonic_tree() {
        let f = findings(
            &ConfigDbLines,
            &lines(&["PORT > Ethernet0 > lanes = 0,1,2,3"]),
            &lines(&[
                "BGP_NEIGHBOR > 10.0.0.1 > asn = 65100",
                "INTERFACE > Ethernet0|10.0.0.0/31 = {}",
                "BREAKOUT_CFG > Ethernet0 > brkout_mode = 1x400G",
            ]),
            &lines(&["BREAKOUT_CFG > Ethernet0 > brkout_mode = 4x100G"]),
        );
        assert_eq!(
            f,
            vec![
                "BGP session removed: BGP_NEIGHBOR 10.0.0.1",
                "address on Ethernet0: 10.0.0.0/31 removed — the peer on this link loses its session",
                "breakout on Ethernet0: 1x400G → 4x100G — the port goes down and becomes other ports",
            ]
        );
    }
}
