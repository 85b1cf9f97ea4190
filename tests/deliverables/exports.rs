//! `railyard export`, checked by each tool's consumer or published form, for every example:
//!
//! - containerlab: containerlab's JSON Schema (`tests/fixtures/containerlab/`, Python jsonschema
//!   in the test venv), one Python run over every example's topology;
//! - DOT (Air's `air.dot`, PTM's `topology.dot` files): parsed by Graphviz's own reader (`gvpr`,
//!   Debian `graphviz`: cgraph, the library ptmd reads its file with), one run per example;
//!   PTM's graph-level `LLDP`/`BFD` defaults as in CumulusNetworks/ptm's sample, which the same
//!   reading is run on first;
//! - Air JSON: only the fields Air's documentation defines (`tests/fixtures/air/`);
//! - UFM CVT: the P2P columns of NVIDIA's documentation (`tests/fixtures/ufm/`);
//! - NetBox: every file's columns are columns of NetBox's import form, values of its choice sets
//!   (`tests/fixtures/netbox/`), every name refers to a row of an earlier file, and the cables
//!   are `netbox-cables.csv` of `railyard build`.
//!
//! Every topology is compared with `cabling.csv` (read by header name): each cable in the
//! export's scope present exactly once, with both ends' ports as the tool's documentation maps
//! the plan's port names (containerlab kind pages, Air's examples), nothing else. The lab-small
//! containerlab topology of FRR switches is also written by the binary, and its FRR nodes are
//! shown to start the `frr.conf` files `railyard build --platform frr` would not differ from:
//! the rendered files of the FRR compile the virtual lab boots.
//!
//! One compile per example, every export checked in one pass; the binary runs twice.

use crate::prereq;
use crate::pyenv;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use railyard::diag::SourceFile;
use railyard::export::{self, Images, Target};
use railyard::model::{Platform, Role};
use railyard::output::csv::uncell;
use railyard::output::{OutputFile, OutputGroup, Selection};
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(root().join("tests/fixtures").join(rel)).unwrap()
}

/// A CSV file as rows of header → cell (cells as written, formula quote removed).
fn rows(bytes: &[u8]) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let mut r = csv::Reader::from_reader(bytes);
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(|c| uncell(c).to_string()))
                .collect()
        })
        .collect();
    (header, rows)
}

/// One cable of `cabling.csv`.
#[derive(Clone, Debug)]
struct Cable {
    a: (String, String),
    b: (String, String),
    tier: String,
}

fn cabling(bytes: &[u8]) -> Vec<Cable> {
    rows(bytes)
        .1
        .into_iter()
        .map(|r| Cable {
            a: (r["a_device"].clone(), r["a_port"].clone()),
            b: (r["b_device"].clone(), r["b_port"].clone()),
            tier: r["tier"].clone(),
        })
        .collect()
}

/// How a tool names a plan port, from its documentation: `None` when the port has no name of
/// the plan's there (a kernel-named port renamed to fit IFNAMSIZ), to be matched by device only.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Naming {
    /// Linux, Cumulus VX, Air's Ubuntu: the port's own name when the kernel takes it.
    Kernel,
    /// sonic-vs (containerlab `sonic-vs.md`, Air's SONiC VS): `eth1` is `Ethernet0`, 4 lanes each.
    SonicVs,
    /// cEOS (containerlab `ceos.md`): `eth1_1` is `Ethernet1/1`.
    Ceos,
}

fn expected(naming: Naming, port: &str) -> Option<String> {
    match naming {
        Naming::Kernel => {
            (port.len() <= 15 && !port.contains(['/', ':', ' '])).then(|| port.into())
        }
        Naming::SonicVs => {
            let k: u32 = port.strip_prefix("Ethernet")?.parse().ok()?;
            Some(format!("eth{}", k / 4 + 1))
        }
        Naming::Ceos => Some(format!(
            "eth{}",
            port.strip_prefix("Ethernet")?.replace('/', "_")
        )),
    }
}

