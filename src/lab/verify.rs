//! `lab verify`: structured checks of a running lab against its plan.
//!
//! - `daemons`: every FRR daemon `up` started is still running.
//! - `bgp-sessions`: every planned session Established, with the planned peer (FRR's hostname
//!   capability names the device at the other end), and no session the plan does not have.
//! - `ecmp`: each leaf reaches every other leaf's loopback over as many next hops as it has
//!   uplinks in the lab (next hops sorted: FRR's order varies).
//! - `tenant-routes`: each tenant VRF holds the host prefixes of its own tenant behind other
//!   leaves, and none of another tenant's or of the default VRF.
//! - `rail-reachability`: ping between sampled nodes' NIC addresses on every rail.
//! - `access-reachability`: ping from each sampled node's storage (and in-band) port to the other
//!   nodes' ports on another leaf: across the pair's peer links or the spines.
//! - `tenant-isolation`: an all-pairs reachability matrix between tenants (and the nodes in no
//!   tenant): every intra-tenant pair reaches, no cross-tenant pair does.
//!
//! Gathering (vtysh, ping) is separate from judging (pure functions over the JSON FRR printed),
//! so the judging is unit-tested on recorded answers.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::report::{Cell, Check, Item, Matrix, Report, Status};
use super::state::{self, LabState, Phase};
use super::{LabError, Progress, cmd, frr, tenants};
use crate::labplan::{Host, LabPlan, NO_TENANT};

/// Pings in flight at once (each is a short-lived process waiting on the network).
const PING_PARALLEL: usize = 32;

/// Run every check on the lab in `state_dir`.
pub fn verify(state_dir: &Path, progress: Progress<'_>) -> Result<Report, LabError> {
    let t0 = Instant::now();
    let Some(st) = state::read(state_dir)? else {
        return Err(LabError::NoLab(state_dir.to_path_buf()));
    };
    if st.phase != Phase::Up {
        return Err(LabError::Incomplete(format!(
            "the lab in `{}` is still starting, or its `up` crashed: wait for `up` to finish, or run `railyard lab down` and `up` again",
            state_dir.display()
        )));
    }
    let plan = &st.plan;
    progress(&format!("verify: {} ({})", plan.lab, plan.size()));
    let mut checks = vec![daemons(&st, state_dir)];
    progress("verify: BGP sessions, ECMP and tenant routes (vtysh)");
    let gap = tenants::unsupported(&st.features).filter(|_| plan.has_vrfs());
    let (sessions, ecmp, routes) = control_plane(plan, state_dir, gap.as_deref());
    checks.push(sessions);
    checks.push(ecmp);
    checks.push(match routes {
        Some(c) => c,
        None => Check::skipped("tenant-routes", "the spec declares no tenants"),
    });
    progress("verify: rail reachability and tenant matrix (ping)");
    checks.push(rails(plan));
    checks.push(access(plan));
    checks.push(isolation(&st));
    let elapsed = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Report::new(
        plan.lab.clone(),
        checks,
        elapsed,
        plan.scale.lines(),
    ))
}

