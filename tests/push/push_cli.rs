//! `railyard push` end to end, as a user runs it: the binary, a targets file, an output
//! directory, and real netconfd + sshd targets on 127.0.0.1 — and the wording of what it says
//! when something is wrong (each message names its subject). Needs root (prereq otherwise).

use crate::push_support;

use std::path::Path;

use push_support::{
    Fabric, Run, oc_interfaces, open, require_root, run_push, running_is, setup_push,
};
use railyard::meaning::netconf::canon;
use railyard::meaning::netconf::payload::ConfigPayload;
use railyard::push::netconf::client::Datastore;

const PASSPHRASE: &str = "correct-horse-battery-staple-7731";
const OLD: &[(&str, u32, &str)] = &[("eth1", 1500, "old")];

fn new_config(dev: &str) -> String {
    oc_interfaces(&[
        ("eth1", 9000, &format!("uplink of {dev}")),
        ("eth2", 9000, "second"),
    ])
}

fn railyard(dir: &Path, args: &[&str]) -> Run {
    let out = dir.join("out");
    let mut all = vec!["--from", out.to_str().expect("utf-8 path")];
    all.extend_from_slice(args);
    run_push(dir, &all, &[], Some(PASSPHRASE))
}

fn journals(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("journal"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_else(|_| Vec::new());
    v.sort();
    v.into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap_or_default();
            (p, t)
        })
        .collect()
}

fn setup(devices: &[(&str, &str)]) -> (Fabric, tempfile::TempDir) {
    setup_push(
        devices,
        &oc_interfaces(OLD),
        PASSPHRASE,
        "railyard-push-cli-",
        new_config,
    )
}

#[test]
fn dry_run_then_push_in_waves_then_nothing_to_do() {
    if !require_root("dry_run_then_push_in_waves_then_nothing_to_do") {
        return;
    }
    let devices = [("spine1", "spine"), ("leaf1", "leaf"), ("leaf2", "leaf")];
    let (fabric, work) = setup(&devices);
    let w = work.path();
    check_dry_run_commits_nothing(&fabric, w);
    check_disruptive_push_is_refused(&fabric, w);
    check_push_in_waves(&fabric, w);
    check_second_run_commits_nothing(w);
    drop(fabric);
}