type End = (String, Option<String>);

/// A link as exported: both ends' (device, interface).
type Link = ((String, String), (String, String));

/// An unordered cable key from two ends.
fn key(a: End, b: End) -> (End, End) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Every cable of `cables` between the topology's nodes (not of the management tier when
/// `no_mgmt`) present exactly once among `links`, and no other link. `naming` gives each node's
/// port naming.
fn same_cables(
    what: &str,
    cables: &[Cable],
    naming: &BTreeMap<String, Naming>,
    links: &[Link],
    no_mgmt: bool,
) {
    let mut want: BTreeMap<(End, End), usize> = BTreeMap::new();
    let mut plan_ports: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in cables {
        let (Some(na), Some(nb)) = (naming.get(&c.a.0), naming.get(&c.b.0)) else {
            continue;
        };
        if no_mgmt && c.tier == "mgmt" {
            continue;
        }
        for (end, n) in [(&c.a, na), (&c.b, nb)] {
            if let Some(p) = expected(*n, &end.1) {
                plan_ports.entry(&end.0).or_default().insert(p);
            }
        }
        let k = key(
            (c.a.0.clone(), expected(*na, &c.a.1)),
            (c.b.0.clone(), expected(*nb, &c.b.1)),
        );
        *want.entry(k).or_default() += 1;
    }
    let mut got: BTreeMap<(End, End), usize> = BTreeMap::new();
    for (a, b) in links {
        let end = |(d, p): &(String, String)| -> End {
            let named = plan_ports.get(d.as_str()).is_some_and(|s| s.contains(p));
            (d.clone(), named.then(|| p.clone()))
        };
        *got.entry(key(end(a), end(b))).or_default() += 1;
    }
    let diff: Vec<_> = want
        .iter()
        .filter(|(k, n)| got.get(*k) != Some(n))
        .map(|(k, n)| format!("{k:?}: planned {n}, exported {}", got.get(k).unwrap_or(&0)))
        .chain(
            got.iter()
                .filter(|(k, _)| !want.contains_key(*k))
                .map(|(k, n)| format!("{k:?}: exported {n}, not planned")),
        )
        .take(10)
        .collect();
    assert!(
        diff.is_empty(),
        "{what}: cables differ from cabling.csv:\n{}",
        diff.join("\n")
    );
    assert!(!links.is_empty(), "{what}: no links");
}

/// One compiled example and its exports.
struct Example {
    name: String,
    compiled: railyard::Compiled,
    cables: Vec<Cable>,
    netbox_cables: Vec<u8>,
    exports: BTreeMap<Target, Result<Vec<OutputFile>, String>>,
}

fn example(path: &Path, platform: Option<Platform>) -> Example {
    let src = SourceFile::new(
        path.display().to_string(),
        std::fs::read_to_string(path).unwrap(),
    );
    let compiled = match platform {
        Some(p) => railyard::compile_for_platform(&src, p),
        None => railyard::compile(&src),
    };
    let files = compiled
        .outputs_only(
            &railyard::render::Templates::default(),
            &Selection::of(&[OutputGroup::Cabling]),
        )
        .unwrap()
        .unwrap();
    let file = |p: &str| files.iter().find(|f| f.path == p).unwrap().bytes.clone();
    let design = compiled.design.as_ref().unwrap();
    let exports = Target::ALL
        .into_iter()
        .map(|t| {
            let r = export::export(t, design, &Images::default(), false);
            (t, r.map(|e| e.files).map_err(|e| e.to_string()))
        })
        .collect();
    Example {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        cables: cabling(&file("cabling.csv")),
        netbox_cables: file("netbox-cables.csv"),
        compiled,
        exports,
    }
}

impl Example {
    fn files(&self, t: Target) -> &[OutputFile] {
        match &self.exports[&t] {
            Ok(f) => f,
            Err(e) => panic!("{}: {}: {e}", self.name, t.name()),
        }
    }

