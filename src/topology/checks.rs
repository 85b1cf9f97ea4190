//! Checks on the spec's own catalog entries and on the expanded graph: names, labels, unused
//! ports, what the expansion could not place.

use std::collections::BTreeMap;

use super::builder::Problems;
use super::naming::{Names, is_safe_name};
use super::platforms::role_model_span;
use super::{Fabric, PortId};
use crate::catalog::Catalog;
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::Role;
use crate::spec::ClusterSpec;

/// Sanity of the spec's own catalog entries (the built-ins are tested).
pub fn catalog(own: &Catalog, spans: &BTreeMap<String, Span>, diags: &mut Diagnostics) {
    let at = |kind: &str, name: &str| spans.get(&format!("{kind}.{name}")).copied();
    for (name, m) in &own.switches {
        let mut next = 1;
        for g in &m.port_groups {
            let mut problem = None;
            if g.first != next || g.count == 0 {
                problem = Some(format!(
                    "port groups must number cages 1, 2, … without gaps; a group starts at {} (expected {next})",
                    g.first
                ));
            }
            for b in &g.breakouts {
                let ok = b.split_once('x').and_then(|(n, s)| {
                    Some((
                        n.parse::<u32>().ok()?,
                        s.parse::<crate::model::Speed>().ok()?,
                    ))
                });
                match ok {
                    Some((n, s)) if n >= 1 && n * s.as_gbps() <= g.speed.as_gbps() => {}
                    _ => problem = Some(format!("breakout `{b}` does not fit a {} cage", g.speed)),
                }
            }
            if let Some(p) = problem {
                diags.push(
                    Diagnostic::error(
                        codes::BAD_CATALOG_ENTRY,
                        format!("switch model `{name}`: {p}"),
                    )
                    .at(at("switches", name), "this model")
                    .help("fix the entry under `catalog.switches`"),
                );
            }
            next = g.first + g.count;
        }
        if m.port_groups.is_empty() {
            diags.push(
                Diagnostic::error(
                    codes::BAD_CATALOG_ENTRY,
                    format!("switch model `{name}` has no port groups"),
                )
                .at(at("switches", name), "this model")
                .help("list its cages under `port_groups`"),
            );
        }
    }
    for (name, m) in &own.nodes {
        if m.compute
            .iter()
            .chain(&m.storage)
            .chain(&m.inband)
            .any(|p| p.ports.is_empty())
        {
            diags.push(
                Diagnostic::error(
                    codes::BAD_CATALOG_ENTRY,
                    format!("node model `{name}` has a NIC without port names"),
                )
                .at(at("nodes", name), "this model")
                .help("give every NIC at least one entry under `ports`"),
            );
        }
    }
}

fn names_span(spec: &ClusterSpec, names_by_role: &Names, role: Role) -> Option<Span> {
    names_by_role.span(role).or(spec.name.span)
}

