//! The comparison: observed LLDP links against the planned cables of a [`Fabric`].
//!
//! Every neighbour entry becomes an undirected observed link between two cable ends (both
//! directions of one cable collapse into one link). A link whose ends are the two ends of one
//! planned cable is correct. Every other link is a deviation, classified by the planned cables
//! of its two ends:
//! - neither end is a planned cable end: **unexpected**;
//! - two deviations that together join the four ends of two planned cables crosswise: the two
//!   cables are **swapped** (one finding naming both cables);
//! - otherwise one **miswired** finding per deviation.
//!
//! A miswire is `wrong-rail` when a compute NIC of rail r lands on a leaf port of another rail,
//! `swapped-ports`/`wrong-port` when the cable joins the planned device pair (or device) on other
//! ports, `wrong-device` otherwise. A planned cable in scope that no observed link touches is
//! **missing** when LLDP could have seen it (one end captured, the other end known to send LLDP:
//! captured with at least one neighbour, or seen as a neighbour), else it is **not verified**.
//! Captures from devices the plan does not have are listed, not compared. What the scope and the
//! status mean: `scope.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::names::{Names, PortAliases};
use super::scope::{Gap, Scope, Status};
use super::{Capture, InputFormat};
use crate::model::{Network, Role, Tier};
use crate::topology::Fabric;

/// One cable end by name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct EndRef {
    pub device: String,
    pub port: String,
}

impl fmt::Display for EndRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.device, self.port)
    }
}

/// A planned cable: what to look for on the floor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CableRef {
    pub cable_id: String,
    pub label: String,
    pub network: String,
    pub tier: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rail: Option<u32>,
    /// Lower-tier end (node side), as in the cabling plan.
    pub a: EndRef,
    pub b: EndRef,
}

/// A link LLDP saw, and which captured devices reported it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObservedLink {
    pub a: EndRef,
    pub b: EndRef,
    pub seen_by: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Correct,
    Miswired,
    Missing,
    Unexpected,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Correct => "correct",
            Class::Miswired => "miswired",
            Class::Missing => "missing",
            Class::Unexpected => "unexpected",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MiswireKind {
    /// Two cables between the same two devices, each in the other's ports.
    SwappedPorts,
    /// The right device (pair), another port.
    WrongPort,
    /// Another device than planned.
    WrongDevice,
    /// A compute NIC on a leaf port that serves another rail.
    WrongRail,
}

impl MiswireKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MiswireKind::SwappedPorts => "swapped-ports",
            MiswireKind::WrongPort => "wrong-port",
            MiswireKind::WrongDevice => "wrong-device",
            MiswireKind::WrongRail => "wrong-rail",
        }
    }
}

/// Why LLDP did not see a planned cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unseen {
    /// Neither end's device was captured.
    NotCaptured,
    /// An end was captured; the far end sent no LLDP that any capture saw.
    PeerSilent,
}

/// A planned cable in scope that LLDP did not see.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unverified {
    pub cable: CableRef,
    pub reason: Unseen,
}

/// One problem, with the planned cables to fix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub class: Class,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<MiswireKind>,
    /// Two planned cables swapped with each other (both are in `cables`).
    pub swapped: bool,
    /// What LLDP saw (empty for missing cables).
    pub observed: Vec<ObservedLink>,
    /// The planned cables involved: their ids, labels and both planned ends.
    pub cables: Vec<CableRef>,
    pub message: String,
    pub fix: String,
}

/// Where the data came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaptureInfo {
    pub device: String,
    pub source: String,
    pub format: InputFormat,
    pub neighbours: usize,
    /// Whether the device is in the plan (when not, its neighbours were not compared).
    pub planned: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub planned_cables: usize,
    /// Planned cables the verification covers (the scope).
    pub in_scope: usize,
    pub out_of_scope: usize,
    /// Planned cables LLDP saw as planned (in scope or not).
    pub correct: usize,
    /// Miswired findings (a swap is one finding).
    pub miswired: usize,
    /// Distinct planned cables named by miswired findings.
    pub miswired_cables: usize,
    pub missing: usize,
    pub unexpected: usize,
    /// Planned cables in scope LLDP did not see: no end captured, or the far end sent nothing a
    /// capture saw.
    pub not_verified: usize,
    /// Neighbour entries compared (those of captures from planned devices).
    pub neighbour_entries: usize,
    /// Captures from devices the plan does not have.
    pub unplanned_captures: usize,
}

