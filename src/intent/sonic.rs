//! SONiC switches: the vendor platform data each one renders from, and what that data cannot
//! run. Every finding is collected per model and role and reported once, with the number of
//! switches or ports it concerns.

use std::collections::{BTreeMap, BTreeSet};

use super::Attached;
use super::device::{DeviceIntent, PlannedCage, QosMode, SonicTarget};
use crate::catalog::sonic::{Hwsku, SonicPlatform};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Platform, Role, Speed};
use crate::spec::ClusterSpec;
use crate::topology::{AccessPlan, CageRun, Device, Fabric, PortId, Sizing};

/// Priorities the carried HWSKUs' buffer templates make lossless (`BUFFER_PG`/`BUFFER_QUEUE`
/// `<port>|3-4` in `buffers_defaults_objects.j2`).
pub const LOSSLESS_PRIORITIES: [u8; 2] = [3, 4];

#[derive(Default)]
pub(crate) struct SonicFindings {
    /// (model, role) → switches without carried platform data, and why.
    missing: BTreeMap<(String, Role), (u32, String)>,
    /// (model, role, cage problem) → switches.
    breakouts: BTreeMap<(String, Role, String), u32>,
    /// (model, role, headroom problem) → lossless ports.
    headroom: BTreeMap<(String, Role, String), u32>,
    /// PFC priorities outside the lossless buffers, on that many switches.
    priorities: BTreeMap<u8, u32>,
    /// Switches that get only the first of several trap receivers.
    trap_switches: u32,
}

impl SonicFindings {
    /// Add the findings of later devices (a chunk built on another core): counts add up, a
    /// reason stays the first device's.
    pub fn absorb(&mut self, other: Self) {
        for (k, (n, why)) in other.missing {
            self.missing.entry(k).or_insert((0, why)).0 += n;
        }
        for (k, n) in other.breakouts {
            *self.breakouts.entry(k).or_default() += n;
        }
        for (k, n) in other.headroom {
            *self.headroom.entry(k).or_default() += n;
        }
        for (k, n) in other.priorities {
            *self.priorities.entry(k).or_default() += n;
        }
        self.trap_switches += other.trap_switches;
    }

