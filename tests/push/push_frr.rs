//! The `frr-ssh` driver against real FRR 8.4 (zebra, bgpd, staticd, bfdd in a network namespace
//! per switch) behind a real sshd on 127.0.0.1, pushing what `railyard build` rendered:
//! - every lab-small switch (FRR platform) is confirmed, and a second push finds nothing to do
//!   (defaults and cosmetic lines FRR does not show never count as drift);
//! - a neighbor changed by hand is named, exactly, by dry run and by verify, flagged disruptive,
//!   refused without `--allow-disruptive`;
//! - a bad line is stopped before reload; an unconfirmed commit reverts by itself;
//! - `${NAME}` placeholders: unset → refused before anything is sent; set → the device has the
//!   value and no output, journal or saved copy does.
//!
//! Needs root (prereq otherwise).

use crate::push_support;

use std::path::Path;
use std::time::{Duration, Instant};

use push_support::{
    FrrLab, Run, build, connect_opts, devices_with, lab_small_on, require_root, run_push, wait_for,
};
use railyard::push::{Auth, ConfigSet, Driver, Endpoint, FrrDriver, FrrSpec};

fn role_of(dev: &str) -> String {
    if dev.starts_with("spine") {
        "spine".into()
    } else {
        "leaf".into()
    }
}

/// lab-small on FRR, built into `<lab>/out`, one lab router per switch.
fn lab_small() -> (FrrLab, Vec<String>) {
    lab_small_with(&|_| true)
}