/// The control-plane checks, also what `up` waits for: sessions, ECMP, tenant routes (`None`
/// without tenant VRFs; skipped, with the reason, when `tenant_gap` says the kernel could not
/// build them).
pub fn control_plane(
    plan: &LabPlan,
    dir: &Path,
    tenant_gap: Option<&str>,
) -> (Check, Check, Option<Check>) {
    let neighbors: BTreeMap<String, Result<Value, String>> = plan
        .routers
        .iter()
        .filter(|r| r.daemons.iter().any(|d| d == "bgpd"))
        .map(|r| {
            let p = frr::Paths::new(dir, &r.name);
            let v =
                frr::query(&p.run, "show bgp vrf all neighbors json").map_err(|e| e.to_string());
            (r.name.clone(), v)
        })
        .collect();
    let leaves: BTreeSet<&str> = plan.ecmp.iter().map(|e| e.leaf.as_str()).collect();
    let routes: BTreeMap<String, Result<Value, String>> = leaves
        .iter()
        .map(|l| {
            let p = frr::Paths::new(dir, l);
            let v = frr::query(&p.run, "show ip route bgp json").map_err(|e| e.to_string());
            ((*l).to_string(), v)
        })
        .collect();
    let tenant = (!plan.tenant_routes.is_empty()).then(|| {
        if let Some(why) = tenant_gap {
            return Check::untested(
                "tenant-routes",
                format!("NOT TESTED: {why}; the tenant VRFs were not built"),
            );
        }
        let vrf_routes: BTreeMap<(String, String), Result<Value, String>> = plan
            .tenant_routes
            .iter()
            .map(|t| {
                let p = frr::Paths::new(dir, &t.leaf);
                let v = frr::query(&p.run, &format!("show ip route vrf {} json", t.vrf))
                    .map_err(|e| e.to_string());
                ((t.leaf.clone(), t.vrf.clone()), v)
            })
            .collect();
        check_tenant_routes(plan, &vrf_routes)
    });
    let notes: BTreeMap<(String, String), String> = neighbors
        .keys()
        .flat_map(|r| {
            frr::notifications(&frr::Paths::new(dir, r))
                .into_iter()
                .map(move |(n, t)| ((r.clone(), n), t))
        })
        .collect();
    (
        check_sessions(plan, &neighbors, &notes),
        check_ecmp(plan, &routes),
        tenant,
    )
}

/// Whether a pid is a live (not zombie) process whose command line names `needle` (so a pid
/// reused by another program does not count).
pub(crate) fn alive(pid: u32, needle: &str) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state letter follows the parenthesised command name.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, r)| r.trim().chars().next());
    if matches!(state, Some('Z' | 'X') | None) {
        return false;
    }
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).contains(needle))
        .unwrap_or(false)
}

fn daemons(st: &LabState, dir: &Path) -> Check {
    let mut items = Vec::new();
    let mut total = 0;
    let mut running = 0;
    for r in &st.plan.routers {
        let p = frr::Paths::new(dir, &r.name);
        let run = p.run.to_string_lossy().into_owned();
        let pids = st.pids.get(&r.name).cloned().unwrap_or_default();
        let mut dead = Vec::new();
        for d in &r.daemons {
            total += 1;
            match pids.iter().find(|(n, _)| n == d) {
                Some((_, pid)) if alive(*pid, &run) => running += 1,
                Some((_, pid)) => dead.push(format!("{d} (pid {pid}, log {run}/{d}.log)")),
                None => dead.push(format!("{d} (no pid recorded)")),
            }
        }
        items.push(if dead.is_empty() {
            Item::new(&r.name, Status::Pass, r.daemons.join(", "))
        } else {
            Item::new(
                &r.name,
                Status::Fail,
                format!("not running: {}", dead.join(", ")),
            )
        });
    }
    Check::from_items(
        "daemons",
        format!("{running} of {total} FRR daemons running"),
        items,
    )
}

