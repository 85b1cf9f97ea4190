//! The virtual lab for real: network namespaces, veth pairs named as the cabling plan's ports,
//! FRR 8.4 running the configs railyard rendered for the `frr` platform (LAB-NOTES.md).
//!
//! Needs root, `iproute2`, `frr` and `iputils-ping`
//! (`apt-get install -y --no-install-recommends frr iputils-ping`). Without root a test fails
//! unless `RAILYARD_SKIP=root` opts out on purpose (`tests/prereq`); a missing package fails the
//! test with the apt line. Labs share the fixed `rylab`
//! namespace prefix, so the tests take a file lock and run one lab at a time, also against
//! other test binaries. Each test ends with `down` and checks that nothing is left: no `rylab`
//! namespace, no process, no file (state directory, FRR's per-process directories).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use railyard::diag::SourceFile;
use railyard::lab::{self, Report, Status, UpOptions, UpSummary};
use railyard::model::Platform;
use railyard::output::{OutputGroup, Selection};

use crate::prereq;

/// Serialises labs across test threads and test processes (inside `target/`, not /tmp).
const LOCK: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/railyard-lab-tests.lock");

/// Straight to stderr: the test harness captures `eprintln!`, and a skip must not be silent.
fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// The lock, or `None` after a loud skip line when the lab cannot run here (not root).
fn lab_env(test: &str) -> Option<File> {
    if !prereq::root(test) {
        return None;
    }
    for (tool, package) in [
        ("/usr/sbin/ip", "iproute2"),
        ("/usr/bin/vtysh", "frr"),
        ("/usr/lib/frr/zebra", "frr"),
        ("/usr/lib/frr/bgpd", "frr"),
        ("/usr/bin/ping", "iputils-ping"),
    ] {
        assert!(
            Path::new(tool).exists() || which(tool),
            "`{tool}` is missing: apt-get install -y --no-install-recommends {package}"
        );
    }
    let f = File::create(LOCK).expect("lock file");
    f.lock().expect("lab test lock");
    Some(f)
}

fn which(tool: &str) -> bool {
    let name = tool.rsplit('/').next().unwrap_or(tool);
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

fn inventory(name: &str) -> String {
    std::fs::read_to_string(format!("{}/inventories/{name}", env!("CARGO_MANIFEST_DIR")))
        .expect("inventory")
}

/// A fresh, empty state directory under /tmp (traversable: `up` makes it 0755).
fn state_dir() -> PathBuf {
    tempfile::Builder::new()
        .prefix("railyard-lab-test-")
        .tempdir()
        .expect("tempdir")
        .keep()
}

/// Runs `down` when a test fails half-way, so a failed test leaves nothing behind either.
struct Running {
    dir: PathBuf,
    done: bool,
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.done {
            let _ = lab::down(&self.dir, &mut |_| {});
        }
    }
}

/// What must be gone after `down`, read from the state before it.
struct Traces {
    dir: PathBuf,
    pids: Vec<u32>,
    frr_dirs: Vec<PathBuf>,
    created: Vec<PathBuf>,
    run_mount_existed: bool,
}

fn traces(dir: &Path, run_mount_existed: bool) -> Traces {
    let st = lab::state::read(dir)
        .expect("state readable")
        .expect("state present");
    Traces {
        dir: dir.to_path_buf(),
        pids: st.pids.values().flatten().map(|(_, p)| *p).collect(),
        frr_dirs: st.frr_state_dirs.clone(),
        created: st.created_dirs.clone(),
        run_mount_existed,
    }
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, r)| r.trim().chars().next())
        })
        .is_some_and(|c| !matches!(c, 'Z' | 'X'))
}

