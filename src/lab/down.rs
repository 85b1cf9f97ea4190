//! `lab down`: stop every process, delete every namespace and remove every file a lab made,
//! from its state file when there is one and from the fixed names when there is not (a crashed
//! `up`): namespaces by the `rylab` prefix, processes by the namespaces they run in and by the
//! state directory their command lines name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::frr::FRR_STATE_DIR;
use super::state::{self, FILE};
use super::verify::alive;
use super::{LabError, Progress, cmd, netns};

#[derive(Clone, Debug, Default)]
pub struct DownSummary {
    /// Processes stopped.
    pub stopped: usize,
    /// Namespaces deleted.
    pub namespaces: usize,
    /// Whether the state directory was removed.
    pub removed_dir: bool,
    /// What could not be removed (empty when the machine is clean).
    pub leftovers: Vec<String>,
    pub elapsed_ms: u64,
}

/// Remove the lab whose state is in `state_dir` (and any lab namespaces, whoever's state).
pub fn down(state_dir: &Path, progress: Progress<'_>) -> Result<DownSummary, LabError> {
    if !super::is_root() {
        return Err(LabError::NotRoot);
    }
    teardown(state_dir, progress)
}

/// A live process (zombies count as gone: the sandbox reaps late).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, r)| r.trim().chars().next())
        })
        .is_some_and(|c| !matches!(c, 'Z' | 'X'))
}

/// Processes whose command line names `needle` (FRR daemons started with our vty directory).
fn pids_naming(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    // Arguments are NUL-separated; join them so a path argument matches.
                    let s: String = c
                        .iter()
                        .map(|b| if *b == 0 { ' ' } else { char::from(*b) })
                        .collect();
                    s.contains(needle)
                })
                .unwrap_or(false)
        })
        .collect()
}

fn signal(sig: &str, pids: &[u32]) {
    if pids.is_empty() {
        return;
    }
    let mut c = Command::new("kill");
    c.arg(format!("-{sig}"));
    c.args(pids.iter().map(u32::to_string));
    // Some may have exited meanwhile: kill's complaint about those is expected.
    let _ = cmd::output(&mut c);
}

/// Wait until none of `pids` runs, up to `limit`; returns those still running.
fn wait_gone(pids: &[u32], limit: Duration) -> Vec<u32> {
    let t0 = Instant::now();
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|p| running(*p)).collect();
        if left.is_empty() || t0.elapsed() >= limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A process's command name (`zebra`), read before it is stopped.
fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// A stopped FRR daemon's directory, `/var/tmp/frr/<daemon>.<n>`, left when it crashed (zebra
/// 8.4 at SIGTERM) or was killed mid-start. FRR names it after the process that forked the
/// daemon, usually one pid below the daemon's own; while the daemon runs it holds
/// `logbuf.<daemon pid>`. Either identifies it; the pid window is kept narrow so another FRR
/// on the machine is not touched.
fn remove_frr_dirs(daemon: &str, pid: u32) {
    if !super::frr::is_daemon(daemon) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(FRR_STATE_DIR) else {
        return;
    };
    let window = pid.saturating_sub(super::frr::FORK_PID_WINDOW)..=pid;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(k) = name
            .strip_prefix(daemon)
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if window.contains(&k) || e.path().join(format!("logbuf.{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Whether a directory is a lab's: it holds the state file, or only what `up` creates.
fn is_lab_dir(dir: &Path) -> bool {
    if dir.join(FILE).exists() {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().all(|e| {
        let n = e.file_name();
        let n = n.to_string_lossy();
        n == "run" || n == "cfg" || n.starts_with(FILE)
    })
}

pub(crate) fn teardown(dir: &Path, progress: Progress<'_>) -> Result<DownSummary, LabError> {
    let t0 = Instant::now();
    let dir: PathBuf = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let run_dir = dir.join("run").to_string_lossy().into_owned();
    let st = state::read(&dir).ok().flatten();
    // Every prefixed namespace: the plan's, and those of a `up` that crashed before its plan
    // was written.
    let namespaces: BTreeSet<String> = netns::lab_namespaces().into_iter().collect();
    // A killed `up` may still have a start script in flight that forks more daemons after the
    // first look: look again until a round finds nothing.
    let mut stopped: Vec<(u32, String)> = Vec::new();
    for round in 0..5 {
        let mut found: BTreeSet<u32> = BTreeSet::new();
        if let Some(s) = st.as_ref().filter(|_| round == 0) {
            found.extend(
                s.pids
                    .values()
                    .flatten()
                    .map(|(_, p)| *p)
                    .filter(|p| alive(*p, &run_dir)),
            );
        }
        found.extend(pids_naming(&format!("{run_dir}/")));
        for ns in &namespaces {
            found.extend(netns::pids_in(ns));
        }
        let found: Vec<u32> = found.into_iter().filter(|p| running(*p)).collect();
        if found.is_empty() {
            break;
        }
        progress(&format!("down: stopping {} processes", found.len()));
        stopped.extend(found.iter().map(|p| (*p, comm(*p))));
        signal("TERM", &found);
        let left = wait_gone(&found, Duration::from_secs(3));
        if !left.is_empty() {
            signal("KILL", &left);
            wait_gone(&left, Duration::from_secs(2));
        }
    }
    let pids: Vec<u32> = stopped.iter().map(|(p, _)| *p).collect();
    for (pid, name) in &stopped {
        remove_frr_dirs(name, *pid);
    }
    // FRR's per-process directories of the daemons just stopped (zebra 8.4 crashes at
    // SIGTERM and leaves a crashlog in its own).
    if let Some(s) = &st {
        for d in &s.frr_state_dirs {
            if d.starts_with(FRR_STATE_DIR) {
                let _ = std::fs::remove_dir_all(d);
            }
        }
        for d in &s.created_dirs {
            // Only when empty: another FRR on this machine may use it now.
            let _ = std::fs::remove_dir(d);
        }
    }
    let names: Vec<String> = namespaces.into_iter().collect();
    if !names.is_empty() {
        progress(&format!("down: deleting {} namespaces", names.len()));
    }
    let mut leftovers: Vec<String> = netns::delete(&names)
        .into_iter()
        .map(|n| format!("namespace {n}"))
        .collect();
    let mut removed_dir = false;
    if dir.exists() {
        if is_lab_dir(&dir) {
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => removed_dir = true,
                Err(e) => leftovers.push(format!("{}: {e}", dir.display())),
            }
        } else {
            leftovers.push(format!(
                "{}: not removed, it holds files the lab did not make",
                dir.display()
            ));
        }
    }
    leftovers.extend(
        pids.iter()
            .filter(|p| running(**p))
            .map(|p| format!("process {p}")),
    );
    Ok(DownSummary {
        stopped: pids.len(),
        namespaces: names.len()
            - leftovers
                .iter()
                .filter(|l| l.starts_with("namespace"))
                .count(),
        removed_dir,
        leftovers,
        elapsed_ms: u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}
