//! `railyard acceptance`: the plan covers every compute node–leaf and leaf–spine cable with
//! tests that really cross it, and no round uses a link (or a node NIC port) twice (a property
//! over generated clusters, rounds reported against the maximum degree); the parsers read
//! perftest's and nccl-tests' own formats (`tests/fixtures/acceptance/PROVENANCE`); a slow cable
//! is the first suspect; the runners pass hostile names to ssh and mpirun as literal words, and
//! the check's exit codes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use proptest::prelude::*;
use railyard::acceptance::{self, check, model::Plan, parse};
use railyard::diag::SourceFile;
use railyard::model::{Network, Role, Tier};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/acceptance");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).expect("fixture")
}

/// The plan of a spec, and the compute cables of its fabric: (cable id, lower end, upper end).
fn plan_of(text: &str) -> (Plan, BTreeMap<String, (String, String)>) {
    let c = railyard::compile(&SourceFile::new("spec.yaml", text));
    let Some(design) = &c.design else {
        panic!("spec did not compile: {:?}", c.diagnostics.sorted());
    };
    let fabric = &design.fabric;
    let env = railyard::artifacts::nccl_env(design).expect("NCCL environment");
    let plan = acceptance::plan(design, env).expect("GPU nodes");
    let cables = fabric
        .links()
        .filter(|l| l.network == Network::Compute)
        .filter(|l| match l.tier {
            // GPU nodes' ports (appliances such as UFM run no perftest).
            Tier::NodeLeaf => fabric.device_of(&l.a).role == Role::Node,
            Tier::LeafSpine => true,
            _ => false,
        })
        .map(|l| {
            let (a, b) = (fabric.device_of(&l.a), fabric.device_of(&l.b));
            (l.cable_id.clone(), (a.name.clone(), b.name.clone()))
        })
        .collect();
    (plan, cables)
}

/// A lab-small-like cluster of `sus` SUs of `nps` nodes with `rails` 100G NICs, `rpl` rails per
/// leaf.
fn spec(sus: u32, nps: u32, rails: u32, rpl: u32) -> String {
    let nics: String = (0..rails)
        .map(|i| {
            format!(
                "        - {{ports: [ens{i}f0], speed: 100G, form: qsfp28, cage: ens{i}, rdma: mlx5_{i}, numa: 0}}\n"
            )
        })
        .collect();
    format!(
        "name: accept\nscalable_units: {{count: {sus}, nodes_per_su: {nps}, node_model: g}}\n\
         compute:\n  leaf: {{model: sn4600c, rails_per_leaf: {rpl}}}\n  spine: {{model: sn4600c}}\n\
         catalog:\n  nodes:\n    g:\n      vendor: t\n      description: t\n      gpus: {rails}\n      gpu_model: t\n      ru: 1\n      compute:\n{nics}      bmc: {{ports: [bmc], speed: 1G, form: rj45}}\n"
    )
}

