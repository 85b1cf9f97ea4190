//! Pinned configs: every rendered file of the lab on all four platforms, one leaf and one spine of
//! the Spectrum-X cloud, the H100 SuperPOD's Ethernet in-band switches and its subnet-manager side.
//! The semantic checks live in `configs.rs` and `render_*.rs`; these snapshots make every change
//! to a rendered config visible in review. Accept changes with
//! `INSTA_UPDATE=always cargo test --test render config_snapshots::` and review the `.snap` files.

use crate::common;

use common::*;

const PLATFORMS: [&str; 4] = ["nvue", "sonic", "frr", "eos"];

/// Every OS declared loaded over NETCONF, so the pinned configs include `openconfig.xml`.
const OVER_NETCONF: &str = "\npush: {netconf: [nvue, sonic, frr, eos]}\n";

fn snapshot_files(name: &str, spec: &str, keep: impl Fn(&str) -> bool) -> usize {
    let files = outputs(spec);
    let mut n = 0;
    for f in files.iter().filter(|f| keep(&f.path)) {
        let text = String::from_utf8(f.bytes.clone()).expect("utf-8");
        let snap = format!("config_snapshots__{name}__{}", f.path.replace('/', "__"));
        common::pinned_snapshots().bind(|| insta::assert_snapshot!(snap, text));
        n += 1;
    }
    n
}

#[test]
fn lab_small_every_device_every_platform() {
    for p in PLATFORMS {
        // SONiC's SN2201 platform.json offers no 4x breakout of the QSFP28 cage the OOB uplinks
        // split 4x10G, so OOB switches stay on their model's OS there (RY0111 refuses the split).
        let oob = if p == "sonic" { "nvue" } else { p };
        let spec = format!(
            "{}\nplatforms: {{default: {p}, oob: {oob}}}\n{OVER_NETCONF}",
            inventory("lab-small.yaml")
        );
        let n = snapshot_files(&format!("lab-{p}"), &spec, |path| {
            path.starts_with("configs/") || path.starts_with("intent/")
        });
        // 2 spines, 2 leaves, 1 in-band leaf, the OOB switch and the OOB gateway: a config and
        // an intent dump each.
        assert!(n >= 14, "{p}: {n} files");
    }
}

#[test]
fn spectrum_x_one_leaf_one_spine_every_platform() {
    for p in PLATFORMS {
        let spec = format!(
            "{}\nplatforms: {{default: {p}}}\n{OVER_NETCONF}",
            inventory("spectrum-x-cloud.yaml")
        );
        let n = snapshot_files(&format!("spx-{p}"), &spec, |path| {
            path.starts_with("configs/leaf-su01-01/") || path.starts_with("configs/spine01/")
        });
        assert!(n >= 2, "{p}: {n} files");
    }
}

#[test]
fn h100_superpod_ethernet_switches_and_subnet_managers() {
    let spec = inventory("dgx-superpod-h100.yaml") + OVER_NETCONF;
    let n = snapshot_files("h100", &spec, |path| {
        path.starts_with("configs/inb-") || path.starts_with("configs/subnet-manager")
    });
    assert!(n >= 4, "{n} files");
}
