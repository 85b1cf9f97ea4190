//! Disruptive changes: what in a semantic diff takes traffic down beyond the line that changed —
//! a BGP ASN or router-id change (every session of the instance resets), a removed or re-peered
//! BGP session, an address removed or changed on an interface (the fabric link or host behind it
//! loses its peer), an MTU change (frames of the old size are dropped until both ends agree) and
//! a speed/breakout change (the port flaps or becomes other ports).
//!
//! Input: a driver's canonical diff as removed/added lines, in its OS's canonical line form, and
//! that form's reading of lines as [`Fact`]s ([`LineForm`], in each driver's folder,
//! `drivers/<os>/facts.rs`). One engine compares the removed facts with the added ones and words
//! the findings, for every OS alike.
//!
//! Output: one human line per finding, naming the device object it is about.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What a canonical line states that a change of can disrupt traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// A BGP instance by its head line (CLI `router bgp 65001`: the ASN is part of its name).
    /// When the head goes, the instance goes with everything in it: its other facts are not
    /// findings of their own.
    Instance(String),
    /// The ASN of a BGP instance.
    Asn { of: Scope, value: String },
    /// The router-id of a BGP instance.
    RouterId { of: Scope, value: String },
    /// A BGP session's definition, with the peer's AS when the line names it.
    Session {
        peer: Peer,
        remote_as: Option<String>,
    },
    /// A CLI neighbor activated in an address family (`neighbor X activate`).
    Activation {
        instance: String,
        neighbor: String,
        family: String,
    },
    /// An address on an interface.
    Address { iface: String, address: String },
    /// The MTU of an interface.
    Mtu { iface: String, value: String },
    /// The speed of a port (a new one flaps it), or its breakout where the OS sets both with one
    /// setting (EOS `speed 100g-4`).
    Speed { iface: String, value: String },
    /// The breakout mode of a cage: the port goes down and becomes other ports.
    Breakout { iface: String, value: String },
}

/// What an ASN or router-id belongs to, as a finding names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// The device's one BGP instance (OpenConfig `global`).
    Global,
    /// The container that holds it, by its path (NVUE `router > bgp`, SONiC `DEVICE_METADATA`).
    Path(String),
    /// A CLI instance, by its head line (`router bgp 65001`).
    Instance(String),
}

impl Scope {
    fn asn(&self) -> String {
        match self {
            Scope::Global => "BGP AS".into(),
            Scope::Path(p) => format!("BGP ASN ({p})"),
            Scope::Instance(i) => format!("BGP ASN of `{i}`"),
        }
    }

    fn router_id(&self) -> String {
        match self {
            Scope::Global => "BGP router-id".into(),
            Scope::Path(p) => format!("router-id ({p})"),
            Scope::Instance(i) => format!("router-id of `{i}`"),
        }
    }

    fn resets(&self) -> &'static str {
        match self {
            Scope::Instance(_) => "every session of the instance resets",
            Scope::Global | Scope::Path(_) => "every session resets",
        }
    }
}

/// A BGP session's peer, as a finding names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Peer {
    /// A CLI neighbor of an instance: `` `router bgp 65001 > neighbor swp5` ``.
    Neighbor { instance: String, neighbor: String },
    /// A neighbor by its path in a configuration tree: `` `vrf > default > … > neighbor > swp51` ``.
    Path(String),
    /// A CONFIG_DB `BGP_NEIGHBOR` row by its key; the peer's AS is its `asn` field.
    Row(String),
    /// An OpenConfig neighbor by its address.
    Address(String),
}

impl Peer {
    /// What the configuration calls the peer's AS.
    fn as_word(&self) -> &'static str {
        match self {
            Peer::Row(_) => "asn",
            Peer::Neighbor { .. } | Peer::Path(_) | Peer::Address(_) => "remote-as",
        }
    }

    /// The instance a CLI neighbor belongs to.
    fn instance(&self) -> Option<&str> {
        match self {
            Peer::Neighbor { instance, .. } => Some(instance),
            Peer::Path(_) | Peer::Row(_) | Peer::Address(_) => None,
        }
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Peer::Neighbor { instance, neighbor } => {
                write!(f, "`{instance} > neighbor {neighbor}`")
            }
            Peer::Path(p) => write!(f, "`{p}`"),
            Peer::Row(k) => write!(f, "BGP_NEIGHBOR {k}"),
            Peer::Address(a) => write!(f, "neighbor {a}"),
        }
    }
}

impl Fact {
    /// The CLI instance the fact lives in: it goes when the instance goes.
    fn instance(&self) -> Option<&str> {
        match self {
            Fact::RouterId {
                of: Scope::Instance(i),
                ..
            }
            | Fact::Asn {
                of: Scope::Instance(i),
                ..
            }
            | Fact::Activation { instance: i, .. } => Some(i),
            Fact::Session { peer, .. } => peer.instance(),
            _ => None,
        }
    }
}

/// A canonical line form: how an OS's lines state facts. Each driver's folder has its own.
pub trait LineForm {
    /// The facts the lines of one side of a diff state, in line order.
    fn facts(&self, lines: &[String]) -> Vec<Fact>;
    /// Whether interface `iface` exists in `before`, the whole old config in this form.
    fn existed(&self, before: &[String], iface: &str) -> bool;
}

