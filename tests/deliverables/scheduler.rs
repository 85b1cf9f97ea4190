//! Scheduler topology outputs (Slurm topology documentation): Slurm topology.conf / topology.yaml and Kueue TAS,
//! checked against the fabric graph they are derived from, and topology.conf against a real
//! Slurm 22.05 `slurmctld` (LAB-NOTES "Slurm 22.05").
//!
//! The real-daemon tests need `apt-get install -y --no-install-recommends slurmctld slurm-client`;
//! they never install anything and fail when it is missing unless `RAILYARD_SKIP=slurm`.

use crate::common;
use crate::prereq;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::*;
use railyard::model::{Network, Role, Tier};
use railyard::output::OutputGroup;
use railyard::topology::Fabric;
use serde::Deserialize;

const INVENTORIES: [&str; 7] = [
    "spectrum-x-cloud.yaml",
    "dgx-superpod-h100.yaml",
    "dgx-b200-16su.yaml",
    "tor-cluster.yaml",
    "spectrum-x-twin-planar.yaml",
    "lab-small.yaml",
    "mdx-research-cloud.yaml",
];
const PREFIX: &str = "topology.railyard.dev";
const CONF: &str = "scheduler/slurm/topology.conf";
const SLURM_YAML: &str = "scheduler/slurm/topology.yaml";
const KUEUE_YAML: &str = "scheduler/kueue/topology.yaml";
const NODE_LABELS: &str = "scheduler/kueue/node-labels.yaml";
const LABEL_SCRIPT: &str = "scheduler/kueue/label-nodes.sh";
const APT_LINE: &str = "apt-get install -y --no-install-recommends slurmctld slurm-client";

// ---------------------------------------------------------------------------------------------
// Helpers: an independent hostlist expander and parsers for the generated files.
// ---------------------------------------------------------------------------------------------

/// Expand a Slurm hostlist (`gpu[001-016,018],login`); written apart from the crate's
/// compressor so the two check each other. Panics on malformed input.
pub(super) fn expand(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    let bytes: Vec<char> = expr.chars().collect();
    let mut terms = Vec::new();
    for (i, c) in bytes.iter().enumerate() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(bytes[start..i].iter().collect::<String>());
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(bytes[start..].iter().collect::<String>());
    for t in terms {
        match t.split_once('[') {
            None => out.push(t),
            Some((prefix, rest)) => {
                let inner = rest
                    .strip_suffix(']')
                    .unwrap_or_else(|| panic!("bad hostlist `{expr}`"));
                for r in inner.split(',') {
                    let (lo, hi) = r.split_once('-').unwrap_or((r, r));
                    let w = lo.len();
                    let lo: u64 = lo.parse().expect("range start");
                    let hi: u64 = hi.parse().expect("range end");
                    assert!(lo <= hi, "descending range in `{expr}`");
                    out.extend((lo..=hi).map(|n| format!("{prefix}{n:0w$}")));
                }
            }
        }
    }
    out
}

/// One `SwitchName=` line of topology.conf.
#[derive(Debug, Default, Clone)]
pub(super) struct ConfSwitch {
    pub(super) nodes: Option<Vec<String>>,
    switches: Option<Vec<String>>,
}

/// topology.conf as switch name → switch, in file order.
pub(super) fn parse_conf(text: &str) -> Vec<(String, ConfSwitch)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if line.starts_with('#') {
            continue;
        }
        let mut name = None;
        let mut sw = ConfSwitch::default();
        for word in line.split_whitespace() {
            let (k, v) = word
                .split_once('=')
                .unwrap_or_else(|| panic!("not key=value: `{word}` in `{line}`"));
            match k {
                "SwitchName" => name = Some(v.to_string()),
                "Nodes" => sw.nodes = Some(expand(v)),
                "Switches" => sw.switches = Some(expand(v)),
                other => panic!("unexpected key `{other}` in `{line}`"),
            }
        }
        out.push((name.expect("SwitchName"), sw));
    }
    out
}

/// Leaf switch → its nodes, and child switch → parent switch.
struct TreeView {
    leaves: BTreeMap<String, Vec<String>>,
    parent: BTreeMap<String, String>,
    roots: Vec<String>,
    order: Vec<String>,
}

