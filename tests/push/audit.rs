//! `railyard audit` end to end against the push tests' real targets (netconfd behind OpenSSH;
//! FRR 8.4 behind sshd): after a push no drift (exit 0); a hand change made on the device with
//! the device's own tools (an edit-config through the test's NETCONF client; `vtysh -c 'conf t'`)
//! is named exactly (exit 1); the audit wrote nothing (running config identical before and after,
//! no lock held, no file left in the state or temporary directory); an unreachable target is
//! exit 2. Needs root (prereq otherwise).

use crate::push_support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use push_support::{
    FrrLab, Run, build, devices_with, free_port, lab_small_on, oc_interfaces, open, require_root,
    run_push, setup_push,
};
use railyard::meaning::netconf::canon;
use railyard::meaning::netconf::payload::ConfigPayload;
use railyard::push::netconf::client::{Datastore, DefaultOperation, EditOptions};

const PASSPHRASE: &str = "correct-horse-battery-staple-7731";

/// `railyard audit --targets TARGETS --trust-targets-file --from OUT [extra]` (the test's
/// targets file is the operator's own).
fn audit(targets: &Path, out: &Path, extra: &[&str]) -> Run {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("audit")
        .arg("--targets")
        .arg(targets)
        .arg("--trust-targets-file")
        .arg("--from")
        .arg(out)
        .args(extra)
        .env_remove("SSH_AUTH_SOCK")
        .env("RY_TEST_PASSPHRASE", PASSPHRASE)
        .output()
        .expect("run railyard audit");
    let r = Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        seconds: t.elapsed().as_secs_f64(),
    };
    eprintln!(
        "railyard audit {extra:?} → exit {} in {:.2} s\n--- stdout ---\n{}--- stderr ---\n{}",
        r.code, r.seconds, r.stdout, r.stderr
    );
    assert!(!r.stdout.contains(PASSPHRASE) && !r.stderr.contains(PASSPHRASE));
    r
}

/// The `- …` / `+ …` lines the text report prints.
fn drift_lines(stdout: &str) -> BTreeSet<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("   "))
        .filter(|l| l.starts_with("- ") || l.starts_with("+ "))
        .map(str::to_string)
        .collect()
}

/// Names in the system temporary directory a scratch FRR or the audit would create.
fn scratch_temp_files() -> BTreeSet<String> {
    std::fs::read_dir(std::env::temp_dir())
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("railyard-scratch.") || n.starts_with("railyard-audit-"))
                .collect()
        })
        .unwrap_or_default()
}

fn set(lines: &[&str]) -> BTreeSet<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