/// The same with routers (and targets) only for the switches `keep` selects: a test about one
/// leaf need not load the machine with five FRR instances.
fn lab_small_with(keep: &dyn Fn(&str) -> bool) -> (FrrLab, Vec<String>) {
    let scratch = tempfile::tempdir().expect("tempdir");
    let spec = lab_small_on("frr", scratch.path());
    let out = scratch.path().join("out");
    build(&spec, &out);
    let all = devices_with(&out, "frr.conf");
    assert!(all.len() >= 4, "lab-small renders {all:?}");
    let names: Vec<String> = all.into_iter().filter(|n| keep(n)).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let lab = FrrLab::start(&refs);
    copy_dir(&out, &lab.path().join("out"));
    lab.write_targets(&role_of);
    (lab, names)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

fn push(lab: &FrrLab, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let out = lab.path().join("out");
    let mut args = vec!["--from", out.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let r = run_push(lab.path(), &args, env, None);
    // Whatever secret the environment holds never reaches the output.
    for (_, v) in env {
        assert!(
            !r.stdout.contains(v) && !r.stderr.contains(v),
            "a secret was printed"
        );
    }
    r
}

fn etc_frr_conf() -> Vec<u8> {
    std::fs::read("/etc/frr/frr.conf").unwrap_or_default()
}

/// The `   - …` / `   + …` diff lines printed for one device.
fn device_diff(stdout: &str, dev: &str) -> Vec<String> {
    let mut on = false;
    let mut v = Vec::new();
    for l in stdout.lines() {
        if l.starts_with("== ") {
            on = l.starts_with(&format!("== {dev} "));
            continue;
        }
        if on && (l.starts_with("   - ") || l.starts_with("   + ")) {
            v.push(l[3..].to_string());
        }
    }
    v
}

fn driver(lab: &FrrLab, dev: &str, tag: &str) -> FrrDriver {
    let r = lab.router(dev);
    FrrDriver::new(
        Endpoint {
            host: "127.0.0.1".into(),
            port: lab.port,
            user: "root".into(),
            known_hosts: lab.known_hosts.clone(),
        },
        Auth {
            key_file: Some(lab.key.clone()),
            ..Auth::default()
        },
        connect_opts(),
        FrrSpec {
            vty_socket: Some(r.vty.display().to_string()),
            state_dir: Some(r.state_dir.display().to_string()),
            config_dir: Some(r.config_dir.display().to_string()),
            ..FrrSpec::default()
        },
        tag.into(),
        Duration::from_secs(60),
    )
    .with_slow_timeout(Duration::from_secs(300))
}

fn rendered(lab: &FrrLab, dev: &str) -> String {
    std::fs::read_to_string(lab.path().join(format!("out/configs/{dev}/frr.conf")))
        .expect("rendered frr.conf")
}

#[test]
fn frr_every_rendered_lab_small_config_confirms_then_is_unchanged_and_drift_is_named() {
    if !require_root("frr_every_rendered_lab_small_config_confirms_then_is_unchanged") {
        return;
    }
    let etc_before = etc_frr_conf();
    let (lab, names) = lab_small();
    check_dry_run_leaves_nothing(&lab, &names);
    check_push_confirms_every_config(&lab, &names);
    // frr-reload.py writes `frr.conf` after every reload: never the system's.
    assert_eq!(etc_frr_conf(), etc_before, "/etc/frr/frr.conf was written");
    check_second_push_is_unchanged(&lab, &names);
    let drift = drift_one_neighbor(&lab, &names);
    check_dry_run_names_the_drift(&lab, &names, &drift);
    check_disruptive_push_is_refused(&lab, &names, &drift);
    check_allowed_disruptive_push_confirms(&lab, &drift);
    check_verify_names_drift_after_commit(&lab, &drift);
    assert_eq!(etc_frr_conf(), etc_before, "/etc/frr/frr.conf was written");
}

/// Dry run: staged, diffed, discarded.
fn check_dry_run_leaves_nothing(lab: &FrrLab, names: &[String]) {
    let r = push(lab, &["--dry-run"], &[]);
    assert_eq!(r.code, 0);
    for n in names {
        assert!(
            r.stdout.contains(&format!("== {n} (frr-ssh): Diffed")),
            "{n}"
        );
        assert!(
            lab.router(n).leftovers().is_empty(),
            "{n}: files left by a dry run"
        );
    }
}

/// The push: every rendered frr.conf, confirmed.
fn check_push_confirms_every_config(lab: &FrrLab, names: &[String]) {
    let r = push(
        lab,
        &["--wave", "spines,leaves", "--confirm-timeout", "120"],
        &[],
    );
    assert_eq!(r.code, 0, "push of the rendered configs failed");
    eprintln!(
        "TIMING push of {} rendered FRR configs: {:.2} s",
        names.len(),
        r.seconds
    );
    for n in names {
        assert!(
            r.stdout.contains(&format!("== {n} (frr-ssh): Confirmed")),
            "{n}"
        );
        let router = lab.router(n);
        let running = router.running();
        let bgp = rendered(lab, n)
            .lines()
            .find(|l| l.starts_with("router bgp "))
            .map(str::to_string);
        if let Some(bgp) = &bgp {
            assert!(
                running.contains(bgp.as_str()),
                "{n}: {bgp} not running:\n{running}"
            );
        }
        // Confirmed: timer disarmed, files removed, the config saved where FRR reads it.
        assert!(
            router.leftovers().is_empty(),
            "{n}: left {:?}",
            router.leftovers()
        );
        let saved = std::fs::read_to_string(router.config_dir.join("frr.conf")).unwrap_or_default();
        assert!(
            saved.contains("router bgp") || bgp.is_none(),
            "{n}: not saved:\n{saved}"
        );
    }
}

/// Second run: FRR's defaults and cosmetic lines (frr version, line vty, BFD profile
/// defaults, `no bgp ebgp-requires-policy` under datacenter) are not drift.
fn check_second_push_is_unchanged(lab: &FrrLab, names: &[String]) {
    let r = push(lab, &[], &[]);
    assert_eq!(r.code, 0);
    for n in names {
        assert!(
            r.stdout.contains(&format!("== {n} (frr-ssh): Unchanged")),
            "{n}"
        );
    }
}

/// A leaf whose neighbor `peer` was changed by hand from `remote` to AS 4200009999.
struct Drift {
    leaf: String,
    /// The leaf's rendered frr.conf.
    conf: String,
    asn: String,
    peer: String,
    remote: String,
}

/// Drift: one neighbor changed by hand on a leaf.
fn drift_one_neighbor(lab: &FrrLab, names: &[String]) -> Drift {
    let leaf = names
        .iter()
        .find(|n| n.starts_with("leaf"))
        .expect("a leaf")
        .clone();
    let conf = rendered(lab, &leaf);
    let asn = conf
        .lines()
        .find_map(|l| l.strip_prefix("router bgp "))
        .expect("router bgp")
        .trim()
        .to_string();
    let (peer, remote) = conf
        .lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 4 && w[0] == "neighbor" && w[2] == "remote-as")
                .then(|| (w[1].to_string(), w[3].to_string()))
        })
        .expect("a neighbor with remote-as");
    lab.router(&leaf).vtysh(&[
        "configure terminal",
        &format!("router bgp {asn}"),
        &format!("neighbor {peer} remote-as 4200009999"),
    ]);
    Drift {
        leaf,
        conf,
        asn,
        peer,
        remote,
    }
}

