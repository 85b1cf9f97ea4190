//! Rack-scale scheduler files (#41 item 3): one Slurm block per NVLink domain in topology.conf
//! (topology/block) and topology.yaml (`nvlink-blocks`), read back by the transcription of
//! Slurm's own readers (`slurm_block_parser`); the tree, moved to topology-tree.conf, still
//! checked by Debian's slurmctld (22.05). The expected domains come from the graph's devices
//! (`Device::domain`), never from the files under test.

use std::collections::BTreeMap;

use crate::common::{compile_inventory, example_outputs, file};
use crate::scheduler::{check_tree_with_slurmctld, expand, fabric_nodes, parse_conf};
use crate::slurm_block_parser::{BlockConfig, read_topology_conf, read_topology_yaml};
use railyard::model::Role;
use railyard::topology::Fabric;

const GB200: &str = "dgx-superpod-gb200.yaml";
const CONF: &str = "scheduler/slurm/topology.conf";
const TREE_CONF: &str = "scheduler/slurm/topology-tree.conf";
const YAML: &str = "scheduler/slurm/topology.yaml";

/// Domain number → its trays, sorted, from the graph.
fn domains(f: &Fabric) -> BTreeMap<u32, Vec<String>> {
    let mut m: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for d in f.devices().filter(|d| d.role == Role::Node) {
        let n = d
            .domain
            .unwrap_or_else(|| panic!("{} has no NVLink domain", d.name));
        m.entry(n).or_default().push(d.name.clone());
    }
    m.values_mut().for_each(|v| v.sort());
    m
}

/// One block per domain, named `rackNN`, holding exactly the domain's trays; base = 18.
fn assert_blocks(what: &str, c: &BlockConfig, want: &BTreeMap<u32, Vec<String>>) {
    assert_eq!(
        c.blocks.len(),
        want.len(),
        "{what}: one block per NVLink domain"
    );
    for (n, trays) in want {
        let name = format!("rack{n:02}");
        let b = c
            .blocks
            .iter()
            .find(|b| b.name == name)
            .unwrap_or_else(|| panic!("{what}: no block {name}"));
        let mut got = expand(b.nodes.as_deref().unwrap_or(""));
        got.sort();
        assert_eq!(&got, trays, "{what}: block {name}");
    }
    // RA-11338: 18 compute trays per DGX GB200 rack.
    assert_eq!(c.base, Some(18), "{what}: base block size is one rack");
    // 16 domains: levels 1, 2, 4, 8, 16 racks (block_record_validate stops at the block count).
    assert_eq!(
        c.levels.iter().copied().collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4],
        "{what}"
    );
}

#[test]
fn slurm_reads_one_block_per_nvlink_domain_in_both_files() {
    let f = compile_inventory(GB200);
    let want = domains(&f);
    assert_eq!(want.len(), 16, "2 SUs × 8 racks");
    let files = example_outputs(GB200);

    let conf = read_topology_conf(&file(files, CONF))
        .unwrap_or_else(|e| panic!("Slurm's block reader rejects topology.conf: {e}"));
    assert_blocks("topology.conf", &conf, &want);

    let yaml = read_topology_yaml(&file(files, YAML))
        .unwrap_or_else(|e| panic!("Slurm's topology.yaml reader rejects it: {e}"));
    let default = &yaml[0];
    assert!(default.cluster_default, "a cluster default exists");
    assert_eq!(default.name, "nvlink-blocks");
    assert_eq!(default.plugin, "topology/block");
    assert_blocks(
        "topology.yaml nvlink-blocks",
        default.block.as_ref().expect("block config"),
        &want,
    );
    assert_eq!(
        yaml.iter().filter(|t| t.cluster_default).count(),
        1,
        "one cluster default"
    );
    assert!(
        yaml.iter().any(|t| t.plugin == "topology/tree"),
        "the tree stays beside"
    );

    // The headers say which plugin and Slurm each file needs.
    let text = file(files, CONF);
    assert!(text.contains("TopologyPlugin=topology/block") && text.contains("slurm-23-11-0-0rc1"));
    let tree = file(files, TREE_CONF);
    assert!(tree.contains("TopologyPlugin=topology/tree"));
}

