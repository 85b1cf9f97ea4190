//! Canonical lines: a configuration as a set of lines whose order carries no meaning, each in the
//! line form of its OS (`drivers/<os>/`: context paths for FRR and EOS, keys joined by ` > ` for
//! NVUE and SONiC trees, paths for OpenConfig). Two configurations differ by the lines only one of
//! them has; a device is unchanged when there are none.

use std::collections::BTreeSet;

use crate::output::digest::sha256_hex;

/// `(removed, added)`: lines only in `old`, lines only in `new`, each sorted.
pub fn diff(old: &BTreeSet<String>, new: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    (
        old.difference(new).cloned().collect(),
        new.difference(old).cloned().collect(),
    )
}

/// `- line` / `+ line` text of a diff.
pub fn diff_text(removed: &[String], added: &[String]) -> String {
    let mut s = String::new();
    for l in removed {
        s.push_str("- ");
        s.push_str(l);
        s.push('\n');
    }
    for l in added {
        s.push_str("+ ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// Split a `- line` / `+ line` diff text into (removed, added).
pub fn split_diff(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for l in text.lines() {
        if let Some(r) = l.strip_prefix("- ") {
            removed.push(r.to_string());
        } else if let Some(a) = l.strip_prefix("+ ") {
            added.push(a.to_string());
        }
    }
    (removed, added)
}

/// sha256 of the lines, one per line: the journal's hash of a configuration.
pub fn digest(lines: &BTreeSet<String>) -> String {
    sha256_hex(
        lines
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
            .as_bytes(),
    )
}
