//! Catalog numbers at their extremes (issue 38 item 2): lab-small with its leaf and spine model
//! (`sn4600c`) overlaid by the spec's catalog with a port group of 20,000,000 cages (which grew a
//! build past 6.8 GB), or `first: 1, count: 4294967295` (which wrapped a 32-bit cage number and
//! built cables on the wrong ports), or a breakout of 64 ports per cage. `railyard build` (the
//! binary) runs under `ulimit -v` (4 GiB of address space, set by the test through `sh -c`) and
//! must refuse each with exit 1 and a located `RY0007` at the value, never a signal. At the
//! bounds (4,096 cages) the spec stage accepts the model: whatever the build then says, it is
//! not `RY0007`.

use std::path::Path;
use std::process::Command;

/// 4 GiB of address space, in KiB for `ulimit -v`.
const CAP_KIB: u64 = 4 << 20;

/// lab-small with `sn4600c` replaced by the same model with `group` as its port groups.
fn spec_with(group: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = std::fs::read_to_string(root.join("inventories/lab-small.yaml")).expect("spec");
    let (head, nodes) = base.split_once("catalog:\n").expect("lab-small's catalog");
    format!(
        "{head}catalog:\n  switches:\n    sn4600c:\n      vendor: NVIDIA\n      \
         description: hostile\n      transport: [ethernet]\n      ru: 2\n      mgmt_port: eth0\n      \
         os: nvue\n      source: test\n      port_groups:\n        - {group}\n{nodes}"
    )
}

/// `railyard build spec.yaml -o out --format json` under the cap: exit code, signal, and what
/// it printed (the JSON diagnostics, the command's answer, on stdout; then stderr).
fn build_capped(spec: &str) -> (Option<i32>, Option<i32>, String) {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("spec.yaml"), spec).expect("spec");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_railyard"))
        .args(["build", "spec.yaml", "-o", "out", "--format", "json"])
        .current_dir(dir.path())
        .output()
        .expect("run railyard build");
    let printed = [&o.stdout[..], b"\x00", &o.stderr[..]].concat();
    (
        o.status.code(),
        o.status.signal(),
        String::from_utf8_lossy(&printed).into_owned(),
    )
}

/// The JSON diagnostics (one array on stdout, before the NUL) with code `code`.
fn with_code(printed: &str, code: &str) -> Vec<serde_json::Value> {
    let stdout = printed.split('\0').next().unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap_or_default();
    let all = doc["diagnostics"].as_array().cloned().unwrap_or_default();
    all.into_iter().filter(|d| d["code"] == code).collect()
}

#[test]
fn catalog_counts_past_their_bounds_are_located_errors_under_a_memory_cap() {
    let cases = [
        "{first: 1, count: 20000000, form: qsfp28, speed: 100G, breakouts: [1x100G], name: 'swp{cage}', split_name: 'swp{cage}s{lane}'}",
        "{first: 1, count: 4294967295, form: qsfp28, speed: 100G, breakouts: [1x100G], name: 'swp{cage}', split_name: 'swp{cage}s{lane}'}",
        "{first: 4294967295, count: 64, form: qsfp28, speed: 100G, breakouts: [1x100G], name: 'swp{cage}', split_name: 'swp{cage}s{lane}'}",
        "{first: 1, count: 64, form: qsfp28, speed: 100G, breakouts: [1x100G, 64x1G], name: 'swp{cage}', split_name: 'swp{cage}s{lane}'}",
    ];
    for group in cases {
        let spec = spec_with(group);
        let (code, signal, stderr) = build_capped(&spec);
        assert_eq!(signal, None, "{group}: killed by a signal\n{stderr}");
        assert_eq!(code, Some(1), "{group}\n{stderr}");
        let found = with_code(&stderr, "RY0007");
        assert!(!found.is_empty(), "{group}: no RY0007\n{stderr}");
        let port_groups_line = spec
            .lines()
            .position(|l| l.trim_start().starts_with("- {first"))
            .expect("the group's line")
            + 1;
        assert!(
            found.iter().all(|d| d["line"] == port_groups_line),
            "{group}: not located at line {port_groups_line}: {found:?}"
        );
    }
}

#[test]
fn a_catalog_switch_at_the_bounds_passes_the_spec_stage() {
    let group = "{first: 1, count: 4096, form: qsfp28, speed: 100G, breakouts: [1x100G, 2x50G], \
                 name: 'swp{cage}', split_name: 'swp{cage}s{lane}'}";
    let (code, signal, stderr) = build_capped(&spec_with(group));
    assert_eq!(signal, None, "killed by a signal\n{stderr}");
    assert!(code.is_some(), "{stderr}");
    assert!(with_code(&stderr, "RY0007").is_empty(), "{stderr}");
}