#[test]
fn netconf_push_then_audit_names_a_hand_change_and_writes_nothing() {
    if !require_root("netconf_push_then_audit_names_a_hand_change_and_writes_nothing") {
        return;
    }
    let new = |dev: &str| {
        oc_interfaces(&[
            ("eth1", 9000, &format!("uplink of {dev}")),
            ("eth2", 9000, "second"),
        ])
    };
    let (fabric, work) = setup_push(
        &[("leaf1", "leaf")],
        &oc_interfaces(&[("eth1", 9000, "old")]),
        PASSPHRASE,
        "railyard-audit-nc-",
        new,
    );
    let w = work.path();
    let (targets, out) = (w.join("targets.yaml"), w.join("out"));
    let out_s = out.to_str().expect("utf-8 path");
    assert_eq!(
        run_push(w, &["--from", out_s], &[], Some(PASSPHRASE)).code,
        0
    );

    let r = audit(&targets, &out, &[]);
    assert_eq!(r.code, 0, "no drift right after a push");
    assert!(
        r.stdout.contains("== leaf1 (netconf): in-sync"),
        "{}",
        r.stdout
    );

    // A hand change through the device's own NETCONF interface: eth2's description.
    let lab = fabric.lab("leaf1");
    let mut c = open(lab);
    let hand = ConfigPayload::from_xml(oc_interfaces(&[("eth2", 9000, "by hand")]).as_bytes())
        .expect("payload");
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(
        Datastore::Candidate,
        &hand,
        EditOptions {
            default_operation: Some(DefaultOperation::Merge),
            test_option: None,
            error_option: None,
        },
    )
    .expect("edit-config");
    c.commit().expect("commit");
    c.unlock(Datastore::Candidate).expect("unlock");
    let before = canon::canonical_lines(&c.get_config(Datastore::Running, None).expect("get"));

    let r = audit(&targets, &out, &[]);
    assert_eq!(r.code, 1, "drift");
    let desc = "/interfaces:interfaces/interface[name=eth2]/config/description";
    assert_eq!(
        drift_lines(&r.stdout),
        set(&[
            &format!("- {desc} = by hand"),
            &format!("+ {desc} = second")
        ])
    );
    let j = audit(&targets, &out, &["--format", "json"]);
    assert_eq!(j.code, 1);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("json");
    assert_eq!(v["devices"][0]["state"], "drift");
    assert_eq!(v["devices"][0]["removed"][0], format!("{desc} = by hand"));

    // Nothing written: running unchanged, the candidate lockable (no lock left), and the
    // candidate still equal to running (no staged edit).
    let after = canon::canonical_lines(&c.get_config(Datastore::Running, None).expect("get"));
    assert_eq!(before, after);
    c.lock(Datastore::Candidate)
        .expect("no lock held after audit");
    let running = c.get_config(Datastore::Running, None).expect("running");
    let candidate = c.get_config(Datastore::Candidate, None).expect("candidate");
    assert!(
        canon::diff(&running, &candidate).is_empty(),
        "candidate untouched"
    );
    c.unlock(Datastore::Candidate).expect("unlock");

    // An unreachable target (nothing listens on the port): exit 2, the device named.
    let text = std::fs::read_to_string(&targets).expect("targets");
    let port = lab.port.to_string();
    let dead = w.join("dead.yaml");
    std::fs::write(&dead, text.replace(&port, &free_port().to_string())).expect("dead");
    let r = audit(&dead, &out, &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.contains("== leaf1 (netconf): unreadable"),
        "{}",
        r.stdout
    );
    // Bad input: a build without the device's file is exit 3.
    let r = audit(&targets, &w.join("no-such-build"), &[]);
    assert_eq!(r.code, 3);
    drop(fabric);
}

#[test]
fn frr_push_then_audit_names_a_vtysh_change_and_writes_nothing() {
    if !require_root("frr_push_then_audit_names_a_vtysh_change_and_writes_nothing") {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let spec = lab_small_on("frr", scratch.path());
    let built = scratch.path().join("out");
    build(&spec, &built);
    let leaf = devices_with(&built, "frr.conf")
        .into_iter()
        .find(|n| n.starts_with("leaf"))
        .expect("a leaf");
    let lab = FrrLab::start(&[&leaf]);
    let out = lab.path().join("out");
    build(&spec, &out);
    lab.write_targets(&|_| "leaf".to_string());
    let targets = lab.path().join("targets.yaml");
    let out_s = out.to_str().expect("utf-8 path");
    assert_eq!(run_push(lab.path(), &["--from", out_s], &[], None).code, 0);

    let r = audit(&targets, &out, &[]);
    assert_eq!(r.code, 0, "no drift right after a push");
    assert!(
        r.stdout.contains(&format!("== {leaf} (frr-ssh): in-sync")),
        "{}",
        r.stdout
    );

    let router = lab.router(&leaf);
    router.vtysh(&["conf t", "ip route 192.0.2.0/24 blackhole"]);
    let before = router.running();
    let state_before = router.leftovers();
    let temp_before = scratch_temp_files();

    let r = audit(&targets, &out, &[]);
    assert_eq!(r.code, 1, "drift");
    assert_eq!(
        drift_lines(&r.stdout),
        set(&["- ip route 192.0.2.0/24 blackhole"])
    );
    assert_eq!(
        router.running(),
        before,
        "running config unchanged by the audit"
    );
    assert_eq!(
        router.leftovers(),
        state_before,
        "no file in the state directory"
    );
    assert_eq!(
        scratch_temp_files(),
        temp_before,
        "no file left in the temp dir"
    );
}
