//! Issue 27: `NCCL_SOCKET_IFNAME` must select an interface that routes between nodes in the main
//! routing table, given the per-rail tables `netplan.yaml` writes. Proven on the kernel: two
//! node namespaces configured with iproute2 from the rendered files (each rail NIC's address,
//! its route in its own table and its source rule, from `hosts/nodes/<n>/netplan.yaml`; the
//! in-band ports' /31s from `addresses.csv` with the main-table route to the in-band pool), a
//! third namespace standing for the leaves (every leaf-side /31 end, forwarding), and NCCL's
//! bootstrap reproduced as NVIDIA/nccl v2.30.7-1 does it:
//!
//! - interface selection (`ncclOsFindInterfaces`, src/os/linux.cc): getifaddrs order (the
//!   kernel's address dump, which `ip -o -4 addr show up` prints in the same order), running
//!   interfaces, the list matched by name prefix with `^` (exclude) and `=` (exact); bootstrap
//!   takes the first (`bootstrapNetInit`, src/bootstrap.cc, `maxIfs` = 1);
//! - the root rank's listening socket is bound to that interface's address (`ncclSocketListen`,
//!   src/misc/socket.cc); the other rank connects to it from an unbound socket
//!   (`ncclSocketConnect` binds nothing).
//!
//! The rail NICs are created before the in-band ports, as on a server whose SuperNICs enumerate
//! first; the old value `^lo,docker` then picks a rail NIC, and the connection fails because an
//! unbound socket's route lookup uses the main table, which has no route to another node's rail
//! address (the rail route lives in the table the source rule selects).
//!
//! Needs root and iproute2 (namespaces) and python3 (the two sockets). One namespace set, a few
//! short processes.

use crate::common;
use crate::prereq;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{file, inventory};
use railyard::output::{OutputFile, OutputGroup, Selection};
use serde_json::Value;

const NODES: [&str; 2] = ["gpu001", "gpu002"];

/// The namespaces of this run, removed when dropped.
struct Namespaces {
    nodes: [String; 2],
    fabric: String,
}

