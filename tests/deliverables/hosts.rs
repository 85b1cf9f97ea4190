//! Host-side artifacts (issue 5): NCCL topology XML, NCCL environment, netplan and RoCE script,
//! cross-checked against the cabling plan, the address plan and the switch intent.

use crate::common;
use crate::prereq;

use std::collections::BTreeMap;

use common::{compile_inventory, file, inventory, outputs};
use railyard::catalog::builtin;

/// A parsed element of the generated XML (our format: one element per line).
#[derive(Debug, Default)]
struct El {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<El>,
}

impl El {
    fn get(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.as_str())
    }

    fn walk<'a>(&'a self, out: &mut Vec<&'a El>) {
        out.push(self);
        for c in &self.children {
            c.walk(out);
        }
    }

    fn all(&self) -> Vec<&El> {
        let mut v = Vec::new();
        self.walk(&mut v);
        v
    }
}

/// Parse one line `<name k="v" ...>` / `<name .../>`; checks NCCL's attribute syntax: single
/// spaces between attributes, double-quoted values, nothing after the closing `>`.
fn parse_line(line: &str) -> (El, bool) {
    let body = line
        .strip_prefix('<')
        .unwrap_or_else(|| panic!("not an element: {line}"));
    let (body, closed) = match body.strip_suffix("/>") {
        Some(b) => (b, true),
        None => (
            body.strip_suffix('>')
                .unwrap_or_else(|| panic!("no `>` at the end: {line}")),
            false,
        ),
    };
    let (name, mut rest) = body.split_once(' ').unwrap_or((body, ""));
    let mut attrs = Vec::new();
    while !rest.is_empty() {
        let (k, r) = rest.split_once("=\"").expect("key=\"value\"");
        let (v, r) = r.split_once('"').expect("closing quote");
        assert!(!k.contains(' ') && !k.is_empty(), "bad key in {line}");
        attrs.push((k.to_string(), v.to_string()));
        rest = match r.strip_prefix(' ') {
            Some(r) => {
                assert!(!r.starts_with(' '), "double space in {line}");
                r
            }
            None => {
                assert!(r.is_empty(), "junk after attribute in {line}");
                r
            }
        };
    }
    (
        El {
            name: name.to_string(),
            attrs,
            children: Vec::new(),
        },
        closed,
    )
}

/// Parse the XML and assert NCCL src/graph/xml.cc (NVIDIA/nccl): no prolog, one element per line, ≤ 16 attributes,
/// values ≤ 255 characters, no tabs.
fn parse_topo(xml: &str) -> El {
    assert!(!xml.contains("<?xml"), "NCCL rejects an XML declaration");
    assert!(!xml.contains('\t'), "NCCL's parser stops at tabs");
    let mut stack: Vec<El> = vec![El::default()];
    for raw in xml.lines() {
        let line = raw.trim_start();
        assert_eq!(line, line.trim_end(), "trailing blanks: {raw:?}");
        if line.starts_with("<!--") {
            assert!(line.ends_with("-->") && line.matches("<!--").count() == 1);
            continue;
        }
        assert_eq!(line.matches('<').count(), 1, "one element per line: {raw}");
        if let Some(name) = line.strip_prefix("</") {
            let done = stack.pop().expect("open element");
            assert_eq!(format!("{}>", done.name), name, "closing tag matches");
            stack.last_mut().expect("parent").children.push(done);
            continue;
        }
        let (el, closed) = parse_line(line);
        assert!(el.attrs.len() <= 16, "more than 16 attributes: {raw}");
        for (k, v) in &el.attrs {
            assert!(k.len() <= 255 && v.len() <= 255, "value too long: {raw}");
        }
        if closed {
            stack.last_mut().expect("parent").children.push(el);
        } else {
            stack.push(el);
        }
    }
    assert_eq!(stack.len(), 1, "every element closed");
    let mut root = stack.pop().expect("root");
    assert_eq!(root.children.len(), 1, "one root element");
    let system = root.children.remove(0);
    assert_eq!(system.name, "system");
    assert_eq!(system.get("version"), Some("1"));
    check_handlers(&system);
    system
}

/// The children each element's loader reads, transcribed from NVIDIA/nccl commit
/// 5067397c2676d5aed50042fc39e5c8ee96eb0027 src/graph/xml.cc (`ncclTopoXmlLoadSystem`, `…Cpu`,
/// `…Pci`, `…Gpu` with `nvlink` and `c2c`, `…Nic`); `xmlLoadSub` skips any other child
/// ("Ignoring element"), and the leaves (`nvlink`, `c2c`, `net`, `pcilink`) read none.
const NCCL_HANDLERS: [(&str, &[&str]); 5] = [
    ("system", &["cpu"]),
    ("cpu", &["pci", "nic"]),
    ("pci", &["pci", "gpu", "nic", "pcilink"]),
    ("gpu", &["nvlink", "c2c"]),
    ("nic", &["net"]),
];

