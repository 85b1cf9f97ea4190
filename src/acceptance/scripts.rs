//! The runners: `run.sh` (plain POSIX shell: ssh to the nodes, mpirun for NCCL) and
//! `acceptance.sbatch` (Slurm: srun per test), from `templates/acceptance/` (embedded, not
//! overridable: they run as root on the nodes). Every value reaches a template as one shell word
//! already quoted by `output::shell::quote`, and the line formatter refuses a control character
//! again, so no spec string can add a command.

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use super::devices::NO_DEVICE;
use super::model::{Endpoint, LinkTest, NcclTest, Plan, Round};
use crate::output::FileError;
use crate::output::shell::quote;

const RUN: &str = include_str!("../../templates/acceptance/run.sh.j2");
const SBATCH: &str = include_str!("../../templates/acceptance/acceptance.sbatch.j2");

/// One link test as the runners print it: every field a quoted shell word.
#[derive(Serialize)]
struct TestLine {
    id: String,
    server: String,
    client: String,
    /// The whole command, one word (run by `sh -c` or ssh on the node).
    server_cmd: String,
    client_cmd: String,
}

#[derive(Serialize)]
struct RoundLines {
    index: usize,
    count: usize,
    tests: Vec<TestLine>,
}

#[derive(Serialize)]
struct NcclLine {
    id: String,
    nodes: usize,
    ranks: u32,
    per_node: u32,
    /// `mpirun -H`: `a:8,b:8`; `srun -w`: `a,b`.
    mpi_hosts: String,
    nodelist: String,
    /// The test's command line, quoted words.
    command: String,
}

#[derive(Serialize)]
struct Ctx<'a> {
    cluster: String,
    rounds: Vec<RoundLines>,
    max_degree: usize,
    /// `KEY=quoted-value`, keys railyard's own (checked).
    env: Vec<String>,
    /// `-x KEY` for each.
    mpi_env: String,
    nccl: Vec<NcclLine>,
    /// One IMEX status query per NVLink domain: (domain, the tray it runs on), quoted.
    imex: Vec<(String, String)>,
    /// `#SBATCH --nodelist` value when every node name is a plain word, else `None`.
    nodelist: Option<String>,
    nodes: usize,
    notes: &'a [String],
    /// The `-d` placeholder of a port without an RDMA device: `pair` refuses a test holding it.
    no_device: &'static str,
}

/// Both runners of `plan`: `(path, text)`.
pub fn render(plan: &Plan) -> Result<Vec<(&'static str, String)>, FileError> {
    let ctx = context(plan)?;
    let mut env = Environment::new();
    env.set_formatter(crate::output::line::formatter);
    env.set_keep_trailing_newline(true);
    env.set_lstrip_blocks(true);
    env.set_trim_blocks(true);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    [("run.sh", RUN), ("acceptance.sbatch", SBATCH)]
        .into_iter()
        .map(|(path, t)| {
            env.render_str(t, &ctx)
                .map(|text| (path, text))
                .map_err(|e| FileError::new(path, e))
        })
        .collect()
}

fn context(plan: &Plan) -> Result<Ctx<'_>, FileError> {
    let rounds = plan.rounds.iter().map(|r| round_lines(plan, r)).collect();
    let mut env = Vec::new();
    for (k, v) in &plan.nccl.env {
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        {
            return Err(FileError::new(
                "run.sh",
                format!(
                    "`{}` is not an environment variable name",
                    k.escape_default()
                ),
            ));
        }
        env.push(format!("{k}={}", quote(v)));
    }
    let mpi_env = plan
        .nccl
        .env
        .keys()
        .map(|k| format!("-x {k}"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut all: Vec<&str> = plan
        .leaves
        .iter()
        .flat_map(|l| l.ports.iter().map(|p| p.node.as_str()))
        .collect();
    all.sort_by(|a, b| crate::output::natural::cmp(a, b));
    all.dedup();
    let nodelist = all.iter().all(|n| quote(n) == *n).then(|| all.join(","));
    Ok(Ctx {
        cluster: quote(&plan.cluster),
        rounds,
        max_degree: plan.schedule.max_degree,
        env,
        mpi_env,
        nccl: plan.nccl.tests.iter().map(nccl_line).collect(),
        imex: plan
            .imex
            .iter()
            .filter_map(|c| Some((quote(&c.domain), quote(c.nodes.first()?))))
            .collect(),
        nodelist,
        nodes: all.len(),
        notes: &plan.notes,
        no_device: NO_DEVICE,
    })
}

/// The TCP port a test's two ends meet on: `-p` is the port the server listens on and the client
/// connects to (perftest README: "-p, --port=<port> Listen on/connect to port <port>"), so both
/// ends take the server's, `base_port` + the server's NIC port position (a node serves at most one
/// test per NIC port in a round, so no two servers of a round share a port on one node).
fn test_port(plan: &Plan, t: &LinkTest) -> u32 {
    u32::from(plan.perftest.base_port).saturating_add(t.server.port_index)
}

/// `ib_write_bw` words of one end of a test on `port`; the client names the server last.
fn perftest_words(plan: &Plan, e: &Endpoint, port: u32, server: Option<&str>) -> Vec<String> {
    let p = &plan.perftest;
    let mut w = vec![p.tool.clone()];
    // Never left out: perftest would take the first HCA, not this port (`devices.rs`).
    let device = e.device.as_deref().unwrap_or(NO_DEVICE);
    w.extend(["-d".into(), device.to_string()]);
    if let Some(x) = p.gid_index {
        w.extend(["-x".into(), x.to_string()]);
    }
    w.extend([
        "-p".into(),
        port.to_string(),
        "-s".into(),
        p.size.to_string(),
        "-q".into(),
        p.qps.to_string(),
        "-D".into(),
        p.duration_s.to_string(),
        "-F".into(),
        "--report_gbits".into(),
    ]);
    w.extend(server.map(str::to_string));
    w
}

fn command(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

fn round_lines(plan: &Plan, r: &Round) -> RoundLines {
    let tests = r.tests.iter().map(|t| test_line(plan, t));
    RoundLines {
        index: r.index,
        count: r.tests.len(),
        tests: tests.collect(),
    }
}

fn test_line(plan: &Plan, t: &LinkTest) -> TestLine {
    let port = test_port(plan, t);
    TestLine {
        id: quote(&t.id),
        server: quote(&t.server.node),
        client: quote(&t.client.node),
        server_cmd: quote(&command(&perftest_words(plan, &t.server, port, None))),
        client_cmd: quote(&command(&perftest_words(
            plan,
            &t.client,
            port,
            Some(&t.server.node),
        ))),
    }
}

fn nccl_line(t: &NcclTest) -> NcclLine {
    let words = [
        t.binary.clone(),
        "-b".into(),
        t.min_bytes.to_string(),
        "-e".into(),
        t.max_bytes.to_string(),
        "-f".into(),
        "2".into(),
        "-g".into(),
        "1".into(),
    ];
    NcclLine {
        id: quote(&t.id),
        nodes: t.nodes.len(),
        ranks: t.ranks,
        per_node: t.gpus_per_node,
        mpi_hosts: quote(
            &t.nodes
                .iter()
                .map(|n| format!("{n}:{}", t.gpus_per_node))
                .collect::<Vec<_>>()
                .join(","),
        ),
        nodelist: quote(&t.nodes.join(",")),
        command: command(&words),
    }
}
