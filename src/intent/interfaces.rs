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
        let la = &alloc.links[a.id];
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

/// How many switch names a finding spells out before it counts the rest.
const NAMED: usize = 3;

/// The first few names (in the order given: the intents' name order), then how many more.
fn some_names(names: &[&str]) -> String {
    let shown = names
        .iter()
        .take(NAMED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    match names.len().saturating_sub(NAMED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// Adaptive routing on only part of the compute fabric (RY0707). AR is each switch's decision
/// on its own egress ports (NVUE reference, Adaptive Routing, `interface <swp> router
/// adaptive-routing`:
/// https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/Adaptive-Routing/);
/// a switch without it hashes every flow onto one next hop (Cumulus Linux, Equal Cost Multipath
/// Load Sharing:
/// https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-518/Layer-3/Routing/Equal-Cost-Multipath-Load-Sharing/).
/// With SONiC leaves under NVUE spines, the spines spread flows while the leaf uplinks, where
/// the flows of a rail first choose a spine, pin them: the design quietly loses AR where it
/// matters most. One warning for the fabric, at the key that chose a platform without AR (else
/// at `roce.adaptive_routing`, else at the model of the first such role).
pub fn check_mixed(
    spec: &ClusterSpec,
    devices: &BTreeMap<String, super::DeviceIntent>,
    diags: &mut Diagnostics,
) {
    if spec.roce.adaptive_routing.value == Toggle::Disabled {
        return;
    }
    let fabric = devices.values().filter(|d| {
        d.network == Network::Compute
            && d.interfaces.iter().any(|i| i.kind == InterfaceKind::Fabric)
    });
    let (with, without): (Vec<_>, Vec<_>) = fabric.partition(|d| d.adaptive_routing.is_some());
    let Some(first) = without.first() else { return };
    if with.is_empty() {
        return;
    }
    // A platform without AR is the likelier cause and the key to change; name it first.
    let by_os = without
        .iter()
        .find(|d| !d.platform.has_adaptive_routing())
        .copied();
    let platforms: std::collections::BTreeSet<Platform> = without
        .iter()
        .filter(|d| !d.platform.has_adaptive_routing())
        .map(|d| d.platform)
        .collect();
    let why = if platforms.is_empty() {
        "their ASIC or link speed cannot run it (Spectrum-4 at 200G or 400G)".to_string()
    } else {
        let names: Vec<String> = platforms.iter().map(|p| format!("`{p}`")).collect();
        format!(
            "railyard configures it with NVUE only and they run {}",
            names.join(", ")
        )
    };
    let chosen = by_os.and_then(|d| spec.platforms.for_role(d.role));
    let (span, label) = match (chosen, spec.roce.adaptive_routing.span) {
        (Some(p), _) => (p.span, format!("`{}` has no adaptive routing", p.value)),
        (None, Some(s)) => (Some(s), "adaptive routing asked for here".to_string()),
        (None, None) => (
            spec.model_span(by_os.unwrap_or(first).role),
            "adaptive routing is on by default (`auto`)".to_string(),
        ),
    };
    let role = by_os.unwrap_or(first).role.as_str();
    let on: Vec<&str> = with.iter().map(|d| d.hostname.as_str()).collect();
    let off: Vec<&str> = without.iter().map(|d| d.hostname.as_str()).collect();
    diags.push(
        Diagnostic::warning(
            codes::AR_MIXED_FABRIC,
            format!(
                "adaptive routing runs on {} compute switch(es) ({}) but not on {} other(s) of the same fabric ({}): {why}; those switches hash each flow onto one path",
                on.len(),
                some_names(&on),
                off.len(),
                some_names(&off),
            ),
        )
        .at(span, label)
        .help(format!("run NVUE on Spectrum-4 switches in those roles (e.g. `platforms: {{{role}: nvue}}`), or set `roce.adaptive_routing: disabled` to make the hash-only design explicit")),
    );
}