/// Every element is one NCCL reads where it stands.
fn check_handlers(e: &El) {
    let read: &[&str] = NCCL_HANDLERS
        .iter()
        .find(|(p, _)| *p == e.name)
        .map_or(&[], |(_, c)| c);
    for c in &e.children {
        assert!(
            read.contains(&c.name.as_str()),
            "NCCL ignores <{}> under <{}>",
            c.name,
            e.name
        );
        check_handlers(c);
    }
}

/// Each GPU's PCI bus id with the attributes of its `<c2c>` children (NCCL's
/// `ncclTopoAddC2c` reads `bw` and `count` there), from a file the transcription accepts.
pub(super) fn gpu_c2c(xml: &str) -> Vec<(String, Vec<BTreeMap<String, String>>)> {
    parse_topo(xml)
        .all()
        .into_iter()
        .filter(|e| e.name == "pci")
        .flat_map(|pci| {
            pci.children.iter().filter(|g| g.name == "gpu").map(|g| {
                let c2c = g
                    .children
                    .iter()
                    .filter(|c| c.name == "c2c")
                    .map(|c| c.attrs.iter().cloned().collect())
                    .collect();
                (pci.get("busid").unwrap_or_default().to_string(), c2c)
            })
        })
        .collect()
}

/// cabling.csv rows of compute node-leaf cables: (node, node port) → (leaf, rail).
fn cabling_rails(
    files: &[railyard::output::OutputFile],
) -> BTreeMap<(String, String), (String, u32)> {
    let text = file(files, "cabling.csv");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (a, ap, b, rail, net, tier) = (
        col("a_device"),
        col("a_port"),
        col("b_device"),
        col("rail"),
        col("network"),
        col("tier"),
    );
    let mut out = BTreeMap::new();
    for row in r.records() {
        let row = row.expect("row");
        if &row[net] != "compute" || row[rail].is_empty() || row[a].starts_with("ufm") {
            continue;
        }
        assert!(
            row[tier].contains("leaf"),
            "a railed cable is a node-leaf cable"
        );
        out.insert(
            (row[a].to_string(), row[ap].to_string()),
            (row[b].to_string(), row[rail].parse().expect("rail number")),
        );
    }
    out
}

fn json(files: &[railyard::output::OutputFile], path: &str) -> serde_json::Value {
    serde_json::from_str(&file(files, path)).expect("valid JSON")
}

fn env_value(env: &str, key: &str) -> Option<String> {
    env.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_string))
}

/// The checks both reference clusters must pass: one XML for the model, 8 GPU–NIC pairs each
/// behind its own PCIe switch, every NIC's rail = the rail of the leaf it is cabled to.
fn check_topology(inv: &str, model: &str, nic_class: &str) -> Vec<railyard::output::OutputFile> {
    let files = outputs(&inventory(inv));
    let per_model = format!("hosts/{model}/nccl-topo.xml");
    let xml_files: Vec<&str> = files
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| p.ends_with("nccl-topo.xml"))
        .collect();
    assert_eq!(
        xml_files,
        [per_model.as_str()],
        "one NCCL XML per node model"
    );
    let system = parse_topo(&file(&files, &per_model));

    // 8 pairs: every PCIe switch holds exactly one GPU and one NIC with one net.
    let bridges: Vec<&El> = system
        .all()
        .into_iter()
        .filter(|e| e.name == "pci" && e.get("class") == Some("0x060400"))
        .collect();
    assert_eq!(bridges.len(), 8);
    let mut pairs = BTreeMap::new();
    for b in &bridges {
        let gpus: Vec<&El> = b
            .children
            .iter()
            .filter(|c| c.get("class") == Some("0x030200"))
            .collect();
        let nics: Vec<&El> = b
            .children
            .iter()
            .filter(|c| c.get("class") == Some(nic_class))
            .collect();
        assert_eq!(
            (gpus.len(), nics.len()),
            (1, 1),
            "one GPU and one NIC per switch"
        );
        let gpu = gpus[0]
            .children
            .iter()
            .find(|c| c.name == "gpu")
            .expect("gpu");
        let nets: Vec<&El> = nics[0]
            .children
            .iter()
            .filter(|c| c.name == "nic")
            .flat_map(|n| &n.children)
            .collect();
        assert_eq!(nets.len(), 1);
        let net = nets[0];
        for k in ["name", "dev", "speed", "port", "gdr", "rail"] {
            assert!(net.get(k).is_some(), "net lacks `{k}`");
        }
        assert_eq!(net.get("speed"), Some("400000"), "Mb/s");
        assert_eq!(net.get("plane"), None, "single-plane fabric");
        let links: u32 = gpu
            .children
            .iter()
            .map(|l| l.get("count").expect("count").parse::<u32>().expect("int"))
            .sum();
        assert_eq!(links, 18, "18 NVLink links per GPU");
        pairs.insert(
            gpu.get("dev").expect("dev").to_string(),
            (
                net.get("name").expect("name").to_string(),
                net.get("rail").expect("rail").parse::<u32>().expect("int"),
            ),
        );
    }
    assert_eq!(pairs.len(), 8, "8 distinct GPUs");
    // GPU i sits with the NIC of rail i (0-based in the XML).
    for (gpu, (_, rail)) in &pairs {
        assert_eq!(gpu, &rail.to_string(), "GPU {gpu} paired with rail {rail}");
    }
    check_rails_against_cabling(inv, &files, &pairs);
    files
}

