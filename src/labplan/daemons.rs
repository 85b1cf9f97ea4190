//! The FRR daemons a switch's `frr.conf` needs, read from the intent it is rendered from (the
//! sections of `templates/frr/`), never from the rendered text.

use crate::intent::DeviceIntent;

/// Daemons the lab knows how to start, in start order (zebra first: the others connect to it).
pub const DAEMONS: [&str; 4] = ["zebra", "bgpd", "staticd", "bfdd"];

/// The daemons of one switch, in [`DAEMONS`] order: zebra always; bgpd for `router bgp`
/// (`bgp.j2`, also the tenant VRFs' instances); staticd for static routes (FRR 8.4 moved
/// `ip route` there): the management VRF's default route (`system.j2`) and an OOB switch's
/// default gateway (`l2.j2`); bfdd for the `bfd` profile and the BFD-enabled peer group
/// (`bfd.j2`, `bgp.j2`).
pub fn daemons_of(d: &DeviceIntent) -> Vec<String> {
    let bgp = d.bgp.is_some();
    let statics =
        d.system.mgmt.is_some() || d.l2.as_ref().is_some_and(|l2| l2.default_gateway.is_some());
    let bfd = d.bgp.as_ref().is_some_and(|b| b.bfd.is_some());
    DAEMONS
        .iter()
        .zip([true, bgp, statics, bfd])
        .filter(|(_, on)| *on)
        .map(|(d, _)| (*d).to_string())
        .collect()
}
