//! Host side of a rack-scale cluster (#41 item 4): one IMEX node list per NVLink domain naming
//! exactly its trays' in-band addresses (expected from the build's own addresses.csv, parsed
//! here, and the graph's domains), and the MNNVL/NVLS/cuMem notes of nccl.env.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{compile_inventory, example_outputs, file, inventory, outputs};
use railyard::catalog::builtin;
use railyard::model::Role;

const GB200: &str = "dgx-superpod-gb200.yaml";

/// (device, interface, network) → address without the prefix length, from addresses.csv.
fn addresses(csv: &str) -> BTreeMap<(String, String, String), String> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).expect(n);
    let (dev, ifname, addr, net) = (
        col("device"),
        col("interface"),
        col("address"),
        col("network"),
    );
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .map(|r| {
            let a = r[addr].split('/').next().expect("address").to_string();
            ((r[dev].into(), r[ifname].into(), r[net].into()), a)
        })
        .collect()
}

#[test]
fn one_imex_list_per_nvlink_domain_naming_exactly_its_trays() {
    let f = compile_inventory(GB200);
    let files = example_outputs(GB200);
    let addrs = addresses(&file(files, "addresses.csv"));
    // The spec converges in-band with storage: a tray's in-band address is on its first storage
    // port (catalog order).
    let model = &builtin().nodes["gb200-nvl72-tray"];
    let first_port = model.storage[0].ports[0].to_string();
    let mut domains: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for d in f.devices().filter(|d| d.role == Role::Node) {
        let key = (d.name.clone(), first_port.clone(), "storage".to_string());
        let a = addrs
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not in addresses.csv"));
        domains
            .entry(d.domain.expect("domain"))
            .or_default()
            .push(a.clone());
    }
    assert_eq!(domains.len(), 16);
    let written: BTreeSet<&str> = files
        .iter()
        .map(|o| o.path.as_str())
        .filter(|p| p.starts_with("hosts/imex/"))
        .collect();
    assert_eq!(written.len(), 16, "one list per domain: {written:?}");
    for (n, want) in &domains {
        let path = format!("hosts/imex/rack{n:02}/nodes_config.cfg");
        let text = file(files, &path);
        // The guide's format: one IP address per line, nothing else.
        let got: Vec<&str> = text.lines().collect();
        for l in &got {
            assert!(
                l.parse::<std::net::IpAddr>().is_ok(),
                "{path}: `{l}` is no address"
            );
        }
        let mut got: Vec<String> = got.into_iter().map(String::from).collect();
        let mut want = want.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{path}: exactly the domain's 18 trays");
        assert_eq!(got.len(), 18);
    }
}

#[test]
fn nccl_env_says_what_mnnvl_needs_on_rack_scale_clusters_only() {
    let env = file(example_outputs(GB200), "hosts/nccl.env");
    for needle in [
        "NCCL_MNNVL_ENABLE left at its default 2",
        "NCCL_CUMEM_ENABLE=0",
        "NCCL_NVLS_ENABLE left at its default 2",
        "NCCL version 2.25.2 and later",
        "commit 5067397c",
        "/etc/nvidia-imex/nodes_config.cfg",
        "nvidia-imex-ctl -N",
    ] {
        assert!(env.contains(needle), "nccl.env lacks `{needle}`:\n{env}");
    }
    // Defaults are kept: no MNNVL/NVLS/cuMem variable is set.
    assert!(!env.lines().any(|l| l.starts_with("NCCL_MNNVL")
        || l.starts_with("NCCL_NVLS")
        || l.starts_with("NCCL_CUMEM")));
    let h100 = file(example_outputs("dgx-superpod-h100.yaml"), "hosts/nccl.env");
    assert!(!h100.contains("MNNVL"), "not rack-scale: no MNNVL notes");
}

#[test]
fn without_an_inband_address_no_imex_list_and_a_note_says_why() {
    let text = inventory(GB200).replace("inband:\n  converged_with_storage: true\n", "");
    assert_ne!(text, inventory(GB200), "the in-band block was removed");
    let out = outputs(&text);
    assert!(!out.iter().any(|o| o.path.starts_with("hosts/imex/")));
    let env = file(&out, "hosts/nccl.env");
    assert!(env.contains("no IMEX node list"), "{env}");
}