/// Cross-check against the cabling plan: the XML's rail of the NIC behind each node port equals
/// the rail of the cable from that port, and the leaf at its far end serves that rail.
/// `pairs`: GPU dev → (NIC name, rail) as the XML pairs them.
fn check_rails_against_cabling(
    inv: &str,
    files: &[railyard::output::OutputFile],
    pairs: &BTreeMap<String, (String, u32)>,
) {
    let fabric = compile_inventory(inv);
    let leaf_rails: BTreeMap<&str, &Vec<u32>> = fabric
        .devices()
        .map(|d| (d.name.as_str(), &d.rails))
        .collect();
    let hcas = json(files, "hosts/nccl.json");
    let port_of: BTreeMap<String, String> = hcas["hcas"]
        .as_array()
        .expect("hcas")
        .iter()
        .map(|h| {
            (
                h["rdma"].as_str().expect("rdma").to_string(),
                h["node_port"].as_str().expect("port").to_string(),
            )
        })
        .collect();
    let xml_rail: BTreeMap<&str, u32> = pairs
        .values()
        .map(|(name, rail)| (port_of[name].as_str(), *rail))
        .collect();
    let cabling = cabling_rails(files);
    assert!(!cabling.is_empty());
    let mut nodes = std::collections::BTreeSet::new();
    for ((node, port), (leaf, rail)) in &cabling {
        let x = xml_rail
            .get(port.as_str())
            .unwrap_or_else(|| panic!("{node}:{port} has no net in the XML"));
        assert_eq!(x + 1, *rail, "{node}:{port} on {leaf}");
        assert!(
            leaf_rails[leaf.as_str()].contains(rail),
            "{leaf} serves rail {rail}"
        );
        nodes.insert(node.as_str());
    }
    assert_eq!(
        nodes.len(),
        fabric
            .devices()
            .filter(|d| d.role == railyard::model::Role::Node)
            .count(),
        "every node checked"
    );
}

#[test]
fn spectrum_x_cloud_one_topology_rails_match_cabling() {
    let files = check_topology("spectrum-x-cloud.yaml", "xe9680-bf3", "0x020000");
    let env = file(&files, "hosts/nccl.env");
    assert_eq!(env_value(&env, "NCCL_IB_TC").as_deref(), Some("106"));
    assert_eq!(env_value(&env, "NCCL_CROSS_NIC").as_deref(), Some("0"));
    assert_eq!(env_value(&env, "NCCL_IB_GID_INDEX").as_deref(), Some("3"));
    let hca = env_value(&env, "NCCL_IB_HCA").expect("HCA list");
    assert!(hca.starts_with('='), "exact-match form");
    let entries: Vec<&str> = hca[1..].split(',').collect();
    assert_eq!(entries.len(), 8);
    for (i, e) in entries.iter().enumerate() {
        let f: Vec<&str> = e.split(':').collect();
        assert_eq!(f[1], "1", "port 1");
        assert_eq!(f[2], i.to_string(), "rail field in rail order");
    }
    // The XE9680 layout is not verified: the XML is written for review, the env does not load it.
    assert_eq!(env_value(&env, "NCCL_TOPO_FILE"), None);
    assert!(env.contains("NCCL_TOPO_FILE left out"), "{env}");
    assert!(
        env.contains("UNVERIFIED"),
        "unsourced catalog figures are flagged"
    );
    let j = json(&files, "hosts/nccl.json");
    assert_eq!(j["env"]["NCCL_IB_TC"], "106");
    assert_eq!(j["env"]["NCCL_IB_HCA"].as_str(), Some(hca.as_str()));
    assert!(files.iter().any(|f| f.path == "hosts/xe9680-bf3/roce.sh"));
    assert!(
        !files
            .iter()
            .any(|f| f.path.ends_with("/roce.sh") && f.path.contains("/nodes/"))
    );
}

