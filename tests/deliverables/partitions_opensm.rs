//! InfiniBand tenancy end to end (issue 13): port GUIDs imported from an `ibnetdiscover` capture
//! make a `partitions.conf` without placeholders, and real OpenSM loads it on a simulated fabric
//! (ibsim: OpenSM and infiniband-diags run unchanged over `libumad2sim`, no IB hardware) and
//! gives every member port the tenant's key at the PKey index the tenant's nccl.env names.
//!
//! The fixture cluster is `tests/fixtures/ib-tenants/spec.yaml`; its capture `ibnetdiscover.txt`
//! is what `ibnetdiscover` prints for that cluster's cabling plan simulated by ibsim
//! (`fabric_net` below builds the simulator's topology file from cabling.csv;
//! `RAILYARD_WRITE_FIXTURES=1` rewrites the capture).

use crate::common;
use crate::prereq;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::file;
use railyard::capture::ib;
use railyard::diag::{Diagnostics, SourceFile};

const SIM_LIB: &str = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ib-tenants")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("fixture")
}

fn spec() -> SourceFile {
    SourceFile::new("spec.yaml", read("spec.yaml"))
}

/// QM9700 logical port of an NVOS name: cage c, lane l → 2(c-1)+l (two NDR ports per OSFP cage).
fn ib_port(name: &str) -> u32 {
    let (c, l) = name
        .trim_start_matches("sw")
        .split_once('p')
        .expect("sw<cage>p<lane>");
    let (c, l): (u32, u32) = (c.parse().expect("cage"), l.parse().expect("lane"));
    2 * (c - 1) + l
}

/// The ibsim topology file of the plan's compute fabric: every switch, and every node port as a
/// one-port HCA whose node description is `<host> <rdma>` (rdma-ndd's default), GUIDs derived
/// from the device's position. The first record (the UFM appliance) carries the SM.
fn fabric_net(
    files: &[railyard::output::OutputFile],
    rdma: &BTreeMap<(String, String), String>,
) -> String {
    let cabling = file(files, "cabling.csv");
    let mut r = csv::Reader::from_reader(cabling.as_bytes());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (a, ap, b, bp, net) = (
        col("a_device"),
        col("a_port"),
        col("b_device"),
        col("b_port"),
        col("network"),
    );
    // device → (port number → (peer id, peer port number))
    let mut switches: BTreeMap<String, BTreeMap<u32, (String, u32)>> = BTreeMap::new();
    let mut hcas: Vec<(String, String, String, u32)> = Vec::new(); // (id, desc, switch, port)
    for row in r.records() {
        let row = row.expect("row");
        if &row[net] != "compute" {
            continue;
        }
        let (ad, bd) = (row[a].to_string(), row[b].to_string());
        if ad.starts_with("leaf") || ad.starts_with("spine") {
            let (pa, pb) = (ib_port(&row[ap]), ib_port(&row[bp]));
            switches
                .entry(ad.clone())
                .or_default()
                .insert(pa, (format!("S-{bd}"), pb));
            switches
                .entry(bd.clone())
                .or_default()
                .insert(pb, (format!("S-{ad}"), pa));
        } else {
            let hca = rdma
                .get(&(ad.clone(), row[ap].to_string()))
                .cloned()
                .unwrap_or_else(|| "mlx5_0".into());
            let id = format!("H-{ad}-{hca}");
            let pb = ib_port(&row[bp]);
            switches
                .entry(bd.clone())
                .or_default()
                .insert(pb, (id.clone(), 1));
            hcas.push((id, format!("{ad} {hca}"), format!("S-{bd}"), pb));
        }
    }
    // Deterministic GUIDs: a vendor prefix and the record's position.
    let mut out = String::new();
    hcas.sort_by_key(|h| !h.0.starts_with("H-ufm"));
    for (i, (id, desc, sw, port)) in hcas.iter().enumerate() {
        out.push_str(&format!(
            "caguid=0xb8cef60300{:06x}\nHca\t1 \"{id}\"\t\t# \"{desc}\"\n[1]\t\"{sw}\"[{port}]\n\n",
            0x100 + 2 * i
        ));
    }
    for (i, (name, ports)) in switches.iter().enumerate() {
        out.push_str(&format!(
            "switchguid=0xb8cef60300aa{:04x}\nSwitch\t64 \"S-{name}\"\t\t# \"{name}\"\n",
            i + 1
        ));
        for (p, (peer, pp)) in ports {
            out.push_str(&format!("[{p}]\t\"{peer}\"[{pp}]\n"));
        }
        out.push('\n');
    }
    out
}