/// Every cable covered by a test whose ends and path match the fabric; no link and no node
/// port twice in a round; the maximum degree recomputed from the tests.
fn check_plan(plan: &Plan, cables: &BTreeMap<String, (String, String)>) -> Result<(), String> {
    let mut load: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &plan.rounds {
        let mut links = BTreeSet::new();
        let mut ports = BTreeSet::new();
        for t in &r.tests {
            for e in [&t.server, &t.client] {
                if !ports.insert((e.node.as_str(), e.port_index)) {
                    return Err(format!(
                        "round {}: {} port {} twice",
                        r.index, e.node, e.port_index
                    ));
                }
                let (node, leaf) = cables.get(&e.link).ok_or("an end's link is no cable")?;
                if *node != e.node || *leaf != e.leaf {
                    return Err(format!(
                        "{}: end {} is not on cable {}",
                        t.id, e.node, e.link
                    ));
                }
            }
            // The path: server port, [server leaf → spine, spine ← client leaf,] client port.
            let hops: Vec<&(String, String)> =
                t.links.iter().filter_map(|l| cables.get(l)).collect();
            let ok = match (hops.as_slice(), &t.spine) {
                ([_, _], None) => t.server.leaf == t.client.leaf,
                ([_, up, down, _], Some(s)) => {
                    up.0 == t.server.leaf && down.0 == t.client.leaf && up.1 == *s && down.1 == *s
                }
                _ => false,
            };
            if !ok || t.server.link != t.links[0] || Some(&t.client.link) != t.links.last() {
                return Err(format!(
                    "{}: its links are not a path between its ends",
                    t.id
                ));
            }
            for l in t.links.iter().collect::<BTreeSet<_>>() {
                if !links.insert(l.as_str()) {
                    return Err(format!("round {}: link {l} carries two tests", r.index));
                }
                *load.entry(l).or_default() += 1;
            }
        }
    }
    let missing: Vec<&String> = cables
        .keys()
        .filter(|c| !load.contains_key(c.as_str()))
        .collect();
    // Traffic between the ports of one leaf never goes up: with a single compute leaf its
    // uplinks (and a port alone on it) have no pair that crosses them; the plan says so.
    let single = plan.leaves.len() == 1;
    if !missing.is_empty() && !single {
        return Err(format!("cables no test crosses: {missing:?}"));
    }
    let noted = format!("{} cable(s) no pair", missing.len());
    if !missing.is_empty() && !plan.notes.iter().any(|n| n.starts_with(&noted)) {
        return Err(format!("uncovered cables not noted: {:?}", plan.notes));
    }
    let max = load.values().copied().max().unwrap_or(0);
    // No test at all only where nothing can be paired (one node on one leaf), every cable noted.
    let empty_ok = max == 0 && missing.len() == cables.len();
    if max != plan.schedule.max_degree || plan.schedule.rounds < max || (max == 0 && !empty_ok) {
        return Err(format!("max degree {max}, plan says {:?}", plan.schedule));
    }
    // First fit never needs more rounds than a test has conflicting tests, plus one: each of a
    // test's at most 4 links is in at most max−1 other tests.
    if plan.schedule.rounds > 4 * max.saturating_sub(1) + usize::from(max > 0) {
        return Err(format!(
            "{} rounds for max degree {max}",
            plan.schedule.rounds
        ));
    }
    Ok(())
}

#[test]
fn every_cable_is_covered_and_no_round_uses_a_link_twice() {
    let seen = std::sync::Mutex::new(Vec::new());
    let cases = (1u32..=3, 1u32..=5, prop::sample::select(vec![1u32, 2, 4])).prop_flat_map(
        |(sus, nps, rails)| {
            let rpls: Vec<u32> = (1..=rails).filter(|d| rails % d == 0).collect();
            (
                Just(sus),
                Just(nps),
                Just(rails),
                prop::sample::select(rpls),
            )
        },
    );
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 24,
        ..Default::default()
    });
    runner
        .run(&cases, |(sus, nps, rails, rpl)| {
            let text = spec(sus, nps, rails, rpl);
            let (plan, cables) = plan_of(&text);
            check_plan(&plan, &cables).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            seen.lock()
                .expect("lock")
                .push((sus, nps, rails, rpl, plan.schedule.clone()));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let seen = seen.into_inner().expect("lock");
    for (sus, nps, rails, rpl, s) in &seen {
        eprintln!(
            "{sus} SU x {nps} nodes, {rails} rails ({rpl}/leaf): {} tests, {} rounds, max degree {}",
            s.tests, s.rounds, s.max_degree
        );
    }
    let worst = seen
        .iter()
        .map(|c| c.4.rounds as f64 / c.4.max_degree.max(1) as f64)
        .fold(0.0, f64::max);
    eprintln!("worst rounds / max degree: {worst:.2}");
}

#[test]
fn the_superpod_plan_covers_its_cables_in_few_rounds() {
    let (plan, cables) = plan_of(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/inventories/dgx-superpod-h100.yaml"
        ))
        .expect("inventory"),
    );
    check_plan(&plan, &cables).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("dgx-superpod-h100: {:?}", plan.schedule);
    assert!(
        plan.schedule.rounds <= 2 * plan.schedule.max_degree,
        "{:?}",
        plan.schedule
    );
}

#[test]
fn perftest_output_is_read_in_gbits_and_mib() {
    let g = parse::perftest(&fixture("ib_write_bw_gbits.txt")).expect("gbits");
    assert_eq!((g.bytes, g.iterations), (65536, 4096));
    assert!((g.average_gbps - 365.87).abs() < 1e-9 && (g.peak_gbps - 368.12).abs() < 1e-9);
    let m = parse::perftest(&fixture("ib_write_bw_mib.txt")).expect("mib");
    // 11201.56 MiB/s × 2^20 × 8 / 10^9.
    assert!((m.average_gbps - 93.965).abs() < 0.01, "{}", m.average_gbps);
    assert!(parse::perftest("").is_err());
    let header_only: String = fixture("ib_write_bw_gbits.txt")
        .lines()
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(parse::perftest(&header_only).is_err());
}

