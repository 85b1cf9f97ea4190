//! The acceptance runners' link tests can run: for every example spec (`inventories/*.yaml`),
//! in both runners (`run.sh`, `acceptance.sbatch`), each `pair` line is split into words as the
//! shell splits it (a minimal POSIX splitter below, for the quoting the runners use), and its
//! server and client commands are split again (ssh and `sh -c` hand them to a shell) and read
//! as perftest reads them (github.com/linux-rdma/perftest README and `ib_write_bw --help`):
//! `-p, --port=<port> Listen on/connect to port <port>` (the server listens, the client connects,
//! so both must name one port), `-x, --gid-index` (both ends the same GID index, or neither),
//! `-d, --ib-dev=<dev>` (default: the first device found), and the client's one positional
//! argument, the server's address. Devices are compared with the node model as the spec and the
//! built-in catalog file declare it (YAML read here), and the two devices' ports are shown to
//! meet through the fabric by the build's own `cabling.csv` (same leaf, or leaves under one
//! spine); the runner's own `pair` function is read to run the server command on the server (in
//! the background) before the client command on the client. railyard's `plan.json` is not read.
//!
//! Where a node model names no RDMA device (`dgx-b200`), the runners carry a placeholder no
//! model declares, refuse those tests (the runner is run here with stub ssh/perftest and made
//! to show it), and planning warns RY0910 at the node model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use railyard::diag::SourceFile;
use railyard::output::{OutputGroup, Selection};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// POSIX word splitting for what the runners write: blanks separate words, `'…'` is literal,
/// `\x` outside quotes is `x`. Anything the shell would expand or treat specially outside single
/// quotes (`"`, `$`, a backtick, `;`, `|`, `<`, `>`, `(`) is refused: a runner line must not hold it.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                out.extend(cur.take());
            }
            '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => w.push(x),
                        None => return Err(format!("unterminated quote: {line}")),
                    }
                }
            }
            '\\' => {
                let x = chars.next().ok_or("a trailing backslash")?;
                cur.get_or_insert_with(String::new).push(x);
            }
            '"' | '$' | '`' | ';' | '|' | '<' | '>' | '(' | ')' => {
                return Err(format!("`{c}` outside single quotes: {line}"));
            }
            x => cur.get_or_insert_with(String::new).push(x),
        }
    }
    out.extend(cur);
    Ok(out)
}

/// One end's `ib_write_bw` command as perftest reads it.
#[derive(Debug, Default)]
struct Perftest {
    device: Option<String>,
    gid: Option<String>,
    port: Option<String>,
    positional: Vec<String>,
}

/// Options of `ib_write_bw` that take a value (perftest README), and flags.
const WITH_VALUE: &[&str] = &["-d", "-x", "-p", "-s", "-q", "-D", "-i", "-m", "-n"];
const FLAGS: &[&str] = &["-F", "--report_gbits", "-a", "-b"];

fn perftest(cmd: &str) -> Result<Perftest, String> {
    let w = words(cmd)?;
    if w.first().map(String::as_str) != Some("ib_write_bw") {
        return Err(format!("not ib_write_bw: {cmd}"));
    }
    let mut p = Perftest::default();
    let mut it = w.into_iter().skip(1);
    while let Some(a) = it.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            let v = it
                .next()
                .ok_or_else(|| format!("{a} without a value: {cmd}"))?;
            match a.as_str() {
                "-d" => p.device = Some(v),
                "-x" => p.gid = Some(v),
                "-p" => p.port = Some(v),
                _ => {}
            }
        } else if FLAGS.contains(&a.as_str()) {
        } else if a.starts_with('-') {
            return Err(format!("unknown perftest option {a}: {cmd}"));
        } else {
            p.positional.push(a);
        }
    }
    Ok(p)
}

/// The node model's RDMA devices as the spec (or the built-in catalog file) declares them:
/// device → compute port name.
fn model_devices(spec: &Value) -> (String, BTreeMap<String, String>) {
    let name = spec["scalable_units"]["node_model"]
        .as_str()
        .expect("node_model")
        .to_string();
    let builtin: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("catalog/nodes.yaml")).expect("catalog"),
    )
    .expect("catalog YAML");
    let model = match &spec["catalog"]["nodes"][&name] {
        Value::Null => builtin["nodes"][&name].clone(),
        m => m.clone(),
    };
    let compute = model["compute"].as_array().cloned().unwrap_or_default();
    let port = |nic: usize, k: usize| -> Option<String> {
        compute.get(nic)?["ports"][k].as_str().map(str::to_string)
    };
    let mut out = BTreeMap::new();
    for (i, nic) in compute.iter().enumerate() {
        if let (Some(r), Some(p)) = (nic["rdma"].as_str(), port(i, 0)) {
            out.insert(r.to_string(), p);
        }
    }
    let cpus = model["pcie"]["cpus"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for sw in cpus
        .iter()
        .flat_map(|c| c["switches"].as_array().cloned().unwrap_or_default())
    {
        for n in sw["nics"].as_array().cloned().unwrap_or_default() {
            let nic = n["nic"].as_u64().unwrap_or(u64::MAX) as usize;
            for (k, r) in n["rdma"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                if let (Some(r), Some(p)) = (r.as_str(), port(nic, k)) {
                    out.insert(r.to_string(), p);
                }
            }
        }
    }
    (name, out)
}

