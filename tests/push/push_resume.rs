//! `railyard push --resume ID` and `--rollback ID` end to end: the binary, a targets file and
//! real netconfd + sshd targets on 127.0.0.1. A push whose process dies between commit and
//! confirm is finished by `--resume` (persist-id confirm from a new session) — also when it died
//! before the journal knew the commit had been sent, by reading the devices back; a confirmed
//! push is undone by `--rollback` (read back and compared). The kills use the `test-hooks`
//! feature (`RAILYARD_TEST_DIE_AT`, absent from release builds). Needs root.

use crate::push_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use push_support::{
    Fabric, Run, oc_interfaces, open, require_root, run_push, running_is, setup_push,
};

const PASSPHRASE: &str = "resume-passphrase-5521";
const OLD: &[(&str, u32, &str)] = &[("eth1", 1500, "old")];

fn new_config(dev: &str) -> String {
    oc_interfaces(&[
        ("eth1", 9000, &format!("uplink of {dev}")),
        ("eth2", 9000, "second"),
    ])
}

fn railyard(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_push(dir, args, env, Some(PASSPHRASE))
}

fn push(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let out = dir.join("out");
    let out = out.to_str().expect("utf-8 path");
    let mut args = vec!["--from", out];
    args.extend_from_slice(extra);
    railyard(dir, &args, env)
}