/// A dry run names exactly the drifted line, flagged disruptive; the other switches are unchanged.
fn check_dry_run_names_the_drift(lab: &FrrLab, names: &[String], drift: &Drift) {
    let Drift {
        leaf,
        asn,
        peer,
        remote,
        ..
    } = drift;
    let r = push(lab, &["--dry-run"], &[]);
    assert_eq!(r.code, 0);
    assert_eq!(
        device_diff(&r.stdout, leaf),
        vec![
            format!("- router bgp {asn} > neighbor {peer} remote-as 4200009999"),
            format!("+ router bgp {asn} > neighbor {peer} remote-as {remote}"),
        ],
        "the drift is exactly that line"
    );
    assert!(
        r.stdout.contains(&format!(
            "DISRUPTIVE: remote-as of `router bgp {asn} > neighbor {peer}`: 4200009999 → {remote} — the session resets"
        )),
        "{}",
        r.stdout
    );
    for n in names.iter().filter(|n| *n != leaf) {
        assert!(
            r.stdout.contains(&format!("== {n} (frr-ssh): Unchanged")),
            "{n}"
        );
    }
}

/// A real push of a disruptive change is refused without --allow-disruptive.
fn check_disruptive_push_is_refused(lab: &FrrLab, names: &[String], drift: &Drift) {
    let leaf = &drift.leaf;
    let router = lab.router(leaf);
    let r = push(lab, &[], &[]);
    assert_eq!(r.code, 3);
    assert!(r.stdout.contains(&format!("== {leaf} (frr-ssh): Failed")));
    assert!(
        r.stdout.contains("disruptive change(s) refused"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("--allow-disruptive"), "{}", r.stdout);
    assert!(
        router.running().contains("remote-as 4200009999"),
        "refused push touched it"
    );
    for n in names {
        assert!(
            lab.router(n).leftovers().is_empty(),
            "{n}: files left by a refused push"
        );
    }
    let txid = r
        .stdout
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().nth(1))
        .map(|t| t.trim_end_matches(':').to_string())
        .expect("txid in the summary");
    assert!(
        !lab.path().join("journal.saved").join(&txid).exists(),
        "a refused push left saved copies"
    );
}

/// With --allow-disruptive the rendered neighbor is back.
fn check_allowed_disruptive_push_confirms(lab: &FrrLab, drift: &Drift) {
    let Drift {
        leaf, peer, remote, ..
    } = drift;
    let r = push(lab, &["--allow-disruptive"], &[]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout
            .contains(&format!("== {leaf} (frr-ssh): Confirmed"))
    );
    assert!(
        lab.router(leaf)
            .running()
            .contains(&format!("neighbor {peer} remote-as {remote}"))
    );
}

