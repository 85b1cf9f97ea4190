//! Disruptive changes: what in a semantic diff takes traffic down beyond the line that changed —
//! a BGP ASN or router-id change (every session of the instance resets), a removed or re-peered
//! BGP session, an address removed or changed on an interface (the fabric link or host behind it
//! loses its peer), an MTU change (frames of the old size are dropped until both ends agree) and
//! a speed/breakout change (the port flaps or becomes other ports).
//!
//! Input: a driver's canonical diff as removed/added lines, in that NOS's canonical line form:
//! - CLI configs (FRR, EOS): context path joined by ` > `, e.g.
//!   `router bgp 65001 > neighbor swp51 remote-as external`; a context line is also its own line
//!   (`router bgp 65001`), so a whole block vanishing shows as its head line removed;
//! - OpenConfig: `/interfaces:interfaces/interface[name=swp1]/config/mtu = 9216`;
//! - trees (NVUE `startup.yaml`, SONiC `config_db.json`): keys joined by ` > `, then ` = value`.
//!
//! Output: one human line per finding, naming the device object it is about.

use std::collections::{BTreeMap, BTreeSet};

/// Which canonical line form a diff is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Frr,
    Eos,
    OpenConfig,
    Nvue,
    Sonic,
}

/// The disruptive changes in a diff, sorted and de-duplicated. `before` is the whole old config
/// in the same line form: an MTU set where there was none disrupts an interface that existed,
/// not one the change creates.
pub fn findings(
    dialect: Dialect,
    before: &[String],
    removed: &[String],
    added: &[String],
) -> Vec<String> {
    let existed = |iface: &str| -> bool {
        before.iter().any(|l| match dialect {
            Dialect::Frr | Dialect::Eos => {
                let head = format!("interface {iface}");
                *l == head || l.starts_with(&format!("{head} > "))
            }
            Dialect::OpenConfig => {
                l.starts_with(&format!("/interfaces:interfaces/interface[name={iface}]/"))
                    || l.ends_with(&format!("/interface/name = {iface}"))
            }
            Dialect::Nvue => l.starts_with(&format!("interface > {iface} > ")),
            Dialect::Sonic => {
                l.starts_with(&format!("PORT > {iface} > "))
                    || l.starts_with(&format!("PORTCHANNEL > {iface} > "))
            }
        })
    };
    let out = match dialect {
        Dialect::Frr | Dialect::Eos => cli(dialect, removed, added, &existed),
        Dialect::OpenConfig => openconfig(removed, added, &existed),
        Dialect::Nvue => nvue(removed, added, &existed),
        Dialect::Sonic => sonic(removed, added, &existed),
    };
    let set: BTreeSet<String> = out.into_iter().collect();
    set.into_iter().collect()
}

/// Split a `- line` / `+ line` diff text into (removed, added).
pub fn split_diff(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for l in text.lines() {
        if let Some(r) = l.strip_prefix("- ") {
            removed.push(r.to_string());
        } else if let Some(a) = l.strip_prefix("+ ") {
            added.push(a.to_string());
        }
    }
    (removed, added)
}

fn parts(line: &str) -> Vec<&str> {
    line.split(" > ").collect()
}

/// `old → new` wording for a changed value, `old removed` when there is no new one. Setting
/// what was not there (a first ASN, a new address) disrupts nothing that ran.
fn change(what: &str, old: &[String], new: &[String], why: &str) -> Option<String> {
    match (old.is_empty(), new.is_empty()) {
        (true, _) => None,
        (false, true) => Some(format!("{what}: {} removed — {why}", old.join(", "))),
        (false, false) => Some(format!(
            "{what}: {} → {} — {why}",
            old.join(", "),
            new.join(", ")
        )),
    }
}

type Keyed = BTreeMap<String, Vec<String>>;

fn push(m: &mut Keyed, k: &str, v: &str) {
    m.entry(k.to_string()).or_default().push(v.to_string());
}