/// (node, port) → RDMA device, from the build's hosts JSON.
fn rdma_names(files: &[railyard::output::OutputFile]) -> BTreeMap<(String, String), String> {
    let c = railyard::compile(&spec());
    let hosts = &c.design.map(|d| d.intents).expect("compiles").hosts;
    let mut m = BTreeMap::new();
    for n in hosts.nodes.values() {
        for p in &n.ports {
            if let Some(r) = &p.rdma {
                m.insert((n.name.clone(), p.port.clone()), r.clone());
            }
        }
    }
    let _ = files;
    m
}

fn outputs_with(guids: &railyard::model::PortGuids) -> Vec<railyard::output::OutputFile> {
    let c = railyard::compile_with_guids(&spec(), guids);
    match c.outputs(&railyard::render::Templates::default()) {
        Some(Ok(f)) => f,
        _ => panic!("fixture spec compiles"),
    }
}

/// The GUIDs of the capture fixture, matched to the plan.
fn imported(capture: &str) -> (ib::Imported, Diagnostics) {
    let c = railyard::compile(&spec());
    let (Some(fabric), Some(intents)) = c.design.as_ref().map(|d| (&d.fabric, &d.intents)).unzip()
    else {
        panic!("fixture spec compiles");
    };
    let mut d = Diagnostics::default();
    let ports = ib::parse_ibnetdiscover(0, &SourceFile::new("ibnetdiscover.txt", capture), &mut d);
    let imp = ib::map(&ports, fabric, &intents.hosts);
    for (_, x) in &imp.diagnostics {
        d.push(x.clone());
    }
    (imp, d)
}

#[test]
fn imported_guids_give_a_partitions_conf_without_placeholders() {
    let (imp, d) = imported(&read("ibnetdiscover.txt"));
    assert!(
        !d.has_errors(),
        "{:?}",
        d.iter().map(|x| &x.message).collect::<Vec<_>>()
    );
    // 3 GPU nodes × 8 compute ports; the UFM appliance's port is skipped.
    assert_eq!(imp.guids.0.len(), 24);
    assert_eq!(imp.skipped, 1);
    let files = outputs_with(&imp.guids);
    assert!(
        !files
            .iter()
            .any(|f| f.path.ends_with("partitions.conf.template"))
    );
    let conf = file(&files, "tenants/partitions.conf");
    assert!(!conf.contains('@'), "no placeholder left:\n{conf}");
    assert!(!conf.contains("TEMPLATE"));
    // Every member is the GUID the capture gives that host's HCA.
    let capture = read("ibnetdiscover.txt");
    for line in conf.lines().filter(|l| l.trim_start().starts_with("0x")) {
        let guid = line.trim().split([',', ' ']).next().expect("guid");
        let (_, comment) = line.split_once('#').expect("comment");
        let mut w = comment.split_whitespace();
        let (node, _port, rdma) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
        let ca = capture
            .split("\n\n")
            .find(|rec| rec.contains(&format!("# \"{node} {rdma}\"")) && rec.contains("\nCa"))
            .unwrap_or_else(|| panic!("{node} {rdma} in the capture"));
        assert!(
            ca.contains(&format!("[1]({})", guid.trim_start_matches("0x"))),
            "{line}"
        );
    }
    assert_eq!(conf.matches("\n  0x").count(), 24);
    // The CSV `ib import` writes reads back to the same GUIDs.
    let c = railyard::compile(&spec());
    let rows = imp.rows(
        &c.design
            .as_ref()
            .map(|d| &d.intents)
            .expect("intents")
            .hosts,
    );
    let csv = String::from_utf8(ib::write_csv(&rows).expect("csv")).expect("utf-8");
    assert!(csv.starts_with("node,port,rdma,guid,leaf,leaf_port,cable_id\n"));
    let mut d = Diagnostics::default();
    let back = ib::parse_csv(0, &SourceFile::new("g.csv", csv), &mut d);
    assert!(!d.has_errors());
    let again = ib::map(
        &back,
        c.design.as_ref().map(|d| &d.fabric).expect("fabric"),
        &c.design.as_ref().map(|d| &d.intents).expect("i").hosts,
    );
    assert_eq!(again.guids, imp.guids);
}