/// Dry run: per-device diff, nothing committed, candidates discarded, locks released; the
/// MTU change is listed as disruptive.
fn check_dry_run_commits_nothing(fabric: &Fabric, w: &Path) {
    let old = oc_interfaces(OLD);
    let r = railyard(w, &["--dry-run"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("== spine1 (netconf): Diffed"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("+ /interfaces:interfaces/interface[name=eth1]/config/mtu = 9000")
    );
    assert!(
        r.stdout
            .contains("- /interfaces:interfaces/interface[name=eth1]/config/mtu = 1500")
    );
    assert!(
        r.stdout.contains(
            "DISRUPTIVE: MTU on eth1: 1500 → 9000 — frames of the old size are dropped until \
             both ends agree"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("dry run: nothing committed"),
        "{}",
        r.stdout
    );
    for (name, _, lab) in &fabric.labs {
        assert!(running_is(lab, &old), "{name} changed by a dry run");
        let mut c = open(lab);
        c.lock(Datastore::Candidate)
            .expect("lock left behind by the dry run");
        let cand = c.get_config(Datastore::Candidate, None).expect("candidate");
        let p = ConfigPayload::from_xml(old.as_bytes()).expect("old");
        assert!(
            canon::diff(&cand, p.tree()).is_empty(),
            "{name}: candidate not discarded"
        );
    }
}

/// The same change pushed without --allow-disruptive: refused, nothing committed.
fn check_disruptive_push_is_refused(fabric: &Fabric, w: &Path) {
    let old = oc_interfaces(OLD);
    let r = railyard(w, &["--wave", "spines,leaves"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout
            .contains("1 disruptive change(s) refused: MTU on eth1: 1500 → 9000"),
        "{}",
        r.stdout
    );
    for (name, _, lab) in &fabric.labs {
        assert!(running_is(lab, &old), "{name} changed by a refused push");
    }
}

/// The push, spines first: every device at the new config, a private journal without the
/// passphrase that records each device's states, the spine verified before any leaf committed.
fn check_push_in_waves(fabric: &Fabric, w: &Path) {
    let r = railyard(
        w,
        &[
            "--wave",
            "spines,leaves",
            "--confirm-timeout",
            "60",
            "--allow-disruptive",
        ],
    );
    assert_eq!(r.code, 0, "push failed");
    assert!(r.stderr.contains("wave 1/2: committing 1 device(s)"));
    assert!(r.stderr.contains("wave 2/2: committing 2 device(s)"));
    for (name, _, lab) in &fabric.labs {
        assert!(
            running_is(lab, &new_config(name)),
            "{name} not at the new config"
        );
    }
    let js = journals(w);
    assert_eq!(js.len(), 3, "one journal per transaction");
    let (path, text) = &js[2];
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(path).expect("journal").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    assert!(!text.contains(PASSPHRASE));
    for (name, _, _) in &fabric.labs {
        for state in ["ready", "committed", "verified", "confirmed"] {
            assert!(
                text.lines()
                    .any(|l| l.contains(&format!("\"device\":\"{name}\""))
                        && l.contains(&format!("\"state\":\"{state}\""))),
                "journal lacks {name} {state}:\n{text}"
            );
        }
    }
    // The spine was verified before any leaf committed.
    let line_of = |dev: &str, state: &str| {
        text.lines()
            .position(|l| {
                l.contains(&format!("\"device\":\"{dev}\""))
                    && l.contains(&format!("\"state\":\"{state}\""))
            })
            .unwrap_or(usize::MAX)
    };
    assert!(
        line_of("spine1", "verified") < line_of("leaf1", "committed"),
        "{text}"
    );
}

/// Running again: an empty diff is never committed.
fn check_second_run_commits_nothing(w: &Path) {
    let r = railyard(w, &[]);
    assert_eq!(r.code, 0);
    let js = journals(w);
    let (_, text) = &js[3];
    assert!(!text.contains("\"state\":\"committed\""), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("\"event\":\"state\"") && l.contains("\"state\":\"unchanged\""))
            .count(),
        3
    );
}

#[test]
fn a_held_lock_refuses_the_whole_push() {
    if !require_root("a_held_lock_refuses_the_whole_push") {
        return;
    }
    let (fabric, work) = setup(&[("spine1", "spine"), ("leaf1", "leaf")]);
    let old = oc_interfaces(OLD);
    // Someone else is configuring leaf1.
    let mut holder = open(fabric.lab("leaf1"));
    holder.lock(Datastore::Candidate).expect("holder lock");
    let theirs = oc_interfaces(&[("eth9", 1400, "their work in progress")]);
    let theirs_p = ConfigPayload::from_xml(theirs.as_bytes()).expect("theirs");
    holder
        .edit_config(Datastore::Candidate, &theirs_p, Default::default())
        .expect("holder edit");
    let sid = holder.session_id().expect("session id").to_string();
    let r = railyard(work.path(), &["--allow-disruptive"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout
            .contains(&format!("candidate locked by NETCONF session {sid}")),
        "holder not named"
    );
    assert!(r.stdout.contains("REFUSED at preflight"));
    for (name, _, lab) in &fabric.labs {
        assert!(
            running_is(lab, &old),
            "{name} changed although preflight failed"
        );
    }
    // The holder's uncommitted work is untouched.
    let cand = holder
        .get_config(Datastore::Candidate, None)
        .expect("holder candidate");
    assert!(
        canon::canonical_lines(&cand)
            .iter()
            .any(|l| l.contains("their work in progress")),
        "railyard discarded someone else's candidate"
    );
    // spine1's lock was released by the abort.
    open(fabric.lab("spine1"))
        .lock(Datastore::Candidate)
        .expect("spine1 left locked");
}

#[test]
fn an_unknown_host_key_refuses_before_anything_is_sent() {
    if !require_root("an_unknown_host_key_refuses_before_anything_is_sent") {
        return;
    }
    let (fabric, work) = setup(&[("leaf1", "leaf")]);
    std::fs::write(&fabric.known_hosts, "").expect("empty known_hosts");
    let r = railyard(work.path(), &[]);
    assert_eq!(r.code, 3);
    assert!(r.stdout.contains("unknown host key"), "{}", r.stdout);
    // Names the known_hosts file it looked in.
    assert!(
        r.stdout
            .contains(&format!("not in {}", fabric.known_hosts.display())),
        "{}",
        r.stdout
    );
    assert!(!fabric.lab("leaf1").sshd_log().contains("userauth-request"));
    assert!(running_is(fabric.lab("leaf1"), &oc_interfaces(OLD)));
}

#[test]
fn messages_name_their_subject() {
    if !require_root("messages_name_their_subject") {
        return;
    }
    let (fabric, work) = setup(&[("leaf1", "leaf")]);
    let w = work.path();
    let targets = w.join("targets.yaml");
    let good = std::fs::read_to_string(&targets).expect("targets");

    // An unset password variable is not a wrong password: the variable is named. The
    // credentials and known_hosts are the operator's flags (#38 item 5), not the file's.
    let lab = fabric.lab("leaf1");
    std::fs::write(
        &targets,
        format!(
            "devices:\n  leaf1: {{address: 127.0.0.1, port: {}, user: root, role: leaf}}\n",
            lab.port
        ),
    )
    .expect("targets");
    let r = run_push(
        w,
        &[
            "--from",
            w.join("out").to_str().expect("utf-8"),
            "--no-agent",
            "--password-env",
            "RY_TEST_UNSET_PASSWORD",
            "--known-hosts",
            fabric.known_hosts.to_str().expect("utf-8"),
        ],
        &[],
        None,
    );
    assert_eq!(r.code, 3);
    assert!(
        r.stdout.contains(
            "password not offered: environment variable $RY_TEST_UNSET_PASSWORD \
             (--password-env) is not set"
        ),
        "{}",
        r.stdout
    );

    // A broken targets file: the file is named, and `error:` is said once.
    std::fs::write(&targets, good.replace("devices:", "bogus_key: 1\ndevices:")).expect("targets");
    let r = railyard(w, &[]);
    assert_eq!(r.code, 3);
    assert!(
        r.stderr
            .starts_with(&format!("error: targets file {}: ", targets.display())),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.matches("error:").count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("bogus_key"), "{}", r.stderr);

    // A file edited after the build: refused, naming the file and the manifest.
    std::fs::write(&targets, &good).expect("targets");
    let payload = w.join("out/configs/leaf1/openconfig.xml");
    let edited = std::fs::read_to_string(&payload)
        .expect("payload")
        .replace("uplink of leaf1", "edited by hand");
    std::fs::write(&payload, edited).expect("edit");
    let r = railyard(w, &["--dry-run"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stderr.contains(&format!(
            "edited after the build (SHA-256 differs from {}): {}",
            w.join("out/manifest.json").display(),
            payload.display()
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--allow-edited"), "{}", r.stderr);
    let r = railyard(w, &["--dry-run", "--allow-edited"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("edited by hand"), "{}", r.stdout);
    drop(fabric);
}