#[test]
fn superpod_h100_infiniband_topology_and_env() {
    let files = check_topology("dgx-superpod-h100.yaml", "dgx-h100", "0x020700");
    let xml = file(&files, "hosts/dgx-h100/nccl-topo.xml");
    // Sourced figures of the DGX H100 layout: CX-7 at 0000:18:00.0 is mlx5_0, next to GPU 0.
    assert!(xml.contains("busid=\"0000:18:00.0\" class=\"0x020700\""));
    assert!(xml.contains(
        "<net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\" gdr=\"1\" rail=\"0\"/>"
    ));
    assert!(xml.contains(
        "<net name=\"mlx5_11\" dev=\"7\" speed=\"400000\" port=\"1\" gdr=\"1\" rail=\"7\"/>"
    ));
    assert!(xml.contains("modelid=\"143\"") && xml.contains("sm=\"90\""));
    let env = file(&files, "hosts/nccl.env");
    assert_eq!(
        env_value(&env, "NCCL_IB_HCA").as_deref(),
        Some(
            "=mlx5_0:1:0,mlx5_3:1:1,mlx5_4:1:2,mlx5_5:1:3,mlx5_6:1:4,mlx5_9:1:5,mlx5_10:1:6,mlx5_11:1:7"
        )
    );
    assert_eq!(env_value(&env, "NCCL_CROSS_NIC").as_deref(), Some("0"));
    // InfiniBand: no RoCE traffic class or GID index, PKey only once tenants exist.
    assert_eq!(env_value(&env, "NCCL_IB_TC"), None);
    assert_eq!(env_value(&env, "NCCL_IB_GID_INDEX"), None);
    assert_eq!(env_value(&env, "NCCL_IB_PKEY"), None);
    assert!(env.contains("NCCL_IB_PKEY left out"));
    // No RoCE script or netplan on InfiniBand.
    assert!(
        !files
            .iter()
            .any(|f| f.path.ends_with("roce.sh") || f.path.ends_with("netplan.yaml"))
    );
}

/// `roce.dscp` moves the switches, the NIC script and NCCL_IB_TC together.
#[test]
fn roce_dscp_changes_switches_nics_and_nccl_together() {
    let base = inventory("spectrum-x-cloud.yaml");
    let changed = format!("{base}roce: {{dscp: 24}}\n");
    let (a, b) = (outputs(&base), outputs(&changed));
    let env =
        |f: &[railyard::output::OutputFile]| env_value(&file(f, "hosts/nccl.env"), "NCCL_IB_TC");
    assert_eq!(env(&a).as_deref(), Some("106"));
    assert_eq!(env(&b).as_deref(), Some("98"), "24 × 4 + 2");
    let leaf_intent = |f: &[railyard::output::OutputFile]| -> serde_json::Value {
        let path = f
            .iter()
            .map(|x| x.path.as_str())
            .find(|p| p.starts_with("intent/leaf") && p.ends_with(".yaml"))
            .expect("a leaf intent")
            .to_string();
        serde_saphyr::from_str(&file(f, &path)).expect("intent YAML")
    };
    assert_eq!(leaf_intent(&a)["qos"]["roce"]["dscp"], 26);
    assert_eq!(leaf_intent(&b)["qos"]["roce"]["dscp"], 24);
    let script = |f: &[railyard::output::OutputFile]| file(f, "hosts/xe9680-bf3/roce.sh");
    assert!(script(&a).contains("cma_roce_tos -d mlx5_0 -t 106"));
    assert!(script(&b).contains("cma_roce_tos -d mlx5_0 -t 98"));
    assert!(script(&b).contains("/tc/1/traffic_class"));
    assert!(script(&a).contains("--trust dscp") && script(&a).contains("--pfc 0,0,0,1,0,0,0,0"));
    // Some switch config text changes too (the DSCP map is rendered per platform).
    let configs = |f: &[railyard::output::OutputFile]| -> String {
        f.iter()
            .filter(|x| x.path.starts_with("configs/leaf"))
            .map(|x| String::from_utf8_lossy(&x.bytes).into_owned())
            .collect()
    };
    assert_ne!(configs(&a), configs(&b));
}

