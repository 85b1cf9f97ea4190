//! Day zero in network namespaces (#45 item 4): real ISC Kea, started with the build's
//! `dayzero/kea-dhcp4.json`, in one namespace; one sampled switch per management subnet in a
//! namespace of its own, its `eth0` a veth with the MAC of the identity file; ISC dhclient on it
//! gets exactly the planned address (the build's `addresses.csv`, read here as CSV), the subnet's
//! gateway as router and the ZTP option pointing at its script. The server's side of each veth
//! holds the subnet's gateway address, as the OOB gateway does on that VLAN: Kea picks the
//! subnet by the address of the interface a request came in on (no relay: docs/day-zero.md).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use railyard::dayzero::ProvisioningUrl;
use railyard::diag::{Diagnostics, SourceFile};
use railyard::output::{OutputGroup, Selection};
use serde_json::Value;

use crate::prereq;

const URL: &str = "http://192.0.2.10/site";

/// A management row of `addresses.csv`.
struct Planned {
    device: String,
    address: String,
    prefix: String,
    gateway: String,
}

fn planned(addresses: &str) -> Vec<Planned> {
    let mut r = csv::Reader::from_reader(addresses.as_bytes());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (device, address, purpose, peer) =
        (col("device"), col("address"), col("purpose"), col("peer"));
    r.records()
        .map(|rec| rec.expect("row"))
        .filter(|rec| &rec[purpose] == "mgmt")
        .map(|rec| {
            let (addr, len) = rec[address].split_once('/').expect("prefix");
            Planned {
                device: rec[device].to_owned(),
                address: addr.to_owned(),
                prefix: len.to_owned(),
                gateway: rec[peer].split(' ').nth(1).expect("gateway").to_owned(),
            }
        })
        .collect()
}

/// The namespaces and processes of the test, removed when it ends (also half-way).
struct Netns {
    names: Vec<String>,
    children: Vec<Child>,
}

