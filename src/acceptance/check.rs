//! Results against the plan: which tests fell short, which cables they point at, and the next
//! test that would tell the two likeliest cables apart.
//!
//! A test crosses the links the plan names; a slow cable slows every test crossing it. Every
//! link of a failing test is a suspect, scored by how much of the failure it explains (the
//! failing tests crossing it over all failing tests) times how rarely it carries a good test
//! (its failing tests over all its tests): the link common to every failing test and to no
//! passing one scores 1. The next test crosses the first suspect and not the second, through
//! links that passed elsewhere, so its result alone tells the two apart.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::model::{Endpoint, LinkKind, LinkTest, Plan};
use super::parse;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    Short,
    Missing,
    Unreadable,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkOutcome {
    pub id: String,
    pub server: String,
    pub client: String,
    pub expected_gbps: f64,
    pub measured_gbps: Option<f64>,
    pub status: Status,
}

#[derive(Clone, Debug, Serialize)]
pub struct NcclOutcome {
    pub id: String,
    pub expected_busbw: f64,
    pub measured_busbw: Option<f64>,
    pub wrong: u64,
    pub status: Status,
}

/// An NVLink domain's IMEX status: the command's exit status and the trays its output does not
/// name.
#[derive(Clone, Debug, Serialize)]
pub struct ImexOutcome {
    pub domain: String,
    pub exit: Option<i32>,
    pub missing: Vec<String>,
    pub status: Status,
}

