//! Tests into rounds: in a round every link (and with it every node NIC port, which has one
//! link) carries at most one test. A colouring of the conflict graph (tests that share a link
//! conflict) by first fit, the tests taken most-constrained first: those whose busiest link
//! carries the most tests. The lower bound is that busiest link's count (the maximum degree of
//! the link–test incidence); the plan reports rounds against it.

use std::collections::{BTreeMap, BTreeSet};

use super::links::Pair;

/// Round index of every pair (same order as `pairs`), the round count and the maximum degree.
pub fn schedule(pairs: &[Pair]) -> (Vec<usize>, usize, usize) {
    let mut load: BTreeMap<&str, usize> = BTreeMap::new();
    for p in pairs {
        for l in distinct(p) {
            *load.entry(l).or_default() += 1;
        }
    }
    let max_degree = load.values().copied().max().unwrap_or(0);
    let busiest = |p: &Pair| {
        let mut v: Vec<usize> = distinct(p).iter().map(|l| load[l]).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    };
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    // Stable: equal tests keep the plan's order, so the schedule is the same every build.
    order.sort_by_cached_key(|&i| std::cmp::Reverse(busiest(&pairs[i])));
    let mut rounds: Vec<BTreeSet<&str>> = Vec::new();
    let mut of = vec![0; pairs.len()];
    for i in order {
        let links = distinct(&pairs[i]);
        let r = match rounds
            .iter()
            .position(|used| links.iter().all(|l| !used.contains(l)))
        {
            Some(r) => r,
            None => {
                rounds.push(BTreeSet::new());
                rounds.len() - 1
            }
        };
        rounds[r].extend(links.iter().copied());
        of[i] = r;
    }
    (of, rounds.len(), max_degree)
}

/// A test's links, each once (a pair that turns at a leaf names no link twice, but a test
/// whose two ends are one port would).
fn distinct(p: &Pair) -> BTreeSet<&str> {
    p.links.iter().map(String::as_str).collect()
}
