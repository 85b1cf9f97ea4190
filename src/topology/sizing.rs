//! Pure sizing arithmetic: how many leaves, spines and cores, which cages carry downlinks and
//! which uplinks, and every radix, ratio and evenness check with a diagnostic that says what fits.

use serde::Serialize;

use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Network, Speed, Transport};
use crate::spec::{AccessSpec, ClusterSpec, Layout, Sp};

/// A run of cages used at one speed: logical port `i` of the run is lane `i % lanes` of cage
/// `first + i / lanes`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CageRun {
    pub first: u32,
    pub cages: u32,
    pub lanes: u32,
    pub speed: Speed,
}

impl CageRun {
    pub fn capacity(&self) -> u32 {
        self.cages * self.lanes
    }
}

/// Everything the expansion needs, decided once.
#[derive(Clone, Debug, Serialize)]
pub struct Sizing {
    pub node_model: String,
    pub gpus_per_node: u32,
    pub sus: u32,
    pub nodes_per_su: u32,
    /// Installed nodes per SU.
    pub populated: Vec<u32>,
    /// Position (SU, slot) taken by fabric managers.
    pub reserved: Option<(u32, u32)>,
    pub fabric_managers: u32,
    pub compute: ComputePlan,
    pub storage: Option<AccessPlan>,
    pub inband: Option<AccessPlan>,
    pub inband_converged: bool,
    pub oob: OobPlan,
}

impl Sizing {
    /// Is there a node at (su, slot)? Both 1-based.
    pub fn is_populated(&self, su: u32, slot: u32) -> bool {
        if self.reserved == Some((su, slot)) {
            return false;
        }
        let count = self.populated.get((su - 1) as usize).copied().unwrap_or(0);
        // Slots fill from 1, skipping the reserved position.
        let skip =
            u32::from(matches!(self.reserved, Some((rs, rslot)) if rs == su && rslot <= slot));
        slot - skip <= count
    }

