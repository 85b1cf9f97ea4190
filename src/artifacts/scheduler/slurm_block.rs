//! Slurm topology/block for a rack-scale cluster: `topology.conf` with one `BlockName=` per
//! NVLink domain and `BlockSizes=` (topology.conf(5); parsed by SchedMD/slurm
//! `src/plugins/topology/block/block_record.c`). The plugin arrived in SchedMD/slurm commit
//! 71c4762ed9bbb27b4ecf8eb9575d554c93bd12e5 ("Add topology_block plugin"), first tag
//! slurm-23-11-0-0rc1; the tree moves to `topology-tree.conf`, which every Slurm reads.

use super::hostlist::compress;
use crate::topology::SchedulerTree;

/// What the block topology.conf is, for its header.
pub(super) const BLOCK_WHAT: &str =
    "Slurm topology.conf (TopologyPlugin=topology/block, Slurm >= 23.11)";

/// Why the tree has a file of its own in a rack-scale cluster.
pub(super) const TREE_NOTE: &str = "\
# This rack-scale cluster's topology.conf holds the NVLink-domain blocks (topology/block, Slurm
# >= 23.11: SchedMD commit 71c4762e, first tag slurm-23-11-0-0rc1). This file is the fabric tree
# for TopologyPlugin=topology/tree (every Slurm release): install it as topology.conf instead
# where Slurm predates 23.11 or the tree is wanted.
";

/// `topology.conf` for topology/block after `header`: a block per NVLink domain, its trays in
/// position order, then the block sizes (base = trays per domain).
pub(super) fn block_conf(tree: &SchedulerTree, header: &str) -> String {
    let mut out = header.to_string();
    out.push_str(
        "# topology/block needs Slurm >= 23.11 (SchedMD commit 71c4762e, first tag \
         slurm-23-11-0-0rc1); the\n# fabric tree for topology/tree is topology-tree.conf.\n\
         # BlockSizes: the base is one NVLink domain; each larger size is a power of two times it\n\
         # (topology.conf(5): \"Successive BlockSizes must be a power of two larger than the prior\n\
         # values\"), as long as the cluster has that many domains.\n\n",
    );
    for d in &tree.nvlink {
        out.push_str(&format!(
            "BlockName={} Nodes={}\n",
            d.name,
            compress(&d.nodes)
        ));
    }
    let counts: Vec<usize> = tree.nvlink.iter().map(|d| d.nodes.len()).collect();
    let sizes: Vec<String> = block_sizes(&counts).iter().map(|n| n.to_string()).collect();
    out.push_str(&format!("BlockSizes={}\n", sizes.join(",")));
    out
}

/// Slurm's topology/block plugin refuses block levels above 2^15 (`block_record.c`).
const MAX_BLOCK_LEVEL: u32 = 15;

/// Block sizes for blocks of the given node counts (topology.conf(5), topology.yaml(5), `block_record.c`): the base
/// is the smallest block (every block must hold at least the base), and each larger size is the
/// base times a power of two, as long as that many blocks exist to aggregate. Empty when there
/// are no nodes.
pub(crate) fn block_sizes(block_nodes: &[usize]) -> Vec<usize> {
    let Some(base) = block_nodes.iter().copied().filter(|&n| n > 0).min() else {
        return Vec::new();
    };
    let blocks = block_nodes.iter().filter(|&&n| n > 0).count();
    (0..=MAX_BLOCK_LEVEL)
        .map(|level| 1usize << level)
        .take_while(|&m| m <= blocks)
        .map(|m| base * m)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes_follow_the_rules() {
        assert_eq!(block_sizes(&[32, 32, 32]), vec![32, 64]);
        assert_eq!(block_sizes(&[32; 16]), vec![32, 64, 128, 256, 512]);
        // A short SU (a position given to fabric managers) sets the base.
        assert_eq!(block_sizes(&[31, 32, 32, 32]), vec![31, 62, 124]);
        assert_eq!(block_sizes(&[64]), vec![64]);
        assert_eq!(block_sizes(&[]), Vec::<usize>::new());
    }
}
