//! The check's report as text for the person at the rack: what fell short, the suspect cables by
//! label and rack, the next test. The command line escapes it for the terminal.

use std::fmt::Write;

use super::check::{Report, Status, Verdict};

/// Ignored files named in the text (all in the JSON report).
const IGNORED_SHOWN: usize = 20;

fn count(statuses: impl Iterator<Item = Status>) -> [usize; 4] {
    let mut c = [0; 4];
    for s in statuses {
        c[s as usize] += 1;
    }
    c
}

pub fn text(r: &Report) -> String {
    let mut o = String::new();
    let l = count(r.links.iter().map(|x| x.status));
    let n = count(r.nccl.iter().map(|x| x.status));
    // Writing into a String cannot fail.
    let _ = writeln!(
        o,
        "acceptance check of cluster {}: {}",
        r.cluster,
        match r.verdict {
            _ if r.is_empty() => "INCOMPLETE (the plan has no tests: nothing was checked)",
            Verdict::Passed => "PASSED",
            Verdict::Short => "SHORT (suspect cables below)",
            Verdict::Incomplete => "INCOMPLETE (tests did not run)",
            Verdict::BadInput => "UNREADABLE RESULTS",
        }
    );
    coverage(&mut o, r);
    let x = count(r.imex.iter().map(|x| x.status));
    let kinds = [("link tests", l), ("NCCL tests", n), ("IMEX domains", x)];
    for (what, c) in kinds
        .into_iter()
        .filter(|(w, c)| *w != "IMEX domains" || c.iter().sum::<usize>() > 0)
    {
        let _ = writeln!(
            o,
            "  {what}: {} passed, {} short, {} missing, {} unreadable",
            c[0], c[1], c[2], c[3]
        );
    }
    for (path, why) in &r.unreadable {
        let _ = writeln!(o, "unreadable: {path}: {why}");
    }
    for t in r.links.iter().filter(|t| t.status == Status::Short) {
        let _ = writeln!(
            o,
            "short: {} {} -> {}: {:.1} Gb/s of {:.1} expected",
            t.id,
            t.client,
            t.server,
            t.measured_gbps.unwrap_or(0.0),
            t.expected_gbps
        );
    }
    for t in r.nccl.iter().filter(|t| t.status == Status::Short) {
        let _ = writeln!(
            o,
            "short: {}: busbw {:.2} GB/s of {:.2} expected, {} wrong",
            t.id,
            t.measured_busbw.unwrap_or(0.0),
            t.expected_busbw,
            t.wrong
        );
    }
    for d in r.imex.iter().filter(|d| d.status == Status::Short) {
        let _ = writeln!(
            o,
            "short: IMEX {}: nvidia-imex-ctl exit {}{}",
            d.domain,
            d.exit.map_or("?".to_string(), |e| e.to_string()),
            if d.missing.is_empty() {
                String::new()
            } else {
                format!("; trays not in its status: {}", d.missing.join(", "))
            }
        );
    }
    if !r.suspects.is_empty() {
        let _ = writeln!(o, "suspect cables, most likely first:");
    }
    for (i, s) in r.suspects.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {}. {} (cable {}, rack {}): confidence {:.2}, {} failing and {} passing test(s){}",
            i + 1,
            s.label,
            s.link,
            if s.racks.is_empty() {
                "-".to_string()
            } else {
                s.racks.join(", ")
            },
            s.confidence,
            s.failing,
            s.passing,
            if s.common {
                ", common to every failing test"
            } else {
                ""
            }
        );
    }
    if let Some(t) = &r.next_test {
        let _ = writeln!(
            o,
            "next test: ib_write_bw server {} ({}), client {} ({}): crosses {} and not {}; \
             short: {} is the cable, passes: {}",
            t.server.node,
            t.server.device.as_deref().unwrap_or("no RDMA device named"),
            t.client.node,
            t.client.device.as_deref().unwrap_or("no RDMA device named"),
            t.separates[0],
            t.separates[1],
            t.separates[0],
            t.separates[1]
        );
    }
    o
}

/// Where the plan came from, what was checked, and the files ignored.
fn coverage(o: &mut String, r: &Report) {
    if !r.plan.is_empty() {
        let _ = writeln!(o, "  plan: {}", r.plan);
    }
    let c = &r.checked;
    let _ = writeln!(
        o,
        "  checked: {} link tests over {} cables, {} NCCL tests; {} result files read",
        c.link_tests, c.cables, c.nccl_tests, c.results_read
    );
    if c.without_device > 0 {
        let _ = writeln!(
            o,
            "  {} link tests cannot run: an end's RDMA device is not named by the node model \
             (the runners refuse them; railyard explain RY0910)",
            c.without_device
        );
    }
    if !r.ignored.is_empty() {
        let shown: Vec<&str> = r
            .ignored
            .iter()
            .take(IGNORED_SHOWN)
            .map(String::as_str)
            .collect();
        let more = r.ignored.len().saturating_sub(shown.len());
        let _ = writeln!(
            o,
            "  ignored ({} files the plan names no test for): {}{}",
            r.ignored.len(),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more (--format json lists all)")
            } else {
                String::new()
            }
        );
    }
}
