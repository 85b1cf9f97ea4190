//! `push --plan PLAN` (#47 item 7): a reviewed plan (`railyard diff OLD NEW --out PLAN`) is
//! applied only to the build it was made from, as `terraform apply PLANFILE`. Against real
//! yuma123 `netconfd` targets behind real sshd (as `push_rendered.rs`): the lab-small switches'
//! rendered `openconfig.xml`. A build changed after the plan (the spec edited and built again)
//! is refused before any device is contacted, the devices keep their running config; the build
//! the plan names (the reviewed spec built again: byte-identical) is pushed and confirmed, and
//! reads back as rendered. Needs root. A spec compiled by push is held to the plan the same way
//! (no device needed: refused before connecting).

use crate::push_support;

use std::path::Path;
use std::process::Command;

use push_support::{
    Fabric, build, confirmed_as_rendered, devices_with, lab_small_on, require_root, run_push,
    running_is,
};

const PASSPHRASE: &str = "reviewed-plan-passphrase-2718";
const STARTUP: &str = "<config/>";

/// The spec with its NVUE switches also loaded over NETCONF (their `openconfig.xml` rendered).
fn over_netconf(dir: &Path) -> std::path::PathBuf {
    let spec = lab_small_on("nvue", dir);
    let mut text = std::fs::read_to_string(&spec).expect("spec");
    text.push_str("\npush:\n  netconf: [nvue]\n");
    std::fs::write(&spec, text).expect("spec");
    spec
}

/// `railyard diff OLD NEW --missing-is-empty --out PLAN`: the plan of a first rollout.
fn plan(dir: &Path, new: &Path, kind: &str) -> std::path::PathBuf {
    let plan = dir.join("plan.json");
    let o = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("diff")
        .arg(dir.join("nothing-yet.yaml"))
        .arg(new)
        .args(["--missing-is-empty", "--format", "json", "--out"])
        .arg(&plan)
        .output()
        .expect("railyard diff");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).expect("plan")).expect("JSON");
    assert_eq!(p["format"], "railyard/plan/v1");
    assert_eq!(p["new"]["kind"], kind, "{}", p["new"]);
    plan
}

#[test]
fn push_applies_a_plan_only_to_the_build_it_was_made_from() {
    if !require_root("push_applies_a_plan_only_to_the_build_it_was_made_from") {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let s = scratch.path();
    let spec = over_netconf(s);
    let reviewed = std::fs::read_to_string(&spec).expect("spec");
    let out = s.join("out");
    build(&spec, &out);
    let plan = plan(s, &out, "build");
    let devices: Vec<String> = devices_with(&out, "openconfig.xml")
        .into_iter()
        .filter(|d| d.starts_with("spine") || d.starts_with("leaf"))
        .collect();
    assert!(devices.len() >= 2, "{devices:?}");
    let roles: Vec<(&str, &str)> = devices
        .iter()
        .map(|d| {
            (
                d.as_str(),
                if d.starts_with("spine") {
                    "spine"
                } else {
                    "leaf"
                },
            )
        })
        .collect();
    let fabric = Fabric::start(&roles, STARTUP, PASSPHRASE);
    std::fs::write(
        s.join("targets.yaml"),
        fabric.targets_yaml("RY_TEST_PASSPHRASE"),
    )
    .expect("targets");
    let (from, plan_arg) = (out.to_str().expect("utf-8"), plan.to_str().expect("utf-8"));

    // Changed after review (another cluster name in the spec): another build.
    let changed = reviewed.replace("name: lab-small", "name: lab-small-2");
    assert_ne!(changed, reviewed);
    std::fs::write(&spec, &changed).expect("spec");
    build(&spec, &out);
    let r = run_push(
        s,
        &["--from", from, "--plan", plan_arg],
        &[],
        Some(PASSPHRASE),
    );
    assert_eq!(r.code, 3, "a changed build is refused at preflight");
    assert!(r.stderr.contains("refusing to push"), "{}", r.stderr);
    assert!(!r.stdout.contains("Confirmed"), "{}", r.stdout);
    for d in &devices {
        assert!(running_is(fabric.lab(d), STARTUP), "{d} was touched");
    }

    // The reviewed spec built again: byte-identical, the plan's build.
    std::fs::write(&spec, &reviewed).expect("spec");
    build(&spec, &out);
    let r = run_push(
        s,
        &[
            "--from",
            from,
            "--plan",
            plan_arg,
            "--confirm-timeout",
            "120",
        ],
        &[],
        Some(PASSPHRASE),
    );
    assert_eq!(r.code, 0, "the reviewed build was not pushed: {}", r.stderr);
    confirmed_as_rendered(&r, &fabric, &out, &devices);
}

#[test]
fn a_spec_push_is_held_to_the_plan_too() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let s = scratch.path();
    let spec = over_netconf(s);
    let plan = plan(s, &spec, "spec");
    // A device nobody listens for: a push that got past the plan check would fail connecting.
    std::fs::write(
        s.join("targets.yaml"),
        "defaults: {user: root, driver: netconf}\ndevices:\n  spine01: {address: 127.0.0.1, port: 9, role: spine}\n",
    )
    .expect("targets");
    let reviewed = std::fs::read_to_string(&spec).expect("spec");
    let edited = format!("{reviewed}\n# edited after review\n");
    std::fs::write(&spec, edited).expect("spec");
    let push_spec = || {
        let args = [
            spec.to_str().expect("utf-8"),
            "--plan",
            plan.to_str().expect("utf-8"),
        ];
        run_push(s, &args, &[], None)
    };
    let r = push_spec();
    assert_eq!(r.code, 3);
    assert!(
        r.stderr.contains("refusing to push the spec"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("spec SHA-256"), "{}", r.stderr);

    // The reviewed spec passes the plan (and then fails to reach the device nobody serves).
    std::fs::write(&spec, &reviewed).expect("spec");
    let r = push_spec();
    assert!(!r.stderr.contains("refusing to push"), "{}", r.stderr);
    assert!(
        r.stderr.contains("spine01"),
        "it went on to the device: {}",
        r.stderr
    );
}
