//! One FRR instance per switch namespace (FRR 8.4, Debian `frr`), as proven in `LAB-NOTES.md`:
//! daemons started as the `frr` user with a private vty socket directory, `-f /dev/null` so they
//! never read `/etc/frr`, `unshare --uts` so bgpd announces the switch's hostname, then the
//! rendered `frr.conf` loaded with `vtysh -b`. Queries go through `vtysh --vty_socket … json`.
//!
//! Leaves with tenant VRFs run zebra with `-n` (namespace-as-VRF), and all their daemons in a
//! private mount namespace whose `/run/netns` holds only that leaf's VRF namespaces, bind-mounted
//! under the VRF names the config uses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::LabError;
use super::cmd;
use crate::labplan::{DAEMONS, Router};
use crate::output::shell::quote as sh_quote;

/// Where FRR's daemons live on Debian.
pub const FRR_LIBEXEC: &str = "/usr/lib/frr";

/// FRR 8.4 keeps a per-process directory here (`<daemon>.<pid>`, with a `crashlog` when it
/// crashes: zebra does at SIGTERM in 8.4); `down` removes the lab's.
pub const FRR_STATE_DIR: &str = "/var/tmp/frr";

/// How far below a daemon's pid FRR's per-process directory may be numbered (observed: one
/// below, the pid of the process that forks the daemon with `-d`).
pub const FORK_PID_WINDOW: u32 = 8;

/// Whether `name` is a daemon the lab starts.
pub fn is_daemon(name: &str) -> bool {
    DAEMONS.contains(&name)
}

