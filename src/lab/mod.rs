//! The virtual lab: the fabric booted in Linux network namespaces with FRR, then verified.
//!
//! An edge module (I/O allowed, root required). Input: the lab plan ([`crate::labplan`]: what
//! to create, and what `verify` expects) of a successful [`crate::Compiled`] for the `frr`
//! platform, and the files railyard rendered from it. The lab never writes router configuration
//! of its own: every switch runs its rendered `frr.conf` verbatim; the lab only builds what a
//! real rack has before a config is loaded (namespaces as boxes, veth pairs as cables named as
//! in the cabling plan, host NIC addresses from the host plan, and for tenant VRFs the
//! namespace-as-VRF plumbing described in `LAB-NOTES.md`).
//!
//! - [`plan`] and [`configs`] (`inputs.rs`): the plan of a compile, and the rendered `frr.conf`
//!   of each of its routers.
//! - [`netns`], [`frr`], [`tenants`]: kernel objects and FRR daemons.
//! - [`state`]: the JSON state file, so `verify` and `down` work from a new process.
//! - [`verify`] and [`report`]: structured checks through `vtysh … json`, text and JSON report.
//! - [`accept`]: the acceptance plan's link rounds run with iperf3 for `acceptance check`.
//!
//! Invariant: every namespace the lab creates is named `rylab-…` or `rylab.…`, and every file
//! lives under the state directory (except FRR's own per-process directories in `/var/tmp/frr`,
//! which the state file lists), so `down` can remove all of it even after a crashed `up`.

// `lab accept`: the acceptance plan's link rounds run with iperf3, one cable optionally degraded.
pub mod accept;
mod cmd;
pub mod frr;
pub mod netns;
pub mod report;
pub mod state;
pub mod tenants;
pub mod verify;
// `lab verify --fail`: a device down, the lab against the impact analysis, restored.
pub mod fail;

mod down;
mod inputs;
mod up;

use std::fmt;
use std::path::PathBuf;

pub use down::{DownSummary, down};
pub use inputs::{Configs, configs, plan};
pub use report::{Check, Item, Report, Status};
pub use up::{UpOptions, UpSummary, up};
pub use verify::verify;

/// Where the lab keeps its state when no `--state` is given: beside `/run/netns`, cleared at
/// boot like the namespaces it describes, and traversable by the `frr` user.
pub const DEFAULT_STATE_DIR: &str = "/run/railyard-lab";

/// A lab failure: the operation and what the system said.
#[derive(Debug)]
pub enum LabError {
    /// The lab needs root (namespaces, veth pairs, FRR's privilege drop).
    NotRoot,
    /// A program the lab runs is missing.
    MissingTool { tool: String, package: String },
    /// The kernel lacks something the lab cannot do without.
    Kernel(String),
    /// A lab is already running (or a crashed one left namespaces behind).
    AlreadyRunning(String),
    /// No lab state where one was expected.
    NoLab(PathBuf),
    /// The lab never finished starting.
    Incomplete(String),
    /// The compiled spec cannot be booted (no FRR configs, too large, …).
    Plan(String),
    /// A command failed.
    Command { what: String, detail: String },
    /// FRR rejected a rendered config at load time.
    ConfigRejected { device: String, output: String },
    /// A file-system operation failed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The state file is unreadable.
    State { path: PathBuf, error: String },
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::NotRoot => write!(
                f,
                "the lab needs root (network namespaces, veth pairs, FRR daemons): run it with sudo"
            ),
            LabError::MissingTool { tool, package } => write!(
                f,
                "`{tool}` not found: install it with `apt-get install {package}`"
            ),
            LabError::Kernel(m) => write!(f, "kernel: {m}"),
            LabError::AlreadyRunning(m) => write!(f, "{m}"),
            LabError::NoLab(dir) => write!(
                f,
                "no lab state in `{}`: start one with `railyard lab up` (or pass --state)",
                dir.display()
            ),
            LabError::Plan(m) | LabError::Incomplete(m) => write!(f, "{m}"),
            LabError::Command { what, detail } => write!(f, "{what}: {detail}"),
            LabError::ConfigRejected { device, output } => write!(
                f,
                "FRR rejected the rendered config of `{device}`:\n{}",
                output.trim_end()
            ),
            LabError::Io { path, error } => write!(f, "`{}`: {error}", path.display()),
            LabError::State { path, error } => {
                write!(f, "lab state `{}` is unreadable: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for LabError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LabError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<crate::labplan::PlanError> for LabError {
    fn from(e: crate::labplan::PlanError) -> Self {
        LabError::Plan(e.to_string())
    }
}

impl LabError {
    pub(crate) fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        LabError::Io {
            path: path.into(),
            error,
        }
    }
}

/// Progress lines for long steps; the CLI prints them, tests may collect them.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Whether the current process runs as root (read from `/proc`, without libc).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|e| e == "0"))
        })
        .unwrap_or(false)
}