#[test]
fn nccl_tests_output_is_read_at_its_largest_size() {
    let r = parse::nccl(&fixture("all_reduce_perf.txt")).expect("nccl");
    assert_eq!(r.bytes, 8589934592);
    assert!((r.busbw - 169.01).abs() < 1e-9);
    assert_eq!(r.avg_busbw, Some(167.035));
    assert_eq!(r.wrong, 0);
    let wrong = fixture("all_reduce_perf.txt").replace(
        "Out of bounds values : 0 OK",
        "Out of bounds values : 3 FAILED",
    );
    assert_eq!(parse::nccl(&wrong).expect("nccl").wrong, 3);
    assert!(parse::nccl("# nothing\n").is_err());
}

#[test]
fn perftest_output_published_in_an_issue_is_read() {
    // linux-rdma/perftest issue #273: `--report_gbits`, 8-byte messages.
    let r = parse::perftest(&fixture("ib_write_bw_perftest_issue273.txt")).expect("issue 273");
    assert_eq!((r.bytes, r.iterations), (8, 224958464));
    assert_eq!((r.peak_gbps, r.average_gbps), (0.0, 0.48));
    // Releases before 24.07 print the MiB/s figures under `[MB/sec]` (perftest commit 1d202bb
    // renamed the header only): the same line reads the same.
    let old = fixture("ib_write_bw_mib.txt").replace("[MiB/sec]", "[MB/sec]");
    let m = parse::perftest(&old).expect("MB/sec header");
    assert!((m.average_gbps - 93.965).abs() < 0.01, "{}", m.average_gbps);
}

#[test]
fn nccl_tests_output_published_by_users_is_read() {
    // coreweave/nccl-tests README: all_reduce_perf on a GB200 NVL72 rack (NCCL 2.26.2).
    let r = parse::nccl(&fixture("all_reduce_perf_coreweave_gb200.txt")).expect("coreweave");
    assert_eq!(r.bytes, 8589934592);
    assert_eq!(r.busbw, 846.82);
    assert_eq!(r.avg_busbw, Some(745.53));
    assert_eq!(r.wrong, 0);
    // NVIDIA/nccl-tests issue #78: an older release (no root column, an `error` deviation column,
    // alltoall with a blank redop).
    let a = parse::nccl(&fixture("nccl_tests_issue78_all_reduce.txt")).expect("issue 78");
    assert_eq!(
        (a.bytes, a.busbw, a.avg_busbw),
        (536870912, 4.32, Some(4.32178))
    );
    assert_eq!(
        a.wrong, 0,
        "2e-06 is a deviation within tolerance, the footer says OK"
    );
    let t = parse::nccl(&fixture("nccl_tests_issue78_alltoall.txt")).expect("issue 78 a2a");
    assert_eq!(
        (t.bytes, t.busbw, t.avg_busbw),
        (536870912, 0.51, Some(0.507636))
    );
    assert_eq!(t.wrong, 0);
    // Open MPI's --tag-output prefix (as in aws/aws-k8s-tester PR #503) is not part of the row.
    let tagged: String = fixture("all_reduce_perf_coreweave_gb200.txt")
        .lines()
        .map(|l| format!("[1,0]<stdout>:{l}\n"))
        .collect();
    let g = parse::nccl(&tagged).expect("tagged");
    assert_eq!(
        (g.bytes, g.busbw, g.avg_busbw),
        (8589934592, 846.82, Some(745.53))
    );
}

#[test]
fn iperf3_json_is_read_from_the_receiver_sum() {
    // Captured from iperf 3.12 here (loopback, `-t 1 --json`): end.sum_received.
    let r = parse::iperf3(&fixture("iperf3_client.json")).expect("iperf3");
    assert_eq!(r.bytes, 1094320128);
    assert!(
        (r.received_gbps - 8.32776316195006).abs() < 1e-9,
        "{}",
        r.received_gbps
    );
    assert_eq!(
        parse::link_gbps(&fixture("iperf3_client.json")),
        Ok(r.received_gbps)
    );
    let e = parse::iperf3(&fixture("iperf3_refused.json")).unwrap_err();
    assert!(e.contains("Connection refused"), "{e}");
    assert!(parse::link_gbps("{}").is_err());
    assert!(parse::link_gbps("{ not json").is_err());
    // perftest text goes to the perftest reader.
    assert_eq!(
        parse::link_gbps(&fixture("ib_write_bw_gbits.txt")),
        Ok(365.87)
    );
}

