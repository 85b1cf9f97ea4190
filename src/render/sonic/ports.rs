//! The port table of the whole switch: every front-panel cage of the platform, in the breakout
//! the cabling plan uses or, for a cage nothing is cabled to, the HWSKU's default; the cabling
//! peers (DEVICE_NEIGHBOR); routed interfaces and loopback. Auto-negotiation of switch-to-switch
//! PAM4 links: `link.rs`.
//!
//! Every cage is written, cabled or not, because `config reload` flushes CONFIG_DB: a port the
//! file does not name does not exist afterwards. Uncabled ports are administratively down.

use std::collections::{BTreeMap, BTreeSet};

use super::tables::{
    BreakoutCfg, ConfigDb, DeviceNeighbor, Empty, Interface as IntfRow, Key, Port,
};
use crate::catalog::sonic::{BreakoutMode, Hwsku, PlatformPort, SonicPlatform, SubPort};
use crate::intent::{DeviceIntent, Interface};
use crate::model::Speed;

/// MTU of a port nothing is cabled to when the switch has no cabled port to copy it from:
/// portmgrd's default (sonic-swss `cfgmgr/portmgr.h`, `DEFAULT_MTU_STR`). Otherwise an idle
/// port gets the fabric MTU of the cabled ones, so cabling it later needs no MTU change.
const DEFAULT_MTU: u32 = 9100;

/// One logical port of the switch.
pub struct LaidPort<'a> {
    pub sub: SubPort,
    pub speed_mbps: u32,
    /// The cabled interface on this port, if any.
    pub cabled: Option<&'a Interface>,
}

/// Every port of the switch, cage by cage.
pub fn layout<'a>(
    d: &'a DeviceIntent,
    platform: &SonicPlatform,
    hwsku: &Hwsku,
) -> Result<(Vec<LaidPort<'a>>, BTreeMap<u32, String>), String> {
    let used = used_cages(d, platform);
    let planned: BTreeMap<u32, (u32, Speed)> = d
        .sonic
        .iter()
        .flat_map(|t| &t.planned)
        .map(|p| (p.cage, (p.ports, p.speed)))
        .collect();
    let by_name: BTreeMap<&str, &Interface> =
        d.interfaces.iter().map(|i| (i.name.as_str(), i)).collect();
    let mut ports = Vec::new();
    let mut modes = BTreeMap::new();
    for cage in &platform.ports {
        let (mode, speed_mbps) = match used.get(&cage.cage).or(planned.get(&cage.cage)) {
            Some(&(n, speed)) => {
                let mode = cage.mode_for(n, speed).ok_or_else(|| {
                    format!(
                        "{} offers no {n}x{speed} mode on cage {} ({})",
                        platform.name, cage.cage, cage.name
                    )
                })?;
                (mode, speed.as_gbps().saturating_mul(1000))
            }
            None => {
                let mode = default_mode(cage, hwsku)?;
                (mode, mode.default_mbps)
            }
        };
        modes.insert(cage.cage, mode.name.clone());
        for sub in cage.sub_ports(mode) {
            let cabled = by_name.get(sub.name.as_str()).copied();
            ports.push(LaidPort {
                sub,
                speed_mbps,
                cabled,
            });
        }
    }
    let laid: BTreeSet<&str> = ports.iter().map(|p| p.sub.name.as_str()).collect();
    if let Some(i) = d
        .interfaces
        .iter()
        .find(|i| !laid.contains(i.name.as_str()))
    {
        return Err(format!(
            "interface {} is no port of {} in the breakouts in use",
            i.name, platform.name
        ));
    }
    Ok((ports, modes))
}

/// Cage → (ports, speed) for every cage the cabling plan uses: split cages from the intent's
/// breakouts, unsplit ones from the interface carrying the cage's own name.
fn used_cages(d: &DeviceIntent, platform: &SonicPlatform) -> BTreeMap<u32, (u32, Speed)> {
    let mut used: BTreeMap<u32, (u32, Speed)> = d
        .breakouts
        .iter()
        .map(|b| (b.cage, (b.ports, b.speed)))
        .collect();
    for i in &d.interfaces {
        if let Some(cage) = platform.ports.iter().find(|p| p.name == i.name)
            && !used.contains_key(&cage.cage)
        {
            used.insert(cage.cage, (1, i.speed));
        }
    }
    used
}

