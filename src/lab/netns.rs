//! Network namespaces and veth pairs, through `ip` (iproute2) batches: one process per step
//! for the whole lab rather than one per object, which keeps a 200-cable lab under a second.
//!
//! Also the kernel probes: what the lab needs (namespaces, veth) and what tenant VRFs need
//! (VXLAN, bridges), tried for real in a scratch namespace named with the lab prefix (so a crash
//! mid-probe is cleaned up by `down` like everything else).

use std::collections::BTreeMap;
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::{LabError, cmd};
use crate::labplan::{Host, LabPlan, PREFIX};

/// `/run/netns`, where `ip netns add` pins namespaces.
pub const NETNS_DIR: &str = "/run/netns";

/// What the kernel offers, probed by creating each kind of device once.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Features {
    pub netns: bool,
    pub veth: bool,
    pub vxlan: bool,
    pub bridge: bool,
    /// Kernel messages of the probes that failed.
    pub missing: Vec<String>,
}

/// Whether a namespace name is one of the lab's.
pub fn is_lab_ns(name: &str) -> bool {
    name.strip_prefix(PREFIX)
        .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('.'))
}

/// Every lab namespace present now (also those of a crashed `up`).
pub fn lab_namespaces() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(NETNS_DIR)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| is_lab_ns(n))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Run `ip [-n NS] -batch -` with one command per line; stops at the first failing line.
pub fn batch(ns: Option<&str>, lines: &[String]) -> Result<(), LabError> {
    if lines.is_empty() {
        return Ok(());
    }
    let mut c = Command::new("ip");
    if let Some(ns) = ns {
        c.args(["-n", ns]);
    }
    c.args(["-batch", "-"]);
    let mut input = lines.join("\n");
    input.push('\n');
    cmd::run_with_input(&mut c, &input).map(|_| ())
}

/// Probe the kernel in a scratch namespace.
pub fn probe() -> Features {
    let ns = format!("{PREFIX}-probe");
    let mut f = Features::default();
    let _ = cmd::output(Command::new("ip").args(["netns", "del", &ns]));
    match cmd::run(Command::new("ip").args(["netns", "add", &ns])) {
        Ok(_) => f.netns = true,
        Err(e) => {
            f.missing.push(format!("network namespaces: {e}"));
            return f;
        }
    }
    let tries: [(&str, &[&str]); 3] = [
        (
            "veth",
            &["link", "add", "p0", "type", "veth", "peer", "name", "p1"],
        ),
        (
            "vxlan",
            &[
                "link",
                "add",
                "p2",
                "type",
                "vxlan",
                "id",
                "1",
                "dstport",
                "4789",
                "local",
                "127.0.0.1",
                "nolearning",
            ],
        ),
        ("bridge", &["link", "add", "p3", "type", "bridge"]),
    ];
    for (what, args) in tries {
        let r = cmd::run(Command::new("ip").args(["-n", &ns]).args(args));
        let ok = r.is_ok();
        if let Err(e) = r {
            f.missing.push(format!("{what} devices: {e}"));
        }
        match what {
            "veth" => f.veth = ok,
            "vxlan" => f.vxlan = ok,
            _ => f.bridge = ok,
        }
    }
    let _ = cmd::output(Command::new("ip").args(["netns", "del", &ns]));
    f
}