impl TreeView {
    fn new(switches: &[(String, ConfSwitch)]) -> Self {
        let mut leaves = BTreeMap::new();
        let mut parent = BTreeMap::new();
        let mut names = BTreeSet::new();
        for (name, sw) in switches {
            assert!(names.insert(name.clone()), "duplicate switch `{name}`");
            assert!(name.len() <= 64, "switch name over 64 characters: {name}");
            match (&sw.nodes, &sw.switches) {
                (Some(n), None) => {
                    leaves.insert(name.clone(), n.clone());
                }
                (None, Some(children)) => {
                    for c in children {
                        let prev = parent.insert(c.clone(), name.clone());
                        assert!(prev.is_none(), "`{c}` has two parents");
                    }
                }
                _ => panic!("switch `{name}` needs exactly one of Nodes and Switches"),
            }
        }
        for c in parent.keys() {
            assert!(names.contains(c), "child switch `{c}` is not defined");
        }
        let roots: Vec<String> = switches
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| !parent.contains_key(n))
            .collect();
        Self {
            leaves,
            parent,
            roots,
            order: switches.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    /// Node → leaf switch; panics if a node is under two leaves.
    fn node_leaf(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        for (leaf, nodes) in &self.leaves {
            for n in nodes {
                let prev = m.insert(n.clone(), leaf.clone());
                assert!(prev.is_none(), "node {n} under `{prev:?}` and `{leaf}`");
            }
        }
        m
    }

    /// Path from a switch up to the root, the switch itself first.
    fn path(&self, switch: &str) -> Vec<String> {
        let mut v = vec![switch.to_string()];
        while let Some(p) = self
            .parent
            .get(v.last().map(String::as_str).unwrap_or_default())
        {
            assert!(v.len() < 16, "cycle above `{switch}`");
            v.push(p.clone());
        }
        v
    }
}

/// Compute nodes of the fabric (not fabric-manager appliances), sorted.
pub(super) fn fabric_nodes(f: &Fabric) -> Vec<String> {
    let mut v: Vec<String> = f
        .devices()
        .filter(|d| d.role == Role::Node)
        .map(|d| d.name.clone())
        .collect();
    v.sort();
    v
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Every scheduler output of a spec text, keyed by path. Only the host-side group is rendered
/// (the scheduler files are in it): the switch configs and the report are not read here.
fn scheduler_files(text: &str) -> BTreeMap<String, String> {
    let files = outputs_of(text, &[OutputGroup::Hosts]);
    [CONF, SLURM_YAML, KUEUE_YAML, NODE_LABELS, LABEL_SCRIPT]
        .iter()
        .map(|p| (p.to_string(), file(&files, p)))
        .collect()
}

/// A spec's fabric and scheduler files, built once.
struct Built {
    fabric: Fabric,
    files: BTreeMap<String, String>,
}

fn build_text(name: &str, text: &str) -> Built {
    Built {
        fabric: compile_text(name, text),
        files: scheduler_files(text),
    }
}

/// An example inventory built once per test binary: every test reads the same fabric and files
/// instead of compiling and rendering the example again.
fn built(inv: &str) -> &'static Built {
    static BUILT: [OnceLock<Built>; INVENTORIES.len()] =
        [const { OnceLock::new() }; INVENTORIES.len()];
    let i = INVENTORIES
        .iter()
        .position(|n| *n == inv)
        .unwrap_or_else(|| panic!("{inv} is not one of INVENTORIES"));
    BUILT[i].get_or_init(|| build_text(inv, &inventory(inv)))
}

#[derive(Debug, Deserialize)]
struct SlurmTopology {
    topology: String,
    cluster_default: bool,
    tree: Option<YamlTree>,
    block: Option<YamlBlock>,
}

#[derive(Debug, Deserialize)]
struct YamlTree {
    switches: Vec<YamlSwitch>,
}

#[derive(Debug, Deserialize)]
struct YamlSwitch {
    switch: String,
    children: Option<String>,
    nodes: Option<String>,
}

#[derive(Debug, Deserialize)]
struct YamlBlock {
    block_sizes: Vec<usize>,
    blocks: Vec<YamlBlockEntry>,
}

#[derive(Debug, Deserialize)]
struct YamlBlockEntry {
    block: String,
    nodes: String,
}

#[derive(Debug, Deserialize)]
struct NodeLabels {
    name: String,
    labels: BTreeMap<String, String>,
}

fn slurm_yaml(text: &str) -> Vec<SlurmTopology> {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("topology.yaml: {e}\n{text}"))
}

fn node_labels(text: &str) -> Vec<NodeLabels> {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("node-labels.yaml: {e}"))
}

fn is_label_value(v: &str) -> bool {
    v.len() <= 63
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && v.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && v.chars().last().is_some_and(|c| c.is_ascii_alphanumeric())
}

// ---------------------------------------------------------------------------------------------
// Structure: every node once, tree shape, groups, planes, top-of-rack leaves.
// ---------------------------------------------------------------------------------------------