/// Journals, oldest first (transaction ids sort by time).
fn journals(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("journal"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn txid_of(journal: &Path) -> String {
    journal
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned()
}

/// The kill points exist only in a `--features test-hooks` build (`scripts/test.sh`).
fn require_hooks(test: &str) -> bool {
    push_support::prereq::require(
        test,
        "test-hooks",
        cfg!(feature = "test-hooks"),
        "run cargo test --features test-hooks (scripts/test.sh does)",
    )
}

fn has_state(text: &str, dev: &str, state: &str) -> bool {
    text.lines().any(|l| {
        l.contains(&format!("\"device\":\"{dev}\""))
            && l.contains(&format!("\"state\":\"{state}\""))
    })
}

fn setup(devices: &[(&str, &str)]) -> (Fabric, tempfile::TempDir) {
    setup_push(
        devices,
        &oc_interfaces(OLD),
        PASSPHRASE,
        "railyard-push-resume-",
        new_config,
    )
}

#[test]
fn resume_confirms_a_commit_whose_pusher_died() {
    if !require_root("resume_confirms_a_commit_whose_pusher_died")
        || !require_hooks("resume_confirms_a_commit_whose_pusher_died")
    {
        return;
    }
    let (fabric, work) = setup(&[("spine1", "spine"), ("leaf1", "leaf")]);
    let w = work.path();
    let old = oc_interfaces(OLD);

    // The laptop dies right after spine1's confirmed commit (wave 1), before any confirm.
    let r = push(
        w,
        &[
            "--wave",
            "spines,leaves",
            "--confirm-timeout",
            "120",
            "--allow-disruptive",
        ],
        &[("RAILYARD_TEST_DIE_AT", "committed")],
    );
    assert_eq!(r.code, 137, "the test hook did not stop the push");
    let j = journals(w);
    assert_eq!(j.len(), 1);
    let txid = txid_of(&j[0]);
    let text = std::fs::read_to_string(&j[0]).expect("journal");
    assert!(has_state(&text, "spine1", "committed"), "{text}");
    assert!(!has_state(&text, "spine1", "confirmed"), "{text}");
    // Pending on the device: new config running, reverts unless confirmed.
    assert!(running_is(fabric.lab("spine1"), &new_config("spine1")));
    assert!(running_is(fabric.lab("leaf1"), &old));

    let r = railyard(w, &["--resume", &txid], &[]);
    // spine1 confirmed, leaf1 never committed: a partial rollout is "mixed". leaf1's journal
    // says "ready" (its commit could have been on the way): read back, not assumed.
    assert_eq!(r.code, 2, "resume exit code");
    assert!(
        r.stdout.contains("== spine1 (netconf): Confirmed"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("== leaf1 (netconf): Aborted"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("leaf1") && r.stderr.contains("read back at its old config"),
        "{}",
        r.stderr
    );
    // The summary quotes this transaction's own window, not the default 300 s.
    assert!(
        r.stdout.contains("within 120 s of their commit"),
        "{}",
        r.stdout
    );
    assert!(r.seconds < 60.0, "resume took {:.1} s", r.seconds);
    eprintln!("TIMING resume (persist-id confirm): {:.2} s", r.seconds);
    assert!(running_is(fabric.lab("spine1"), &new_config("spine1")));
    assert!(running_is(fabric.lab("leaf1"), &old), "leaf1 was touched");

    // Confirmed for real: no pending commit is left to cancel under that persist-id.
    let pid = format!("{txid}-spine1");
    let mut c = open(fabric.lab("spine1"));
    assert!(
        c.cancel_commit(Some(&pid)).is_err(),
        "a confirmed commit was still pending"
    );
    assert!(running_is(fabric.lab("spine1"), &new_config("spine1")));

    // The resume appended to the same journal; a second resume has nothing left to do.
    let text = std::fs::read_to_string(&j[0]).expect("journal");
    assert!(text.contains("\"event\":\"resume\""));
    assert!(has_state(&text, "spine1", "confirmed"), "{text}");
    let r = railyard(w, &["--resume", &txid], &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("already confirmed"));
    drop(fabric);
}

#[test]
fn resume_after_the_window_reports_the_device_rolled_back() {
    if !require_root("resume_after_the_window_reports_the_device_rolled_back")
        || !require_hooks("resume_after_the_window_reports_the_device_rolled_back")
    {
        return;
    }
    let (fabric, work) = setup(&[("leaf1", "leaf")]);
    let w = work.path();
    let r = push(
        w,
        &["--confirm-timeout", "3", "--allow-disruptive"],
        &[("RAILYARD_TEST_DIE_AT", "committed")],
    );
    assert_eq!(r.code, 137);
    let txid = txid_of(&journals(w)[0]);
    let old = oc_interfaces(OLD);
    let lab = fabric.lab("leaf1");
    // yuma123 runs its rollback timer only once the server has been idle >= 1 s: do not poll,
    // wait out the 3 s window plus margin.
    std::thread::sleep(Duration::from_millis(6000));
    let r = railyard(w, &["--resume", &txid], &[]);
    assert_eq!(r.code, 1, "every touched device back at its old config");
    assert!(
        r.stdout.contains("== leaf1 (netconf): Reverted"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("already rolled back"), "{}", r.stderr);
    assert!(running_is(lab, &old));
}

#[test]
fn rollback_restores_the_previous_config() {
    if !require_root("rollback_restores_the_previous_config") {
        return;
    }
    let (fabric, work) = setup(&[("spine1", "spine"), ("leaf1", "leaf")]);
    let w = work.path();
    let old = oc_interfaces(OLD);
    let r = push(w, &["--confirm-timeout", "60", "--allow-disruptive"], &[]);
    assert_eq!(r.code, 0);
    for (name, _, lab) in &fabric.labs {
        assert!(running_is(lab, &new_config(name)));
    }
    let j = journals(w);
    let txid = txid_of(&j[0]);
    // The previous configs were saved next to the journal, private.
    let saved = w.join("journal.saved").join(&txid);
    let copies: Vec<PathBuf> = std::fs::read_dir(&saved)
        .expect("saved copies")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(!copies.is_empty());
    for p in &copies {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(p).expect("copy").permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{}", p.display());
    }

    // Going back to MTU 1500 is as disruptive as the push was.
    let r = railyard(w, &["--rollback", &txid, "--confirm-timeout", "60"], &[]);
    assert_eq!(r.code, 3, "a disruptive rollback was not refused");
    assert!(
        r.stdout.contains("MTU on eth1: 9000 → 1500"),
        "{}",
        r.stdout
    );
    let r = railyard(
        w,
        &[
            "--rollback",
            &txid,
            "--confirm-timeout",
            "60",
            "--allow-disruptive",
        ],
        &[],
    );
    assert_eq!(r.code, 0, "rollback failed");
    eprintln!("TIMING rollback of 2 devices: {:.2} s", r.seconds);
    assert!(r.stdout.contains("rollback ry-"), "{}", r.stdout);
    for (name, _, lab) in &fabric.labs {
        assert!(running_is(lab, &old), "{name} not back at its old config");
    }
    let j = journals(w);
    assert_eq!(j.len(), 3, "each rollback attempt is its own transaction");
    let text = std::fs::read_to_string(&j[2]).expect("rollback journal");
    assert!(text.contains(&format!("\"of\":\"{txid}\"")), "{text}");
    for (name, _, _) in &fabric.labs {
        for state in ["committed", "verified", "confirmed"] {
            assert!(has_state(&text, name, state), "{name} {state}\n{text}");
        }
    }
    assert!(!text.contains(PASSPHRASE));

    // Rolling back an unknown id is refused before anything is touched.
    let r = railyard(w, &["--rollback", "ry-nope"], &[]);
    assert_eq!(r.code, 3);
}

#[test]
fn resume_reads_back_a_device_whose_commit_outcome_the_journal_does_not_know() {
    if !require_root("resume_reads_back_a_device_whose_commit_outcome_the_journal_does_not_know")
        || !require_hooks(
            "resume_reads_back_a_device_whose_commit_outcome_the_journal_does_not_know",
        )
    {
        return;
    }
    let (fabric, work) = setup(&[("spine1", "spine"), ("leaf1", "leaf")]);
    let w = work.path();
    let old = oc_interfaces(OLD);
    // The laptop dies the moment spine1 accepted its confirmed commit, before the journal
    // recorded it: the journal's last word on spine1 is "ready".
    let r = push(
        w,
        &[
            "--wave",
            "spines,leaves",
            "--confirm-timeout",
            "90",
            "--allow-disruptive",
        ],
        &[("RAILYARD_TEST_DIE_AT", "commit-sent")],
    );
    assert_eq!(r.code, 137, "the test hook did not stop the push");
    let j = journals(w);
    let txid = txid_of(&j[0]);
    let text = std::fs::read_to_string(&j[0]).expect("journal");
    assert!(has_state(&text, "spine1", "ready"), "{text}");
    assert!(!has_state(&text, "spine1", "committed"), "{text}");
    assert!(running_is(fabric.lab("spine1"), &new_config("spine1")));

    let r = railyard(w, &["--resume", &txid], &[]);
    assert_eq!(r.code, 2, "resume exit code");
    // spine1: read back, found at the new config, verified and confirmed by persist-id.
    assert!(
        r.stdout.contains("== spine1 (netconf): Confirmed"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("reading 2 device(s) whose outcome the journal cannot tell"),
        "{}",
        r.stderr
    );
    // leaf1: read back at its old config.
    assert!(
        r.stdout.contains("== leaf1 (netconf): Aborted"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("within 90 s of their commit"),
        "{}",
        r.stdout
    );
    assert!(running_is(fabric.lab("spine1"), &new_config("spine1")));
    assert!(running_is(fabric.lab("leaf1"), &old));
    // Nothing pending is left under spine1's persist-id.
    let mut c = open(fabric.lab("spine1"));
    assert!(c.cancel_commit(Some(&format!("{txid}-spine1"))).is_err());
    drop(fabric);
}
