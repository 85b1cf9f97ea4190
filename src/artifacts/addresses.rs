//! The address plan: every allocated address with its device, interface and purpose — the IPAM
//! view of the allocation (loopbacks, VTEPs, management and BMC addresses with their VLAN, the
//! OOB gateway's address in every management subnet, both ends of every numbered link), for
//! import into an IPAM and for host provisioning.

use super::names::LinkNames;
use crate::addressing::Allocation;
use crate::model::Role;
use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{Fabric, PortId};

pub const COLUMNS: [Column; 7] = [
    Column::text("device"),
    Column::text("interface"),
    Column::text("address"),
    Column::text("family"),
    Column::text("purpose"),
    Column::text("network"),
    Column::text("peer"),
];

pub fn addresses_csv(f: &Fabric, a: &Allocation, n: &LinkNames) -> Result<OutputFile, FileError> {
    let mut w = Writer::new(&COLUMNS);
    let row = |w: &mut Writer,
               dev: &str,
               ifname: &str,
               addr: &ipnet::IpNet,
               purpose: &str,
               net: &str,
               peer: &str| {
        let fam = if addr.addr().is_ipv4() {
            "ipv4"
        } else {
            "ipv6"
        };
        w.row([dev, ifname, &addr.to_string(), fam, purpose, net, peer]);
    };
    for d in f.devices() {
        let Some(da) = a.devices.get(&d.name) else {
            continue;
        };
        let net = d.network.as_str();
        for (addr, purpose) in [
            (&da.loopback, "loopback"),
            (&da.loopback_v6, "loopback"),
            (&da.vtep, "vtep"),
        ] {
            if let Some(x) = addr {
                row(&mut w, &d.name, "lo", x, purpose, net, "");
            }
        }
        if let Some(m) = &da.mgmt {
            let purpose = if d.role.is_switch() { "mgmt" } else { "bmc" };
            let gw = da
                .mgmt_gateway
                .map(|g| format!("gateway {g}"))
                .unwrap_or_default();
            let gw = match da.mgmt_vlan {
                Some(v) => format!("{gw} vlan {v}"),
                None => gw,
            };
            // OOB switches are managed on their management VLAN's interface.
            let ifname = match (d.role.is_oob(), da.mgmt_vlan) {
                (true, Some(v)) => format!("vlan{v}"),
                _ => f.port_name(d, PortId::Mgmt),
            };
            row(&mut w, &d.name, &ifname, m, purpose, "oob", &gw);
        }
    }
    // The gateway every management route points at: its address in each subnet.
    if let Some(g) = f.devices().find(|d| d.role == Role::OobGateway) {
        for (vlan, s) in &a.mgmt_subnets {
            let peer = format!("{} {}", s.name, s.subnet);
            row(
                &mut w,
                &g.name,
                &format!("vlan{vlan}"),
                &s.gateway,
                "mgmt-gateway",
                "oob",
                &peer,
            );
        }
    }
    for (i, l) in f.links_with_ids() {
        let la = &a.links[i];
        let (lo, up) = (f.device_of(&l.a), f.device_of(&l.b));
        let purpose = if lo.role.is_switch() {
            "fabric-link"
        } else {
            "host-link"
        };
        let net = l.network.as_str();
        let (lp, up_p) = (&n.a_port[i], &n.b_port[i]);
        let lo_peer = format!("{}:{up_p}", up.name);
        let up_peer = format!("{}:{lp}", lo.name);
        for (addr, dev, port, peer) in [
            (&la.a, lo, lp, &lo_peer),
            (&la.a6, lo, lp, &lo_peer),
            (&la.b, up, up_p, &up_peer),
            (&la.b6, up, up_p, &up_peer),
        ] {
            if let Some(x) = addr {
                row(&mut w, &dev.name, port, x, purpose, net, peer);
            }
        }
    }
    Ok(OutputFile::new(
        OutputGroup::Addresses,
        "addresses.csv",
        w.finish().in_file("addresses.csv")?,
    ))
}
