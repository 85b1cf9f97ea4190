//! `lab verify --fail`: the impact analysis's prediction against the real FRR fabric. Boots the
//! built-in lab-small whole (its 4 nodes and 2 spines are a lab already; `--scale-down` would
//! keep one node per SU and leave no rail pair to ping), takes spine01
//! down through the command line, and checks what FRR and ping show against the prediction:
//! each leaf's ECMP width toward every other leaf drops from 4 to 2 (lab-small: 2 spines, each
//! leaf's 4 uplinks split evenly over them, so one spine down halves it), every rail still
//! reaches, then the restore leaves the fabric whole (every session and all 4 paths back).
//!
//! Needs root, `iproute2`, `frr`, `iputils-ping`; run under `flock /tmp/railyard-lab.lock`
//! (labs share the fixed `rylab` namespace prefix). Without root: a loud skip (`tests/prereq`).

use std::fs::File;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use railyard::lab::{self, Status};
use serde_json::Value;

use crate::lab_support;
use crate::prereq;

use lab_support::{LOCK, say};

fn boot() -> lab_support::Running {
    lab_support::boot("railyard-impact-lab-").0
}

fn check<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no check {name} in {r}"))
}

fn fail_through_the_cli(dir: &Path, device: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args([
            "lab", "verify", "--format", "json", "--fail", device, "--state",
        ])
        .arg(dir)
        .output()
        .expect("railyard runs");
    say(&String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert!(out.status.success(), "verify --fail failed: {r:#}");
    r
}

#[test]
fn a_spine_down_narrows_ecmp_as_predicted_and_the_restore_makes_the_fabric_whole() {
    let test = "a_spine_down_narrows_ecmp_as_predicted_and_the_restore_makes_the_fabric_whole";
    if !prereq::root(test) {
        return;
    }
    let lock = File::create(LOCK).expect("lock file");
    lock.lock().expect("lab lock");
    let t = Instant::now();
    let mut g = boot();
    let up = t.elapsed();
    let r = fail_through_the_cli(&g.0, "spine01");
    let ecmp = check(&r, "ecmp");
    assert_eq!(ecmp["status"], "pass", "{ecmp:#}");
    let items = ecmp["items"].as_array().expect("items");
    // The compute leaves (the in-band leaf has no uplink: no ECMP target).
    assert!(!items.is_empty());
    for i in items {
        let d = i["detail"].as_str().unwrap_or_default();
        assert!(d.starts_with("2 paths"), "{i}");
    }
    assert_eq!(check(&r, "bgp-sessions")["status"], "pass");
    assert_eq!(check(&r, "rail-reachability")["status"], "pass");
    assert_eq!(check(&r, "restored")["status"], "pass");
    // Whole again: the plain verify, every uplink in use.
    let whole = lab::verify(&g.0, &mut |_| {}).expect("verify");
    assert!(whole.passed, "{}", whole.to_text());
    let e = whole
        .checks
        .iter()
        .find(|c| c.name == "ecmp")
        .expect("ecmp");
    assert!(
        e.items
            .iter()
            .all(|i| i.status == Status::Pass && i.detail.starts_with("4 paths"))
    );
    let s = lab::down(&g.0, &mut |_| {}).expect("down");
    g.1 = true;
    assert!(s.leftovers.is_empty(), "{:?}", s.leftovers);
    say(&format!(
        "impact lab: up {:.1} s, total {:.1} s",
        up.as_secs_f64(),
        t.elapsed().as_secs_f64()
    ));
}