#[derive(Clone, Debug, Serialize)]
pub struct Suspect {
    pub link: String,
    pub label: String,
    pub racks: Vec<String>,
    pub failing: usize,
    pub passing: usize,
    pub confidence: f64,
    /// Crossed by every failing test.
    pub common: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct NextTest {
    pub server: Endpoint,
    pub client: Endpoint,
    pub links: Vec<String>,
    /// Crosses the first, not the second.
    pub separates: [String; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every test ran and reached its figure.
    Passed,
    /// Some test fell short.
    Short,
    /// No test fell short, but some did not run.
    Incomplete,
    /// A result could not be read.
    BadInput,
}

/// What a check covered: the plan's tests and cables, and the result files it read.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Checked {
    pub link_tests: usize,
    /// Cables the link tests cross.
    pub cables: usize,
    pub nccl_tests: usize,
    /// Result files read (present among those the plan names).
    pub results_read: usize,
    /// Link tests the runners refuse: an end whose RDMA device the node model does not name
    /// (RY0910); they stay missing until the model names it.
    pub without_device: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub cluster: String,
    pub verdict: Verdict,
    /// Where the plan came from and how it was verified (the command line's; empty otherwise).
    pub plan: String,
    pub checked: Checked,
    /// Files of the results directory the check did not read: not a result the plan names.
    pub ignored: Vec<String>,
    pub links: Vec<LinkOutcome>,
    pub nccl: Vec<NcclOutcome>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imex: Vec<ImexOutcome>,
    /// Result files that could not be read, and why.
    pub unreadable: Vec<(String, String)>,
    pub suspects: Vec<Suspect>,
    pub next_test: Option<NextTest>,
}

/// Where a test's result is, relative to the results directory.
pub fn link_result(id: &str) -> String {
    format!("links/{id}.txt")
}

pub fn nccl_result(id: &str) -> String {
    format!("nccl/{id}.txt")
}

pub fn imex_result(domain: &str) -> String {
    format!("imex/{domain}.txt")
}

/// Compare `results` (result path → text; absent: not run) with `plan`.
pub fn check(plan: &Plan, results: &BTreeMap<String, String>) -> Report {
    let mut unreadable = Vec::new();
    let tests: Vec<&LinkTest> = plan.rounds.iter().flat_map(|r| &r.tests).collect();
    let links = link_outcomes(&tests, results, &mut unreadable);
    let nccl = nccl_outcomes(plan, results, &mut unreadable);
    let imex = imex_outcomes(plan, results, &mut unreadable);
    let suspects = suspects(plan, &tests, &links);
    let next_test = match suspects.as_slice() {
        [a, b, ..] => next_test(plan, &suspects, &a.link, &b.link)
            .or_else(|| next_test(plan, &suspects, &b.link, &a.link)),
        _ => None,
    };
    if plan.schedule.tests != tests.len() {
        // A plan railyard wrote holds the tests its schedule counts; one that does not was edited.
        unreadable.push((
            "plan.json".into(),
            format!(
                "the schedule counts {} link tests but the rounds hold {}",
                plan.schedule.tests,
                tests.len()
            ),
        ));
    }
    let statuses: Vec<Status> = links
        .iter()
        .map(|l| l.status)
        .chain(nccl.iter().map(|n| n.status))
        .chain(imex.iter().map(|n| n.status))
        .collect();
    let verdict = if !unreadable.is_empty() {
        Verdict::BadInput
    } else if statuses.contains(&Status::Short) {
        Verdict::Short
    } else if statuses.is_empty() || statuses.contains(&Status::Missing) {
        // No test at all proves nothing: never PASSED.
        Verdict::Incomplete
    } else {
        Verdict::Passed
    };
    let cables: BTreeSet<&str> = tests
        .iter()
        .flat_map(|t| t.links.iter().map(String::as_str))
        .collect();
    Report {
        cluster: plan.cluster.clone(),
        verdict,
        plan: String::new(),
        checked: Checked {
            link_tests: tests.len(),
            cables: cables.len(),
            nccl_tests: nccl.len(),
            results_read: statuses.iter().filter(|s| **s != Status::Missing).count(),
            without_device: super::devices::tests_without_device(plan),
        },
        ignored: Vec::new(),
        links,
        nccl,
        imex,
        unreadable,
        suspects,
        next_test,
    }
}

/// Each NVLink domain's IMEX status: passed when `nvidia-imex-ctl -N -H` exited 0 and its output
/// names every tray of the domain (by the hostname `-H` prints); short otherwise.
fn imex_outcomes(
    plan: &Plan,
    results: &BTreeMap<String, String>,
    unreadable: &mut Vec<(String, String)>,
) -> Vec<ImexOutcome> {
    let mut out = Vec::new();
    for c in &plan.imex {
        let path = imex_result(&c.domain);
        let Some(text) = results.get(&path) else {
            out.push(ImexOutcome {
                domain: c.domain.clone(),
                exit: None,
                missing: Vec::new(),
                status: Status::Missing,
            });
            continue;
        };
        let exit = text
            .lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix("exit="))
            .and_then(|v| v.trim().parse::<i32>().ok());
        if exit.is_none() {
            unreadable.push((path, "no `exit=` line: not written by the runner".into()));
        }
        let named = |n: &str| {
            text.split(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.')))
                .any(|w| w == n)
        };
        let missing: Vec<String> = c.nodes.iter().filter(|n| !named(n)).cloned().collect();
        let status = match exit {
            None => Status::Unreadable,
            Some(0) if missing.is_empty() => Status::Passed,
            Some(_) => Status::Short,
        };
        out.push(ImexOutcome {
            domain: c.domain.clone(),
            exit,
            missing,
            status,
        });
    }
    out
}

/// Each link test's result against its figure; an unreadable one is added to `unreadable`.
fn link_outcomes(
    tests: &[&LinkTest],
    results: &BTreeMap<String, String>,
    unreadable: &mut Vec<(String, String)>,
) -> Vec<LinkOutcome> {
    let mut links = Vec::new();
    for t in tests {
        let path = link_result(&t.id);
        let (measured, status) = match results.get(&path).map(|s| parse::link_gbps(s)) {
            None => (None, Status::Missing),
            Some(Err(e)) => {
                unreadable.push((path, e));
                (None, Status::Unreadable)
            }
            Some(Ok(gbps)) if gbps + 1e-9 < t.expected_gbps => (Some(gbps), Status::Short),
            Some(Ok(gbps)) => (Some(gbps), Status::Passed),
        };
        links.push(LinkOutcome {
            id: t.id.clone(),
            server: t.server.node.clone(),
            client: t.client.node.clone(),
            expected_gbps: t.expected_gbps,
            measured_gbps: measured,
            status,
        });
    }
    links
}

/// Each NCCL test's result against its figure; an unreadable one is added to `unreadable`.
fn nccl_outcomes(
    plan: &Plan,
    results: &BTreeMap<String, String>,
    unreadable: &mut Vec<(String, String)>,
) -> Vec<NcclOutcome> {
    let mut nccl = Vec::new();
    for t in &plan.nccl.tests {
        let path = nccl_result(&t.id);
        let (measured, wrong, status) = match results.get(&path).map(|s| parse::nccl(s)) {
            None => (None, 0, Status::Missing),
            Some(Err(e)) => {
                unreadable.push((path, e));
                (None, 0, Status::Unreadable)
            }
            Some(Ok(r)) => {
                let short = r.busbw + 1e-9 < t.expected_busbw || r.wrong > 0;
                let s = if short { Status::Short } else { Status::Passed };
                (Some(r.busbw), r.wrong, s)
            }
        };
        nccl.push(NcclOutcome {
            id: t.id.clone(),
            expected_busbw: t.expected_busbw,
            measured_busbw: measured,
            wrong,
            status,
        });
    }
    nccl
}

impl Report {
    /// A plan without a single test: nothing was checked.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.nccl.is_empty() && self.imex.is_empty()
    }
}