#[test]
fn the_tree_moves_to_topology_tree_conf_and_debian_slurmctld_reads_it() {
    let f = compile_inventory(GB200);
    let files = example_outputs(GB200);
    let tree = file(files, TREE_CONF);
    // Every tray under exactly one leaf switch of the tree.
    let mut under: Vec<String> = parse_conf(&tree)
        .into_iter()
        .filter_map(|(_, s)| s.nodes)
        .flatten()
        .collect();
    under.sort();
    assert_eq!(under, fabric_nodes(&f));
    check_tree_with_slurmctld(
        "dgx-superpod-gb200 topology-tree.conf",
        &fabric_nodes(&f),
        &tree,
    );
}

#[test]
fn the_transcription_rejects_what_slurm_rejects() {
    // Negative controls: the reader above would see these mistakes.
    let ok = "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\nBlockSizes=2,4\n";
    assert!(read_topology_conf(ok).is_ok());
    for (bad, why) in [
        (
            "BlockName=b1 Nodes=n1\nBlockSizes=2,6\n",
            "not a power of two",
        ),
        (
            "BlockName=b1 Nodes=n1\nBlockSizes=4,2\n",
            "smaller than the base",
        ),
        (
            "BlockName=b1 Nodes=n1\nBlockName=b1 Nodes=n2\n",
            "defined twice",
        ),
        ("SwitchName=s1 Nodes=n1\n", "a tree file"),
        ("# only a comment\n", "no blocks"),
        ("BlockName=b1 Switches=s1\n", "unknown key after BlockName"),
    ] {
        assert!(read_topology_conf(bad).is_err(), "{why}: {bad}");
    }
    let two_plugins = "- topology: x\n  cluster_default: true\n  block:\n    blocks:\n      - block: b\n        nodes: n1\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n";
    assert!(
        read_topology_yaml(two_plugins).is_err(),
        "block and tree at once"
    );
    let bad_sizes = "- topology: x\n  cluster_default: true\n  block:\n    block_sizes: [18, 54]\n    blocks:\n      - block: b\n        nodes: n1\n";
    assert!(read_topology_yaml(bad_sizes).is_err(), "54 = 3 × 18");
}

#[derive(serde::Deserialize)]
struct NodeLabels {
    name: String,
    labels: BTreeMap<String, String>,
}

#[test]
fn kueue_and_topograph_labels_carry_the_nvlink_domain() {
    let f = compile_inventory(GB200);
    let files = example_outputs(GB200);
    let nodes: Vec<NodeLabels> =
        serde_saphyr::from_str(&file(files, "scheduler/kueue/node-labels.yaml")).expect("yaml");
    let by_name: BTreeMap<&str, &NodeLabels> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let tg = |k: &str| format!("network.topology.nvidia.com/{k}");
    let mut labelled = 0;
    for d in f.devices().filter(|d| d.role == Role::Node) {
        let n = by_name
            .get(d.name.as_str())
            .unwrap_or_else(|| panic!("{} not labelled", d.name));
        let rack = format!("rack{:02}", d.domain.expect("domain"));
        let su = format!("su{:02}", d.su.expect("su"));
        assert_eq!(
            n.labels["topology.railyard.dev/nvlink-domain"], rack,
            "{}",
            d.name
        );
        // topograph: the block label is the NVLink domain, the tree labels follow topology.conf
        // (2-tier: leaf = the SU, spine = the one spine layer, no core).
        assert_eq!(n.labels[&tg("accelerator")], rack, "{}", d.name);
        assert_eq!(n.labels[&tg("leaf")], su, "{}", d.name);
        assert_eq!(n.labels[&tg("spine")], "spine", "{}", d.name);
        assert!(!n.labels.contains_key(&tg("core")), "{}", d.name);
        // The GPU operator's label comes from the fabric; a plan must not fake it.
        assert!(!n.labels.contains_key("nvidia.com/gpu.clique"));
        labelled += 1;
    }
    assert_eq!(labelled, 288);
    assert_eq!(nodes.len(), 288);

    // Kueue's Topology: the NVLink-domain level right below the SU level, above the hostname.
    let topo = file(files, "scheduler/kueue/topology.yaml");
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&topo).expect("yaml");
    let levels: Vec<&str> = docs[0]["spec"]["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .map(|l| l["nodeLabel"].as_str().expect("nodeLabel"))
        .collect();
    assert_eq!(
        levels,
        [
            "topology.railyard.dev/su",
            "topology.railyard.dev/nvlink-domain",
            "kubernetes.io/hostname"
        ]
    );
    let header = file(files, "scheduler/kueue/node-labels.yaml");
    assert!(
        header.contains("<ClusterUUID>.<CliqueID>"),
        "says why the value is the name"
    );
}
