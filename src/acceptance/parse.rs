//! perftest's, nccl-tests' and iperf3's own output, read back.
//!
//! perftest (github.com/linux-rdma/perftest, `src/perftest_parameters.h`): a header line
//! `RESULT_FMT_G` (` #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]`, with
//! `--report_gbits`) or `RESULT_FMT` (`…[MiB/sec]`), then one `REPORT_FMT` line per size.
//! Releases before 24.07 label the same MiB/s figures `[MB/sec]` (commit 1d202bb, "Display proper
//! unit for MiB/sec results", only renamed the header): both read as MiB/s.
//!
//! nccl-tests (github.com/NVIDIA/nccl-tests, `src/util.cu` `writeResultHeader`,
//! `writeBenchmarkLineBody`, `writeResultFooter`): `#` header and footer lines, one row per size:
//! size, count, type, redop, root, then out-of-place time, algbw, busbw, #wrong and the same
//! in-place (with `-I 1` each side has four more columns); the footer's `# Avg bus bandwidth`.
//! The columns are found from the header line, counted from the right: older releases print no
//! `root` column and leave `redop` blank for alltoall (nccl-tests issue #78 shows both), and an
//! `error` column (the largest deviation, not a count: the footer's out-of-bounds count judges).
//! Lines tagged by Open MPI's `--tag-output` (`[1,0]<stdout>:`) are read without the tag.
//!
//! iperf3 (github.com/esnet/iperf, `src/iperf_api.c` `iperf_print_results`): with `--json` the
//! client prints one object whose `end.sum_received` holds the bytes and `bits_per_second` the
//! receiver counted; a failed run carries a top-level `error` string (`src/iperf_error.c`).

use serde::Serialize;

/// What an `ib_write_bw` client printed: the last size it reported.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Perftest {
    pub bytes: u64,
    pub iterations: u64,
    pub peak_gbps: f64,
    pub average_gbps: f64,
}

/// What an nccl-tests binary printed: the largest size's bus bandwidth (the better of out-of-place
/// and in-place), and the footer's average over all sizes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NcclResult {
    pub bytes: u64,
    pub busbw: f64,
    pub avg_busbw: Option<f64>,
    /// Rows with a non-zero `#wrong`, and the footer's out-of-bounds count.
    pub wrong: u64,
}

/// MiB/s → Gb/s.
fn mib_to_gbits(x: f64) -> f64 {
    x * 1_048_576.0 * 8.0 / 1e9
}

pub fn perftest(text: &str) -> Result<Perftest, String> {
    let mut unit = None;
    let mut last = None;
    for line in text.lines() {
        if line.contains("BW average[Gb/sec]") {
            unit = Some(1.0);
            continue;
        }
        if line.contains("BW average[MiB/sec]") || line.contains("BW average[MB/sec]") {
            unit = Some(mib_to_gbits(1.0));
            continue;
        }
        let Some(scale) = unit else { continue };
        let f: Vec<&str> = line.split_whitespace().collect();
        let (Some(bytes), Some(iterations), Some(peak), Some(avg)) = (
            f.first().and_then(|x| x.parse::<u64>().ok()),
            f.get(1).and_then(|x| x.parse::<u64>().ok()),
            f.get(2).and_then(|x| x.parse::<f64>().ok()),
            f.get(3).and_then(|x| x.parse::<f64>().ok()),
        ) else {
            continue;
        };
        if !(peak.is_finite() && avg.is_finite()) {
            continue;
        }
        last = Some(Perftest {
            bytes,
            iterations,
            peak_gbps: peak * scale,
            average_gbps: avg * scale,
        });
    }
    match (unit, last) {
        (_, Some(r)) => Ok(r),
        (None, None) => Err("no perftest bandwidth header (`BW average[…]`) in it".into()),
        (Some(_), None) => Err("a perftest header but no result line after it".into()),
    }
}

/// The row's columns nccl-tests' header names, counted from the row's right end.
#[derive(Clone, Copy, Debug)]
struct Columns {
    /// Out-of-place and in-place busbw.
    busbw: [usize; 2],
    /// The `#wrong` counts; `None` for the older `error` column (a deviation, not a count).
    wrong: Option<[usize; 2]>,
    /// The fewest fields a row has: everything right of `type`.
    min_fields: usize,
}

