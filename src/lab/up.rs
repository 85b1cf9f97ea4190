//! `lab up`: preflight, namespaces, cables, host addresses, tenant VRFs, FRR daemons, the
//! rendered configs, then a wait for convergence. A guard tears everything down again if any
//! step fails, so a failed `up` leaves nothing behind; a killed one leaves a state file and
//! prefixed namespaces that `down` finds.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::down::teardown;
use super::frr::{self, FRR_LIBEXEC};
use super::inputs::Configs;
use super::report::{Check, Status};
use super::state::{self, LabState, Phase, Timings};
use super::{LabError, Progress, cmd, netns, tenants, verify};
use crate::labplan::{LabPlan, PREFIX};

/// Beyond this the lab asks for `--scale-down` (a 2-core CI machine converges a few hundred
/// sessions in seconds; thousands take minutes and gigabytes).
pub const MAX_ROUTERS: usize = 48;
pub const MAX_CABLES: usize = 1024;

/// Resident memory of one FRR instance (zebra + bgpd + staticd + bfdd), measured: ≈ 45 MB.
const RSS_PER_ROUTER_KIB: u64 = 45 * 1024;

#[derive(Clone, Debug)]
pub struct UpOptions {
    pub state_dir: PathBuf,
    /// Longest wait for convergence.
    pub max_wait: Duration,
    /// Stop waiting when nothing has changed for this long: a broken config never converges,
    /// and BGP's connect-retry (10 s with `frr defaults datacenter`) bounds a late session.
    pub stall: Duration,
    /// Where the spec came from, for the state file.
    pub spec: String,
}