/// What FRR says about one neighbour.
#[derive(Debug, Default)]
struct Observed {
    vrf: String,
    state: String,
    hostname: Option<String>,
    remote_as: Option<u64>,
    reason: Option<String>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// `show bgp vrf all neighbors json` → neighbour name → what FRR reports.
fn observed(v: &Value) -> BTreeMap<String, Observed> {
    let mut out = BTreeMap::new();
    let Some(vrfs) = v.as_object() else {
        return out;
    };
    for (vrf, body) in vrfs {
        let Some(peers) = body.as_object() else {
            continue;
        };
        for (name, n) in peers {
            if !n.is_object() || n.get("bgpState").is_none() {
                continue;
            }
            let reason = [
                "lastNotificationReason",
                "lastResetDueTo",
                "lastErrorCodeSubcode",
            ]
            .iter()
            .find_map(|k| text(n, k));
            out.insert(
                name.clone(),
                Observed {
                    vrf: vrf.clone(),
                    state: text(n, "bgpState").unwrap_or_default(),
                    hostname: text(n, "hostname"),
                    remote_as: n.get("remoteAs").and_then(Value::as_u64),
                    reason,
                },
            );
        }
    }
    out
}

/// Sessions against the plan; `notes` holds bgpd's last NOTIFICATION per (router, neighbour).
pub fn check_sessions(
    plan: &LabPlan,
    data: &BTreeMap<String, Result<Value, String>>,
    notes: &BTreeMap<(String, String), String>,
) -> Check {
    let mut items = Vec::new();
    let mut up = 0;
    let mut unplanned = 0;
    let mut dropped_up = 0;
    for (router, answer) in data {
        let v = match answer {
            Ok(v) => v,
            Err(e) => {
                items.push(Item::new(
                    router,
                    Status::Fail,
                    format!("no answer from bgpd: {e}"),
                ));
                continue;
            }
        };
        let seen = observed(v);
        let mut known = BTreeSet::new();
        for s in plan.sessions.iter().filter(|s| &s.router == router) {
            known.insert(s.neighbor.as_str());
            let subject = format!(
                "{} {} -> {}:{} (AS {} -> AS {})",
                s.router, s.interface, s.peer, s.peer_port, s.local_asn, s.remote_asn
            );
            let (status, detail) = match seen.get(&s.neighbor) {
                None => (Status::Fail, "not configured in bgpd".to_string()),
                Some(o) if o.state == "Established" => match &o.hostname {
                    Some(h) if h != &s.peer => (
                        Status::Fail,
                        format!(
                            "Established with `{h}`, but the cabling plan says `{}`",
                            s.peer
                        ),
                    ),
                    _ => {
                        up += 1;
                        (Status::Pass, "Established".to_string())
                    }
                },
                Some(o) => {
                    let mut d = o.state.clone();
                    if let Some(r) = &o.reason {
                        d.push_str(&format!(" (last reset: {r})"));
                    }
                    if let Some(n) = notes.get(&(s.router.clone(), s.neighbor.clone())) {
                        d.push_str(&format!("; bgpd log: NOTIFICATION {n}"));
                    }
                    (Status::Fail, d)
                }
            };
            items.push(Item::new(subject, status, detail));
        }
        for s in plan.dropped_sessions.iter().filter(|s| &s.router == router) {
            known.insert(s.neighbor.as_str());
            if seen
                .get(&s.neighbor)
                .is_some_and(|o| o.state == "Established")
            {
                dropped_up += 1;
                items.push(Item::new(
                    format!("{} {}", s.router, s.interface),
                    Status::Fail,
                    format!("Established, but its peer `{}` is not in the lab", s.peer),
                ));
            }
        }
        for (name, o) in &seen {
            if known.contains(name.as_str()) {
                continue;
            }
            unplanned += 1;
            items.push(Item::new(
                format!("{router} {name} (vrf {})", o.vrf),
                Status::Fail,
                format!(
                    "unplanned neighbour ({}, peer {} AS {})",
                    o.state,
                    o.hostname.as_deref().unwrap_or("?"),
                    o.remote_as.map_or("?".into(), |a| a.to_string())
                ),
            ));
        }
    }
    let dropped = plan.dropped_sessions.len();
    if dropped > 0 && dropped_up == 0 {
        items.push(Item::new(
            "scale-down",
            Status::Pass,
            format!("{dropped} configured sessions towards dropped devices are down, as expected"),
        ));
    }
    let mut summary = format!(
        "{up} of {} planned sessions Established, {unplanned} unplanned",
        plan.sessions.len()
    );
    if dropped > 0 {
        summary.push_str(&format!(
            " ({dropped} towards devices dropped by --scale-down, expected down)"
        ));
    }
    if plan.sessions.is_empty() && data.is_empty() {
        return Check::skipped("bgp-sessions", "no switch in the lab runs BGP");
    }
    Check::from_items("bgp-sessions", summary, items)
}

/// Active next hops of the selected route to `prefix`, sorted.
fn next_hops(routes: &Value, prefix: &str) -> Option<Vec<String>> {
    let entries = routes.get(prefix)?.as_array()?;
    let e = entries
        .iter()
        .find(|e| e.get("selected").and_then(Value::as_bool) == Some(true))?;
    let mut hops: Vec<String> = e
        .get("nexthops")?
        .as_array()?
        .iter()
        .filter(|n| n.get("active").and_then(Value::as_bool) == Some(true))
        .map(|n| {
            let ifname = text(n, "interfaceName").unwrap_or_default();
            match text(n, "ip") {
                Some(ip) if !ip.starts_with("fe80") => format!("{ifname} via {ip}"),
                _ => ifname,
            }
        })
        .collect();
    hops.sort();
    hops.dedup();
    Some(hops)
}

/// ECMP widths against each leaf's uplink count.
pub fn check_ecmp(plan: &LabPlan, data: &BTreeMap<String, Result<Value, String>>) -> Check {
    if plan.ecmp.is_empty() {
        return Check::skipped(
            "ecmp",
            "fewer than two BGP leaves with uplinks in the lab: no leaf-to-leaf path to measure",
        );
    }
    let mut items = Vec::new();
    let mut full = 0;
    for t in &plan.ecmp {
        let subject = format!("{} -> {} ({})", t.leaf, t.peer_leaf, t.prefix);
        let (status, detail) = match data.get(&t.leaf) {
            None => (Status::Fail, "not queried".to_string()),
            Some(Err(e)) => (Status::Fail, format!("no answer from zebra: {e}")),
            Some(Ok(v)) => match next_hops(v, &t.prefix) {
                None => (Status::Fail, "no BGP route".to_string()),
                Some(h) if h.len() == t.width => {
                    full += 1;
                    (Status::Pass, format!("{} paths: {}", h.len(), h.join(", ")))
                }
                Some(h) => (
                    Status::Fail,
                    format!(
                        "{} of {} uplinks in use: {}",
                        h.len(),
                        t.width,
                        if h.is_empty() {
                            "none".into()
                        } else {
                            h.join(", ")
                        }
                    ),
                ),
            },
        };
        items.push(Item::new(subject, status, detail));
    }
    Check::from_items(
        "ecmp",
        format!(
            "{full} of {} leaf-to-leaf loopback routes use every uplink",
            plan.ecmp.len()
        ),
        items,
    )
}

/// Tenant VRF routes: own tenant's remote prefixes present, everyone else's absent.
pub fn check_tenant_routes(
    plan: &LabPlan,
    data: &BTreeMap<(String, String), Result<Value, String>>,
) -> Check {
    let mut items = Vec::new();
    let mut good = 0;
    for t in &plan.tenant_routes {
        let subject = format!("{} vrf {}", t.leaf, t.vrf);
        let v = match data.get(&(t.leaf.clone(), t.vrf.clone())) {
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                items.push(Item::new(subject, Status::Fail, format!("no answer: {e}")));
                continue;
            }
            None => {
                items.push(Item::new(subject, Status::Fail, "not queried"));
                continue;
            }
        };
        let has = |p: &str| {
            v.get(p).and_then(Value::as_array).is_some_and(|a| {
                a.iter()
                    .any(|e| e.get("selected").and_then(Value::as_bool) == Some(true))
            })
        };
        let missing: Vec<&str> = t
            .expect
            .iter()
            .map(String::as_str)
            .filter(|p| !has(p))
            .collect();
        let leaked: Vec<&str> = t
            .forbid
            .iter()
            .map(String::as_str)
            .filter(|p| has(p))
            .collect();
        let (status, detail) = if missing.is_empty() && leaked.is_empty() {
            good += 1;
            (
                Status::Pass,
                format!(
                    "{} remote prefixes of its tenant, none of {} others",
                    t.expect.len(),
                    t.forbid.len()
                ),
            )
        } else {
            let mut d = Vec::new();
            if !missing.is_empty() {
                d.push(format!("missing own-tenant {}", missing.join(", ")));
            }
            if !leaked.is_empty() {
                d.push(format!("LEAKED from other tenants {}", leaked.join(", ")));
            }
            (Status::Fail, d.join("; "))
        };
        items.push(Item::new(subject, status, detail));
    }
    Check::from_items(
        "tenant-routes",
        format!(
            "{good} of {} tenant VRFs hold exactly their tenant's remote prefixes",
            plan.tenant_routes.len()
        ),
        items,
    )
}

