//! The lab's state file, `<state dir>/lab.json`: the plan (names, expectations), the kernel
//! features found, the daemons' pids and the timings, so `verify` and `down` work from a new
//! process. Written before `up` touches the kernel (status `starting`) and again when the lab is
//! up, always by rename so a reader never sees half a file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::LabError;
use super::netns::Features;
use crate::labplan::LabPlan;

/// Bumped when the format changes; an older `down` still finds namespaces by prefix.
pub const VERSION: u32 = 1;

pub const FILE: &str = "lab.json";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// `up` is running (or crashed): `down` cleans up, `verify` refuses.
    Starting,
    Up,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabState {
    pub version: u32,
    pub phase: Phase,
    /// Where the spec came from.
    pub spec: String,
    pub plan: LabPlan,
    pub features: Features,
    /// Router → (daemon, pid).
    pub pids: BTreeMap<String, Vec<(String, u32)>>,
    pub timings: Timings,
    /// Whether every session, ECMP width and tenant route was in place when `up` finished.
    pub converged: bool,
    /// Directories outside the state directory that `up` created (FRR's `/var/tmp/frr` when
    /// it was missing): `down` removes them when they are empty again.
    pub created_dirs: Vec<PathBuf>,
    /// FRR's per-process directories of the lab's daemons (`/var/tmp/frr/<daemon>.<pid>`).
    pub frr_state_dirs: Vec<PathBuf>,
}

/// Wall-clock milliseconds of each step of `up`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    pub namespaces_ms: u64,
    pub cables_ms: u64,
    pub daemons_ms: u64,
    pub configs_ms: u64,
    pub converge_ms: u64,
    pub total_ms: u64,
    /// Sum of the daemons' resident-memory high-water marks when `up` finished.
    pub peak_rss_kib: u64,
}

pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// Write atomically (temporary sibling, then rename).
pub fn write(dir: &Path, s: &LabState) -> Result<(), LabError> {
    let p = path(dir);
    let tmp = dir.join(format!("{FILE}.tmp"));
    let text = serde_json::to_string_pretty(s).map_err(|e| LabError::State {
        path: p.clone(),
        error: e.to_string(),
    })?;
    std::fs::write(&tmp, text).map_err(|e| LabError::io(&tmp, e))?;
    std::fs::rename(&tmp, &p).map_err(|e| LabError::io(&p, e))
}

/// The state, `None` when there is no state file.
pub fn read(dir: &Path) -> Result<Option<LabState>, LabError> {
    let p = path(dir);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(LabError::io(&p, e)),
    };
    let s: LabState = serde_json::from_str(&text).map_err(|e| LabError::State {
        path: p.clone(),
        error: e.to_string(),
    })?;
    if s.version != VERSION {
        return Err(LabError::State {
            path: p,
            error: format!(
                "format version {} (this railyard reads {VERSION}); `railyard lab down` still removes it",
                s.version
            ),
        });
    }
    Ok(Some(s))
}
