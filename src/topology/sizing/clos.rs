//! The Clos arithmetic every fabric shares (compute, storage, in-band): the uplinks a leaf needs
//! for the ratio, 2 or 3 tiers, spines that every leaf reaches evenly, spine groups and the cores
//! that join them, with the radix and evenness findings. What differs between the fabrics — how
//! leaves gather into spine groups, which spec keys a finding points at and how it reads — comes
//! in through [`Fabric`] and [`Words`].

use super::{CageRun, Ratio, even_count, lanes, leaf_capacity, nonzero, place, uplinks_for};
use crate::catalog::SwitchModel;
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::Speed;
use crate::spec::Sp;

/// A leaf model's port groups for node ports and for uplinks, their speeds, and the ratio.
pub(super) struct LeafPorts<'c> {
    pub model: &'c SwitchModel,
    pub down: (usize, u32),
    pub up: (usize, u32),
    pub port_speed: Speed,
    pub uplink_speed: Speed,
    pub ratio: Ratio,
}

impl LeafPorts<'_> {
    /// Uplinks that `down` node ports need at the ratio, rounded up.
    pub fn uplinks(&self, down: u32) -> u32 {
        match self.exact_uplinks(down) {
            Ok(u) | Err(u) => u,
        }
    }

    /// Uplinks for `down` node ports; `Err(rounded up)` if no whole number gives the ratio.
    pub fn exact_uplinks(&self, down: u32) -> Result<u32, u32> {
        uplinks_for(down, self.port_speed, &self.ratio, self.uplink_speed)
    }

    /// The downlink and uplink runs, cage-aligned; `None` when they do not fit.
    pub fn place(&self, down: u32, up: u32) -> Option<(CageRun, CageRun)> {
        place(
            self.model,
            (self.down.0, self.down.1, down),
            (self.up.0, self.up.1, up),
        )
    }

    /// Node-port lanes of the leaf.
    pub fn capacity(&self) -> u32 {
        leaf_capacity(self.model, self.down)
    }
}

/// The speed a spine or core cage run records: the cage's rate over its lanes (compute), or the
/// link speed (storage, in-band). They differ when a breakout leaves part of a cage's rate unused.
#[derive(Clone, Copy)]
pub(super) enum RunSpeed {
    Lane,
    Link,
}

/// The spine model as declared and the port group its links run on.
pub(super) struct Spines<'c> {
    pub model: &'c SwitchModel,
    pub group: (usize, u32),
    pub count: Option<&'c Sp<u32>>,
    /// Leaf-spine and spine-core link speed.
    pub speed: Speed,
    pub runs: RunSpeed,
}

impl Spines<'_> {
    fn run(&self, m: &SwitchModel, g: (usize, u32), first: u32, cages: u32) -> CageRun {
        let speed = match self.runs {
            RunSpeed::Lane => Speed::gbps(m.port_groups[g.0].speed.as_gbps() / g.1),
            RunSpeed::Link => self.speed,
        };
        CageRun {
            first,
            cages,
            lanes: g.1,
            speed,
        }
    }
}

/// The core model of a 3-tier fabric as declared.
pub(super) struct Core<'c> {
    pub model: &'c SwitchModel,
    pub name: &'c Sp<String>,
    pub count: Option<&'c Sp<u32>>,
}

/// The wording that differs between the fabrics' findings, as data.
pub(super) struct Words {
    /// The fabric's spec key: `compute`, `storage`, `inband`.
    pub key: &'static str,
    /// Before `fabric`, `cores` and `spine uplinks`: empty for compute, else the key and a space.
    pub noun: String,
    /// The `tiers` key as a finding names it.
    pub tiers: String,
    /// The spine count of a 2-tier fabric as a zero-count finding names it.
    pub two_tier_count: String,
}

/// Leaves of `up` uplinks each to spread over spines of `ports` (downlink) ports: every leaf of
/// a 2-tier fabric, or one spine group's leaves of a 3-tier one.
pub(super) struct Spread {
    pub three_tier: bool,
    pub leaves: u32,
    pub up: u32,
    pub ports: u32,
}

/// Why the spines cannot take the leaves' uplinks.
#[derive(Clone, Copy)]
pub(super) enum Fault {
    /// No spine count takes them evenly.
    NoEvenCount,
    /// The leaves' uplinks do not divide over this many spines.
    Uneven(u32),
    /// This many spines have too few ports.
    TooFewPorts(u32),
}

impl Spread {
    /// The declared spine count, else the fewest that take the uplinks evenly.
    fn count(&self, declared: Option<u32>) -> Option<u32> {
        declared.or_else(|| even_count(self.leaves * self.up, self.ports, self.up))
    }

