//! OpenConfig XML (`openconfig.xml`), rendered for every Ethernet switch whatever its platform: the
//! payload of the generic `netconf` push driver. One NETCONF `<config>` document holding the
//! `openconfig-interfaces` tree: every cabled data port, the loopback(s) and the management port
//! (the driver replaces whole top-level trees, so an `interfaces` tree without the management
//! port would remove it), each with type, MTU, description and `enabled`, and their addresses
//! on subinterface 0 via `openconfig-if-ip`. Validated offline with `yanglint` against the
//! OpenConfig models (`tests/render/openconfig.rs`) and pushed to a real NETCONF server loading the
//! same modules (`tests/push/push_rendered.rs`): openconfig-interfaces and openconfig-if-ip 3.6.0,
//! the last revision without the openconfig-network-instance import servers like yuma123
//! cannot load.
//!
//! Not expressed (yet): BGP, QoS, VLAN/VRF membership and breakouts; the platform's own config
//! carries them.

use std::io;

use ipnet::IpNet;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::RenderError;
use crate::intent::DeviceIntent;

pub const NS_NETCONF: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";
pub const NS_INTERFACES: &str = "http://openconfig.net/yang/interfaces";
pub const NS_IP: &str = "http://openconfig.net/yang/interfaces/ip";
pub const NS_IANAIFT: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";

/// One `interface` entry of the tree.
struct OcInterface<'a> {
    name: String,
    /// `iana-if-type` identity, without prefix.
    kind: &'static str,
    mtu: Option<u32>,
    description: &'a str,
    ipv4: Vec<IpNet>,
    ipv6: Vec<IpNet>,
    /// IPv6 on without a global address: link-local for unnumbered BGP (RFC 5549).
    ipv6_enabled: bool,
}

/// `configs/<device>/openconfig.xml`.
pub fn render(d: &DeviceIntent) -> Result<(String, String), RenderError> {
    let text = document(&interfaces(d)).map_err(|e| RenderError {
        device: d.hostname.clone(),
        template: "openconfig.xml".into(),
        message: e.to_string(),
    })?;
    Ok(("openconfig.xml".into(), text))
}

fn interfaces(d: &DeviceIntent) -> Vec<OcInterface<'_>> {
    let mut out = Vec::new();
    if let Some(m) = &d.system.mgmt {
        out.push(OcInterface {
            name: m.interface.clone(),
            kind: "ethernetCsmacd",
            mtu: None,
            description: "management",
            ipv4: v4(&[m.address]),
            ipv6: v6(&[m.address]),
            ipv6_enabled: false,
        });
    }
    out.extend(loopbacks(d));
    for i in &d.interfaces {
        let addrs: Vec<IpNet> = i.ipv4.iter().chain(&i.ipv6).copied().collect();
        out.push(OcInterface {
            name: i.name.clone(),
            kind: "ethernetCsmacd",
            mtu: Some(i.mtu),
            description: &i.description,
            ipv4: v4(&addrs),
            ipv6: v6(&addrs),
            // Unnumbered fabric ports peer over IPv6 link-local.
            ipv6_enabled: i.ipv6.is_some()
                || d.bgp.as_ref().is_some_and(|b| {
                    b.unnumbered && b.neighbors.iter().any(|n| n.interface == i.name)
                }),
        });
    }
    out
}

/// The platform's loopback names (its row): EOS puts the VTEP on Loopback1, the others share one
/// loopback.
fn loopbacks(d: &DeviceIntent) -> Vec<OcInterface<'_>> {
    let lo = &d.loopback;
    let evpn_vtep = d.evpn.as_ref().and_then(|e| e.vtep);
    let row = d.platform.row();
    let (main, vtep_lo) = (row.loopback, row.vtep_loopback);
    let mut main_addrs: Vec<IpNet> = lo.ipv4.iter().chain(&lo.ipv6).copied().collect();
    let mut vtep_addrs: Vec<IpNet> = Vec::new();
    for vtep in lo.vtep.iter().chain(&evpn_vtep) {
        let target = match vtep_lo {
            Some(_) if Some(*vtep) != lo.ipv4 => &mut vtep_addrs,
            _ => &mut main_addrs,
        };
        if !target.contains(vtep) {
            target.push(*vtep);
        }
    }
    let mut out = Vec::new();
    for (name, description, addrs) in [
        (Some(main), "router-id", main_addrs),
        (vtep_lo, "vtep", vtep_addrs),
    ] {
        let Some(name) = name else { continue };
        if addrs.is_empty() {
            continue;
        }
        out.push(OcInterface {
            name: name.into(),
            kind: "softwareLoopback",
            mtu: None,
            description,
            ipv4: v4(&addrs),
            ipv6: v6(&addrs),
            ipv6_enabled: false,
        });
    }
    out
}