fn default_mode<'p>(cage: &'p PlatformPort, hwsku: &Hwsku) -> Result<&'p BreakoutMode, String> {
    match hwsku.default_modes.get(&cage.name) {
        Some(name) => cage.mode(name).ok_or_else(|| {
            format!(
                "{} default mode `{name}` of {} is not in platform.json",
                hwsku.name, cage.name
            )
        }),
        None => cage
            .modes
            .iter()
            .find(|m| m.ports == 1)
            .ok_or_else(|| format!("{} has no unsplit mode", cage.name)),
    }
}

/// PORT, BREAKOUT_CFG and DEVICE_NEIGHBOR.
pub fn ports(
    ports: &[LaidPort<'_>],
    modes: &BTreeMap<u32, String>,
    platform: &SonicPlatform,
    db: &mut ConfigDb,
) {
    let idle_mtu = ports
        .iter()
        .filter_map(|p| p.cabled.map(|i| i.mtu))
        .max()
        .unwrap_or(DEFAULT_MTU);
    for p in ports {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let an = super::link::autoneg(p.cabled, p.speed_mbps, p.sub.lanes.len());
        db.port.insert(
            Key(p.sub.name.clone()),
            Port {
                adv_speeds: an.as_ref().map(|a| a.1.clone()),
                admin_status: if p.cabled.is_some() { "up" } else { "down" },
                alias: p.sub.alias.clone(),
                autoneg: an.map(|a| a.0),
                description: p.cabled.map(|i| format!("{} [{}]", i.description, i.cable)),
                fec: p.sub.fec_rs.then_some("rs"),
                index: p.sub.index.to_string(),
                lanes: list(&p.sub.lanes),
                mtu: p.cabled.map_or(idle_mtu, |i| i.mtu).to_string(),
                speed: p.speed_mbps.to_string(),
                subport: p.sub.subport.to_string(),
            },
        );
        if let Some(i) = p.cabled {
            db.device_neighbor.insert(
                Key(p.sub.name.clone()),
                DeviceNeighbor {
                    name: i.peer_device.clone(),
                    port: i.peer_port.clone(),
                },
            );
        }
    }
    // BREAKOUT_CFG is keyed by the cage's own (first) port name.
    for cage in &platform.ports {
        if let Some(mode) = modes.get(&cage.cage) {
            db.breakout_cfg.insert(
                Key(cage.name.clone()),
                BreakoutCfg {
                    brkout_mode: mode.clone(),
                },
            );
        }
    }
}

/// Routed ports (INTERFACE) and the loopback (LOOPBACK_INTERFACE).
pub fn interfaces(d: &DeviceIntent, db: &mut ConfigDb) {
    let unnumbered: BTreeSet<&str> = match &d.bgp {
        Some(b) if b.unnumbered => b.neighbors.iter().map(|n| n.interface.as_str()).collect(),
        _ => BTreeSet::new(),
    };
    for i in &d.interfaces {
        let addrs: Vec<_> = i.ipv4.iter().chain(i.ipv6.iter()).collect();
        let link_local = addrs.is_empty() && unnumbered.contains(i.name.as_str());
        if addrs.is_empty() && !link_local && i.vrf.is_none() {
            continue;
        }
        // A tenant port names its VRF on the bare entry (Configuration.md "L3 Interfaces" with
        // `vrf_name`; what `config interface vrf bind` writes); its addresses then live there.
        db.interface.insert(
            Key(i.name.clone()),
            IntfRow {
                ipv6_use_link_local_only: link_local.then_some("enable"),
                vrf_name: i.vrf.clone(),
            },
        );
        for a in addrs {
            db.interface
                .insert(Key(format!("{}|{a}", i.name)), IntfRow::default());
        }
    }

    // sonic-loopback-interface.yang: like INTERFACE, the bare name entry comes first. The VTEP
    // address shares Loopback0 with the router address, as on the other platforms' `lo`; the
    // VXLAN source must be a local address (`show vxlan interface` reports the loopback holding
    // it, EVPN_VXLAN_HLD.md §5.1.2). A VTEP equal to the router address is the same key.
    let lo = &d.loopback;
    let evpn_vtep = d.evpn.as_ref().and_then(|e| e.vtep);
    let addrs: Vec<_> = lo
        .ipv4
        .iter()
        .chain(&lo.vtep)
        .chain(&evpn_vtep)
        .chain(&lo.ipv6)
        .collect();
    if !addrs.is_empty() {
        db.loopback_interface.insert("Loopback0".into(), Empty {});
        for a in addrs {
            db.loopback_interface
                .insert(Key(format!("Loopback0|{a}")), Empty {});
        }
    }
}
