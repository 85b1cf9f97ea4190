//! `lab accept`: the acceptance plan's link rounds run in the lab, iperf3 standing in for
//! perftest (no RDMA device in a network namespace), so `railyard acceptance check` is proven on
//! real traffic over the lab's cables.
//!
//! The plan is the one `railyard acceptance plan` writes for the spec the lab runs, restricted to
//! the nodes and cables the lab kept ([`lab_plan`]); it is copied into the results directory with
//! the lab's expectation in place of the line-rate figure: a veth pair carries what the CPU can
//! copy, not 400 Gb/s, so a test passes at `expect_gbps` (a floor well under what an idle veth
//! path carries and well over a degraded cable's rate; `check` itself is unchanged).
//!
//! Each round runs all its tests at once: `iperf3 -s -1` bound to the server NIC's address in
//! the server node's namespace, `iperf3 -c … -B <client NIC address> --json` in the client's. A
//! node's rail routing selects the table by source address (the host plan), so the traffic
//! leaves by the NIC under test and reaches the server through its leaf. The crossing is
//! proven, not assumed: a round uses each cable at most once (the plan's edge colouring), so the
//! byte counters of each planned cable must grow by at least the bytes iperf3 received; a test
//! whose traffic took another path (the fabric's ECMP hash picks the spine and the uplink) is
//! listed. The proof is exact for node–leaf cables (only the one test of that NIC port crosses
//! it in a round); on an uplink, another test's off-plan traffic could make up the bytes.
//!
//! `degrade`: one cable slowed with a token bucket on both veth ends (`tc qdisc … tbf`,
//! tc-tbf(8)), removed again when the rounds are done, whatever happened.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::state::{self, Phase};
use super::{LabError, Progress, cmd};
use crate::acceptance::check::link_result;
use crate::acceptance::model::{LinkTest, Plan, Round};
use crate::acceptance::parse;
use crate::labplan::LabPlan;

/// iperf3's default server port (iperf3(1): `-p, --port n … default 5201`); NIC port *k* of a
/// node serves on `5201 + k`, as the plan gives perftest `base_port + k`.
pub const IPERF_BASE_PORT: u16 = 5201;

/// The lab's pass mark, Gb/s: see the module comment. Measured here (lab-small, 2 cores shared
/// with other builds, 4 tests at once, 2 runs): healthy tests carried 0.63–2.4 Gb/s; the mark
/// leaves room for a busier machine and stays 10× above a degraded cable.
pub const DEFAULT_EXPECT_GBPS: f64 = 0.25;

/// A degraded cable's rate, Mbit/s: a tenth of the pass mark.
pub const DEFAULT_DEGRADE_MBIT: u32 = 25;

/// Marks a results directory `lab accept` wrote, so a second run may replace it.
const MARKER: &str = ".railyard-lab-accept";

/// How long a round may take beyond its test time (process start, connection, teardown).
const ROUND_SLACK: Duration = Duration::from_secs(15);

#[derive(Clone, Debug)]
pub struct AcceptOptions {
    pub results: PathBuf,
    /// iperf3 `-t`.
    pub seconds: u32,
    pub expect_gbps: f64,
    /// A cable id or label of the plan, slowed to `degrade_mbit` for the run.
    pub degrade: Option<String>,
    pub degrade_mbit: u32,
}

/// A planned cable a test's traffic did not show on.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Unproven {
    pub test: String,
    pub link: String,
    /// Bytes iperf3 received, and the bytes the cable's counters grew by in the round.
    pub received: u64,
    pub counted: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct AcceptSummary {
    pub rounds: usize,
    pub tests: usize,
    /// Tests of the spec's plan outside the lab (a node or cable it did not keep).
    pub left_out: usize,
    /// The degraded cable's id.
    pub degraded: Option<String>,
    /// Tests whose iperf3 run failed (their output is in the results all the same).
    pub failed: Vec<String>,
    /// Planned crossings the counters proved, and those they did not.
    pub proven: usize,
    pub unproven: Vec<Unproven>,
    pub elapsed_ms: u64,
}