/// FRR and EOS running-config lines.
fn cli(
    dialect: Dialect,
    removed: &[String],
    added: &[String],
    existed: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let heads = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| !l.contains(" > ") && l.starts_with("router bgp "))
            .cloned()
            .collect()
    };
    let (gone, new) = (heads(removed), heads(added));
    // A BGP instance whose head line vanished: an ASN change (or the instance removed).
    let gone_set: BTreeSet<&String> = gone.iter().collect();
    if !gone.is_empty() {
        out.push(
            change("BGP instance", &gone, &new, "every session of it resets").unwrap_or_default(),
        );
    }
    let in_kept = |p: &[&str]| {
        p.len() > 1 && p[0].starts_with("router bgp ") && !gone_set.contains(&p[0].to_string())
    };
    let rid_cmd = if dialect == Dialect::Frr {
        "bgp router-id "
    } else {
        "router-id "
    };
    // Per instance: router-id; per (instance, neighbor): definition lines.
    let (mut rid_old, mut rid_new) = (Keyed::new(), Keyed::new());
    let (mut nb_old, mut nb_new) = (Keyed::new(), Keyed::new());
    let (mut act_old, mut act_new) = (Keyed::new(), Keyed::new());
    for (lines, rid, nb, act) in [
        (removed, &mut rid_old, &mut nb_old, &mut act_old),
        (added, &mut rid_new, &mut nb_new, &mut act_new),
    ] {
        for l in lines {
            let p = parts(l);
            if !in_kept(&p) {
                continue;
            }
            let last = p[p.len() - 1];
            if p.len() == 2
                && let Some(id) = last.strip_prefix(rid_cmd)
            {
                push(rid, p[0], id);
            }
            if let Some(rest) = last.strip_prefix("neighbor ") {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let Some(peer) = words.first() else { continue };
                let key = format!("{} > neighbor {peer}", p[0]);
                match words.get(1).copied() {
                    Some("remote-as") if p.len() == 2 => {
                        push(nb, &key, &words[2..].join(" "));
                    }
                    Some("interface") | Some("peer-group") if p.len() == 2 && words.len() > 2 => {
                        push(nb, &key, "");
                    }
                    Some("activate") if p.len() == 3 => {
                        push(act, &format!("{key} in {}", p[1]), "");
                    }
                    _ => {}
                }
            }
        }
    }
    for (inst, old) in &rid_old {
        let new = rid_new.get(inst).cloned().unwrap_or_default();
        out.extend(change(
            &format!("router-id of `{inst}`"),
            old,
            &new,
            "every session of the instance resets",
        ));
    }
    for (key, old) in &nb_old {
        let old_as: Vec<String> = old.iter().filter(|v| !v.is_empty()).cloned().collect();
        match nb_new.get(key) {
            None => out.push(format!("BGP session removed: `{key}`")),
            Some(new) => {
                let new_as: Vec<String> = new.iter().filter(|v| !v.is_empty()).cloned().collect();
                if !old_as.is_empty() && !new_as.is_empty() && old_as != new_as {
                    out.extend(change(
                        &format!("remote-as of `{key}`"),
                        &old_as,
                        &new_as,
                        "the session resets",
                    ));
                }
            }
        }
    }
    for key in act_old.keys() {
        let peer = key.split(" in ").next().unwrap_or(key);
        let removed_peer = nb_old.contains_key(peer) && !nb_new.contains_key(peer);
        if !act_new.contains_key(key) && !removed_peer {
            out.push(format!("BGP session deactivated: `{key}`"));
        }
    }
    // Interfaces: addresses, MTU, speed/breakout.
    let (mut addr_old, mut addr_new) = (Keyed::new(), Keyed::new());
    let (mut mtu_old, mut mtu_new) = (Keyed::new(), Keyed::new());
    let (mut spd_old, mut spd_new) = (Keyed::new(), Keyed::new());
    for (lines, addr, mtu, spd) in [
        (removed, &mut addr_old, &mut mtu_old, &mut spd_old),
        (added, &mut addr_new, &mut mtu_new, &mut spd_new),
    ] {
        for l in lines {
            let p = parts(l);
            if p.len() != 2 || !p[0].starts_with("interface ") {
                continue;
            }
            let iface = p[0].trim_start_matches("interface ");
            let cmd = p[1];
            for prefix in ["ip address ", "ipv6 address "] {
                if let Some(a) = cmd.strip_prefix(prefix) {
                    push(addr, iface, a.split_whitespace().next().unwrap_or(a));
                }
            }
            if let Some(m) = cmd.strip_prefix("mtu ") {
                push(mtu, iface, m);
            }
            if let Some(s) = cmd.strip_prefix("speed ") {
                push(spd, iface, s);
            }
        }
    }
    for (iface, old) in &addr_old {
        let new = addr_new.get(iface).cloned().unwrap_or_default();
        out.extend(change(
            &format!("address on {iface}"),
            old,
            &new,
            "the peer on this link loses its session",
        ));
    }
    interface_values(
        &mut out,
        "MTU",
        &mtu_old,
        &mtu_new,
        existed,
        "frames of the old size are dropped until both ends agree",
    );
    interface_values(
        &mut out,
        "speed/breakout",
        &spd_old,
        &spd_new,
        existed,
        "the port goes down",
    );
    out.retain(|s| !s.is_empty());
    out
}