/// Every netplan address is the even end of the /31 whose odd end the leaf holds, and the rail
/// route goes via that leaf address (addresses.csv and intent/<leaf>.yaml).
#[test]
fn netplan_addresses_pair_with_the_leaf_interfaces() {
    let files = outputs(&inventory("spectrum-x-cloud.yaml"));
    let text = file(&files, "addresses.csv");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (dev, ifc, addr) = (col("device"), col("interface"), col("address"));
    let by_addr: BTreeMap<String, (String, String)> = r
        .records()
        .map(|row| {
            let row = row.expect("row");
            (
                row[addr].to_string(),
                (row[dev].to_string(), row[ifc].to_string()),
            )
        })
        .collect();
    let mut intents: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    let mut checked = 0;
    for node in ["gpu001", "gpu040", "gpu096"] {
        let np: serde_json::Value =
            serde_saphyr::from_str(&file(&files, &format!("hosts/nodes/{node}/netplan.yaml")))
                .expect("netplan YAML");
        let eths = np["network"]["ethernets"].as_object().expect("ethernets");
        assert_eq!(eths.len(), 8);
        let mut tables = std::collections::BTreeSet::new();
        for e in eths.values() {
            let a = e["addresses"][0].as_str().expect("address");
            assert!(a.ends_with("/31"));
            assert_eq!(e["mtu"], 9000);
            let (d, port) = by_addr.get(a).expect("address in addresses.csv");
            assert_eq!(d, node);
            let via = e["routes"][0]["via"].as_str().expect("via");
            assert_eq!(e["routes"][0]["to"], "10.64.0.0/10");
            let table = e["routes"][0]["table"].as_u64().expect("table");
            assert_eq!(e["routing-policy"][0]["table"].as_u64(), Some(table));
            assert_eq!(
                e["routing-policy"][0]["from"].as_str(),
                a.strip_suffix("/31")
            );
            tables.insert(table);
            // The leaf interface whose peer is this node port holds `via`/31 in the same /31.
            let (leaf, _) = by_addr
                .get(&format!("{via}/31"))
                .expect("leaf end in addresses.csv");
            let intent = intents.entry(leaf.clone()).or_insert_with(|| {
                serde_saphyr::from_str(&file(&files, &format!("intent/{leaf}.yaml")))
                    .expect("intent")
            });
            let iface = intent["interfaces"]
                .as_array()
                .expect("interfaces")
                .iter()
                .find(|i| i["peer_device"] == *node && i["peer_port"] == port.as_str())
                .expect("leaf interface facing this port");
            assert_eq!(iface["ipv4"].as_str(), Some(format!("{via}/31").as_str()));
            let (na, la): (ipnet::Ipv4Net, ipnet::Ipv4Net) = (
                a.parse().expect("v4"),
                iface["ipv4"].as_str().expect("v4").parse().expect("v4"),
            );
            assert_eq!(na.trunc(), la.trunc(), "same /31");
            assert_eq!(u32::from(na.addr()) % 2, 0, "node takes the even address");
            checked += 1;
        }
        assert_eq!(tables.len(), 8, "one routing table per rail");
    }
    assert_eq!(checked, 24);
}

/// A NIC/switch disagreement is an error, not a silent fallback (pinned as RY0706 in
/// tests/diagnostics/80-*); agreeing overrides are accepted.
#[test]
fn nic_overrides_must_agree_with_the_switches() {
    let base = inventory("spectrum-x-cloud.yaml");
    let agree = format!(
        "{base}hosts: {{nic_roce_dscp: 26, nic_roce_priority: 3, nic_pfc_priorities: [3], nic_mtu: 9000}}\n"
    );
    assert_eq!(outputs(&base), outputs(&agree));
    for bad in [
        "hosts: {nic_roce_dscp: 24}",
        "hosts: {nic_roce_priority: 4}",
        "hosts: {nic_pfc_priorities: []}",
        "hosts: {nic_mtu: 9216}\nplatforms: {leaf: eos}",
    ] {
        let c = railyard::compile(&railyard::diag::SourceFile::new(
            "s.yaml",
            format!("{base}{bad}\n"),
        ));
        assert!(c.design.is_none(), "{bad} must fail");
        assert!(
            c.diagnostics
                .iter()
                .any(|d| d.code.id == "RY0706" && d.span.is_some()),
            "{bad}: RY0706 with a span"
        );
    }
}

#[test]
fn builtin_pcie_layouts_are_complete() {
    let cat = builtin();
    for name in ["dgx-h100", "dgx-h200", "xe9680-bf3"] {
        let m = &cat.nodes[name];
        let p = m
            .pcie
            .as_ref()
            .unwrap_or_else(|| panic!("{name} has a pcie layout"));
        assert_eq!(p.problems(m), Vec::<String>::new(), "{name}");
    }
}

/// C's `atoi`: optional sign and leading digits, 0 when there are none.
fn atoi(s: &str) -> i32 {
    let t = s.trim_start();
    let (sign, digits) = match t.as_bytes().first() {
        Some(b'-') => (-1, &t[1..]),
        Some(b'+') => (1, &t[1..]),
        _ => (1, t),
    };
    let n: String = digits.chars().take_while(char::is_ascii_digit).collect();
    sign * n.parse::<i32>().unwrap_or(0)
}

/// NCCL's `parseStringList` at NVIDIA/nccl v2.30.7-1 (src/misc/utils.cc): comma-separated
/// `name:port:rail:plane`, each absent or empty field -1.
fn nccl_2_30_7_entries(list: &str) -> Vec<(String, i32, i32, i32)> {
    let field = |f: Option<&str>| f.filter(|t| !t.is_empty()).map_or(-1, atoi);
    list.split(',')
        .filter_map(|e| {
            let mut f = e.split(':');
            let name = f.next().filter(|n| !n.is_empty())?.to_string();
            Some((name, field(f.next()), field(f.next()), field(f.next())))
        })
        .collect()
}