/// `plan` restricted to the nodes and cables of `lab`, its link tests judged at `expect_gbps`,
/// its NCCL tests dropped (no GPUs in the lab): the plan `check` reads the lab's results with.
pub fn lab_plan(plan: &Plan, lab: &LabPlan, expect_gbps: f64, seconds: u32) -> Plan {
    let cables: BTreeSet<&str> = lab.cables.iter().map(|c| c.id.as_str()).collect();
    let hosts: BTreeSet<&str> = lab.hosts.iter().map(|h| h.name.as_str()).collect();
    let kept = |t: &LinkTest| {
        hosts.contains(t.server.node.as_str())
            && hosts.contains(t.client.node.as_str())
            && t.links.iter().all(|l| cables.contains(l.as_str()))
    };
    let mut p = plan.clone();
    p.rounds = plan
        .rounds
        .iter()
        .map(|r| {
            r.tests
                .iter()
                .filter(|t| kept(t))
                .cloned()
                .collect::<Vec<_>>()
        })
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, tests)| Round {
            index: i + 1,
            tests: tests
                .into_iter()
                .map(|mut t| {
                    t.expected_gbps = expect_gbps;
                    t
                })
                .collect(),
        })
        .collect();
    p.links.retain(|l| cables.contains(l.id.as_str()));
    for leaf in &mut p.leaves {
        leaf.ports
            .retain(|e| hosts.contains(e.node.as_str()) && cables.contains(e.link.as_str()));
        leaf.uplinks.retain(|u| cables.contains(u.link.as_str()));
    }
    p.leaves
        .retain(|l| !l.ports.is_empty() || !l.uplinks.is_empty());
    let tests: Vec<&LinkTest> = p.rounds.iter().flat_map(|r| &r.tests).collect();
    p.schedule.rounds = p.rounds.len();
    p.schedule.tests = tests.len();
    p.schedule.max_degree = max_degree(&tests);
    p.perftest.tool = "iperf3".into();
    p.perftest.base_port = IPERF_BASE_PORT;
    p.perftest.duration_s = seconds;
    p.perftest.efficiency = 1.0;
    p.nccl.tests.clear();
    p.notes.push(format!(
        "lab run (`railyard lab accept`): iperf3 in place of ib_write_bw, {} of the plan's {} \
         link tests (the nodes and cables the lab kept), each judged at {expect_gbps} Gb/s, what \
         the lab's veth cables carry, not the line rate; no NCCL tests",
        tests.len(),
        plan.schedule.tests
    ));
    p
}

/// The most tests one cable or one NIC port takes part in: the fewest rounds possible.
fn max_degree(tests: &[&LinkTest]) -> usize {
    let mut n: BTreeMap<String, usize> = BTreeMap::new();
    for t in tests {
        let ends = [&t.server, &t.client].map(|e| format!("{}#{}", e.node, e.port_index));
        let links: BTreeSet<&String> = t.links.iter().collect();
        for k in links.into_iter().cloned().chain(ends) {
            *n.entry(k).or_default() += 1;
        }
    }
    n.into_values().max().unwrap_or(0)
}

/// Where a test end lives in the lab: its namespace, interface and address.
#[derive(Clone, Debug, PartialEq)]
struct Nic {
    ns: String,
    ifname: String,
    addr: IpAddr,
}

fn nic(lab: &LabPlan, node: &str, cable: &str) -> Result<Nic, LabError> {
    let end = lab
        .cables
        .iter()
        .filter(|c| c.id == cable)
        .flat_map(|c| [&c.a, &c.b])
        .find(|e| e.device == node);
    let port = end.and_then(|e| {
        let h = lab.hosts.iter().find(|h| h.name == node)?;
        h.ports.iter().find(|p| p.ifname == e.ifname)
    });
    match (end, port.and_then(|p| p.address)) {
        (Some(e), Some(a)) => Ok(Nic {
            ns: e.ns.clone(),
            ifname: e.ifname.clone(),
            addr: a.addr(),
        }),
        _ => Err(LabError::Plan(format!(
            "node `{node}` has no addressed NIC on cable `{cable}` in the lab"
        ))),
    }
}

/// The cable `name` (an id or a label of the plan) as a lab cable id.
fn cable_named(plan: &Plan, lab: &LabPlan, name: &str) -> Result<String, LabError> {
    let id = plan
        .links
        .iter()
        .find(|l| l.id == name || l.label == name)
        .map_or(name, |l| l.id.as_str());
    if lab.cables.iter().any(|c| c.id == id) {
        return Ok(id.to_string());
    }
    Err(LabError::Plan(format!(
        "no cable `{}` in the lab (give a cable id or label of the acceptance plan)",
        name.escape_default()
    )))
}

/// A cable slowed with `tc`; restored when dropped.
struct Degraded<'a> {
    ends: Vec<(&'a str, &'a str)>,
}

