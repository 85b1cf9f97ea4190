//! Racks of a rack-scale system that come or go: the NVLink domains Slurm's block topology names
//! (`BlockName=rack07 …` in `scheduler/slurm/topology.conf`, written for rack-scale clusters
//! only). A rack added is safe (its trays' cables and devices are new); a rack removed is
//! disruptive through its cables and devices, which the other sections list.

use std::collections::BTreeSet;

use serde::Serialize;

use super::Files;

const TOPOLOGY: &str = "scheduler/slurm/topology.conf";

/// Racks (NVLink domains) added and removed, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RackChange {
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl RackChange {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

/// The block names of a block-topology `topology.conf`; none for a tree or without the file.
fn racks(files: &Files) -> BTreeSet<String> {
    let Some(bytes) = files.get(TOPOLOGY) else {
        return BTreeSet::new();
    };
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("BlockName="))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

pub fn compare(old: &Files, new: &Files) -> RackChange {
    let (a, b) = (racks(old), racks(new));
    RackChange {
        added: b.difference(&a).cloned().collect(),
        removed: a.difference(&b).cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::tests::files;

    #[test]
    fn blocks_that_come_and_go() {
        let old = files(&[(
            TOPOLOGY,
            "# x\nBlockName=rack01 Nodes=a[01-18]\nBlockName=rack02 Nodes=b[01-18]\nBlockSizes=18,36\n",
        )]);
        let new = files(&[(
            TOPOLOGY,
            "BlockName=rack02 Nodes=b[01-18]\nBlockName=rack03 Nodes=c[01-18]\n",
        )]);
        let c = compare(&old, &new);
        assert_eq!(c.added, vec!["rack03"]);
        assert_eq!(c.removed, vec!["rack01"]);
        // A tree topology names no racks.
        let tree = files(&[(TOPOLOGY, "SwitchName=su01 Nodes=gpu[001-032]\n")]);
        assert!(compare(&tree, &tree).is_empty());
    }
}
