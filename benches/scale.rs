//! Scale benchmark: synthetic rail-optimized fabrics at 2k, 16k and 131k GPUs, each with routed
//! storage and in-band fabrics and a configured OOB network.
//!
//! Measures, per size: compile (parse, expand, validate, allocate, intent, checks), rendering
//! every switch config and intent dump (with configs/s and MB/s), rendering the fabric artifacts
//! (cabling plan, port maps, BOM, plan, summary, report, workbook, labels, manifest), and writing
//! all of it to a temporary directory; plus the process's peak resident memory. A second table
//! gives the report deliverables alone (`railyard report`): time and size of `report.html`,
//! `cabling.xlsx` and the label sheets. Run with `cargo bench --bench scale [-- SIZES] [--json]`; `-- 512 --spec` prints the spec of a size (to time `railyard build` on it); `-- 4 --avd` renders
//! the EOS example's switches with railyard and with pyavd side by side (`benches/pyavd/`). Figures are printed, not
//! asserted: speed is tracked here, never in tests.

use std::time::Instant;

/// The allocator the `railyard` binary runs with (src/main.rs), so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// As `railyard` does (src/main.rs, where the why is): mimalloc keeps freed memory instead of
/// purging it after 10 ms (option 15, `mi_option_purge_delay`), so the figures are the binary's.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    // SAFETY: sets a process-wide integer option.
    unsafe { libmimalloc_sys::mi_option_set(15, -1) };
}

use railyard::diag::SourceFile;
use railyard::output::{OutputGroup, Selection};

#[path = "pyavd/mod.rs"]
mod pyavd;
#[path = "../tests/avd/structured.rs"]
mod structured;

/// Spectrum-X style compute: DGX H100-class nodes (8 × 400G compute, 2 storage and 2 in-band
/// ports), SN5600 leaves with 2 rails each, SN5600 spines and cores; 3-tier with spine groups of
/// 4 SUs beyond the 2-tier limit (32 SUs). Storage over RDMA at 200G and in-band at 200G (4:1)
/// are fabrics of their own at every size, SN5600 leaf pairs, spines and, when one spine tier
/// no longer takes every leaf, spine groups and cores. Every OOB switch uplinks to one gateway.
/// (In-band was 100G until the physical layer: an SN5600 cage split 4x100G runs 2 × 50G-PAM4
/// per port, which NVIDIA's 100G-PAM4 twin-port optics do not; 4x200G runs 2 × 100G-PAM4 on two
/// 1:2 splitters.)
fn spec(sus: u32) -> String {
    let tiers = if sus > 32 {
        "  tiers: 3\n  core: {model: sn5600}\n"
    } else {
        ""
    };
    // Over a thousand cores share one management subnet: give the OOB pool room for /21s.
    let oob_pool = if sus > 64 {
        "addressing: {oob: 10.128.0.0/9, oob_subnet: 21}\n"
    } else {
        ""
    };
    format!(
        "name: bench-{sus}\nscalable_units: {{count: {sus}, nodes_per_su: 32, node_model: dgx-h100}}\n\
         compute:\n  leaf: {{model: sn5600, rails_per_leaf: 2}}\n  spine: {{model: sn5600, sus_per_group: 4}}\n{tiers}\
         storage:\n  rdma: true\n  port_speed: 200G\n  leaf: {{model: sn5600}}\n  spine: {{model: sn5600}}\n  core: {{model: sn5600}}\n\
         inband:\n  port_speed: 200G\n  oversubscription: \"4:1\"\n  leaf: {{model: sn5600}}\n  spine: {{model: sn5600}}\n  core: {{model: sn5600}}\n\
         oob: {{gateway: {{model: oob-chassis}}}}\n{oob_pool}{OOB_CHASSIS}"
    )
}