impl UpOptions {
    pub fn new(state_dir: impl Into<PathBuf>, spec: impl Into<String>) -> Self {
        Self {
            state_dir: state_dir.into(),
            max_wait: Duration::from_secs(120),
            stall: Duration::from_secs(15),
            spec: spec.into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct UpSummary {
    pub timings: Timings,
    pub converged: bool,
    /// What had not converged when the wait ended (failing control-plane items).
    pub pending: Vec<String>,
    pub daemons: usize,
    pub namespaces: usize,
}

/// Tears the lab down when dropped, unless disarmed: a failed `up` removes what it made.
struct Teardown<'a> {
    dir: &'a Path,
    armed: bool,
}

impl Drop for Teardown<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = teardown(self.dir, &mut |_| {});
        }
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Boot the plan. `configs` are the rendered `frr.conf` files, loaded unchanged.
pub fn up(
    plan: LabPlan,
    configs: &Configs,
    opts: &UpOptions,
    progress: Progress<'_>,
) -> Result<UpSummary, LabError> {
    let t0 = Instant::now();
    preflight(&plan)?;
    let abs = claim_state_dir(&opts.state_dir)?;
    let dir = abs.as_path();
    let mut st = starting_state(plan, opts);
    // Written before the kernel is touched: from here on `down` can always clean up.
    state::write(dir, &st)?;
    let mut guard = Teardown { dir, armed: true };

    st.features = netns::probe();
    if !st.features.netns || !st.features.veth {
        return Err(LabError::Kernel(format!(
            "the lab needs network namespaces and veth pairs: {}",
            st.features.missing.join("; ")
        )));
    }
    progress(&format!("up: {} ({})", st.plan.lab, st.plan.size()));
    create_namespaces(&mut st, progress)?;
    let tenant_gap = cable(&mut st, progress)?;
    let before = frr::state_dirs();
    let daemons = start_daemons(&mut st, dir, configs, &before, progress)?;
    load_configs(&mut st, dir, progress)?;

    let t = Instant::now();
    let (converged, pending) = converge(&st.plan, dir, tenant_gap.as_deref(), opts, progress);
    st.timings.converge_ms = ms(t.elapsed());
    st.converged = converged;
    record_daemons(&mut st, &before);
    st.timings.total_ms = ms(t0.elapsed());
    st.phase = Phase::Up;
    state::write(dir, &st)?;
    guard.armed = false;
    Ok(UpSummary {
        timings: st.timings.clone(),
        converged,
        pending,
        daemons,
        namespaces: st.plan.namespaces().len(),
    })
}

/// The state before anything is made: the plan, and the FRR directory `up` will create.
fn starting_state(plan: LabPlan, opts: &UpOptions) -> LabState {
    LabState {
        version: state::VERSION,
        phase: Phase::Starting,
        spec: opts.spec.clone(),
        plan,
        features: netns::Features::default(),
        pids: Default::default(),
        timings: Timings::default(),
        converged: false,
        created_dirs: [frr::FRR_STATE_DIR]
            .iter()
            .map(PathBuf::from)
            .filter(|d| !d.exists())
            .collect(),
        frr_state_dirs: Vec::new(),
    }
}

fn create_namespaces(st: &mut LabState, progress: Progress<'_>) -> Result<(), LabError> {
    let plan = &st.plan;
    let t = Instant::now();
    netns::create(plan)?;
    st.timings.namespaces_ms = ms(t.elapsed());
    progress(&format!(
        "namespaces: {} created in {}",
        plan.namespaces().len(),
        secs(t.elapsed())
    ));
    Ok(())
}

/// Cables, host addresses and routes, and the tenant VRFs when the kernel can build them;
/// returns why it cannot.
fn cable(st: &mut LabState, progress: Progress<'_>) -> Result<Option<String>, LabError> {
    let plan = &st.plan;
    let t = Instant::now();
    netns::cable(plan)?;
    netns::configure(plan)?;
    let tenant_gap = tenants::unsupported(&st.features).filter(|_| plan.has_vrfs());
    if plan.has_vrfs() && tenant_gap.is_none() {
        tenants::build(plan)?;
    }
    st.timings.cables_ms = ms(t.elapsed());
    progress(&format!(
        "cables: {} veth pairs, host addresses and routes in {}",
        plan.cables.len(),
        secs(t.elapsed())
    ));
    if let Some(why) = &tenant_gap {
        progress(&format!(
            "WARNING: tenant VRFs not built: {why}; verify will report the tenant checks as not tested"
        ));
    }
    Ok(tenant_gap)
}

/// FRR on every switch; returns how many daemons run.
fn start_daemons(
    st: &mut LabState,
    dir: &Path,
    configs: &Configs,
    before: &std::collections::BTreeSet<String>,
    progress: Progress<'_>,
) -> Result<usize, LabError> {
    let t = Instant::now();
    let mut daemons = 0;
    for r in &st.plan.routers {
        let p = frr::Paths::new(dir, &r.name);
        let conf = configs
            .get(&r.name)
            .ok_or_else(|| LabError::Plan(format!("no rendered config for `{}`", r.name)))?;
        let vrfs: Vec<String> = r.vrfs.iter().map(|v| v.vrf.clone()).collect();
        frr::prepare(&p, conf, &vrfs)?;
        frr::start(r, &p)?;
        let pids = frr::pids(r, &p);
        daemons += pids.len();
        st.pids.insert(r.name.clone(), pids);
        // After every switch, so a killed `up` leaves `down` the pids and FRR's directories.
        st.frr_state_dirs = frr::new_state_dirs(before, &st.pids);
        state::write(dir, st)?;
    }
    st.timings.daemons_ms = ms(t.elapsed());
    progress(&format!(
        "daemons: {daemons} FRR daemons on {} switches in {}",
        st.plan.routers.len(),
        secs(t.elapsed())
    ));
    Ok(daemons)
}

fn load_configs(st: &mut LabState, dir: &Path, progress: Progress<'_>) -> Result<(), LabError> {
    let t = Instant::now();
    load_all(&st.plan, dir)?;
    st.timings.configs_ms = ms(t.elapsed());
    progress(&format!(
        "configs: {} rendered frr.conf loaded in {}",
        st.plan.routers.len(),
        secs(t.elapsed())
    ));
    Ok(())
}

/// The daemons' peak memory, and FRR directories created since they started.
fn record_daemons(st: &mut LabState, before: &std::collections::BTreeSet<String>) {
    st.timings.peak_rss_kib = st
        .pids
        .values()
        .flatten()
        .filter_map(|(_, pid)| frr::peak_rss_kib(*pid))
        .sum();
    // Again at the end: a daemon may create its directory after its start returned.
    for d in frr::new_state_dirs(before, &st.pids) {
        if !st.frr_state_dirs.contains(&d) {
            st.frr_state_dirs.push(d);
        }
    }
}

/// Root, tools, the `frr` user, and a size this machine can run.
fn preflight(plan: &LabPlan) -> Result<(), LabError> {
    if !super::is_root() {
        return Err(LabError::NotRoot);
    }
    let mut tools: Vec<String> = ["ip", "vtysh", "unshare", "chown", "sh", "sysctl", "kill"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    if plan.has_vrfs() {
        tools.push("mount".into());
    }
    let mut daemons: Vec<&String> = plan.routers.iter().flat_map(|r| &r.daemons).collect();
    daemons.sort();
    daemons.dedup();
    tools.extend(daemons.iter().map(|d| format!("{FRR_LIBEXEC}/{d}")));
    for t in tools {
        if !cmd::have(&t) {
            return Err(LabError::MissingTool {
                package: cmd::package_of(&t).to_string(),
                tool: t,
            });
        }
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    if !passwd.lines().any(|l| l.starts_with("frr:")) {
        return Err(LabError::MissingTool {
            tool: "the `frr` user".into(),
            package: "frr".into(),
        });
    }
    if plan.routers.len() > MAX_ROUTERS || plan.cables.len() > MAX_CABLES {
        return Err(LabError::Plan(format!(
            "this lab would need {} switches and {} cables (limits {MAX_ROUTERS} and {MAX_CABLES}): use --scale-down",
            plan.routers.len(),
            plan.cables.len()
        )));
    }
    let need = RSS_PER_ROUTER_KIB * plan.routers.len() as u64;
    if let Some(avail) = mem_available_kib()
        && need > avail / 2
    {
        return Err(LabError::Plan(format!(
            "{} FRR instances need about {} MB, more than half of the {} MB available: use --scale-down",
            plan.routers.len(),
            need / 1024,
            avail / 1024
        )));
    }
    Ok(())
}

fn mem_available_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    s.lines()
        .find(|l| l.starts_with("MemAvailable:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Refuse a running lab; create the state directory, traversable by the `frr` user. Returns
/// its absolute path (the daemons' command lines name it, which is how `down` finds them).
fn claim_state_dir(dir: &Path) -> Result<PathBuf, LabError> {
    if let Some(s) = state::read(dir).ok().flatten() {
        return Err(LabError::AlreadyRunning(format!(
            "a lab is already running (`{}`, state in `{}`, {}): run `railyard lab down --state {}` first",
            s.plan.lab,
            state::path(dir).display(),
            match s.phase {
                Phase::Up => "up",
                Phase::Starting => "its `up` never finished",
            },
            dir.display()
        )));
    }
    if state::path(dir).exists() {
        return Err(LabError::AlreadyRunning(format!(
            "`{}` exists but is unreadable: run `railyard lab down --state {}` first",
            state::path(dir).display(),
            dir.display()
        )));
    }
    let present = netns::lab_namespaces();
    if !present.is_empty() {
        return Err(LabError::AlreadyRunning(format!(
            "{} network namespace(s) named `{PREFIX}-…` exist ({}{}): another lab is running, or a crashed one left them; `railyard lab down` removes them",
            present.len(),
            present
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if present.len() > 3 { ", …" } else { "" }
        )));
    }
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map_err(|e| LabError::io(dir, e))?
            .next()
            .is_none();
        if !empty {
            return Err(LabError::Plan(format!(
                "state directory `{}` exists and holds files that are not a lab's: choose another --state",
                dir.display()
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| LabError::io(dir, e))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| LabError::io(dir, e))?;
    // FRR's daemons run as `frr` and open sockets below this directory.
    let abs = std::fs::canonicalize(dir).map_err(|e| LabError::io(dir, e))?;
    for a in abs.ancestors().skip(1) {
        let mode = std::fs::metadata(a)
            .map_err(|e| LabError::io(a, e))?
            .permissions()
            .mode();
        if mode & 0o001 == 0 {
            let _ = std::fs::remove_dir(dir);
            return Err(LabError::Plan(format!(
                "`{}` is not traversable by the `frr` user (mode {:o}): put --state under /run or /tmp",
                a.display(),
                mode & 0o7777
            )));
        }
    }
    Ok(abs)
}

/// Load every rendered config, a few at a time (vtysh waits on each daemon in turn).
fn load_all(plan: &LabPlan, dir: &Path) -> Result<(), LabError> {
    const PARALLEL: usize = 4;
    for chunk in plan.routers.chunks(PARALLEL) {
        let results: Vec<Result<(), LabError>> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|r| s.spawn(move || frr::load(r, &frr::Paths::new(dir, &r.name))))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(LabError::Command {
                            what: "loading configs".into(),
                            detail: "a loader thread panicked".into(),
                        })
                    })
                })
                .collect()
        });
        for r in results {
            r?;
        }
    }
    Ok(())
}