fn v4(a: &[IpNet]) -> Vec<IpNet> {
    a.iter()
        .filter(|n| matches!(n, IpNet::V4(_)))
        .copied()
        .collect()
}

fn v6(a: &[IpNet]) -> Vec<IpNet> {
    a.iter()
        .filter(|n| matches!(n, IpNet::V6(_)))
        .copied()
        .collect()
}

type W = Writer<Vec<u8>>;

fn leaf(w: &mut W, name: &str, value: &str) -> io::Result<()> {
    w.create_element(name)
        .write_text_content(BytesText::new(value))?;
    Ok(())
}

fn document(ifs: &[OcInterface<'_>]) -> io::Result<String> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("config")
        .with_attribute(("xmlns", NS_NETCONF))
        .write_inner_content(|w| {
            w.create_element("interfaces")
                .with_attribute(("xmlns", NS_INTERFACES))
                .write_inner_content(|w| {
                    for i in ifs {
                        interface(w, i)?;
                    }
                    Ok(())
                })?;
            Ok(())
        })?;
    let mut bytes = w.into_inner();
    bytes.push(b'\n');
    String::from_utf8(bytes).map_err(io::Error::other)
}

fn interface(w: &mut W, i: &OcInterface<'_>) -> io::Result<()> {
    w.create_element("interface").write_inner_content(|w| {
        leaf(w, "name", &i.name)?;
        w.create_element("config").write_inner_content(|w| {
            leaf(w, "name", &i.name)?;
            w.create_element("type")
                .with_attribute(("xmlns:ianaift", NS_IANAIFT))
                .write_text_content(BytesText::new(&format!("ianaift:{}", i.kind)))?;
            if let Some(mtu) = i.mtu {
                leaf(w, "mtu", &mtu.to_string())?;
            }
            leaf(w, "description", i.description)?;
            leaf(w, "enabled", "true")?;
            Ok(())
        })?;
        if !i.ipv4.is_empty() || !i.ipv6.is_empty() || i.ipv6_enabled {
            subinterface(w, i)?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Subinterface 0 with its `openconfig-if-ip` addresses.
fn subinterface(w: &mut W, i: &OcInterface<'_>) -> io::Result<()> {
    w.create_element("subinterfaces").write_inner_content(|w| {
        w.create_element("subinterface").write_inner_content(|w| {
            leaf(w, "index", "0")?;
            w.create_element("config").write_inner_content(|w| {
                leaf(w, "index", "0")?;
                leaf(w, "enabled", "true")?;
                Ok(())
            })?;
            if !i.ipv4.is_empty() {
                family(w, "ipv4", &i.ipv4, false)?;
            }
            if !i.ipv6.is_empty() || i.ipv6_enabled {
                family(w, "ipv6", &i.ipv6, true)?;
            }
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}

fn family(w: &mut W, name: &str, addrs: &[IpNet], enabled: bool) -> io::Result<()> {
    w.create_element(name)
        .with_attribute(("xmlns", NS_IP))
        .write_inner_content(|w| {
            if !addrs.is_empty() {
                w.create_element("addresses").write_inner_content(|w| {
                    for a in addrs {
                        let ip = a.addr().to_string();
                        w.create_element("address").write_inner_content(|w| {
                            leaf(w, "ip", &ip)?;
                            w.create_element("config").write_inner_content(|w| {
                                leaf(w, "ip", &ip)?;
                                leaf(w, "prefix-length", &a.prefix_len().to_string())?;
                                Ok(())
                            })?;
                            Ok(())
                        })?;
                    }
                    Ok(())
                })?;
            }
            if enabled {
                w.create_element("config").write_inner_content(|w| {
                    leaf(w, "enabled", "true")?;
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    Ok(())
}
