//! The isolation proof, as checks with diagnostics: identities unique, no VNI, VLAN, RT or PKey
//! shared, values inside their ranges, and an RT import/export graph in which two tenants are
//! joined only through a declared shared service.

use std::collections::{BTreeMap, BTreeSet};

use super::{MAX_PKEY, MAX_VLAN, MAX_VNI, TenantPlan, names};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::spec::ClusterSpec;
use crate::topology::is_safe_name;

/// Names and ids: safe VRF names of at most 15 characters, unique across tenants and services.
pub fn identities(spec: &ClusterSpec, diags: &mut Diagnostics) {
    let mut names_seen: BTreeMap<&str, Option<Span>> = BTreeMap::new();
    let mut ids_seen: BTreeMap<u32, &str> = BTreeMap::new();
    let all = spec
        .tenants
        .iter()
        .map(|t| (&t.name, &t.id))
        .chain(spec.shared_services.iter().map(|s| (&s.name, &s.id)));
    for (name, id) in all {
        let n = name.value.as_str();
        // `mgmt` and `default` are VRFs every switch already has.
        let reserved = matches!(n, "mgmt" | "default" | "management");
        if reserved || !is_safe_name(n) || n.len() > 15 || n.contains('.') {
            diags.push(
                Diagnostic::error(
                    codes::TENANT_NAME,
                    format!("tenant or service name `{n}` cannot be a VRF name"),
                )
                .at(name.span, "VRF name")
                .help("use letters, digits, `-` and `_`, at most 15 characters (a Linux interface name), not `mgmt` or `default`"),
            );
        }
        if names_seen.insert(n, name.span).is_some() {
            diags.push(
                Diagnostic::error(
                    codes::TENANT_DUPLICATE,
                    format!("name `{n}` is declared twice"),
                )
                .at(name.span, "second declaration")
                .help("tenant and shared-service names are VRF names and must be unique"),
            );
        }
        if id.value == 0 || id.value > 4000 {
            diags.push(
                Diagnostic::error(
                    codes::TENANT_DUPLICATE,
                    format!("`{n}` has id {}, outside 1–4000", id.value),
                )
                .at(id.span, "id")
                .help("ids are stable identities from 1 to 4000"),
            );
        } else if let Some(first) = ids_seen.insert(id.value, n) {
            diags.push(
                Diagnostic::error(
                    codes::TENANT_DUPLICATE,
                    format!("id {} is used by `{first}` and `{n}`", id.value),
                )
                .at(id.span, "second use")
                .help("every tenant and shared service needs its own id; ids never change once assigned"),
            );
        }
    }
}