    /// Ethernet switches the lab plan simulates (every one with a platform, OOB aside).
    fn simulated_switches(&self) -> BTreeSet<String> {
        let oob = [Role::OobLeaf, Role::OobCore, Role::OobGateway];
        let f = &self.compiled.design.as_ref().unwrap().fabric;
        f.devices()
            .filter(|d| d.platform.is_some() && !oob.contains(&d.role))
            .map(|d| d.name.clone())
            .collect()
    }

    /// A simulation's nodes: every switch it simulates and every GPU node.
    fn has_every_device(&self, names: &BTreeSet<String>) {
        let switches = self.simulated_switches();
        assert!(switches.is_subset(names), "{}: every switch", self.name);
        assert!(
            self.gpu_nodes().is_subset(names),
            "{}: every GPU node",
            self.name
        );
    }

    fn gpu_nodes(&self) -> BTreeSet<String> {
        let f = &self.compiled.design.as_ref().unwrap().fabric;
        f.devices()
            .filter(|d| d.role == Role::Node)
            .map(|d| d.name.clone())
            .collect()
    }
}

/// Air JSON: only documented fields; links between its nodes, each cable once.
fn check_air(x: &Example) {
    let fields: Value = serde_json::from_str(&fixture("air/topology-fields.json")).unwrap();
    let known = |k: &str| -> BTreeSet<String> {
        fields[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let f = &x.files(Target::Air)[0];
    assert_eq!(f.path, "air.json");
    let t: Value = serde_json::from_slice(&f.bytes).unwrap();
    let keys = |v: &Value| -> BTreeSet<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&t), known("top"), "{}", x.name);
    assert_eq!(t["format"], "JSON");
    assert!(keys(&t["content"]).is_subset(&known("content")));
    let nodes = t["content"]["nodes"].as_object().unwrap();
    let mut naming = BTreeMap::new();
    for (name, n) in nodes {
        assert!(keys(n).is_subset(&known("node")), "{name}: {n}");
        let os = n["os"].as_str().unwrap();
        assert!(n["cpu"].as_u64().unwrap() >= 1 && n["memory"].as_u64().unwrap() >= 1024);
        let rule = if os.starts_with("sonic-vs") {
            Naming::SonicVs
        } else {
            Naming::Kernel
        };
        naming.insert(name.clone(), rule);
    }
    let names: BTreeSet<String> = nodes.keys().cloned().collect();
    x.has_every_device(&names);
    let links: Vec<_> = t["content"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let l = l.as_array().unwrap();
            assert_eq!(l.len(), 2);
            let end = |e: &Value| {
                assert!(keys(e).is_subset(&known("link_end")), "{e}");
                (
                    e["node"].as_str().unwrap().to_string(),
                    e["interface"].as_str().unwrap().to_string(),
                )
            };
            (end(&l[0]), end(&l[1]))
        })
        .collect();
    same_cables(
        &format!("{} air.json", x.name),
        &x.cables,
        &naming,
        &links,
        true,
    );
}

/// UFM CVT: the documented columns; every cable but the management tier, once, as planned.
fn check_ufm(x: &Example) {
    let f = &x.files(Target::UfmCvt)[0];
    let (header, rows) = rows(&f.bytes);
    let want: Vec<String> = fixture("ufm/p2p-columns.txt")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(header, want);
    let naming: BTreeMap<String, Naming> = x
        .cables
        .iter()
        .flat_map(|c| [c.a.0.clone(), c.b.0.clone()])
        .map(|d| (d, Naming::Kernel))
        .collect();
    let fabric = &x.compiled.design.as_ref().unwrap().fabric;
    let hosts: BTreeSet<&str> = fabric
        .devices()
        .filter(|d| matches!(d.role, Role::Node | Role::Appliance))
        .map(|d| d.name.as_str())
        .collect();
    let mut links = Vec::new();
    for r in &rows {
        for side in ["A", "Z"] {
            let name = r[&format!("{side}-Node Name")].as_str();
            let ty = if hosts.contains(name) {
                "Host"
            } else {
                "Switch"
            };
            assert_eq!(r[&format!("{side}-Type")], ty, "{name}");
        }
        let end = |s: &str| {
            (
                r[&format!("{s}-Node Name")].clone(),
                r[&format!("{s}-Port")].clone(),
            )
        };
        links.push((end("A"), end("Z")));
    }
    // Port names compared exactly: every plan name (kernel naming wildcards only over-long ones).
    same_cables(
        &format!("{} ufm-cvt", x.name),
        &x.cables,
        &naming,
        &links,
        true,
    );
}