/// One ping from a node's address to another address.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub ns: String,
    pub src: IpAddr,
    pub dst: IpAddr,
}

/// Run pings in parallel batches; `true` where a reply came back within the deadline.
fn ping_all(probes: &[Probe]) -> Result<Vec<bool>, String> {
    if !cmd::have("ping") {
        return Err("`ping` is not installed: apt-get install iputils-ping".into());
    }
    let mut results = vec![false; probes.len()];
    for (chunk_no, chunk) in probes.chunks(PING_PARALLEL).enumerate() {
        let mut children: Vec<(usize, Child)> = Vec::new();
        for (k, p) in chunk.iter().enumerate() {
            // One reply within 2 s, asking every 0.2 s: tolerates the first packets lost to
            // neighbour resolution, still quick for the pairs that must not reach.
            let child = Command::new("ip")
                .args([
                    "netns", "exec", &p.ns, "ping", "-n", "-q", "-c", "1", "-i", "0.2", "-w", "2",
                    "-I",
                ])
                .arg(p.src.to_string())
                .arg(p.dst.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("starting ping: {e}"))?;
            children.push((chunk_no * PING_PARALLEL + k, child));
        }
        for (i, mut c) in children {
            results[i] = c.wait().is_ok_and(|s| s.success());
        }
    }
    Ok(results)
}

