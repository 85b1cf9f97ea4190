//! The acceptance plan (`railyard acceptance plan`) and its check (`railyard acceptance check`):
//! the bring-up tests an integrator runs on the compute fabric before handing it over, and which
//! cable a shortfall points at. A stage beside `artifacts`: pure, from the design (the fabric,
//! the nodes' intent) and the NCCL environment the host files carry, which the edge hands in
//! (`artifacts::nccl_env`); it returns files and reports, the command line reads and writes.
//!
//! - `links.rs`: node pairs that cross the cables under test (node–leaf, leaf–spine);
//! - `rounds.rs`: the tests in rounds, no link used twice in a round (an edge colouring);
//! - `nccl.rs`: nccl-tests per SU and across SUs with their expected bus bandwidth;
//! - `scripts.rs`: the shell and Slurm runners (`templates/acceptance/`);
//! - `devices.rs`: node ports without an RDMA device (a placeholder the runners refuse, a
//!   warning at the node model);
//! - `parse.rs`: perftest's and nccl-tests' own output read back;
//! - `check.rs`: results against the plan, suspects ranked, the next test to run.

pub mod check;
pub mod devices;
mod links;
pub mod model;
mod nccl;
pub mod parse;
mod rack_scale;
mod rounds;
mod scripts;
pub mod text;

use std::collections::BTreeMap;

use crate::design::Design;
use crate::model::Transport;
use crate::output::{FileError, OutputFile, OutputGroup};
use model::{LinkTest, NcclPlan, Perftest, Plan, Round, Schedule, VERSION};

/// Fraction of the slowest link's line rate an `ib_write_bw` test must report: perftest reports
/// RDMA payload, which the RoCE/InfiniBand headers keep a few percent below the line rate. An
/// assumption, stated in the plan, not a vendor figure.
pub const LINK_EFFICIENCY: f64 = 0.9;

/// perftest's default TCP port (README: `-p, --port=<port> … (default: 18515)`).
const BASE_PORT: u16 = 18515;

/// The plan of a compiled cluster, with `nccl_env` the variables of the NCCL environment the
/// host files carry (`hosts/nccl.json`); `None` when it has no GPU nodes on a compute fabric.
pub fn plan(design: &Design, nccl_env: BTreeMap<String, String>) -> Option<Plan> {
    let hosts = &design.intents.hosts;
    let transport = hosts.transport.filter(|_| !hosts.nodes.is_empty())?;
    let links = links::links(&design.fabric);
    let leaves = links::leaves(hosts, &links);
    let (mut pairs, alone) = links::node_pairs(&leaves);
    pairs.extend(links::uplink_pairs(&leaves, &alone));
    let (round_of, count, max_degree) = rounds::schedule(&pairs);
    let speed: std::collections::BTreeMap<&str, u32> =
        links.iter().map(|l| (l.id.as_str(), l.gbps)).collect();
    let mut rounds: Vec<Round> = (0..count)
        .map(|i| Round {
            index: i + 1,
            tests: Vec::new(),
        })
        .collect();
    for (p, r) in pairs.iter().zip(&round_of) {
        let slowest = p.links.iter().filter_map(|l| speed.get(l.as_str())).min();
        let tests = &mut rounds[*r].tests;
        tests.push(LinkTest {
            id: format!("r{:02}-t{:04}", r + 1, tests.len() + 1),
            server: p.server.clone(),
            client: p.client.clone(),
            spine: p.spine.clone(),
            links: p.links.clone(),
            expected_gbps: f64::from(slowest.copied().unwrap_or(0)) * LINK_EFFICIENCY,
        });
    }
    let ethernet = transport == Transport::Ethernet;
    let mut plan = Plan {
        version: VERSION,
        cluster: design.fabric.name.clone(),
        transport: if ethernet { "ethernet" } else { "infiniband" }.into(),
        perftest: Perftest {
            tool: "ib_write_bw".into(),
            gid_index: ethernet.then_some(hosts.gid_index),
            base_port: BASE_PORT,
            size: 65536,
            duration_s: 10,
            qps: 1,
            efficiency: LINK_EFFICIENCY,
        },
        nccl: NcclPlan {
            env: nccl_env,
            efficiency: nccl::EFFICIENCY,
            tests: match design.fabric.sizing.domains.as_ref() {
                Some(d) => rack_scale::tests(&design.fabric, hosts, d, &links),
                None => nccl::tests(&design.fabric, hosts, &links),
            },
        },
        schedule: Schedule {
            rounds: count,
            max_degree,
            tests: pairs.len(),
        },
        links,
        leaves,
        rounds,
        imex: imex_checks(&design.fabric, hosts),
        notes: Vec::new(),
    };
    plan.notes = notes(&plan, ethernet);
    Some(plan)
}