/// NetBox: columns of the import forms, values of the choice sets, references resolved in file
/// order, and the cables of `netbox-cables.csv`.
fn check_netbox(x: &Example) {
    let forms: Value = serde_json::from_str(&fixture("netbox/import-forms.json")).unwrap();
    let list = |k: &str| -> BTreeSet<String> {
        forms[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let files = x.files(Target::Netbox);
    let order = [
        ("1-sites", "SiteImportForm"),
        ("2-racks", "RackImportForm"),
        ("3-manufacturers", "ManufacturerImportForm"),
        ("4-device-types", "DeviceTypeImportForm"),
        ("5-device-roles", "DeviceRoleImportForm"),
        ("6-devices", "DeviceImportForm"),
        ("7-interfaces", "InterfaceImportForm"),
        ("8-ip-addresses", "IPAddressImportForm"),
        ("9-cables", "CableImportForm"),
    ];
    let mut t: BTreeMap<&str, Vec<BTreeMap<String, String>>> = BTreeMap::new();
    for (file, form) in order {
        let path = format!("netbox/{file}.csv");
        let f = files
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("{path}"));
        let (header, r) = rows(&f.bytes);
        let cols: BTreeSet<String> = header.into_iter().collect();
        assert!(
            cols.is_subset(&list(form)),
            "{path}: {:?}",
            cols.difference(&list(form))
        );
        t.insert(file, r);
    }
    assert_eq!(files.len(), order.len());
    let col = |file: &str, c: &str| -> BTreeSet<String> {
        t[file].iter().map(|r| r[c].clone()).collect()
    };
    let sites = col("1-sites", "name");
    assert!(col("2-racks", "site").is_subset(&sites) && col("6-devices", "site").is_subset(&sites));
    let mut racks = col("2-racks", "name");
    racks.insert(String::new());
    assert!(col("6-devices", "rack").is_subset(&racks));
    assert!(col("4-device-types", "manufacturer").is_subset(&col("3-manufacturers", "name")));
    assert!(col("6-devices", "device_type").is_subset(&col("4-device-types", "model")));
    assert!(col("6-devices", "role").is_subset(&col("5-device-roles", "name")));
    let devices = col("6-devices", "name");
    assert!(col("7-interfaces", "device").is_subset(&devices));
    assert!(col("7-interfaces", "type").is_subset(&list("InterfaceTypeChoices")));
    assert!(col("6-devices", "status").is_subset(&list("DeviceStatusChoices")));
    assert!(col("8-ip-addresses", "status").is_subset(&list("IPAddressStatusChoices")));
    assert!(col("9-cables", "status").is_subset(&list("LinkStatusChoices")));
    assert!(col("9-cables", "type").is_subset(&list("CableTypeChoices")));
    let ifaces: BTreeSet<(String, String)> = t["7-interfaces"]
        .iter()
        .map(|r| (r["device"].clone(), r["name"].clone()))
        .collect();
    for r in &t["8-ip-addresses"] {
        assert!(
            ifaces.contains(&(r["device"].clone(), r["interface"].clone())),
            "{r:?}"
        );
    }
    for r in &t["9-cables"] {
        for s in ["side_a", "side_b"] {
            let end = (
                r[&format!("{s}_device")].clone(),
                r[&format!("{s}_name")].clone(),
            );
            assert!(
                ifaces.contains(&end),
                "{}: cable end {end:?} has no interface",
                x.name
            );
        }
    }
    let cables = files
        .iter()
        .find(|f| f.path == "netbox/9-cables.csv")
        .unwrap();
    assert_eq!(
        cables.bytes, x.netbox_cables,
        "{}: the cables of netbox-cables.csv",
        x.name
    );
    assert_eq!(t["9-cables"].len(), x.cables.len());
}

/// The containerlab topology: every switch and GPU node, each cable once.
fn clab(x: &Example) {
    let files = x.files(Target::Containerlab);
    let topo = files
        .iter()
        .find(|f| f.path.ends_with(".clab.yml"))
        .unwrap();
    let v: Value = serde_saphyr::from_slice(&topo.bytes).unwrap();
    let mut naming = BTreeMap::new();
    for (name, n) in v["topology"]["nodes"].as_object().unwrap() {
        let rule = match n["kind"].as_str().unwrap() {
            "sonic-vs" => Naming::SonicVs,
            "arista_ceos" => Naming::Ceos,
            _ => Naming::Kernel,
        };
        naming.insert(name.clone(), rule);
    }
    let split = |e: &Value| {
        let (d, p) = e.as_str().unwrap().split_once(':').unwrap();
        (d.to_string(), p.to_string())
    };
    let links: Vec<_> = v["topology"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (split(&l["endpoints"][0]), split(&l["endpoints"][1])))
        .collect();
    same_cables(
        &format!("{} containerlab", x.name),
        &x.cables,
        &naming,
        &links,
        true,
    );
    let names: BTreeSet<String> = naming.keys().cloned().collect();
    x.has_every_device(&names);
}

/// Graphviz's reading of DOT files: per file, its graph's name, whether it declares the graph
/// attributes `LLDP` and `BFD`, its nodes with whether they have an `os`, and its edges.
#[derive(Debug, Default)]
struct Graph {
    name: String,
    lldp_bfd: (bool, bool),
    nodes: BTreeMap<String, bool>,
    edges: Vec<Link>,
}

const GVPR: &str = r#"BEG_G { printf("G\t%s\t%d\t%d\n", $G.name, isAttr($G, "G", "LLDP"), isAttr($G, "G", "BFD")); }
N { printf("N\t%s\t%d\n", $.name, isAttr($G, "N", "os")); }
E { printf("E\t%s\t%s\t%s\t%s\n", $.tail.name, $.tailport, $.head.name, $.headport); }"#;

fn graphviz(gvpr: &Path, files: &[PathBuf]) -> Vec<Graph> {
    let out = Command::new(gvpr).arg(GVPR).args(files).output().unwrap();
    assert!(
        out.status.success(),
        "gvpr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut graphs: Vec<Graph> = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "G" => graphs.push(Graph {
                name: f[1].into(),
                lldp_bfd: (f[2] == "1", f[3] == "1"),
                ..Graph::default()
            }),
            "N" => {
                graphs
                    .last_mut()
                    .unwrap()
                    .nodes
                    .insert(f[1].into(), f[2] == "1");
            }
            _ => graphs
                .last_mut()
                .unwrap()
                .edges
                .push(((f[1].into(), f[2].into()), (f[3].into(), f[4].into()))),
        }
    }
    assert_eq!(graphs.len(), files.len(), "one graph per file");
    graphs
}

