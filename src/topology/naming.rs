//! Naming patterns: `leaf-su{su:02}-{leaf:02}` → `leaf-su01-03`; every role's pattern from the
//! spec (or its default), checked for the placeholders the role can fill.

use std::collections::BTreeMap;

use super::sizing::{AccessPlan, Sizing};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::Role;
use crate::spec::{ClusterSpec, Sp, defaults::Patterns};

#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    Field { name: &'static str, width: usize },
}

/// A parsed naming pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    pieces: Vec<Piece>,
}

/// The values a placeholder may take for one device.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fields<'a> {
    pub cluster: &'a str,
    pub su: Option<u32>,
    pub slot: Option<u32>,
    pub node: Option<u32>,
    pub plane: Option<u32>,
    pub leaf: Option<u32>,
    pub rail: Option<u32>,
    pub group: Option<u32>,
    pub index: Option<u32>,
    /// NVLink domain (rack) and tray of a rack-scale node.
    pub rack: Option<u32>,
    pub tray: Option<u32>,
}

const ALL_FIELDS: [&str; 11] = [
    "cluster", "su", "slot", "node", "plane", "leaf", "rail", "group", "index", "rack", "tray",
];

impl Pattern {
    /// Parse `text`; `allowed` are the placeholders this role can fill.
    pub fn parse(
        text: &str,
        allowed: &[&str],
        span: Option<Span>,
        role: &str,
        diags: &mut Diagnostics,
    ) -> Option<Pattern> {
        let mut pieces = Vec::new();
        let mut rest = text;
        let bad = |msg: String, diags: &mut Diagnostics| {
            diags.push(
                Diagnostic::error(codes::BAD_PATTERN, msg)
                    .at(span, "in this pattern")
                    .help(format!(
                        "placeholders for a {role}: {}",
                        allowed
                            .iter()
                            .map(|a| format!("`{{{a}}}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
            );
        };
        while let Some(open) = rest.find('{') {
            if open > 0 {
                pieces.push(Piece::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                bad(
                    format!("unclosed `{{` in {role} naming pattern `{text}`"),
                    diags,
                );
                return None;
            };
            let inner = &rest[open + 1..open + close];
            let (name, width) = match inner.split_once(':') {
                Some((n, w)) => match w.parse::<usize>() {
                    Ok(w) if w <= 9 => (n, w),
                    _ => {
                        bad(
                            format!(
                                "bad width `{w}` in placeholder `{{{inner}}}`; write e.g. `{{{n}:02}}`"
                            ),
                            diags,
                        );
                        return None;
                    }
                },
                None => (inner, 0),
            };
            let Some(field) = ALL_FIELDS
                .iter()
                .find(|f| **f == name)
                .filter(|f| allowed.contains(f))
            else {
                bad(
                    format!("placeholder `{{{name}}}` is not available in a {role} name"),
                    diags,
                );
                return None;
            };
            pieces.push(Piece::Field { name: field, width });
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        Some(Pattern { pieces })
    }

    pub fn render(&self, f: &Fields<'_>) -> String {
        use std::fmt::Write;
        let mut out = String::with_capacity(24);
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Field {
                    name: "cluster", ..
                } => out.push_str(f.cluster),
                Piece::Field { name, width } => {
                    let v = match *name {
                        "su" => f.su,
                        "slot" => f.slot,
                        "node" => f.node,
                        "plane" => f.plane,
                        "leaf" => f.leaf,
                        "rail" => f.rail,
                        "group" => f.group,
                        "rack" => f.rack,
                        "tray" => f.tray,
                        _ => f.index,
                    };
                    let _ = write!(out, "{:0width$}", v.unwrap_or(0), width = *width);
                }
            }
        }
        out
    }
}

/// The parsed naming pattern of every role, with the span it came from.
pub struct Names {
    by_role: BTreeMap<Role, (Pattern, Option<Span>)>,
}

impl Names {
    pub fn for_role(&self, role: Role) -> &Pattern {
        &self.by_role[&role].0
    }

    pub fn span(&self, role: Role) -> Option<Span> {
        self.by_role.get(&role).and_then(|p| p.1)
    }
}

/// A role, the spec's pattern for it, the default, and the placeholders beyond the common ones.
type RoleNaming<'a> = (Role, &'a Option<Sp<String>>, &'a str, &'a [&'a str]);

/// Every role's pattern: the spec's, else the default; `None` when one does not parse (each
/// reported).
pub fn patterns(spec: &ClusterSpec, sizing: &Sizing, diags: &mut Diagnostics) -> Option<Names> {
    let n = &spec.naming;
    let planes = sizing.compute.planes;
    let three = sizing.compute.tiers == 3;
    let access_three = |a: &Option<AccessPlan>| a.as_ref().is_some_and(|a| a.tiers == 3);
    let common = ["cluster", "index"];
    // Rack parts are named by their rack, padded like the rack names (`rack01`, `rack128`).
    let racks = sizing.domains.as_ref().map_or(1, |d| d.per_su * sizing.sus);
    let w = racks.max(1).to_string().len().max(2);
    let (nvsw, psu) = (
        format!("rack{{rack:0{w}}}-nvsw{{index}}"),
        format!("rack{{rack:0{w}}}-psu{{index}}"),
    );
    let table: [RoleNaming<'_>; 16] = [
        (Role::Node, &n.node, Patterns::NODE, &["su", "slot", "node"]),
        (
            Role::Appliance,
            &n.fabric_manager,
            Patterns::FABRIC_MANAGER,
            &["su"],
        ),
        (
            Role::Leaf,
            &n.leaf,
            Patterns::leaf(planes),
            &["plane", "su", "leaf", "rail"],
        ),
        (
            Role::Spine,
            &n.spine,
            Patterns::spine(planes, three),
            &["plane", "group"],
        ),
        (
            Role::Core,
            &n.core,
            Patterns::core(planes),
            &["plane", "group"],
        ),
        (
            Role::StorageLeaf,
            &n.storage_leaf,
            Patterns::STORAGE_LEAF,
            &["group"],
        ),
        (
            Role::StorageSpine,
            &n.storage_spine,
            Patterns::storage_spine(access_three(&sizing.storage)),
            &["group"],
        ),
        (
            Role::StorageCore,
            &n.storage_core,
            Patterns::STORAGE_CORE,
            &["group"],
        ),
        (
            Role::InbandLeaf,
            &n.inband_leaf,
            Patterns::INBAND_LEAF,
            &["group"],
        ),
        (
            Role::InbandSpine,
            &n.inband_spine,
            Patterns::inband_spine(access_three(&sizing.inband)),
            &["group"],
        ),
        (
            Role::InbandCore,
            &n.inband_core,
            Patterns::INBAND_CORE,
            &["group"],
        ),
        (Role::OobLeaf, &n.oob, Patterns::OOB, &["su"]),
        (Role::OobCore, &n.oob_core, Patterns::OOB_CORE, &[]),
        (Role::OobGateway, &n.oob_gateway, Patterns::OOB_GATEWAY, &[]),
        (
            Role::NvlinkSwitchTray,
            &n.nvlink_switch_tray,
            &nvsw,
            &["su", "rack"],
        ),
        (Role::PowerShelf, &n.power_shelf, &psu, &["su", "rack"]),
    ];
    let mut by_role = BTreeMap::new();
    let rack_ok = rack_placeholders(spec, sizing, diags);
    let mut ok = rack_ok;
    let rack_scale: &[&str] = if sizing.domains.is_some() {
        &["rack", "tray"]
    } else {
        &[]
    };
    for (role, given, default, extra) in table {
        if role == Role::Node && !rack_ok {
            continue;
        }
        let own = if role == Role::Node { rack_scale } else { &[] };
        let allowed: Vec<&str> = common.iter().chain(extra).chain(own).copied().collect();
        let (text, span) = given
            .as_ref()
            .map_or((default, None), |g| (g.value.as_str(), g.span));
        match Pattern::parse(text, &allowed, span, role.as_str(), diags) {
            Some(p) => {
                by_role.insert(role, (p, span));
            }
            None => ok = false,
        }
    }
    ok.then_some(Names { by_role })
}

/// `{rack}` / `{tray}` in the node pattern of a model that has no racks: said once, with the
/// reason, before the generic pattern check would call the placeholder unknown.
fn rack_placeholders(spec: &ClusterSpec, sizing: &Sizing, diags: &mut Diagnostics) -> bool {
    let Some(p) = &spec.naming.node else {
        return true;
    };
    if sizing.domains.is_some() || !(p.value.contains("{rack") || p.value.contains("{tray")) {
        return true;
    }
    let model = &spec.scalable_units.node_model.value;
    diags.push(
        Diagnostic::error(
            codes::RACK_PLACEHOLDER,
            format!("node pattern `{}` names a rack or tray, but `{model}` is not a rack-scale model", p.value),
        )
        .at(p.span, "no racks to number")
        .help("use `{su}`, `{slot}` or `{node}`; `{rack}` and `{tray}` need a model with `rack_scale` (e.g. `gb200-nvl72-tray`)"),
    );
    false
}

/// A safe device name: letters, digits, `-`, `_`, `.`; not starting with `-` or `.`.
pub fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_padded_fields() {
        let mut d = Diagnostics::default();
        let p = Pattern::parse(
            "leaf-su{su:02}-{leaf:02}",
            &["su", "leaf"],
            None,
            "leaf",
            &mut d,
        )
        .unwrap();
        let f = Fields {
            su: Some(3),
            leaf: Some(4),
            ..Fields::default()
        };
        assert_eq!(p.render(&f), "leaf-su03-04");
    }

    #[test]
    fn rejects_unknown_placeholder() {
        let mut d = Diagnostics::default();
        assert!(Pattern::parse("x{rack}", &["su"], None, "leaf", &mut d).is_none());
        assert!(d.has_errors());
    }

    #[test]
    fn unsafe_names() {
        assert!(is_safe_name("leaf-su01-01"));
        assert!(!is_safe_name("leaf/01"));
        assert!(!is_safe_name("leaf 01"));
        assert!(!is_safe_name("leaf;rm"));
        assert!(!is_safe_name("-x"));
    }
}