/// Pass counts of the control-plane checks: progress is any change in them.
fn signature(checks: &[&Check]) -> Vec<usize> {
    checks.iter().map(|c| c.count(Status::Pass)).collect()
}

/// Wait until every planned session is Established, every leaf uses all its uplinks towards
/// every other leaf, and every tenant VRF holds its remote prefixes; or until nothing changed
/// for `opts.stall`, or `opts.max_wait` passed.
fn converge(
    plan: &LabPlan,
    dir: &Path,
    tenant_gap: Option<&str>,
    opts: &UpOptions,
    progress: Progress<'_>,
) -> (bool, Vec<String>) {
    let t0 = Instant::now();
    let mut last_change = Instant::now();
    let mut last_sig: Vec<usize> = Vec::new();
    let mut last_print = Instant::now();
    loop {
        let (sessions, ecmp, routes) = verify::control_plane(plan, dir, tenant_gap);
        let mut checks = vec![&sessions, &ecmp];
        if let Some(r) = &routes {
            checks.push(r);
        }
        let failing: Vec<String> = checks
            .iter()
            .flat_map(|c| c.items.iter().filter(|i| i.status == Status::Fail))
            .map(|i| format!("{}: {}", i.subject, i.detail))
            .collect();
        let sig = signature(&checks);
        if sig != last_sig {
            last_sig = sig;
            last_change = Instant::now();
        }
        let line = format!(
            "converging: {}; {}{} ({})",
            sessions.summary,
            ecmp.summary,
            routes
                .as_ref()
                .map(|r| format!("; {}", r.summary))
                .unwrap_or_default(),
            secs(t0.elapsed())
        );
        if failing.is_empty() {
            progress(&format!(
                "converged in {}: {}",
                secs(t0.elapsed()),
                sessions.summary
            ));
            return (true, failing);
        }
        if t0.elapsed() >= opts.max_wait || last_change.elapsed() >= opts.stall {
            progress(&format!(
                "NOT converged after {} ({} item(s) pending, nothing changed for {}): `railyard lab verify` names them",
                secs(t0.elapsed()),
                failing.len(),
                secs(last_change.elapsed())
            ));
            return (false, failing);
        }
        if last_print.elapsed() >= Duration::from_secs(3) {
            progress(&line);
            last_print = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