/// The files of a results directory (`present`, relative paths) the check does not read: all
/// but the plan's copy, the result of each planned test and the server side's output of each
/// planned link test (`links/<id>.server.txt`, written by the runners, not read).
pub fn ignored(plan: &Plan, present: &[String]) -> Vec<String> {
    let mut read: BTreeSet<String> = BTreeSet::from(["plan.json".to_string()]);
    for t in plan.rounds.iter().flat_map(|r| &r.tests) {
        read.insert(link_result(&t.id));
        read.insert(format!("links/{}.server.txt", t.id));
    }
    read.extend(plan.nccl.tests.iter().map(|t| nccl_result(&t.id)));
    read.extend(plan.imex.iter().map(|c| imex_result(&c.domain)));
    present
        .iter()
        .filter(|p| !read.contains(p.as_str()))
        .cloned()
        .collect()
}

/// Every link of a failing test, ranked.
fn suspects(plan: &Plan, tests: &[&LinkTest], outcomes: &[LinkOutcome]) -> Vec<Suspect> {
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failing = 0;
    for (t, o) in tests.iter().zip(outcomes) {
        let fail = match o.status {
            Status::Short => true,
            Status::Passed => false,
            Status::Missing | Status::Unreadable => continue,
        };
        failing += usize::from(fail);
        let links: BTreeSet<&str> = t.links.iter().map(String::as_str).collect();
        for l in links {
            let e = tally.entry(l).or_default();
            if fail {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    let by_id: BTreeMap<&str, _> = plan.links.iter().map(|l| (l.id.as_str(), l)).collect();
    let mut v: Vec<Suspect> = tally
        .into_iter()
        .filter(|(_, (f, _))| *f > 0)
        .map(|(id, (f, p))| {
            let link = by_id.get(id);
            let racks: BTreeSet<String> = link
                .iter()
                .flat_map(|l| [l.a_rack.clone(), l.b_rack.clone()])
                .flatten()
                .collect();
            Suspect {
                link: id.to_string(),
                label: link.map_or_else(String::new, |l| l.label.clone()),
                racks: racks.into_iter().collect(),
                failing: f,
                passing: p,
                confidence: (f as f64 / failing as f64) * (f as f64 / (f + p) as f64),
                common: f == failing,
            }
        })
        .collect();
    v.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(b.failing.cmp(&a.failing))
            .then(a.passing.cmp(&b.passing))
            .then(crate::output::natural::cmp(&a.link, &b.link))
    });
    v
}

/// A test crossing `through` and not `not`, through the least suspect other links.
fn next_test(plan: &Plan, suspects: &[Suspect], through: &str, not: &str) -> Option<NextTest> {
    let suspicion: BTreeMap<&str, f64> = suspects
        .iter()
        .map(|s| (s.link.as_str(), s.confidence))
        .collect();
    let kind = plan.links.iter().find(|l| l.id == through)?.kind;
    let candidates = match kind {
        LinkKind::NodeLeaf => via_port(plan, through),
        LinkKind::LeafSpine => via_uplink(plan, through),
    };
    candidates
        .into_iter()
        .filter(|c| !c.links.iter().any(|l| l == not))
        .min_by(|a, b| {
            let cost = |c: &NextTest| {
                c.links
                    .iter()
                    .filter(|l| *l != through)
                    .map(|l| suspicion.get(l.as_str()).copied().unwrap_or(0.0))
                    .sum::<f64>()
            };
            cost(a).total_cmp(&cost(b))
        })
        .map(|mut c| {
            c.separates = [through.to_string(), not.to_string()];
            c
        })
}

/// Tests from the node port whose link is `link`: to the other ports of its leaf, and through
/// each uplink of its leaf to the first port of each other leaf under that spine.
fn via_port(plan: &Plan, link: &str) -> Vec<NextTest> {
    let Some((leaf, e)) = plan
        .leaves
        .iter()
        .find_map(|l| l.ports.iter().find(|p| p.link == link).map(|p| (l, p)))
    else {
        return Vec::new();
    };
    let mut out: Vec<NextTest> = leaf
        .ports
        .iter()
        .filter(|p| p.node != e.node)
        .map(|p| candidate(e, p, vec![e.link.clone(), p.link.clone()]))
        .collect();
    for u in &leaf.uplinks {
        out.extend(
            across(plan, &leaf.name, &u.spine)
                .into_iter()
                .map(|(u2, p)| {
                    candidate(
                        e,
                        p,
                        vec![e.link.clone(), u.link.clone(), u2, p.link.clone()],
                    )
                }),
        );
    }
    out
}

/// Tests through the uplink `link`: from each port of its leaf to the ports of the other leaves
/// under its spine.
fn via_uplink(plan: &Plan, link: &str) -> Vec<NextTest> {
    let Some((leaf, u)) = plan
        .leaves
        .iter()
        .find_map(|l| l.uplinks.iter().find(|u| u.link == link).map(|u| (l, u)))
    else {
        return Vec::new();
    };
    let far = across(plan, &leaf.name, &u.spine);
    leaf.ports
        .iter()
        .flat_map(|e| {
            far.iter().map(move |(u2, p)| {
                candidate(
                    e,
                    p,
                    vec![e.link.clone(), u.link.clone(), u2.clone(), p.link.clone()],
                )
            })
        })
        .collect()
}

/// (uplink, port) of every other leaf under `spine`, each uplink with each of its leaf's ports.
fn across<'a>(plan: &'a Plan, leaf: &str, spine: &str) -> Vec<(String, &'a Endpoint)> {
    plan.leaves
        .iter()
        .filter(|l| l.name != leaf)
        .flat_map(|l| {
            l.uplinks
                .iter()
                .filter(|u| u.spine == spine)
                .flat_map(move |u| l.ports.iter().map(move |p| (u.link.clone(), p)))
        })
        .collect()
}

fn candidate(server: &Endpoint, client: &Endpoint, links: Vec<String>) -> NextTest {
    NextTest {
        server: server.clone(),
        client: client.clone(),
        links,
        separates: [String::new(), String::new()],
    }
}