/// Two nodes that must reach each other on one rail.
#[derive(Clone, Debug, PartialEq)]
pub struct RailPair {
    /// `rail 3` or `rail 3 plane 2`.
    pub rail: String,
    pub probe: Probe,
    /// `gpu001 -> gpu033`.
    pub who: String,
}

/// A node and one of its NIC addresses.
type Member<'a> = (&'a Host, IpAddr);

/// Node pairs per rail (and plane), within one tenant group.
pub fn rail_pairs(plan: &LabPlan) -> Vec<RailPair> {
    let mut by_rail: BTreeMap<(u32, Option<u32>), Vec<Member<'_>>> = BTreeMap::new();
    for h in &plan.hosts {
        for p in &h.ports {
            if let (Some(rail), Some(a)) = (p.rail, p.address) {
                by_rail
                    .entry((rail, p.plane))
                    .or_default()
                    .push((h, a.addr()));
            }
        }
    }
    let mut out = Vec::new();
    for ((rail, plane), members) in by_rail {
        let label = match plane {
            Some(pl) => format!("rail {rail} plane {pl}"),
            None => format!("rail {rail}"),
        };
        for (i, (a, aa)) in members.iter().enumerate() {
            for (b, ba) in members.iter().skip(i + 1) {
                if a.tenant != b.tenant {
                    continue;
                }
                out.push(RailPair {
                    rail: label.clone(),
                    probe: Probe {
                        ns: a.ns.clone(),
                        src: *aa,
                        dst: *ba,
                    },
                    who: format!("{} -> {}", a.name, b.name),
                });
            }
        }
    }
    out
}

pub(crate) fn rails(plan: &LabPlan) -> Check {
    let pairs = rail_pairs(plan);
    if pairs.is_empty() {
        return Check::skipped(
            "rail-reachability",
            "no rail has two sampled nodes (in the same tenant) to ping between",
        );
    }
    let probes: Vec<Probe> = pairs.iter().map(|p| p.probe.clone()).collect();
    let results = match ping_all(&probes) {
        Ok(r) => r,
        Err(e) => {
            return Check::from_items(
                "rail-reachability",
                e.clone(),
                vec![Item::new("ping", Status::Fail, e)],
            );
        }
    };
    let rails: BTreeSet<&str> = pairs.iter().map(|p| p.rail.as_str()).collect();
    let mut items = Vec::new();
    let mut ok = 0;
    for (
        RailPair {
            rail,
            probe: p,
            who,
        },
        reached,
    ) in pairs.iter().zip(&results)
    {
        if *reached {
            ok += 1;
        }
        items.push(Item::new(
            format!("{rail}: {who} ({} -> {})", p.src, p.dst),
            if *reached { Status::Pass } else { Status::Fail },
            if *reached { "reached" } else { "no reply" },
        ));
    }
    Check::from_items(
        "rail-reachability",
        format!(
            "{ok} of {} node pairs reach each other on {} rails",
            pairs.len(),
            rails.len()
        ),
        items,
    )
}

