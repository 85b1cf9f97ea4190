//! What a tenant isolation file grants, as a set of members, so that `diff` calls a change
//! disruptive only when something loses a grant (issue #39: a line rewritten in place — a Slurm
//! node range grown, a partition gaining a member, a comment's node count — is not traffic cut).
//!
//! A file is read as (section, member) pairs: comments (`#` to the end of a line) are dropped;
//! a line that starts at the left margin opens a section named by its first word (an OpenSM
//! partition's `name=pkey, … :`, a `PartitionName=…` line, a `kubectl label node` line) and
//! indented lines belong to the last one; every word (split at white space, commas and
//! semicolons outside brackets) is a member, a Slurm hostlist (`Nodes=gpu[001-031,033-064]`)
//! expanded to one member per host. Whatever the format, a member the old file grants in a
//! section that the new file does not is a grant lost: a PKey changed, a port gone from a
//! partition, a node gone from a tenant's partition or flavor.

use std::collections::BTreeSet;

type Grant = (String, String);

/// Words of a line, split at white space, commas and semicolons outside `[…]`.
fn words(line: &str) -> Vec<&str> {
    let (mut out, mut start, mut depth) = (Vec::new(), 0, 0usize);
    for (i, c) in line.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            c if depth == 0 && (c.is_whitespace() || c == ',' || c == ';') => {
                if start < i {
                    out.push(&line[start..i]);
                }
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out
}

/// A hostlist word (`Nodes=gpu[001-003,007]`) as one word per host; any other word as itself.
fn hosts(word: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (word.find('['), word.rfind(']')) else {
        return vec![word.to_string()];
    };
    let (head, tail) = (&word[..open], &word[close + 1..]);
    let mut out = Vec::new();
    for part in word[open + 1..close].split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let (Ok(a), Ok(b)) = (lo.parse::<u64>(), hi.parse::<u64>()) else {
            return vec![word.to_string()];
        };
        if b < a || b - a > 1_000_000 {
            return vec![word.to_string()];
        }
        let width = lo.len();
        out.extend((a..=b).map(|n| format!("{head}{n:0width$}{tail}")));
    }
    out
}

/// The (section, member) grants of a file's text.
pub fn grants(text: &str) -> BTreeSet<Grant> {
    let mut out = BTreeSet::new();
    let mut section = String::new();
    for raw in text.lines() {
        let line = raw.split_once('#').map_or(raw, |(code, _)| code);
        let ws = words(line);
        let Some(first) = ws.first() else { continue };
        if !raw.starts_with(char::is_whitespace) {
            section = (*first).to_string();
        }
        for w in ws {
            out.extend(hosts(w).into_iter().map(|m| (section.clone(), m)));
        }
    }
    out
}

/// Whether the new text loses a grant the old one has.
pub fn loses(old: &str, new: &str) -> bool {
    !grants(old).is_subset(&grants(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slurm_range_grown_loses_nothing_and_one_shrunk_does() {
        let old = "# 63 node(s)\nPartitionName=a Nodes=gpu[001-031,033-064] State=UP\n";
        let grown = "# 64 node(s)\nPartitionName=a Nodes=gpu[001-064] State=UP\n";
        assert!(!loses(old, grown));
        assert!(loses(grown, old));
    }

    #[test]
    fn a_partition_member_added_loses_nothing_and_a_pkey_change_does() {
        let old = "a=0x0101, ipoib, defmember=full :\n  @g1:P1@,  # g1\n  @g2:P1@ ;\n";
        let more = "a=0x0101, ipoib, defmember=full :\n  @g1:P1@,\n  @g2:P1@,\n  @g3:P1@ ;\n";
        assert!(!loses(old, more));
        assert!(loses(more, old));
        assert!(loses(old, &old.replace("0x0101", "0x0102")));
        // A port moved to another partition is lost from the first.
        let moved = "a=0x0101, ipoib, defmember=full :\n  @g1:P1@ ;\nb=0x0102 :\n  @g2:P1@ ;\n";
        assert!(loses(old, moved));
    }
}