/// `build --port-guids` applies the GUIDs to the compiled design instead of compiling again:
/// the same files and the same findings as a compile with the GUIDs from the start, and the
/// template warning (RY0900) gone with the placeholders.
#[test]
fn guids_applied_after_the_compile_equal_a_compile_with_them() {
    let (imp, _) = imported(&read("ibnetdiscover.txt"));
    let templates = railyard::render::Templates::default();
    let once = railyard::compile_with_guids(&spec(), &imp.guids);
    let first = railyard::compile(&spec());
    let codes = |c: &railyard::Compiled| -> Vec<String> {
        c.diagnostics
            .sorted()
            .iter()
            .map(|d| format!("{} {}", d.code.id, d.message))
            .collect()
    };
    assert!(codes(&first).iter().any(|c| c.starts_with("RY0900")));
    let after = first.with_port_guids(&imp.guids);
    assert_eq!(codes(&after), codes(&once));
    assert!(!codes(&after).iter().any(|c| c.starts_with("RY0900")));
    let files = |c: &railyard::Compiled| match c.outputs(&templates) {
        Some(Ok(f)) => f,
        _ => panic!("fixture spec compiles"),
    };
    let (a, b) = (files(&after), files(&once));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.path, y.path);
        assert!(x.bytes == y.bytes, "{} differs", x.path);
    }
}

#[test]
fn bad_captures_get_located_diagnostics() {
    let good = read("ibnetdiscover.txt");
    let line_of = |text: &str, d: &railyard::diag::Diagnostic| -> usize {
        let src = SourceFile::new("x", text);
        src.line_col(d.span.expect("located").start).0
    };
    // Truncated in the middle of a CA record's port line.
    let cut = good.find("\n[1](").expect("a CA port line") + 8;
    let truncated = &good[..cut];
    let (_, d) = imported(truncated);
    let e = d.iter().find(|x| x.code.id == "RY0903").expect("RY0903");
    assert_eq!(
        line_of(truncated, e),
        truncated.lines().count(),
        "{}",
        e.message
    );
    // A host the plan does not have.
    let stranger = good.replace("\"gpu002 mlx5_0\"", "\"gpu099 mlx5_0\"");
    let (_, d) = imported(&stranger);
    let e = d.iter().find(|x| x.code.id == "RY0904").expect("RY0904");
    assert!(e.message.contains("gpu099"), "{}", e.message);
    let l = line_of(&stranger, e);
    assert!(
        stranger
            .lines()
            .nth(l - 2)
            .is_some_and(|h| h.contains("gpu099")),
        "GUID line after the CA header"
    );
    // A port cabled to another leaf than the plan says.
    let rec_start = good
        .find("# \"gpu001 mlx5_0\"\n[1](")
        .expect("CA gpu001 mlx5_0");
    let rec_end = rec_start + good[rec_start..].find("\n\n").expect("record end");
    let moved = format!(
        "{}{}{}",
        &good[..rec_start],
        good[rec_start..rec_end].replace("\"leaf-su01-01\"", "\"leaf-su01-05\""),
        &good[rec_end..]
    );
    let (_, d) = imported(&moved);
    let e = d.iter().find(|x| x.code.id == "RY0904").expect("miscabled");
    assert!(
        e.message.contains("leaf-su01-05") && e.message.contains("leaf-su01-01"),
        "{}",
        e.message
    );
    // Two HCA ports with one port GUID (gpu002's replaced by gpu001's): port GUIDs are unique.
    let twin = good.replace("b8cef60300000113", "b8cef60300000103");
    let (_, d) = imported(&twin);
    let e = d.iter().find(|x| x.code.id == "RY0905").expect("RY0905");
    assert!(
        e.message.contains("b8cef60300000103")
            && e.message.contains("gpu001")
            && e.message.contains("gpu002"),
        "{}",
        e.message
    );
    assert!(e.span.is_some(), "located");
    // Not a capture at all.
    let (_, d) = imported("hello\n");
    assert!(d.iter().any(|x| x.code.id == "RY0903" && x.span.is_some()));
}