/// Processes whose command line names `needle`.
fn processes_naming(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let pid = e.file_name().to_string_lossy().into_owned();
                    if !pid.chars().all(|c| c.is_ascii_digit()) || pid == me {
                        return None;
                    }
                    let c = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                    let s = String::from_utf8_lossy(&c).replace('\0', " ");
                    (s.contains(needle) && running(pid.parse().ok()?))
                        .then(|| format!("{pid}: {s}"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Nothing of the lab is left: namespaces, processes, files.
fn assert_clean(t: &Traces) {
    let ns = lab::netns::lab_namespaces();
    assert!(ns.is_empty(), "namespaces left behind: {ns:?}");
    let alive: Vec<u32> = t.pids.iter().copied().filter(|p| running(*p)).collect();
    assert!(alive.is_empty(), "daemons still running: {alive:?}");
    let named = processes_naming(&t.dir.to_string_lossy());
    assert!(named.is_empty(), "processes naming the lab dir: {named:?}");
    assert!(
        !t.dir.exists(),
        "state directory {} left behind",
        t.dir.display()
    );
    // FRR's per-process directories (`<daemon>.<n>`, n just below the daemon's pid; holding
    // `logbuf.<pid>` while it runs).
    if let Ok(entries) = std::fs::read_dir("/var/tmp/frr") {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let n: Option<u32> = name.rsplit_once('.').and_then(|(_, n)| n.parse().ok());
            for p in &t.pids {
                let near = n.is_some_and(|n| n <= *p && p - n <= 8);
                let holds = e.path().join(format!("logbuf.{p}")).exists();
                assert!(
                    !near && !holds,
                    "FRR directory /var/tmp/frr/{name} of lab daemon {p} left behind"
                );
            }
        }
    }
    for d in &t.frr_dirs {
        assert!(
            !d.exists(),
            "FRR state directory {} left behind",
            d.display()
        );
    }
    for d in &t.created {
        let empty_and_there = d.exists()
            && std::fs::read_dir(d)
                .map(|mut r| r.next().is_none())
                .unwrap_or(false);
        assert!(
            !empty_and_there,
            "{} created by the lab and left empty",
            d.display()
        );
    }
    if !t.run_mount_existed {
        assert!(
            !Path::new("/run/mount").exists(),
            "/run/mount created by the lab"
        );
    }
}

fn railyard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .output()
        .expect("railyard runs")
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Compile for FRR, plan, boot. Progress goes to the terminal.
fn boot(
    name: &str,
    text: &str,
    scale_down: bool,
    stall: Option<Duration>,
) -> (Running, UpSummary, Duration) {
    let c = railyard::compile_for_platform(&SourceFile::new(name, text), Platform::Frr);
    // The lab reads the rendered switch configs only: the report is not rendered.
    let configs_only = Selection::of(&[OutputGroup::Configs]);
    let files = match c.outputs_only(&railyard::render::Templates::default(), &configs_only) {
        Some(Ok(f)) => f,
        Some(Err(e)) => panic!("{name}: render failed: {e}"),
        None => panic!("{name}: did not compile"),
    };
    let plan = lab::plan(&c, scale_down).expect("lab plan");
    let configs = lab::configs(&plan, &files).expect("rendered configs");
    let dir = state_dir();
    let guard = Running {
        dir: dir.clone(),
        done: false,
    };
    let mut opts = UpOptions::new(&dir, name);
    if let Some(s) = stall {
        opts.stall = s;
    }
    let t = Instant::now();
    let mut progress = |m: &str| say(&format!("  [{name}] {m}"));
    let s = lab::up(plan, &configs, &opts, &mut progress).expect("lab up");
    (guard, s, t.elapsed())
}

fn verify(dir: &Path) -> (Report, Duration) {
    let t = Instant::now();
    let r = lab::verify(dir, &mut |_| {}).expect("verify runs");
    (r, t.elapsed())
}

fn down(g: &mut Running) -> Duration {
    let t = Instant::now();
    let s = lab::down(&g.dir, &mut |_| {}).expect("down runs");
    g.done = true;
    assert!(s.leftovers.is_empty(), "down left: {:?}", s.leftovers);
    t.elapsed()
}

fn check<'a>(r: &'a Report, name: &str) -> &'a lab::Check {
    r.checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name}"))
}