/// Verify names exactly the drifted line when the device changes between commit and verify.
fn check_verify_names_drift_after_commit(lab: &FrrLab, drift: &Drift) {
    let Drift {
        leaf,
        conf,
        asn,
        peer,
        remote,
    } = drift;
    let router = lab.router(leaf);
    router.vtysh(&[
        "configure terminal",
        &format!("router bgp {asn}"),
        &format!("neighbor {peer} remote-as 4200009999"),
    ]);
    let mut d = driver(lab, leaf, "ry-verify-drift");
    let intended = ConfigSet::single("frr.conf", conf.clone().into_bytes());
    let pf = d.preflight(&intended).expect("preflight");
    assert!(pf.changed);
    d.commit_confirmed(Duration::from_secs(60)).expect("commit");
    router.vtysh(&[
        "configure terminal",
        &format!("router bgp {asn}"),
        &format!("neighbor {peer} remote-as 4200008888"),
    ]);
    let e = d.verify().expect_err("drift after the commit");
    let lines: Vec<&str> = e
        .message
        .lines()
        .filter(|l| l.starts_with("- ") || l.starts_with("+ "))
        .collect();
    assert_eq!(
        lines,
        vec![
            format!("- router bgp {asn} > neighbor {peer} remote-as 4200008888"),
            format!("+ router bgp {asn} > neighbor {peer} remote-as {remote}"),
        ],
        "{}",
        e.message
    );
    d.cancel().expect("cancel");
    assert!(
        d.check_reverted().expect("read back"),
        "not back at the pre-change config"
    );
    assert!(router.running().contains("remote-as 4200009999"));
    assert!(
        router.leftovers().is_empty(),
        "left {:?}",
        router.leftovers()
    );
}