/// The verification result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub fabric: String,
    /// PASS only when every planned cable in scope was seen as planned (`scope.rs`).
    pub status: Status,
    /// What was not verified (empty for PASS).
    pub gaps: Vec<Gap>,
    pub scope: Scope,
    pub captures: Vec<CaptureInfo>,
    pub summary: Summary,
    /// Problems, in a fixed order: miswired, missing, unexpected; then plan order.
    pub findings: Vec<Finding>,
    /// Planned cables LLDP proved correct, in plan order.
    pub correct: Vec<CableRef>,
    /// Planned cables in scope LLDP did not see, in plan order.
    pub not_verified: Vec<Unverified>,
}

impl Report {
    /// No problems among the observed links (which alone is not a PASS: see [`Report::status`]).
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// Pretty JSON with a trailing newline, safe on a terminal (`output::terminal::json`).
    pub fn to_json(&self) -> String {
        let s = serde_json::to_string_pretty(self).unwrap_or_default();
        let mut s = crate::output::terminal::json(&s).into_owned();
        s.push('\n');
        s
    }

    /// Every distinct cable id named by a finding, sorted.
    pub fn cables_to_fix(&self) -> Vec<&str> {
        let set: BTreeSet<&str> = self
            .findings
            .iter()
            .flat_map(|f| f.cables.iter().map(|c| c.cable_id.as_str()))
            .collect();
        set.into_iter().collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    A,
    B,
}

struct Planned {
    cable: CableRef,
    in_scope: bool,
    network: Network,
    tier: Tier,
}

impl Planned {
    fn end(&self, s: Side) -> &EndRef {
        match s {
            Side::A => &self.cable.a,
            Side::B => &self.cable.b,
        }
    }

    fn peer(&self, s: Side) -> &EndRef {
        match s {
            Side::A => &self.cable.b,
            Side::B => &self.cable.a,
        }
    }

    fn devices(&self) -> BTreeSet<&str> {
        [self.cable.a.device.as_str(), self.cable.b.device.as_str()].into()
    }

    fn compute_node_leaf(&self) -> bool {
        self.network == Network::Compute && self.tier == Tier::NodeLeaf
    }
}

/// The plan, indexed by cable end.
struct Plan {
    links: Vec<Planned>,
    at: BTreeMap<EndRef, (usize, Side)>,
    /// Compute leaves serving exactly one rail.
    leaf_rail: BTreeMap<String, u32>,
    names: Names,
    aliases: PortAliases,
}

impl Plan {
    fn new(f: &Fabric, scope: &Scope, aliases: &PortAliases) -> Self {
        let mut links = Vec::with_capacity(f.link_count());
        let mut at = BTreeMap::new();
        for (i, l) in f.links().enumerate() {
            let (da, db) = (f.device_of(&l.a), f.device_of(&l.b));
            let a = EndRef {
                device: da.name.clone(),
                port: f.port_name(da, l.a.port),
            };
            let b = EndRef {
                device: db.name.clone(),
                port: f.port_name(db, l.b.port),
            };
            at.entry(a.clone()).or_insert((i, Side::A));
            at.entry(b.clone()).or_insert((i, Side::B));
            let cable = CableRef {
                cable_id: l.cable_id.clone(),
                label: f.label(l),
                network: l.network.as_str().to_string(),
                tier: l.tier.as_str().to_string(),
                rail: l.rail,
                a,
                b,
            };
            links.push(Planned {
                in_scope: scope.covers(&cable.a.device, &cable.b.device, l.tier),
                cable,
                network: l.network,
                tier: l.tier,
            });
        }
        let leaf_rail = f
            .devices()
            .filter(|d| d.role == Role::Leaf && d.rails.len() == 1)
            .map(|d| (d.name.clone(), d.rails[0]))
            .collect();
        Plan {
            links,
            at,
            leaf_rail,
            names: Names::new(f),
            aliases: aliases.clone(),
        }
    }

    /// The plan's name for a reported system name (unknown names are kept as reported).
    fn resolve(&self, name: &str) -> String {
        self.names.resolve(name)
    }

    /// Rail of a compute NIC end.
    fn nic_rail(&self, e: &EndRef) -> Option<u32> {
        let &(i, s) = self.at.get(e)?;
        let l = &self.links[i];
        (s == Side::A && l.compute_node_leaf())
            .then_some(l.cable.rail)
            .flatten()
    }