    fn check(&self, spines: Option<u32>) -> Result<u32, Fault> {
        let n = spines.ok_or(Fault::NoEvenCount)?;
        if !self.up.is_multiple_of(n) {
            Err(Fault::Uneven(n))
        } else if self.leaves * self.up > n * self.ports {
            Err(Fault::TooFewPorts(n))
        } else {
            Ok(n)
        }
    }
}

/// The core tier being sized, for the help of its findings.
pub(super) struct CoreFit {
    pub leaves_per_group: u32,
    pub spine_uplinks: u32,
    pub core_ports: u32,
}

/// Which core finding a help is for.
#[derive(Clone, Copy)]
pub(super) enum CoreShort {
    /// No core count takes the spines' uplinks evenly.
    Radix,
    /// This many cores per group have too few ports.
    Ports(u32),
}

/// What differs between the Clos fabrics beyond words: their core, how leaves form spine groups,
/// and the findings whose shape differs.
pub(super) trait Fabric {
    fn words(&self) -> &Words;
    /// The spec declares a core tier (the automatic choice takes 3 tiers only then).
    fn core_declared(&self) -> bool;
    /// The core tier of a 3-tier fabric; `None`, reported, when there is none to use.
    fn core(&self, diags: &mut Diagnostics) -> Option<Core<'_>>;
    /// Leaves per spine group of a 3-tier fabric, given a spine's downlink ports.
    fn leaves_per_group(&self, down_ports: u32, diags: &mut Diagnostics) -> Option<u32>;
    /// The finding when the spines cannot take the leaves' uplinks.
    fn spread_fault(&self, s: &Spread, fault: Fault) -> Diagnostic;
    /// The help of a core radix finding.
    fn core_help(&self, fit: &CoreFit, short: CoreShort) -> String;
}

/// The tiers above the leaves as sized.
pub(super) struct Upper {
    pub tiers: u32,
    /// Leaves per spine group (every leaf in a 2-tier fabric).
    pub leaves_per_group: u32,
    pub groups: u32,
    /// Spines per spine group.
    pub spines: u32,
    pub links_per_leaf_spine: u32,
    pub spine_down: CageRun,
    pub spine_up: Option<CageRun>,
    /// Uplinks of a spine to its core group (3-tier).
    pub spine_uplinks: u32,
    pub cores_per_group: u32,
    pub links_per_spine_core: u32,
    pub core_down: Option<CageRun>,
}

/// The declared tier count, when it is one railyard builds.
pub(super) fn declared_tiers(
    tiers: Option<&Sp<u32>>,
    w: &Words,
    diags: &mut Diagnostics,
) -> Option<Option<u32>> {
    match tiers {
        Some(t) if !matches!(t.value, 2 | 3) => {
            diags.push(
                Diagnostic::error(
                    codes::TIERS,
                    format!("`{}: {}` is not supported", w.tiers, t.value),
                )
                .at(t.span, "2 or 3")
                .help("use 2, 3, or leave it out for automatic"),
            );
            None
        }
        t => Some(t.map(|t| t.value)),
    }
}

/// The finding of a 3-tier fabric without a core.
pub(super) fn needs_core(w: &Words, tiers: Option<&Sp<u32>>, spine: &Sp<String>) -> Diagnostic {
    Diagnostic::error(
        codes::TIERS,
        format!("a 3-tier {}fabric needs a `core` switch model", w.noun),
    )
    .at(tiers.and_then(|t| t.span).or(spine.span), "3 tiers")
    .help(format!("add `{}.core.model`", w.key))
}

/// Spines (and cores) above `leaves` leaves of `up` uplinks each: 2-tier as declared, or
/// whenever an even spread over the spines exists (a declared core waits for growth); else
/// 3-tier, spine groups whose spine j joins core group j.
pub(super) fn upper(
    f: &impl Fabric,
    s: &Spines<'_>,
    leaves: u32,
    up: u32,
    tiers: Option<u32>,
    diags: &mut Diagnostics,
) -> Option<Upper> {
    let ports = leaf_capacity(s.model, s.group);
    let two = Spread {
        three_tier: false,
        leaves,
        up,
        ports,
    };
    let declared = match s.count {
        Some(n) if tiers != Some(3) => Some(nonzero(n, &f.words().two_tier_count, diags)?),
        _ => None,
    };
    let fits_two = two.count(declared);
    let three = match tiers {
        Some(t) => t == 3,
        None => fits_two.is_none() && f.core_declared(),
    };
    if three {
        let core = f.core(diags)?;
        return three_tier(f, s, &core, leaves, up, diags);
    }
    let spines = two
        .check(fits_two)
        .map_err(|fault| diags.push(f.spread_fault(&two, fault)))
        .ok()?;
    let grp = &s.model.port_groups[s.group.0];
    Some(Upper {
        tiers: 2,
        leaves_per_group: leaves,
        groups: 1,
        spines,
        links_per_leaf_spine: up / spines,
        spine_down: s.run(s.model, s.group, grp.first, grp.count),
        spine_up: None,
        spine_uplinks: 0,
        cores_per_group: 0,
        links_per_spine_core: 0,
        core_down: None,
    })
}