/// Air DOT and every PTM file through Graphviz; edges against `cabling.csv`.
fn check_dot(x: &Example, gvpr: &Path, dir: &Path) {
    let mut files = Vec::new();
    let mut sources = Vec::new();
    for t in [Target::AirDot, Target::Ptm] {
        for f in x.files(t) {
            let p = dir.join(&x.name).join(&f.path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, &f.bytes).unwrap();
            files.push(p);
            sources.push(f.path.clone());
        }
    }
    let graphs = graphviz(gvpr, &files);
    let fabric = &x.compiled.design.as_ref().unwrap().fabric;
    let cumulus: BTreeSet<String> = fabric
        .devices()
        .filter(|d| d.platform == Some(Platform::Nvue))
        .map(|d| d.name.clone())
        .collect();
    let mut ptm = BTreeSet::new();
    for (g, src) in graphs.iter().zip(&sources) {
        if src == "air.dot" {
            assert!(
                g.nodes.values().all(|os| *os),
                "{}: every Air node has an os",
                x.name
            );
            // The JSON form's nodes and naming, read back, name the same ports.
            let naming = air_naming(x);
            let names: BTreeSet<&String> = naming.keys().collect();
            assert_eq!(g.nodes.keys().collect::<BTreeSet<_>>(), names, "{}", x.name);
            same_cables(
                &format!("{} air.dot", x.name),
                &x.cables,
                &naming,
                &g.edges,
                true,
            );
            continue;
        }
        assert_eq!(src, &format!("ptm/{}/topology.dot", g.name));
        assert_eq!(g.lldp_bfd, (true, true), "{src}: LLDP and BFD defaults");
        ptm.insert(g.name.clone());
        let mine: Vec<Cable> = x
            .cables
            .iter()
            .filter(|c| c.a.0 == g.name || c.b.0 == g.name)
            .cloned()
            .collect();
        let naming = mine
            .iter()
            .flat_map(|c| [c.a.0.clone(), c.b.0.clone()])
            .map(|d| (d, Naming::Kernel))
            .collect();
        // Ports on both ends as planned: ptmd compares the names LLDP reports with these.
        same_cables(src, &mine, &naming, &g.edges, false);
    }
    assert_eq!(ptm, cumulus, "{}: one PTM file per NVUE switch", x.name);
}