/// The entries of [`FRR_STATE_DIR`] now.
pub fn state_dirs() -> BTreeSet<String> {
    std::fs::read_dir(FRR_STATE_DIR)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The per-process directories our daemons made: new since `before`, named after one of our
/// daemons, numbered just below its pid (FRR names the directory after the process that forks
/// the daemon with `-d`, not after the daemon itself).
pub fn new_state_dirs(
    before: &BTreeSet<String>,
    pids: &BTreeMap<String, Vec<(String, u32)>>,
) -> Vec<PathBuf> {
    let ours: Vec<(&str, u32)> = pids
        .values()
        .flatten()
        .map(|(d, p)| (d.as_str(), *p))
        .collect();
    state_dirs()
        .into_iter()
        .filter(|n| !before.contains(n))
        .filter(|n| {
            n.rsplit_once('.').is_some_and(|(daemon, num)| {
                num.parse::<u32>().is_ok_and(|k| {
                    ours.iter()
                        .any(|(d, p)| *d == daemon && k <= *p && p - k <= FORK_PID_WINDOW)
                })
            })
        })
        .map(|n| Path::new(FRR_STATE_DIR).join(n))
        .collect()
}

/// The files of one instance under the lab's state directory.
#[derive(Clone, Debug)]
pub struct Paths {
    /// Vty sockets, zserv socket, pid files, logs (owned by `frr`).
    pub run: PathBuf,
    /// `frr.conf` (the rendered file) and an empty `vtysh.conf`.
    pub cfg: PathBuf,
    /// Bind-mount targets named after the VRFs (leaves with tenant VRFs only).
    pub netns: PathBuf,
}

impl Paths {
    pub fn new(state_dir: &Path, router: &str) -> Self {
        let run = state_dir.join("run").join(router);
        Self {
            netns: run.join("netns"),
            cfg: state_dir.join("cfg").join(router),
            run,
        }
    }

    pub fn pid_file(&self, daemon: &str) -> PathBuf {
        self.run.join(format!("{daemon}.pid"))
    }
}

/// Write the rendered config and make the run directory the `frr` user's.
pub fn prepare(p: &Paths, conf: &str, vrf_names: &[String]) -> Result<(), LabError> {
    for d in [&p.run, &p.cfg] {
        std::fs::create_dir_all(d).map_err(|e| LabError::io(d, e))?;
    }
    let conf_path = p.cfg.join("frr.conf");
    std::fs::write(&conf_path, conf).map_err(|e| LabError::io(&conf_path, e))?;
    // vtysh warns about a missing vtysh.conf beside an integrated config.
    let vt = p.cfg.join("vtysh.conf");
    std::fs::write(&vt, "").map_err(|e| LabError::io(&vt, e))?;
    if !vrf_names.is_empty() {
        std::fs::create_dir_all(&p.netns).map_err(|e| LabError::io(&p.netns, e))?;
        for v in vrf_names {
            let f = p.netns.join(v);
            std::fs::write(&f, "").map_err(|e| LabError::io(&f, e))?;
        }
    }
    // The daemons drop to the `frr` user; they create their sockets and logs here.
    cmd::run(Command::new("chown").arg("-R").arg("frr:frr").arg(&p.run))?;
    Ok(())
}

/// The shell script that starts one instance inside its namespace.
pub fn start_script(r: &Router, p: &Paths) -> String {
    let run = p.run.to_string_lossy();
    let mut s = format!("hostname {}", sh_quote(&r.name));
    for v in &r.vrfs {
        s.push_str(&format!(
            // `-n`: no utab entry, so util-linux creates nothing under /run/mount.
            " && mount -n --bind {} {}",
            sh_quote(&format!("/run/netns/{}", v.ns)),
            sh_quote(&p.netns.join(&v.vrf).to_string_lossy())
        ));
    }
    if !r.vrfs.is_empty() {
        s.push_str(&format!(
            " && mount -n --rbind {} /run/netns",
            sh_quote(&p.netns.to_string_lossy())
        ));
    }
    for d in &r.daemons {
        let extra = match d.as_str() {
            "zebra" if !r.vrfs.is_empty() => " -n".to_string(),
            // bfdd's control socket defaults to the shared /run/frr/bfdd.sock.
            "bfdd" => format!(
                " --bfdctl {}",
                sh_quote(&p.run.join("bfdd.sock").to_string_lossy())
            ),
            _ => String::new(),
        };
        s.push_str(&format!(
            " && {FRR_LIBEXEC}/{d} -d{extra} -F datacenter -P 0 --vty_socket {run} -z {zs} -i {pid} --log file:{log} -f /dev/null",
            run = sh_quote(&run),
            zs = sh_quote(&p.run.join("zserv.api").to_string_lossy()),
            pid = sh_quote(&p.pid_file(d).to_string_lossy()),
            log = sh_quote(&p.run.join(format!("{d}.log")).to_string_lossy()),
        ));
    }
    s
}

/// Start every daemon of a router; each `-d` returns once its daemon is ready.
pub fn start(r: &Router, p: &Paths) -> Result<(), LabError> {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &r.ns, "unshare", "--uts"]);
    if !r.vrfs.is_empty() {
        c.args(["--mount", "--propagation", "private"]);
    }
    c.args(["sh", "-c", &start_script(r, p)]);
    cmd::run(&mut c).map_err(|e| match e {
        LabError::Command { detail, .. } => LabError::Command {
            what: format!("starting FRR on `{}` (logs in {})", r.name, p.run.display()),
            detail,
        },
        other => other,
    })?;
    Ok(())
}

/// The pid of each daemon, from its pid file.
pub fn pids(r: &Router, p: &Paths) -> Vec<(String, u32)> {
    r.daemons
        .iter()
        .filter_map(|d| {
            let text = std::fs::read_to_string(p.pid_file(d)).ok()?;
            Some((d.clone(), text.trim().parse().ok()?))
        })
        .collect()
}

/// Load the rendered config with `vtysh -b`. FRR's complaints (`line 7: % Unknown command…`)
/// make this an error that quotes them.
pub fn load(r: &Router, p: &Paths) -> Result<(), LabError> {
    let out = cmd::output(
        Command::new("vtysh")
            .arg("--vty_socket")
            .arg(&p.run)
            .arg("--config_dir")
            .arg(&p.cfg)
            .arg("-b"),
    )?;
    if out.status.success() {
        return Ok(());
    }
    let mut output = String::from_utf8_lossy(&out.stderr).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stdout));
    // Keep FRR's own lines about the config; drop zebra's start-up chatter.
    let lines: Vec<&str> = output
        .lines()
        .filter(|l| l.starts_with("line ") || l.contains("processing failure") || l.contains('%'))
        .collect();
    Err(LabError::ConfigRejected {
        device: r.name.clone(),
        output: if lines.is_empty() {
            output.trim().to_string()
        } else {
            lines.join("\n")
        },
    })
}