impl<'a> Degraded<'a> {
    fn new(lab: &'a LabPlan, id: &str, mbit: u32) -> Result<Self, LabError> {
        let mut d = Degraded { ends: Vec::new() };
        for c in lab.cables.iter().filter(|c| c.id == id) {
            for e in [&c.a, &c.b] {
                // burst: tbf needs at least rate/HZ bytes and a whole 64 KiB GSO packet.
                cmd::run(Command::new("tc").args([
                    "-n",
                    &e.ns,
                    "qdisc",
                    "replace",
                    "dev",
                    &e.ifname,
                    "root",
                    "tbf",
                    "rate",
                    &format!("{mbit}mbit"),
                    "burst",
                    "256kb",
                    "latency",
                    "50ms",
                ]))?;
                d.ends.push((&e.ns, &e.ifname));
            }
        }
        Ok(d)
    }
}

impl Drop for Degraded<'_> {
    fn drop(&mut self) {
        for (ns, ifname) in &self.ends {
            let _ = cmd::output(
                Command::new("tc").args(["-n", ns, "qdisc", "del", "dev", ifname, "root"]),
            );
        }
    }
}

/// Run the link rounds of `plan` (already [`lab_plan`]) in the lab of `state_dir`; write each
/// client's JSON to `RESULTS/links/<id>.txt` and the plan to `RESULTS/plan.json`.
pub fn accept(
    state_dir: &Path,
    plan: &Plan,
    left_out: usize,
    opts: &AcceptOptions,
    progress: Progress<'_>,
) -> Result<AcceptSummary, LabError> {
    let t0 = Instant::now();
    let Some(st) = state::read(state_dir)? else {
        return Err(LabError::NoLab(state_dir.to_path_buf()));
    };
    if st.phase != Phase::Up {
        return Err(LabError::Incomplete(
            "the lab is still starting, or its `up` crashed".into(),
        ));
    }
    for (tool, package) in [("iperf3", "iperf3"), ("tc", "iproute2")] {
        if !cmd::have(tool) {
            return Err(LabError::MissingTool {
                tool: tool.into(),
                package: package.into(),
            });
        }
    }
    let lab = &st.plan;
    prepare_results(&opts.results, plan)?;
    let degraded = match &opts.degrade {
        Some(name) => Some(cable_named(plan, lab, name)?),
        None => None,
    };
    let _slow = match &degraded {
        Some(id) => {
            progress(&format!(
                "accept: cable {id} slowed to {} Mbit/s (tc tbf)",
                opts.degrade_mbit
            ));
            Some(Degraded::new(lab, id, opts.degrade_mbit)?)
        }
        None => None,
    };
    let mut summary = AcceptSummary {
        rounds: plan.rounds.len(),
        tests: 0,
        left_out,
        degraded: degraded.clone(),
        failed: Vec::new(),
        proven: 0,
        unproven: Vec::new(),
        elapsed_ms: 0,
    };
    for r in &plan.rounds {
        progress(&format!(
            "accept: round {}/{}: {} test(s) at once",
            r.index,
            plan.rounds.len(),
            r.tests.len()
        ));
        run_round(lab, r, opts, &mut summary)?;
    }
    summary.elapsed_ms = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(summary)
}

/// An empty results directory (or one an earlier `lab accept` wrote), with the plan in it.
fn prepare_results(dir: &Path, plan: &Plan) -> Result<(), LabError> {
    let links = dir.join("links");
    if dir.exists() && !dir.join(MARKER).exists() {
        let mut entries = std::fs::read_dir(dir).map_err(|e| LabError::io(dir, e))?;
        if entries.next().is_some() {
            return Err(LabError::Plan(format!(
                "`{}` is not empty and not an earlier `lab accept`'s results: give a new directory",
                dir.display()
            )));
        }
    }
    std::fs::create_dir_all(&links).map_err(|e| LabError::io(&links, e))?;
    // An earlier run's result of a test this run may not reach would be read as this run's: only
    // those files go, by the names `lab accept` gives them, never anything else in the directory.
    for t in plan.rounds.iter().flat_map(|r| &r.tests) {
        let p = dir.join(link_result(&t.id));
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(LabError::io(&p, e)),
            _ => {}
        }
    }
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).map_err(|e| LabError::io(&p, e))
    };
    write(MARKER, b"")?;
    let mut json = serde_json::to_vec_pretty(plan).map_err(|e| LabError::State {
        path: dir.join("plan.json"),
        error: e.to_string(),
    })?;
    json.push(b'\n');
    write("plan.json", &json)
}

