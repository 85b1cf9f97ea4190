//! The acceptance plan as typed data: what `plan.json` holds, what the runners are rendered
//! from, and what `acceptance check` reads back (one type writes and reads it).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The format version of `plan.json`; `check` refuses another.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub version: u32,
    pub cluster: String,
    /// `ethernet` (RoCE) or `infiniband`.
    pub transport: String,
    pub perftest: Perftest,
    /// Every compute link the plan tests, by id (its cable id).
    pub links: Vec<PlanLink>,
    /// The compute leaves: their node ports and uplinks (what `check` builds a separating test
    /// from).
    pub leaves: Vec<Leaf>,
    pub schedule: Schedule,
    pub rounds: Vec<Round>,
    pub nccl: NcclPlan,
    /// Rack-scale systems: one IMEX status query per NVLink domain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imex: Vec<ImexCheck>,
    /// Assumptions and what the plan does not cover.
    pub notes: Vec<String>,
}

/// `nvidia-imex-ctl -N -H` on one tray of an NVLink domain: "-N: Gets the full status of the
/// entire IMEX domain", "-H: Show hostname alongside node IP" (NVIDIA IMEX Service guide,
/// https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide/cmdservice.html). It passes when
/// the command succeeded and names every tray of the domain.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ImexCheck {
    /// The domain (`rack01`); the result is `imex/<domain>.txt`.
    pub domain: String,
    pub nodes: Vec<String>,
}

/// How every link test runs (perftest `ib_write_bw`, github.com/linux-rdma/perftest README).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Perftest {
    pub tool: String,
    /// `-x`: the RoCE GID index (`hosts.gid_index`); none on InfiniBand.
    pub gid_index: Option<i32>,
    /// `-p`: a test's server listens and its client connects on `base_port + k`, *k* the
    /// server's NIC port position (one test per NIC port per round, so a port never serves two
    /// tests at once).
    pub base_port: u16,
    /// `-s` bytes, `-D` seconds, `-q` queue pairs.
    pub size: u32,
    pub duration_s: u32,
    pub qps: u32,
    /// Fraction of the slowest link's line rate a test must reach ("BW average[Gb/sec]").
    pub efficiency: f64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    NodeLeaf,
    LeafSpine,
}

/// One cable under test.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlanLink {
    pub id: String,
    pub kind: LinkKind,
    /// The cable's label (as printed on it and in `cabling.csv`).
    pub label: String,
    pub a: String,
    pub a_port: String,
    pub a_rack: Option<String>,
    pub b: String,
    pub b_port: String,
    pub b_rack: Option<String>,
    pub gbps: u32,
}

/// One node port: the node, its RDMA device and the link to its leaf.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Endpoint {
    pub node: String,
    /// `-d`: RDMA device; `None` when the node model names none (the runners then carry a
    /// placeholder and refuse the test: `devices.rs`).
    pub device: Option<String>,
    /// Position of the port among the node's compute ports (0-based): its perftest port offset.
    pub port_index: u32,
    pub leaf: String,
    pub link: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Uplink {
    pub spine: String,
    pub link: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Leaf {
    pub name: String,
    pub ports: Vec<Endpoint>,
    pub uplinks: Vec<Uplink>,
}

/// Rounds against the lower bound: the most tests any one link (or NIC port) takes part in.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Schedule {
    pub rounds: usize,
    pub max_degree: usize,
    pub tests: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Round {
    pub index: usize,
    pub tests: Vec<LinkTest>,
}

/// One `ib_write_bw` run: the server end, the client end, and every link between them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LinkTest {
    /// File name stem of its result (`links/<id>.txt`).
    pub id: String,
    pub server: Endpoint,
    pub client: Endpoint,
    /// The spine the test is meant to cross (leaf–spine tests).
    pub spine: Option<String>,
    /// Every link on the path, server side first.
    pub links: Vec<String>,
    pub expected_gbps: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NcclPlan {
    /// The NCCL environment railyard renders (`hosts/nccl.env`), exported before every test.
    pub env: BTreeMap<String, String>,
    pub efficiency: f64,
    pub tests: Vec<NcclTest>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NcclTest {
    /// File name stem of its result (`nccl/<id>.txt`).
    pub id: String,
    /// `all_reduce_perf` or `alltoall_perf`.
    pub binary: String,
    /// `su1`, … or `cluster`.
    pub scope: String,
    pub nodes: Vec<String>,
    pub gpus_per_node: u32,
    pub ranks: u32,
    /// `-b`, `-e` (bytes), `-f`.
    pub min_bytes: u64,
    pub max_bytes: u64,
    /// Bus bandwidth the largest size must reach, GB/s (nccl-tests' busbw).
    pub expected_busbw: f64,
    /// How the figure was derived.
    pub derivation: String,
}
