//! The `frr-ssh` driver against real FRR 8.4 (zebra + bgpd in a network namespace this test
//! creates) behind a real sshd on 127.0.0.1: clean apply, no-op not applied, a bad line stopped
//! before reload (running config asserted untouched), and the device-side revert timer firing
//! when a commit is not confirmed. Needs root (loud SKIP otherwise).

mod push_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use push_support::{
    Daemon, connect_opts, keygen, require_program, require_root, run_push, wait_for,
};
use railyard::push::driver::Driver;
use railyard::push::frr_driver::FrrDriver;
use railyard::push::ssh::{Auth, Endpoint};
use railyard::push::targets::FrrSpec;

/// Deletes the network namespace on drop.
struct Netns(String);

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

struct FrrLab {
    // Drop order: sshd and daemons, then the namespace, then the directory.
    _sshd: Daemon,
    _bgpd: Daemon,
    _zebra: Daemon,
    _ns: Netns,
    port: u16,
    vty: PathBuf,
    dir: tempfile::TempDir,
}

impl FrrLab {
    fn start() -> FrrLab {
        require_program("/usr/lib/frr/zebra", "frr");
        require_program("/usr/lib/frr/frr-reload.py", "frr-pythontools");
        require_program("/usr/sbin/sshd", "openssh-server");
        let dir = tempfile::Builder::new()
            .prefix("railyard-frr-")
            .tempdir()
            .expect("tempdir");
        let w = dir.path();
        let vty = w.join("vty");
        std::fs::create_dir_all(&vty).expect("vty dir");
        // FRR daemons run as `frr` and need their run directory.
        let ok = Command::new("chown")
            .args(["-R", "frr:frr"])
            .arg(&vty)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "chown frr:frr");
        let _ = Command::new("chmod").arg("755").arg(w).status();
        let ns = Netns(format!(
            "ryfrr-{}-{}",
            std::process::id(),
            w.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("x")
                .replace('.', "")
                .chars()
                .rev()
                .take(6)
                .collect::<String>()
        ));
        let ok = Command::new("ip")
            .args(["netns", "add", &ns.0])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "ip netns add");
        let _ = Command::new("ip")
            .args(["netns", "exec", &ns.0, "ip", "link", "set", "lo", "up"])
            .status();
        let daemon = |name: &str| {
            let mut cmd = Command::new("ip");
            // A UTS namespace per daemon with the switch's hostname: frr.conf's `hostname` does
            // not reach bgpd in 8.4 (LAB-NOTES), so the kernel hostname must already match.
            cmd.args(["netns", "exec", &ns.0, "unshare", "--uts", "sh", "-c"])
                .arg("hostname leaf1 && exec \"$@\"")
                .arg("sh")
                .arg(format!("/usr/lib/frr/{name}"))
                .args(["-F", "datacenter", "-P", "0", "-u", "frr", "-g", "frr"])
                .arg("--vty_socket")
                .arg(&vty)
                .arg("-z")
                .arg(vty.join("zserv.api"))
                .arg("-i")
                .arg(vty.join(format!("{name}.pid")))
                .arg("--log")
                .arg(format!("file:{}", w.join(format!("{name}.log")).display()))
                // Without -f the daemons would read /etc/frr.
                .args(["-f", "/dev/null"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            Daemon::spawn(name, &mut cmd)
        };
        let zebra = daemon("zebra");
        wait_for("zebra vty", Duration::from_secs(10), || {
            vty.join("zebra.vty").exists()
        });
        let bgpd = daemon("bgpd");
        wait_for("bgpd vty", Duration::from_secs(10), || {
            vty.join("bgpd.vty").exists()
        });

        // sshd on 127.0.0.1: the "switch" whose FRR railyard configures over SSH.
        let port = push_support::free_port();
        let host_key = w.join("host_key");
        keygen(&host_key, "frr-host");
        let client_key = w.join("id_client");
        keygen(&client_key, "railyard-test");
        std::fs::copy(w.join("id_client.pub"), w.join("authorized_keys")).expect("authorized");
        let cfg = w.join("sshd_config");
        std::fs::write(
            &cfg,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile none\nStrictModes no\n\
                 UsePAM no\nPermitRootLogin prohibit-password\nAllowUsers root\n\
                 AuthorizedKeysFile {}\nPasswordAuthentication no\nLogLevel VERBOSE\n",
                host_key.display(),
                w.join("authorized_keys").display()
            ),
        )
        .expect("sshd_config");
        let sshd = push_support::spawn_sshd_as(&cfg, &w.join("sshd.log"), port, Some("leaf1"));
        push_support::write_known_host(&w.join("known_hosts"), port, &w.join("host_key.pub"));
        FrrLab {
            _sshd: sshd,
            _bgpd: bgpd,
            _zebra: zebra,
            _ns: ns,
            port,
            vty,
            dir,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn running(&self) -> String {
        let out = Command::new("vtysh")
            .arg("--vty_socket")
            .arg(&self.vty)
            .args(["-c", "show running-config"])
            .output()
            .expect("vtysh");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn frr_spec(&self) -> FrrSpec {
        FrrSpec {
            vty_socket: Some(self.vty.display().to_string()),
            state_dir: Some(self.path().join("state").display().to_string()),
            reload: None,
        }
    }

    fn driver(&self, tag: &str) -> FrrDriver {
        FrrDriver::new(
            Endpoint {
                host: "127.0.0.1".into(),
                port: self.port,
                user: "root".into(),
                known_hosts: self.path().join("known_hosts"),
            },
            Auth {
                key_file: Some(self.path().join("id_client")),
                ..Auth::default()
            },
            connect_opts(),
            self.frr_spec(),
            tag.into(),
            Duration::from_secs(60),
        )
    }

    fn push(&self, conf: &str, extra: &[&str]) -> (i32, String) {
        let w = self.path();
        let out = w.join("out/configs/leaf1");
        std::fs::create_dir_all(&out).expect("out");
        std::fs::write(out.join("frr.conf"), conf).expect("frr.conf");
        std::fs::write(
            w.join("targets.yaml"),
            format!(
                "known_hosts: {kh}\nauth: {{agent: false, key_file: {key}}}\ndevices:\n  leaf1:\n    \
                 address: 127.0.0.1\n    port: {port}\n    user: root\n    driver: frr-ssh\n    \
                 role: leaf\n    frr: {{vty_socket: {vty}, state_dir: {state}}}\n",
                kh = w.join("known_hosts").display(),
                key = w.join("id_client").display(),
                port = self.port,
                vty = self.vty.display(),
                state = w.join("state").display(),
            ),
        )
        .expect("targets");
        let out = w.join("out");
        let mut args = vec!["--from", out.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        let r = run_push(w, &args, &[], None);
        (r.code, format!("{}{}", r.stdout, r.stderr))
    }
}

const GOOD: &str = "frr defaults datacenter\nhostname leaf1\n!\nrouter bgp 65001\n bgp router-id 10.0.0.1\n \
                    neighbor 192.0.2.1 remote-as 65002\n!\n";

#[test]
fn frr_clean_apply_then_noop_then_bad_line() {
    if !require_root("frr_clean_apply_then_noop_then_bad_line") {
        return;
    }
    let lab = FrrLab::start();
    // Clean apply through the CLI.
    let (code, out) = lab.push(GOOD, &["--confirm-timeout", "60"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Confirmed"), "{out}");
    let running = lab.running();
    assert!(
        running.contains("neighbor 192.0.2.1 remote-as 65002"),
        "{running}"
    );
    // The revert timer was disarmed on confirm: nothing left armed on the device.
    let state = lab.path().join("state");
    let leftovers: Vec<_> = std::fs::read_dir(&state)
        .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        leftovers
            .iter()
            .all(|n| !n.to_string_lossy().ends_with("timer.pid")),
        "timer left armed: {leftovers:?}"
    );

    // No-op: an empty diff is never applied.
    let (code, out) = lab.push(GOOD, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Unchanged"), "{out}");
    let journals: Vec<String> = std::fs::read_dir(lab.path().join("journal"))
        .map(|rd| {
            rd.flatten()
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(journals.len(), 2);
    assert!(
        journals.iter().any(
            |j| j.contains("\"state\":\"unchanged\"") && !j.contains("\"state\":\"committed\"")
        )
    );

    // A bad line: refused at preflight (vtysh -C), running config untouched.
    let before = lab.running();
    let bad = GOOD.replace(
        " bgp router-id 10.0.0.1\n",
        " bgp router-id 10.0.0.9\n bogus-command 42\n",
    );
    let (code, out) = lab.push(&bad, &[]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("vtysh -C rejected"), "{out}");
    assert_eq!(
        lab.running(),
        before,
        "running config touched by a rejected push"
    );
}

#[test]
fn frr_revert_timer_fires_when_not_confirmed() {
    if !require_root("frr_revert_timer_fires_when_not_confirmed") {
        return;
    }
    let lab = FrrLab::start();
    let before = lab.running();
    let mut d = lab.driver("ry-timer-leaf1");
    let pf = d.preflight(GOOD.as_bytes()).expect("preflight");
    assert!(pf.changed);
    assert!(
        pf.native_diff.contains("Lines To Add"),
        "{}",
        pf.native_diff
    );
    d.commit_confirmed(Duration::from_secs(2)).expect("commit");
    d.verify().expect("verify");
    assert!(lab.running().contains("remote-as 65002"));
    // railyard "dies": no confirm. The device-side timer restores the pre-change config.
    drop(d);
    let t = Instant::now();
    // The revert is a reload that takes a moment under load: wait for the whole old config,
    // not only for the first removed line.
    let lines = |c: &str| c.lines().filter(|l| !l.starts_with("Building")).count();
    let want = lines(&before);
    wait_for("revert timer", Duration::from_secs(15), || {
        let now = lab.running();
        !now.contains("remote-as 65002") && !now.contains("router bgp 65001") && lines(&now) == want
    });
    eprintln!("reverted {:?} after the commit window", t.elapsed());
    let after = lab.running();
    assert!(!after.contains("router bgp 65001"), "{after}");
    assert_eq!(
        after.lines().filter(|l| !l.starts_with("Building")).count(),
        before
            .lines()
            .filter(|l| !l.starts_with("Building"))
            .count()
    );

    // Confirmed instead: the timer is disarmed and the config stays past the window.
    let mut d = lab.driver("ry-timer2-leaf1");
    d.preflight(GOOD.as_bytes()).expect("preflight");
    d.commit_confirmed(Duration::from_secs(2)).expect("commit");
    d.verify().expect("verify");
    d.confirm().expect("confirm");
    std::thread::sleep(Duration::from_secs(3));
    assert!(lab.running().contains("remote-as 65002"));

    // Cancel: back at once.
    let mut d = lab.driver("ry-timer3-leaf1");
    let other = GOOD.replace("65002", "65003");
    d.preflight(other.as_bytes()).expect("preflight");
    d.commit_confirmed(Duration::from_secs(60)).expect("commit");
    assert!(lab.running().contains("remote-as 65003"));
    d.cancel().expect("cancel");
    assert!(d.check_reverted().expect("read back"));
    assert!(lab.running().contains("remote-as 65002"));
}
