//! What EOS's canonical lines (context paths, `canon.rs`) state for disruptive changes: the
//! context-path facts, with EOS's spelling of the router-id.

use crate::meaning::context::ContextLines;

/// EOS running-configs.
pub const EOS_LINES: ContextLines = ContextLines {
    router_id: "router-id ",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::disruptive::{findings, lines};

    #[test]
    fn eos_mtu_and_speed_but_not_on_new_interfaces() {
        let f = findings(
            &EOS_LINES,
            &lines(&[
                "interface Ethernet1",
                "interface Ethernet1 > mtu 1500",
                "interface Ethernet3",
            ]),
            &lines(&["interface Ethernet1 > mtu 1500"]),
            &lines(&[
                "interface Ethernet1 > mtu 9214",
                "interface Ethernet2",
                "interface Ethernet2 > mtu 9214",
                "interface Ethernet3 > speed 100g-4",
            ]),
        );
        assert_eq!(
            f,
            vec![
                "MTU on Ethernet1: 1500 → 9214 — frames of the old size are dropped until both ends agree",
                "speed/breakout on Ethernet3: default → 100g-4 — the port goes down",
            ]
        );
    }
}