/// A per-interface value (MTU, speed) changed, removed, or set on an interface that existed.
fn interface_values(
    out: &mut Vec<String>,
    what: &str,
    old: &Keyed,
    new: &Keyed,
    existed: &dyn Fn(&str) -> bool,
    why: &str,
) {
    let ifaces: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for i in ifaces {
        let o = old.get(i).cloned().unwrap_or_default();
        let n = new.get(i).cloned().unwrap_or_default();
        if o.is_empty() && !existed(i) {
            continue;
        }
        let o = if o.is_empty() {
            vec!["default".to_string()]
        } else {
            o
        };
        let n = if n.is_empty() {
            vec!["default".to_string()]
        } else {
            n
        };
        if o != n {
            out.push(format!(
                "{what} on {i}: {} → {} — {why}",
                o.join(", "),
                n.join(", ")
            ));
        }
    }
}

/// (path, value) of a canonical OpenConfig line.
fn oc_split(line: &str) -> (&str, &str) {
    line.split_once(" = ").unwrap_or((line, ""))
}

/// The `name=` key of the `interface` list entry in an OpenConfig path, if the path has one.
fn oc_interface(path: &str) -> String {
    path.split("interface[name=")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or("the interface")
        .to_string()
}

fn openconfig(removed: &[String], added: &[String], existed: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let (mut addr_old, mut addr_new) = (Keyed::new(), Keyed::new());
    let (mut mtu_old, mut mtu_new) = (Keyed::new(), Keyed::new());
    let (mut spd_old, mut spd_new) = (Keyed::new(), Keyed::new());
    let (mut as_old, mut as_new) = (Vec::new(), Vec::new());
    let (mut rid_old, mut rid_new) = (Vec::new(), Vec::new());
    let (mut nb_old, mut nb_new) = (BTreeSet::new(), BTreeSet::new());
    for (lines, addr, mtu, spd, asn, rid, nb) in [
        (
            removed,
            &mut addr_old,
            &mut mtu_old,
            &mut spd_old,
            &mut as_old,
            &mut rid_old,
            &mut nb_old,
        ),
        (
            added,
            &mut addr_new,
            &mut mtu_new,
            &mut spd_new,
            &mut as_new,
            &mut rid_new,
            &mut nb_new,
        ),
    ] {
        for l in lines {
            let (path, value) = oc_split(l);
            let iface = oc_interface(path);
            if path.contains("/addresses/address") {
                let ip = path
                    .split("address[ip=")
                    .nth(1)
                    .and_then(|r| r.split(']').next())
                    .map(str::to_string)
                    .or_else(|| {
                        (path.ends_with("/address/ip") || path.ends_with("/address/config/ip"))
                            .then(|| value.to_string())
                    });
                if let Some(ip) = ip {
                    let v = addr.entry(iface.clone()).or_default();
                    if !v.contains(&ip) {
                        v.push(ip);
                    }
                }
            } else if path.ends_with("/config/mtu") {
                push(mtu, &iface, value);
            } else if path.contains("port-speed") || path.contains("breakout") {
                push(spd, &iface, value);
            }
            if path.ends_with("/global/config/as") {
                asn.push(value.to_string());
            }
            if path.ends_with("/global/config/router-id") {
                rid.push(value.to_string());
            }
            if let Some(p) = path
                .split("neighbor[neighbor-address=")
                .nth(1)
                .and_then(|r| r.split(']').next())
            {
                nb.insert(p.to_string());
            }
        }
    }
    out.extend(change("BGP AS", &as_old, &as_new, "every session resets"));
    out.extend(change(
        "BGP router-id",
        &rid_old,
        &rid_new,
        "every session resets",
    ));
    for p in nb_old.difference(&nb_new) {
        out.push(format!("BGP session removed: neighbor {p}"));
    }
    for (iface, old) in &addr_old {
        let new = addr_new.get(iface).cloned().unwrap_or_default();
        out.extend(change(
            &format!("address on {iface}"),
            old,
            &new,
            "the peer on this link loses its session",
        ));
    }
    interface_values(
        &mut out,
        "MTU",
        &mtu_old,
        &mtu_new,
        existed,
        "frames of the old size are dropped until both ends agree",
    );
    interface_values(
        &mut out,
        "speed/breakout",
        &spd_old,
        &spd_new,
        existed,
        "the port goes down",
    );
    out
}