/// 3-tier: spine groups, each spine with half its ports down to the group's leaves and half up
/// to the cores, 1:1 at the spine.
fn three_tier(
    f: &impl Fabric,
    s: &Spines<'_>,
    core: &Core<'_>,
    leaves: u32,
    up: u32,
    diags: &mut Diagnostics,
) -> Option<Upper> {
    let cg = lanes(core.model, core.name, s.speed, "ports", diags)?;
    let grp = &s.model.port_groups[s.group.0];
    let half = grp.count / 2;
    let down_ports = half * s.group.1;
    let lpg = f.leaves_per_group(down_ports, diags)?;
    let spread = Spread {
        three_tier: true,
        leaves: lpg,
        up,
        ports: down_ports,
    };
    let declared = match s.count {
        Some(n) => Some(nonzero(
            n,
            &format!("`{}.spine.count`", f.words().key),
            diags,
        )?),
        None => None,
    };
    let spines = spread
        .check(spread.count(declared))
        .map_err(|fault| diags.push(f.spread_fault(&spread, fault)))
        .ok()?;
    // The up half is at least the down half, so the spines' uplinks always fit.
    let spine_uplinks = lpg * up / spines;
    let groups = leaves.div_ceil(lpg);
    let core_group = &core.model.port_groups[cg.0];
    let fit = CoreFit {
        leaves_per_group: lpg,
        spine_uplinks,
        core_ports: core_group.count * cg.1,
    };
    let cores_per_group = cores_per_group(f, core, &fit, spines, groups, diags)?;
    Some(Upper {
        tiers: 3,
        leaves_per_group: lpg,
        groups,
        spines,
        links_per_leaf_spine: up / spines,
        spine_down: s.run(s.model, s.group, grp.first, half),
        spine_up: Some(s.run(s.model, s.group, grp.first + half, grp.count - half)),
        spine_uplinks,
        cores_per_group,
        links_per_spine_core: spine_uplinks / cores_per_group,
        core_down: Some(s.run(core.model, cg, core_group.first, core_group.count)),
    })
}

/// Cores per core group (core group j takes spine j of every group): declared (a multiple of
/// the spines per group), else the fewest that take the spines' uplinks evenly.
fn cores_per_group(
    f: &impl Fabric,
    core: &Core<'_>,
    fit: &CoreFit,
    spines: u32,
    groups: u32,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let w = f.words();
    let (spine_uplinks, core_ports) = (fit.spine_uplinks, fit.core_ports);
    let core_links = groups * spine_uplinks;
    let span: Option<Span> = core.count.and_then(|c| c.span).or(core.name.span);
    let per_group = match core.count {
        Some(k) => {
            let k = nonzero(k, &format!("`{}.core.count`", w.key), diags)?;
            if !k.is_multiple_of(spines) || !spine_uplinks.is_multiple_of((k / spines).max(1)) {
                diags.push(
                    Diagnostic::error(codes::UNEQUAL_LINKS, format!("{k} {}cores do not form {spines} equal core groups that each spine reaches evenly", w.noun))
                        .at(span, "uneven")
                        .help(format!("use a multiple of {spines} whose quotient divides {spine_uplinks}")),
                );
                return None;
            }
            k / spines
        }
        None => match even_count(core_links, core_ports, spine_uplinks) {
            Some(k) => k,
            None => {
                diags.push(
                    Diagnostic::error(codes::SWITCH_RADIX, format!("{core_links} {}spine uplinks per core group exceed what `{}` cores can take evenly", w.noun, core.name.value))
                        .at(core.name.span, "core radix")
                        .help(f.core_help(fit, CoreShort::Radix)),
                );
                return None;
            }
        },
    };
    if core_links > per_group * core_ports {
        diags.push(
            Diagnostic::error(
                codes::SWITCH_RADIX,
                format!(
                    "{} {}cores × {core_ports} ports cannot take {} spine uplinks",
                    per_group * spines,
                    w.noun,
                    core_links * spines
                ),
            )
            .at(span, "too few core ports")
            .help(f.core_help(fit, CoreShort::Ports(per_group))),
        );
        return None;
    }
    Some(per_group)
}