/// Create every namespace and set its sysctls: forwarding on routers (and tenant VRFs), no IPv6
/// duplicate-address detection (link-local addresses usable at once, so unnumbered BGP starts
/// without the DAD delay), no reverse-path filter (hosts route per NIC by source address).
pub fn create(plan: &LabPlan) -> Result<(), LabError> {
    let all = plan.namespaces();
    let lines: Vec<String> = all.iter().map(|n| format!("netns add {n}")).collect();
    batch(None, &lines)?;
    let common = [
        "net.ipv6.conf.all.accept_dad=0",
        "net.ipv6.conf.default.accept_dad=0",
        "net.ipv4.conf.all.rp_filter=0",
        "net.ipv4.conf.default.rp_filter=0",
    ];
    let forwarding = ["net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"];
    let routers: Vec<&str> = plan
        .routers
        .iter()
        .flat_map(|r| std::iter::once(r.ns.as_str()).chain(r.vrfs.iter().map(|v| v.ns.as_str())))
        .collect();
    let lines: Vec<String> = all
        .iter()
        .map(|n| {
            let mut s = format!("netns exec {n} sysctl -q -w {}", common.join(" "));
            if routers.contains(&n.as_str()) {
                s.push(' ');
                s.push_str(&forwarding.join(" "));
            }
            s
        })
        .collect();
    batch(None, &lines)
}

/// One veth pair per cable, each end created directly in its namespace under its plan name.
pub fn cable(plan: &LabPlan) -> Result<(), LabError> {
    let lines: Vec<String> = plan
        .cables
        .iter()
        .map(|c| {
            format!(
                "link add {} netns {} mtu {} type veth peer name {} netns {} mtu {}",
                c.a.ifname, c.a.ns, c.a.mtu, c.b.ifname, c.b.ns, c.b.mtu
            )
        })
        .collect();
    batch(None, &lines)
}

/// Bring every interface up; on nodes also the planned addresses and the rail routing of the
/// host plan (a table per NIC, selected by source address).
pub fn configure(plan: &LabPlan) -> Result<(), LabError> {
    let mut per_ns: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let all = plan.namespaces();
    for ns in &all {
        per_ns
            .entry(ns.as_str())
            .or_default()
            .push("link set lo up".into());
    }
    for c in &plan.cables {
        for e in [&c.a, &c.b] {
            per_ns
                .entry(e.ns.as_str())
                .or_default()
                .push(format!("link set {} up", e.ifname));
        }
    }
    for h in &plan.hosts {
        per_ns
            .entry(h.ns.as_str())
            .or_default()
            .extend(host_lines(h));
    }
    for (ns, lines) in per_ns {
        batch(Some(ns), &lines)?;
    }
    Ok(())
}

/// Addresses, routes and source rules of one node.
pub fn host_lines(h: &Host) -> Vec<String> {
    let mut v = Vec::new();
    for p in &h.ports {
        for a in [p.address, p.address_v6].into_iter().flatten() {
            v.push(format!("addr add {a} dev {}", p.ifname));
        }
    }
    for p in &h.ports {
        for r in &p.routes {
            let fam = if r.to.addr().is_ipv6() { "-6 " } else { "" };
            v.push(format!(
                "{fam}route add {} via {} dev {} table {}",
                r.to, r.via, p.ifname, r.table
            ));
            v.push(format!("{fam}rule add from {} table {}", r.from, r.table));
        }
    }
    v
}

/// Pids of every process in a namespace (`ip netns pids`).
pub fn pids_in(ns: &str) -> Vec<u32> {
    cmd::output(Command::new("ip").args(["netns", "pids", ns]))
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Delete namespaces (their veth ends go with them); carries on past failures and returns the
/// names that are still there.
pub fn delete(names: &[String]) -> Vec<String> {
    let lines: Vec<String> = names.iter().map(|n| format!("netns del {n}")).collect();
    if !lines.is_empty() {
        let mut input = lines.join("\n");
        input.push('\n');
        let _ = cmd::run_with_input(Command::new("ip").args(["-force", "-batch", "-"]), &input);
    }
    let left = lab_namespaces();
    names.iter().filter(|n| left.contains(n)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_prefixed_names_belong_to_the_lab() {
        assert!(is_lab_ns("rylab-spine01"));
        assert!(is_lab_ns("rylab.leaf1.t1"));
        assert!(!is_lab_ns("rylabx-spine01"));
        assert!(!is_lab_ns("ryx-a"));
    }
}
