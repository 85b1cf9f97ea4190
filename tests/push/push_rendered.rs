//! What `railyard build` renders for the `netconf` driver, pushed as a user would: the
//! `openconfig.xml` of every lab-small switch, and of a Spectrum-X leaf (SN5600, split 800G
//! cages: the biggest interface tree the examples render), each to its own real yuma123
//! `netconfd` (loading openconfig-interfaces, openconfig-if-ip and iana-if-type from
//! `tests/fixtures/yang`) behind a real sshd. Each push ends "Confirmed", the running datastore
//! reads back equal to the rendered payload, and a second push is "Unchanged". Needs root.

use crate::push_support;

use std::path::Path;

use push_support::{
    Fabric, build, confirmed_as_rendered, devices_with, lab_small_on, require_root, run_push,
};

const PASSPHRASE: &str = "rendered-payload-passphrase-3141";

fn role_of(dev: &str) -> &'static str {
    if dev.starts_with("spine") {
        "spine"
    } else {
        "leaf"
    }
}

/// Push `devices`' rendered openconfig.xml from `out` to a fresh netconfd each; confirm, read
/// back, push again.
fn push_rendered(out: &Path, devices: &[String]) {
    let specs: Vec<(&str, &str)> = devices.iter().map(|d| (d.as_str(), role_of(d))).collect();
    let fabric = Fabric::start(&specs, "<config/>", PASSPHRASE);
    let work = tempfile::Builder::new()
        .prefix("railyard-push-rendered-")
        .tempdir()
        .expect("tempdir");
    let w = work.path();
    std::fs::write(
        w.join("targets.yaml"),
        fabric.targets_yaml("RY_TEST_PASSPHRASE"),
    )
    .expect("targets");
    let from = out.to_str().expect("utf-8 path");

    let r = run_push(
        w,
        &[
            "--from",
            from,
            "--wave",
            "spines,leaves",
            "--confirm-timeout",
            "120",
        ],
        &[],
        Some(PASSPHRASE),
    );
    assert_eq!(r.code, 0, "the rendered payloads were not confirmed");
    eprintln!(
        "TIMING push of {} rendered openconfig.xml: {:.2} s",
        devices.len(),
        r.seconds
    );
    confirmed_as_rendered(&r, &fabric, out, devices);

    let r = run_push(w, &["--from", from], &[], Some(PASSPHRASE));
    assert_eq!(r.code, 0);
    for d in devices {
        assert!(
            r.stdout.contains(&format!("== {d} (netconf): Unchanged")),
            "{d}: {}",
            r.stdout
        );
    }
    drop(fabric);
}

/// The spec at `spec` declaring its `os` switches loaded with the netconf driver (the build
/// renders `openconfig.xml` only for those).
fn over_netconf(spec: &Path, os: &str) -> std::path::PathBuf {
    let mut text = std::fs::read_to_string(spec).expect("spec");
    text.push_str(&format!("\npush:\n  netconf: [{os}]\n"));
    std::fs::write(spec, text).expect("spec");
    spec.to_path_buf()
}

#[test]
fn rendered_openconfig_of_every_lab_small_switch_loads_confirms_and_reads_back() {
    if !require_root("rendered_openconfig_of_every_lab_small_switch_loads_confirms_and_reads_back")
    {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let spec = over_netconf(&lab_small_on("nvue", scratch.path()), "nvue");
    let out = scratch.path().join("out");
    build(&spec, &out);
    let devices = devices_with(&out, "openconfig.xml");
    assert!(devices.len() >= 4, "{devices:?}");
    push_rendered(&out, &devices);
}

#[test]
fn rendered_openconfig_of_a_spectrum_x_leaf_loads_confirms_and_reads_back() {
    if !require_root("rendered_openconfig_of_a_spectrum_x_leaf_loads_confirms_and_reads_back") {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories/spectrum-x-cloud.yaml");
    let copy = scratch.path().join("spectrum-x-cloud.yaml");
    std::fs::copy(&example, &copy).expect("copy the example");
    let spec = over_netconf(&copy, "nvue");
    let out = scratch.path().join("out");
    build(&spec, &out);
    let leaf = devices_with(&out, "openconfig.xml")
        .into_iter()
        .find(|d| d.contains("leaf") && !d.contains("stor") && !d.contains("inb"))
        .expect("a compute leaf");
    let payload =
        std::fs::read_to_string(out.join(format!("configs/{leaf}/openconfig.xml"))).expect("xml");
    // The point of this case: a large tree with split cages and IPv6 link-local fabric ports.
    let interfaces = payload.matches("<interface>").count();
    assert!(interfaces >= 64, "{leaf}: only {interfaces} interfaces");
    push_rendered(&out, &[leaf]);
}