/// Results of every test: those crossing `slow` at 30% of their figure, the rest at 105%.
fn results(plan: &Plan, slow: &str) -> BTreeMap<String, String> {
    let line = "-".repeat(87);
    let mut out = BTreeMap::new();
    for t in plan.rounds.iter().flat_map(|r| &r.tests) {
        let f = if t.links.iter().any(|l| l == slow) {
            0.3
        } else {
            1.05
        };
        let bw = t.expected_gbps * f;
        out.insert(
            check::link_result(&t.id),
            format!("{line}\n #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536      1000             {bw:.2}             {bw:.2}\t\t     0.100000\n{line}\n"),
        );
    }
    let nccl = fixture("all_reduce_perf.txt");
    for t in &plan.nccl.tests {
        out.insert(check::nccl_result(&t.id), nccl.clone());
    }
    out
}

#[test]
fn a_slow_cable_is_the_first_suspect_and_the_next_test_separates_the_top_two() {
    let (plan, _) = plan_of(&spec(2, 4, 2, 1));
    let tests: Vec<_> = plan.rounds.iter().flat_map(|r| &r.tests).collect();
    let crossing = |l: &str| {
        tests
            .iter()
            .filter(|t| t.links.iter().any(|x| x == l))
            .count()
    };
    let all = check::check(&plan, &results(&plan, "none"));
    assert_eq!(all.verdict, check::Verdict::Passed);
    assert!(all.suspects.is_empty());
    let mut strict = 0;
    for link in &plan.links {
        let r = check::check(&plan, &results(&plan, &link.id));
        assert_eq!(r.verdict, check::Verdict::Short);
        let top = &r.suspects[0];
        assert!(
            top.common && (top.confidence - 1.0).abs() < 1e-9,
            "{}: {top:?}",
            link.id
        );
        if crossing(&link.id) > 1 || r.suspects[1].confidence < 1.0 {
            assert_eq!(top.link, link.id, "{:?}", r.suspects);
            assert_eq!(top.label, link.label);
            strict += 1;
        } else {
            // Tied with a cable only the same test crosses: the next test tells them apart.
            assert!(
                r.suspects
                    .iter()
                    .take_while(|s| s.confidence >= 1.0)
                    .any(|s| s.link == link.id)
            );
            let next = r.next_test.as_ref().expect("a separating test");
            let [a, b] = &next.separates;
            assert!(
                next.links.contains(a) && !next.links.contains(b),
                "{next:?}"
            );
            assert_eq!([a, b].iter().filter(|x| **x == &link.id).count(), 1);
        }
        let racks: Vec<&String> = [&link.a_rack, &link.b_rack].into_iter().flatten().collect();
        if top.link == link.id {
            assert!(racks.iter().all(|r| top.racks.contains(r)), "{top:?}");
        }
    }
    eprintln!("{strict} of {} cables ranked first alone", plan.links.len());
    assert!(strict > 0);
}

/// A directory of stubs for ssh, mpirun and sleep: each records its arguments (one per line)
/// into `$STUB_LOG` and prints the fixture of its tool.
fn stubs(dir: &Path) {
    let stub = |name: &str, fixture: &str| {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$STUB_LOG\"; done\ncat {}\n",
                railyard::output::shell::quote(&Path::new(FIXTURES).join(fixture).display().to_string())
            ),
        )
        .expect("stub");
        Command::new("chmod")
            .arg("755")
            .arg(&p)
            .status()
            .expect("chmod");
    };
    stub("ssh", "ib_write_bw_gbits.txt");
    stub("mpirun", "all_reduce_perf.txt");
    std::fs::write(dir.join("sleep"), "#!/bin/sh\nexit 0\n").expect("sleep");
    Command::new("chmod")
        .arg("755")
        .arg(dir.join("sleep"))
        .status()
        .expect("chmod");
}