/// Node pairs on a storage or in-band network whose ports sit on different leaves: per network,
/// from each node's first port to every other node's port on another leaf (same tenant only).
pub fn access_pairs(plan: &LabPlan) -> Vec<RailPair> {
    let mut by_net: BTreeMap<&str, Vec<(&Host, IpAddr, &str)>> = BTreeMap::new();
    for h in &plan.hosts {
        for p in h.ports.iter().filter(|p| p.rail.is_none()) {
            if let Some(a) = p.address {
                by_net
                    .entry(p.network.as_str())
                    .or_default()
                    .push((h, a.addr(), p.leaf.as_str()));
            }
        }
    }
    let mut out = Vec::new();
    for (net, members) in by_net {
        let mut firsts: BTreeSet<&str> = BTreeSet::new();
        for (a, aa, al) in &members {
            // One source port per node: its first on this network.
            if !firsts.insert(a.name.as_str()) {
                continue;
            }
            for (b, ba, bl) in &members {
                if b.name == a.name || bl == al || a.tenant != b.tenant {
                    continue;
                }
                out.push(RailPair {
                    rail: net.to_string(),
                    probe: Probe {
                        ns: a.ns.clone(),
                        src: *aa,
                        dst: *ba,
                    },
                    who: format!("{} ({al}) -> {} ({bl})", a.name, b.name),
                });
            }
        }
    }
    out
}

pub(crate) fn access(plan: &LabPlan) -> Check {
    let pairs = access_pairs(plan);
    if pairs.is_empty() {
        return Check::skipped(
            "access-reachability",
            "no storage or in-band network with ports of two nodes on different leaves",
        );
    }
    let probes: Vec<Probe> = pairs.iter().map(|p| p.probe.clone()).collect();
    let results = match ping_all(&probes) {
        Ok(r) => r,
        Err(e) => {
            return Check::from_items(
                "access-reachability",
                e.clone(),
                vec![Item::new("ping", Status::Fail, e)],
            );
        }
    };
    let nets: BTreeSet<&str> = pairs.iter().map(|p| p.rail.as_str()).collect();
    let mut ok = 0;
    let mut items = Vec::new();
    for (p, reached) in pairs.iter().zip(&results) {
        ok += usize::from(*reached);
        items.push(Item::new(
            format!("{}: {} ({} -> {})", p.rail, p.who, p.probe.src, p.probe.dst),
            if *reached { Status::Pass } else { Status::Fail },
            if *reached { "reached" } else { "no reply" },
        ));
    }
    Check::from_items(
        "access-reachability",
        format!(
            "{ok} of {} node pairs reach each other across leaves on {}",
            pairs.len(),
            nets.into_iter().collect::<Vec<_>>().join(", ")
        ),
        items,
    )
}

/// Two nodes of the tenant matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixPair {
    pub from_group: String,
    pub to_group: String,
    pub probe: Probe,
    pub who: String,
    /// Same group: the design says they reach each other.
    pub expected: bool,
}

/// The matrix probes: every unordered pair of grouped nodes, from the first compute address of
/// one to that of the other, with the groups and whether they should reach.
pub fn matrix_pairs(plan: &LabPlan) -> Vec<MatrixPair> {
    let first: BTreeMap<&str, Member<'_>> = plan
        .hosts
        .iter()
        .filter_map(|h| {
            let a = h
                .ports
                .iter()
                .filter(|p| p.rail.is_some())
                .find_map(|p| p.address)?;
            Some((h.name.as_str(), (h, a.addr())))
        })
        .collect();
    let member: Vec<(&str, &str)> = plan
        .groups
        .iter()
        .flat_map(|g| g.nodes.iter().map(move |n| (g.name.as_str(), n.as_str())))
        .filter(|(_, n)| first.contains_key(n))
        .collect();
    let mut out = Vec::new();
    for (i, (ga, a)) in member.iter().enumerate() {
        for (gb, b) in member.iter().skip(i + 1) {
            let (Some((ha, aa)), Some((_, ba))) = (first.get(a), first.get(b)) else {
                continue;
            };
            out.push(MatrixPair {
                from_group: (*ga).to_string(),
                to_group: (*gb).to_string(),
                probe: Probe {
                    ns: ha.ns.clone(),
                    src: *aa,
                    dst: *ba,
                },
                who: format!("{a} ({ga}) -> {b} ({gb})"),
                expected: ga == gb,
            });
        }
    }
    out
}

