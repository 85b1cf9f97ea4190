//! Every spec string that reaches a sink, checked against its grammar where the user wrote it,
//! before the typed parse: all problems at once, each at its place in the file. The typed parse
//! then holds these strings as the types of `model::ident`, which refuse anything else too.
//!
//! The table names places by path: `*` is any list item or any map entry's value, `{}` the map
//! key itself. Tenant names are names here; tenancy adds its own rule (a VRF name fits a Linux
//! interface name). Naming patterns are checked by topology, where they render names.
//!
//! Besides the table: no string anywhere in the spec may hold a push-time placeholder `${…}`.
//! `railyard push` fills `${NAME}` from the operator's environment; only railyard's own
//! renderers write them, for the secrets the spec declares by name (`bgp.auth_env`), so a
//! placeholder smuggled into any other string could make push send an environment value to a
//! device.

use super::yaml::{Node, Sp};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::ident::Grammar;

/// (path, grammar) of every string the table checks.
const RULES: &[(&str, Grammar)] = &[
    ("name", Grammar::Name),
    ("site", Grammar::Text),
    ("overrides.{}", Grammar::Name),
    ("services.ntp.*", Grammar::Host),
    ("services.syslog.*", Grammar::Host),
    ("services.dns.*", Grammar::IpAddress),
    ("services.snmp_traps.*", Grammar::Host),
    ("services.domain", Grammar::DomainName),
    ("scheduler.label_prefix", Grammar::LabelPrefix),
    ("hosts.socket_ifname", Grammar::IfnameList),
    ("hosts.nccl_topo_file", Grammar::NodePath),
    ("bgp.external_peers.*.name", Grammar::Name),
    ("tenants.*.name", Grammar::Name),
    ("tenants.*.route_target", Grammar::RouteTarget),
    ("tenants.*.shared_services.*", Grammar::Name),
    ("tenants.*.nodes.names.*", Grammar::Name),
    ("shared_services.*.name", Grammar::Name),
    ("catalog.switches.{}", Grammar::Name),
    ("catalog.switches.*.vendor", Grammar::Text),
    ("catalog.switches.*.description", Grammar::Text),
    ("catalog.switches.*.source", Grammar::Text),
    ("catalog.switches.*.asic", Grammar::Name),
    ("catalog.switches.*.mgmt_port", Grammar::IfName),
    ("catalog.switches.*.sonic.platform", Grammar::Name),
    ("catalog.switches.*.sonic.hwsku", Grammar::Name),
    ("catalog.switches.*.port_groups.*.name", Grammar::IfPattern),
    (
        "catalog.switches.*.port_groups.*.split_name",
        Grammar::IfPattern,
    ),
    (
        "catalog.switches.*.port_groups.*.breakouts.*",
        Grammar::Name,
    ),
    ("catalog.nodes.{}", Grammar::Name),
    ("catalog.nodes.*.vendor", Grammar::Text),
    ("catalog.nodes.*.description", Grammar::Text),
    ("catalog.nodes.*.gpu_model", Grammar::Text),
    ("catalog.nodes.*.source", Grammar::Text),
    ("catalog.nodes.*.compute.*.ports.*", Grammar::IfName),
    ("catalog.nodes.*.compute.*.cage", Grammar::IfName),
    ("catalog.nodes.*.compute.*.rdma", Grammar::IfName),
    ("catalog.nodes.*.storage.*.ports.*", Grammar::IfName),
    ("catalog.nodes.*.storage.*.cage", Grammar::IfName),
    ("catalog.nodes.*.storage.*.rdma", Grammar::IfName),
    ("catalog.nodes.*.inband.*.ports.*", Grammar::IfName),
    ("catalog.nodes.*.inband.*.cage", Grammar::IfName),
    ("catalog.nodes.*.inband.*.rdma", Grammar::IfName),
    ("catalog.nodes.*.bmc.ports.*", Grammar::IfName),
    ("catalog.nodes.*.bmc.cage", Grammar::IfName),
];

/// The strings of `tree` at `path` (segments as in [`RULES`]), with their spans.
fn strings<'a>(tree: &'a Sp<Node>, path: &[&str], out: &mut Vec<(&'a str, Option<Span>)>) {
    let Some((first, rest)) = path.split_first() else {
        if let Node::Scalar(Some(text)) = &tree.value {
            out.push((text, tree.span));
        }
        return;
    };
    match (&tree.value, *first) {
        (Node::Map(entries), "{}") if rest.is_empty() => {
            for (k, _) in entries {
                out.push((&k.value, k.span));
            }
        }
        (Node::Map(entries), "*") => entries.iter().for_each(|(_, v)| strings(v, rest, out)),
        (Node::Seq(items), "*") => items.iter().for_each(|v| strings(v, rest, out)),
        (Node::Map(entries), key) => {
            if let Some((_, v)) = entries.iter().find(|(k, _)| k.value == key) {
                strings(v, rest, out);
            }
        }
        _ => {}
    }
}