/// At 512 SUs the OOB network has over 500 switches: its gateway is a modular chassis.
const OOB_CHASSIS: &str = "catalog:\n  switches:\n    oob-chassis:\n      vendor: example\n      \
    description: modular chassis, 16 line cards of 64 x 10G\n      transport: [ethernet]\n      \
    ru: 16\n      mgmt_port: eth0\n      os: nvue\n      port_groups:\n        - {first: 1, count: 1024, \
    form: sfp28, speed: 10G, breakouts: [\"1x10G\"], name: \"swp{cage}\", split_name: \"swp{cage}s{lane}\"}\n      \
    source: bench\n";

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    keep_freed_memory();
    let opts = Options::from_args();
    // `--spec` prints the spec of each size instead (to time `railyard build` on the same fabric).
    if opts.print_spec {
        for sus in opts.sizes {
            print!("{}", spec(sus));
        }
        return;
    }
    // `--avd` renders the EOS example's switches with railyard and with pyavd, side by side.
    if opts.avd {
        for sus in opts.sizes {
            pyavd::side_by_side(sus);
        }
        return;
    }
    let mut records = Vec::new();
    if !opts.json {
        print_header();
    }
    let mut report_lines = Vec::new();
    for sus in opts.sizes {
        let (figures, report_line) = measure(sus);
        report_lines.push(report_line);
        records.push(figures.record());
        if opts.json {
            continue;
        }
        figures.print_row();
    }
    if opts.json {
        // One JSON document per run, for comparing figures across commits.
        println!(
            "{}",
            serde_json::to_string_pretty(&records).expect("figures are JSON")
        );
        return;
    }
    println!(
        "\n{:>8} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "GPUs", "report_s", "html_MB", "xlsx_MB", "labels_MB", "label_files"
    );
    for l in report_lines {
        println!("{l}");
    }
}

/// The command line: `[SIZES] [--json] [--spec] [--avd]` (with `--avd`, SIZES are the EOS
/// example's SU counts).
struct Options {
    sizes: Vec<u32>,
    json: bool,
    print_spec: bool,
    avd: bool,
}

impl Options {
    fn from_args() -> Self {
        // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary without it
        // (and unoptimized), where only the smallest size is worth its time.
        let args: Vec<String> = std::env::args().skip(1).collect();
        let benching = args.iter().any(|a| a == "--bench");
        let json = args.iter().any(|a| a == "--json");
        let sizes: Vec<u32> = match args.iter().find(|a| !a.starts_with('-')) {
            Some(s) => s.split(',').filter_map(|x| x.parse().ok()).collect(),
            None if benching => vec![8, 64, 512],
            None => vec![8],
        };
        Options {
            sizes,
            json,
            print_spec: args.iter().any(|a| a == "--spec"),
            avd: args.iter().any(|a| a == "--avd"),
        }
    }
}

fn print_header() {
    println!(
        "{:>8} {:>5} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8}",
        "GPUs",
        "SUs",
        "devices",
        "stor+inb",
        "cables",
        "compile_s",
        "configs",
        "config_s",
        "cfg/s",
        "cfg_MB/s",
        "artifact_s",
        "write_s",
        "total_s",
        "peak_MiB"
    );
}

/// The figures of one size.
struct Figures {
    gpus: u64,
    sus: u32,
    devices: usize,
    /// Storage and in-band switches.
    access: usize,
    cables: usize,
    compile_s: f64,
    configs: usize,
    config_s: f64,
    config_bytes: usize,
    artifact_s: f64,
    write_s: f64,
    total_s: f64,
    report_s: f64,
    peak_mib: f64,
}

impl Figures {
    fn record(&self) -> serde_json::Value {
        serde_json::json!({
            "gpus": self.gpus,
            "sus": self.sus,
            "devices": self.devices,
            "storage_inband_switches": self.access,
            "cables": self.cables,
            "compile_s": self.compile_s,
            "configs": self.configs,
            "config_s": self.config_s,
            "config_mb": self.config_bytes as f64 / 1e6,
            "artifact_s": self.artifact_s,
            "write_s": self.write_s,
            "total_s": self.total_s,
            "report_s": self.report_s,
            "peak_mib": self.peak_mib,
        })
    }

    /// A row of the main table; the peak memory as of now.
    fn print_row(&self) {
        let (gpus, sus, access, cfg_s) = (self.gpus, self.sus, self.access, self.config_s);
        println!(
            "{gpus:>8} {sus:>5} {:>8} {access:>8} {:>8} {:>9.3} {:>8} {:>9.3} {:>8.0} {:>8.1} {:>9.3} {:>8.3} {:>8.3} {:>8.0}",
            self.devices,
            self.cables,
            self.compile_s,
            self.configs,
            cfg_s,
            self.configs as f64 / cfg_s,
            self.config_bytes as f64 / 1e6 / cfg_s,
            self.artifact_s,
            self.write_s,
            self.total_s,
            peak_rss_mib()
        );
    }
}

