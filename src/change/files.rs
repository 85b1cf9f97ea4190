//! Every file that differs between the two builds, accounted for (issue #39 items 1, 2): the
//! ones no other part of the comparison reads by meaning (`cables.rs`, `configs.rs`,
//! `numbering.rs`, `bom.rs`) are listed here by path and output group, so no change of a build
//! passes as "no change" and no file is "only on one side" for an ordinary change.
//!
//! Tenant isolation files (`tenants/` — the tenant plan, the InfiniBand partitions — and the
//! per-tenant host and scheduler files under `hosts/tenants/`) are compared by what they grant
//! (`isolation.rs`): a member the old file grants that the new one does not is a port leaving a
//! VRF or a partition, or a PKey's membership changing, and cuts that traffic — disruptive.
//! Members only added (a new tenant, a new member, a node range grown) are safe.

use std::collections::BTreeSet;

use serde::Serialize;

use super::Files;

/// Paths another part of the comparison reads by meaning (prefix with `/`, or exact).
const BY_MEANING: &[&str] = &[
    "configs/",
    "intent/",
    "cabling.csv",
    "addresses.csv",
    "bom.csv",
];

/// Files whose lines are tenant isolation: membership, partitions, per-tenant scheduling.
const ISOLATION: &[&str] = &["tenants/", "hosts/tenants/"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileStatus {
    Removed,
    Changed,
    Added,
}

/// One file that differs, with the group a reader finds it in (its first path component).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileChange {
    pub path: String,
    pub group: String,
    pub status: FileStatus,
    /// Lines of the old file the new one lacks, for a tenant isolation file: traffic cut.
    pub disruptive: bool,
    /// How many lines went and came (0 for a file that is not text).
    pub lines_removed: usize,
    pub lines_added: usize,
}

fn under(path: &str, prefixes: &[&str]) -> bool {
    prefixes
        .iter()
        .any(|p| path == *p || (p.ends_with('/') && path.starts_with(p)))
}

/// Lines as a set; a file that is not UTF-8 is one opaque "line".
fn lines(bytes: &[u8]) -> BTreeSet<&str> {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.lines().collect(),
        Err(_) => BTreeSet::new(),
    }
}

/// Whether a grant of the old isolation file is gone from the new one (a file that is not
/// UTF-8 on either side counts as changed wholesale).
fn lost(old: &[u8], new: &[u8]) -> bool {
    match (std::str::from_utf8(old), std::str::from_utf8(new)) {
        (Ok(o), Ok(n)) => super::isolation::loses(o, n),
        _ => old != new,
    }
}

fn one(path: &str, old: Option<&Vec<u8>>, new: Option<&Vec<u8>>) -> Option<FileChange> {
    let empty = Vec::new();
    let (o, n) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    if old.is_some() && new.is_some() && o == n {
        return None;
    }
    let (lo, ln) = (lines(o), lines(n));
    let lines_removed = lo.difference(&ln).count();
    let lines_added = ln.difference(&lo).count();
    let status = match (old, new) {
        (Some(_), None) => FileStatus::Removed,
        (None, Some(_)) => FileStatus::Added,
        _ => FileStatus::Changed,
    };
    let binary_change = status == FileStatus::Changed && lines_removed + lines_added == 0;
    Some(FileChange {
        path: path.to_string(),
        group: path.split('/').next().unwrap_or(path).to_string(),
        status,
        disruptive: under(path, ISOLATION) && (lost(o, n) || binary_change),
        lines_removed,
        lines_added,
    })
}

/// Every file that differs and that no other part reads by meaning, by path.
pub fn compare(old: &Files, new: &Files) -> Vec<FileChange> {
    let paths: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    paths
        .into_iter()
        .filter(|p| !under(p, BY_MEANING))
        .filter_map(|p| one(p, old.get(p), new.get(p)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::tests::files;

    #[test]
    fn a_partition_member_gone_is_disruptive_and_one_added_is_not() {
        let p = "tenants/partitions.conf";
        let old = files(&[(p, "a=0x8001, ipoib : gpu01=full, gpu02=full;\n")]);
        let shrunk = files(&[(p, "a=0x8001, ipoib : gpu01=full;\n")]);
        let c = compare(&old, &shrunk);
        assert_eq!(c.len(), 1);
        assert!(c[0].disruptive, "{c:?}");
        let more = files(&[(p, "a=0x8001, ipoib : gpu01=full, gpu02=full;\nb=0x8002;\n")]);
        let c = compare(&old, &more);
        assert!(!c[0].disruptive && c[0].lines_added == 1, "{c:?}");
        assert!(compare(&old, &old).is_empty());
    }

    #[test]
    fn files_read_by_meaning_are_not_listed_twice() {
        let old = files(&[("cabling.csv", "a\n"), ("hosts/x", "1\n")]);
        let new = files(&[("cabling.csv", "b\n"), ("plan.json", "{}\n")]);
        let c = compare(&old, &new);
        let got: Vec<(&str, FileStatus)> = c.iter().map(|f| (f.path.as_str(), f.status)).collect();
        assert_eq!(
            got,
            vec![
                ("hosts/x", FileStatus::Removed),
                ("plan.json", FileStatus::Added)
            ]
        );
    }
}