/// (keys, value) of a tree line `a > b > c = v`.
fn tree_split(line: &str) -> (Vec<&str>, &str) {
    let (path, value) = line.split_once(" = ").unwrap_or((line, ""));
    (path.split(" > ").collect(), value)
}

fn nvue(removed: &[String], added: &[String], existed: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let (mut asn_old, mut asn_new) = (Keyed::new(), Keyed::new());
    let (mut rid_old, mut rid_new) = (Keyed::new(), Keyed::new());
    let (mut nb_old, mut nb_new) = (Keyed::new(), Keyed::new());
    let (mut addr_old, mut addr_new) = (Keyed::new(), Keyed::new());
    let (mut mtu_old, mut mtu_new) = (Keyed::new(), Keyed::new());
    let (mut brk_old, mut brk_new) = (Keyed::new(), Keyed::new());
    for (lines, asn, rid, nb, addr, mtu, brk) in [
        (
            removed,
            &mut asn_old,
            &mut rid_old,
            &mut nb_old,
            &mut addr_old,
            &mut mtu_old,
            &mut brk_old,
        ),
        (
            added,
            &mut asn_new,
            &mut rid_new,
            &mut nb_new,
            &mut addr_new,
            &mut mtu_new,
            &mut brk_new,
        ),
    ] {
        for l in lines {
            let (k, v) = tree_split(l);
            let n = k.len();
            if n >= 2 && k[n - 2] == "bgp" && k[n - 1] == "autonomous-system" {
                push(asn, &k[..n - 1].join(" > "), v);
            }
            if n >= 2 && k[n - 2] == "bgp" && k[n - 1] == "router-id" {
                push(rid, &k[..n - 1].join(" > "), v);
            }
            if let Some(i) = k.iter().position(|x| *x == "neighbor")
                && i >= 1
                && k[i - 1] == "bgp"
                && let Some(peer) = k.get(i + 1)
            {
                let key = format!("{} > {peer}", k[..=i].join(" > "));
                let remote = if k.get(i + 2) == Some(&"remote-as") {
                    v
                } else {
                    ""
                };
                push(nb, &key, remote);
            }
            if k.first() == Some(&"interface") && n >= 2 {
                let iface = k[1];
                if n >= 5 && (k[2] == "ipv4" || k[2] == "ipv6" || k[2] == "ip") && k[3] == "address"
                {
                    push(addr, iface, k[4]);
                }
                if n == 4 && k[2] == "link" && k[3] == "mtu" {
                    push(mtu, iface, v);
                }
                if n >= 4 && k[2] == "link" && k[3] == "breakout" {
                    push(brk, iface, format!("{} {v}", k[4..].join(" ")).trim());
                }
            }
        }
    }
    for (inst, old) in &asn_old {
        let new = asn_new.get(inst).cloned().unwrap_or_default();
        out.extend(change(
            &format!("BGP ASN ({inst})"),
            old,
            &new,
            "every session resets",
        ));
    }
    for (inst, old) in &rid_old {
        let new = rid_new.get(inst).cloned().unwrap_or_default();
        out.extend(change(
            &format!("router-id ({inst})"),
            old,
            &new,
            "every session resets",
        ));
    }
    for (key, old) in &nb_old {
        match nb_new.get(key) {
            None => out.push(format!("BGP session removed: `{key}`")),
            Some(new) => {
                let o: Vec<String> = old.iter().filter(|x| !x.is_empty()).cloned().collect();
                let n: Vec<String> = new.iter().filter(|x| !x.is_empty()).cloned().collect();
                if !o.is_empty() && !n.is_empty() && o != n {
                    out.extend(change(
                        &format!("remote-as of `{key}`"),
                        &o,
                        &n,
                        "the session resets",
                    ));
                }
            }
        }
    }
    for (iface, old) in &addr_old {
        let new = addr_new.get(iface).cloned().unwrap_or_default();
        out.extend(change(
            &format!("address on {iface}"),
            old,
            &new,
            "the peer on this link loses its session",
        ));
    }
    interface_values(
        &mut out,
        "MTU",
        &mtu_old,
        &mtu_new,
        existed,
        "frames of the old size are dropped until both ends agree",
    );
    interface_values(
        &mut out,
        "breakout",
        &brk_old,
        &brk_new,
        existed,
        "the port goes down and becomes other ports",
    );
    out
}