impl Drop for Netns {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("ip runs");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mac(i: usize) -> String {
    format!("02:00:00:00:dd:{i:02x}")
}

/// The dhclient exit script: on a lease, its address, routers and ZTP URL into `record`; the
/// interface is left alone (the test reads the offer, it does not route). dhclient gives the
/// script an environment of its own, so the path is written into it.
fn record_script(record: &Path) -> String {
    let r = record.display();
    format!(
        "#!/bin/sh\ncase \"$reason\" in BOUND|RENEW|REBOOT)\n  printf 'ip=%s\\nrouters=%s\\nztp=%s\\n' \"$new_ip_address\" \"$new_routers\" \"$new_cumulus_provision_url\" > '{r}.tmp' && mv '{r}.tmp' '{r}';;\nesac\nexit 0\n"
    )
}

/// What dhclient asks for: option 239 named as Cumulus Linux's dhclient.conf names it.
const DHCLIENT_CONF: &str = "option cumulus-provision-url code 239 = text;\nrequest subnet-mask, routers, cumulus-provision-url;\n";

#[test]
fn each_sampled_switch_gets_its_planned_lease_router_and_ztp_url_from_kea() {
    let test = "each_sampled_switch_gets_its_planned_lease_router_and_ztp_url_from_kea";
    if !prereq::root(test) {
        return;
    }
    let (Some(kea), Some(dhclient)) = (
        prereq::program(test, "kea-dhcp4", "kea-dhcp4-server"),
        prereq::program(test, "dhclient", "isc-dhcp-client"),
    ) else {
        return;
    };
    let c = railyard::compile(&SourceFile::new("lab-small.yaml", railyard::LAB_SMALL));
    let files = c
        .outputs_only(
            &railyard::render::Templates::default(),
            &Selection::of(&[OutputGroup::Addresses]),
        )
        .expect("compiles")
        .expect("renders");
    let addresses = files
        .iter()
        .find(|f| f.path == "addresses.csv")
        .expect("addresses.csv");
    let rows = planned(std::str::from_utf8(&addresses.bytes).expect("utf-8"));
    // One switch per management subnet (by gateway), in row order.
    let mut sample: Vec<&Planned> = Vec::new();
    for r in &rows {
        if !sample.iter().any(|s| s.gateway == r.gateway) {
            sample.push(r);
        }
    }
    assert!(
        sample.len() >= 3,
        "lab-small has several management subnets"
    );
    let ids: String = std::iter::once("name,mac_address\n".to_owned())
        .chain(
            sample
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{},{}\n", s.device, mac(i))),
        )
        .collect();
    let design = c.design.as_ref().expect("compiled");
    let mut diags = Diagnostics::default();
    let ids =
        railyard::dayzero::parse(&SourceFile::new("ids.csv", ids), &design.fabric, &mut diags);
    let url = ProvisioningUrl::parse(URL).expect("url");
    let out = railyard::dayzero::files(design, &ids, Some(&url), &mut diags)
        .expect("written")
        .expect("reserved");
    let kea_file = out
        .iter()
        .find(|f| f.path == "dayzero/kea-dhcp4.json")
        .expect("kea");

    let dir = tempfile::tempdir().expect("tempdir");
    let tag = format!("rydz{}", std::process::id());
    let (mut ns, ifaces) = wire(&sample, &tag);
    let kea_log = start_kea(&mut ns, &kea, &kea_file.bytes, &ifaces, &tag, dir.path());
    let records = start_clients(&mut ns, &dhclient, &tag, sample.len(), dir.path());
    let deadline = Instant::now() + Duration::from_secs(60);
    while records.iter().any(|r| !r.exists()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let log = std::fs::read_to_string(&kea_log).unwrap_or_default()
        + &std::fs::read_to_string(dir.path().join("dhclient0.log")).unwrap_or_default();
    for (i, s) in sample.iter().enumerate() {
        let got = std::fs::read_to_string(&records[i])
            .unwrap_or_else(|_| panic!("{} got no lease in 60 s; Kea said:\n{log}", s.device));
        let want = format!(
            "ip={}\nrouters={}\nztp={URL}/dayzero/ztp/{}/cumulus-ztp.sh\n",
            s.address, s.gateway, s.device
        );
        assert_eq!(got, want, "{}", s.device);
    }
    drop(ns);
}

/// The server's namespace and one per sampled switch, joined by a veth each: the switch's end
/// `eth0` with its MAC, the server's end holding the subnet's gateway address and running.
fn wire(sample: &[&Planned], tag: &str) -> (Netns, Vec<String>) {
    let server = format!("{tag}-srv");
    let mut ns = Netns {
        names: vec![server.clone()],
        children: Vec::new(),
    };
    ip(&["netns", "add", &server]);
    let mut ifaces = Vec::new();
    for (i, s) in sample.iter().enumerate() {
        let client = format!("{tag}-{i}");
        ns.names.push(client.clone());
        ip(&["netns", "add", &client]);
        let (srv_if, sw_if) = (format!("k{i}"), format!("{tag}c{i}"));
        ip(&[
            "link", "add", &srv_if, "netns", &server, "type", "veth", "peer", "name", &sw_if,
            "netns", &client,
        ]);
        ip(&["-n", &client, "link", "set", &sw_if, "name", "eth0"]);
        ip(&["-n", &client, "link", "set", "eth0", "address", &mac(i)]);
        ip(&["-n", &client, "link", "set", "eth0", "up"]);
        ip(&[
            "-n",
            &server,
            "addr",
            "add",
            &format!("{}/{}", s.gateway, s.prefix),
            "dev",
            &srv_if,
        ]);
        ip(&["-n", &server, "link", "set", &srv_if, "up"]);
        ifaces.push(srv_if);
    }

    // Kea opens a socket only on an interface that is running: wait for each veth's carrier.
    let deadline = Instant::now() + Duration::from_secs(10);
    for i in &ifaces {
        while !String::from_utf8_lossy(
            &Command::new("ip")
                .args(["-n", &server, "-o", "link", "show", i])
                .output()
                .expect("ip")
                .stdout,
        )
        .contains("LOWER_UP")
        {
            assert!(Instant::now() < deadline, "{i} never came up");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    (ns, ifaces)
}

/// Kea on the build's file, but for where it listens and keeps its leases; its log's path.
fn start_kea(
    ns: &mut Netns,
    kea: &Path,
    file: &[u8],
    ifaces: &[String],
    tag: &str,
    dir: &Path,
) -> PathBuf {
    let server = format!("{tag}-srv");
    // The build's file as it is, but for where this Kea listens and keeps its leases.
    let mut config: Value = serde_json::from_slice(file).expect("json");
    config["Dhcp4"]["interfaces-config"]["interfaces"] = serde_json::json!(ifaces);
    config["Dhcp4"]["lease-database"] = serde_json::json!({
        "type": "memfile", "persist": false, "lfc-interval": 0
    });
    let conf = dir.join("kea-dhcp4.json");
    std::fs::write(&conf, serde_json::to_vec_pretty(&config).expect("bytes")).expect("write");
    let kea_log = dir.join("kea.log");
    let log_file = std::fs::File::create(&kea_log).expect("log");
    ns.children.push(
        Command::new("ip")
            .args(["netns", "exec", &server])
            .arg(kea)
            .arg("-c")
            .arg(&conf)
            .env("KEA_LOCKFILE_DIR", dir)
            .env("KEA_PIDFILE_DIR", dir)
            .stdout(log_file.try_clone().expect("log"))
            .stderr(log_file)
            .spawn()
            .expect("kea-dhcp4 starts"),
    );
    kea_log
}

/// dhclient on each switch's `eth0`; the files its exit scripts record the leases in.
fn start_clients(ns: &mut Netns, dhclient: &Path, tag: &str, n: usize, dir: &Path) -> Vec<PathBuf> {
    let dhconf = dir.join("dhclient.conf");
    std::fs::write(&dhconf, DHCLIENT_CONF).expect("conf");
    let mut records: Vec<PathBuf> = Vec::new();
    for i in 0..n {
        let record = dir.join(format!("lease{i}.txt"));
        let script = dir.join(format!("record{i}.sh"));
        std::fs::write(&script, record_script(&record)).expect("script");
        Command::new("chmod")
            .arg("+x")
            .arg(&script)
            .status()
            .expect("chmod");
        let child = Command::new("ip")
            .args(["netns", "exec", &format!("{tag}-{i}")])
            .arg(dhclient)
            .args(["-d", "-4", "-cf"])
            .arg(&dhconf)
            .arg("-sf")
            .arg(&script)
            .arg("-lf")
            .arg(dir.join(format!("dhclient{i}.leases")))
            .arg("-pf")
            .arg(dir.join(format!("dhclient{i}.pid")))
            .arg("eth0")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join(format!("dhclient{i}.log"))).expect("log"))
            .spawn()
            .expect("dhclient starts");
        ns.children.push(child);
        records.push(record);
    }
    records
}