/// `railyard ib import` writes nothing when a capture is bad, and leaves an earlier CSV as it was.
#[test]
fn ib_import_is_all_or_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("port-guids.csv");
    let bin = env!("CARGO_BIN_EXE_railyard");
    let run = |capture: &Path| {
        Command::new(bin)
            .args(["ib", "import"])
            .arg(fixture("spec.yaml"))
            .arg("--ibnetdiscover")
            .arg(capture)
            .arg("-o")
            .arg(&out)
            .args(["--format", "short"])
            .output()
            .expect("runs")
    };
    let ok = run(&fixture("ibnetdiscover.txt"));
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let first = std::fs::read(&out).expect("written");
    let bad = dir.path().join("bad.txt");
    let good = read("ibnetdiscover.txt");
    std::fs::write(&bad, good.replace("\"gpu003 mlx5_4\"", "\"gpu777 mlx5_4\"")).expect("w");
    let failed = run(&bad);
    assert_eq!(failed.status.code(), Some(1));
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(err.contains("bad.txt:") && err.contains("RY0904"), "{err}");
    assert_eq!(
        std::fs::read(&out).expect("still there"),
        first,
        "earlier output untouched"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("e").file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

/// ibsim serving one topology under a private socket name; killed on drop.
struct Sim {
    child: Child,
    sock: String,
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sim {
    fn start(ibsim: &Path, net: &Path) -> Sim {
        let sock = format!("railyard-test-{}", std::process::id());
        let mut child = Command::new(ibsim)
            .args(["-s", "-n"])
            .arg(net)
            .env("IBSIM_SOCKNAME", &sock)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ibsim starts");
        // ibsim prints "Network simulator ready." once the fabric is built.
        let mut ready = false;
        for _ in 0..100 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let probe = Command::new("true").status();
            let _ = probe;
            if let Ok(Some(status)) = child.try_wait() {
                panic!("ibsim exited: {status}");
            }
            let out = Command::new(prereq::find("ibnetdiscover").expect("ibnetdiscover"))
                .env("LD_PRELOAD", SIM_LIB)
                .env("IBSIM_SOCKNAME", &sock)
                .output()
                .expect("ibnetdiscover runs");
            if out.status.success() && !out.stdout.is_empty() {
                ready = true;
                break;
            }
        }
        assert!(ready, "ibsim never answered");
        Sim { child, sock }
    }

    fn run(&self, bin: &Path, args: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
        let mut c = Command::new(bin);
        c.args(args)
            .env("LD_PRELOAD", SIM_LIB)
            .env("IBSIM_SOCKNAME", &self.sock);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("runs")
    }
}

/// The fixture capture is what `ibnetdiscover` prints for the plan; real OpenSM loads the
/// partitions.conf built from it without a parse error, and every tenant port then holds the
/// default key at index 0 and its tenant's full key at index 1 (= NCCL_IB_PKEY of the tenant's
/// nccl.env); the SM's own port is a full member of the default partition.
#[test]
fn opensm_loads_the_partitions_and_assigns_the_expected_pkey_index() {
    const T: &str = "opensm_loads_the_partitions_and_assigns_the_expected_pkey_index";
    let (Some(ibsim), Some(opensm), Some(discover), Some(smpquery)) = (
        prereq::program(T, "ibsim", "ibsim-utils"),
        prereq::program(T, "opensm", "opensm"),
        prereq::program(T, "ibnetdiscover", "infiniband-diags"),
        prereq::program(T, "smpquery", "infiniband-diags"),
    ) else {
        return;
    };
    if !prereq::require(
        T,
        "libumad2sim",
        Path::new(SIM_LIB).exists(),
        "apt-get install ibsim-utils",
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = outputs_with(&railyard::model::PortGuids::default());
    let net = dir.path().join("fabric.net");
    std::fs::write(&net, fabric_net(&plain, &rdma_names(&plain))).expect("net file");
    let sim = Sim::start(&ibsim, &net);

    // 1. The capture fixture is real ibnetdiscover output of this fabric.
    let text = check_capture_is_the_fixture(&sim, &discover);
    // 2. OpenSM loads the partitions built from it.
    let (imp, _) = imported(&text);
    let files = outputs_with(&imp.guids);
    check_opensm_loads_partitions(&sim, &opensm, dir.path(), &files);
    // 3. Every CA port's PKey table, by the LID OpenSM gave it.
    let lids = ca_lids(&sim, &discover);
    assert_eq!(lids.len(), 25, "24 GPU ports and the UFM port");
    let index: u16 = railyard::intent::partitions::TENANT_PKEY_INDEX;
    check_pkey_tables(&sim, &smpquery, &lids, index);
    // The index OpenSM chose is the one each tenant's env file sets.
    for t in ["alpha", "beta"] {
        let env = file(&files, &format!("hosts/tenants/{t}/nccl.env"));
        assert!(
            env.lines().any(|l| l == format!("NCCL_IB_PKEY={index}")),
            "{t}"
        );
    }
    // gpu004 is the UFM slot, so every GPU node is in a tenant; no RY0901 for this spec.
    assert!(
        !railyard::compile(&spec())
            .diagnostics
            .iter()
            .any(|d| d.code.id == "RY0901")
    );
}

/// `ibnetdiscover` of the simulated fabric equals the fixture (bar its date line); returns it.
fn check_capture_is_the_fixture(sim: &Sim, discover: &Path) -> String {
    let cap = sim.run(discover, &[], &[]);
    assert!(cap.status.success());
    let text = String::from_utf8(cap.stdout).expect("utf-8");
    let body = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.starts_with("# Topology file: generated on"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if std::env::var_os("RAILYARD_WRITE_FIXTURES").is_some() {
        std::fs::write(fixture("ibnetdiscover.txt"), &text).expect("write fixture");
    }
    assert_eq!(
        body(&text),
        body(&read("ibnetdiscover.txt")),
        "fixture = ibnetdiscover output"
    );
    text
}

/// OpenSM brings the subnet up with `tenants/partitions.conf`, without a parse error.
fn check_opensm_loads_partitions(
    sim: &Sim,
    opensm: &Path,
    dir: &Path,
    files: &[railyard::output::OutputFile],
) {
    let conf = dir.join("partitions.conf");
    std::fs::write(&conf, file(files, "tenants/partitions.conf")).expect("conf");
    let log = dir.join("opensm.log");
    let cache = dir.join("cache");
    std::fs::create_dir_all(&cache).expect("cache dir");
    let sm = sim.run(
        opensm,
        &[
            "-o",
            "-P",
            conf.to_str().expect("utf-8"),
            "-f",
            log.to_str().expect("utf-8"),
        ],
        &[("OSM_CACHE_DIR", &cache)],
    );
    let sm_err =
        String::from_utf8_lossy(&sm.stderr).into_owned() + &String::from_utf8_lossy(&sm.stdout);
    let sm_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(sm.status.success(), "opensm: {sm_err}\n{sm_log}");
    assert!(
        !sm_err.contains("PARSE ERROR") && !sm_log.contains("PARSE ERROR"),
        "{sm_err}\n{sm_log}"
    );
    assert!(sm_log.contains("SUBNET UP"), "{sm_log}");
}

/// The LID of every CA port (by node description), as `ibnetdiscover` shows them now.
fn ca_lids(sim: &Sim, discover: &Path) -> BTreeMap<String, String> {
    let after = String::from_utf8(sim.run(discover, &[], &[]).stdout).expect("utf-8");
    let mut lids: BTreeMap<String, String> = BTreeMap::new();
    let mut desc = String::new();
    for l in after.lines() {
        if l.starts_with("Ca") {
            desc = l.split('"').nth(3).unwrap_or("").to_string();
        } else if l.starts_with("[1](") && !desc.is_empty() {
            let lid = l
                .split("# lid ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .expect("lid");
            lids.insert(desc.clone(), lid.to_string());
        }
    }
    lids
}

/// The PKey table of port 1 of the CA at `lid` (`smpquery pkeys`).
fn pkeys(sim: &Sim, smpquery: &Path, lid: &str) -> Vec<u16> {
    let out = sim.run(smpquery, &["pkeys", lid, "1"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.trim().parse::<u32>().is_ok())
        .flat_map(|(_, v)| {
            v.split_whitespace()
                .map(|x| u16::from_str_radix(x.trim_start_matches("0x"), 16).expect("hex"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Tenant ports: the limited default key at index 0 and the tenant's full key at `index`, no
/// other; the SM's port: a full member of the default partition.
fn check_pkey_tables(sim: &Sim, smpquery: &Path, lids: &BTreeMap<String, String>, index: u16) {
    let tenant_of: BTreeMap<&str, u16> =
        [("gpu001", 0x0101), ("gpu002", 0x0101), ("gpu003", 0x0102)]
            .into_iter()
            .collect();
    for (desc, lid) in lids {
        let host = desc.split_whitespace().next().expect("host");
        let table = pkeys(sim, smpquery, lid);
        match tenant_of.get(host) {
            Some(key) => {
                assert_eq!(table[0], 0x7fff, "{desc}: limited default at index 0");
                assert_eq!(
                    table[usize::from(index)],
                    0x8000 | key,
                    "{desc}: tenant key at the index nccl.env names"
                );
                assert_eq!(
                    table.iter().filter(|k| **k != 0).count(),
                    2,
                    "{desc}: no other key"
                );
            }
            None => {
                assert!(host.starts_with("ufm"), "{desc}");
                assert_eq!(
                    table[0], 0xffff,
                    "{desc}: the SM port is a full default member"
                );
            }
        }
    }
}