#[test]
fn every_node_appears_exactly_once_in_every_topology() {
    for inv in INVENTORIES {
        let f = &built(inv).fabric;
        let want = fabric_nodes(f);
        assert!(!want.is_empty(), "{inv}: no nodes");
        let files = &built(inv).files;

        let tree = TreeView::new(&parse_conf(&files[CONF]));
        let conf_nodes: Vec<String> = tree.leaves.values().flatten().cloned().collect();
        assert_eq!(sorted(conf_nodes), want, "{inv}: topology.conf nodes");
        tree.node_leaf(); // panics on a node under two leaves

        let topos = slurm_yaml(&files[SLURM_YAML]);
        let tree_nodes: Vec<String> = topos[0]
            .tree
            .as_ref()
            .expect("first topology is a tree")
            .switches
            .iter()
            .filter_map(|s| s.nodes.as_deref())
            .flat_map(expand)
            .collect();
        assert_eq!(sorted(tree_nodes), want, "{inv}: topology.yaml tree nodes");
        let block_nodes: Vec<String> = topos[1]
            .block
            .as_ref()
            .expect("second topology is a block one")
            .blocks
            .iter()
            .flat_map(|b| expand(&b.nodes))
            .collect();
        assert_eq!(
            sorted(block_nodes),
            want,
            "{inv}: topology.yaml block nodes"
        );

        let labelled: Vec<String> = node_labels(&files[NODE_LABELS])
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(sorted(labelled), want, "{inv}: node-labels.yaml nodes");
        let scripted: Vec<String> = files[LABEL_SCRIPT]
            .lines()
            .filter_map(|l| l.strip_prefix("kubectl label node "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect();
        assert_eq!(sorted(scripted), want, "{inv}: label-nodes.sh nodes");
    }
}

#[test]
fn topology_conf_is_one_tree_of_the_right_depth() {
    for inv in INVENTORIES {
        let f = &built(inv).fabric;
        let text = &built(inv).files[CONF];
        assert!(text.starts_with("# "), "{inv}: header comment first");
        let tree = TreeView::new(&parse_conf(text));
        assert_eq!(tree.roots.len(), 1, "{inv}: one root, got {:?}", tree.roots);
        let root = &tree.roots[0];
        assert_eq!(tree.order.last(), Some(root), "{inv}: root written last");
        let tiers = f.sizing.compute.tiers;
        assert_eq!(root, if tiers == 3 { "core" } else { "spine" }, "{inv}");
        // Leaf switch → root is 2 switches in 2-tier, 3 (via a spine group) in 3-tier.
        for leaf in tree.leaves.keys() {
            assert_eq!(
                tree.path(leaf).len() as u32,
                tiers,
                "{inv}: depth of {leaf}"
            );
        }
    }
}

#[test]
fn rail_optimized_sus_hold_their_nodes() {
    // Slurm topology.conf documentation: the SU is the leaf level; its nodes are the nodes whose SU it is.
    for inv in [
        "spectrum-x-cloud.yaml",
        "dgx-superpod-h100.yaml",
        "dgx-b200-16su.yaml",
    ] {
        let f = &built(inv).fabric;
        let tree = TreeView::new(&parse_conf(&built(inv).files[CONF]));
        let mut want: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for d in f.devices().filter(|d| d.role == Role::Node) {
            let su = d.su.expect("node has an SU");
            want.entry(format!("su{su:02}"))
                .or_default()
                .push(d.name.clone());
        }
        let got: BTreeMap<String, Vec<String>> = tree
            .leaves
            .iter()
            .map(|(k, v)| (k.clone(), sorted(v.clone())))
            .collect();
        let want: BTreeMap<String, Vec<String>> =
            want.into_iter().map(|(k, v)| (k, sorted(v))).collect();
        assert_eq!(got, want, "{inv}");
    }
    let conf = &built("spectrum-x-cloud.yaml").files[CONF];
    assert!(
        conf.contains("\nSwitchName=su01 Nodes=gpu[001-032]\n"),
        "{conf}"
    );
    assert!(
        conf.contains("\nSwitchName=spine Switches=su[01-03]\n"),
        "{conf}"
    );
    // One position of SU 1 is the UFM appliances' (NVIDIA DGX SuperPOD H100 RA (RA-11333-001), Network Fabrics): 31 nodes there.
    let conf = &built("dgx-superpod-h100.yaml").files[CONF];
    assert!(
        conf.contains("\nSwitchName=su01 Nodes=gpu[001-031]\n"),
        "{conf}"
    );
}

/// Expected spine group of each SU, read from the cables: the groups of the spines that the
/// SU's leaves uplink to (must be exactly one).
fn su_groups_from_cables(f: &Fabric) -> BTreeMap<u32, u32> {
    let mut m: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.network == Network::Compute && l.tier == Tier::LeafSpine)
    {
        let (leaf, spine) = (f.device_of(&l.a), f.device_of(&l.b));
        m.entry(leaf.su.expect("leaf SU"))
            .or_default()
            .insert(spine.group.expect("3-tier spine has a group"));
    }
    m.into_iter()
        .map(|(su, g)| {
            assert_eq!(g.len(), 1, "SU {su} uplinks into groups {g:?}");
            (su, g.into_iter().next().unwrap_or_default())
        })
        .collect()
}

fn check_spine_groups(name: &str, b: &Built) {
    let (f, files) = (&b.fabric, &b.files);
    let c = &f.sizing.compute;
    assert_eq!(c.tiers, 3, "{name} is 3-tier");
    let per_group = c.sus_per_group;
    let tree = TreeView::new(&parse_conf(&files[CONF]));
    let cables = su_groups_from_cables(f);
    assert_eq!(
        cables.len() as u32,
        f.sizing.sus,
        "{name}: every SU uplinked"
    );
    for (su, g) in &cables {
        // The inventory's declaration: SUs fill groups in order, `sus_per_group` each.
        assert_eq!(
            *g,
            (su - 1) / per_group + 1,
            "{name}: cabled group of SU {su}"
        );
        let path = tree.path(&format!("su{su:02}"));
        assert_eq!(
            path,
            vec![
                format!("su{su:02}"),
                format!("group{g:02}"),
                "core".to_string()
            ],
            "{name}: SU {su}"
        );
    }
    let groups: BTreeSet<&String> = tree.parent.values().filter(|p| *p != "core").collect();
    assert_eq!(groups.len() as u32, c.groups, "{name}: group switches");
    // Kueue: the spine-group label of every node is its SU's group.
    for n in node_labels(&files[NODE_LABELS]) {
        let su = &n.labels[&format!("{PREFIX}/su")];
        let group = &n.labels[&format!("{PREFIX}/spine-group")];
        assert_eq!(tree.parent.get(su), Some(group), "{name}: {}", n.name);
    }
}

#[test]
fn b200_sus_sit_under_their_declared_spine_groups() {
    // As the inventory declares (sus_per_group: 1): 16 groups of one SU each.
    let text = inventory("dgx-b200-16su.yaml");
    assert!(text.contains("sus_per_group: 1"), "inventory changed");
    let b200 = built("dgx-b200-16su.yaml");
    check_spine_groups("b200-16su", b200);
    let conf = &b200.files[CONF];
    assert!(
        conf.contains("\nSwitchName=group16 Switches=su16\n"),
        "{conf}"
    );
    assert!(
        conf.contains("\nSwitchName=core Switches=group[01-16]\n"),
        "{conf}"
    );
    // The same cluster with two SUs per spine group: SUs pair up under 8 groups.
    let two = text.replace("sus_per_group: 1", "sus_per_group: 2");
    let two = build_text("b200-16su-2-per-group", &two);
    check_spine_groups("b200-16su-2-per-group", &two);
    let conf = &two.files[CONF];
    assert!(
        conf.contains("\nSwitchName=group01 Switches=su[01-02]\n"),
        "{conf}"
    );
    assert!(
        conf.contains("\nSwitchName=core Switches=group[01-08]\n"),
        "{conf}"
    );
}

#[test]
fn twin_planar_lists_each_node_once() {
    let inv = "spectrum-x-twin-planar.yaml";
    let f = &built(inv).fabric;
    assert_eq!(f.sizing.compute.planes, 2);
    // Every node is cabled into both planes...
    let mut planes: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.network == Network::Compute && l.tier == Tier::NodeLeaf)
    {
        planes
            .entry(f.device_of(&l.a).name.clone())
            .or_default()
            .insert(l.plane.expect("plane"));
    }
    assert!(planes.values().all(|p| p.len() == 2));
    // ...and still listed once, under one SU switch.
    let files = &built(inv).files;
    let tree = TreeView::new(&parse_conf(&files[CONF]));
    assert_eq!(tree.node_leaf().len(), 64);
    assert_eq!(tree.leaves.keys().collect::<Vec<_>>(), ["su01"]);
    assert!(
        files[CONF].contains("2 planes"),
        "header explains the planes"
    );
    assert_eq!(node_labels(&files[NODE_LABELS]).len(), 64);
}