fn timing(lab_name: &str, up: Duration, s: &UpSummary, verify: Duration, down: Duration) {
    say(&format!(
        "TIMING {lab_name}: up {} (namespaces {:.1} s, cables {:.1} s, daemons {:.1} s, configs {:.1} s, converge {:.1} s), \
         verify {}, down {}; {} namespaces, {} daemons, peak RSS {} MB",
        secs(up),
        s.timings.namespaces_ms as f64 / 1000.0,
        s.timings.cables_ms as f64 / 1000.0,
        s.timings.daemons_ms as f64 / 1000.0,
        s.timings.configs_ms as f64 / 1000.0,
        s.timings.converge_ms as f64 / 1000.0,
        secs(verify),
        secs(down),
        s.namespaces,
        s.daemons,
        s.timings.peak_rss_kib / 1024
    ));
}

#[test]
fn lab_small_up_verify_down_through_the_cli_leaves_nothing_behind() {
    let Some(_lock) = lab_env("lab_small_up_verify_down_through_the_cli_leaves_nothing_behind")
    else {
        return;
    };
    let run_mount = Path::new("/run/mount").exists();
    let dir = state_dir();
    let d = dir.to_string_lossy().into_owned();
    let mut guard = Running {
        dir: dir.clone(),
        done: false,
    };

    let t = Instant::now();
    let out = railyard(&["lab", "up", "--example", "lab-small", "--state", &d]);
    let up_time = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "lab up failed:\n{err}");
    assert!(err.contains("converged in"), "{err}");
    assert!(err.contains("lab up: lab-small in"), "{err}");
    let tr = traces(&dir, run_mount);
    let st = lab::state::read(&dir)
        .expect("state")
        .expect("state present");
    assert!(st.converged);
    assert_eq!(
        tr.pids.len(),
        18,
        "4 daemons on 4 BGP switches, 2 on the in-band leaf"
    );

    // A second `up` refuses while this one runs.
    let again = railyard(&["lab", "up", "--example", "lab-small", "--state", &d]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already running"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // Verify from a new process, JSON and text.
    let t = Instant::now();
    let out = railyard(&["lab", "verify", "--state", &d, "--format", "json"]);
    let verify_time = t.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(v["passed"], true);
    let status = |name: &str| {
        v["checks"]
            .as_array()
            .and_then(|a| a.iter().find(|c| c["name"] == name))
            .map(|c| c["status"].as_str().unwrap_or("").to_string())
    };
    for c in ["daemons", "bgp-sessions", "ecmp", "rail-reachability"] {
        assert_eq!(status(c).as_deref(), Some("pass"), "{c}");
    }
    assert_eq!(status("tenant-isolation").as_deref(), Some("skip"));
    let text = railyard(&["lab", "verify", "--state", &d]);
    let t_out = String::from_utf8_lossy(&text.stdout);
    assert!(
        t_out.contains(
            "PASS  bgp-sessions         16 of 16 planned sessions Established, 0 unplanned"
        ),
        "{t_out}"
    );
    assert!(
        t_out.contains("2 of 2 leaf-to-leaf loopback routes use every uplink"),
        "{t_out}"
    );
    assert!(
        t_out.contains("12 of 12 node pairs reach each other on 2 rails"),
        "{t_out}"
    );
    assert!(t_out.contains("result: PASS"), "{t_out}");

    let t = Instant::now();
    let out = railyard(&["lab", "down", "--state", &d]);
    let down_time = t.elapsed();
    guard.done = true;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean(&tr);
    let s = UpSummary {
        timings: st.timings.clone(),
        converged: st.converged,
        pending: vec![],
        daemons: tr.pids.len(),
        namespaces: st.plan.namespaces().len(),
    };
    timing("lab-small (CLI)", up_time, &s, verify_time, down_time);
    let again = railyard(&["lab", "down", "--state", &d]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to remove"));
}

#[test]
fn down_cleans_up_after_a_killed_up() {
    let Some(_lock) = lab_env("down_cleans_up_after_a_killed_up") else {
        return;
    };
    let run_mount = Path::new("/run/mount").exists();
    let dir = state_dir();
    let d = dir.to_string_lossy().into_owned();
    let mut guard = Running {
        dir: dir.clone(),
        done: false,
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["lab", "up", "--example", "lab-small", "--state", &d])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("lab up starts");
    // Kill it once daemons run (some pid files exist), before it finishes.
    let t = Instant::now();
    let pid_files = |dir: &Path| -> Vec<u32> {
        std::fs::read_dir(dir.join("run"))
            .map(|rd| {
                rd.flatten()
                    .flat_map(|r| std::fs::read_dir(r.path()).into_iter().flatten().flatten())
                    .filter(|f| f.path().extension().is_some_and(|e| e == "pid"))
                    .filter_map(|f| std::fs::read_to_string(f.path()).ok()?.trim().parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    while pid_files(&dir).len() < 4 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().expect("kill lab up");
    let _ = child.wait();
    let pids = pid_files(&dir);
    assert!(
        !pids.is_empty(),
        "up was killed before it started any daemon"
    );
    assert!(
        !lab::netns::lab_namespaces().is_empty(),
        "the killed up left namespaces"
    );
    let out = railyard(&["lab", "down", "--state", &d]);
    guard.done = true;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped") && err.contains("deleted"), "{err}");
    assert_clean(&Traces {
        dir,
        pids,
        frr_dirs: vec![],
        created: vec![],
        run_mount_existed: run_mount,
    });
}

#[test]
fn spectrum_x_scaled_down_comes_up_and_verifies() {
    let Some(_lock) = lab_env("spectrum_x_scaled_down_comes_up_and_verifies") else {
        return;
    };
    let run_mount = Path::new("/run/mount").exists();
    let (mut g, s, up_time) = boot(
        "spectrum-x-cloud",
        &inventory("spectrum-x-cloud.yaml"),
        true,
        None,
    );
    let tr = traces(&g.dir, run_mount);
    let st = lab::state::read(&g.dir).expect("state").expect("present");
    let scale = &st.plan.scale;
    assert_eq!(scale.kept["spine"].len(), 2);
    assert_eq!(scale.dropped["spine"].len(), 6);
    assert_eq!(scale.kept["leaf"].len(), 12, "every rail of every SU");
    assert_eq!(scale.kept["node"], ["gpu001", "gpu033", "gpu065"]);
    assert!(s.converged, "not converged: {:?}", s.pending);
    let (r, verify_time) = verify(&g.dir);
    assert!(r.passed, "{}", r.to_text());
    let ecmp = check(&r, "ecmp");
    assert_eq!(ecmp.status, Status::Pass);
    // Compute leaves: 8 links to each of 2 kept spines; the storage pair: its 32 peer links.
    for i in &ecmp.items {
        let want = if i.subject.starts_with("stor-") {
            "32 paths"
        } else {
            "16 paths"
        };
        assert!(i.detail.starts_with(want), "{}: {}", i.subject, i.detail);
    }
    assert!(
        ecmp.items
            .iter()
            .any(|i| i.subject.starts_with("stor-leaf01"))
    );
    let rails = check(&r, "rail-reachability");
    assert!(rails.summary.ends_with("on 8 rails"), "{}", rails.summary);
    // The converged storage/in-band pair: each sampled node reaches the others' ports on the
    // other leaf, across the pair's routed peer links.
    let access = check(&r, "access-reachability");
    assert_eq!(access.status, Status::Pass, "{}", access.summary);
    assert!(access.summary.ends_with("on storage"), "{}", access.summary);
    assert!(
        access
            .items
            .iter()
            .any(|i| i.subject.contains("(stor-leaf01) -> ") && i.subject.contains("(stor-leaf02)")),
        "{:?}",
        access.items
    );
    assert!(
        check(&r, "bgp-sessions")
            .summary
            .contains("towards devices dropped by --scale-down"),
        "the report says what was dropped"
    );
    let down_time = down(&mut g);
    assert_clean(&tr);
    timing(
        "spectrum-x --scale-down",
        up_time,
        &s,
        verify_time,
        down_time,
    );
}

#[test]
fn a_leaf_asn_override_fails_verify_and_names_the_sessions() {
    let Some(_lock) = lab_env("a_leaf_asn_override_fails_verify_and_names_the_sessions") else {
        return;
    };
    let run_mount = Path::new("/run/mount").exists();
    let spec = format!(
        "{}\noverrides: {{leaf-su01-01: {{asn: 4200009999}}}}\n",
        railyard::LAB_SMALL
    );
    // It never converges: stop waiting soon after the healthy sessions are up.
    let (mut g, s, up_time) = boot(
        "lab-small-bad-asn",
        &spec,
        false,
        Some(Duration::from_secs(8)),
    );
    let tr = traces(&g.dir, run_mount);
    assert!(!s.converged, "a leaf with the wrong ASN cannot converge");
    let (r, verify_time) = verify(&g.dir);
    assert!(!r.passed);
    let sessions = check(&r, "bgp-sessions");
    assert_eq!(sessions.status, Status::Fail);
    let failed: Vec<&str> = sessions
        .items
        .iter()
        .filter(|i| i.status == Status::Fail)
        .map(|i| i.subject.as_str())
        .collect();
    assert_eq!(
        failed.len(),
        8,
        "4 uplinks of leaf-su01-01, seen from both ends: {failed:?}"
    );
    assert!(
        failed.iter().all(|s| s.contains("leaf-su01-01")),
        "only the overridden leaf's sessions fail: {failed:?}"
    );
    assert!(failed.contains(&"leaf-su01-01 swp5 -> spine01:swp1 (AS 4200009999 -> AS 4200000001)"));
    assert!(failed.contains(&"spine01 swp1 -> leaf-su01-01:swp5 (AS 4200000001 -> AS 4200001000)"));
    assert!(
        sessions
            .items
            .iter()
            .any(|i| i.detail.contains("Bad Peer AS")),
        "FRR's reason is quoted"
    );
    assert_eq!(check(&r, "ecmp").status, Status::Fail);
    let text = r.to_text();
    assert!(
        text.contains("FAIL  bgp-sessions         8 of 16 planned sessions Established"),
        "{text}"
    );
    assert!(
        text.contains("fail spine01 swp1 -> leaf-su01-01:swp5"),
        "{text}"
    );
    let down_time = down(&mut g);
    assert_clean(&tr);
    timing(
        "lab-small with leaf ASN override",
        up_time,
        &s,
        verify_time,
        down_time,
    );
}

#[test]
fn tenants_reach_only_themselves() {
    let Some(_lock) = lab_env("tenants_reach_only_themselves") else {
        return;
    };
    let run_mount = Path::new("/run/mount").exists();
    let (mut g, s, up_time) = boot(
        "mdx-research-cloud",
        &inventory("mdx-research-cloud.yaml"),
        true,
        None,
    );
    let tr = traces(&g.dir, run_mount);
    let st = lab::state::read(&g.dir).expect("state").expect("present");
    let (r, verify_time) = verify(&g.dir);
    let iso = check(&r, "tenant-isolation");
    if let Some(why) = lab::tenants::unsupported(&st.features) {
        say(&format!(
            "\n*** NOT TESTED tenant matrix: {why}; verify must say so ***\n"
        ));
        assert_eq!(iso.status, Status::Untested);
        assert!(iso.summary.contains("NOT TESTED"), "{}", iso.summary);
        // An untested applicable check never reads as a pass.
        assert!(!r.passed && !r.complete, "{}", r.to_text());
        assert!(
            r.to_text().contains("result: INCOMPLETE"),
            "{}",
            r.to_text()
        );
    } else {
        assert!(s.converged, "not converged: {:?}", s.pending);
        assert!(r.passed, "{}", r.to_text());
        assert_eq!(check(&r, "tenant-routes").status, Status::Pass);
        assert_eq!(iso.status, Status::Pass);
        let m = iso.matrix.as_ref().expect("matrix");
        assert_eq!(
            m.groups,
            [
                "llm-pretrain",
                "proj-genome",
                "proj-climate",
                "proj-vision",
                "(no tenant)"
            ]
        );
        for c in &m.cells {
            if c.from == c.to {
                assert!(c.pairs > 0, "{}: no intra pair", c.from);
                assert_eq!(c.reached, c.pairs, "{}: intra-tenant reach", c.from);
            } else {
                assert!(c.pairs > 0, "{} -> {}: no pair", c.from, c.to);
                assert_eq!(c.reached, 0, "{} -> {} must be unreachable", c.from, c.to);
            }
        }
        // The intra-tenant pairs include one across leaves: type-5 routes over the L3VNI.
        assert!(
            iso.items.iter().any(|i| i
                .subject
                .starts_with("gpu001 (llm-pretrain) -> gpu009 (llm-pretrain)")
                && i.status == Status::Pass),
            "{:?}",
            iso.items.iter().map(|i| &i.subject).collect::<Vec<_>>()
        );
        // The shared service is declared but hosted nowhere: said, not silently passed.
        assert!(iso.items.iter().any(|i| i.status == Status::Skip
            && i.subject == "shared service lustre"
            && i.detail.contains("NOT TESTED")));
        say(&r.to_text());
    }
    let down_time = down(&mut g);
    assert_clean(&tr);
    timing(
        "mdx-research-cloud --scale-down (tenants)",
        up_time,
        &s,
        verify_time,
        down_time,
    );
}

/// A lab cluster with every network routed: compute, an RDMA storage fabric of two leaf pairs and
/// two spines, an in-band pair joined by peer links, a tenant with a storage VRF, and the fabric
/// sessions hardened with TCP-MD5 (the placeholder itself as the password on both ends) and GTSM.
const ACCESS_LAB: &str = r#"
name: lab-access
scalable_units: {count: 2, nodes_per_su: 4, node_model: lab-node}
compute:
  leaf: {model: sn4600c, rails_per_leaf: 2}
  spine: {model: sn4600c, count: 2}
storage:
  rdma: true
  leaf: {model: lab-8p}
  spine: {model: lab-8p, count: 2}
inband:
  oversubscription: "4:1"
  leaf: {model: sn4600c}
bgp: {auth_env: LAB_BGP_PASSWORD, gtsm: true}
addressing: {vteps: 10.1.0.0/16}
tenants:
  - {name: t1, id: 1, nodes: {sus: [1]}, storage: true}
catalog:
  nodes:
    lab-node:
      vendor: example
      description: lab node, 2 GPUs, 2 compute, 2 storage and 2 in-band 100G ports
      gpus: 2
      gpu_model: generic
      ru: 2
      compute:
        - {ports: [c0], speed: 100G, form: qsfp28, cage: c0, rdma: mlx5_0, numa: 0}
        - {ports: [c1], speed: 100G, form: qsfp28, cage: c1, rdma: mlx5_1, numa: 0}
      storage:
        - {ports: [s0], speed: 100G, form: qsfp28}
        - {ports: [s1], speed: 100G, form: qsfp28}
      inband:
        - {ports: [i0], speed: 100G, form: qsfp28}
        - {ports: [i1], speed: 100G, form: qsfp28}
      bmc: {ports: [bmc], speed: 1G, form: rj45}
  switches:
    lab-8p:
      vendor: example
      description: 8 x 100G lab switch (4 node ports and 4 uplinks at 1:1)
      transport: [ethernet]
      ru: 1
      mgmt_port: eth0
      os: frr
      port_groups:
        - {first: 1, count: 8, form: qsfp28, speed: 100G, breakouts: ["1x100G"], name: "swp{cage}", split_name: "swp{cage}s{lane}"}
      source: lab
"#;

#[test]
fn storage_and_inband_fabrics_route_between_leaves() {
    let Some(_lock) = lab_env("storage_and_inband_fabrics_route_between_leaves") else {
        return;
    };
    let run_mount = Path::new("/run/mount").exists();
    let (mut g, s, up_time) = boot("lab-access", ACCESS_LAB, false, None);
    let tr = traces(&g.dir, run_mount);
    let st = lab::state::read(&g.dir).expect("state").expect("present");
    let roles: Vec<String> = st.plan.scale.kept.keys().cloned().collect();
    for r in ["storage-leaf", "storage-spine", "inband-leaf"] {
        assert!(
            roles.iter().any(|k| k == r),
            "{r} not in the lab: {roles:?}"
        );
    }
    let (r, verify_time) = verify(&g.dir);
    assert!(s.converged, "not converged: {:?}", s.pending);
    assert!(r.passed, "{}", r.to_text());
    // Every planned session of every network is up, MD5 and GTSM included.
    let sessions = check(&r, "bgp-sessions");
    assert_eq!(sessions.status, Status::Pass, "{}", sessions.summary);
    for peer in ["stor-spine01", "inb-leaf02"] {
        assert!(
            sessions
                .items
                .iter()
                .any(|i| i.subject.contains(peer) && i.status == Status::Pass),
            "no session with {peer}"
        );
    }
    // Storage leaves reach each other over both spines (ECMP 2 wide), the in-band pair over its
    // peer links.
    let ecmp = check(&r, "ecmp");
    assert_eq!(ecmp.status, Status::Pass, "{}", ecmp.summary);
    let access = check(&r, "access-reachability");
    assert_eq!(access.status, Status::Pass, "{}", access.summary);
    assert!(
        access.summary.contains("storage") && access.summary.contains("inband"),
        "{}",
        access.summary
    );
    // Storage: the tenant's nodes across the spines inside VRF t1, the others in the default VRF.
    for (from, to) in [
        ("stor-leaf01", "stor-leaf02"),
        ("stor-leaf03", "stor-leaf04"),
    ] {
        assert!(
            access
                .items
                .iter()
                .any(|i| i.subject.starts_with("storage:")
                    && i.subject.contains(&format!("({from}) -> "))
                    && i.subject.contains(&format!("({to})"))
                    && i.status == Status::Pass),
            "no {from} -> {to} pair: {:?}",
            access.items.iter().map(|i| &i.subject).collect::<Vec<_>>()
        );
    }
    // The storage VRF holds its tenant's aggregate from the other leaf, nothing else.
    let routes = check(&r, "tenant-routes");
    if let Some(why) = lab::tenants::unsupported(&st.features) {
        say(&format!(
            "\n*** NOT TESTED storage tenant routes: {why} ***\n"
        ));
        assert_eq!(routes.status, Status::Untested);
        assert!(!r.passed);
    } else {
        assert_eq!(routes.status, Status::Pass, "{}", routes.summary);
        assert!(
            routes
                .items
                .iter()
                .any(|i| i.subject.starts_with("stor-leaf01 vrf t1")),
            "{:?}",
            routes.items.iter().map(|i| &i.subject).collect::<Vec<_>>()
        );
    }
    say(&r.to_text());
    let down_time = down(&mut g);
    assert_clean(&tr);
    timing(
        "lab-access (storage, in-band, tenant VRF on storage, MD5 + GTSM)",
        up_time,
        &s,
        verify_time,
        down_time,
    );
}