/// Each Air node's port naming, from its `os` in the JSON form.
fn air_naming(x: &Example) -> BTreeMap<String, Naming> {
    let f = &x.files(Target::Air)[0];
    let t: Value = serde_json::from_slice(&f.bytes).unwrap();
    let nodes = t["content"]["nodes"].as_object().unwrap();
    nodes
        .iter()
        .map(|(name, n)| {
            let os = n["os"].as_str().unwrap_or_default();
            let rule = if os.starts_with("sonic-vs") {
                Naming::SonicVs
            } else {
                Naming::Kernel
            };
            (name.clone(), rule)
        })
        .collect()
}

fn inventories() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("inventories"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_example_exports_to_every_tool_as_it_reads_them() {
    const TEST: &str = "every_example_exports_to_every_tool_as_it_reads_them";
    let Some(gvpr) = prereq::program(TEST, "gvpr", "graphviz") else {
        return;
    };
    let Some(python) = pyenv::python(TEST) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The reading of DOT sees ptmd's graph defaults and port syntax in ptm's own sample.
    let sample = graphviz(
        &gvpr,
        &[root().join("tests/fixtures/ptm/topology.dot.sample")],
    );
    assert_eq!(sample[0].lldp_bfd, (true, true));
    assert_eq!(
        sample[0].edges[0],
        (
            ("switch1".into(), "swp1".into()),
            ("switch2".into(), "swp41".into())
        )
    );
    let mut topologies = Vec::new();
    for path in inventories() {
        let x = example(&path, None);
        check_ufm(&x);
        check_netbox(&x);
        check_dot_or_nothing(&x, &gvpr, dir.path());
        if x.simulated_switches().is_empty() {
            // Nothing but the OOB network is Ethernet: nothing for a simulator to boot.
            for t in [Target::Air, Target::AirDot, Target::Containerlab] {
                let e = x.exports[&t].as_ref().unwrap_err();
                assert!(e.contains("nothing to boot"), "{}: {e}", x.name);
            }
            continue;
        }
        check_air(&x);
        clab(&x);
        let f = x
            .files(Target::Containerlab)
            .iter()
            .find(|f| f.path.ends_with(".clab.yml"))
            .unwrap();
        let p = dir.path().join(format!("{}.clab.yml", x.name));
        std::fs::write(&p, &f.bytes).unwrap();
        topologies.push(p);
    }
    validate_clab(&python, &topologies);
}

fn check_dot_or_nothing(x: &Example, gvpr: &Path, dir: &Path) {
    if x.simulated_switches().is_empty() {
        // No Air DOT: check the PTM files alone.
        let files: Vec<PathBuf> = x
            .files(Target::Ptm)
            .iter()
            .map(|f| {
                let p = dir.join(&x.name).join(&f.path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, &f.bytes).unwrap();
                p
            })
            .collect();
        let graphs = graphviz(gvpr, &files);
        assert!(
            graphs.iter().all(|g| g.lldp_bfd == (true, true)),
            "{}",
            x.name
        );
        return;
    }
    check_dot(x, gvpr, dir);
}

fn validate_clab(python: &Path, topologies: &[PathBuf]) {
    let out = Command::new(python)
        .arg(pyenv::script("clab_validate.py"))
        .arg(root().join("tests/fixtures/containerlab/clab.schema.json"))
        .args(topologies)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "containerlab schema:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("OK ")).count(),
        topologies.len()
    );
}

