//! The acceptance analysis proven end to end in the lab: lab-small booted whole, the acceptance
//! plan's link rounds run by `railyard lab accept` (iperf3 between the nodes' NICs in place of
//! ib_write_bw, every round's tests at once), then `railyard acceptance check` on what it wrote.
//! A clean run passes every test and names no suspect; with one node–leaf cable slowed by `tc`
//! (`--degrade`, a tenth of the lab's pass mark) the check's first suspect is exactly that cable,
//! its label and racks as the plan's cabling gives them (not as the check prints them), and the
//! crossings of that cable are proven by its veth counters, not assumed.
//!
//! Needs root, `iproute2` (ip, tc), `frr`, `iperf3`; run under `flock /tmp/railyard-lab.lock`
//! (labs share the fixed `rylab` namespace prefix). Without them: `tests/prereq`'s policy.

use std::fs::File;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use railyard::acceptance::model::{LinkKind, Plan};
use railyard::lab;
use serde_json::Value;

use crate::lab_support;
use crate::prereq;

use lab_support::{LOCK, say};

/// lab-small booted whole, and its acceptance plan (as `lab accept` computes it).
fn boot() -> (lab_support::Running, Plan) {
    let (guard, c) = lab_support::boot("railyard-acceptance-lab-");
    let design = c.design.as_ref().expect("compiled");
    let env = railyard::artifacts::nccl_env(design).expect("NCCL environment");
    let plan = railyard::acceptance::plan(design, env).expect("GPU nodes");
    (guard, plan)
}

fn railyard(args: &[&str], paths: &[&Path]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .args(paths)
        .output()
        .expect("railyard runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{err}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), v, err)
}

/// `lab accept` into `out`; its summary.
fn accept(state: &Path, out: &Path, degrade: Option<&str>) -> Value {
    let mut args = vec!["lab", "accept", "--format", "json", "--seconds", "1"];
    if let Some(d) = degrade {
        args.extend(["--degrade", d]);
    }
    let (code, summary, err) = railyard(
        &args,
        &[Path::new("--state"), state, Path::new("--out"), out],
    );
    say(&err);
    assert!(code == 0 || code == 1, "lab accept failed ({code}): {err}");
    assert_eq!(summary["failed"], Value::Array(vec![]), "{summary:#}");
    summary
}

/// `acceptance check` of `lab accept`'s results, against the lab plan it wrote beside them
/// (named with `--plan`: no acceptance directory's manifest vouches for it).
fn check(results: &Path) -> (i32, Value) {
    let plan = results.join("plan.json");
    let (code, r, err) = railyard(
        &["acceptance", "check", "--format", "json"],
        &[results, Path::new("--plan"), &plan],
    );
    say(&err);
    (code, r)
}

#[test]
fn the_check_names_the_degraded_cable_first_and_a_clean_run_flags_nothing() {
    let test = "the_check_names_the_degraded_cable_first_and_a_clean_run_flags_nothing";
    if !prereq::root(test)
        || prereq::program(test, "iperf3", "iperf3").is_none()
        || prereq::program(test, "tc", "iproute2").is_none()
    {
        return;
    }
    let lock = File::create(LOCK).expect("lock file");
    lock.lock().expect("lab lock");
    let t = Instant::now();
    let (mut g, plan) = boot();
    let up = t.elapsed();
    let work = tempfile::tempdir().expect("tempdir");

    // Clean: every test reaches the lab's pass mark, nothing is suspected.
    let clean = work.path().join("clean");
    let s = accept(&g.0, &clean, None);
    assert!(s["tests"].as_u64().unwrap_or(0) > 0, "{s:#}");
    // The whole lab-small: every test of the plan runs (so the plan's tests are the lab's).
    assert_eq!(s["left_out"], 0, "{s:#}");
    let (code, r) = check(&clean);
    assert_eq!(r["verdict"], "passed", "{r:#}");
    assert_eq!(code, 0);
    assert_eq!(r["suspects"], Value::Array(vec![]));

    // The first node–leaf cable of the plan's cabling, slowed: named by its label.
    let cable = plan
        .links
        .iter()
        .find(|l| l.kind == LinkKind::NodeLeaf)
        .expect("a node-leaf cable");
    let racks: Vec<&str> = [&cable.a_rack, &cable.b_rack]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let slow = work.path().join("slow");
    let s = accept(&g.0, &slow, Some(&cable.label));
    assert_eq!(s["degraded"], cable.id.as_str(), "{s:#}");
    let unproven: Vec<&Value> = s["unproven"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|u| u["link"] == cable.id.as_str())
        .collect();
    assert!(
        unproven.is_empty(),
        "the degraded cable's tests did not cross it: {unproven:?}"
    );
    let (code, r) = check(&slow);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["verdict"], "short");
    let first = &r["suspects"][0];
    assert_eq!(first["label"], cable.label.as_str(), "{r:#}");
    assert_eq!(first["link"], cable.id.as_str());
    assert_eq!(first["racks"], serde_json::json!(racks));
    assert_eq!(first["common"], true, "{first:#}");
    // Every test through the cable fell short, and only those.
    let through: Vec<&str> = plan
        .rounds
        .iter()
        .flat_map(|r| &r.tests)
        .filter(|t| t.links.contains(&cable.id))
        .map(|t| t.id.as_str())
        .collect();
    let short: Vec<&str> = r["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["status"] == "short")
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert_eq!(short, through, "{r:#}");

    let d = lab::down(&g.0, &mut |_| {}).expect("down");
    g.1 = true;
    assert!(d.leftovers.is_empty(), "{:?}", d.leftovers);
    say(&format!(
        "acceptance lab: up {:.1} s, total {:.1} s",
        up.as_secs_f64(),
        t.elapsed().as_secs_f64()
    ));
}