fn isolation(st: &LabState) -> Check {
    let plan = &st.plan;
    if plan.groups.is_empty() {
        return Check::skipped("tenant-isolation", "the spec declares no tenants");
    }
    if plan.has_vrfs()
        && let Some(why) = tenants::unsupported(&st.features)
    {
        return Check::untested(
            "tenant-isolation",
            format!("NOT TESTED: {why}; the tenant VRFs were not built"),
        );
    }
    let pairs = matrix_pairs(plan);
    let probes: Vec<Probe> = pairs.iter().map(|p| p.probe.clone()).collect();
    let results = match ping_all(&probes) {
        Ok(r) => r,
        Err(e) => {
            return Check::from_items(
                "tenant-isolation",
                e.clone(),
                vec![Item::new("ping", Status::Fail, e)],
            );
        }
    };
    judge_matrix(plan, &pairs, &results)
}

/// The matrix and its items from the ping results.
pub fn judge_matrix(plan: &LabPlan, pairs: &[MatrixPair], results: &[bool]) -> Check {
    let groups: Vec<String> = plan.groups.iter().map(|g| g.name.clone()).collect();
    let mut cells: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut items = Vec::new();
    let (mut intra, mut intra_ok, mut cross, mut cross_leak) = (0, 0, 0, 0);
    for (pair, reached) in pairs.iter().zip(results) {
        let (ga, gb, p, who, expected) = (
            &pair.from_group,
            &pair.to_group,
            &pair.probe,
            &pair.who,
            &pair.expected,
        );
        for key in [(ga.clone(), gb.clone()), (gb.clone(), ga.clone())] {
            let e = cells.entry(key).or_default();
            e.0 += 1;
            e.1 += usize::from(*reached);
            if ga == gb {
                break;
            }
        }
        if *expected {
            intra += 1;
            intra_ok += usize::from(*reached);
        } else {
            cross += 1;
            cross_leak += usize::from(*reached);
        }
        let (status, detail) = match (expected, reached) {
            (true, true) => (Status::Pass, "reached (same tenant)"),
            (false, false) => (Status::Pass, "unreachable (different tenants), as designed"),
            (true, false) => (Status::Fail, "NO REPLY within the tenant"),
            (false, true) => (Status::Fail, "REACHED across tenants: isolation broken"),
        };
        items.push(Item::new(
            format!("{who} ({} -> {})", p.src, p.dst),
            status,
            detail,
        ));
    }
    for g in &plan.groups {
        if g.nodes.len() < 2 {
            items.push(Item::new(
                format!("group {}", g.name),
                Status::Skip,
                format!(
                    "{} sampled node(s): no intra-group pair to test",
                    g.nodes.len()
                ),
            ));
        }
    }
    for s in &plan.shared_services {
        let why = if s.instantiated {
            "the lab hosts no service endpoint".to_string()
        } else {
            format!(
                "no rendered VRF exports its RT {}, so nothing in the lab hosts it",
                s.route_target
            )
        };
        items.push(Item::new(
            format!("shared service {}", s.name),
            Status::Skip,
            format!(
                "reach from {} to the service NOT TESTED: {why}",
                if s.consumers.is_empty() {
                    "its consumers".to_string()
                } else {
                    s.consumers.join(", ")
                }
            ),
        ));
    }
    let matrix = Matrix {
        cells: groups
            .iter()
            .flat_map(|a| groups.iter().map(move |b| (a.clone(), b.clone())))
            .map(|(a, b)| {
                let (pairs, reached) = cells
                    .get(&(a.clone(), b.clone()))
                    .copied()
                    .unwrap_or((0, 0));
                Cell {
                    expected: a == b,
                    from: a,
                    to: b,
                    pairs,
                    reached,
                }
            })
            .collect(),
        groups,
    };
    let mut c = Check::from_items(
        "tenant-isolation",
        format!(
            "intra-tenant {intra_ok}/{intra} pairs reach; cross-tenant {cross_leak}/{cross} pairs reach (must be 0){}",
            if plan.groups.iter().any(|g| g.name == NO_TENANT) {
                "; nodes in no tenant form their own group"
            } else {
                ""
            }
        ),
        items,
    );
    c.matrix = Some(matrix);
    c
}