    pub fn node_count(&self) -> u32 {
        self.populated.iter().sum()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ComputePlan {
    pub transport: Transport,
    pub layout: &'static str,
    pub planes: u32,
    pub rails: u32,
    pub rails_per_leaf: u32,
    pub nodes_per_leaf: u32,
    pub leaves_per_su: u32,
    pub port_speed: Speed,
    pub uplink_speed: Speed,
    pub oversubscription: String,
    pub downlinks_per_leaf: u32,
    pub uplinks_per_leaf: u32,
    pub leaf_model: String,
    pub leaf_down: CageRun,
    pub leaf_up: CageRun,
    pub tiers: u32,
    pub spine_model: String,
    pub sus_per_group: u32,
    pub groups: u32,
    pub spines_per_group: u32,
    pub links_per_leaf_spine: u32,
    pub spine_down: CageRun,
    pub spine_up: Option<CageRun>,
    pub spine_uplinks: u32,
    pub core_model: Option<String>,
    pub cores_per_group: u32,
    pub links_per_spine_core: u32,
    pub core_down: Option<CageRun>,
}

impl ComputePlan {
    pub fn leaves_per_plane(&self, sus: u32) -> u32 {
        sus * self.leaves_per_su
    }
    pub fn spines_per_plane(&self) -> u32 {
        self.groups * self.spines_per_group
    }
    pub fn cores_per_plane(&self) -> u32 {
        if self.tiers == 3 {
            self.spines_per_group * self.cores_per_group
        } else {
            0
        }
    }
}

/// A storage or in-band fabric: nodes to leaf groups (pairs when nodes have two or more ports).
#[derive(Clone, Debug, Serialize)]
pub struct AccessPlan {
    pub network: Network,
    pub transport: Transport,
    pub leaf_model: String,
    pub spine_model: Option<String>,
    /// Flat node-port indices carried by this network.
    pub node_ports: Vec<u16>,
    /// Leaves per group (2 = a redundant pair).
    pub width: u32,
    /// Lanes each node takes on each leaf of its group.
    pub lanes_per_node: u32,
    pub nodes_per_group: u32,
    pub groups: u32,
    pub port_speed: Speed,
    pub uplink_speed: Speed,
    pub uplinks_per_leaf: u32,
    pub leaf_down: CageRun,
    pub leaf_up: CageRun,
    pub spines: u32,
    pub links_per_leaf_spine: u32,
    pub spine_down: Option<CageRun>,
}

#[derive(Clone, Debug, Serialize)]
pub struct OobPlan {
    pub model: String,
    pub access: CageRun,
    pub per_su: u32,
    /// Ports of each SU's block: node BMCs, then the SU's compute leaves.
    pub su_block: u32,
    pub core_switches: u32,
}

struct Ratio {
    down: u64,
    up: u64,
}

fn parse_ratio(s: &Sp<String>, diags: &mut Diagnostics) -> Option<Ratio> {
    let parse = |x: &str| -> Option<u64> {
        let v: f64 = x.trim().parse().ok()?;
        (v.is_finite() && v > 0.0 && v <= 1000.0).then(|| (v * 100.0).round() as u64)
    };
    match s.split_once(':').and_then(|(a, b)| {
        Some(Ratio {
            down: parse(a)?,
            up: parse(b)?,
        })
    }) {
        Some(r) => Some(r),
        None => {
            diags.push(
                Diagnostic::error(codes::BAD_RATIO, format!("`{}` is not a ratio", s.value))
                    .at(s.span, "expected `down:up`")
                    .help("write e.g. `1:1` for non-blocking or `3:1`"),
            );
            None
        }
    }
}

/// Uplinks needed for `down` ports at `sd` and ratio `r`, with `su` uplinks; `Err(realised)` if
/// no whole number of uplinks gives the ratio exactly.
fn uplinks_for(down: u32, sd: Speed, r: &Ratio, su: Speed) -> Result<u32, u32> {
    let num = u64::from(down) * u64::from(sd.as_gbps()) * r.up;
    let den = r.down * u64::from(su.as_gbps());
    let ceil = u32::try_from(num.div_ceil(den)).unwrap_or(u32::MAX);
    if num.is_multiple_of(den) {
        Ok(ceil)
    } else {
        Err(ceil)
    }
}

fn nonzero(v: &Sp<u32>, what: &str, diags: &mut Diagnostics) -> Option<u32> {
    if v.value == 0 {
        diags.push(
            Diagnostic::error(codes::ZERO_COUNT, format!("{what} must be at least 1"))
                .at(v.span, "zero")
                .help(format!("set {what} to 1 or more")),
        );
        None
    } else {
        Some(v.value)
    }
}

pub(super) fn switch_model<'c>(
    cat: &'c Catalog,
    name: &Sp<String>,
    transport: Option<Transport>,
    diags: &mut Diagnostics,
) -> Option<&'c SwitchModel> {
    let Some(m) = cat.switches.get(&name.value) else {
        let best = cat.switches.keys().max_by(|a, b| {
            strsim::jaro_winkler(a, &name.value).total_cmp(&strsim::jaro_winkler(b, &name.value))
        });
        diags.push(
            Diagnostic::error(
                codes::UNKNOWN_SWITCH_MODEL,
                format!("unknown switch model `{}`", name.value),
            )
            .at(name.span, "not in the catalog")
            .help(match best {
                Some(b) if strsim::jaro_winkler(b, &name.value) > 0.7 => {
                    format!("did you mean `{b}`? (or define it under `catalog.switches`)")
                }
                _ => format!(
                    "known models: {}; or define it under `catalog.switches`",
                    cat.switches.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            }),
        );
        return None;
    };
    if let Some(t) = transport
        && !m.transport.contains(&t)
    {
        diags.push(
            Diagnostic::error(
                codes::TRANSPORT_MISMATCH,
                format!("switch model `{}` does not speak {t:?}", name.value),
            )
            .at(name.span, "wrong transport")
            .help(format!(
                "`{}` supports {:?}; pick a model for the fabric's `transport`",
                name.value, m.transport
            )),
        );
        return None;
    }
    Some(m)
}

/// Lanes per cage at `speed`, with a diagnostic when the model cannot break out to it.
fn lanes(
    m: &SwitchModel,
    name: &Sp<String>,
    speed: Speed,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<(usize, u32)> {
    let found = m.group_for(speed);
    if found.is_none() {
        let modes: Vec<&str> = m
            .port_groups
            .iter()
            .flat_map(|g| g.breakouts.iter().map(String::as_str))
            .collect();
        diags.push(
            Diagnostic::error(
                codes::BREAKOUT_UNSUPPORTED,
                format!("`{}` cannot run its {what} at {speed}", name.value),
            )
            .at(name.span, format!("no breakout to {speed}"))
            .help(format!("this model supports {}", modes.join(", "))),
        );
    }
    found
}

/// Place `down` ports at (group, lanes) and then `up` ports, cage-aligned. `None` if they do not fit.
fn place(
    m: &SwitchModel,
    down: (usize, u32, u32),
    up: (usize, u32, u32),
) -> Option<(CageRun, CageRun)> {
    let (dg, dl, dn) = down;
    let (ug, ul, un) = up;
    let dcages = dn.div_ceil(dl);
    let ucages = un.div_ceil(ul);
    let gd = &m.port_groups[dg];
    let gu = &m.port_groups[ug];
    let speed = |g: &crate::catalog::PortGroup, l: u32| Speed::gbps(g.speed.as_gbps() / l);
    if dg == ug {
        (dcages + ucages <= gd.count).then(|| {
            (
                CageRun {
                    first: gd.first,
                    cages: dcages,
                    lanes: dl,
                    speed: speed(gd, dl),
                },
                CageRun {
                    first: gd.first + dcages,
                    cages: ucages,
                    lanes: ul,
                    speed: speed(gu, ul),
                },
            )
        })
    } else {
        (dcages <= gd.count && ucages <= gu.count).then(|| {
            (
                CageRun {
                    first: gd.first,
                    cages: dcages,
                    lanes: dl,
                    speed: speed(gd, dl),
                },
                CageRun {
                    first: gu.first,
                    cages: ucages,
                    lanes: ul,
                    speed: speed(gu, ul),
                },
            )
        })
    }
}

/// The smallest switch count (at least two when possible) that takes `total` links on `ports`
/// ports each while every lower switch reaches every one with the same number of links.
fn even_count(total: u32, ports: u32, per_lower: u32) -> Option<u32> {
    let min = total.div_ceil(ports.max(1)).max(2.min(per_lower)).max(1);
    (min..=per_lower).find(|s| per_lower.is_multiple_of(*s))
}

pub(super) fn node_model<'c>(
    cat: &'c Catalog,
    name: &Sp<String>,
    diags: &mut Diagnostics,
) -> Option<&'c NodeModel> {
    let m = cat.nodes.get(&name.value);
    if m.is_none() {
        diags.push(
            Diagnostic::error(
                codes::UNKNOWN_NODE_MODEL,
                format!("unknown node model `{}`", name.value),
            )
            .at(name.span, "not in the catalog")
            .help(format!(
                "known models: {}; or define it under `catalog.nodes`",
                cat.nodes.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        );
    }
    m
}

pub fn plan(spec: &ClusterSpec, cat: &Catalog, diags: &mut Diagnostics) -> Option<Sizing> {
    let su = &spec.scalable_units;
    let sus = nonzero(&su.count, "`scalable_units.count`", diags);
    let nps = nonzero(&su.nodes_per_su, "`scalable_units.nodes_per_su`", diags);
    let node = node_model(cat, &su.node_model, diags);
    // Far beyond any real cluster; keeps every product below in range.
    const MAX_POSITIONS: u64 = 1 << 22;
    if let (Some(a), Some(b)) = (sus, nps)
        && u64::from(a) * u64::from(b) > MAX_POSITIONS
    {
        diags.push(
            Diagnostic::error(codes::COUNT_TOO_LARGE, format!("{a} SUs × {b} nodes per SU is more than railyard plans ({MAX_POSITIONS} node positions)"))
                .at(su.count.span, "too large")
                .help("check `scalable_units.count` and `nodes_per_su`"),
        );
        return None;
    }
    let compute = match (sus, nps, node) {
        (Some(sus), Some(nps), Some(node)) => compute_plan(spec, cat, node, sus, nps, diags),
        _ => None,
    };
    let (sus, nps, node, compute) = (sus?, nps?, node?, compute);

    // Fabric managers and population.
    let mut reserved = None;
    let mut managers = 0;
    if let Some(fm) = &spec.compute.fabric_managers {
        let rails = node.compute.len() as u32;
        let ok_su = fm.su.value >= 1 && fm.su.value <= sus;
        let ok_slot = fm.slot.value >= 1 && fm.slot.value <= nps;
        if !ok_su || !ok_slot {
            let (span, what) = if ok_su {
                (fm.slot.span, "slot")
            } else {
                (fm.su.span, "SU")
            };
            diags.push(
                Diagnostic::error(
                    codes::RESERVED_POSITION,
                    format!("fabric-manager position names a {what} that does not exist"),
                )
                .at(span, "out of range")
                .help(format!("SUs are 1..={sus}, slots 1..={nps}")),
            );
        } else if fm.count.value == 0 || fm.count.value > rails {
            diags.push(
                Diagnostic::error(
                    codes::RESERVED_POSITION,
                    format!(
                        "{} fabric managers cannot share one node position of {rails} rails",
                        fm.count.value
                    ),
                )
                .at(fm.count.span, "too many")
                .help(format!("use 1..={rails} fabric managers")),
            );
        } else {
            reserved = Some((fm.su.value, fm.slot.value));
            managers = fm.count.value;
        }
    }
    let mut populated = Vec::with_capacity(sus as usize);
    for s in 1..=sus {
        let capacity = nps - u32::from(matches!(reserved, Some((rs, _)) if rs == s));
        let want = su
            .populated
            .as_ref()
            .and_then(|p| p.get((s - 1) as usize).copied())
            .unwrap_or(capacity);
        if want > capacity {
            let span = su.populated.as_ref().and_then(|p| p.span);
            diags.push(
                Diagnostic::error(codes::POPULATION, format!("SU {s} lists {want} nodes but has {capacity} free positions"))
                    .at(span, "too many nodes")
                    .help(format!("at most {capacity} nodes fit in SU {s} (`nodes_per_su` minus reserved positions)")),
            );
        }
        populated.push(want.min(capacity));
    }
    if let Some(p) = &su.populated
        && p.len() > sus as usize
    {
        diags.push(
            Diagnostic::error(
                codes::POPULATION,
                format!("`populated` lists {} SUs but `count` is {sus}", p.len()),
            )
            .at(p.span, "too many entries")
            .help("give one entry per SU, or raise `scalable_units.count`"),
        );
    }

    let flat = super::flat_node_ports(node);
    let storage_ix: Vec<u16> = port_indices(node, Network::Storage, &flat);
    let inband_ix: Vec<u16> = port_indices(node, Network::Inband, &flat);
    let converged = spec
        .inband
        .as_ref()
        .is_some_and(|i| i.converged_with_storage.value);
    let storage = spec.storage.as_ref().and_then(|a| {
        let mut ports = storage_ix.clone();
        if converged {
            ports.extend(&inband_ix);
        }
        access_plan(
            Network::Storage,
            a,
            cat,
            node,
            &ports,
            sus * nps,
            "storage",
            diags,
        )
    });
    let inband = spec.inband.as_ref().and_then(|i| {
        if i.converged_with_storage.value {
            if spec.storage.is_none() {
                diags.push(
                    Diagnostic::error(
                        codes::MISSING_PORTS,
                        "in-band is converged with storage, but there is no `storage` fabric",
                    )
                    .at(i.converged_with_storage.span, "nothing to converge with")
                    .help("add a `storage:` section, or give `inband` its own `leaf`"),
                );
            }
            return None;
        }
        match i.fabric() {
            Some(a) => access_plan(
                Network::Inband,
                &a,
                cat,
                node,
                &inband_ix,
                sus * nps,
                "inband",
                diags,
            ),
            None => {
                diags.push(
                    Diagnostic::error(codes::MISSING_PORTS, "in-band fabric has no `leaf` model")
                        .at(i.converged_with_storage.span.or(spec.name.span), "here")
                        .help(
                            "add `inband.leaf.model`, or set `inband.converged_with_storage: true`",
                        ),
                );
                None
            }
        }
    });
    let compute = compute?;
    let oob = oob_plan(spec, cat, &compute, nps, diags)?;
    if diags.has_errors() {
        return None;
    }
    Some(Sizing {
        node_model: su.node_model.value.clone(),
        gpus_per_node: node.gpus,
        sus,
        nodes_per_su: nps,
        populated,
        reserved,
        fabric_managers: managers,
        compute,
        storage,
        inband,
        inband_converged: converged,
        oob,
    })
}

fn port_indices(node: &NodeModel, net: Network, flat: &[String]) -> Vec<u16> {
    let list = match net {
        Network::Storage => &node.storage,
        _ => &node.inband,
    };
    list.iter()
        .flat_map(|p| p.ports.iter())
        .filter_map(|name| {
            flat.iter()
                .position(|f| f == name)
                .and_then(|i| u16::try_from(i).ok())
        })
        .collect()
}

fn compute_plan(
    spec: &ClusterSpec,
    cat: &Catalog,
    node: &NodeModel,
    sus: u32,
    nps: u32,
    diags: &mut Diagnostics,
) -> Option<ComputePlan> {
    let c = &spec.compute;
    let transport = c.transport;
    let nics = node.compute.len() as u32;
    if nics == 0 {
        diags.push(
            Diagnostic::error(
                codes::BAD_CATALOG_ENTRY,
                format!(
                    "node model `{}` has no compute NICs",
                    spec.scalable_units.node_model.value
                ),
            )
            .at(spec.scalable_units.node_model.span, "no compute NICs")
            .help("list the compute NICs under `compute:` in the node model"),
        );
        return None;
    }
    let rails = match &c.rails {
        Some(r) if r.value != nics && c.layout == Layout::RailOptimized => {
            diags.push(
                Diagnostic::error(
                    codes::RAILS_NIC_MISMATCH,
                    format!(
                        "{} rails declared, but `{}` has {nics} compute NICs",
                        r.value, spec.scalable_units.node_model.value
                    ),
                )
                .at(r.span, format!("the node has {nics} compute NICs"))
                .help(format!(
                    "set `rails: {nics}` or remove it (it defaults to the NIC count)"
                )),
            );
            return None;
        }
        Some(r) => nonzero(r, "`compute.rails`", diags)?,
        None => nics,
    };
    let planes = nonzero(&c.planes, "`compute.planes`", diags)?;
    if let Some(short) = node
        .compute
        .iter()
        .position(|n| (n.ports.len() as u32) < planes)
    {
        diags.push(
            Diagnostic::error(
                codes::PLANES_NIC_PORTS,
                format!(
                    "{planes} planes need {planes} ports per compute NIC; NIC {} of `{}` has {}",
                    short + 1,
                    spec.scalable_units.node_model.value,
                    node.compute[short].ports.len()
                ),
            )
            .at(c.planes.span, "too many planes")
            .help("use `planes: 1`, or a node model whose compute NICs list a port per plane"),
        );
        return None;
    }
    let nic = &node.compute[0];
    let port_speed = c.port_speed.as_ref().map_or(nic.speed, |s| s.value);
    if let Some(bad) = node.compute.iter().position(|n| !n.supports(port_speed)) {
        let span = c
            .port_speed
            .as_ref()
            .and_then(|s| s.span)
            .or(spec.scalable_units.node_model.span);
        diags.push(
            Diagnostic::error(
                codes::SPEED_MISMATCH,
                format!(
                    "compute NIC {} of `{}` cannot run at {port_speed}",
                    bad + 1,
                    spec.scalable_units.node_model.value
                ),
            )
            .at(span, format!("leaf ports at {port_speed}"))
            .help(format!(
                "the NIC runs at {}; set `compute.port_speed` to a rate both ends support",
                node.compute[bad].speed
            )),
        );
        return None;
    }
    let uplink_speed = c.uplink_speed.as_ref().map_or(port_speed, |s| s.value);
    let ratio = parse_ratio(&c.oversubscription, diags)?;
    let leaf = switch_model(cat, &c.leaf.model, Some(transport), diags);
    let spine = switch_model(cat, &c.spine.model, Some(transport), diags);
    let core = c
        .core
        .as_ref()
        .map(|k| switch_model(cat, &k.model, Some(transport), diags));
    let (leaf, spine) = (leaf?, spine?);
    let down_g = lanes(leaf, &c.leaf.model, port_speed, "node ports", diags);
    let up_g = lanes(leaf, &c.leaf.model, uplink_speed, "uplinks", diags);
    if let Some(sp) = &c.spine.port_speed
        && sp.value != uplink_speed
    {
        diags.push(
            Diagnostic::error(
                codes::SPEED_MISMATCH,
                format!(
                    "spine ports at {} but leaf uplinks at {uplink_speed}",
                    sp.value
                ),
            )
            .at(sp.span, "does not match the leaf uplinks")
            .help("set `compute.uplink_speed` and `compute.spine.port_speed` to the same rate"),
        );
        return None;
    }
    let spine_g = lanes(spine, &c.spine.model, uplink_speed, "ports", diags);
    let (down_g, up_g, spine_g) = (down_g?, up_g?, spine_g?);

    // Leaf: downlinks, then the uplinks the ratio requires.
    let layout = c.layout;
    let fit = |per_leaf_units: u32, unit_lanes: u32| -> Option<(u32, u32, CageRun, CageRun)> {
        let down = per_leaf_units * unit_lanes;
        let up = match &c.leaf.uplinks {
            Some(u) => u.value,
            None => match uplinks_for(down, port_speed, &ratio, uplink_speed) {
                Ok(u) | Err(u) => u,
            },
        };
        let (d, u) = place(leaf, (down_g.0, down_g.1, down), (up_g.0, up_g.1, up))?;
        Some((down, up, d, u))
    };
    let (unit_count, unit_lanes, unit_span) = match layout {
        Layout::RailOptimized => (
            rails,
            nps,
            c.leaf.rails_per_leaf.as_ref().and_then(|r| r.span),
        ),
        Layout::TopOfRack => (
            nps,
            rails,
            c.leaf.nodes_per_leaf.as_ref().and_then(|r| r.span),
        ),
    };
    let explicit = match layout {
        Layout::RailOptimized => c.leaf.rails_per_leaf.as_ref(),
        Layout::TopOfRack => c.leaf.nodes_per_leaf.as_ref(),
    };
    let per_leaf = match explicit {
        Some(k) => {
            let k = nonzero(k, "units per leaf", diags)?;
            if unit_count % k != 0 {
                let (code, what) = match layout {
                    Layout::RailOptimized => (
                        codes::RAILS_PER_LEAF_DIVIDE,
                        format!("{k} rails per leaf does not divide {unit_count} rails"),
                    ),
                    Layout::TopOfRack => (
                        codes::NODES_PER_LEAF,
                        format!("{k} nodes per leaf does not divide {unit_count} nodes per SU"),
                    ),
                };
                let divisors: Vec<String> = (1..=unit_count)
                    .filter(|d| unit_count % d == 0)
                    .map(|d| d.to_string())
                    .collect();
                diags.push(
                    Diagnostic::error(code, what)
                        .at(unit_span, "does not divide")
                        .help(format!("use one of {}", divisors.join(", "))),
                );
                return None;
            }
            k
        }
        None => (1..=unit_count)
            .rev()
            .filter(|k| unit_count.is_multiple_of(*k))
            .find(|k| fit(*k, unit_lanes).is_some())
            .unwrap_or(1),
    };
    let Some((down, up, leaf_down, leaf_up)) = fit(per_leaf, unit_lanes) else {
        // Say what does fit.
        let lanes_free = leaf_capacity(leaf, down_g);
        let largest = match layout {
            Layout::RailOptimized => (1..nps).rev().find(|n| {
                let down = per_leaf * n;
                let up = match uplinks_for(down, port_speed, &ratio, uplink_speed) {
                    Ok(u) | Err(u) => u,
                };
                place(leaf, (down_g.0, down_g.1, down), (up_g.0, up_g.1, up)).is_some()
            }),
            Layout::TopOfRack => None,
        };
        let help = match largest {
            Some(n) => format!("at most {n} nodes per SU fit with {per_leaf} rails per leaf at `{}`; or use fewer rails per leaf, a larger leaf, or a higher ratio", c.oversubscription.value),
            None => "use a larger leaf model, fewer nodes or rails per leaf, or a higher oversubscription ratio".to_string(),
        };
        diags.push(
            Diagnostic::error(codes::LEAF_RADIX, format!("leaf `{}` has {lanes_free} ports at {port_speed}, too few for {} downlinks plus their uplinks", c.leaf.model.value, per_leaf * unit_lanes))
                .at(spec.scalable_units.nodes_per_su.span, "needs more leaf ports than the model has")
                .help(help),
        );
        return None;
    };
    // The declared ratio must be what the ports realise.
    let realised_ok = match uplinks_for(down, port_speed, &ratio, uplink_speed) {
        Ok(u) => u == up,
        Err(_) => false,
    };
    if !realised_ok {
        let down_bw = u64::from(down) * u64::from(port_speed.as_gbps());
        let up_bw = u64::from(up) * u64::from(uplink_speed.as_gbps());
        let span = c
            .leaf
            .uplinks
            .as_ref()
            .and_then(|u| u.span)
            .or(c.oversubscription.span);
        diags.push(
            Diagnostic::error(codes::OVERSUBSCRIPTION_MISMATCH, format!(
                "declared oversubscription `{}`, but {down} × {port_speed} down over {up} × {uplink_speed} up is {}",
                c.oversubscription.value, fmt_ratio(down_bw, up_bw)))
                .at(span, "not what the ports give")
                .help(format!("declare `oversubscription: \"{}\"`, or change the uplink count or speed", fmt_ratio(down_bw, up_bw))),
        );
        return None;
    }
    let leaves_per_su = unit_count / per_leaf;

    // Spines: 2-tier if an even spread exists, else 3-tier.
    let spine_ports = leaf_capacity(spine, spine_g);
    let tiers_req = c.tiers.as_ref().map(|t| t.value);
    if let Some(t) = &c.tiers
        && !matches!(t.value, 2 | 3)
    {
        diags.push(
            Diagnostic::error(
                codes::TIERS,
                format!("`tiers: {}` is not supported", t.value),
            )
            .at(t.span, "2 or 3")
            .help("use 2, 3, or leave it out for automatic"),
        );
        return None;
    }
    let total_up = sus * leaves_per_su * up;
    let explicit_spines = c.spine.count.as_ref();
    let two_tier_spines = match explicit_spines {
        Some(s) if tiers_req != Some(3) => Some(nonzero(s, "`compute.spine.count`", diags)?),
        _ => even_count(total_up, spine_ports, up),
    };
    let tiers = match tiers_req {
        Some(t) => t,
        // Automatic: 2-tier whenever an even spread exists; a declared core waits for growth.
        None if two_tier_spines.is_some() => 2,
        None if c.core.is_some() => 3,
        None => 2,
    };
    let base = |tiers,
                sus_per_group,
                groups,
                spines_per_group,
                lps,
                spine_down,
                spine_up,
                spine_uplinks,
                cores_per_group,
                lpc,
                core_down| ComputePlan {
        transport,
        layout: match layout {
            Layout::RailOptimized => "rail-optimized",
            Layout::TopOfRack => "top-of-rack",
        },
        planes,
        rails,
        rails_per_leaf: if layout == Layout::RailOptimized {
            per_leaf
        } else {
            rails
        },
        nodes_per_leaf: if layout == Layout::RailOptimized {
            nps
        } else {
            per_leaf
        },
        leaves_per_su,
        port_speed,
        uplink_speed,
        oversubscription: c.oversubscription.value.clone(),
        downlinks_per_leaf: down,
        uplinks_per_leaf: up,
        leaf_model: c.leaf.model.value.clone(),
        leaf_down,
        leaf_up,
        tiers,
        spine_model: c.spine.model.value.clone(),
        sus_per_group,
        groups,
        spines_per_group,
        links_per_leaf_spine: lps,
        spine_down,
        spine_up,
        spine_uplinks,
        core_model: c.core.as_ref().map(|k| k.model.value.clone()),
        cores_per_group,
        links_per_spine_core: lpc,
        core_down,
    };
    let spine_group = &spine.port_groups[spine_g.0];
    let spine_speed = Speed::gbps(spine_group.speed.as_gbps() / spine_g.1);
    if tiers == 2 {
        let span = explicit_spines.and_then(|s| s.span).or(c.spine.model.span);
        let Some(spines) = two_tier_spines else {
            diags.push(
                Diagnostic::error(codes::SPINE_TWO_TIER, format!(
                    "{total_up} leaf uplinks need more than {up} spines of {spine_ports} ports; a 2-tier fabric cannot connect every leaf to every spine"))
                    .at(c.tiers.as_ref().and_then(|t| t.span).or(span), "2-tier does not fit")
                    .help(format!("use `tiers: 3` with a `core` model (a 2-tier fabric of `{}` holds at most {} SUs)", c.spine.model.value, (up * spine_ports) / (leaves_per_su * up).max(1))),
            );
            return None;
        };
        if up % spines != 0 {
            diags.push(
                Diagnostic::error(
                    codes::UNEQUAL_LINKS,
                    format!("{up} uplinks per leaf do not spread evenly over {spines} spines"),
                )
                .at(span, "uneven")
                .help(format!(
                    "use a spine count that divides {up}: {}",
                    divisors(up)
                )),
            );
            return None;
        }
        if total_up > spines * spine_ports {
            let fit_sus = (spines * spine_ports) / (leaves_per_su * up);
            diags.push(
                Diagnostic::error(codes::SWITCH_RADIX, format!("{spines} spines × {spine_ports} ports cannot take {total_up} leaf uplinks"))
                    .at(span, "too few spine ports")
                    .help(format!("at most {fit_sus} SUs fit on {spines} `{}` spines; add spines or use `tiers: 3`", c.spine.model.value)),
            );
            return None;
        }
        let run = CageRun {
            first: spine_group.first,
            cages: spine_group.count,
            lanes: spine_g.1,
            speed: spine_speed,
        };
        return Some(base(
            2,
            sus,
            1,
            spines,
            up / spines,
            run,
            None,
            0,
            0,
            0,
            None,
        ));
    }

    // 3-tier: spine groups of `sus_per_group` SUs; spine j of every group joins core group j.
    let Some(Some(core)) = core else {
        diags.push(
            Diagnostic::error(codes::TIERS, "a 3-tier fabric needs a `core` switch model")
                .at(
                    c.tiers.as_ref().and_then(|t| t.span).or(c.spine.model.span),
                    "3 tiers",
                )
                .help("add `compute.core.model`"),
        );
        return None;
    };
    let core_spec = c.core.as_ref()?;
    let core_g = lanes(core, &core_spec.model, uplink_speed, "ports", diags)?;
    let g = nonzero(
        &c.spine.sus_per_group,
        "`compute.spine.sus_per_group`",
        diags,
    )?;
    let groups = sus.div_ceil(g);
    let half = spine_group.count / 2;
    let spine_down_ports = half * spine_g.1;
    let group_up = g * leaves_per_su * up;
    let spines = match explicit_spines {
        Some(s) => nonzero(s, "`compute.spine.count`", diags)?,
        None => match even_count(group_up, spine_down_ports, up) {
            Some(s) => s,
            None => {
                diags.push(
                    Diagnostic::error(codes::SPINE_TWO_TIER, format!("a spine group of {g} SUs has {group_up} leaf uplinks; `{}` spines cannot take them evenly", c.spine.model.value))
                        .at(c.spine.sus_per_group.span.or(c.spine.model.span), "group too large")
                        .help("use fewer `sus_per_group`, or a spine model with more ports"),
                );
                return None;
            }
        },
    };
    let spine_span = explicit_spines.and_then(|s| s.span).or(c.spine.model.span);
    if up % spines != 0 {
        diags.push(
            Diagnostic::error(
                codes::UNEQUAL_LINKS,
                format!(
                    "{up} uplinks per leaf do not spread evenly over {spines} spines per group"
                ),
            )
            .at(spine_span, "uneven")
            .help(format!(
                "use a spine count that divides {up}: {}",
                divisors(up)
            )),
        );
        return None;
    }
    if group_up > spines * spine_down_ports {
        diags.push(
            Diagnostic::error(codes::SWITCH_RADIX, format!("{spines} spines × {spine_down_ports} downlink ports cannot take a group's {group_up} leaf uplinks"))
                .at(spine_span, "too few spine ports")
                .help(format!("at most {} SUs per spine group fit; lower `sus_per_group` or add spines", (spines * spine_down_ports) / (leaves_per_su * up))),
        );
        return None;
    }
    let spine_uplinks = group_up / spines; // 1:1 at the spine
    let core_group = &core.port_groups[core_g.0];
    let core_ports = core_group.count * core_g.1;
    let core_links = groups * spine_uplinks;
    let cores_per_group = match &core_spec.count {
        Some(k) => {
            let k = nonzero(k, "`compute.core.count`", diags)?;
            if k % spines != 0 || spine_uplinks % (k / spines).max(1) != 0 {
                diags.push(
                    Diagnostic::error(codes::UNEQUAL_LINKS, format!("{k} cores do not form {spines} equal core groups that each spine reaches evenly"))
                        .at(k_span(core_spec), "uneven")
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
                    Diagnostic::error(codes::SWITCH_RADIX, format!("{core_links} spine uplinks per core group exceed what `{}` cores can take evenly", core_spec.model.value))
                        .at(core_spec.model.span, "core radix")
                        .help(format!("at most {} SUs fit with this core model", (spine_uplinks * core_ports / spine_uplinks.max(1)) / spine_uplinks.max(1) * g)),
                );
                return None;
            }
        },
    };
    if core_links > cores_per_group * core_ports {
        diags.push(
            Diagnostic::error(
                codes::SWITCH_RADIX,
                format!(
                    "{} cores × {core_ports} ports cannot take {} spine uplinks",
                    cores_per_group * spines,
                    core_links * spines
                ),
            )
            .at(k_span(core_spec), "too few core ports")
            .help(format!(
                "at most {} SUs fit; add cores",
                (cores_per_group * core_ports / spine_uplinks) * g
            )),
        );
        return None;
    }
    let spine_down = CageRun {
        first: spine_group.first,
        cages: half,
        lanes: spine_g.1,
        speed: spine_speed,
    };
    let spine_up = CageRun {
        first: spine_group.first + half,
        cages: spine_group.count - half,
        lanes: spine_g.1,
        speed: spine_speed,
    };
    let core_down = CageRun {
        first: core_group.first,
        cages: core_group.count,
        lanes: core_g.1,
        speed: Speed::gbps(core_group.speed.as_gbps() / core_g.1),
    };
    Some(base(
        3,
        g,
        groups,
        spines,
        up / spines,
        spine_down,
        Some(spine_up),
        spine_uplinks,
        cores_per_group,
        spine_uplinks / cores_per_group,
        Some(core_down),
    ))
}

fn k_span(core: &crate::spec::CoreSpec) -> Option<Span> {
    core.count.as_ref().and_then(|c| c.span).or(core.model.span)
}

fn leaf_capacity(m: &SwitchModel, g: (usize, u32)) -> u32 {
    m.port_groups[g.0].count * g.1
}

fn divisors(n: u32) -> String {
    (1..=n)
        .filter(|d| n.is_multiple_of(*d))
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A down:up bandwidth ratio as printed (`1:1`, `1.33:1`).
pub fn fmt_ratio(down: u64, up: u64) -> String {
    if up == 0 {
        return "∞:1".into();
    }
    let r = down as f64 / up as f64;
    if (r - r.round()).abs() < 1e-9 {
        format!("{}:1", r.round())
    } else {
        format!("{r:.2}:1")
    }
}

#[allow(clippy::too_many_arguments)]
fn access_plan(
    network: Network,
    a: &AccessSpec,
    cat: &Catalog,
    node: &NodeModel,
    ports: &[u16],
    positions: u32,
    key: &str,
    diags: &mut Diagnostics,
) -> Option<AccessPlan> {
    let leaf = switch_model(cat, &a.leaf.model, Some(a.transport), diags)?;
    if ports.is_empty() {
        diags.push(
            Diagnostic::error(
                codes::MISSING_PORTS,
                format!("node model has no {key} ports, but a `{key}` fabric is configured"),
            )
            .at(a.leaf.model.span, "no node ports to connect")
            .help(format!(
                "add `{key}:` ports to the node model, or remove the `{key}` section"
            )),
        );
        return None;
    }
    let node_ports: Vec<&crate::catalog::NodePort> = match network {
        Network::Storage => node.storage.iter().chain(&node.inband).collect(),
        _ => node.inband.iter().collect(),
    };
    let port_speed = a
        .port_speed
        .as_ref()
        .map_or(node_ports[0].speed, |s| s.value);
    if node_ports.iter().any(|p| !p.supports(port_speed)) {
        diags.push(
            Diagnostic::error(
                codes::SPEED_MISMATCH,
                format!("the node's {key} ports cannot run at {port_speed}"),
            )
            .at(
                a.port_speed
                    .as_ref()
                    .and_then(|s| s.span)
                    .or(a.leaf.model.span),
                "speed",
            )
            .help(format!(
                "the ports run at {}; set `{key}.port_speed` accordingly",
                node_ports[0].speed
            )),
        );
        return None;
    }
    // The fastest rate a port of the leaf can run at (a QM9700 cage is 800G but runs 2x400G).
    let fastest = leaf
        .port_groups
        .iter()
        .flat_map(|g| {
            g.breakouts
                .iter()
                .filter_map(|b| b.split_once('x')?.1.parse::<Speed>().ok())
        })
        .max()
        .unwrap_or(port_speed);
    let uplink_speed = a.uplink_speed.as_ref().map_or(fastest, |s| s.value);
    let ratio = parse_ratio(&a.oversubscription, diags)?;
    let dg = lanes(leaf, &a.leaf.model, port_speed, "node ports", diags)?;
    let ug = lanes(leaf, &a.leaf.model, uplink_speed, "uplinks", diags)?;
    let width = if ports.len() >= 2 { 2 } else { 1 };
    let per_node = (ports.len() as u32).div_ceil(width);
    let up_for = |n: u32| match uplinks_for(n * per_node, port_speed, &ratio, uplink_speed) {
        Ok(u) | Err(u) => u.max(1),
    };
    let capacity = leaf_capacity(leaf, dg);
    let Some(npg) = (1..=capacity / per_node)
        .rev()
        .find(|n| place(leaf, (dg.0, dg.1, n * per_node), (ug.0, ug.1, up_for(*n))).is_some())
    else {
        diags.push(
            Diagnostic::error(
                codes::ACCESS_RADIX,
                format!(
                    "`{}` cannot carry one node's {key} ports plus uplinks",
                    a.leaf.model.value
                ),
            )
            .at(a.leaf.model.span, "too small")
            .help("use a larger leaf model or a higher oversubscription ratio"),
        );
        return None;
    };
    let up = up_for(npg);
    let (leaf_down, leaf_up) = place(leaf, (dg.0, dg.1, npg * per_node), (ug.0, ug.1, up))?;
    let groups = positions.div_ceil(npg);
    let leaves = groups * width;
    let (spines, spine_model, spine_down) = match (&a.spine, leaves > width) {
        (Some(s), _) => {
            let m = switch_model(cat, &s.model, Some(a.transport), diags)?;
            let sg = lanes(m, &s.model, uplink_speed, "ports", diags)?;
            let grp = &m.port_groups[sg.0];
            let ports_per = grp.count * sg.1;
            let total = leaves * up;
            let n = match &s.count {
                Some(c) => nonzero(c, "spine count", diags)?,
                None => even_count(total, ports_per, up).unwrap_or(up),
            };
            if up % n != 0 || total > n * ports_per {
                diags.push(
                    Diagnostic::error(codes::UNEQUAL_LINKS, format!("{leaves} {key} leaves × {up} uplinks do not spread evenly over {n} spines of {ports_per} ports"))
                        .at(s.count.as_ref().and_then(|c| c.span).or(s.model.span), "uneven or too small")
                        .help(format!("use a spine count that divides {up} and gives at least {total} ports")),
                );
                return None;
            }
            (
                n,
                Some(s.model.value.clone()),
                Some(CageRun {
                    first: grp.first,
                    cages: grp.count,
                    lanes: sg.1,
                    speed: uplink_speed,
                }),
            )
        }
        (None, true) => {
            diags.push(
                Diagnostic::error(codes::ACCESS_RADIX, format!("{leaves} {key} leaves are needed for {positions} node positions; they need spines"))
                    .at(a.leaf.model.span, format!("{npg} nodes per leaf group"))
                    .help(format!("add `{key}.spine.model`")),
            );
            return None;
        }
        (None, false) => (0, None, None),
    };
    Some(AccessPlan {
        network,
        transport: a.transport,
        leaf_model: a.leaf.model.value.clone(),
        spine_model,
        node_ports: ports.to_vec(),
        width,
        lanes_per_node: per_node,
        nodes_per_group: npg,
        groups,
        port_speed,
        uplink_speed,
        uplinks_per_leaf: if spines > 0 { up } else { 0 },
        leaf_down,
        leaf_up,
        spines,
        links_per_leaf_spine: up.checked_div(spines).unwrap_or(0),
        spine_down,
    })
}

fn oob_plan(
    spec: &ClusterSpec,
    cat: &Catalog,
    c: &ComputePlan,
    nps: u32,
    diags: &mut Diagnostics,
) -> Option<OobPlan> {
    let o = &spec.oob;
    let m = switch_model(cat, &o.model, Some(Transport::Ethernet), diags)?;
    let g = lanes(m, &o.model, Speed::gbps(1), "management ports", diags)?;
    let grp = &m.port_groups[g.0];
    let access = CageRun {
        first: grp.first,
        cages: grp.count,
        lanes: 1,
        speed: Speed::gbps(1),
    };
    let su_block = nps + c.planes * c.leaves_per_su;
    let need = su_block.div_ceil(access.capacity());
    let per_su = match &o.switches_per_su {
        Some(n) => {
            let n = nonzero(n, "`oob.switches_per_su`", diags)?;
            if n < need {
                diags.push(
                    Diagnostic::error(codes::OOB_SHORTAGE, format!(
                        "{n} OOB switch(es) per SU give {} ports, but each SU has {su_block} management and BMC ports", n * access.capacity()))
                        .at(o.switches_per_su.as_ref().and_then(|s| s.span), "too few")
                        .help(format!("use `switches_per_su: {need}` or more, or leave it out to size automatically")),
                );
                return None;
            }
            n
        }
        None => need,
    };
    Some(OobPlan {
        model: o.model.value.clone(),
        access,
        per_su,
        su_block,
        core_switches: 0,
    })
}