/// The disruptive changes in a diff, sorted and de-duplicated. `before` is the whole old config
/// in the same line form: an MTU set where there was none disrupts an interface that existed,
/// not one the change creates.
pub fn findings(
    form: &dyn LineForm,
    before: &[String],
    removed: &[String],
    added: &[String],
) -> Vec<String> {
    let (removed, added) = (form.facts(removed), form.facts(added));
    let existed = |iface: &str| form.existed(before, iface);
    let set: BTreeSet<String> = compare(&removed, &added, &existed).into_iter().collect();
    set.into_iter().collect()
}

/// One side's facts, sorted by kind and key; each key's values in line order.
#[derive(Default)]
struct Side {
    instances: Vec<String>,
    asn: BTreeMap<Scope, Vec<String>>,
    router_id: BTreeMap<Scope, Vec<String>>,
    /// Each session's remote AS values (none for a definition without one).
    sessions: BTreeMap<Peer, Vec<String>>,
    activations: BTreeSet<(String, String, String)>,
    addresses: Keyed,
    mtu: Keyed,
    speed: Keyed,
    breakout: Keyed,
}

type Keyed = BTreeMap<String, Vec<String>>;

fn push(m: &mut Keyed, k: &str, v: &str) {
    m.entry(k.to_string()).or_default().push(v.to_string());
}

impl Side {
    /// The facts, without those inside an instance in `gone` (a removed instance head).
    fn of(facts: &[Fact], gone: &BTreeSet<&str>) -> Side {
        let mut s = Side::default();
        for f in facts {
            if f.instance().is_some_and(|i| gone.contains(i)) {
                continue;
            }
            match f {
                Fact::Instance(head) => s.instances.push(head.clone()),
                Fact::Asn { of, value } => s.asn.entry(of.clone()).or_default().push(value.clone()),
                Fact::RouterId { of, value } => s
                    .router_id
                    .entry(of.clone())
                    .or_default()
                    .push(value.clone()),
                Fact::Session { peer, remote_as } => {
                    let v = s.sessions.entry(peer.clone()).or_default();
                    v.extend(remote_as.iter().cloned());
                }
                Fact::Activation {
                    instance,
                    neighbor,
                    family,
                } => {
                    s.activations
                        .insert((instance.clone(), neighbor.clone(), family.clone()));
                }
                Fact::Address { iface, address } => push(&mut s.addresses, iface, address),
                Fact::Mtu { iface, value } => push(&mut s.mtu, iface, value),
                Fact::Speed { iface, value } => push(&mut s.speed, iface, value),
                Fact::Breakout { iface, value } => push(&mut s.breakout, iface, value),
            }
        }
        s
    }
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

/// Every finding of removed vs added facts, unsorted.
fn compare(removed: &[Fact], added: &[Fact], existed: &dyn Fn(&str) -> bool) -> Vec<String> {
    let gone: BTreeSet<&str> = removed
        .iter()
        .filter_map(|f| match f {
            Fact::Instance(head) => Some(head.as_str()),
            _ => None,
        })
        .collect();
    let (old, new) = (Side::of(removed, &gone), Side::of(added, &gone));
    let mut out = Vec::new();
    // A BGP instance whose head line vanished: an ASN change (or the instance removed).
    out.extend(change(
        "BGP instance",
        &old.instances,
        &new.instances,
        "every session of it resets",
    ));
    for (scope, o) in &old.asn {
        let n = new.asn.get(scope).map_or(&[][..], Vec::as_slice);
        out.extend(change(&scope.asn(), o, n, scope.resets()));
    }
    for (scope, o) in &old.router_id {
        let n = new.router_id.get(scope).map_or(&[][..], Vec::as_slice);
        out.extend(change(&scope.router_id(), o, n, scope.resets()));
    }
    sessions(&old, &new, &mut out);
    for (iface, o) in &old.addresses {
        let n = new.addresses.get(iface).map_or(&[][..], Vec::as_slice);
        let why = "the peer on this link loses its session";
        out.extend(change(&format!("address on {iface}"), o, n, why));
    }
    for (what, o, n, why) in [
        (
            "MTU",
            &old.mtu,
            &new.mtu,
            "frames of the old size are dropped until both ends agree",
        ),
        (
            "speed/breakout",
            &old.speed,
            &new.speed,
            "the port goes down",
        ),
        (
            "breakout",
            &old.breakout,
            &new.breakout,
            "the port goes down and becomes other ports",
        ),
    ] {
        interface_values(&mut out, what, o, n, existed, why);
    }
    out
}

/// Sessions removed or re-peered, and CLI neighbors deactivated in a family.
fn sessions(old: &Side, new: &Side, out: &mut Vec<String>) {
    for (peer, old_as) in &old.sessions {
        match new.sessions.get(peer) {
            None => out.push(format!("BGP session removed: {peer}")),
            Some(new_as) => {
                if !old_as.is_empty() && !new_as.is_empty() && old_as != new_as {
                    out.extend(change(
                        &format!("{} of {peer}", peer.as_word()),
                        old_as,
                        new_as,
                        "the session resets",
                    ));
                }
            }
        }
    }
    for key in old.activations.difference(&new.activations) {
        let (instance, neighbor, family) = key;
        let peer = Peer::Neighbor {
            instance: instance.clone(),
            neighbor: neighbor.clone(),
        };
        let removed_peer = old.sessions.contains_key(&peer) && !new.sessions.contains_key(&peer);
        if !removed_peer {
            out.push(format!(
                "BGP session deactivated: `{instance} > neighbor {neighbor} in {family}`"
            ));
        }
    }
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

/// Owned lines from literals: the diffs of the line-form tests in the driver folders.
#[cfg(test)]
pub fn lines(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}