/// A test's two ends in the lab and its iperf3 port.
struct Placed<'a> {
    test: &'a LinkTest,
    server: Nic,
    client: Nic,
    port: u16,
}

fn run_round(
    lab: &LabPlan,
    round: &Round,
    opts: &AcceptOptions,
    summary: &mut AcceptSummary,
) -> Result<(), LabError> {
    let placed = round
        .tests
        .iter()
        .map(|t| {
            Ok(Placed {
                test: t,
                server: nic(lab, &t.server.node, &t.server.link)?,
                client: nic(lab, &t.client.node, &t.client.link)?,
                port: IPERF_BASE_PORT.saturating_add(
                    u16::try_from(t.server.port_index).unwrap_or(u16::MAX - IPERF_BASE_PORT),
                ),
            })
        })
        .collect::<Result<Vec<_>, LabError>>()?;
    let mut servers = Vec::new();
    for p in &placed {
        servers.push(start_server(p)?);
    }
    let before = counters(lab, round)?;
    let clients = placed
        .iter()
        .map(|p| start_client(p, opts.seconds))
        .collect::<Result<Vec<_>, LabError>>()?;
    let deadline = Instant::now() + Duration::from_secs(u64::from(opts.seconds)) + ROUND_SLACK;
    let mut outputs = Vec::new();
    for c in clients {
        outputs.push(finish(c, deadline));
    }
    let after = counters(lab, round)?;
    for s in servers {
        finish(s, deadline);
    }
    for (p, out) in placed.iter().zip(outputs) {
        let path = opts.results.join(link_result(&p.test.id));
        std::fs::write(&path, &out).map_err(|e| LabError::io(&path, e))?;
        summary.tests += 1;
        let Ok(r) = parse::iperf3(&out) else {
            summary.failed.push(p.test.id.clone());
            continue;
        };
        for link in &p.test.links {
            let grew = after
                .get(link)
                .zip(before.get(link))
                .map_or(0, |(a, b)| a.saturating_sub(*b));
            // Headers and ACKs come on top of the payload: a crossing grows the counter by more.
            if grew >= r.bytes {
                summary.proven += 1;
            } else {
                summary.unproven.push(Unproven {
                    test: p.test.id.clone(),
                    link: link.clone(),
                    received: r.bytes,
                    counted: grew,
                });
            }
        }
    }
    Ok(())
}

/// `ip netns exec NS iperf3 …`, stdout piped.
fn iperf3(ns: &str, args: &[String]) -> Result<Child, LabError> {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns, "iperf3"]).args(args);
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| LabError::Command {
            what: cmd::describe(&c),
            detail: e.to_string(),
        })
}