    /// Rail a leaf port serves: its planned compute cable's rail, else its leaf's only rail.
    fn leaf_port_rail(&self, e: &EndRef) -> Option<u32> {
        if let Some(&(i, s)) = self.at.get(e) {
            let l = &self.links[i];
            if s == Side::B && l.compute_node_leaf() {
                return l.cable.rail;
            }
        }
        self.leaf_rail.get(&e.device).copied()
    }

    /// `(nic rail, leaf port rail)` when a link joins a compute NIC to a leaf port of another rail.
    fn rail_mismatch(&self, x: &EndRef, y: &EndRef) -> Option<(u32, u32)> {
        [(x, y), (y, x)].into_iter().find_map(|(n, l)| {
            let (r1, r2) = (self.nic_rail(n)?, self.leaf_port_rail(l)?);
            (r1 != r2).then_some((r1, r2))
        })
    }
}

struct Deviation {
    ends: [EndRef; 2],
    seen_by: BTreeSet<String>,
    at: [Option<(usize, Side)>; 2],
}

impl Deviation {
    fn observed(&self) -> ObservedLink {
        ObservedLink {
            a: self.ends[0].clone(),
            b: self.ends[1].clone(),
            seen_by: self.seen_by.iter().cloned().collect(),
        }
    }
}

/// Compare captures with the whole plan of `fabric` ([`Scope::everything`]).
pub fn verify(fabric: &Fabric, captures: &[Capture]) -> Report {
    verify_scoped(fabric, captures, &Scope::everything())
}

/// Compare captures with the plan of `fabric`; `scope` says which planned cables must be seen.
pub fn verify_scoped(fabric: &Fabric, captures: &[Capture], scope: &Scope) -> Report {
    verify_named(fabric, captures, scope, &PortAliases::default())
}

/// [`verify_scoped`], with the names hosts give their ports (`aliases`) read as the plan's.
pub fn verify_named(
    fabric: &Fabric,
    captures: &[Capture],
    scope: &Scope,
    aliases: &PortAliases,
) -> Report {
    let plan = Plan::new(fabric, scope, aliases);
    let mut observed = observe(&plan, captures);
    let compared = compare(&plan, std::mem::take(&mut observed.seen));
    let mut findings = deviation_findings(&plan, &compared.deviations);
    let not_verified = unseen_findings(
        &plan,
        &compared,
        &observed.observers,
        &observed.speakers,
        &mut findings,
    );
    let findings = in_report_order(findings);
    let summary = summarize(
        &plan,
        &compared.correct,
        &findings,
        &not_verified,
        &observed,
    );
    let gaps = gaps(&summary);
    let status = match (findings.is_empty(), gaps.is_empty()) {
        (false, _) => Status::Fail,
        (true, false) => Status::Incomplete,
        (true, true) => Status::Pass,
    };
    Report {
        fabric: fabric.name.clone(),
        status,
        gaps,
        scope: scope.clone(),
        captures: observed.infos,
        summary,
        correct: compared
            .correct
            .iter()
            .map(|&i| plan.links[i].cable.clone())
            .collect(),
        findings,
        not_verified,
    }
}

/// What kept the verification from covering its scope.
fn gaps(s: &Summary) -> Vec<Gap> {
    [
        (s.not_verified > 0, Gap::UnseenCables),
        (s.unplanned_captures > 0, Gap::UnplannedCaptures),
        (s.neighbour_entries == 0, Gap::NothingObserved),
        (s.in_scope == 0, Gap::EmptyScope),
    ]
    .into_iter()
    .filter_map(|(gap, g)| gap.then_some(g))
    .collect()
}

/// What the captures say.
struct Observed {
    /// Captured devices of the plan.
    observers: BTreeSet<String>,
    /// Devices known to send LLDP: captured with at least one neighbour, or seen as one.
    speakers: BTreeSet<String>,
    /// Every observed link (ends in order) and the devices that reported it.
    seen: BTreeMap<[EndRef; 2], BTreeSet<String>>,
    infos: Vec<CaptureInfo>,
    /// Neighbour entries compared.
    entries: usize,
}

fn observe(plan: &Plan, captures: &[Capture]) -> Observed {
    let mut observers = BTreeSet::new();
    let mut speakers = BTreeSet::new();
    let mut seen: BTreeMap<[EndRef; 2], BTreeSet<String>> = BTreeMap::new();
    let mut infos = Vec::new();
    let mut entries = 0;
    for c in captures {
        let local = plan.resolve(&c.device);
        let planned = plan.names.is_planned(&local);
        infos.push(CaptureInfo {
            planned,
            device: local.clone(),
            source: c.source.clone(),
            format: c.format,
            neighbours: c.observations.len(),
        });
        if !planned {
            // A wrong `DEVICE=` or a file of another fabric: comparing its neighbours would
            // report the plan's cables as miswired.
            continue;
        }
        observers.insert(local.clone());
        if !c.observations.is_empty() {
            // A device that hears nothing is no evidence that it sends.
            speakers.insert(local.clone());
        }
        for o in &c.observations {
            entries += 1;
            let x = EndRef {
                device: local.clone(),
                port: plan.aliases.port(&local, &o.local_port),
            };
            let remote = plan.resolve(&o.remote_device);
            let y = EndRef {
                port: plan.aliases.port(&remote, &o.remote_port),
                device: remote,
            };
            speakers.insert(y.device.clone());
            let key = if x <= y { [x, y] } else { [y, x] };
            seen.entry(key).or_default().insert(local.clone());
        }
    }
    infos.sort_by(|a, b| (&a.device, &a.source).cmp(&(&b.device, &b.source)));
    Observed {
        observers,
        speakers,
        seen,
        infos,
        entries,
    }
}

/// Observed links sorted into correct cables and deviations.
struct Compared {
    /// Planned cables seen as planned.
    correct: BTreeSet<usize>,
    /// Planned cables an end of a deviation belongs to.
    touched: BTreeSet<usize>,
    deviations: Vec<Deviation>,
}

fn compare(plan: &Plan, seen: BTreeMap<[EndRef; 2], BTreeSet<String>>) -> Compared {
    let mut correct = BTreeSet::new();
    let mut touched = BTreeSet::new();
    let mut deviations = Vec::new();
    for (ends, seen_by) in seen {
        let at = [
            plan.at.get(&ends[0]).copied(),
            plan.at.get(&ends[1]).copied(),
        ];
        if let [Some((i, s)), Some((j, t))] = at
            && i == j
            && s != t
        {
            correct.insert(i);
            continue;
        }
        touched.extend(at.iter().flatten().map(|&(i, _)| i));
        deviations.push(Deviation { ends, seen_by, at });
    }
    Compared {
        correct,
        touched,
        deviations,
    }
}

/// One finding per swap, then one per other deviation, each with the planned cable it sorts by.
fn deviation_findings(plan: &Plan, deviations: &[Deviation]) -> Vec<(usize, Finding)> {
    // Swaps: two deviations joining the four ends of two planned cables crosswise.
    let mut by_pair: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for (k, d) in deviations.iter().enumerate() {
        if let [Some((i, _)), Some((j, _))] = d.at
            && i != j
        {
            by_pair.entry((i.min(j), i.max(j))).or_default().push(k);
        }
    }
    let mut in_swap = BTreeSet::new();
    let mut findings: Vec<(usize, Finding)> = Vec::new();
    for (&(i, j), ks) in &by_pair {
        if let [k1, k2] = ks[..] {
            let ends: BTreeSet<&EndRef> = deviations[k1]
                .ends
                .iter()
                .chain(&deviations[k2].ends)
                .collect();
            if ends.len() == 4 {
                in_swap.extend([k1, k2]);
                findings.push((
                    i.min(j),
                    swap_finding(plan, &deviations[k1], &deviations[k2]),
                ));
            }
        }
    }
    for (k, d) in deviations.iter().enumerate() {
        if !in_swap.contains(&k) {
            let order = d.at.iter().flatten().map(|&(i, _)| i).min();
            findings.push((order.unwrap_or(usize::MAX), single_finding(plan, d)));
        }
    }
    findings
}

/// Planned cables in scope no observed link touches: a missing finding each when the captures
/// could have seen it; returns those they could not have seen (not verified).
fn unseen_findings(
    plan: &Plan,
    compared: &Compared,
    observers: &BTreeSet<String>,
    speakers: &BTreeSet<String>,
    findings: &mut Vec<(usize, Finding)>,
) -> Vec<Unverified> {
    let mut not_verified = Vec::new();
    for (i, l) in plan.links.iter().enumerate() {
        if !l.in_scope || compared.correct.contains(&i) || compared.touched.contains(&i) {
            continue;
        }
        let (a, b) = (&l.cable.a.device, &l.cable.b.device);
        let visible = (observers.contains(a) && speakers.contains(b))
            || (observers.contains(b) && speakers.contains(a));
        if visible {
            findings.push((i, missing_finding(l, observers)));
        } else {
            let reason = if observers.contains(a) || observers.contains(b) {
                Unseen::PeerSilent
            } else {
                Unseen::NotCaptured
            };
            not_verified.push(Unverified {
                cable: l.cable.clone(),
                reason,
            });
        }
    }
    not_verified
}

/// Findings by class, then planned cable, then observed link.
fn in_report_order(mut findings: Vec<(usize, Finding)>) -> Vec<Finding> {
    findings.sort_by(|(oa, a), (ob, b)| {
        (a.class, oa, &a.observed.first().map(|o| (&o.a, &o.b))).cmp(&(
            b.class,
            ob,
            &b.observed.first().map(|o| (&o.a, &o.b)),
        ))
    });
    findings.into_iter().map(|(_, f)| f).collect()
}

fn summarize(
    plan: &Plan,
    correct: &BTreeSet<usize>,
    findings: &[Finding],
    not_verified: &[Unverified],
    observed: &Observed,
) -> Summary {
    let count = |c: Class| findings.iter().filter(|f| f.class == c).count();
    let miswired_cables: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.class == Class::Miswired)
        .flat_map(|f| f.cables.iter().map(|c| c.cable_id.as_str()))
        .collect();
    let in_scope = plan.links.iter().filter(|l| l.in_scope).count();
    Summary {
        planned_cables: plan.links.len(),
        in_scope,
        out_of_scope: plan.links.len() - in_scope,
        correct: correct.len(),
        miswired: count(Class::Miswired),
        miswired_cables: miswired_cables.len(),
        missing: count(Class::Missing),
        unexpected: count(Class::Unexpected),
        not_verified: not_verified.len(),
        neighbour_entries: observed.entries,
        unplanned_captures: observed.infos.iter().filter(|c| !c.planned).count(),
    }
}

