//! `railyard acceptance` on a rack-scale system (#41): the NVLink domain, not the 4-GPU tray, is
//! the unit. One NCCL test per rack expects NVLink's bandwidth, the tests across racks take the
//! rack as the node (g = 72), and one IMEX status query per rack must name exactly its trays.
//! Expected figures come from NVIDIA's GB200 RA ("18 compute trays", "72 GPUs", "1.8 TB/s"),
//! not from the plan.

use std::collections::BTreeMap;

use railyard::acceptance::{self, check, model::Plan};
use railyard::diag::SourceFile;

fn plan_and_racks(example: &str) -> (Plan, BTreeMap<String, Vec<String>>) {
    let text = std::fs::read_to_string(format!(
        "{}/inventories/{example}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let c = railyard::compile(&SourceFile::new("spec.yaml", &text));
    let design = c.design.as_ref().expect("compiles");
    let env = railyard::artifacts::nccl_env(design).expect("NCCL environment");
    let plan = acceptance::plan(design, env).expect("GPU nodes");
    // Racks read from the rack column of cabling.csv's BMC cables, not from the plan.
    let only = railyard::output::Selection::of(&[railyard::output::OutputGroup::Cabling]);
    let files = c
        .outputs_only(&railyard::render::Templates::default(), &only)
        .expect("compiled")
        .expect("outputs");
    let csv = files
        .iter()
        .find(|f| f.path == "cabling.csv")
        .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
        .unwrap();
    let mut racks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (dev, port, rack) = (col("a_device"), col("a_port"), col("a_rack"));
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[port] == "bmc" {
            racks
                .entry(f[rack].to_string())
                .or_default()
                .push(f[dev].to_string());
        }
    }
    (plan, racks)
}

#[test]
fn one_nvlink_test_and_one_imex_query_per_rack() {
    let (plan, racks) = plan_and_racks("dgx-superpod-gb200.yaml");
    assert_eq!(plan.imex.len(), racks.len(), "one IMEX query per rack");
    let mut planned: Vec<Vec<String>> = plan.imex.iter().map(|c| c.nodes.clone()).collect();
    let mut expected: Vec<Vec<String>> = racks.into_values().collect();
    for v in planned.iter_mut().chain(expected.iter_mut()) {
        v.sort();
    }
    planned.sort();
    expected.sort();
    assert_eq!(
        planned, expected,
        "each IMEX query names exactly its rack's trays"
    );
    assert!(planned.iter().all(|t| t.len() == 18));
    // "1.8 TB/s" both ways per GPU: 900 GB/s one way, at the plan's stated efficiency.
    let eff = plan.nccl.efficiency;
    let in_rack: Vec<_> = plan
        .nccl
        .tests
        .iter()
        .filter(|t| t.scope.starts_with("rack"))
        .collect();
    assert_eq!(
        in_rack.len(),
        2 * plan.imex.len(),
        "all_reduce and alltoall per rack"
    );
    for t in &in_rack {
        assert_eq!(t.ranks, 72, "{}: all 72 GPUs of the rack", t.id);
        assert!(
            (t.expected_busbw - 900.0 * eff).abs() < 0.01,
            "{}: {}",
            t.id,
            t.expected_busbw
        );
    }
    // Across racks the rack is the node: 72 GPUs share its 18 × 4 × 400G compute ports.
    let cluster = plan
        .nccl
        .tests
        .iter()
        .find(|t| t.id == "alltoall-cluster")
        .expect("a cluster-wide alltoall");
    let (n, g) = (f64::from(cluster.ranks), 72.0);
    let b = 18.0 * 4.0 * 400.0 / 8.0;
    let want = (b * (n - 1.0) / (g * (n - g))).min(900.0) * eff;
    assert!(
        (cluster.expected_busbw - want).abs() < 0.01,
        "{} vs {want}",
        cluster.expected_busbw
    );
}

#[test]
fn imex_status_passes_only_with_every_tray_and_exit_zero() {
    let (plan, _) = plan_and_racks("dgx-superpod-gb200.yaml");
    let first = &plan.imex[0];
    let good: String = first
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| format!("Node #{i} - 10.0.0.{} - {n} - READY\n", i + 1))
        .collect::<String>()
        + "exit=0\n";
    let mut results = BTreeMap::new();
    results.insert(check::imex_result(&first.domain), good.clone());
    let r = check::check(&plan, &results);
    assert_eq!(r.imex[0].status, check::Status::Passed, "{:?}", r.imex[0]);
    assert_eq!(r.imex[1].status, check::Status::Missing);
    // One tray absent from the status: short, and named.
    let gone = &first.nodes[5];
    let short = good.replace(&format!(" {gone} "), " ");
    results.insert(check::imex_result(&first.domain), short);
    let r = check::check(&plan, &results);
    assert_eq!(r.imex[0].status, check::Status::Short);
    assert_eq!(r.imex[0].missing, vec![gone.clone()]);
    // The command failed.
    results.insert(
        check::imex_result(&first.domain),
        good.replace("exit=0", "exit=1"),
    );
    let r = check::check(&plan, &results);
    assert_eq!(r.imex[0].status, check::Status::Short);
    assert_eq!(r.verdict, check::Verdict::Short);
}
