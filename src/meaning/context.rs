//! Context-path lines, the canonical form of the industry-standard CLI configs (FRR, EOS): each
//! line prefixed by its parents, joined by ` > `, e.g.
//! `router bgp 65001 > neighbor swp51 remote-as external`; a context line is also its own line
//! (`router bgp 65001`), so a whole block vanishing shows as its head line removed. What those
//! lines state for disruptive changes; each OS's folder names its spelling of the router-id.

use crate::meaning::disruptive::{Fact, LineForm, Peer, Scope};

/// The facts of context-path lines, for an OS that spells the router-id command `router_id`
/// (with its trailing space: FRR `bgp router-id `, EOS `router-id `).
pub struct ContextLines {
    pub router_id: &'static str,
}

impl LineForm for ContextLines {
    fn facts(&self, lines: &[String]) -> Vec<Fact> {
        let mut out = Vec::new();
        for l in lines {
            let p: Vec<&str> = l.split(" > ").collect();
            if p.len() == 1 && p[0].starts_with("router bgp ") {
                out.push(Fact::Instance(p[0].to_string()));
            } else if p.len() > 1 && p[0].starts_with("router bgp ") {
                self.bgp(&p, &mut out);
            } else if p.len() == 2 && p[0].starts_with("interface ") {
                interface(p[0].trim_start_matches("interface "), p[1], &mut out);
            }
        }
        out
    }

    fn existed(&self, before: &[String], iface: &str) -> bool {
        let head = format!("interface {iface}");
        let inside = format!("{head} > ");
        before.iter().any(|l| *l == head || l.starts_with(&inside))
    }
}

impl ContextLines {
    /// A line inside a `router bgp` block (`p[0]`): router-id, neighbor definitions and
    /// activations.
    fn bgp(&self, p: &[&str], out: &mut Vec<Fact>) {
        let instance = p[0].to_string();
        let last = p[p.len() - 1];
        if p.len() == 2
            && let Some(id) = last.strip_prefix(self.router_id)
        {
            out.push(Fact::RouterId {
                of: Scope::Instance(instance.clone()),
                value: id.to_string(),
            });
        }
        let Some(rest) = last.strip_prefix("neighbor ") else {
            return;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let Some(neighbor) = words.first().map(|w| w.to_string()) else {
            return;
        };
        match words.get(1).copied() {
            Some("remote-as") if p.len() == 2 => out.push(Fact::Session {
                peer: Peer::Neighbor { instance, neighbor },
                remote_as: Some(words[2..].join(" ")).filter(|a| !a.is_empty()),
            }),
            Some("interface") | Some("peer-group") if p.len() == 2 && words.len() > 2 => {
                out.push(Fact::Session {
                    peer: Peer::Neighbor { instance, neighbor },
                    remote_as: None,
                })
            }
            Some("activate") if p.len() == 3 => out.push(Fact::Activation {
                instance,
                neighbor,
                family: p[1].to_string(),
            }),
            _ => {}
        }
    }
}

/// A line inside an `interface` block: addresses, MTU, speed.
fn interface(iface: &str, cmd: &str, out: &mut Vec<Fact>) {
    let iface = iface.to_string();
    for prefix in ["ip address ", "ipv6 address "] {
        if let Some(a) = cmd.strip_prefix(prefix) {
            out.push(Fact::Address {
                iface: iface.clone(),
                address: a.split_whitespace().next().unwrap_or(a).to_string(),
            });
        }
    }
    if let Some(m) = cmd.strip_prefix("mtu ") {
        out.push(Fact::Mtu {
            iface: iface.clone(),
            value: m.to_string(),
        });
    }
    if let Some(s) = cmd.strip_prefix("speed ") {
        out.push(Fact::Speed {
            iface,
            value: s.to_string(),
        });
    }
}