/// lab-small with FRR switches: the binary writes the topology and the configs it names; only
/// kinds and node fields of containerlab's schema; each FRR node starts the very `frr.conf` the
/// FRR compile renders (what `railyard lab up` boots) with the daemons its intent needs.
#[test]
fn lab_small_containerlab_boots_the_rendered_frr_configs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("clab");
    let run = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args([
            "export",
            "containerlab",
            "--example",
            "lab-small",
            "--platform",
            "frr",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let schema: Value = serde_json::from_str(&fixture("containerlab/clab.schema.json")).unwrap();
    let node_fields: BTreeSet<&str> = schema["definitions"]["node-config"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let kinds: BTreeSet<&str> = schema["definitions"]["node-config"]["properties"]["kind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let topo: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(out.join("lab-small.clab.yml")).unwrap())
            .unwrap();
    let c = railyard::compile_for_platform(
        &SourceFile::new("lab-small", railyard::LAB_SMALL),
        Platform::Frr,
    );
    let rendered = c.outputs_only(
        &railyard::render::Templates::default(),
        &Selection::of(&[OutputGroup::Configs]),
    );
    let rendered = rendered.unwrap().unwrap();
    let mut frr = 0;
    for (name, n) in topo["topology"]["nodes"].as_object().unwrap() {
        for k in n.as_object().unwrap().keys() {
            assert!(node_fields.contains(k.as_str()), "{name}: field {k}");
        }
        assert!(kinds.contains(n["kind"].as_str().unwrap()), "{name}");
        let Some(binds) = n.get("binds") else {
            continue;
        };
        frr += 1;
        let binds: Vec<&str> = binds
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap())
            .collect();
        let conf = binds
            .iter()
            .find(|b| b.contains(":/etc/frr/frr.conf"))
            .unwrap();
        let src = conf.split(':').next().unwrap();
        let want = rendered
            .iter()
            .find(|f| f.path == format!("configs/{name}/frr.conf"))
            .unwrap();
        assert_eq!(std::fs::read(out.join(src)).unwrap(), want.bytes, "{name}");
        let daemons = binds
            .iter()
            .find(|b| b.contains(":/etc/frr/daemons"))
            .unwrap();
        let text = std::fs::read_to_string(out.join(daemons.split(':').next().unwrap())).unwrap();
        // FRR starts bgpd only when its daemons file says `bgpd=yes` (FRR's `daemons` file):
        // on exactly when the config it boots has a `router bgp` section.
        let conf = String::from_utf8_lossy(&want.bytes);
        let bgp = conf.lines().any(|l| l.starts_with("router bgp "));
        let on = |d: &str| text.lines().any(|l| l == format!("{d}=yes"));
        assert!(on("zebra"), "{text}");
        assert_eq!(on("bgpd"), bgp, "{name}: {text}");
    }
    assert_eq!(frr, 5, "every lab-small switch is an FRR node");
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("configs/spine01/frr.conf"));
}
