//! `portmaps/<switch>.md`, the port map a person reads: every cabled port on its own row, and
//! runs of free ports of one speed collapsed into one row ("16 free") that stands for exactly
//! the free ports `portmaps/<switch>.csv` (every port, for machines) lists there.

use crate::common;

/// (port, is free) for every row of the CSV, in its order.
fn csv_ports(text: &str) -> Vec<(String, bool)> {
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let headers = rows.headers().expect("header").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).expect("column");
    let (port, peer) = (col("port"), col("peer_device"));
    rows.records()
        .map(|r| {
            let r = r.expect("row");
            (r[port].to_string(), r[peer].is_empty())
        })
        .collect()
}

#[test]
fn free_port_runs_collapse_to_what_the_csv_lists() {
    let files = common::example_outputs("spectrum-x-cloud.yaml");
    let mut collapsed_somewhere = false;
    for f in files
        .iter()
        .filter(|f| f.path.starts_with("portmaps/") && f.path.ends_with(".md"))
    {
        let csv = common::file(files, &f.path.replace(".md", ".csv"));
        let ports = csv_ports(&csv);
        let md = String::from_utf8_lossy(&f.bytes);
        let mut at = 0; // position in the CSV's port order
        for row in md
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| Port"))
        {
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let last = cells[cells.len() - 1];
            let run = match last.strip_suffix(" free") {
                Some(n) if !n.is_empty() => n.parse::<usize>().expect("a count"),
                _ => 1,
            };
            let (first, last_port) = match cells[0].split_once(" … ") {
                Some((a, b)) => (a, b),
                None => (cells[0], cells[0]),
            };
            assert_eq!(ports[at].0, first, "{}: row `{row}`", f.path);
            assert_eq!(ports[at + run - 1].0, last_port, "{}: row `{row}`", f.path);
            let free = last.ends_with("free");
            for (p, is_free) in &ports[at..at + run] {
                assert_eq!(*is_free, free, "{}: {p} in `{row}`", f.path);
            }
            collapsed_somewhere |= run > 1;
            at += run;
        }
        assert_eq!(at, ports.len(), "{}: rows stand for every port", f.path);
    }
    assert!(collapsed_somewhere, "no run of free ports collapsed");
}
