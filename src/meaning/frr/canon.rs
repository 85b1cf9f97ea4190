//! FRR configuration text → canonical lines, for a comparison by meaning.
//!
//! Both sides of every FRR comparison are first read by FRR itself (`scratch.rs`: the file loaded
//! into a scratch FRR, then its `show running-config`), so defaults, spelling and order are
//! FRR's own. This module only turns that text into a set of lines with their context path
//! (`router bgp 65001 > address-family ipv4 unicast > neighbor fabric activate`), each context
//! line also on its own, and drops what carries no meaning: the banner, `!`, `end`, the `exit…`
//! lines, `frr version`, and containers FRR keeps empty after their content was removed
//! (`bfd`, `interface X`, `vrf X`, `line vty` with nothing inside: frr-reload.py cannot delete
//! the node itself).

use std::collections::BTreeSet;

/// The canonical lines of a running-config text.
pub fn lines(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    for raw in text.lines() {
        let t = raw.trim_end();
        let body = t.trim_start();
        if body.is_empty()
            || body.starts_with('!')
            || body == "end"
            || body.starts_with("exit")
            || body.starts_with("Building configuration")
            || body.starts_with("Current configuration")
            || body.starts_with("frr version")
        {
            continue;
        }
        let indent = t.len() - body.len();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path = if stack.is_empty() {
            body.to_string()
        } else {
            let parents: Vec<&str> = stack.iter().map(|(_, s)| s.as_str()).collect();
            format!("{} > {body}", parents.join(" > "))
        };
        out.insert(path.clone());
        stack.push((indent, path_last(&path).to_string()));
    }
    let empty: Vec<String> = out
        .iter()
        .filter(|l| !l.contains(" > ") && meaningless_when_empty(l))
        .filter(|l| {
            let prefix = format!("{l} > ");
            !out.iter().any(|o| o.starts_with(&prefix))
        })
        .cloned()
        .collect();
    for e in empty {
        out.remove(&e);
    }
    out
}

fn path_last(path: &str) -> &str {
    path.rsplit(" > ").next().unwrap_or(path)
}

fn meaningless_when_empty(head: &str) -> bool {
    head == "bfd"
        || head == "line vty"
        || head.starts_with("interface ")
        || (head.starts_with("vrf ") && !head.contains(" > "))
}

/// The `frr defaults` profile a running config was started with (`traditional` when absent).
pub fn defaults_profile(text: &str) -> String {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("frr defaults "))
        .map(|p| p.trim().to_string())
        .unwrap_or_else(|| "traditional".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meaning::canonical::{diff, diff_text};

    const RUNNING: &str = "Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults datacenter
hostname leaf1
!
interface swp5
exit
!
router bgp 65001
 bgp router-id 10.0.0.1
 neighbor swp5 interface remote-as external
 !
 address-family ipv4 unicast
  redistribute connected
 exit-address-family
exit
!
bfd
 profile fabric
 exit
 !
exit
!
bfd
exit
!
end
";

    #[test]
    fn context_paths_and_noise() {
        let l = lines(RUNNING);
        let want = [
            "bfd",
            "bfd > profile fabric",
            "frr defaults datacenter",
            "hostname leaf1",
            "router bgp 65001",
            "router bgp 65001 > address-family ipv4 unicast",
            "router bgp 65001 > address-family ipv4 unicast > redistribute connected",
            "router bgp 65001 > bgp router-id 10.0.0.1",
            "router bgp 65001 > neighbor swp5 interface remote-as external",
        ];
        assert_eq!(l.iter().map(String::as_str).collect::<Vec<_>>(), want);
        assert_eq!(defaults_profile(RUNNING), "datacenter");
    }

    #[test]
    fn empty_containers_do_not_count_but_empty_bgp_does() {
        let a = lines("bfd\nexit\ninterface swp1\nexit\nrouter bgp 1\nexit\n");
        assert_eq!(a.into_iter().collect::<Vec<_>>(), vec!["router bgp 1"]);
        let (r, add) = diff(
            &lines("router bgp 1\n neighbor a remote-as 2\n"),
            &lines("router bgp 1\n neighbor a remote-as 3\n"),
        );
        assert_eq!(
            diff_text(&r, &add),
            "- router bgp 1 > neighbor a remote-as 2\n+ router bgp 1 > neighbor a remote-as 3\n"
        );
    }
}
