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
        // The built-in GB200 tray has rack_scale.c2c and no pcie layout: NCCL asks NVML.
        "NCCL reads the links from NVML itself",
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

/// A spec-declared GB200-like tray with a PCIe layout on two `arm64` (Grace) CPUs and C2C
/// figures. The bus ids and the C2C figures are the test's own (illustrative, not NVIDIA's):
/// the test checks that the file carries what the model declares, where NCCL reads it.
fn c2c_spec(arch: &str) -> String {
    let cpu = |numa: u32, gpus: [(u32, &str); 2], nics: [(u32, &str, &str); 2]| {
        let sw = gpus
            .iter()
            .zip(nics)
            .enumerate()
            .map(|(i, ((g, gbus), (n, nbus, rdma)))| {
                format!(
                    "            - {{ busid: \"ffff:ff:0{}.0\", gpus: [{{ index: {g}, busid: \"{gbus}\" }}], nics: [{{ nic: {n}, busid: \"{nbus}\", rdma: [{rdma}] }}] }}\n",
                    numa * 2 + i as u32 + 1
                )
            })
            .collect::<String>();
        // An x86 CPU needs its vendor and family in NCCL's file (RY0103).
        let x86 = if arch == "x86_64" {
            "          vendor: GenuineIntel\n          familyid: 6\n          modelid: 143\n"
        } else {
            ""
        };
        format!("        - numa: {numa}\n          arch: {arch}\n{x86}          switches:\n{sw}")
    };
    let cpus = cpu(
        0,
        [(0, "0008:01:00.0"), (1, "0009:01:00.0")],
        [(0, "0000:03:00.0", "mlx5_0"), (1, "0002:03:00.0", "mlx5_1")],
    ) + &cpu(
        1,
        [(2, "0018:01:00.0"), (3, "0019:01:00.0")],
        [(2, "0010:03:00.0", "mlx5_4"), (3, "0012:03:00.0", "mlx5_5")],
    );
    let base = inventory(GB200)
        .replace("node_model: gb200-nvl72-tray", "node_model: c2c-tray")
        .replace(
            "count: 2\n  nodes_per_su: 144",
            "count: 1\n  nodes_per_su: 36",
        );
    format!(
        "{base}
catalog:
  nodes:
    c2c-tray:
      vendor: t
      description: test tray
      gpus: 4
      gpu_model: GB200
      ru: 1
      compute:
        - {{ ports: [nic0], speed: 400G, form: osfp, cage: nic0, rdma: mlx5_0 }}
        - {{ ports: [nic1], speed: 400G, form: osfp, cage: nic1, rdma: mlx5_1 }}
        - {{ ports: [nic2], speed: 400G, form: osfp, cage: nic2, rdma: mlx5_4 }}
        - {{ ports: [nic3], speed: 400G, form: osfp, cage: nic3, rdma: mlx5_5 }}
      storage:
        - {{ ports: [bf0p0], speed: 400G, form: qsfp112, cage: bf0p0, rdma: mlx5_2 }}
        - {{ ports: [bf1p0], speed: 400G, form: qsfp112, cage: bf1p0, rdma: mlx5_6 }}
      bmc: {{ ports: [bmc], speed: 1G, form: rj45 }}
      rack_scale:
        system: test NVL72
        trays: 18
        nvlink_switch_trays: 9
        nvlink_gbytes_per_gpu: 1800
        c2c: true
        source: test
      pcie:
        gpu_sm: 100
        link_speed: \"32.0 GT/s PCIe\"
        link_width: 16
        c2c: {{ bw: 45000, count: 10 }}
        cpus:
{cpus}        unverified: [\"every figure: a test layout\"]
      source: test
"
    )
}

/// Each GPU of an nccl-topo.xml with its `<c2c>` attributes, read by the transcription of
/// NCCL's parser (tests/deliverables/hosts.rs).
fn gpus(xml: &str) -> Vec<(String, Vec<BTreeMap<String, String>>)> {
    crate::hosts::gpu_c2c(xml)
}

#[test]
fn nccl_topo_carries_c2c_under_every_gpu_of_a_grace_tray() {
    let out = outputs(&c2c_spec("arm64"));
    let xml = file(&out, "hosts/c2c-tray/nccl-topo.xml");
    let read = gpus(&xml);
    assert_eq!(read.len(), 4, "{xml}");
    for (busid, c2c) in &read {
        assert_eq!(c2c.len(), 1, "one <c2c> under GPU {busid}:\n{xml}");
        let attrs = &c2c[0];
        assert_eq!(attrs.get("bw").map(String::as_str), Some("45000"), "{xml}");
        assert_eq!(attrs.get("count").map(String::as_str), Some("10"), "{xml}");
        // ncclTopoAddC2c: bw × count / 1000 = 450 GB/s between the GPU and its CPU.
        let bw: f64 = attrs["bw"].parse().expect("bw");
        let count: f64 = attrs["count"].parse().expect("count");
        assert_eq!(bw * count / 1000.0, 450.0);
    }
    // Not on an x86 CPU: NVLink-C2C is Grace's.
    let x86 = outputs(&c2c_spec("x86_64"));
    let xml = file(&x86, "hosts/c2c-tray/nccl-topo.xml");
    assert!(gpus(&xml).iter().all(|(_, c)| c.is_empty()), "{xml}");
}