/// Every string of the table outside its grammar, and every placeholder anywhere.
pub fn check(tree: &Sp<Node>, diags: &mut Diagnostics) {
    for (path, grammar) in RULES {
        let segments: Vec<&str> = path.split('.').collect();
        let mut found = Vec::new();
        strings(tree, &segments, &mut found);
        for (text, span) in found {
            if let Err(e) = grammar.check(text) {
                diags.push(
                    Diagnostic::error(
                        codes::INVALID_VALUE,
                        format!("`{path}` holds `{}`: {}", shown(text), e.reason),
                    )
                    .at(span, "not allowed here")
                    .help(format!("write {}", grammar.describe())),
                );
            }
        }
    }
    auth_env(tree, diags);
    placeholders(tree, diags);
}

/// `bgp.auth_env` names the variable that holds the fabric's TCP-MD5 password; a value that is
/// no variable name is most likely the password itself, which must not be in the spec.
fn auth_env(tree: &Sp<Node>, diags: &mut Diagnostics) {
    let mut found = Vec::new();
    strings(tree, &["bgp", "auth_env"], &mut found);
    for (text, span) in found {
        if Grammar::EnvName.check(text).is_ok() {
            continue;
        }
        let looks_like_secret = text.len() >= 8 && !text.contains(char::is_whitespace);
        diags.push(
            Diagnostic::error(
                codes::BAD_BGP_OPTION,
                "`bgp.auth_env` is not the name of an environment variable",
            )
            .at(span, "not `[A-Z_][A-Z0-9_]*`")
            .help(if looks_like_secret {
                "name the variable that holds the password (e.g. `BGP_FABRIC_PASSWORD`), never the password itself: the spec is not a secret store"
            } else {
                "use upper-case letters, digits and `_` (e.g. `BGP_FABRIC_PASSWORD`); `railyard push` reads its value from the environment"
            }),
        );
    }
}

/// A value as quoted in a message: control characters escaped, long values cut.
fn shown(text: &str) -> String {
    let escaped: String = text.chars().flat_map(char::escape_debug).collect();
    if escaped.chars().count() > 60 {
        let head: String = escaped.chars().take(57).collect();
        format!("{head}...")
    } else {
        escaped
    }
}

fn placeholders(tree: &Sp<Node>, diags: &mut Diagnostics) {
    match &tree.value {
        Node::Scalar(Some(text)) if text.contains("${") => diags.push(
            Diagnostic::error(
                codes::PLACEHOLDER_IN_SPEC,
                format!("`{}` holds a push-time placeholder", shown(text)),
            )
            .at(tree.span, "`${…}` is railyard's own")
            .help(
                "secrets are never written in the spec: name the environment variable where the \
                 spec asks for one (e.g. `bgp.auth_env: RAILYARD_BGP_PASSWORD`) and railyard \
                 writes the placeholder itself",
            ),
        ),
        Node::Scalar(_) => {}
        Node::Seq(items) => items.iter().for_each(|v| placeholders(v, diags)),
        Node::Map(entries) => {
            for (k, v) in entries {
                if k.value.contains("${") {
                    diags.push(
                        Diagnostic::error(
                            codes::PLACEHOLDER_IN_SPEC,
                            format!(
                                "the key `{}` holds a push-time placeholder",
                                shown(&k.value)
                            ),
                        )
                        .at(k.span, "`${…}` is railyard's own"),
                    );
                }
                placeholders(v, diags);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::yaml::parse_tree;

    fn problems(yaml: &str) -> Vec<String> {
        let tree = parse_tree(yaml).unwrap();
        let mut d = Diagnostics::default();
        check(&tree, &mut d);
        d.iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect()
    }

    #[test]
    fn every_violation_is_reported_at_once() {
        let p = problems(
            "name: \"x;reboot\"\nservices:\n  ntp: [\"10.0.0.1\", \"a b\"]\n  domain: ok.example\n\
             catalog:\n  nodes:\n    \"../../../../tmp/x\": {compute: [{ports: [\"eth0\\nreboot\"]}]}\n\
             tenants:\n  - {name: t1, route_target: Z}\n",
        );
        assert_eq!(p.len(), 5, "{p:#?}");
        assert!(p.iter().all(|m| m.starts_with("RY0002")), "{p:#?}");
        assert!(
            p.iter()
                .any(|m| m.contains("catalog.nodes.{}") && m.contains("../../../../tmp/x"))
        );
        assert!(p.iter().any(|m| m.contains("eth0\\nreboot")), "{p:#?}");
        assert!(p.iter().any(|m| m.contains("route_target")));
    }

    #[test]
    fn a_placeholder_anywhere_is_refused() {
        let p =
            problems("name: c\nsite: \"${AWS_SECRET_ACCESS_KEY}\"\nbgp: {auth_env: FABRIC_PW}\n");
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].starts_with("RY0006"), "{p:#?}");
    }

    #[test]
    fn valid_values_pass() {
        let p = problems(
            "name: spectrum-x\nsite: \"Hall 2, row C\"\nservices: {ntp: [ntp.example.com], dns: [10.0.0.53]}\n\
             hosts: {socket_ifname: \"^lo,docker\", nccl_topo_file: /etc/railyard/nccl-topo.xml}\n",
        );
        assert!(p.is_empty(), "{p:#?}");
    }
}
