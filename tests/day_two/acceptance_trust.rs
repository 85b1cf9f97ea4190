//! `railyard acceptance check` trusts only what it can verify: the plan it goes by is the
//! acceptance directory's `plan.json`, checked against that directory's `manifest.json`
//! (SHA-256, computed here), never the copy the runners leave among the results (it comes back
//! from the nodes with them); a copy that differs is refused; a plan with no tests is not a pass;
//! it says what it checked and which files it ignored. The plan directory is written by the real
//! command from a spec written here; the test counts are the runner's own `pair` lines, and the
//! results are perftest's and nccl-tests' published output (`tests/fixtures/acceptance`).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/acceptance");

/// Two SUs of four nodes with two 100G NICs each, one rail per leaf.
fn spec() -> String {
    let nic = |i: u32| {
        format!(
            "        - {{ports: [ens{i}f0], speed: 100G, form: qsfp28, cage: ens{i}, rdma: mlx5_{i}, numa: 0}}\n"
        )
    };
    format!(
        "name: trust\nscalable_units: {{count: 2, nodes_per_su: 4, node_model: g}}\n\
         compute:\n  leaf: {{model: sn4600c, rails_per_leaf: 1}}\n  spine: {{model: sn4600c}}\n\
         catalog:\n  nodes:\n    g:\n      vendor: t\n      description: t\n      gpus: 2\n      \
         gpu_model: t\n      ru: 1\n      compute:\n{}{}      bmc: {{ports: [bmc], speed: 1G, form: rj45}}\n",
        nic(0),
        nic(1)
    )
}

fn railyard(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("railyard runs")
}

/// `acceptance check … --format json`: exit code, report (Null when refused), stderr.
fn check(dir: &Path, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["acceptance", "check", "--format", "json"];
    all.extend(args);
    let out = railyard(dir, &all);
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), v, err)
}

/// The test ids of a runner: the second word of each `pair` line (ids are plain words).
fn pair_ids(runner: &str) -> Vec<String> {
    runner
        .lines()
        .filter(|l| l.starts_with("pair "))
        .filter_map(|l| l.split(' ').nth(1).map(str::to_string))
        .collect()
}

/// The NCCL test ids of a runner: `>"$results/nccl/"ID.txt`.
fn nccl_ids(runner: &str) -> Vec<String> {
    runner
        .lines()
        .filter_map(|l| l.split("\"$results/nccl/\"").nth(1))
        .filter_map(|r| r.split(".txt").next().map(str::to_string))
        .collect()
}

/// `sh run.sh` as the runner would leave it: every result (published perftest and nccl-tests
/// output, far above a 100G figure) and the plan's copy.
fn results(acc: &Path, out: &Path, links: &[String], nccl: &[String]) {
    let perftest = std::fs::read(Path::new(FIXTURES).join("ib_write_bw_gbits.txt")).expect("fx");
    let nccl_out = std::fs::read(Path::new(FIXTURES).join("all_reduce_perf.txt")).expect("fx");
    std::fs::create_dir_all(out.join("links")).expect("links");
    std::fs::create_dir_all(out.join("nccl")).expect("nccl");
    for id in links {
        std::fs::write(out.join(format!("links/{id}.txt")), &perftest).expect("write");
    }
    for id in nccl {
        std::fs::write(out.join(format!("nccl/{id}.txt")), &nccl_out).expect("write");
    }
    std::fs::copy(acc.join("plan.json"), out.join("plan.json")).expect("copy");
}

/// `plan` with every second link test removed (the schedule's count adjusted to match).
fn halved(plan: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut v: Value = serde_json::from_slice(plan).expect("plan JSON");
    let mut removed = Vec::new();
    let mut kept = 0;
    for round in v["rounds"].as_array_mut().expect("rounds") {
        let tests = round["tests"].as_array_mut().expect("tests");
        let mut i = 0;
        tests.retain(|t| {
            i += 1;
            let keep = i % 2 == 1;
            if !keep {
                removed.push(t["id"].as_str().unwrap_or_default().to_string());
            }
            keep
        });
        kept += tests.len();
    }
    v["schedule"]["tests"] = kept.into();
    (serde_json::to_vec_pretty(&v).expect("JSON"), removed)
}