/// Read the header line (`# size count type redop root time algbw busbw #wrong time …`).
fn columns(header: &[&str]) -> Option<Columns> {
    let n = header.len();
    let from_right = |name: &str| -> Vec<usize> {
        let mut v: Vec<usize> = (0..n)
            .filter(|&i| header[i] == name)
            .map(|i| n - i)
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    };
    let busbw = from_right("busbw");
    let wrong = from_right("#wrong");
    let ty = header.iter().position(|h| *h == "type")?;
    if busbw.len() != 2 {
        return None;
    }
    Some(Columns {
        busbw: [busbw[0], busbw[1]],
        wrong: (wrong.len() == 2).then(|| [wrong[0], wrong[1]]),
        min_fields: n - ty,
    })
}

/// A line without Open MPI's `--tag-output` prefix (`[1,0]<stdout>:`).
fn untagged(line: &str) -> &str {
    let t = line.trim_start();
    if t.starts_with('[')
        && let Some(end) = t.find(">:")
        && t[..end].contains("]<")
    {
        return &t[end + 2..];
    }
    line
}

/// The number after a footer's `name :`.
fn footer<T: std::str::FromStr>(rest: &str, name: &str) -> Option<Option<T>> {
    let v = rest.strip_prefix(name)?;
    Some(
        v.trim_start_matches([' ', ':'])
            .split_whitespace()
            .next()
            .and_then(|x| x.parse::<T>().ok()),
    )
}

pub fn nccl(text: &str) -> Result<NcclResult, String> {
    let mut best: Option<(u64, f64)> = None;
    let mut wrong = 0u64;
    let mut avg = None;
    let mut cols: Option<Columns> = None;
    for line in text.lines() {
        let t = untagged(line).trim();
        if let Some(rest) = t.strip_prefix('#') {
            let rest = rest.trim();
            let words: Vec<&str> = rest.split_whitespace().collect();
            if words.first() == Some(&"size") {
                cols = columns(&words).or(cols);
            } else if let Some(v) = footer::<f64>(rest, "Avg bus bandwidth") {
                avg = v;
            } else if let Some(v) = footer::<u64>(rest, "Out of bounds values") {
                wrong += v.unwrap_or(0);
            }
            continue;
        }
        let Some(c) = cols else { continue };
        let f: Vec<&str> = t.split_whitespace().collect();
        let n = f.len();
        if n < c.min_fields + 1 {
            continue;
        }
        let at = |k: usize| f[n - k];
        let (Some(size), Some(oop), Some(ip)) = (
            f[0].parse::<u64>().ok(),
            at(c.busbw[0]).parse::<f64>().ok(),
            at(c.busbw[1]).parse::<f64>().ok(),
        ) else {
            continue;
        };
        for w in c.wrong.iter().flatten() {
            wrong += at(*w).parse::<f64>().map_or(0, |x| u64::from(x > 0.0));
        }
        let bw = oop.max(ip);
        if best.is_none_or(|(s, _)| size >= s) {
            best = Some((size, bw));
        }
    }
    let Some((bytes, busbw)) = best else {
        return Err(
            "no nccl-tests result row (size count type redop root time algbw busbw …)".into(),
        );
    };
    Ok(NcclResult {
        bytes,
        busbw,
        avg_busbw: avg,
        wrong,
    })
}

/// What an `iperf3 --json` client printed: the receiver's count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Iperf3 {
    pub bytes: u64,
    pub seconds: f64,
    pub received_gbps: f64,
}

pub fn iperf3(text: &str) -> Result<Iperf3, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not iperf3 JSON output: {e}"))?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Err(format!("iperf3 failed: {e}"));
    }
    let sum = v
        .pointer("/end/sum_received")
        .ok_or("iperf3 JSON without `end.sum_received`")?;
    let num = |k: &str| sum.get(k).and_then(serde_json::Value::as_f64);
    let (Some(bytes), Some(seconds), Some(bps)) = (
        sum.get("bytes").and_then(serde_json::Value::as_u64),
        num("seconds"),
        num("bits_per_second"),
    ) else {
        return Err("iperf3 `end.sum_received` without bytes, seconds, bits_per_second".into());
    };
    if !bps.is_finite() || bps < 0.0 {
        return Err(format!("iperf3 reported {bps} bits per second"));
    }
    Ok(Iperf3 {
        bytes,
        seconds,
        received_gbps: bps / 1e9,
    })
}

/// A link test's average rate in Gb/s, from perftest's text or iperf3's JSON (what the lab
/// runs in its place: `railyard lab accept`).
pub fn link_gbps(text: &str) -> Result<f64, String> {
    if text.trim_start().starts_with('{') {
        iperf3(text).map(|r| r.received_gbps)
    } else {
        perftest(text).map(|r| r.average_gbps)
    }
}