/// From `cabling.csv`: (node, port) → compute leaf, and leaf → its compute spines.
type Wiring = (
    BTreeMap<(String, String), String>,
    BTreeMap<String, BTreeSet<String>>,
);

fn wiring(csv: &[u8]) -> Wiring {
    let mut r = csv::Reader::from_reader(csv);
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect(n);
    let (ad, ap, bd, net, tier) = (
        col("a_device"),
        col("a_port"),
        col("b_device"),
        col("network"),
        col("tier"),
    );
    let mut leaf_of = BTreeMap::new();
    let mut spines: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in r.records() {
        let row = row.expect("row");
        if &row[net] != "compute" {
            continue;
        }
        match &row[tier] {
            "node-leaf" => {
                leaf_of.insert(
                    (row[ad].to_string(), row[ap].to_string()),
                    row[bd].to_string(),
                );
            }
            "leaf-spine" => {
                spines
                    .entry(row[ad].to_string())
                    .or_default()
                    .insert(row[bd].to_string());
            }
            _ => {}
        }
    }
    (leaf_of, spines)
}

/// What one runner's link tests showed.
#[derive(Debug, Default)]
struct Tally {
    tests: usize,
    /// Tests whose two devices were shown to meet through `cabling.csv`.
    wired: usize,
    /// Tests carrying a device no model declares (the placeholder).
    placeholder: usize,
    problems: Vec<String>,
}

/// Every `pair` line of a runner: server and client meet on one port, one GID index, the
/// client names the server; devices are the model's (or one placeholder, never none).
fn check_runner(text: &str, devices: &BTreeMap<String, String>, wiring: &Wiring) -> Tally {
    let mut t = Tally::default();
    let mut listening: BTreeSet<(String, String)> = BTreeSet::new();
    let mut placeholders = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("echo round ") {
            listening.clear();
        }
        if !line.starts_with("pair ") {
            continue;
        }
        let mut problem = |m: String| t.problems.push(m);
        let w = match words(line) {
            Ok(w) if w.len() == 7 && w[6] == "&" => w,
            other => {
                problem(format!("not a pair line ({other:?}): {line}"));
                continue;
            }
        };
        let (id, server, client) = (&w[1], &w[2], &w[3]);
        let (s, c) = match (perftest(&w[4]), perftest(&w[5])) {
            (Ok(s), Ok(c)) => (s, c),
            (s, c) => {
                problem(format!("{id}: {:?} {:?}", s.err(), c.err()));
                continue;
            }
        };
        t.tests += 1;
        if s.port.is_none() || s.port != c.port {
            problem(format!(
                "{id}: server -p {:?}, client -p {:?}",
                s.port, c.port
            ));
        }
        if s.gid != c.gid {
            problem(format!("{id}: GID index {:?} vs {:?}", s.gid, c.gid));
        }
        if !s.positional.is_empty() || c.positional != [server.clone()] {
            problem(format!(
                "{id}: client connects to {:?}, server is {server}",
                c.positional
            ));
        }
        if !listening.insert((server.clone(), s.port.clone().unwrap_or_default())) {
            problem(format!(
                "{id}: a second server on {server} port {:?} in one round",
                s.port
            ));
        }
        let ends = [(server, &s.device), (client, &c.device)];
        let mut leaves = Vec::new();
        for (node, dev) in ends {
            match dev {
                None => problem(format!(
                    "{id}: no -d on {node}: perftest takes the first HCA"
                )),
                Some(d) => match devices.get(d) {
                    Some(port) => leaves.push(wiring.0.get(&(node.clone(), port.clone()))),
                    None => {
                        placeholders.insert(d.clone());
                    }
                },
            }
        }
        if s.device.as_ref().is_some_and(|d| !devices.contains_key(d))
            || c.device.as_ref().is_some_and(|d| !devices.contains_key(d))
        {
            t.placeholder += 1;
        }
        if let [Some(a), Some(b)] = leaves[..] {
            let up = |l: &String| wiring.1.get(l).cloned().unwrap_or_default();
            if a == b || !up(a).is_disjoint(&up(b)) {
                t.wired += 1;
            } else {
                problem(format!(
                    "{id}: {server} on {a} and {client} on {b} share no spine"
                ));
            }
        } else if leaves.len() == 2 {
            problem(format!(
                "{id}: a device's port is on no compute leaf in cabling.csv"
            ));
        }
    }
    // `pair ID SERVER CLIENT SERVER_CMD CLIENT_CMD`: the function runs the server command on
    // the server ($4 on $2, in the background) and the client command on the client ($5 on $3).
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("pair() {"))
        .take_while(|l| *l != "}")
        .collect();
    let runs = |host: &str, cmd: &str| {
        body.iter()
            .position(|l| l.contains(&format!("\"{host}\"")) && l.contains(&format!("\"{cmd}\"")))
    };
    match (runs("$2", "$4"), runs("$3", "$5")) {
        (Some(s), Some(c)) if s < c && body[s].trim_end().ends_with('&') => {}
        other => t
            .problems
            .push(format!("pair() does not run server then client: {other:?}")),
    }
    if placeholders.len() > 1 {
        t.problems.push(format!(
            "devices the model does not declare: {placeholders:?} (model: {devices:?})"
        ));
    }
    t
}