#[test]
fn frr_bad_line_is_stopped_and_unconfirmed_commit_reverts() {
    if !require_root("frr_bad_line_is_stopped_and_unconfirmed_commit_reverts") {
        return;
    }
    let (lab, names) = lab_small_with(&|n| n == "leaf-su01-01");
    let leaf = names
        .iter()
        .find(|n| n.starts_with("leaf"))
        .expect("leaf")
        .clone();
    let router = lab.router(&leaf);
    let conf = rendered(&lab, &leaf);

    // A bad line: refused at preflight (vtysh -C), running config untouched, nothing left.
    let before = router.running();
    let bad = conf.replacen("\nexit\n", "\n bogus-command 42\nexit\n", 1);
    std::fs::write(
        lab.path().join(format!("out/configs/{leaf}/frr.conf")),
        &bad,
    )
    .expect("edit");
    let r = push(&lab, &["--allow-edited"], &[]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout.contains("vtysh -C rejected frr.conf"),
        "{}",
        r.stdout
    );
    assert_eq!(
        router.running(),
        before,
        "running config touched by a rejected push"
    );
    for n in &names {
        assert!(
            lab.router(n).leftovers().is_empty(),
            "{n}: {:?}",
            lab.router(n).leftovers()
        );
    }
    // Edited after the build: refused without --allow-edited, naming the file and manifest.
    let r = push(&lab, &[], &[]);
    assert_eq!(r.code, 3);
    assert!(
        r.stderr.contains(&format!("configs/{leaf}/frr.conf"))
            && r.stderr.contains("manifest.json"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--allow-edited"), "{}", r.stderr);

    // Not confirmed: the device-side timer restores the pre-change config by itself.
    let mut d = driver(&lab, &leaf, "ry-timer");
    let intended = ConfigSet::single("frr.conf", conf.clone().into_bytes());
    assert!(d.preflight(&intended).expect("preflight").changed);
    // The window must outlast verify (two scratch FRRs: seconds on a busy machine), or the
    // timer reverts under verify's feet.
    d.commit_confirmed(Duration::from_secs(12)).expect("commit");
    d.verify().expect("verify");
    assert!(router.running().contains("router bgp"));
    drop(d);
    let t = Instant::now();
    let mut back = driver(&lab, &leaf, "ry-timer");
    back.adopt(&intended, "").expect("adopt");
    wait_for("revert timer", Duration::from_secs(60), || {
        !router.running().contains("router bgp")
    });
    // Read back by meaning: at the pre-change config (frr-reload leaves empty nodes behind).
    wait_for("reverted in meaning", Duration::from_secs(15), || {
        back.check_reverted().unwrap_or(false)
    });
    eprintln!("reverted {:?} after the commit (12 s window)", t.elapsed());
    assert!(
        router.leftovers().is_empty(),
        "left {:?}",
        router.leftovers()
    );
}

#[test]
fn frr_placeholders_are_filled_at_push_and_never_shown() {
    if !require_root("frr_placeholders_are_filled_at_push_and_never_shown") {
        return;
    }
    const SECRET: &str = "s3cr3t-BGP-auth-7730";
    let (lab, names) = lab_small_with(&|n| n == "leaf-su01-01");
    let leaf = names
        .iter()
        .find(|n| n.starts_with("leaf"))
        .expect("leaf")
        .clone();
    // What a renderer with `bgp.auth_env: BGP_PASSWORD` writes: the placeholder, never a value.
    let conf = rendered(&lab, &leaf).replacen(
        " neighbor fabric peer-group\n",
        " neighbor fabric peer-group\n neighbor fabric password ${BGP_PASSWORD}\n",
        1,
    );
    assert!(
        conf.contains("${BGP_PASSWORD}"),
        "no peer-group line to extend"
    );
    let file = lab.path().join(format!("out/configs/{leaf}/frr.conf"));
    std::fs::write(&file, &conf).expect("edit");
    // ... and the declaration such a build writes beside the configs: push fills only that.
    let mut declared = railyard::output::secrets::Declaration::default();
    declared.declare("BGP_PASSWORD", "bgp.auth_env", &leaf);
    let declaration = declared.to_file();
    std::fs::write(
        lab.path().join("out").join(&declaration.path),
        &declaration.bytes,
    )
    .expect("declaration");

    // Listed before a push.
    let r = push(&lab, &["--allow-edited", "--list-secrets"], &[]);
    assert_eq!(r.code, 2, "an unset variable is reported");
    assert!(
        r.stdout.contains("BGP_PASSWORD") && r.stdout.contains("UNSET"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("configs/{leaf}/frr.conf")),
        "{}",
        r.stdout
    );

    // Unset: refused before anything is sent (no login on the lab's sshd, no journal).
    let r = push(&lab, &["--allow-edited"], &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("$BGP_PASSWORD")
            && r.stderr.contains(&format!("configs/{leaf}/frr.conf")),
        "{}",
        r.stderr
    );
    assert!(
        !lab.any_login(),
        "something was sent although a secret was missing"
    );
    assert!(
        !lab.path().join("journal").exists(),
        "a refused push wrote a journal"
    );

    // Set: the dry run shows <redacted>, the push puts the value on the device.
    let env = [("BGP_PASSWORD", SECRET)];
    let r = push(&lab, &["--allow-edited", "--dry-run"], &env);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("neighbor fabric password <redacted>"),
        "{}",
        r.stdout
    );
    let r = push(&lab, &["--allow-edited", "--confirm-timeout", "120"], &env);
    assert_eq!(r.code, 0);
    assert!(
        lab.router(&leaf)
            .running()
            .contains(&format!("neighbor fabric password {SECRET}")),
        "the device does not have the value"
    );
    // Read back with the value on the device: unchanged, still never shown.
    let r = push(&lab, &["--allow-edited", "--dry-run"], &env);
    assert!(
        r.stdout
            .contains(&format!("== {leaf} (frr-ssh): Unchanged"))
    );
    // Nowhere in what railyard wrote: journals, saved copies, the device's state dir.
    let mut written = Vec::new();
    collect_files(&lab.path().join("journal"), &mut written);
    collect_files(&lab.path().join("journal.saved"), &mut written);
    collect_files(&lab.router(&leaf).state_dir, &mut written);
    assert!(!written.is_empty());
    for p in &written {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
        assert!(!text.contains(SECRET), "{} holds the secret", p.display());
    }
}

fn collect_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_files(&p, out);
        } else {
            out.push(p);
        }
    }
}
