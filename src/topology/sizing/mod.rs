//! Pure sizing arithmetic: how many leaves, spines and cores, which cages carry downlinks and
//! which uplinks, and every radix, ratio and evenness check with a diagnostic that says what fits.
//! One module per network (`compute`, `access`, `oob`); the leaf → spine → core arithmetic the
//! Clos fabrics share is `clos`; the shared port arithmetic is here.

mod access;
mod clos;
mod compute;
mod domain;
mod oob;

use serde::Serialize;

pub use access::AccessPlan;
pub use compute::ComputePlan;
pub use domain::DomainPlan;
pub use oob::OobPlan;

use crate::catalog::{Catalog, NodeModel, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Network, Speed, Transport};
use crate::spec::{ClusterSpec, Sp};

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
    /// NVLink domains of a rack-scale node model; `None`: every node is its own domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domains: Option<DomainPlan>,
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
    if let (Some(a), Some(b)) = (sus, nps)
        && too_many_positions(spec, a, b, diags)
    {
        return None;
    }
    let compute = match (sus, nps, node) {
        (Some(sus), Some(nps), Some(node)) => {
            compute::compute_plan(spec, cat, node, sus, nps, diags)
        }
        _ => None,
    };
    let (sus, nps, node, compute) = (sus?, nps?, node?, compute);
    let (reserved, managers) = fabric_managers(spec, node, sus, nps, diags);
    let populated = population(spec, sus, nps, reserved, diags);
    let domains = domain::domain_plan(spec, node, nps, diags);
    let (storage, inband, converged) = access_fabrics(spec, cat, node, sus * nps, diags);
    let compute = compute?;
    let oob = oob::oob_plan(
        spec,
        cat,
        &compute,
        [storage.as_ref(), inband.as_ref()],
        nps,
        domains.as_ref(),
        diags,
    )?;
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
        domains,
    })
}

/// Whether SUs × nodes per SU is beyond what railyard plans (reported).
fn too_many_positions(spec: &ClusterSpec, sus: u32, nps: u32, diags: &mut Diagnostics) -> bool {
    // Far beyond any real cluster; keeps every product below in range.
    const MAX_POSITIONS: u64 = 1 << 22;
    if u64::from(sus) * u64::from(nps) <= MAX_POSITIONS {
        return false;
    }
    diags.push(
        Diagnostic::error(codes::COUNT_TOO_LARGE, format!("{sus} SUs × {nps} nodes per SU is more than railyard plans ({MAX_POSITIONS} node positions)"))
            .at(spec.scalable_units.count.span, "too large")
            .help("check `scalable_units.count` and `nodes_per_su`"),
    );
    true
}

/// The node position reserved for fabric managers (SU, slot) and how many share it; none when
/// the spec names none or names an impossible one (reported).
fn fabric_managers(
    spec: &ClusterSpec,
    node: &NodeModel,
    sus: u32,
    nps: u32,
    diags: &mut Diagnostics,
) -> (Option<(u32, u32)>, u32) {
    let Some(fm) = &spec.compute.fabric_managers else {
        return (None, 0);
    };
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
        return (Some((fm.su.value, fm.slot.value)), fm.count.value);
    }
    (None, 0)
}

/// Nodes installed per SU: `populated`, else every free position (a reserved one is not free).
fn population(
    spec: &ClusterSpec,
    sus: u32,
    nps: u32,
    reserved: Option<(u32, u32)>,
    diags: &mut Diagnostics,
) -> Vec<u32> {
    let su = &spec.scalable_units;
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
    populated
}

/// The storage and in-band access fabrics over `positions` node positions, and whether in-band
/// rides on the storage fabric (its ports then join storage's).
fn access_fabrics(
    spec: &ClusterSpec,
    cat: &Catalog,
    node: &NodeModel,
    positions: u32,
    diags: &mut Diagnostics,
) -> (Option<AccessPlan>, Option<AccessPlan>, bool) {
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
        access::access_plan(
            Network::Storage,
            a,
            cat,
            node,
            &ports,
            positions,
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
            Some(a) => access::access_plan(
                Network::Inband,
                &a,
                cat,
                node,
                &inband_ix,
                positions,
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
    (storage, inband, converged)
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