/// The same function at v2.30.4-1: the name up to the first `:`, the port by `atoi` of what
/// follows it (which stops at the next `:`), the rest of the entry skipped.
fn nccl_2_30_4_entries(list: &str) -> Vec<(String, i32)> {
    list.split(',')
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once(':') {
            Some((name, rest)) => (name.to_string(), atoi(rest)),
            None => (e.to_string(), -1),
        })
        .collect()
}

/// `NCCL_IB_HCA` read by both NCCL parsers (transcribed from NVIDIA/nccl): from v2.30.7-1 each
/// entry's rail equals the `rail` of that device's `<net>` in nccl-topo.xml (NCCL keeps the file's
/// value and reports no mismatch, so only equal ids are safe); v2.30.4-1 reads the same devices
/// and ports and ignores the rail field. The file's notes say so, without the "Inconsistent
/// rail/plane" error NCCL's source does not contain.
#[test]
fn nccl_ib_hca_rails_read_the_same_by_old_and_new_nccl() {
    let files = outputs(&inventory("spectrum-x-cloud.yaml"));
    let env = file(&files, "hosts/nccl.env");
    let hca = env_value(&env, "NCCL_IB_HCA").expect("HCA list");
    // NCCL strips the `=` (exact match) before parsing (src/transport/net_ib/init.cc).
    let list = hca.strip_prefix('=').expect("exact-match form");
    let system = parse_topo(&file(&files, "hosts/xe9680-bf3/nccl-topo.xml"));
    let xml_rail: BTreeMap<String, i32> = system
        .all()
        .into_iter()
        .filter(|e| e.name == "net")
        .map(|n| {
            let rail = n.get("rail").expect("rail attribute");
            (n.get("name").expect("name").to_string(), atoi(rail))
        })
        .collect();
    let new = nccl_2_30_7_entries(list);
    assert_eq!(new.len(), 8, "{list}");
    for (name, port, rail, plane) in &new {
        assert_eq!(
            Some(rail),
            xml_rail.get(name),
            "{name}: NCCL_IB_HCA vs nccl-topo.xml"
        );
        assert_eq!(
            (*port, *plane),
            (1, -1),
            "{name}: port 1, no plane on one plane"
        );
    }
    let old: Vec<(String, i32)> = new.iter().map(|(n, p, _, _)| (n.clone(), *p)).collect();
    assert_eq!(
        nccl_2_30_4_entries(list),
        old,
        "older NCCL reads the same devices and ports"
    );
    assert!(!env.contains("Inconsistent"), "{env}");
    assert!(env.contains("NCCL 2.30.7 and later"), "{env}");
    assert!(env.contains("NVIDIA/nccl tag v2.30.7-1"), "{env}");
}

/// Twin-planar: one net per NIC port, `plane` set, NCCL_IB_HCA carries rail and plane.
#[test]
fn twin_planar_nets_carry_rail_and_plane() {
    let mut spec = inventory("spectrum-x-twin-planar.yaml");
    let mut layout = String::from(
        "      pcie:\n        gpu_sm: 100\n        link_speed: \"32.0 GT/s PCIe\"\n        link_width: 16\n        cpus:\n",
    );
    for numa in 0..2 {
        layout.push_str(&format!(
            "          - {{numa: {numa}, arch: x86_64, vendor: GenuineIntel, familyid: 6, modelid: 207, switches: [\n"
        ));
        for g in numa * 4..numa * 4 + 4 {
            layout.push_str(&format!(
                "              {{busid: \"ffff:ff:0{g}.0\", gpus: [{{index: {g}, busid: \"0000:{:02x}:00.0\"}}], nics: [{{nic: {g}, busid: \"0000:{:02x}:00.0\", rdma: [mlx5_{}, mlx5_{}]}}]}},\n",
                0x10 + g * 0x10,
                0x18 + g * 0x10,
                2 * g,
                2 * g + 1
            ));
        }
        layout.push_str("            ]}\n");
    }
    spec.push_str(&layout);
    let files = outputs(&spec);
    let system = parse_topo(&file(&files, "hosts/b300-like/nccl-topo.xml"));
    let nets: Vec<&El> = system
        .all()
        .into_iter()
        .filter(|e| e.name == "net")
        .collect();
    assert_eq!(nets.len(), 16);
    for n in &nets {
        let name = n.get("name").expect("name");
        let k: u32 = name.trim_start_matches("mlx5_").parse().expect("number");
        assert_eq!(n.get("rail"), Some((k / 2).to_string().as_str()));
        assert_eq!(n.get("plane"), Some((k % 2).to_string().as_str()));
        assert_eq!(n.get("port"), Some((1 + k % 2).to_string().as_str()));
    }
    let env = file(&files, "hosts/nccl.env");
    let hca = env_value(&env, "NCCL_IB_HCA").expect("HCA");
    assert!(
        hca.starts_with("=mlx5_0:1:0:0,mlx5_1:1:0:1,mlx5_2:1:1:0,"),
        "{hca}"
    );
    // Two NIC ports per node, one per plane, each with its own /31 and routing table.
    let np = file(&files, "hosts/nodes/gpu001/netplan.yaml");
    assert_eq!(np.matches("/31").count(), 16);
}