fn cable_text(c: &CableRef) -> String {
    format!("{} `{}`", c.cable_id, c.label)
}

fn swap_finding(plan: &Plan, d1: &Deviation, d2: &Deviation) -> Finding {
    // d1 joins u1 (an end of cable i) with u2 (an end of cable j); d2 joins their planned peers
    // v1 and v2. Swapping the plugs in u2 and v1 (or in u1 and v2) restores both cables.
    let (Some((i, s)), Some((j, t))) = (d1.at[0], d1.at[1]) else {
        return single_finding(plan, d1);
    };
    let (li, lj) = (&plan.links[i], &plan.links[j]);
    let (u1, u2) = (li.end(s), lj.end(t));
    let (v1, v2) = (li.peer(s), lj.peer(t));
    let rail = plan
        .rail_mismatch(&d1.ends[0], &d1.ends[1])
        .or_else(|| plan.rail_mismatch(&d2.ends[0], &d2.ends[1]));
    let same_pair = li.devices() == lj.devices();
    let kind = if rail.is_some() {
        MiswireKind::WrongRail
    } else if same_pair {
        MiswireKind::SwappedPorts
    } else {
        MiswireKind::WrongDevice
    };
    // Prefer the fix whose two ports are on one device; then the upper-tier (b) ends.
    let options = [(u2, v1), (u1, v2)];
    let score = |(p, q): (&EndRef, &EndRef)| {
        (
            p.device != q.device,
            plan.at.get(p).is_none_or(|&(_, s)| s != Side::B),
        )
    };
    let [first, second] = if score(options[1]) < score(options[0]) {
        [options[1], options[0]]
    } else {
        options
    };
    let (ci, cj) = if i < j { (li, lj) } else { (lj, li) };
    let what = match (kind, rail) {
        (MiswireKind::WrongRail, Some((r1, r2))) => {
            format!(" (a rail-{r1} NIC is on a rail-{r2} leaf port)")
        }
        (MiswireKind::SwappedPorts, _) => {
            format!(" between {} and {}", ci.cable.a.device, ci.cable.b.device)
        }
        _ => String::new(),
    };
    Finding {
        class: Class::Miswired,
        kind: Some(kind),
        swapped: true,
        observed: vec![d1.observed(), d2.observed()],
        cables: vec![ci.cable.clone(), cj.cable.clone()],
        message: format!(
            "cables {} and {} are swapped{what}: LLDP sees {} — {} and {} — {}",
            ci.cable.cable_id, cj.cable.cable_id, d1.ends[0], d1.ends[1], d2.ends[0], d2.ends[1],
        ),
        fix: format!(
            "swap the plugs in {} and {} (or, equivalently, in {} and {}) so that {} and {} \
             match their labels",
            first.0,
            first.1,
            second.0,
            second.1,
            cable_text(&ci.cable),
            cable_text(&cj.cable),
        ),
    }
}