/// Run one `show … json` command and parse the answer (`{}` while a daemon is starting).
pub fn query(run_dir: &Path, command: &str) -> Result<Value, LabError> {
    let out = cmd::run(
        Command::new("vtysh")
            .arg("--vty_socket")
            .arg(run_dir)
            .arg("-c")
            .arg(command),
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).map_err(|e| LabError::Command {
        what: format!("vtysh -c '{command}'"),
        detail: format!("answer is not JSON ({e}): {}", first_line(&text)),
    })
}

/// The last BGP NOTIFICATION bgpd logged per neighbour (`sent to neighbor swp1 2/2 (OPEN
/// Message Error/Bad Peer AS)`): FRR's JSON keeps only the latest reset reason, which flips
/// between the notification and "Waiting for peer OPEN" while a session keeps failing.
pub fn notifications(p: &Paths) -> BTreeMap<String, String> {
    let log = std::fs::read_to_string(p.run.join("bgpd.log")).unwrap_or_default();
    notifications_in(&log)
}

pub fn notifications_in(log: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in log.lines() {
        let Some((_, rest)) = line.split_once("%NOTIFICATION: ") else {
            continue;
        };
        let Some((_, after)) = rest.split_once("neighbor ") else {
            continue;
        };
        let Some(name) = after.split_whitespace().next() else {
            continue;
        };
        // Drop the raw data bytes FRR appends (`2 bytes 5b a0`).
        let text = match rest.rfind(") ") {
            Some(i) => &rest[..=i],
            None => rest,
        };
        out.insert(name.to_string(), text.trim().to_string());
    }
    out
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Resident memory high-water mark (VmHWM) of a process, in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::diag::SourceFile;
    use crate::labplan::{VrfNs, daemons_of};
    use crate::model::{Platform, Role};

    /// The daemons a rendered config needs, read from its text: zebra always; bgpd for
    /// `router bgp`; staticd for static routes; bfdd for `bfd` blocks and BFD-enabled
    /// neighbours. What the plan derives from the intent must agree.
    fn daemons_for(conf: &str) -> Vec<String> {
        let mut bgp = false;
        let mut statics = false;
        let mut bfd = false;
        for line in conf.lines() {
            let t = line.trim();
            if t.starts_with('!') {
                continue;
            }
            bgp |= t.starts_with("router bgp ");
            statics |= t.starts_with("ip route ") || t.starts_with("ipv6 route ");
            bfd |= t == "bfd"
                || (t.starts_with("neighbor ") && t.split_whitespace().any(|w| w == "bfd"));
        }
        let needed = |d: &&str| match *d {
            "bgpd" => bgp,
            "staticd" => statics,
            "bfdd" => bfd,
            _ => true,
        };
        DAEMONS
            .into_iter()
            .filter(needed)
            .map(String::from)
            .collect()
    }

    /// An inventory compiled for FRR; with InfiniBand fabrics (which FRR cannot run), its
    /// Ethernet fabrics on FRR: storage, in-band and OOB, or in-band and OOB only.
    fn compiled_for_frr(path: &std::path::Path) -> crate::Compiled {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let src = SourceFile::new(path.display().to_string(), text);
        let c = crate::compile_for_platform(&src, Platform::Frr);
        if c.design.is_some() {
            return c;
        }
        let frr = || Some(crate::spec::Sp::new(Platform::Frr));
        let c = crate::compile_with(&src, |spec| {
            spec.platforms.storage = frr();
            spec.platforms.inband = frr();
            spec.platforms.oob = frr();
        });
        if c.design.is_some() {
            return c;
        }
        crate::compile_with(&src, |spec| {
            spec.platforms.inband = frr();
            spec.platforms.oob = frr();
        })
    }

    #[test]
    fn the_plans_daemons_are_what_every_rendered_config_needs() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.retain(|p| p.extension().is_some_and(|x| x == "yaml"));
        paths.sort();
        assert!(paths.len() >= 11, "{paths:?}");
        let mut compared = 0;
        let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
        for path in &paths {
            let before = compared;
            let c = compiled_for_frr(path);
            let (Some(intents), Some(Ok(outputs))) = (
                c.design.as_ref().map(|d| &d.intents),
                c.outputs_only(
                    &crate::render::Templates::default(),
                    &crate::output::Selection::of(&[crate::output::OutputGroup::Configs]),
                ),
            ) else {
                panic!("{} did not compile for FRR", path.display());
            };
            for f in &outputs {
                let Some(name) = f
                    .path
                    .strip_prefix("configs/")
                    .and_then(|r| r.strip_suffix("/frr.conf"))
                else {
                    continue;
                };
                let d = intents.devices.get(name);
                let conf = String::from_utf8_lossy(&f.bytes);
                assert_eq!(
                    d.map(daemons_of),
                    Some(daemons_for(&conf)),
                    "{}: {name}",
                    path.display()
                );
                seen.insert(daemons_for(&conf));
                compared += 1;
            }
            assert!(compared > before, "{}: no frr.conf", path.display());
        }
        assert!(compared > 200, "only {compared} configs compared");
        // Each section that starts a daemon present and absent: fabric switches (BGP with BFD,
        // the management VRF's route), OOB switches (their default gateway), the OOB gateway.
        for daemons in [
            &["zebra", "bgpd", "staticd", "bfdd"][..],
            &["zebra", "staticd"],
            &["zebra"],
        ] {
            assert!(
                seen.iter().any(|s| s == daemons),
                "no config needs exactly {daemons:?}: {seen:?}"
            );
        }
    }

    #[test]
    fn daemons_follow_the_config_sections() {
        let conf = "router bgp 65000\n neighbor fabric bfd\nexit\nvrf mgmt\n ip route 0.0.0.0/0 1.1.1.1\nexit-vrf\n";
        assert_eq!(daemons_for(conf), ["zebra", "bgpd", "staticd", "bfdd"]);
        assert_eq!(
            daemons_for("interface lo\n ip address 10.0.0.1/32\nexit\n"),
            ["zebra"]
        );
        assert_eq!(daemons_for("! router bgp 1\n"), ["zebra"]);
    }

    #[test]
    fn notifications_keep_the_last_per_neighbour() {
        let log = "2026/11/22 04:11:39 BGP: [X] %NOTIFICATION: sent to neighbor swp1 6/7 (Cease/Connection collision resolution) 0 bytes\n\
                   2026/11/22 04:11:43 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor swp1 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes 5b a0\n\
                   2026/11/22 04:11:43 BGP: [Y] bgp_process_packet: BGP OPEN receipt failed for peer: swp1\n";
        let n = notifications_in(log);
        assert_eq!(
            n.get("swp1").map(String::as_str),
            Some("sent to neighbor swp1 2/2 (OPEN Message Error/Bad Peer AS)")
        );
    }

    #[test]
    fn vrf_leaves_get_netns_vrfs_and_a_private_netns_dir() {
        let r = Router {
            name: "leaf1".into(),
            role: Role::Leaf,
            ns: "rylab-leaf1".into(),
            daemons: vec!["zebra".into(), "bgpd".into()],
            asn: Some(65001),
            loopback: None,
            vrfs: vec![VrfNs {
                vrf: "t1".into(),
                ns: "rylab.leaf1.t1".into(),
                l3vni: 100_001,
                vtep: None,
                interfaces: vec![],
            }],
            mgmt: None,
        };
        let p = Paths::new(Path::new("/run/x"), "leaf1");
        let s = start_script(&r, &p);
        assert!(s.starts_with("hostname leaf1 && mount -n --bind /run/netns/rylab.leaf1.t1 /run/x/run/leaf1/netns/t1 && mount -n --rbind /run/x/run/leaf1/netns /run/netns"), "{s}");
        assert!(s.contains("/usr/lib/frr/zebra -d -n -F datacenter"), "{s}");
        assert!(s.contains("/usr/lib/frr/bgpd -d -F datacenter -P 0 --vty_socket /run/x/run/leaf1 -z /run/x/run/leaf1/zserv.api -i /run/x/run/leaf1/bgpd.pid"), "{s}");
    }
}