/// `hosts.nccl_rails: false` leaves rail ids to NCCL in both the XML and NCCL_IB_HCA.
#[test]
fn rail_ids_can_be_left_to_nccl() {
    let spec = format!(
        "{}hosts: {{nccl_rails: false}}\n",
        inventory("dgx-superpod-h100.yaml")
    );
    let files = outputs(&spec);
    let system = parse_topo(&file(&files, "hosts/dgx-h100/nccl-topo.xml"));
    let nets: Vec<&El> = system
        .all()
        .into_iter()
        .filter(|e| e.name == "net")
        .collect();
    assert_eq!(nets.len(), 8);
    assert!(nets.iter().all(|n| n.get("rail").is_none()));
    let env = file(&files, "hosts/nccl.env");
    assert_eq!(
        env_value(&env, "NCCL_IB_HCA").as_deref(),
        Some("=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1")
    );
}

/// Issue 13: no env file installs a topology whose node model is unverified; a verified model's
/// env does; the build names the unverified model in a located warning (RY0902).
#[test]
fn only_verified_layouts_reach_nccl_topo_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("inventories")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    let (mut verified, mut unverified) = (0, 0);
    for name in names {
        let text = inventory(&name);
        let c = railyard::compile(&railyard::diag::SourceFile::new(&name, text.as_str()));
        let Some(fabric) = c.design.as_ref().map(|d| &d.fabric) else {
            continue;
        };
        let model_name = fabric.sizing.node_model.clone();
        let model = &fabric.catalog.nodes[&model_name];
        let files = outputs(&text);
        let envs: Vec<&railyard::output::OutputFile> = files
            .iter()
            .filter(|f| f.path.starts_with("hosts/") && f.path.ends_with("nccl.env"))
            .collect();
        let is_verified = model.pcie.as_ref().is_some_and(|p| p.verified);
        for e in &envs {
            let text = String::from_utf8_lossy(&e.bytes);
            assert_eq!(
                env_value(&text, "NCCL_TOPO_FILE").is_some(),
                is_verified,
                "{name}: {} with model `{model_name}` (verified: {is_verified})",
                e.path
            );
        }
        let warned = c
            .diagnostics
            .iter()
            .any(|d| d.code.id == "RY0902" && d.message.contains(&model_name) && d.span.is_some());
        let has_layout = model.pcie.is_some();
        assert_eq!(warned, has_layout && !is_verified, "{name}: RY0902");
        if has_layout && !envs.is_empty() {
            if is_verified {
                verified += 1;
            } else {
                unverified += 1;
                // The XML is still there for review.
                assert!(
                    files.iter().any(|f| f.path.ends_with("nccl-topo.xml")),
                    "{name}"
                );
            }
        }
    }
    assert!(verified > 0 && unverified > 0, "both cases covered");
}

/// The DGX H100 layout against NVIDIA's published tables: User Guide Table 5 (netdev `ibp<bus>s0`,
/// bus in decimal) and Table 6 (port → GPU, CPU, RDMA), and the GPU bus ids of NVIDIA's DGX H100
/// host model (NVIDIA/bare-metal-manager-core `crates/bmc-mock/src/hw/nvidia_dgx_h100.rs`).
#[test]
fn dgx_h100_bus_ids_are_the_published_ones() {
    // (GPU, GPU bus id as nvidia-smi prints it, RDMA, netdev of Table 5, CPU of Table 6)
    let published = [
        (0, "00000000:1B:00.0", "mlx5_0", "ibp24s0", 0),
        (1, "00000000:43:00.0", "mlx5_3", "ibp64s0", 0),
        (2, "00000000:52:00.0", "mlx5_4", "ibp79s0", 0),
        (3, "00000000:61:00.0", "mlx5_5", "ibp94s0", 0),
        (4, "00000000:9D:00.0", "mlx5_6", "ibp154s0", 1),
        (5, "00000000:C3:00.0", "mlx5_9", "ibp192s0", 1),
        (6, "00000000:D1:00.0", "mlx5_10", "ibp206s0", 1),
        (7, "00000000:DF:00.0", "mlx5_11", "ibp220s0", 1),
    ];
    let files = outputs(&inventory("dgx-superpod-h100.yaml"));
    let system = parse_topo(&file(&files, "hosts/dgx-h100/nccl-topo.xml"));
    let mut seen = 0;
    for cpu in system.children.iter().filter(|c| c.name == "cpu") {
        let numa: u32 = cpu.get("numaid").expect("numaid").parse().expect("int");
        for bridge in &cpu.children {
            let pcis: Vec<&El> = bridge.children.iter().filter(|c| c.name == "pci").collect();
            let gpu_pci = pcis
                .iter()
                .find(|p| p.get("class") == Some("0x030200"))
                .expect("a GPU behind each switch");
            let nic_pci = pcis
                .iter()
                .find(|p| p.get("class") == Some("0x020700"))
                .expect("a NIC behind each switch");
            let dev: u32 = gpu_pci.children[0]
                .get("dev")
                .expect("dev")
                .parse()
                .expect("int");
            let net = nic_pci
                .all()
                .into_iter()
                .find(|e| e.name == "net")
                .expect("net");
            let (_, gpu_bus, rdma, netdev, cpu_no) = published[dev as usize];
            // nvidia-smi's 8-digit domain and upper case → NCCL's `dddd:bb:dd.f`.
            let want_gpu = gpu_bus[4..].to_lowercase();
            assert_eq!(gpu_pci.get("busid"), Some(want_gpu.as_str()), "GPU {dev}");
            let bus: u32 = netdev
                .trim_start_matches("ibp")
                .trim_end_matches("s0")
                .parse()
                .expect("decimal bus");
            let want_nic = format!("0000:{bus:02x}:00.0");
            assert_eq!(
                nic_pci.get("busid"),
                Some(want_nic.as_str()),
                "NIC of GPU {dev}"
            );
            assert_eq!(net.get("name"), Some(rdma), "RDMA device of GPU {dev}");
            assert_eq!(numa, cpu_no, "socket of GPU {dev}");
            seen += 1;
        }
    }
    assert_eq!(seen, 8);
}