#[test]
fn top_of_rack_leaves_are_the_leaf_level() {
    // Not rail-optimized (a ToR-based hyperscaler training cluster): a node's NICs all land on its rack's leaf, so that leaf
    // (not the SU) is the leaf switch.
    let inv = "tor-cluster.yaml";
    let f = &built(inv).fabric;
    let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.network == Network::Compute && l.tier == Tier::NodeLeaf)
    {
        let (node, leaf) = (f.device_of(&l.a), f.device_of(&l.b));
        let key = format!("su{:02}-leaf{:02}", leaf.su.expect("su"), leaf.index);
        want.entry(key).or_default().insert(node.name.clone());
    }
    let files = &built(inv).files;
    let tree = TreeView::new(&parse_conf(&files[CONF]));
    let got: BTreeMap<String, BTreeSet<String>> = tree
        .leaves
        .iter()
        .map(|(k, v)| (k.clone(), v.iter().cloned().collect()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(got.len(), 16);
    // Kueue level follows: `<prefix>/leaf`, not `<prefix>/su`.
    assert!(files[KUEUE_YAML].contains(&format!("nodeLabel: {PREFIX}/leaf\n")));
    assert!(!files[KUEUE_YAML].contains(&format!("{PREFIX}/su")));
    let topos = slurm_yaml(&files[SLURM_YAML]);
    assert_eq!(topos[1].topology, "leaf-blocks");
    assert_eq!(
        topos[1].block.as_ref().map(|b| b.block_sizes.clone()),
        Some(vec![4, 8, 16, 32, 64])
    );
}

#[test]
fn empty_sus_are_left_out_and_short_ones_set_the_block_base() {
    // SU 2 bought empty, SU 3 with 5 nodes: no switch may be childless (Slurm rejects it).
    let text = inventory("spectrum-x-cloud.yaml").replace(
        "  node_model: xe9680-bf3\n",
        "  node_model: xe9680-bf3\n  populated: [32, 0, 5]\n",
    );
    let files = scheduler_files(&text);
    let conf = &files[CONF];
    assert!(
        conf.contains("\nSwitchName=su01 Nodes=gpu[001-032]\n"),
        "{conf}"
    );
    assert!(!conf.contains("su02"), "{conf}");
    assert!(
        conf.contains("\nSwitchName=su03 Nodes=gpu[065-069]\n"),
        "{conf}"
    );
    assert!(
        conf.contains("\nSwitchName=spine Switches=su[01,03]\n"),
        "{conf}"
    );
    let topos = slurm_yaml(&files[SLURM_YAML]);
    let block = topos[1].block.as_ref().expect("block");
    assert_eq!(block.block_sizes, vec![5, 10]);
    assert_eq!(block.blocks.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// topology.yaml (Slurm ≥ 25.05): tree equals topology.conf; block sizes valid.
// ---------------------------------------------------------------------------------------------

/// A switch with its hostlists expanded: (name, nodes, child switches).
type ExpandedSwitch = (String, Option<Vec<String>>, Option<Vec<String>>);

#[test]
fn topology_yaml_tree_equals_topology_conf() {
    for inv in INVENTORIES {
        let files = &built(inv).files;
        let topos = slurm_yaml(&files[SLURM_YAML]);
        assert_eq!(topos.len(), 2, "{inv}");
        assert_eq!(topos[0].topology, "fabric-tree");
        assert!(
            topos[0].cluster_default,
            "{inv}: the tree is the cluster default"
        );
        assert!(!topos[1].cluster_default, "{inv}: one default only");
        assert!(
            topos[0].block.is_none() && topos[1].tree.is_none(),
            "{inv}: one type each"
        );
        // The format exists from Slurm 25.05 on (topology.yaml(5)); the header says so and
        // points older clusters at topology.conf.
        assert!(
            files[SLURM_YAML].contains("Slurm 25.05 and later only"),
            "{inv}"
        );
        assert!(
            files[SLURM_YAML].contains("older Slurm install topology.conf"),
            "{inv}"
        );
        // `topology` must be the first key of each item (topology.yaml(5)).
        for item in files[SLURM_YAML].lines().filter(|l| l.starts_with("- ")) {
            assert!(item.starts_with("- topology: "), "{inv}: `{item}`");
        }
        let from_yaml: Vec<ExpandedSwitch> = topos[0]
            .tree
            .as_ref()
            .expect("tree")
            .switches
            .iter()
            .map(|s| {
                (
                    s.switch.clone(),
                    s.nodes.as_deref().map(expand),
                    s.children.as_deref().map(expand),
                )
            })
            .collect();
        let from_conf: Vec<ExpandedSwitch> = parse_conf(&files[CONF])
            .into_iter()
            .map(|(n, s)| (n, s.nodes, s.switches))
            .collect();
        assert_eq!(from_yaml, from_conf, "{inv}");
    }
}

#[test]
fn block_sizes_are_valid() {
    // topology.yaml(5) / block_record.c: every block holds at least the base size; each larger
    // size is the base times a power of two; Slurm topology.conf documentation: base = the SU, larger sizes as far as
    // the cluster has blocks to join.
    let expected: [(&str, &[usize]); 4] = [
        ("spectrum-x-cloud.yaml", &[32, 64]),
        ("dgx-b200-16su.yaml", &[32, 64, 128, 256, 512]),
        ("dgx-superpod-h100.yaml", &[31, 62, 124]),
        ("spectrum-x-twin-planar.yaml", &[64]),
    ];
    for (inv, sizes) in expected {
        let topos = slurm_yaml(&built(inv).files[SLURM_YAML]);
        let block = topos[1].block.as_ref().expect("block topology");
        assert_eq!(block.block_sizes, sizes, "{inv}");
    }
    for inv in INVENTORIES {
        let f = &built(inv).fabric;
        let topos = slurm_yaml(&built(inv).files[SLURM_YAML]);
        let block = topos[1].block.as_ref().expect("block topology");
        let sizes = &block.block_sizes;
        let base = sizes[0];
        let counts: Vec<usize> = block
            .blocks
            .iter()
            .map(|b| expand(&b.nodes).len())
            .collect();
        assert!(
            counts.iter().all(|&n| n >= base),
            "{inv}: block below base {base}"
        );
        assert_eq!(
            Some(&base),
            counts.iter().min(),
            "{inv}: base = smallest block"
        );
        for w in sizes.windows(2) {
            assert!(w[1] > w[0], "{inv}: sizes ascend");
        }
        for s in sizes {
            assert_eq!(s % base, 0, "{inv}");
            assert!((s / base).is_power_of_two(), "{inv}: {s} is not base x 2^k");
            assert!(
                s / base <= block.blocks.len(),
                "{inv}: {s} needs more blocks"
            );
        }
        assert!(
            *sizes.last().unwrap_or(&0) <= fabric_nodes(f).len(),
            "{inv}"
        );
        let names: BTreeSet<&str> = block.blocks.iter().map(|b| b.block.as_str()).collect();
        assert_eq!(names.len(), block.blocks.len(), "{inv}: unique block names");
    }
}

// ---------------------------------------------------------------------------------------------
// Kueue: Topology + ResourceFlavor, node labels agree with topology.conf.
// ---------------------------------------------------------------------------------------------

#[test]
fn kueue_topology_and_flavor() {
    let docs: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(&built("dgx-b200-16su.yaml").files[KUEUE_YAML])
            .expect("kueue topology.yaml parses");
    assert_eq!(docs.len(), 2);
    let (topo, flavor) = (&docs[0], &docs[1]);
    assert_eq!(topo["apiVersion"], "kueue.x-k8s.io/v1beta1");
    assert_eq!(topo["kind"], "Topology");
    let levels: Vec<&str> = topo["spec"]["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .filter_map(|l| l["nodeLabel"].as_str())
        .collect();
    assert_eq!(
        levels,
        [
            &format!("{PREFIX}/spine-group"),
            &format!("{PREFIX}/su"),
            "kubernetes.io/hostname"
        ]
    );
    assert_eq!(flavor["apiVersion"], "kueue.x-k8s.io/v1beta1");
    assert_eq!(flavor["kind"], "ResourceFlavor");
    assert_eq!(flavor["spec"]["topologyName"], topo["metadata"]["name"]);
    // Kueue rejects a topology flavor without node labels.
    let selector = flavor["spec"]["nodeLabels"]
        .as_object()
        .expect("nodeLabels");
    assert_eq!(
        selector.get(&format!("{PREFIX}/cluster")),
        Some(&"superpod-b200".into())
    );

    // 2-tier: no spine-group level.
    let docs: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(&built("spectrum-x-cloud.yaml").files[KUEUE_YAML])
            .expect("parses");
    let levels: Vec<&str> = docs[0]["spec"]["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .filter_map(|l| l["nodeLabel"].as_str())
        .collect();
    assert_eq!(levels, [&format!("{PREFIX}/su"), "kubernetes.io/hostname"]);
}

#[test]
fn kueue_labels_agree_with_topology_conf() {
    for inv in INVENTORIES {
        let f = &built(inv).fabric;
        let files = &built(inv).files;
        let tree = TreeView::new(&parse_conf(&files[CONF]));
        let node_leaf = tree.node_leaf();
        let three = f.sizing.compute.tiers == 3;
        let leaf_key = if f.sizing.compute.layout == railyard::spec::Layout::TopOfRack {
            format!("{PREFIX}/leaf")
        } else {
            format!("{PREFIX}/su")
        };
        let labels = node_labels(&files[NODE_LABELS]);
        // Values unique within their parent: leaf-level value → one parent.
        let mut parent_of_value: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for n in &labels {
            let leaf = &n.labels[&leaf_key];
            assert_eq!(Some(leaf), node_leaf.get(&n.name), "{inv}: {}", n.name);
            let group = n.labels.get(&format!("{PREFIX}/spine-group"));
            assert_eq!(
                group.is_some(),
                three,
                "{inv}: spine-group label iff 3-tier"
            );
            if let Some(g) = group {
                assert_eq!(tree.parent.get(leaf), Some(g), "{inv}: {}", n.name);
            }
            parent_of_value
                .entry(leaf.clone())
                .or_default()
                .insert(group.cloned().unwrap_or_default());
            for v in n.labels.values() {
                assert!(is_label_value(v), "{inv}: bad label value `{v}`");
            }
        }
        assert!(parent_of_value.values().all(|p| p.len() == 1), "{inv}");

        // label-nodes.sh sets exactly node-labels.yaml.
        let script = &files[LABEL_SCRIPT];
        assert!(script.starts_with("#!/usr/bin/env bash\n"), "{inv}");
        assert!(script.contains("\nset -euo pipefail\n"), "{inv}");
        let by_name: BTreeMap<&str, &BTreeMap<String, String>> = labels
            .iter()
            .map(|n| (n.name.as_str(), &n.labels))
            .collect();
        let commands: Vec<&str> = script
            .lines()
            .filter(|l| l.starts_with("kubectl"))
            .collect();
        assert_eq!(commands.len(), labels.len(), "{inv}: one line per node");
        for line in commands {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(&words[..3], ["kubectl", "label", "node"], "{line}");
            assert_eq!(words.last(), Some(&"--overwrite"), "{line}");
            let set: BTreeMap<String, String> = words[4..words.len() - 1]
                .iter()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').expect("k=v");
                    (k.to_string(), v.to_string())
                })
                .collect();
            assert_eq!(Some(&&set), by_name.get(words[3]), "{inv}: {line}");
        }
    }
}

#[test]
fn custom_label_prefix_is_used() {
    let text = format!(
        "{}scheduler: {{label_prefix: gpu.example.com}}\n",
        inventory("spectrum-x-cloud.yaml")
    );
    let files = scheduler_files(&text);
    assert!(files[KUEUE_YAML].contains("nodeLabel: gpu.example.com/su\n"));
    assert!(files[LABEL_SCRIPT].contains(" gpu.example.com/su=su01 "));
    assert!(!files[NODE_LABELS].contains(PREFIX));
}

#[test]
fn outputs_are_deterministic() {
    let text = inventory("dgx-b200-16su.yaml");
    assert_eq!(scheduler_files(&text), scheduler_files(&text));
}

// ---------------------------------------------------------------------------------------------
// The real slurmctld (Debian slurm-wlm 22.05) reading topology.conf.
// ---------------------------------------------------------------------------------------------

/// slurmctld and scontrol, or `None` when missing and the developer opted out
/// (`RAILYARD_SKIP=slurm`, see `tests/prereq`). The test installs nothing itself.
fn slurm_tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    let (ctld, scontrol) = (find_tool("slurmctld"), find_tool("scontrol"));
    let found = ctld.is_some() && scontrol.is_some();
    if !prereq::require(test, "slurm", found, APT_LINE) {
        return None;
    }
    Some((ctld?, scontrol?))
}

/// A program on PATH or in the sbin directories (slurmctld lives in /usr/sbin).
fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .chain(["/usr/sbin", "/sbin", "/usr/bin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

fn uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn is_root() -> bool {
    uid() == Some(0)
}

/// The user slurmctld runs as: this process's own.
fn user_name() -> String {
    if is_root() {
        return "root".into();
    }
    Command::new("id")
        .arg("-un")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "root".into())
}

/// The daemon: `timeout -s KILL` around `slurmctld -D`, in a process group of its own so that
/// dropping this (normal end or a failed assertion) kills timeout, slurmctld and its
/// slurmscriptd child together, by that group's id.
struct Daemon {
    child: Child,
    status: Option<std::process::ExitStatus>,
}

impl Daemon {
    /// The exit status once the group leader (`timeout`, which returns slurmctld's status) ended.
    fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }

    /// SIGKILL to the whole group, then reap. Only while the leader is unreaped: its pid, and
    /// so the group id, cannot have been reused by another process.
    fn kill(&mut self) {
        if self.try_wait().is_none() {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
            self.status = self.child.wait().ok();
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    l.local_addr().expect("local addr").port()
}

/// slurm.conf per LAB-NOTES: auth/none, every node with a NodeAddr (else name resolution stalls),
/// all paths under the scratch dir.
fn slurm_conf(w: &Path, port: u16, nodes: &[String]) -> String {
    let d = w.display();
    let mut s = format!(
        "ClusterName=railyard\nSlurmctldHost=localhost\nSlurmctldPort={port}\nSlurmUser={}\n\
         AuthType=auth/none\nCredType=cred/none\nStateSaveLocation={d}/state\n\
         SlurmdSpoolDir={d}/spool\nSlurmctldPidFile={d}/slurmctld.pid\n\
         SlurmctldLogFile={d}/slurmctld.log\nSlurmctldDebug=debug\nMailProg=/bin/true\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n\
         TopologyPlugin=topology/tree\n",
        user_name()
    );
    for (i, n) in nodes.iter().enumerate() {
        s.push_str(&format!(
            "NodeName={n} NodeAddr=127.0.{}.{} CPUs=1 State=UNKNOWN\n",
            i / 250,
            i % 250 + 1
        ));
    }
    s.push_str("PartitionName=all Nodes=ALL Default=YES State=UP\n");
    s
}

fn scontrol(scontrol: &Path, conf: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("timeout")
        .args(["-s", "KILL", "10"])
        .arg(scontrol)
        .args(args)
        .env("SLURM_CONF", conf)
        .stdin(Stdio::null())
        .output()
        .expect("run scontrol");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// What one slurmctld run on a topology.conf showed.
struct SlurmRun {
    /// Exit status: after `scontrol shutdown` when it came up, else the status it died with.
    code: Option<i32>,
    came_up: bool,
    /// `scontrol show topology`.
    shown: String,
    /// slurmctld's log file and stderr.
    log: String,
    up: Duration,
    down: Duration,
}

impl SlurmRun {
    /// Log lines that mean the topology was not taken as written (LAB-NOTES: these only warn,
    /// the daemon still starts).
    fn warnings(&self) -> Vec<&str> {
        self.log
            .lines()
            .filter(|l| {
                l.contains("error: WARNING")
                    || l.contains("TOPOLOGY: warning")
                    || l.contains("fatal:")
                    || (l.contains("topology/tree") && l.contains("error"))
            })
            .collect()
    }
}

/// Run slurmctld 22.05 (`-D -c`) with `nodes` in slurm.conf and `topology` as topology.conf in
/// a scratch dir; wait until it has started, read the topology back, shut it down. The scratch
/// dir and every process are gone when this returns (or panics).
fn run_slurmctld(tools: &(PathBuf, PathBuf), nodes: &[String], topology: &str) -> SlurmRun {
    let (ctld, scontrol_bin) = tools;
    // Declared before the daemon, so the daemon is killed before the directory is removed.
    let dir = tempfile::tempdir().expect("scratch dir");
    let w = dir.path();
    for sub in ["state", "spool"] {
        std::fs::create_dir(w.join(sub)).expect("mkdir");
    }
    let conf = w.join("slurm.conf");
    std::fs::write(&conf, slurm_conf(w, free_port(), nodes)).expect("write slurm.conf");
    std::fs::write(w.join("topology.conf"), topology).expect("write topology.conf");
    let stderr = std::fs::File::create(w.join("stderr.log")).expect("stderr log");
    let log = || {
        let a = std::fs::read_to_string(w.join("slurmctld.log")).unwrap_or_default();
        let b = std::fs::read_to_string(w.join("stderr.log")).unwrap_or_default();
        format!("{a}\n--- stderr ---\n{b}")
    };

    let t0 = Instant::now();
    let mut daemon = Daemon {
        child: {
            use std::os::unix::process::CommandExt;
            Command::new("timeout")
                .args(["-s", "KILL", "60"])
                .arg(ctld)
                .args(["-D", "-c"])
                .env("SLURM_CONF", &conf)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(stderr)
                .process_group(0)
                .spawn()
                .expect("start slurmctld")
        },
        status: None,
    };

    // Started once the log says so; a daemon that exits first rejected its files.
    loop {
        if let Some(status) = daemon.try_wait() {
            return SlurmRun {
                code: status.code(),
                came_up: false,
                shown: String::new(),
                log: log(),
                up: t0.elapsed(),
                down: Duration::ZERO,
            };
        }
        if log().contains("Running as primary controller") {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "slurmctld not up after 30 s:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let up = t0.elapsed();
    let shown = loop {
        let (ok, out) = scontrol(scontrol_bin, &conf, &["show", "topology"]);
        if ok {
            break out;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "scontrol got no answer:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(50));
    };

    // Only the controller: the fake nodes have no slurmd to tell.
    let t1 = Instant::now();
    let (ok, _) = scontrol(scontrol_bin, &conf, &["shutdown", "slurmctld"]);
    assert!(ok, "scontrol shutdown failed:\n{}", log());
    let status = loop {
        if let Some(s) = daemon.try_wait() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(30),
            "slurmctld did not stop:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let down = t1.elapsed();
    let run = SlurmRun {
        code: status.code(),
        came_up: true,
        shown,
        log: log(),
        up,
        down,
    };
    drop(daemon);
    drop(dir);
    run
}

/// The inventory's topology.conf through a real slurmctld: exit 0, no warnings, and the switch
/// table it reports is the file's.
fn check_with_slurmctld(inv: &str) {
    check_tree_with_slurmctld(
        inv,
        &fabric_nodes(&built(inv).fabric),
        &built(inv).files[CONF],
    );
}

/// A topology/tree file (`inv` names it in messages) through a real slurmctld with `nodes`.
pub(super) fn check_tree_with_slurmctld(inv: &str, nodes: &[String], topology: &str) {
    let Some(tools) = slurm_tools(inv) else {
        return;
    };
    let nodes = nodes.to_vec();
    let topology = topology.to_string();
    let expected = TreeView::new(&parse_conf(&topology));
    let run = run_slurmctld(&tools, &nodes, &topology);
    assert!(
        run.came_up,
        "{inv}: slurmctld rejected topology.conf:\n{}",
        run.log
    );
    assert_eq!(
        run.code,
        Some(0),
        "{inv}: slurmctld exit status:\n{}",
        run.log
    );
    let warnings = run.warnings();
    assert!(
        warnings.is_empty(),
        "{inv}: slurmctld warned:\n{}",
        warnings.join("\n")
    );
    assert!(
        run.log.contains("_log_switches"),
        "{inv}: topology not read:\n{}",
        run.log
    );

    // `scontrol show topology` lists what the file says, leaves at level 0.
    let mut seen: BTreeMap<String, (String, Option<Vec<String>>)> = BTreeMap::new();
    for line in run.shown.lines().filter(|l| l.starts_with("SwitchName=")) {
        let kv: BTreeMap<&str, &str> = line
            .split_whitespace()
            .filter_map(|w| w.split_once('='))
            .collect();
        seen.insert(
            kv["SwitchName"].to_string(),
            (
                kv["Level"].to_string(),
                kv.get("Nodes").map(|n| sorted(expand(n))),
            ),
        );
    }
    assert_eq!(
        seen.keys().cloned().collect::<BTreeSet<_>>(),
        expected.order.iter().cloned().collect::<BTreeSet<_>>(),
        "{inv}: switches slurmctld knows"
    );
    for (leaf, leaf_nodes) in &expected.leaves {
        let (level, got) = &seen[leaf];
        assert_eq!(level, "0", "{inv}: {leaf} is a leaf");
        assert_eq!(
            got.as_ref(),
            Some(&sorted(leaf_nodes.clone())),
            "{inv}: {leaf}"
        );
    }
    let (_, all) = &seen[&expected.roots[0]];
    assert_eq!(
        all.as_ref(),
        Some(&nodes),
        "{inv}: the root spans every node"
    );
    eprintln!(
        "{inv}: real slurmctld 22.05 accepted topology.conf ({} switches, {} nodes): started in \
         {:.0} ms, clean shutdown in {:.0} ms, exit 0, no warnings",
        seen.len(),
        nodes.len(),
        run.up.as_secs_f64() * 1e3,
        run.down.as_secs_f64() * 1e3
    );
}

#[test]
fn real_slurmctld_accepts_spectrum_x_topology_conf() {
    check_with_slurmctld("spectrum-x-cloud.yaml");
}

#[test]
fn real_slurmctld_accepts_b200_topology_conf() {
    check_with_slurmctld("dgx-b200-16su.yaml");
}

#[test]
fn real_slurmctld_accepts_the_other_inventories() {
    // Top-of-rack leaf names (`su01-leaf[01-04]`), a UFM gap, twin planes, a 1-SU lab.
    for inv in INVENTORIES {
        if !matches!(inv, "spectrum-x-cloud.yaml" | "dgx-b200-16su.yaml") {
            check_with_slurmctld(inv);
        }
    }
}

#[test]
fn real_slurmctld_check_catches_broken_files() {
    // Negative controls: the check above would see these mistakes.
    let Some(tools) = slurm_tools("real_slurmctld_check_catches_broken_files") else {
        return;
    };
    let nodes: Vec<String> = (1..=8).map(|i| format!("gpu{i:03}")).collect();
    // A node under two leaves and an unknown node: only warnings, the daemon starts.
    let warned = run_slurmctld(
        &tools,
        &nodes,
        "SwitchName=su01 Nodes=gpu[001-005]\nSwitchName=su02 Nodes=gpu[005-009]\n\
         SwitchName=spine Switches=su[01-02]\n",
    );
    assert!(warned.came_up, "{}", warned.log);
    assert!(
        !warned.warnings().is_empty(),
        "no warning seen:\n{}",
        warned.log
    );
    eprintln!(
        "negative control, node under two leaves + unknown node; slurmctld warned:\n  {}",
        warned.warnings().join("\n  ")
    );
    // A missing child switch: rejected, the daemon exits non-zero.
    let rejected = run_slurmctld(
        &tools,
        &nodes,
        "SwitchName=su01 Nodes=gpu[001-008]\nSwitchName=spine Switches=su[01-02]\n",
    );
    assert!(!rejected.came_up, "{}", rejected.log);
    assert_ne!(rejected.code, Some(0), "{}", rejected.log);
    eprintln!(
        "negative control, missing child switch: slurmctld exited with {:?}",
        rejected.code
    );
}