/// Ranges and collisions of VNIs, VLANs, RTs and PKeys.
pub fn values(spec: &ClusterSpec, plan: &TenantPlan, diags: &mut Diagnostics) {
    let span_of = |name: &str, pick: &dyn Fn(&crate::spec::TenantSpec) -> Option<Span>| {
        spec.tenants
            .iter()
            .find(|t| t.name.value == name)
            .and_then(|t| pick(t).or(t.name.span))
    };
    let max_id = plan
        .tenants
        .iter()
        .map(|t| t.id)
        .chain(plan.shared_services.iter().map(|s| s.id))
        .max()
        .unwrap_or(0);
    let exhausted = |what: &str, base: u32, max: u32, span: Option<Span>| {
        Diagnostic::error(
            codes::TENANT_RANGE,
            format!(
                "{what} base {base} + the highest id {max_id} = {} exceeds {max}",
                u64::from(base) + u64::from(max_id)
            ),
        )
        .at(span, "base")
        .help(format!(
            "lower the base to at most {}",
            max.saturating_sub(max_id)
        ))
    };
    let t = &spec.tenancy;
    if t.l3vni_base.value.saturating_add(max_id) > MAX_VNI {
        diags.push(exhausted(
            "VNI",
            t.l3vni_base.value,
            MAX_VNI,
            t.l3vni_base.span,
        ));
    }
    if t.vlan_base.value.saturating_add(max_id) > MAX_VLAN {
        diags.push(exhausted(
            "VLAN",
            t.vlan_base.value,
            MAX_VLAN,
            t.vlan_base.span,
        ));
    }
    if plan.tenants.iter().any(|x| x.pkey.is_some())
        && t.pkey_base.value.saturating_add(max_id) > MAX_PKEY
    {
        diags.push(exhausted(
            "PKey",
            t.pkey_base.value,
            MAX_PKEY,
            t.pkey_base.span,
        ));
    }
    type Key = (&'static str, String);
    let mut owners: BTreeMap<Key, BTreeSet<&str>> = BTreeMap::new();
    for x in &plan.tenants {
        owners
            .entry(("VNI", x.l3vni.to_string()))
            .or_default()
            .insert(&x.name);
        owners
            .entry(("VLAN", x.vlan.to_string()))
            .or_default()
            .insert(&x.name);
        owners
            .entry(("route target", x.route_target.clone()))
            .or_default()
            .insert(&x.name);
        if let Some(p) = &x.pkey {
            owners
                .entry(("PKey", p.clone()))
                .or_default()
                .insert(&x.name);
        }
        let explicit = spec
            .tenants
            .iter()
            .find(|t| t.name.value == x.name)
            .is_some_and(|t| t.vni.is_some() || t.vlan.is_some());
        if explicit && (x.l3vni == 0 || x.l3vni > MAX_VNI || x.vlan < 2 || x.vlan > MAX_VLAN) {
            diags.push(
                Diagnostic::error(
                    codes::TENANT_RANGE,
                    format!("tenant `{}` gets VNI {} / VLAN {}: VNIs run 1–{MAX_VNI}, VLANs 2–{MAX_VLAN}", x.name, x.l3vni, x.vlan),
                )
                .at(span_of(&x.name, &|t| t.vni.as_ref().and_then(|v| v.span).or(t.vlan.as_ref().and_then(|v| v.span))), "value")
                .help("pick values inside the ranges"),
            );
        }
    }
    for s in &plan.shared_services {
        owners
            .entry(("route target", s.route_target.clone()))
            .or_default()
            .insert(&s.name);
    }
    collisions(spec, plan, owners, diags);
}

/// Values two tenants (or services) share, each once.
fn collisions(
    spec: &ClusterSpec,
    plan: &TenantPlan,
    owners: BTreeMap<(&'static str, String), BTreeSet<&str>>,
    diags: &mut Diagnostics,
) {
    let span_of = |name: &str, pick: &dyn Fn(&crate::spec::TenantSpec) -> Option<Span>| {
        spec.tenants
            .iter()
            .find(|t| t.name.value == name)
            .and_then(|t| pick(t).or(t.name.span))
    };
    // A value derived from an id that two tenants share is a consequence of that duplicate id
    // (reported above, RY0802): one cause, one error.
    let id_of = |name: &str| {
        plan.tenants
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.id)
            .or_else(|| {
                plan.shared_services
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| s.id)
            })
    };
    let explicit = |name: &str, what: &str| {
        spec.tenants
            .iter()
            .find(|t| t.name.value == name)
            .is_some_and(|t| match what {
                "VNI" => t.vni.is_some(),
                "VLAN" => t.vlan.is_some(),
                "route target" => t.route_target.is_some(),
                _ => false,
            })
    };
    let follows_from_one_id = |what: &str, who: &BTreeSet<&str>| {
        let ids: BTreeSet<Option<u32>> = who.iter().map(|n| id_of(n)).collect();
        ids.len() == 1 && !who.iter().any(|n| explicit(n, what))
    };
    for ((what, value), who) in owners {
        if who.len() > 1 && !follows_from_one_id(what, &who) {
            let last = who.iter().last().copied().unwrap_or_default();
            diags.push(
                Diagnostic::error(
                    codes::TENANT_COLLISION,
                    format!("{what} {value} is shared by {}", names(&who)),
                )
                .at(span_of(last, &|t| match what {
                    "VNI" => t.vni.as_ref().and_then(|v| v.span),
                    "VLAN" => t.vlan.as_ref().and_then(|v| v.span),
                    _ => t.route_target.as_ref().and_then(|v| v.span),
                }), "collides")
                .help("each tenant needs its own value; drop the explicit value to derive it from the id"),
            );
        }
    }
}

/// The RT graph: a tenant's routes reach every VRF that imports an RT the tenant exports. Two
/// tenants must never reach each other except through a shared service both declared.
pub fn route_targets(spec: &ClusterSpec, plan: &TenantPlan, diags: &mut Diagnostics) {
    for a in &plan.tenants {
        for b in &plan.tenants {
            if a.name == b.name {
                continue;
            }
            // An RT both export is a collision (reported there); a leak is a foreign RT imported.
            let leaked: Vec<&String> = a
                .export
                .iter()
                .filter(|rt| b.import.contains(rt) && !b.export.contains(rt))
                .collect();
            if !leaked.is_empty() {
                let span = spec
                    .tenants
                    .iter()
                    .find(|t| t.name.value == b.name)
                    .and_then(|t| t.route_target.as_ref().and_then(|r| r.span).or(t.name.span));
                diags.push(
                    Diagnostic::error(
                        codes::TENANT_LEAK,
                        format!(
                            "tenant `{}` imports route target(s) {leaked:?} that tenant `{}` exports: their routes would leak",
                            b.name, a.name
                        ),
                    )
                    .at(span, "leaking import")
                    .help("give every tenant its own route target; share through a declared shared service instead"),
                );
            }
        }
    }
}
