//! `railyard cabling verify` with LLDP captured on a server, which reports its ports by the names
//! its operating system gives them (`enp26s0np0`), not the plan's (`nic0`) (issue #46 item 2).
//! spectrum-x-cloud's XE9680 nodes: the OS names are read from the build's own netplan for the
//! node (the file the host loads, its interfaces in rail order), the cables from `cabling.csv`.
//! A correct node verifies PASS; two compute plugs swapped on the node name exactly those two
//! cables. Before, every compute port was a miswire whose fix could not be carried out.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use crate::common::{inventory, railyard_in};

/// lldpd `json0` of a host's neighbours: (local port, remote device, remote port).
fn json0(neigh: &[(String, String, String)]) -> String {
    let ifaces: Vec<_> = neigh
        .iter()
        .map(|(local, dev, port)| {
            json!({
                "name": local, "via": "LLDP", "rid": "1", "age": "0 day, 00:00:03",
                "chassis": [{"id": [{"type": "mac", "value": "fa:58:5e:19:14:b8"}],
                             "name": [{"value": dev}]}],
                "port": [{"id": [{"type": "ifname", "value": port}], "descr": [{"value": port}]}]
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"lldp": [{"interface": ifaces}]})).unwrap()
}

/// The node's compute interfaces in rail order, as its netplan names them.
fn netplan_names(out: &Path, node: &str) -> Vec<String> {
    let text = std::fs::read_to_string(out.join(format!("hosts/nodes/{node}/netplan.yaml")))
        .expect("netplan");
    let doc: serde_json::Value = serde_saphyr::from_str(&text).expect("yaml");
    let eth = doc["network"]["ethernets"].as_object().expect("ethernets");
    // serde_json's map is ordered by key; rail order is the file's order.
    let mut names: Vec<(usize, String)> = eth
        .keys()
        .map(|k| (text.find(&format!("    {k}:")).expect("in file"), k.clone()))
        .collect();
    names.sort();
    names.into_iter().map(|(_, k)| k).collect()
}

/// The node's node–leaf cables by rail ("" for its other networks): (cable id, node port, leaf,
/// leaf port).
fn node_cables(out: &Path, node: &str) -> Vec<(String, String, String, String, String)> {
    let mut r = csv::Reader::from_path(out.join("cabling.csv")).unwrap();
    r.deserialize::<BTreeMap<String, String>>()
        .map(|x| x.unwrap())
        .filter(|row| row["a_device"] == node && row["tier"] == "node-leaf")
        .map(|row| {
            let rail = if row["network"] == "compute" {
                row["rail"].clone()
            } else {
                String::new()
            };
            (
                rail,
                row["cable_id"].clone(),
                row["a_port"].clone(),
                row["b_device"].clone(),
                row["b_port"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_server_reporting_os_interface_names_verifies_and_a_swap_names_its_two_cables() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sx.yaml"),
        inventory("spectrum-x-cloud.yaml"),
    )
    .unwrap();
    let o = railyard_in(dir.path(), &["build", "sx.yaml", "-o", "out", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.path().join("out");
    let os = netplan_names(&out, "gpu001");
    let cables = node_cables(&out, "gpu001");
    let compute: Vec<_> = cables.iter().filter(|c| !c.0.is_empty()).collect();
    assert_eq!((os.len(), compute.len()), (8, 8));
    // The capture: each compute port by its OS name (rail r → the netplan's r-th interface),
    // the other node–leaf ports as the plan names them.
    let mut neigh: Vec<(String, String, String)> = cables
        .iter()
        .map(|(rail, _, port, leaf, leaf_port)| {
            let local = match rail.parse::<usize>() {
                Ok(r) => os[r - 1].clone(),
                Err(_) => port.clone(),
            };
            assert_ne!(&local, "", "{port}");
            (local, leaf.clone(), leaf_port.clone())
        })
        .collect();
    assert!(
        neigh.iter().any(|(l, _, _)| !l.starts_with("nic")),
        "OS names are used"
    );
    let verify = |neigh: &[(String, String, String)]| {
        std::fs::write(dir.path().join("cap.json"), json0(neigh)).unwrap();
        railyard_in(
            dir.path(),
            &[
                "cabling",
                "verify",
                "sx.yaml",
                "--devices",
                "gpu001",
                "--tier",
                "node-leaf",
                "--lldp",
                "gpu001=cap.json",
                "--format",
                "json",
            ],
        )
    };
    let o = verify(&neigh);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(v["status"], "pass", "{v:#}");
    assert_eq!(o.status.code(), Some(0));
    // Rails 1 and 2 swapped at the node: their two cables, nothing else.
    let at = |rail: &str| cables.iter().position(|c| c.0 == rail).expect("rail");
    let (i, j) = (at("1"), at("2"));
    assert_eq!(
        (neigh[i].0.as_str(), neigh[j].0.as_str()),
        (os[0].as_str(), os[1].as_str())
    );
    let (r1, r2) = (neigh[i].0.clone(), neigh[j].0.clone());
    neigh[i].0 = r2;
    neigh[j].0 = r1;
    let o = verify(&neigh);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut named: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["cables"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["cable_id"].as_str().map(str::to_string))
        .collect();
    named.sort();
    named.dedup();
    let mut want = vec![cables[i].1.clone(), cables[j].1.clone()];
    want.sort();
    assert_eq!(named, want, "{v:#}");
    // Every fix names plan ports, never an OS name the plan does not have.
    let text = serde_json::to_string(&v["findings"]).unwrap();
    assert!(!os.iter().any(|n| text.contains(n.as_str())), "{text}");
}