#[test]
fn every_examples_runner_tests_meet_on_one_port_device_path_and_gid() {
    let mut examples: Vec<_> = std::fs::read_dir(Path::new(ROOT).join("inventories"))
        .expect("inventories")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 10, "{examples:?}");
    let mut failures = Vec::new();
    for path in &examples {
        let text = std::fs::read_to_string(path).expect("spec");
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let spec: Value = serde_saphyr::from_str(&text).expect("spec YAML");
        let (model, devices) = model_devices(&spec);
        let c = railyard::compile(&SourceFile::new(path.display().to_string(), text));
        let Some(design) = &c.design else {
            panic!("{name} did not compile");
        };
        let files = c
            .outputs_only(
                &railyard::render::Templates::default(),
                &Selection::of(&[OutputGroup::Cabling]),
            )
            .expect("design")
            .expect("outputs");
        let csv = files
            .iter()
            .find(|f| f.path == "cabling.csv")
            .expect("cabling.csv");
        let wiring = wiring(&csv.bytes);
        let env = railyard::artifacts::nccl_env(design).expect("NCCL environment");
        let plan = railyard::acceptance::plan(design, env).expect("GPU nodes");
        let runners = railyard::acceptance::files(&plan).expect("runners");
        for f in runners.iter().filter(|f| f.path != "plan.json") {
            let t = check_runner(&String::from_utf8_lossy(&f.bytes), &devices, &wiring);
            eprintln!(
                "{name} {}: {} tests, {} shown to meet through cabling.csv, {} on a placeholder \
                 device (model {model}: {} RDMA devices declared), {} problems",
                f.path,
                t.tests,
                t.wired,
                t.placeholder,
                devices.len(),
                t.problems.len()
            );
            assert!(t.tests > 0, "{name} {}: no link test", f.path);
            // Every test's path is proven through the cabling, or it carries the placeholder
            // (every test where the model declares no device; refused: the next test runs one).
            let proven = t.wired + t.placeholder;
            if proven != t.tests || (devices.is_empty() && t.placeholder != t.tests) {
                failures.push(format!("{name} {}: {proven} of {} proven", f.path, t.tests));
            }
            failures.extend(
                t.problems
                    .iter()
                    .take(3)
                    .map(|p| format!("{name} {} ({} problems): {p}", f.path, t.problems.len())),
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_word_splitter_reads_what_the_runners_quote() {
    assert_eq!(
        words(r"pair a 'b c' 'it'\''s' x\ y &").expect("words"),
        ["pair", "a", "b c", "it's", "x y", "&"]
    );
    assert!(words("a $(b)").is_err() && words("a 'b").is_err() && words("a \"b\"").is_err());
    // The same words as sh itself splits them.
    let line = r"printf '%s\n' 'b c' 'it'\''s' x\ y";
    let out = Command::new("sh").arg("-c").arg(line).output().expect("sh");
    let sh: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(words(line).expect("words")[2..], sh[..]);
}

/// A cluster of one SU of `nodes` nodes with two 100G NICs on one leaf, the node model naming
/// no RDMA device (as `dgx-b200` in the built-in catalog).
fn spec_without_rdma(nodes: u32) -> String {
    let nic = |i: u32| {
        format!(
            "        - {{ports: [ens{i}f0], speed: 100G, form: qsfp28, cage: ens{i}, numa: 0}}\n"
        )
    };
    format!(
        "name: nordma\nscalable_units: {{count: 1, nodes_per_su: {nodes}, node_model: g}}\n\
         compute:\n  leaf: {{model: sn4600c, rails_per_leaf: 2}}\n  spine: {{model: sn4600c}}\n\
         catalog:\n  nodes:\n    g:\n      vendor: t\n      description: t\n      gpus: 2\n      \
         gpu_model: t\n      ru: 1\n      compute:\n{}{}      bmc: {{ports: [bmc], speed: 1G, form: rj45}}\n",
        nic(0),
        nic(1)
    )
}

/// Stubs: ssh and srun log every argument (one a line) into `$STUB_LOG`, mpirun prints
/// nccl-tests' output (a fixture), sleep does nothing.
fn stubs(bin: &Path) {
    std::fs::create_dir_all(bin).expect("bin");
    let nccl = format!("{ROOT}/tests/fixtures/acceptance/all_reduce_perf.txt");
    let mpirun = format!("cat {}\n", railyard::output::shell::quote(&nccl));
    for (name, body) in [
        (
            "ssh",
            "for a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$STUB_LOG\"; done\n",
        ),
        ("mpirun", mpirun.as_str()),
        ("sleep", "exit 0\n"),
        (
            "srun",
            "for a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$STUB_LOG\"; done\n",
        ),
    ] {
        std::fs::write(bin.join(name), format!("#!/bin/sh\n{body}")).expect("stub");
        Command::new("chmod")
            .arg("755")
            .arg(bin.join(name))
            .status()
            .expect("chmod");
    }
}

#[test]
fn without_an_rdma_device_the_plan_warns_at_the_node_model_and_the_runner_refuses_the_tests() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = spec_without_rdma(4);
    let spec = tmp.path().join("spec.yaml");
    std::fs::write(&spec, &text).expect("spec");
    let plan = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["acceptance", "plan", "--format", "short", "-o", "plan"])
        .arg(&spec)
        .current_dir(tmp.path())
        .output()
        .expect("railyard");
    let err = String::from_utf8_lossy(&plan.stderr);
    assert!(plan.status.success(), "{err}");
    // Located at the node model's value in the spec (line and column counted here, 1-based).
    let line = text
        .lines()
        .position(|l| l.contains("node_model: g"))
        .expect("line")
        + 1;
    let col = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.find("node_model: g"));
    let col = col.expect("col") + "node_model: ".len() + 1;
    let at = format!("spec.yaml:{line}:{col}: warning[RY0910]");
    assert!(err.contains(&at), "no `{at}` in: {err}");
    assert!(err.contains("ens0f0") && err.contains("ens1f0"), "{err}");
    let runner = std::fs::read_to_string(tmp.path().join("plan/run.sh")).expect("run.sh");
    let ids: Vec<String> = runner
        .lines()
        .filter(|l| l.starts_with("pair "))
        .map(|l| words(l).expect("words")[1].clone())
        .collect();
    assert!(ids.len() >= 2, "{runner}");
    let bin = tmp.path().join("bin");
    stubs(&bin);
    let log = tmp.path().join("log");
    // The default results directory: `results` beside run.sh.
    // The runner with the stubs first on PATH, logging into `log`: what it said on stderr.
    let stubbed = |cmd: &mut Command| -> String {
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = cmd
            .env("PATH", path)
            .env("STUB_LOG", &log)
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let refused_all = |said: &str, runner: &str| {
        for id in &ids {
            assert!(
                said.lines()
                    .any(|l| l.starts_with(&format!("{id}: not run")) && l.contains("RY0910")),
                "{id} not refused by {runner}: {said}"
            );
        }
    };
    let said = stubbed(
        Command::new("sh")
            .arg("plan/run.sh")
            .current_dir(tmp.path()),
    );
    refused_all(&said, "run.sh");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!logged.contains("ib_write_bw"), "a link test ran: {logged}");
    // The Slurm runner refuses them the same way (bash runs it as sbatch would, srun a stub that
    // logs its arguments), from the plan directory as its usage says.
    let said = stubbed(
        Command::new("bash")
            .args(["acceptance.sbatch", "slurm-results"])
            .current_dir(tmp.path().join("plan")),
    );
    refused_all(&said, "acceptance.sbatch");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        logged.contains("all_reduce_perf"),
        "srun ran the NCCL tests: {logged}"
    );
    assert!(!logged.contains("ib_write_bw"), "a link test ran: {logged}");
    // The check counts them as not run: INCOMPLETE, exit code 1, no suspect cable.
    let check = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["acceptance", "check", "plan/results", "--format", "json"])
        .current_dir(tmp.path())
        .output()
        .expect("railyard");
    let report: Value = serde_json::from_slice(&check.stdout).expect("json");
    assert_eq!(report["verdict"], "incomplete", "{report}");
    assert_eq!(report["checked"]["without_device"], ids.len(), "{report}");
    assert_eq!(report["suspects"], Value::Array(vec![]));
    assert_eq!(check.status.code(), Some(1));
}