/// A one-off server bound to the server NIC's address, started when it says it listens.
fn start_server(p: &Placed<'_>) -> Result<Child, LabError> {
    let args = [
        "-s".to_string(),
        "-1".into(),
        "--forceflush".into(),
        "-B".into(),
        p.server.addr.to_string(),
        "-p".into(),
        p.port.to_string(),
    ];
    let mut child = iperf3(&p.server.ns, &args)?;
    let mut line = String::new();
    if let Some(out) = child.stdout.as_mut() {
        let mut r = BufReader::new(out);
        while r.read_line(&mut line).is_ok_and(|n| n > 0) && !line.contains("listening") {
            line.clear();
        }
    }
    if !line.contains("listening") {
        let _ = child.kill();
        let out = child.wait_with_output().map_err(|e| LabError::Command {
            what: "iperf3 -s".into(),
            detail: e.to_string(),
        })?;
        return Err(LabError::Command {
            what: format!("iperf3 -s -B {} in {}", p.server.addr, p.server.ns),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(child)
}

fn start_client(p: &Placed<'_>, seconds: u32) -> Result<Child, LabError> {
    let args = [
        "-c".to_string(),
        p.server.addr.to_string(),
        "-B".into(),
        p.client.addr.to_string(),
        "-p".into(),
        p.port.to_string(),
        "-t".into(),
        seconds.to_string(),
        "--connect-timeout".into(),
        "3000".into(),
        "--json".into(),
    ];
    iperf3(&p.client.ns, &args)
}

/// Wait for `c` until `deadline` (then kill it); what it printed (stdout, else stderr).
fn finish(mut c: Child, deadline: Instant) -> String {
    while Instant::now() < deadline {
        match c.try_wait() {
            Ok(Some(_)) | Err(_) => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    if !matches!(c.try_wait(), Ok(Some(_))) {
        let _ = c.kill();
    }
    let mut out = String::new();
    if let Some(mut s) = c.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    if out.trim().is_empty()
        && let Some(mut e) = c.stderr.take()
    {
        let _ = e.read_to_string(&mut out);
    }
    let _ = c.wait();
    out
}

/// Bytes each cable of the round has carried (both directions, at its `a` end).
fn counters(lab: &LabPlan, round: &Round) -> Result<BTreeMap<String, u64>, LabError> {
    let wanted: BTreeSet<&str> = round
        .tests
        .iter()
        .flat_map(|t| t.links.iter().map(String::as_str))
        .collect();
    let mut by_ns: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for c in lab.cables.iter().filter(|c| wanted.contains(c.id.as_str())) {
        by_ns
            .entry(c.a.ns.as_str())
            .or_default()
            .push((c.id.as_str(), c.a.ifname.as_str()));
    }
    let mut out = BTreeMap::new();
    for (ns, cables) in by_ns {
        let o = cmd::run(Command::new("ip").args(["-n", ns, "-j", "-s", "link", "show"]))?;
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).map_err(|e| LabError::Command {
                what: format!("ip -n {ns} -j -s link show"),
                detail: e.to_string(),
            })?;
        for (id, ifname) in cables {
            let bytes = v
                .as_array()
                .into_iter()
                .flatten()
                .find(|l| l["ifname"] == ifname)
                .map_or(0, |l| {
                    let n = |d: &str| l["stats64"][d]["bytes"].as_u64().unwrap_or(0);
                    n("rx") + n("tx")
                });
            out.insert(id.to_string(), bytes);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plans() -> (Plan, LabPlan) {
        let c = crate::compile_for_platform(
            &crate::diag::SourceFile::new("lab-small.yaml", crate::LAB_SMALL),
            crate::model::Platform::Frr,
        );
        let design = c.design.as_ref().expect("compiled");
        let env = crate::artifacts::nccl_env(design).expect("nccl env");
        let plan = crate::acceptance::plan(design, env).expect("a plan");
        let lab = super::super::plan(&c, false).expect("lab plan");
        (plan, lab)
    }

    #[test]
    fn the_lab_plan_keeps_only_tests_inside_the_lab_at_the_lab_rate() {
        let (plan, lab) = plans();
        let p = lab_plan(&plan, &lab, 2.5, 1);
        let cables: BTreeSet<&str> = lab.cables.iter().map(|c| c.id.as_str()).collect();
        let tests: Vec<&LinkTest> = p.rounds.iter().flat_map(|r| &r.tests).collect();
        assert!(!tests.is_empty());
        assert!(tests.len() <= plan.schedule.tests);
        assert_eq!(p.schedule.tests, tests.len());
        for t in &tests {
            assert_eq!(t.expected_gbps, 2.5);
            assert!(t.links.iter().all(|l| cables.contains(l.as_str())), "{t:?}");
            assert!(lab.hosts.iter().any(|h| h.name == t.server.node));
            assert!(lab.hosts.iter().any(|h| h.name == t.client.node));
        }
        assert!(p.links.iter().all(|l| cables.contains(l.id.as_str())));
        assert!(p.nccl.tests.is_empty());
        assert!(p.rounds.iter().enumerate().all(|(i, r)| r.index == i + 1));
        assert!(p.schedule.rounds >= p.schedule.max_degree);
    }

    #[test]
    fn a_degraded_cable_is_named_by_id_or_label_and_must_be_in_the_lab() {
        let (plan, lab) = plans();
        let p = lab_plan(&plan, &lab, 1.0, 1);
        let l = &p.links[0];
        assert_eq!(cable_named(&p, &lab, &l.id).ok().as_deref(), Some(&*l.id));
        assert_eq!(
            cable_named(&p, &lab, &l.label).ok().as_deref(),
            Some(&*l.id)
        );
        assert!(cable_named(&p, &lab, "no-such-cable").is_err());
    }

    #[test]
    fn every_test_end_has_an_addressed_nic_in_the_lab() {
        let (plan, lab) = plans();
        let p = lab_plan(&plan, &lab, 1.0, 1);
        for t in p.rounds.iter().flat_map(|r| &r.tests) {
            for e in [&t.server, &t.client] {
                let n = nic(&lab, &e.node, &e.link).unwrap_or_else(|e| panic!("{e}"));
                assert!(n.ns.starts_with("rylab"), "{n:?}");
            }
        }
    }
}