/// One IMEX status query per NVLink domain of a rack-scale system, naming its trays.
fn imex_checks(
    f: &crate::topology::Fabric,
    hosts: &crate::intent::host::HostIntents,
) -> Vec<model::ImexCheck> {
    let mut by: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for d in f.devices() {
        if let (Some(n), true) = (d.domain, hosts.nodes.contains_key(&d.name)) {
            by.entry(n).or_default().push(d.name.clone());
        }
    }
    by.into_iter()
        .map(|(n, mut nodes)| {
            nodes.sort_by(|a, b| crate::output::natural::cmp(a, b));
            model::ImexCheck {
                domain: f.domain_name(n),
                nodes,
            }
        })
        .collect()
}

fn notes(plan: &Plan, ethernet: bool) -> Vec<String> {
    let uncovered = uncovered(plan);
    let mut n = vec![
        format!(
            "link tests: {} in {} rounds (maximum degree {}: no schedule has fewer rounds)",
            plan.schedule.tests, plan.schedule.rounds, plan.schedule.max_degree
        ),
        format!(
            "a link test passes at {} of its slowest link's line rate (perftest BW average, \
             Gb/s); an NCCL test at {} of the derived bus bandwidth: assumptions, not vendor figures",
            LINK_EFFICIENCY,
            nccl::EFFICIENCY
        ),
        format!(
            "the spine a leaf-to-leaf test crosses is the fabric's choice ({}); the plan names \
             the spine each test is meant to cross and the check weighs its evidence that way",
            if ethernet {
                "ECMP hash of the RoCEv2 UDP source port, one queue pair per test"
            } else {
                "the subnet manager's routing"
            }
        ),
        "covered: compute node-leaf cables of GPU nodes and leaf-spine cables; not tested here: \
         appliance ports, spine-core cables, \
         storage, in-band and OOB networks"
            .into(),
    ];
    let no_device = devices::tests_without_device(plan);
    if no_device > 0 {
        n.push(format!(
            "{no_device} link test(s) have an end whose RDMA device the node model does not name: \
             they carry `-d {}` and the runners refuse them (railyard explain RY0910)",
            devices::NO_DEVICE
        ));
    }
    if !uncovered.is_empty() {
        n.push(format!(
            "{} cable(s) no pair can cross (e.g. {}): traffic between the ports of the only \
             leaf never goes up, and a port alone on it has no partner",
            uncovered.len(),
            uncovered[0]
        ));
    }
    n
}

/// Links no test crosses.
pub fn uncovered(plan: &Plan) -> Vec<String> {
    let crossed: std::collections::BTreeSet<&str> = plan
        .rounds
        .iter()
        .flat_map(|r| {
            r.tests
                .iter()
                .flat_map(|t| t.links.iter().map(String::as_str))
        })
        .collect();
    plan.links
        .iter()
        .filter(|l| !crossed.contains(l.id.as_str()))
        .map(|l| l.id.clone())
        .collect()
}

/// `plan.json`, `run.sh` and `acceptance.sbatch` of a plan.
pub fn files(plan: &Plan) -> Result<Vec<OutputFile>, FileError> {
    let mut json = serde_json::to_vec_pretty(plan).map_err(|e| FileError::new("plan.json", e))?;
    json.push(b'\n');
    let mut out = vec![OutputFile::new(OutputGroup::Plan, "plan.json", json)];
    for (path, text) in scripts::render(plan)? {
        out.push(OutputFile::new(OutputGroup::Plan, path, text));
    }
    Ok(out)
}