    /// The platform data of a SONiC switch, or `None` (recorded) when its model has none.
    pub fn target(
        &mut self,
        f: &Fabric,
        d: &Device,
        links: &[Attached<'_>],
    ) -> Option<SonicTarget> {
        let model = f.switch_model(d)?;
        let Some(names) = &model.sonic else {
            self.missing(
                d,
                "the model names no SONiC platform (`sonic:` in the catalog)",
            );
            return None;
        };
        let Some((platform, hwsku)) = model.sonic_platform() else {
            self.missing(
                d,
                &format!(
                    "railyard carries no SONiC data for platform `{}` with HWSKU `{}` (carried: {})",
                    names.platform,
                    names.hwsku,
                    carried()
                ),
            );
            return None;
        };
        self.breakouts(d, platform, links);
        Some(SonicTarget {
            platform: platform.name.to_string(),
            hwsku: hwsku.name.to_string(),
            planned: planned(f, d, platform, hwsku),
        })
    }

    fn missing(&mut self, d: &Device, why: &str) {
        let e = self
            .missing
            .entry((d.model.clone(), d.role))
            .or_insert((0, why.to_string()));
        e.0 += 1;
    }

    /// Every cabled cage must run in a mode of the platform's `platform.json`.
    fn breakouts(&mut self, d: &Device, platform: &SonicPlatform, links: &[Attached<'_>]) {
        let mut cages: BTreeMap<u32, (u32, Speed)> = BTreeMap::new();
        for a in links {
            let ports = match a.port {
                PortId::Cage { .. } => 1,
                PortId::Lane { cage, .. } => d
                    .cage_lanes
                    .get(usize::from(cage) - 1)
                    .map_or(1, |&l| u32::from(l.max(1))),
                _ => continue,
            };
            if let Some(cage) = a.port.cage() {
                cages.insert(u32::from(cage), (ports, a.link.speed));
            }
        }
        let mut problems = BTreeSet::new();
        for (cage, (ports, speed)) in cages {
            let problem = match platform.cage(cage) {
                None => format!("cage {cage} does not exist on {}", platform.name),
                Some(p) if p.mode_for(ports, speed).is_some() => continue,
                Some(p) => format!(
                    "cage {cage} ({}) would run {ports}x{speed}, but {} offers {}",
                    p.name,
                    platform.name,
                    p.modes
                        .iter()
                        .map(|m| format!("`{}`", m.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            problems.insert(problem);
        }
        for p in problems {
            *self
                .breakouts
                .entry((d.model.clone(), d.role, p))
                .or_default() += 1;
        }
    }

    /// Lossless ports need a headroom row for their speed and cable; the lossless class needs a
    /// priority the buffer templates make lossless; traps need a single receiver.
    pub fn check(&mut self, d: &DeviceIntent, hwsku: &Hwsku) {
        for i in d.interfaces.iter().filter(|i| i.lossless) {
            let mbps = i.speed.as_gbps().saturating_mul(1000);
            let rows: Vec<_> = hwsku
                .headroom
                .iter()
                .filter(|h| h.speed_mbps == mbps)
                .collect();
            let longest = rows.iter().map(|h| h.cable_m).max();
            let problem = match longest {
                None => format!(
                    "{} has no lossless headroom for {} ports",
                    hwsku.name, i.speed
                ),
                Some(max) if f64::from(max) < i.cable_length_m => format!(
                    "{} sizes lossless headroom for cables up to {max} m; {} ports run over {} m",
                    hwsku.name, i.speed, i.cable_length_m
                ),
                Some(_) => continue,
            };
            *self
                .headroom
                .entry((d.model.clone(), d.role, problem))
                .or_default() += 1;
        }
        if let Some(q) = d.qos.as_ref().filter(|q| q.mode == QosMode::Lossless) {
            for p in q
                .pfc_priorities
                .iter()
                .filter(|p| !LOSSLESS_PRIORITIES.contains(p))
            {
                *self.priorities.entry(*p).or_default() += 1;
            }
        }
        if d.system.snmp_traps.len() > 1 {
            self.trap_switches += 1;
        }
    }

    pub fn report(&self, spec: &ClusterSpec, diags: &mut Diagnostics) {
        for ((model, role), (n, why)) in &self.missing {
            let (span, label) = located(spec, *role);
            diags.push(
                Diagnostic::error(
                    codes::SONIC_NO_PLATFORM_DATA,
                    format!("{n} `{}` switch(es) (`{model}`) run SONiC, but {why}", role.as_str()),
                )
                .at(span, label)
                .help(format!(
                    "use a model with SONiC data ({}), or another OS for this role under `platforms`",
                    with_sonic_data(spec)
                )),
            );
        }
        for ((model, role, problem), n) in &self.breakouts {
            let (span, label) = located(spec, *role);
            diags.push(
                Diagnostic::error(
                    codes::SONIC_BREAKOUT_UNSUPPORTED,
                    format!("{n} `{}` switch(es) (`{model}`): {problem}", role.as_str()),
                )
                .at(span, label)
                .help("run the cages at a speed and split the SONiC platform offers, or use another OS for this role"),
            );
        }
        for ((model, role, problem), n) in &self.headroom {
            let (span, label) = located(spec, *role);
            diags.push(
                Diagnostic::error(
                    codes::SONIC_NO_HEADROOM,
                    format!(
                        "{n} lossless port(s) of `{}` switches (`{model}`): {problem}",
                        role.as_str()
                    ),
                )
                .at(span, label)
                .help("shorten the runs (`cabling`, `racks`), run the ports at a tabulated speed, or set `roce.mode: lossy`"),
            );
        }
        for (p, n) in &self.priorities {
            diags.push(
                Diagnostic::error(
                    codes::SONIC_LOSSLESS_PRIORITY,
                    format!(
                        "PFC priority {p} on {n} SONiC switch(es): the NVIDIA HWSKUs' buffer templates make only priorities 3-4 lossless"
                    ),
                )
                .at(spec.roce.priority.span, "lossless priority")
                .help("set `roce.priority: 3` (or 4)"),
            );
        }
        if self.trap_switches > 0 {
            let extra = spec.services.snmp_traps.get(1).and_then(|s| s.span);
            diags.push(
                Diagnostic::warning(
                    codes::SONIC_SNMP_TRAP_RECEIVERS,
                    format!(
                        "{} SONiC switch(es) send SNMP traps to `{}` only; SONiC has one SNMPv2c trap receiver",
                        self.trap_switches,
                        spec.services.snmp_traps[0].value
                    ),
                )
                .at(extra, "not configured on SONiC")
                .help("forward traps from the first receiver, or list only one"),
            );
        }
    }
}

/// The fabric plan's port runs on a switch of this role (`topology::Sizing`).
fn runs(s: &Sizing, d: &Device) -> Vec<CageRun> {
    let c = &s.compute;
    let access = |p: Option<&AccessPlan>, tier: u8| -> Vec<CageRun> {
        match p {
            Some(p) if tier == 0 => vec![p.leaf_down, p.leaf_up],
            Some(p) if tier == 1 => p.spine_down.into_iter().chain(p.spine_up).collect(),
            Some(p) => p.core_down.into_iter().collect(),
            None => Vec::new(),
        }
    };
    match d.role {
        Role::Leaf => vec![c.leaf_down, c.leaf_up],
        Role::Spine => std::iter::once(c.spine_down).chain(c.spine_up).collect(),
        Role::Core => c.core_down.into_iter().collect(),
        Role::StorageLeaf => access(s.storage.as_ref(), 0),
        Role::StorageSpine => access(s.storage.as_ref(), 1),
        Role::StorageCore => access(s.storage.as_ref(), 2),
        Role::InbandLeaf => access(s.inband.as_ref(), 0),
        Role::InbandSpine => access(s.inband.as_ref(), 1),
        Role::InbandCore => access(s.inband.as_ref(), 2),
        Role::OobLeaf
        | Role::OobCore
        | Role::OobGateway
        | Role::Node
        | Role::Appliance
        | Role::NvlinkSwitchTray
        | Role::PowerShelf => Vec::new(),
    }
}

/// Every cage of the switch's runs, cabled yet or not, whose planned split differs from the
/// HWSKU's default and is a mode the platform offers. It depends on the plan alone, so it stays
/// the same while the cluster grows into the plan.
fn planned(f: &Fabric, d: &Device, platform: &SonicPlatform, hwsku: &Hwsku) -> Vec<PlannedCage> {
    let mut out: BTreeMap<u32, PlannedCage> = BTreeMap::new();
    for r in runs(&f.sizing, d) {
        for cage in r.first..r.first + r.cages {
            let Some(p) = platform.cage(cage) else {
                continue;
            };
            let Some(mode) = p.mode_for(r.lanes, r.speed) else {
                continue;
            };
            let default = hwsku.default_modes.get(&p.name) == Some(&mode.name)
                && mode.default_mbps == r.speed.as_gbps().saturating_mul(1000);
            if !default {
                out.entry(cage).or_insert(PlannedCage {
                    cage,
                    ports: r.lanes,
                    speed: r.speed,
                });
            }
        }
    }
    out.into_values().collect()
}

/// Where a role's SONiC choice is written: its `platforms` key, else its model.
fn located(spec: &ClusterSpec, role: Role) -> (Option<Span>, &'static str) {
    match spec.platforms.for_role(role) {
        Some(p) if p.value == Platform::Sonic && p.span.is_some() => (p.span, "SONiC chosen here"),
        _ => (spec.model_span(role), "this model runs SONiC"),
    }
}

/// `platform/HWSKU` pairs railyard carries.
fn carried() -> String {
    crate::catalog::sonic::platforms()
        .values()
        .flat_map(|p| p.hwskus.keys().map(move |h| format!("{}/{h}", p.name)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Models of the built-in and spec catalogs whose SONiC data is carried.
fn with_sonic_data(spec: &ClusterSpec) -> String {
    let all = crate::catalog::builtin().extended_with(&spec.catalog);
    let names: Vec<&str> = all
        .switches
        .iter()
        .filter(|(_, m)| m.sonic_platform().is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    names.join(", ")
}
