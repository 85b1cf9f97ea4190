//! `hosts/nodes/<node>/netplan.yaml`: the compute NICs of one node on a RoCE fabric — the /31
//! of each NIC port (even end; the leaf holds the odd end), the MTU, and rail routing.
//!
//! Rail routing: every NIC port sits alone in its /31 behind its own leaf, and all GPU /31s come
//! from one supernet (`addressing.gpu`). A single main-table route to the supernet would send all
//! traffic out of one NIC, so each port gets its own routing table holding the supernet via its
//! leaf-side address, and a source rule (`from <NIC address> table <n>`) selects that table.
//! RDMA connections always leave from the address of the NIC they were opened on (its GID), so
//! each rail's traffic exits on its own NIC and returns the same way — the per-NIC policy routing
//! used for multi-NIC RoCE hosts. Table `100 + (rail-1) × planes + plane` is stable under growth.

use serde::Serialize;

use crate::catalog::NodeModel;
use crate::intent::host::{HostIntent, HostIntents};
use crate::output::FileError;
use crate::output::{OutputFile, OutputGroup};

#[derive(Serialize)]
struct Netplan {
    network: Network,
}

#[derive(Serialize)]
struct Network {
    version: u8,
    renderer: &'static str,
    ethernets: Ordered,
}

/// Interfaces in rail order (a map keyed by interface name, but not sorted by it).
struct Ordered(Vec<(String, Ethernet)>);

impl Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct Ethernet {
    addresses: Vec<String>,
    mtu: u32,
    /// No DHCP on fabric ports: addresses are planned.
    dhcp4: bool,
    dhcp6: bool,
    routes: Vec<Route>,
    #[serde(rename = "routing-policy")]
    routing_policy: Vec<Policy>,
}

#[derive(Serialize)]
struct Route {
    to: String,
    via: String,
    table: u32,
}

#[derive(Serialize)]
struct Policy {
    from: String,
    table: u32,
}

/// The node's netplan file `path`; `None` when the node has no compute NIC to configure.
fn node_file(
    path: &str,
    h: &HostIntents,
    model: &NodeModel,
    node: &HostIntent,
) -> Result<Option<String>, FileError> {
    let mut ethernets: Vec<(String, Ethernet)> = Vec::new();
    let mut skipped = Vec::new();
    for p in &node.ports {
        let (Some(dev), Some(addr)) = (&p.netdev, p.address) else {
            skipped.push(p.port.as_str());
            continue;
        };
        let table = 100 + (p.rail.saturating_sub(1)) * h.planes.max(1) + p.plane.unwrap_or(1);
        let mut routes = Vec::new();
        let mut routing_policy = Vec::new();
        let mut addresses = vec![addr.to_string()];
        for (own, gw, pool) in [
            (Some(addr), p.gateway, h.gpu_pool),
            (p.address_v6, p.gateway_v6, h.gpu_pool_v6),
        ] {
            let Some(own) = own else { continue };
            if own != addr {
                addresses.push(own.to_string());
            }
            if let (Some(gw), Some(pool)) = (gw, pool) {
                routes.push(Route {
                    to: pool.to_string(),
                    via: gw.to_string(),
                    table,
                });
            }
            routing_policy.push(Policy {
                from: own.addr().to_string(),
                table,
            });
        }
        ethernets.push((
            dev.clone(),
            Ethernet {
                addresses,
                mtu: p.mtu,
                dhcp4: false,
                dhcp6: false,
                routes,
                routing_policy,
            },
        ));
    }
    if ethernets.is_empty() {
        return Ok(None);
    }
    let mut head = format!(
        "# railyard: compute NICs of {} (rail order; per-NIC routing table + source rule per rail)\n",
        node.name
    );
    if node.ports.iter().any(|p| p.netdev_derived) {
        head.push_str(
            "# Interface names derived from PCI bus ids by systemd's naming: check with `ibdev2netdev`.\n",
        );
    }
    if let Some(p) = &model.pcie {
        for u in &p.unverified {
            head.push_str(&format!("# UNVERIFIED: {u}\n"));
        }
    }
    for s in skipped {
        head.push_str(&format!(
            "# {s}: no interface name or address planned, not configured\n"
        ));
    }
    let doc = Netplan {
        network: Network {
            version: 2,
            renderer: "networkd",
            ethernets: Ordered(ethernets),
        },
    };
    Ok(Some(head + &crate::artifacts::printed::yaml(path, &doc)?))
}

pub fn files(h: &HostIntents, model: &NodeModel) -> Result<Vec<OutputFile>, FileError> {
    let mut out = Vec::new();
    for (name, node) in &h.nodes {
        let path = format!("hosts/nodes/{name}/netplan.yaml");
        if let Some(text) = node_file(&path, h, model, node)? {
            out.push(OutputFile::new(OutputGroup::Hosts, path, text));
        }
    }
    Ok(out)
}