fn single_finding(plan: &Plan, d: &Deviation) -> Finding {
    let [x, y] = &d.ends;
    match d.at {
        [None, None] => Finding {
            class: Class::Unexpected,
            kind: None,
            swapped: false,
            observed: vec![d.observed()],
            cables: Vec::new(),
            message: format!("LLDP sees {x} — {y}, a link that is not in the cabling plan"),
            fix: format!(
                "remove the cable between {x} and {y}, or add the link to the spec if it is meant \
                 to be there"
            ),
        },
        [Some((i, s)), None] | [None, Some((i, s))] => {
            let (p, q) = if d.at[0].is_some() { (x, y) } else { (y, x) };
            let l = &plan.links[i];
            let want = l.peer(s);
            let rail = plan.rail_mismatch(p, q);
            let kind = if rail.is_some() {
                MiswireKind::WrongRail
            } else if q.device == want.device {
                MiswireKind::WrongPort
            } else {
                MiswireKind::WrongDevice
            };
            let rail_text = rail.map_or(String::new(), |(r1, r2)| {
                format!(" (a rail-{r1} NIC on a rail-{r2} leaf port)")
            });
            Finding {
                class: Class::Miswired,
                kind: Some(kind),
                swapped: false,
                observed: vec![d.observed()],
                cables: vec![l.cable.clone()],
                message: format!(
                    "{p} is connected to {q}{rail_text}; the plan has {p} — {want} (cable {})",
                    l.cable.cable_id
                ),
                fix: format!(
                    "move the plug of {} from {q} to {want}",
                    cable_text(&l.cable)
                ),
            }
        }
        [Some((i, s)), Some((j, t))] => {
            let (li, lj) = (&plan.links[i], &plan.links[j]);
            let (xw, yw) = (li.peer(s), lj.peer(t));
            let rail = plan.rail_mismatch(x, y);
            let kind = if rail.is_some() {
                MiswireKind::WrongRail
            } else if li.devices() == lj.devices() || y.device == xw.device {
                MiswireKind::WrongPort
            } else {
                MiswireKind::WrongDevice
            };
            let rail_text = rail.map_or(String::new(), |(r1, r2)| {
                format!(" (a rail-{r1} NIC on a rail-{r2} leaf port)")
            });
            let (ci, cj) = if i < j { (li, lj) } else { (lj, li) };
            Finding {
                class: Class::Miswired,
                kind: Some(kind),
                swapped: false,
                observed: vec![d.observed()],
                cables: vec![ci.cable.clone(), cj.cable.clone()],
                message: format!(
                    "{x} is connected to {y}{rail_text}; the plan has {x} — {xw} (cable {}) and \
                     {y} — {yw} (cable {})",
                    li.cable.cable_id, lj.cable.cable_id
                ),
                fix: format!(
                    "re-cable so that {x} — {xw} ({}) and {y} — {yw} ({})",
                    cable_text(&li.cable),
                    cable_text(&lj.cable)
                ),
            }
        }
    }
}

fn missing_finding(l: &Planned, observers: &BTreeSet<String>) -> Finding {
    let (a, b) = (&l.cable.a, &l.cable.b);
    let silent: Vec<String> = [a, b]
        .into_iter()
        .filter(|e| observers.contains(&e.device))
        .map(ToString::to_string)
        .collect();
    Finding {
        class: Class::Missing,
        kind: None,
        swapped: false,
        observed: Vec::new(),
        cables: vec![l.cable.clone()],
        message: format!(
            "no LLDP neighbour on {} (planned {a} — {b}, cable {})",
            silent.join(" or "),
            l.cable.cable_id
        ),
        fix: format!(
            "connect {} between {a} and {b} (or check that both ports are up)",
            cable_text(&l.cable)
        ),
    }
}