#[test]
fn the_check_goes_by_the_verified_plan_refuses_a_different_copy_and_names_ignored_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    std::fs::write(dir.join("spec.yaml"), spec()).expect("spec");
    let made = railyard(dir, &["acceptance", "plan", "spec.yaml", "-o", "acc"]);
    assert!(made.status.success(), "{made:?}");
    let acc = dir.join("acc");
    let runner = std::fs::read_to_string(acc.join("run.sh")).expect("run.sh");
    let (links, nccl) = (pair_ids(&runner), nccl_ids(&runner));
    assert!(links.len() >= 8 && !nccl.is_empty(), "{runner}");
    // The manifest records the plan's SHA-256 (computed here with sha256sum's algorithm).
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(acc.join("manifest.json")).expect("manifest"))
            .expect("manifest JSON");
    let plan_bytes = std::fs::read(acc.join("plan.json")).expect("plan");
    let recorded = manifest["files"]
        .as_array()
        .and_then(|f| f.iter().find(|e| e["path"] == "plan.json"))
        .map(|e| e["sha256"].clone());
    assert_eq!(recorded, Some(Value::from(sha256(&plan_bytes))));

    let out = acc.join("results");
    results(&acc, &out, &links, &nccl);
    let (code, r, err) = check(&acc, &["results"]);
    assert_eq!(code, Some(0), "{r} {err}");
    assert_eq!(r["verdict"], "passed");
    assert_eq!(r["checked"]["link_tests"], links.len());
    assert_eq!(r["checked"]["nccl_tests"], nccl.len());
    assert_eq!(r["checked"]["results_read"], links.len() + nccl.len());
    assert!(
        r["plan"]
            .as_str()
            .is_some_and(|p| p.contains("verified against") && p.contains(&sha256(&plan_bytes))),
        "{r}"
    );
    assert_eq!(r["ignored"], Value::Array(vec![]));

    // Files the plan names no test for are read by nobody, and said so.
    std::fs::write(out.join("links/r99-t9999.txt"), "x").expect("write");
    std::fs::write(out.join("notes.txt"), "x").expect("write");
    let (code, r, _) = check(&acc, &["results"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        r["ignored"],
        serde_json::json!(["links/r99-t9999.txt", "notes.txt"])
    );
    let text = railyard(&acc, &["acceptance", "check", "results"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("ignored (2 files") && text.contains("links/r99-t9999.txt"),
        "{text}"
    );

    // The copy among the results with half its tests removed (and their results gone): before,
    // PASSED from the copy; now refused, the copy differs from the verified plan.
    let (half, removed) = halved(&plan_bytes);
    std::fs::write(out.join("plan.json"), &half).expect("write");
    for id in &removed {
        std::fs::remove_file(out.join(format!("links/{id}.txt"))).expect("rm");
    }
    let (code, r, err) = check(&acc, &["results"]);
    assert_eq!(code, Some(3), "{r} {err}");
    assert!(err.contains("differs from the plan"), "{err}");
    // Against the verified plan, with the copy out of the way: the missing half is INCOMPLETE.
    std::fs::remove_file(out.join("plan.json")).expect("rm");
    let (code, r, _) = check(&acc, &["results"]);
    assert_eq!((code, &r["verdict"]), (Some(1), &Value::from("incomplete")));

    // The reference itself edited: refused against its manifest.
    std::fs::write(acc.join("plan.json"), &half).expect("write");
    let (code, _, err) = check(&acc, &["results"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("SHA-256 differs"), "{err}");
    std::fs::write(acc.join("plan.json"), &plan_bytes).expect("restore");

    // Results elsewhere: no manifest beside them, no trust; `--plan DIR` names the directory.
    let away = dir.join("away");
    results(&acc, &away, &links, &nccl);
    let (code, _, err) = check(dir, &["away"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("--plan"), "{err}");
    let (code, r, _) = check(dir, &["away", "--plan", "acc"]);
    assert_eq!((code, &r["verdict"]), (Some(0), &Value::from("passed")));
}

#[test]
fn a_plan_without_tests_or_with_a_doctored_count_is_never_a_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    std::fs::write(dir.join("spec.yaml"), spec()).expect("spec");
    let made = railyard(dir, &["acceptance", "plan", "spec.yaml", "-o", "acc"]);
    assert!(made.status.success(), "{made:?}");
    let mut plan: Value =
        serde_json::from_slice(&std::fs::read(dir.join("acc/plan.json")).expect("plan"))
            .expect("JSON");
    std::fs::create_dir_all(dir.join("results")).expect("results");

    // No tests at all, named with --plan and left as the copy: INCOMPLETE, exit code 3.
    let mut empty = plan.clone();
    empty["rounds"] = Value::Array(vec![]);
    empty["nccl"]["tests"] = Value::Array(vec![]);
    empty["schedule"]["tests"] = 0.into();
    let bytes = serde_json::to_vec(&empty).expect("JSON");
    std::fs::write(dir.join("empty.json"), &bytes).expect("write");
    std::fs::write(dir.join("results/plan.json"), &bytes).expect("write");
    let (code, r, err) = check(dir, &["results", "--plan", "empty.json"]);
    assert_eq!(code, Some(3), "{r} {err}");
    assert_eq!(r["verdict"], "incomplete");
    assert_eq!(
        r["checked"],
        serde_json::json!({"link_tests": 0, "cables": 0, "nccl_tests": 0, "results_read": 0, "without_device": 0})
    );
    let text = railyard(
        dir,
        &["acceptance", "check", "results", "--plan", "empty.json"],
    );
    assert_eq!(text.status.code(), Some(3));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("nothing was checked"), "{text}");

    // Tests removed but the schedule's count left: the plan contradicts itself, bad input.
    let rounds = plan["rounds"].as_array_mut().expect("rounds");
    rounds.truncate(1);
    std::fs::write(
        dir.join("doctored.json"),
        serde_json::to_vec(&plan).expect("JSON"),
    )
    .expect("write");
    std::fs::remove_file(dir.join("results/plan.json")).expect("rm");
    let (code, r, _) = check(dir, &["results", "--plan", "doctored.json"]);
    assert_eq!((code, &r["verdict"]), (Some(3), &Value::from("bad-input")));
}

/// SHA-256 as `sha256sum` prints it (the coreutils tool, not railyard's digest).
fn sha256(bytes: &[u8]) -> String {
    let tmp = tempfile::NamedTempFile::new().expect("tmp");
    std::fs::write(tmp.path(), bytes).expect("write");
    let out = Command::new("sha256sum")
        .arg(tmp.path())
        .output()
        .expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}