/// Poll `f` until it says done or `limit` passes; what `up` uses to wait for convergence.
pub fn poll<T>(limit: Duration, every: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let t0 = Instant::now();
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if t0.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(every);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labplan::{EcmpTarget, ScaleReport, Session};

    fn plan() -> LabPlan {
        LabPlan {
            lab: "t".into(),
            routers: vec![],
            hosts: vec![],
            cables: vec![],
            sessions: vec![Session {
                router: "leaf1".into(),
                neighbor: "swp5".into(),
                interface: "swp5".into(),
                local_asn: 65001,
                remote_asn: 65100,
                peer: "spine01".into(),
                peer_port: "swp1".into(),
            }],
            dropped_sessions: vec![],
            ecmp: vec![EcmpTarget {
                leaf: "leaf1".into(),
                peer_leaf: "leaf2".into(),
                prefix: "10.0.0.2/32".into(),
                width: 2,
            }],
            tenant_routes: vec![],
            groups: vec![],
            shared_services: vec![],
            renamed: vec![],
            scale: ScaleReport::default(),
        }
    }

    #[test]
    fn a_session_down_is_named_with_frrs_reason() {
        let v: Value = serde_json::from_str(
            r#"{"default":{"vrfId":0,"vrfName":"default",
                "swp5":{"bgpState":"Active","remoteAs":65100,"lastResetDueTo":"Bad Peer AS"},
                "swp9":{"bgpState":"Established","remoteAs":65200,"hostname":"rogue"}}}"#,
        )
        .unwrap_or_default();
        let data = BTreeMap::from([("leaf1".to_string(), Ok(v))]);
        let notes = BTreeMap::from([(
            ("leaf1".to_string(), "swp5".to_string()),
            "received from neighbor swp5 2/2 (OPEN Message Error/Bad Peer AS)".to_string(),
        )]);
        let c = check_sessions(&plan(), &data, &notes);
        assert_eq!(c.status, Status::Fail);
        let down = &c.items[0];
        assert!(
            down.subject.starts_with("leaf1 swp5 -> spine01:swp1"),
            "{}",
            down.subject
        );
        assert_eq!(
            down.detail,
            "Active (last reset: Bad Peer AS); bgpd log: NOTIFICATION received from neighbor swp5 2/2 (OPEN Message Error/Bad Peer AS)"
        );
        assert!(
            c.items[1]
                .detail
                .starts_with("unplanned neighbour (Established, peer rogue")
        );
        assert!(
            c.summary
                .starts_with("0 of 1 planned sessions Established, 1 unplanned")
        );
    }

    #[test]
    fn a_session_to_the_wrong_device_fails() {
        let v: Value = serde_json::from_str(
            r#"{"default":{"swp5":{"bgpState":"Established","hostname":"spine02"}}}"#,
        )
        .unwrap_or_default();
        let data = BTreeMap::from([("leaf1".to_string(), Ok(v))]);
        let c = check_sessions(&plan(), &data, &BTreeMap::new());
        assert!(c.items[0].detail.contains("cabling plan says `spine01`"));
    }

    #[test]
    fn ecmp_counts_active_next_hops_in_any_order() {
        let v: Value = serde_json::from_str(
            r#"{"10.0.0.2/32":[{"selected":true,"nexthops":[
                {"interfaceName":"swp7","ip":"fe80::2","active":true},
                {"interfaceName":"swp5","ip":"fe80::1","active":true},
                {"interfaceName":"swp6","ip":"fe80::3"}]}]}"#,
        )
        .unwrap_or_default();
        assert_eq!(
            next_hops(&v, "10.0.0.2/32"),
            Some(vec!["swp5".into(), "swp7".into()])
        );
        let data = BTreeMap::from([("leaf1".to_string(), Ok(v))]);
        let c = check_ecmp(&plan(), &data);
        assert_eq!(c.status, Status::Pass, "{:?}", c.items);
        let mut p = plan();
        p.ecmp[0].width = 3;
        let c = check_ecmp(&p, &data);
        assert_eq!(c.items[0].detail, "2 of 3 uplinks in use: swp5, swp7");
    }
}
