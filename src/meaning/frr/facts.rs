//! What FRR's canonical lines (context paths, `canon.rs`) state for disruptive changes: the
//! context-path facts, with FRR's spelling of the router-id.

use crate::meaning::context::ContextLines;

/// FRR running-configs (also SONiC's `frr.conf`).
pub const FRR_LINES: ContextLines = ContextLines {
    router_id: "bgp router-id ",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::disruptive::{findings, lines};

    #[test]
    fn frr_asn_change_is_one_finding() {
        let f = findings(
            &FRR_LINES,
            &[],
            &lines(&[
                "router bgp 65001",
                "router bgp 65001 > bgp router-id 10.0.0.1",
            ]),
            &lines(&[
                "router bgp 65002",
                "router bgp 65002 > bgp router-id 10.0.0.1",
            ]),
        );
        assert_eq!(
            f,
            vec!["BGP instance: router bgp 65001 → router bgp 65002 — every session of it resets"]
        );
    }

    #[test]
    fn frr_router_id_session_and_address() {
        let f = findings(
            &FRR_LINES,
            &[],
            &lines(&[
                "router bgp 65001 > bgp router-id 10.0.0.1",
                "router bgp 65001 > neighbor swp5 interface peer-group fabric",
                "router bgp 65001 > neighbor swp6 remote-as 65100",
                "interface swp1 > ip address 10.64.0.1/31",
            ]),
            &lines(&[
                "router bgp 65001 > bgp router-id 10.0.0.2",
                "router bgp 65001 > neighbor swp6 remote-as 65101",
                "interface swp1 > ip address 10.64.0.3/31",
            ]),
        );
        assert_eq!(
            f,
            vec![
                "BGP session removed: `router bgp 65001 > neighbor swp5`",
                "address on swp1: 10.64.0.1/31 → 10.64.0.3/31 — the peer on this link loses its session",
                "remote-as of `router bgp 65001 > neighbor swp6`: 65100 → 65101 — the session resets",
                "router-id of `router bgp 65001`: 10.0.0.1 → 10.0.0.2 — every session of the instance resets",
            ]
        );
        // Descriptions and added sessions are not disruptive.
        assert!(
            findings(
                &FRR_LINES,
                &[],
                &lines(&["router bgp 65001 > neighbor swp5 description old"]),
                &lines(&[
                    "router bgp 65001 > neighbor swp5 description new",
                    "router bgp 65001 > neighbor swp9 remote-as 65100"
                ]),
            )
            .is_empty()
        );
    }
}
