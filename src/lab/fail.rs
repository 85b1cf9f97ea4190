//! `lab verify --fail NAME`: one device taken down in the running lab, the fabric's answer
//! compared with what `railyard::impact` predicted, then the device restored.
//!
//! How a device goes down: every cable end of it is set administratively down in its namespace
//! (`ip link set … down`), FRR left running. A veth pair loses carrier on both ends when one end
//! goes down, so each neighbour sees its link fail at once and BGP drops the session through
//! fast external failover (FRR's default for directly connected eBGP peers), as it would for
//! a switch that lost power; stopping FRR instead would leave the links up and wait for the
//! hold timer. Restoring is setting the same ends up again: the sessions re-establish over the
//! rendered configs, which were never touched.
//!
//! The expectations are the plan's with the prediction applied (`expectations`): sessions of the
//! failed device expected down, each leaf's ECMP width the one the impact analysis gives (the
//! number of its uplinks left), node ports on the failed device left out of the pings.

use std::path::Path;
use std::time::{Duration, Instant};

use super::report::{Check, Item, Report, Status};
use super::{LabError, Progress, netns, state, tenants, verify};
use crate::impact::Impact;
use crate::labplan::LabPlan;

/// Longest wait for the fabric to settle after the failure and after the restore.
const SETTLE: Duration = Duration::from_secs(60);

/// The plan's expectations with `failed` down as `impact` predicts.
pub fn expectations(plan: &LabPlan, failed: &str, impact: &Impact) -> LabPlan {
    let mut p = plan.clone();
    let (gone, kept): (Vec<_>, Vec<_>) = p
        .sessions
        .into_iter()
        .partition(|s| s.router == failed || s.peer == failed);
    p.sessions = kept;
    // The failed device's own sessions cannot be queried; its neighbours' must be down.
    p.dropped_sessions
        .extend(gone.into_iter().filter(|s| s.router != failed));
    p.ecmp.retain(|t| t.leaf != failed && t.peer_leaf != failed);
    for t in &mut p.ecmp {
        if let Some(c) = impact
            .ecmp
            .iter()
            .find(|c| c.switch == t.leaf && c.toward == "up")
        {
            t.width = c.after;
        }
    }
    p.routers.retain(|r| r.name != failed);
    p.tenant_routes.retain(|t| t.leaf != failed);
    for h in &mut p.hosts {
        h.ports.retain(|port| port.leaf != failed);
    }
    p
}

/// Set every cable end of `device` up or down.
pub fn set_links(plan: &LabPlan, device: &str, up: bool) -> Result<(), LabError> {
    let state = if up { "up" } else { "down" };
    let mut by_ns: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for c in &plan.cables {
        for e in [&c.a, &c.b].into_iter().filter(|e| e.device == device) {
            by_ns
                .entry(e.ns.as_str())
                .or_default()
                .push(format!("link set dev {} {state}", e.ifname));
        }
    }
    for (ns, lines) in by_ns {
        netns::batch(Some(ns), &lines)?;
    }
    Ok(())
}

/// Poll the control-plane checks of `plan` until sessions and ECMP pass or `SETTLE` runs out;
/// the last checks and the time it took.
fn settle(plan: &LabPlan, dir: &Path, gap: Option<&str>) -> (Check, Check, Duration) {
    let t0 = Instant::now();
    loop {
        let (sessions, ecmp, _) = verify::control_plane(plan, dir, gap);
        let done = [&sessions, &ecmp].iter().all(|c| c.status != Status::Fail);
        if done || t0.elapsed() > SETTLE {
            return (sessions, ecmp, t0.elapsed());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Fail `failed`, compare the lab with `impact`'s prediction, restore, check the fabric is whole.
pub fn verify_failed(
    state_dir: &Path,
    failed: &str,
    impact: &Impact,
    progress: Progress<'_>,
) -> Result<Report, LabError> {
    let t0 = Instant::now();
    let Some(st) = state::read(state_dir)? else {
        return Err(LabError::NoLab(state_dir.to_path_buf()));
    };
    let plan = &st.plan;
    if !plan
        .cables
        .iter()
        .any(|c| c.a.device == failed || c.b.device == failed)
    {
        return Err(LabError::Incomplete(format!(
            "`{failed}` has no cable in this lab (dropped by --scale-down?)"
        )));
    }
    let gap = tenants::unsupported(&st.features).filter(|_| plan.has_vrfs());
    let expected = expectations(plan, failed, impact);
    progress(&format!(
        "fail: {failed} down (its links, FRR kept running)"
    ));
    set_links(plan, failed, false)?;
    let (sessions, ecmp, took) = settle(&expected, state_dir, gap.as_deref());
    progress(&format!(
        "fail: settled in {:.1} s; pinging",
        took.as_secs_f64()
    ));
    let mut checks = vec![
        sessions,
        ecmp,
        verify::rails(&expected),
        verify::access(&expected),
    ];
    progress(&format!("fail: {failed} restored"));
    set_links(plan, failed, true)?;
    let (s, e, took) = settle(plan, state_dir, gap.as_deref());
    let whole = s.status != Status::Fail && e.status != Status::Fail;
    checks.push(Check::from_items(
        "restored",
        format!(
            "{} after {:.1} s: {}; {}",
            if whole {
                "fabric whole again"
            } else {
                "fabric NOT whole"
            },
            took.as_secs_f64(),
            s.summary,
            e.summary
        ),
        vec![Item::new(
            failed,
            if whole { Status::Pass } else { Status::Fail },
            format!("{}; {}", s.summary, e.summary),
        )],
    ));
    let elapsed = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Report::new(
        format!("{} with {failed} down", plan.lab),
        checks,
        elapsed,
        plan.scale.lines(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    #[test]
    fn a_spine_down_expects_its_sessions_down_and_the_predicted_widths() {
        let src = SourceFile::new("lab-small", crate::LAB_SMALL);
        let c = crate::compile_for_platform(&src, crate::model::Platform::Frr);
        let plan = super::super::plan(&c, false).expect("plan");
        let Some(design) = &c.design else {
            panic!("compiled")
        };
        let f = &design.fabric;
        let fails = crate::impact::failures(f, &["spine01".into()], false).expect("known");
        let a = crate::impact::analyse(design, None, &fails);
        let p = expectations(&plan, "spine01", &a.impacts[0]);
        assert!(
            p.sessions
                .iter()
                .all(|s| s.router != "spine01" && s.peer != "spine01")
        );
        // Each leaf's 2 sessions toward spine01 (4 uplinks, 2 per spine) expected down.
        assert_eq!(p.dropped_sessions.len(), plan.dropped_sessions.len() + 4);
        assert!(!p.ecmp.is_empty() && p.ecmp.iter().all(|t| t.width == 2));
        assert!(p.routers.iter().all(|r| r.name != "spine01"));
    }
}
