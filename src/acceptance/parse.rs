//! perftest's and nccl-tests' own output, read back.
//!
//! perftest (github.com/linux-rdma/perftest, `src/perftest_parameters.h`): a header line
//! `RESULT_FMT_G` (` #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]`, with
//! `--report_gbits`) or `RESULT_FMT` (`…[MiB/sec]`), then one `REPORT_FMT` line per size.
//!
//! nccl-tests (github.com/NVIDIA/nccl-tests, `src/util.cu` `writeResultHeader`,
//! `writeBenchmarkLineBody`, `writeResultFooter`): `#` header and footer lines, one row per size:
//! size, count, type, redop, root, then out-of-place time, algbw, busbw, #wrong and the same
//! in-place (with `-I 1` each side has four more columns); the footer's `# Avg bus bandwidth`.

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
        if line.contains("BW average[MiB/sec]") {
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

pub fn nccl(text: &str) -> Result<NcclResult, String> {
    let mut best: Option<(u64, f64)> = None;
    let mut wrong = 0u64;
    let mut avg = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('#') {
            let rest = rest.trim();
            if let Some(v) = rest.strip_prefix("Avg bus bandwidth") {
                avg = v
                    .trim_start_matches([' ', ':'])
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<f64>().ok());
            } else if let Some(v) = rest.strip_prefix("Out of bounds values") {
                wrong += v
                    .trim_start_matches([' ', ':'])
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<u64>().ok())
                    .unwrap_or(0);
            }
            continue;
        }
        let f: Vec<&str> = t.split_whitespace().collect();
        // In-place busbw: 4 columns after out-of-place's 4 (8 with per-iteration timing).
        let inplace = match f.len() {
            13..=15 => 11,
            21..=23 => 15,
            _ => continue,
        };
        let (Some(size), Some(oop), Some(ip)) = (
            f[0].parse::<u64>().ok(),
            f[7].parse::<f64>().ok(),
            f[inplace].parse::<f64>().ok(),
        ) else {
            continue;
        };
        for w in [f[8], f[inplace + 1]] {
            wrong += w.parse::<f64>().map_or(0, |x| u64::from(x > 0.0));
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