impl Namespaces {
    fn new() -> Self {
        let id = std::process::id();
        let s = Namespaces {
            nodes: [format!("ryt-nb{id}-a"), format!("ryt-nb{id}-b")],
            fabric: format!("ryt-nb{id}-f"),
        };
        for ns in s.all() {
            let _ = Command::new("ip")
                .args(["netns", "del", ns])
                .stderr(Stdio::null())
                .status();
            ip(&["netns", "add", ns]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
        }
        s
    }

    fn all(&self) -> [&String; 3] {
        [&self.nodes[0], &self.nodes[1], &self.fabric]
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for ns in self.all() {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn ip(args: &[&str]) -> String {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A veth pair: `name` in the node namespace with `addr`, its peer in the fabric namespace with
/// `gw` (the leaf's end of the /31).
fn cable(ns: &Namespaces, node: &str, name: &str, addr: &str, gw: &str, peer: &str) {
    let prefix = addr.split_once('/').map_or("31", |(_, p)| p);
    ip(&[
        "link", "add", name, "netns", node, "type", "veth", "peer", "name", peer, "netns",
        &ns.fabric,
    ]);
    ip(&["-n", node, "addr", "add", addr, "dev", name]);
    ip(&["-n", node, "link", "set", name, "up"]);
    let gw = format!("{gw}/{prefix}");
    ip(&["-n", &ns.fabric, "addr", "add", &gw, "dev", peer]);
    ip(&["-n", &ns.fabric, "link", "set", peer, "up"]);
}

/// `addresses.csv` rows of one node on one network: (interface, address/len, leaf-side address).
fn node_links(csv: &str, node: &str, network: &str) -> Vec<(String, String, String)> {
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    rows.iter()
        .filter(|r| r.len() >= 7 && r[0] == node && r[4] == "host-link" && r[5] == network)
        .map(|r| {
            let peer = format!("{node}:{}", r[1]);
            let gw = rows
                .iter()
                .find(|g| g.len() >= 7 && g[6] == peer && g[5] == network)
                .unwrap_or_else(|| panic!("no leaf end for {peer}"));
            let gw = gw[2].split_once('/').expect("address/len").0.to_string();
            (r[1].to_string(), r[2].to_string(), gw)
        })
        .collect()
}

/// Configure one node namespace from its rendered netplan and in-band rows.
fn configure_node(ns: &Namespaces, i: usize, netplan: &Value, inband: &[(String, String, String)]) {
    let node = &ns.nodes[i];
    let eths = netplan["network"]["ethernets"]
        .as_object()
        .expect("ethernets");
    // Rails first (see the file header), in the order netplan lists them.
    for (k, (name, e)) in eths.iter().enumerate() {
        let addr = e["addresses"][0].as_str().expect("address");
        let route = &e["routes"][0];
        let via = route["via"].as_str().expect("via");
        let table = route["table"].as_u64().expect("table").to_string();
        cable(ns, node, name, addr, via, &format!("n{i}r{k}"));
        let to = route["to"].as_str().expect("to");
        ip(&[
            "-n", node, "route", "add", to, "via", via, "dev", name, "table", &table,
        ]);
        for p in e["routing-policy"].as_array().expect("routing-policy") {
            let from = p["from"].as_str().expect("from");
            let t = p["table"].as_u64().expect("table").to_string();
            ip(&["-n", node, "rule", "add", "from", from, "table", &t]);
        }
    }
    // The in-band ports and the main-table route to the in-band pool over them.
    let pool = railyard::spec::defaults::inband_pool().value;
    let mut route = vec!["-n", node, "route", "add", pool.as_str()];
    for (k, (name, addr, gw)) in inband.iter().enumerate() {
        cable(ns, node, name, addr, gw, &format!("n{i}i{k}"));
        route.extend(["nexthop", "via", gw, "dev", name]);
    }
    ip(&route);
}

/// NCCL's bootstrap interface in namespace `ns` for `NCCL_SOCKET_IFNAME=value`: (name, IPv4).
fn nccl_bootstrap_if(ns: &str, value: &str) -> Option<(String, String)> {
    let (not, list) = match value.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    let (exact, list) = match list.strip_prefix('=') {
        Some(rest) => (true, rest),
        None => (false, list),
    };
    let prefixes: Vec<&str> = list.split(',').take(16).collect();
    let listed = |name: &str| {
        prefixes.iter().any(|p| {
            if exact {
                name == *p
            } else {
                name.starts_with(p)
            }
        })
    };
    ip(&["-n", ns, "-o", "-4", "addr", "show", "up"])
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let addr = f.get(3)?.split_once('/')?.0;
            Some((f.get(1)?.to_string(), addr.to_string()))
        })
        .find(|(name, _)| listed(name) != not)
}

/// The root rank listens on `addr` (bound) in `server_ns`; the other connects from `client_ns`
/// unbound. Ok, or the client's error.
fn bootstrap_connect(server_ns: &str, client_ns: &str, addr: &str) -> Result<(), String> {
    const SERVER: &str = "import socket,sys\n\
        s=socket.socket(); s.bind((sys.argv[1],0)); s.listen(1); s.settimeout(5)\n\
        print(s.getsockname()[1], flush=True)\n\
        c,_=s.accept(); print(c.recv(16).decode(), flush=True)\n";
    const CLIENT: &str = "import socket,sys\n\
        c=socket.create_connection((sys.argv[1],int(sys.argv[2])),timeout=3); c.sendall(b'hello')\n";
    let mut server = Command::new("ip")
        .args(["netns", "exec", server_ns, "python3", "-c", SERVER, addr])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server");
    let mut lines = BufReader::new(server.stdout.take().expect("stdout")).lines();
    let port = lines.next().expect("port line").expect("read port");
    let client = Command::new("ip")
        .args([
            "netns", "exec", client_ns, "python3", "-c", CLIENT, addr, &port,
        ])
        .output()
        .expect("client");
    if !client.status.success() {
        let _ = server.kill();
        let _ = server.wait();
        let err = String::from_utf8_lossy(&client.stderr);
        return Err(err.lines().last().unwrap_or("").to_string());
    }
    let got = lines.next().map(|l| l.unwrap_or_default());
    let _ = server.wait();
    assert_eq!(
        got.as_deref(),
        Some("hello"),
        "the root rank got the message"
    );
    Ok(())
}

/// Only the two output groups the test reads (the report would triple its time).
fn hosts_and_addresses(spec: &str) -> Vec<OutputFile> {
    let c = railyard::compile(&railyard::diag::SourceFile::new("spec.yaml", spec));
    let only = Selection::of(&[OutputGroup::Hosts, OutputGroup::Addresses]);
    match c.outputs_only(&railyard::render::Templates::default(), &only) {
        Some(Ok(files)) => files,
        other => panic!("did not build: {:?}", other.map(|r| r.map(|f| f.len()))),
    }
}

fn env_value(env: &str, key: &str) -> String {
    env.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("nccl.env has no {key}"))
        .to_string()
}

#[test]
fn nccl_bootstraps_over_the_interface_that_routes_in_the_main_table() {
    let test = "nccl_bootstraps_over_the_interface_that_routes_in_the_main_table";
    if !prereq::root(test)
        || prereq::program(test, "ip", "iproute2").is_none()
        || prereq::program(test, "python3", "python3").is_none()
    {
        return;
    }
    let files = hosts_and_addresses(&inventory("sonic-rail-cluster.yaml"));
    let csv = file(&files, "addresses.csv");
    let new = env_value(&file(&files, "hosts/nccl.env"), "NCCL_SOCKET_IFNAME");
    let old = railyard::spec::defaults::socket_ifname().value.to_string();
    assert_eq!(old, "^lo,docker");

    let ns = Namespaces::new();
    ip(&[
        "netns",
        "exec",
        &ns.fabric,
        "sysctl",
        "-qw",
        "net.ipv4.ip_forward=1",
    ]);
    let mut inband = Vec::new();
    for (i, node) in NODES.iter().enumerate() {
        let text = file(&files, &format!("hosts/nodes/{node}/netplan.yaml"));
        let netplan: Value = serde_saphyr::from_str(&text).expect("netplan YAML");
        let ports = node_links(&csv, node, "inband");
        assert!(!ports.is_empty(), "{node}: no in-band address planned");
        configure_node(&ns, i, &netplan, &ports);
        inband.push(ports);
    }
    let [a, b] = &ns.nodes;

    // The old value: the root rank's bootstrap interface is a rail NIC, and the other node, whose
    // unbound socket looks up the main table, cannot reach it; its rail table could.
    let (name, addr) = nccl_bootstrap_if(a, &old).expect("an interface");
    assert!(
        !inband[0].iter().any(|p| p.0 == name),
        "^lo,docker picked the in-band port {name}; the premise (rails first) broke"
    );
    let err = bootstrap_connect(a, b, &addr).expect_err("a rail address from the main table");
    assert!(err.contains("unreachable"), "{err}");
    let main = Command::new("ip")
        .args(["-n", b, "route", "get", &addr])
        .output()
        .expect("ip route get");
    assert!(!main.status.success(), "main table routes {addr}: {main:?}");
    let (_, b_rail) = nccl_bootstrap_if(b, &old).expect("an interface");
    let by_rule = ip(&["-n", b, "route", "get", &addr, "from", &b_rail]);
    assert!(by_rule.contains(" table "), "{by_rule}");

    // The new value: the first interface left is an in-band port, reachable from the main table.
    let (name, addr) = nccl_bootstrap_if(a, &new).expect("an interface");
    assert!(
        inband[0]
            .iter()
            .any(|p| p.0 == name && p.1.starts_with(&format!("{addr}/"))),
        "{new} picked {name} ({addr}), not an in-band port"
    );
    bootstrap_connect(a, b, &addr).expect("bootstrap over the in-band network");
    let (name_b, _) = nccl_bootstrap_if(b, &new).expect("an interface");
    assert!(inband[1].iter().any(|p| p.0 == name_b), "{name_b}");
}
