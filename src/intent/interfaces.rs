//! Data ports: one routed interface per cabled port, described by its cabling peer; breakouts of
//! split cages; MTU, RoCE class and adaptive routing per port.

use std::collections::BTreeMap;

use super::Attached;
use super::device::{Breakout, Interface, InterfaceKind};
use crate::addressing::Allocation;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Network, Platform, Tier, adaptive_routing_support};
use crate::spec::{ClusterSpec, RoceMode, Toggle};
use crate::topology::{Device, Fabric, PortId};

/// Devices (by model) where adaptive routing was asked for but cannot run, with the reason.
#[derive(Default)]
pub struct ArWarnings(BTreeMap<(String, String), u32>);

impl ArWarnings {
    /// Add the counts of another set of devices (a chunk built on another core).
    pub fn absorb(&mut self, other: Self) {
        for (k, n) in other.0 {
            *self.0.entry(k).or_default() += n;
        }
    }

    pub fn report(&self, spec: &ClusterSpec, diags: &mut Diagnostics) {
        for ((model, reason), ports) in &self.0 {
            diags.push(
                Diagnostic::warning(
                    codes::AR_UNSUPPORTED,
                    format!(
                        "adaptive routing left off on {ports} fabric port(s) of `{model}` switches: {reason}"
                    ),
                )
                .at(spec.roce.adaptive_routing.span, "asked for here")
                .help("set `roce.adaptive_routing: auto` to enable it only where it is supported"),
            );
        }
    }
}

/// Whether a fabric port runs adaptive routing; records why not when it was asked for.
fn adaptive_routing(
    spec: &ClusterSpec,
    f: &Fabric,
    d: &Device,
    platform: Platform,
    a: &Attached<'_>,
    warn: &mut ArWarnings,
) -> bool {
    let toggle = spec.roce.adaptive_routing.value;
    if toggle == Toggle::Disabled || d.network != Network::Compute || a.link.tier == Tier::NodeLeaf
    {
        return false;
    }
    let asic = f.switch_model(d).and_then(|m| m.asic.as_deref());
    let verdict = if platform.has_adaptive_routing() {
        adaptive_routing_support(asic, a.link.speed)
    } else {
        Err(format!(
            "the `{platform}` platform has no adaptive routing (NVUE only)"
        ))
    };
    match verdict {
        Ok(()) => true,
        Err(reason) => {
            if toggle == Toggle::Enabled {
                *warn.0.entry((d.model.clone(), reason)).or_default() += 1;
            }
            false
        }
    }
}

/// Whether a cable end is a data interface of this device: every cable, except a device's own
/// management port (the far end, an OOB switch, configures that cable as an access port).
pub(super) fn carries_interface(a: &Attached<'_>) -> bool {
    a.link.tier != Tier::Mgmt || !a.lower
}

pub fn build(
    spec: &ClusterSpec,
    f: &Fabric,
    alloc: &Allocation,
    d: &Device,
    platform: Platform,
    links: &[Attached<'_>],
    warn: &mut ArWarnings,
) -> (Vec<Interface>, Vec<Breakout>) {
    let mtu = spec.roce.mtu.value.min(platform.max_mtu());
    let lossless = super::runs_roce(f, d.network) && spec.roce.mode == RoceMode::Lossless;
    let mut interfaces = Vec::new();
    let mut breakouts: BTreeMap<u16, Breakout> = BTreeMap::new();
    for a in links.iter().filter(|a| carries_interface(a)) {
        let name = f.port_name(d, a.port);
        let peer_port = f.port_name(a.peer, a.peer_port);
        if let PortId::Lane { cage, .. } = a.port {
            let ports = u32::from(
                d.cage_lanes
                    .get(usize::from(cage) - 1)
                    .copied()
                    .unwrap_or(1),
            )
            .max(1);
            let serdes = f
                .switch_model(d)
                .and_then(|m| {
                    m.port_groups
                        .iter()
                        .find(|g| (g.first..g.first + g.count).contains(&u32::from(cage)))
                })
                .map_or(ports, |g| g.form.serdes_lanes());
            breakouts.entry(cage).or_insert_with(|| Breakout {
                cage: u32::from(cage),
                port: f.port_name(d, PortId::Cage { cage }),
                mode: format!("{ports}x{}", a.link.speed),
                ports,
                lanes_per_port: (serdes / ports).max(1),
                speed: a.link.speed,
            });
        }
        let la = &alloc.links[a.index];
        let (ipv4, ipv6) = if a.lower {
            (la.a, la.a6)
        } else {
            (la.b, la.b6)
        };
        let kind = match a.link.tier {
            Tier::Mgmt => InterfaceKind::Access,
            Tier::OobUplink => InterfaceKind::Trunk,
            _ if a.peer.role.is_switch() => InterfaceKind::Fabric,
            _ => InterfaceKind::Host,
        };
        let mtu = if d.role.is_oob() {
            super::oob::MTU
        } else {
            mtu
        };
        interfaces.push(Interface {
            description: format!("{}:{peer_port}", a.peer.name),
            kind,
            peer_device: a.peer.name.clone(),
            peer_port,
            cable: a.link.cable_id.clone(),
            cable_length_m: a.link.length_m,
            speed: a.link.speed,
            mtu,
            ipv4,
            ipv6,
            lossless,
            vrf: None,
            access_vlan: None,
            trunk_vlans: Vec::new(),
            adaptive_routing: kind == InterfaceKind::Fabric
                && adaptive_routing(spec, f, d, platform, a, warn),
            name,
        });
    }
    (interfaces, breakouts.into_values().collect())
}