/// roce.sh sets every value of the NIC half of the RoCE class, each equal to the leaves' intent:
/// trust DSCP, CNP DSCP and priority, DCQCN (notification and reaction point) on the priority
/// whose traffic class the leaves ECN-mark; NVIDIA's defaults are CNP DSCP 48 on priority 6 and
/// RoCE on priority 3 (Cumulus Linux RoCE documentation). The script parses as POSIX sh.
#[test]
fn roce_script_sets_cnp_and_dcqcn_as_the_leaves_expect() {
    let files = outputs(&inventory("spectrum-x-cloud.yaml"));
    let script = file(&files, "hosts/xe9680-bf3/roce.sh");
    let leaf_path = files
        .iter()
        .map(|f| f.path.as_str())
        .find(|p| p.starts_with("intent/leaf") && p.ends_with(".yaml"))
        .expect("a leaf intent")
        .to_string();
    let leaf: serde_json::Value =
        serde_saphyr::from_str(&file(&files, &leaf_path)).expect("intent");
    let q = &leaf["qos"];
    let (cnp_dscp, cnp_prio) = (
        q["cnp"]["dscp"].as_u64().expect("dscp"),
        q["cnp"]["priority"].as_u64().expect("p"),
    );
    assert_eq!((cnp_dscp, cnp_prio), (48, 6));
    let ecn_tc = q["ecn"]["traffic_class"].as_u64().expect("ecn tc");
    let marked_prio = [&q["roce"], &q["cnp"]]
        .into_iter()
        .find(|c| c["traffic_class"].as_u64() == Some(ecn_tc))
        .and_then(|c| c["priority"].as_u64())
        .expect("the ECN-marked class");
    assert_eq!(marked_prio, 3);
    let ports = script
        .matches("\nmlnx_qos -i \"$dev\" --trust dscp")
        .count();
    assert_eq!(ports, 8, "one block per compute NIC");
    for (line, want) in [
        (
            format!("echo {cnp_dscp} > \"/sys/class/net/$dev/ecn/roce_np/cnp_dscp\""),
            ports,
        ),
        (
            format!("echo {cnp_prio} > \"/sys/class/net/$dev/ecn/roce_np/cnp_802p_prio\""),
            ports,
        ),
        (
            format!("echo 1 > \"/sys/class/net/$dev/ecn/roce_np/enable/{marked_prio}\""),
            ports,
        ),
        (
            format!("echo 1 > \"/sys/class/net/$dev/ecn/roce_rp/enable/{marked_prio}\""),
            ports,
        ),
    ] {
        assert_eq!(script.matches(line.as_str()).count(), want, "{line}");
    }
    // No DCQCN on any other priority, and the defaults relied upon are named.
    assert_eq!(script.matches("/ecn/roce_rp/enable/").count(), ports);
    assert!(script.contains("mlx5 defaults this script relies on"));
    if let Some(sh) = prereq::program(
        "roce_script_sets_cnp_and_dcqcn_as_the_leaves_expect",
        "sh",
        "dash",
    ) {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("roce.sh");
        std::fs::write(&path, &script).expect("write");
        let st = std::process::Command::new(sh)
            .arg("-n")
            .arg(&path)
            .status()
            .expect("sh");
        assert!(st.success(), "roce.sh is valid sh");
    }
}
