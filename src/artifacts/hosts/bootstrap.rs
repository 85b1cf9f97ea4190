//! `NCCL_SOCKET_IFNAME`: the interface NCCL bootstraps over, which must route between nodes in
//! the main routing table.
//!
//! How NCCL uses it (NVIDIA/nccl v2.30.7-1): `bootstrapNetInit` (src/bootstrap.cc) takes the
//! first interface `ncclFindInterfaces` returns (src/misc/socket.cc → `ncclOsFindInterfaces`,
//! src/os/linux.cc): getifaddrs order, running interfaces only, matched against the list by
//! name prefix (`^` excludes, `=` matches exactly, at most `MAX_IFS` = 16 entries read by
//! `parseStringList`). Its listening socket is bound to that interface's address
//! (`ncclSocketListen`); the other ranks connect to that address from unbound sockets
//! (`ncclSocketConnect` binds nothing), so their kernel picks the route in the main table.
//!
//! A rail NIC is the wrong answer on a RoCE fabric: `netplan.yaml` puts each rail's route to the
//! GPU supernet in its own table, chosen by a rule on the NIC's source address, and the main
//! table holds only the NICs' own /31s. A rank connecting to another node's rail address from
//! an unbound socket finds no route to it in the main table (or the management default route).
//! `^lo,docker`, the old default, matches every rail NIC, and the first one getifaddrs lists is
//! usually one. So the default excludes, besides NCCL's own `lo` and `docker`, every interface
//! `netplan.yaml` routes per rail: what is left is the in-band (or management) interface, the one
//! that routes between nodes in the main table. railyard plans the in-band /31s
//! (`addresses.csv`) but writes no node configuration for them and knows no Linux name for them
//! (the catalog names in-band ports by their label), so it cannot write `=<in-band>`; a spec
//! that knows it says so in `hosts.socket_ifname` (`=bond0`), which is used as written.

use std::collections::BTreeSet;

use crate::intent::host::HostIntents;
use crate::model::Transport;

/// NCCL's own exclusions (`ncclFindInterfaces` skips `docker` and `lo` when nothing is set).
const BASE: &str = "^lo,docker";

/// `MAX_IFS` (src/include/socket.h): `parseStringList` ignores entries past this many.
const NCCL_MAX_IFS: usize = 16;

/// The value of `NCCL_SOCKET_IFNAME`, with the notes that explain it.
pub(super) fn socket_ifname(h: &HostIntents, inband: &[String], notes: &mut Vec<String>) -> String {
    if let Some(v) = &h.socket_ifname {
        return v.clone();
    }
    let where_inband = if inband.is_empty() {
        "the spec has no in-band network, so that is the nodes' management interface".to_string()
    } else {
        format!(
            "the in-band port(s) {} of the node model: railyard plans their addresses \
             (addresses.csv) but not their Linux names; set hosts.socket_ifname (e.g. =bond0) to \
             name them",
            inband.join(", ")
        )
    };
    let rails = rail_netdevs(h);
    if rails.is_empty() {
        notes.push(format!(
            "NCCL_SOCKET_IFNAME: NCCL bootstraps over the first running interface not listed \
             ({where_inband})"
        ));
        return BASE.into();
    }
    if rails.len() + 2 > NCCL_MAX_IFS {
        notes.push(format!(
            "NCCL_SOCKET_IFNAME could not exclude the {} rail NICs (NCCL reads at most {} \
             entries): it may bootstrap over a rail NIC, whose routes are in per-rail tables; \
             set hosts.socket_ifname to the in-band interface",
            rails.len(),
            NCCL_MAX_IFS
        ));
        return BASE.into();
    }
    notes.push(format!(
        "NCCL_SOCKET_IFNAME excludes the rail NICs: netplan.yaml routes them in per-rail tables \
         chosen by source address, and NCCL's bootstrap connects from unbound sockets (main \
         table). It bootstraps over the first other running interface ({where_inband})"
    ));
    let mut v = BASE.to_string();
    for r in rails {
        v.push(',');
        v.push_str(r);
    }
    v
}

/// Every interface some node's `netplan.yaml` configures (a RoCE NIC port with a name and an
/// address), sorted.
fn rail_netdevs(h: &HostIntents) -> BTreeSet<&str> {
    if h.transport != Some(Transport::Ethernet) {
        return BTreeSet::new();
    }
    h.nodes
        .values()
        .flat_map(|n| &n.ports)
        .filter(|p| p.address.is_some())
        .filter_map(|p| p.netdev.as_deref())
        .collect()
}