#[test]
fn the_runner_passes_hostile_names_as_literal_words_and_its_results_pass_the_check() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (mut plan, _) = plan_of(&spec(1, 2, 2, 1));
    // Names a spec cannot give (the grammar refuses them), set in the plan a user could edit:
    // the runner must still hand each over as one literal word.
    let hostile = [
        "$(touch PWNED)",
        "a'b;touch PWNED",
        "-oProxyCommand=touch PWNED",
    ];
    let nodes: BTreeSet<String> = plan
        .leaves
        .iter()
        .flat_map(|l| l.ports.iter().map(|p| p.node.clone()))
        .collect();
    let names: BTreeMap<String, String> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), format!("{}{n}", hostile[i % hostile.len()])))
        .collect();
    for p in plan.leaves.iter_mut().flat_map(|l| &mut l.ports) {
        p.node = names[&p.node].clone();
    }
    for t in plan.rounds.iter_mut().flat_map(|r| &mut r.tests) {
        t.server.node = names[&t.server.node].clone();
        t.client.node = names[&t.client.node].clone();
    }
    for t in &mut plan.nccl.tests {
        t.nodes = t.nodes.iter().map(|n| names[n].clone()).collect();
    }
    let mut broken = plan.clone();
    broken
        .nccl
        .env
        .insert("NCCL_IB_HCA".into(), "x\ntouch PWNED".into());
    assert!(
        acceptance::files(&broken).is_err(),
        "a line break reached the runner"
    );
    plan.nccl
        .env
        .insert("NCCL_IB_HCA".into(), "=$(touch PWNED)'x".into());
    let files = acceptance::files(&plan).expect("files");
    for f in &files {
        std::fs::write(tmp.path().join(&f.path), &f.bytes).expect("write");
    }
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).expect("bin");
    stubs(&bin);
    let log = tmp.path().join("log");
    let out = Command::new("sh")
        .arg("run.sh")
        .arg("results")
        .current_dir(tmp.path())
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("STUB_LOG", &log)
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!tmp.path().join("PWNED").exists() && !bin.join("PWNED").exists());
    let logged = std::fs::read_to_string(&log).expect("log");
    let words: BTreeSet<&str> = logged.lines().collect();
    for t in plan.rounds.iter().flat_map(|r| &r.tests) {
        // ssh's destination, as one word, after `--`.
        assert!(words.contains(t.server.node.as_str()), "{logged}");
        assert!(words.contains(t.client.node.as_str()), "{logged}");
    }
    let hosts = plan.nccl.tests[0]
        .nodes
        .iter()
        .map(|n| format!("{n}:{}", plan.nccl.tests[0].gpus_per_node))
        .collect::<Vec<_>>()
        .join(",");
    assert!(words.contains(hosts.as_str()), "{logged}");
    // bash reads the Slurm script (its syntax; srun is not run).
    let n = Command::new("bash")
        .arg("-n")
        .arg("acceptance.sbatch")
        .current_dir(tmp.path())
        .status()
        .expect("bash");
    assert!(n.success());
    check_exit_codes(tmp.path(), &plan);
}

/// The results in `dir/results` pass the check against `dir/plan.json` (exit code 0); a slow one
/// names suspects (exit code 1); a result that is not perftest's output is bad input (exit code
/// 3).
fn check_exit_codes(dir: &Path, plan: &Plan) {
    // The results the runner wrote pass the check (the fixtures beat lab-small's figures).
    let cli = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args([
            "acceptance",
            "check",
            "results",
            "--plan",
            "plan.json",
            "--format",
            "json",
        ])
        .current_dir(dir)
        .output()
        .expect("railyard");
    let report: serde_json::Value = serde_json::from_slice(&cli.stdout).expect("json");
    assert_eq!(report["verdict"], "passed", "{report}");
    assert_eq!(cli.status.code(), Some(0));
    // One test far below its figure: suspects named, exit code 1.
    let first = &plan.rounds[0].tests[0].id;
    let slow = fixture("ib_write_bw_gbits.txt").replace("365.87", "1.00");
    std::fs::write(dir.join("results/links").join(format!("{first}.txt")), slow).expect("write");
    let short = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["acceptance", "check", "results", "--plan", "plan.json"])
        .current_dir(dir)
        .output()
        .expect("railyard");
    let text = String::from_utf8_lossy(&short.stdout);
    assert_eq!(short.status.code(), Some(1), "{text}");
    assert!(
        text.contains("suspect cables") && text.contains(first.as_str()),
        "{text}"
    );
    // A result that is not perftest's output: bad input, exit code 3.
    std::fs::write(
        dir.join("results/links").join(format!("{first}.txt")),
        "garbage",
    )
    .expect("write");
    let bad = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["acceptance", "check", "results", "--plan", "plan.json"])
        .current_dir(dir)
        .output()
        .expect("railyard");
    assert_eq!(
        bad.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
}