fn sonic(removed: &[String], added: &[String], existed: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let (mut asn_old, mut asn_new) = (Vec::new(), Vec::new());
    let (mut nb_old, mut nb_new) = (Keyed::new(), Keyed::new());
    let (mut addr_old, mut addr_new) = (Keyed::new(), Keyed::new());
    let (mut mtu_old, mut mtu_new) = (Keyed::new(), Keyed::new());
    let (mut brk_old, mut brk_new) = (Keyed::new(), Keyed::new());
    for (lines, asn, nb, addr, mtu, brk) in [
        (
            removed,
            &mut asn_old,
            &mut nb_old,
            &mut addr_old,
            &mut mtu_old,
            &mut brk_old,
        ),
        (
            added,
            &mut asn_new,
            &mut nb_new,
            &mut addr_new,
            &mut mtu_new,
            &mut brk_new,
        ),
    ] {
        for l in lines {
            let (k, v) = tree_split(l);
            match k.as_slice() {
                ["DEVICE_METADATA", "localhost", "bgp_asn"] => asn.push(v.to_string()),
                ["BGP_NEIGHBOR", peer, rest @ ..] => {
                    let remote = if rest == ["asn"] { v } else { "" };
                    push(nb, peer, remote);
                }
                [table, key, ..] if table.ends_with("INTERFACE") && key.contains('|') => {
                    let (iface, a) = key.split_once('|').unwrap_or((key, ""));
                    let a = a.rsplit('|').next().unwrap_or(a);
                    push(addr, iface, a);
                }
                ["PORT" | "PORTCHANNEL", port, "mtu"] => push(mtu, port, v),
                ["BREAKOUT_CFG", port, "brkout_mode"] => push(brk, port, v),
                _ => {}
            }
        }
    }
    out.extend(change(
        "BGP ASN (DEVICE_METADATA)",
        &asn_old,
        &asn_new,
        "every session resets",
    ));
    for (peer, old) in &nb_old {
        match nb_new.get(peer) {
            None => out.push(format!("BGP session removed: BGP_NEIGHBOR {peer}")),
            Some(new) => {
                let o: Vec<String> = old.iter().filter(|x| !x.is_empty()).cloned().collect();
                let n: Vec<String> = new.iter().filter(|x| !x.is_empty()).cloned().collect();
                if !o.is_empty() && !n.is_empty() && o != n {
                    out.extend(change(
                        &format!("asn of BGP_NEIGHBOR {peer}"),
                        &o,
                        &n,
                        "the session resets",
                    ));
                }
            }
        }
    }
    for (iface, old) in &addr_old {
        let new = addr_new.get(iface).cloned().unwrap_or_default();
        out.extend(change(
            &format!("address on {iface}"),
            old,
            &new,
            "the peer on this link loses its session",
        ));
    }
    interface_values(
        &mut out,
        "MTU",
        &mtu_old,
        &mtu_new,
        existed,
        "frames of the old size are dropped until both ends agree",
    );
    interface_values(
        &mut out,
        "breakout",
        &brk_old,
        &brk_new,
        existed,
        "the port goes down and becomes other ports",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn frr_asn_change_is_one_finding() {
        let f = findings(
            Dialect::Frr,
            &[],
            &v(&[
                "router bgp 65001",
                "router bgp 65001 > bgp router-id 10.0.0.1",
            ]),
            &v(&[
                "router bgp 65002",
                "router bgp 65002 > bgp router-id 10.0.0.1",
            ]),
        );
        assert_eq!(
            f,
            vec!["BGP instance: router bgp 65001 → router bgp 65002 — every session of it resets"]
        );
    }

    #[test]
    fn frr_router_id_session_and_address() {
        let f = findings(
            Dialect::Frr,
            &[],
            &v(&[
                "router bgp 65001 > bgp router-id 10.0.0.1",
                "router bgp 65001 > neighbor swp5 interface peer-group fabric",
                "router bgp 65001 > neighbor swp6 remote-as 65100",
                "interface swp1 > ip address 10.64.0.1/31",
            ]),
            &v(&[
                "router bgp 65001 > bgp router-id 10.0.0.2",
                "router bgp 65001 > neighbor swp6 remote-as 65101",
                "interface swp1 > ip address 10.64.0.3/31",
            ]),
        );
        assert_eq!(
            f,
            vec![
                "BGP session removed: `router bgp 65001 > neighbor swp5`",
                "address on swp1: 10.64.0.1/31 → 10.64.0.3/31 — the peer on this link loses its session",
                "remote-as of `router bgp 65001 > neighbor swp6`: 65100 → 65101 — the session resets",
                "router-id of `router bgp 65001`: 10.0.0.1 → 10.0.0.2 — every session of the instance resets",
            ]
        );
        // Descriptions and added sessions are not disruptive.
        assert!(
            findings(
                Dialect::Frr,
                &[],
                &v(&["router bgp 65001 > neighbor swp5 description old"]),
                &v(&[
                    "router bgp 65001 > neighbor swp5 description new",
                    "router bgp 65001 > neighbor swp9 remote-as 65100"
                ]),
            )
            .is_empty()
        );
    }

    #[test]
    fn eos_mtu_and_speed_but_not_on_new_interfaces() {
        let f = findings(
            Dialect::Eos,
            &v(&[
                "interface Ethernet1",
                "interface Ethernet1 > mtu 1500",
                "interface Ethernet3",
            ]),
            &v(&["interface Ethernet1 > mtu 1500"]),
            &v(&[
                "interface Ethernet1 > mtu 9214",
                "interface Ethernet2",
                "interface Ethernet2 > mtu 9214",
                "interface Ethernet3 > speed 100g-4",
            ]),
        );
        assert_eq!(
            f,
            vec![
                "MTU on Ethernet1: 1500 → 9214 — frames of the old size are dropped until both ends agree",
                "speed/breakout on Ethernet3: default → 100g-4 — the port goes down",
            ]
        );
    }

    #[test]
    fn openconfig_mtu_and_address() {
        let p = "/interfaces:interfaces/interface[name=swp1]";
        let f = findings(
            Dialect::OpenConfig,
            &v(&[&format!("{p}/name = swp1")]),
            &v(&[
                &format!("{p}/config/mtu = 1500"),
                &format!("{p}/subinterfaces/subinterface/index = 0"),
                &format!(
                    "{p}/subinterfaces/subinterface/ip:ipv4/addresses/address/config/ip = 10.0.0.1"
                ),
            ]),
            &v(&[
                &format!("{p}/config/mtu = 9216"),
                "/interfaces:interfaces/interface[name=swp2]/name = swp2",
                "/interfaces:interfaces/interface[name=swp2]/config/mtu = 9216",
            ]),
        );
        assert_eq!(
            f,
            vec![
                "MTU on swp1: 1500 → 9216 — frames of the old size are dropped until both ends agree",
                "address on swp1: 10.0.0.1 removed — the peer on this link loses its session",
            ]
        );
    }

    #[test]
    fn a_new_port_with_an_mtu_is_not_disruptive() {
        let added = v(&[
            "PORT > Ethernet4 > mtu = 9216",
            "PORT > Ethernet4 > lanes = 4,5,6,7",
        ]);
        assert!(findings(Dialect::Sonic, &[], &[], &added).is_empty());
        let before = v(&["PORT > Ethernet4 > lanes = 4,5,6,7"]);
        assert_eq!(
            findings(Dialect::Sonic, &before, &[], &added[..1]),
            vec![
                "MTU on Ethernet4: default → 9216 — frames of the old size are dropped until both ends agree"
            ]
        );
    }

    #[test]
    fn nvue_and_sonic_trees() {
        let f = findings(
            Dialect::Nvue,
            &v(&["interface > swp1 > link > mtu = 9216"]),
            &v(&[
                "router > bgp > autonomous-system = 65001",
                "vrf > default > router > bgp > neighbor > swp51 > remote-as = external",
                "interface > swp1 > link > mtu = 9216",
            ]),
            &v(&[
                "router > bgp > autonomous-system = 65002",
                "interface > swp1 > link > mtu = 1500",
            ]),
        );
        assert_eq!(f.len(), 3, "{f:#?}");
        assert!(
            f[0].starts_with("BGP ASN (router > bgp): 65001 → 65002"),
            "{f:#?}"
        );
        let f = findings(
            Dialect::Sonic,
            &v(&["PORT > Ethernet0 > lanes = 0,1,2,3"]),
            &v(&[
                "BGP_NEIGHBOR > 10.0.0.1 > asn = 65100",
                "INTERFACE > Ethernet0|10.0.0.0/31 = {}",
                "BREAKOUT_CFG > Ethernet0 > brkout_mode = 1x400G",
            ]),
            &v(&["BREAKOUT_CFG > Ethernet0 > brkout_mode = 4x100G"]),
        );
        assert_eq!(
            f,
            vec![
                "BGP session removed: BGP_NEIGHBOR 10.0.0.1",
                "address on Ethernet0: 10.0.0.0/31 removed — the peer on this link loses its session",
                "breakout on Ethernet0: 1x400G → 4x100G — the port goes down and becomes other ports",
            ]
        );
    }
}