/// Compile, render and write one size; then render the report deliverables alone. Returns the
/// figures and the size's row of the report table.
fn measure(sus: u32) -> (Figures, String) {
    let src = SourceFile::new("bench.yaml", spec(sus));
    let t0 = Instant::now();
    let compiled = railyard::compile(&src);
    let Some(design) = &compiled.design else {
        for d in compiled.diagnostics.sorted() {
            eprintln!("{}: {}", d.code.id, d.message);
        }
        panic!("bench spec for {sus} SUs did not compile");
    };
    let fabric = &design.fabric;
    let t1 = Instant::now();
    let templates = railyard::render::Templates::default();
    let configs = railyard::render::render_all(&design.intents, &templates).expect("render");
    let t_cfg = Instant::now();
    let n_cfg = configs
        .iter()
        .filter(|f| f.path.starts_with("configs/"))
        .count();
    let cfg_bytes: usize = configs.iter().map(|f| f.bytes.len()).sum();
    // Every default group but the configs (rendered above), then the manifest over all of it.
    let documents: Vec<OutputGroup> = OutputGroup::DEFAULT
        .into_iter()
        .filter(|g| *g != OutputGroup::Configs)
        .collect();
    let collector = railyard::output::Collector::default();
    configs.into_iter().for_each(|f| collector.put(f));
    compiled
        .emit(
            &templates,
            &Selection::of(&documents),
            &|f| collector.put(f),
            &railyard::output::NoMemo,
        )
        .expect("compiled")
        .expect("artifacts");
    let files = collector.finish();
    let t2 = Instant::now();
    let cfg_s = (t_cfg - t1).as_secs_f64();
    let dir = std::env::temp_dir().join(format!("railyard-bench-{}-{sus}", std::process::id()));
    write_all(&dir, &files);
    let t3 = Instant::now();
    let _ = std::fs::remove_dir_all(&dir);
    drop(files);
    let (report_s, report_line) = report_only(sus, &compiled);
    let access = fabric
        .devices()
        .filter(|d| {
            matches!(
                d.network,
                railyard::model::Network::Storage | railyard::model::Network::Inband
            ) && d.role.is_switch()
        })
        .count();
    let figures = Figures {
        gpus: u64::from(sus) * 32 * 8,
        sus,
        devices: fabric.device_count(),
        access,
        cables: fabric.link_count(),
        compile_s: (t1 - t0).as_secs_f64(),
        configs: n_cfg,
        config_s: cfg_s,
        config_bytes: cfg_bytes,
        artifact_s: (t2 - t_cfg).as_secs_f64(),
        write_s: (t3 - t2).as_secs_f64(),
        total_s: (t3 - t0).as_secs_f64(),
        report_s,
        peak_mib: peak_rss_mib(),
    };
    (figures, report_line)
}

fn write_all(dir: &std::path::Path, files: &[railyard::output::OutputFile]) {
    for f in files {
        let p = dir.join(&f.path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &f.bytes).unwrap();
    }
}

/// The report deliverables alone (`railyard report`): the time, and the size's row of the
/// report table.
fn report_only(sus: u32, compiled: &railyard::Compiled) -> (f64, String) {
    let t4 = Instant::now();
    let report = compiled
        .report_outputs()
        .expect("compiled")
        .expect("report");
    let report_s = t4.elapsed().as_secs_f64();
    let mb = |pred: &dyn Fn(&str) -> bool| {
        report
            .iter()
            .filter(|f| pred(&f.path))
            .map(|f| f.bytes.len())
            .sum::<usize>() as f64
            / 1e6
    };
    let line = format!(
        "{:>8} {:>9.3} {:>9.1} {:>9.1} {:>10.1} {:>8}",
        u64::from(sus) * 32 * 8,
        report_s,
        mb(&|p| p == "report.html"),
        mb(&|p| p == "cabling.xlsx"),
        mb(&|p| p.starts_with("labels/")),
        report
            .iter()
            .filter(|f| f.path.starts_with("labels/"))
            .count(),
    );
    (report_s, line)
}