pub fn fabric(
    spec: &ClusterSpec,
    f: &Fabric,
    names: &Names,
    problems: &Problems,
    diags: &mut Diagnostics,
) {
    let double_used = &problems.double_used;
    if let Some((switches, ports)) = problems.gateway_overflow {
        let g = &spec.oob.gateway;
        let model = g.model.as_ref().unwrap_or(&spec.oob.model);
        diags.push(
            Diagnostic::error(
                codes::OOB_GATEWAY_PORTS,
                format!(
                    "the OOB gateway (`{}`) has {ports} ports at {} for {switches} OOB switch uplinks",
                    model.value, spec.oob.uplink_speed.value
                ),
            )
            .at(model.span, "too few gateway ports")
            .help(format!(
                "declare `oob.gateway.model` with at least {switches} ports at {} (`sn5400` splits its 64 cages 4x10G; a modular chassis at very large sizes)",
                spec.oob.uplink_speed.value
            )),
        );
    }
    // Duplicate and unsafe device names, reported once per role.
    let mut seen: BTreeMap<&str, Role> = BTreeMap::new();
    let mut dup_roles: BTreeMap<Role, (usize, String)> = BTreeMap::new();
    let mut unsafe_roles: BTreeMap<Role, String> = BTreeMap::new();
    for d in f.devices() {
        if seen.insert(&d.name, d.role).is_some() {
            let e = dup_roles.entry(d.role).or_insert((0, d.name.clone()));
            e.0 += 1;
        }
        if !is_safe_name(&d.name) {
            unsafe_roles.entry(d.role).or_insert_with(|| d.name.clone());
        }
    }
    for (role, (count, example)) in dup_roles {
        diags.push(
            Diagnostic::error(codes::DUPLICATE_NAME, format!("{count} {} name(s) collide, e.g. `{example}`", role.as_str()))
                .at(names_span(spec, names, role), "pattern does not tell devices apart")
                .help("add the placeholders that distinguish devices of this role (`{su}`, `{leaf}`, `{plane}`, `{group}`, `{index}`)"),
        );
    }
    for (role, example) in unsafe_roles {
        diags.push(
            Diagnostic::error(
                codes::BAD_NAME,
                format!(
                    "{} name `{example}` contains characters unsafe in file names or shells",
                    role.as_str()
                ),
            )
            .at(names_span(spec, names, role), "unsafe characters")
            .help("use letters, digits, `-`, `_` and `.` only"),
        );
    }
    for (dev, port) in double_used.iter().take(5) {
        diags.push(
            Diagnostic::error(
                codes::BAD_CATALOG_ENTRY,
                format!("port {port:?} of `{dev}` would carry two cables"),
            )
            .help("check the port groups of the switch model"),
        );
    }
    // Labels must stay under 100 characters (NetBox `Cable.label`).
    if let Some(link) = f.links().find(|l| f.label_len(l) >= 100) {
        diags.push(
            Diagnostic::error(
                codes::LABEL_TOO_LONG,
                format!(
                    "cable label `{}` is {} characters",
                    f.label(link),
                    f.label(link).len()
                ),
            )
            .at(spec.name.span, "names too long")
            .help("shorten the naming patterns so labels stay under 100 characters"),
        );
    }
    unused_ports(spec, f, diags);
}

fn unused_ports(spec: &ClusterSpec, f: &Fabric, diags: &mut Diagnostics) {
    // role → (switches, ports in the groups the role uses, model)
    let mut by_role: BTreeMap<Role, (u32, u32, String)> = BTreeMap::new();
    for d in f.devices().filter(|d| d.role.is_switch()) {
        let Some(m) = f.switch_model(d) else { continue };
        let mut total = 0u32;
        for g in &m.port_groups {
            let cages = &d.cage_lanes[(g.first - 1) as usize..(g.first - 1 + g.count) as usize];
            if cages.iter().all(|l| *l == 0) {
                continue; // a group the role does not use at all (e.g. OOB uplinks)
            }
            let lanes = cages.iter().copied().filter(|l| *l > 0).max().unwrap_or(1);
            total += g.count * u32::from(lanes);
        }
        let e = by_role.entry(d.role).or_insert((0, 0, d.model.clone()));
        e.0 += 1;
        e.1 += total;
    }
    let mut used: BTreeMap<Role, u32> = BTreeMap::new();
    for l in f.links() {
        for end in [&l.a, &l.b] {
            let d = f.device_of(end);
            if d.role.is_switch() && end.port != PortId::Mgmt {
                *used.entry(d.role).or_default() += 1;
            }
        }
    }
    for (role, (switches, total, model)) in by_role {
        let u = used.get(&role).copied().unwrap_or(0);
        if total > u {
            // A model railyard chose (the role's default, not written in the spec) has spare
            // ports by its sizing; the advice to pick a smaller model is about the user's choice.
            let Some(span) = role_model_span(spec, role) else {
                continue;
            };
            let span = Some(span);
            diags.push(
                // Advisory: spare ports are most often room to grow (info, not a warning).
                Diagnostic::info(
                    codes::UNUSED_PORTS,
                    format!(
                        "{} of {total} ports unused on {switches} {} switch(es) (`{model}`)",
                        total - u,
                        role.as_str()
                    ),
                )
                .at(span, "spare ports")
                .help("spare ports are room to grow; use a smaller model if they are not wanted"),
            );
        }
    }
}
