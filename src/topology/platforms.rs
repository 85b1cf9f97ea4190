//! Which network OS each switch runs: the spec's choice for its role, else its model's own OS;
//! and where the spec chose a role's model, which the findings about a model point at.
//! The choice belongs to the graph because port names depend on it (SONiC and EOS number ports
//! their own way).

use crate::catalog::Catalog;
use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::model::{Platform, Role, Transport};
use crate::spec::ClusterSpec;

fn transport(spec: &ClusterSpec, role: Role) -> Transport {
    match role {
        Role::Leaf | Role::Spine | Role::Core => spec.compute.transport,
        Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => spec
            .storage
            .as_ref()
            .map_or(Transport::Ethernet, |s| s.transport),
        _ => Transport::Ethernet,
    }
}

/// Where the spec names the switch model of a role (`compute.leaf.model`, `oob.model`, …);
/// `None` when the role runs railyard's default model.
pub(super) fn role_model_span(spec: &ClusterSpec, role: Role) -> Option<Span> {
    let storage = spec.storage.as_ref();
    let inband = spec.inband.as_ref();
    match role {
        Role::Leaf => Some(&spec.compute.leaf.model),
        Role::Spine => Some(&spec.compute.spine.model),
        Role::Core => spec.compute.core.as_ref().map(|c| &c.model),
        Role::StorageLeaf => storage.map(|s| &s.leaf.model),
        Role::StorageSpine => storage.and_then(|s| s.spine.as_ref()).map(|s| &s.model),
        Role::StorageCore => storage.and_then(|s| s.core.as_ref()).map(|s| &s.model),
        Role::InbandLeaf => inband.and_then(|s| s.leaf.as_ref()).map(|s| &s.model),
        Role::InbandSpine => inband.and_then(|s| s.spine.as_ref()).map(|s| &s.model),
        Role::InbandCore => inband.and_then(|s| s.core.as_ref()).map(|s| &s.model),
        Role::OobLeaf | Role::OobCore => Some(&spec.oob.model),
        Role::OobGateway => spec.oob.gateway.model.as_ref().or(Some(&spec.oob.model)),
        Role::Node | Role::Appliance | Role::NvlinkSwitchTray | Role::PowerShelf => None,
    }
    .and_then(|m| m.span)
}

/// The OS of a switch; `None` for InfiniBand switches (managed by the subnet manager) and for
/// nodes.
pub fn choose(spec: &ClusterSpec, catalog: &Catalog, role: Role, model: &str) -> Option<Platform> {
    if !role.is_switch() || transport(spec, role) == Transport::Infiniband {
        return None;
    }
    // OOB switches follow `platforms.oob`, not `default`: the management network is often another
    // vendor's or another OS than the fabrics.
    if role.is_oob() {
        return spec
            .platforms
            .oob
            .as_ref()
            .map(|p| p.value)
            .or_else(|| catalog.switches.get(model).and_then(|m| m.os));
    }
    spec.platforms
        .for_role(role)
        .map(|p| p.value)
        .or_else(|| catalog.switches.get(model).and_then(|m| m.os))
}

/// A platform named for an InfiniBand role is a mistake: those switches take no config file.
pub fn check(spec: &ClusterSpec, diags: &mut Diagnostics) {
    let roles = [
        (Role::Leaf, spec.platforms.leaf.as_ref()),
        (Role::Spine, spec.platforms.spine.as_ref()),
        (Role::Core, spec.platforms.core.as_ref()),
        (Role::StorageLeaf, spec.platforms.storage.as_ref()),
    ];
    for (role, choice) in roles {
        if let Some(p) = choice
            && transport(spec, role) == Transport::Infiniband
        {
            diags.push(
                Diagnostic::error(
                    codes::PLATFORM_ON_INFINIBAND,
                    format!(
                        "`{}` switches are InfiniBand; they run no `{}` configuration",
                        role.as_str(),
                        p.value
                    ),
                )
                .at(p.span, "InfiniBand role")
                .help("remove this key: InfiniBand switches are configured by the subnet manager (railyard writes its opensm.conf)"),
            );
        }
    }
}

/// Ethernet switches (other than OOB) that run no known OS get no config: say so once per model.
pub fn check_missing(spec: &ClusterSpec, f: &super::Fabric, diags: &mut Diagnostics) {
    let mut missing: std::collections::BTreeMap<(&str, &str), (u32, Role)> =
        std::collections::BTreeMap::new();
    for d in f.devices() {
        if d.role.is_switch()
            && d.platform.is_none()
            && transport(spec, d.role) == Transport::Ethernet
        {
            missing
                .entry((d.model.as_str(), d.role.as_str()))
                .or_insert((0, d.role))
                .0 += 1;
        }
    }
    for ((model, role), (n, role_id)) in missing {
        // The model's definition in the spec's catalog, else where the spec picks it for the role.
        let span = spec
            .catalog_spans
            .get(&format!("switches.{model}"))
            .copied()
            .or_else(|| role_model_span(spec, role_id));
        let key = match role {
            "storage-leaf" | "storage-spine" | "storage-core" => "storage",
            "inband-leaf" | "inband-spine" | "inband-core" => "inband",
            "oob-leaf" | "oob-core" | "oob-gateway" => "oob",
            other => other,
        };
        diags.push(
            Diagnostic::warning(
                codes::NO_PLATFORM,
                format!("{n} `{role}` switch(es) (`{model}`) run no known OS; no config is rendered for them"),
            )
            .at(span, "no OS known for this model")
            .help(format!("set `platforms: {{{key}: nvue}}` (or sonic, frr, eos) or add `os:` to the `{model}` model")),
        );
    }
}

/// A vendor OS rendered for another vendor's switch (EOS on an NVIDIA box, NVUE on an Arista
/// one) gives files that switch cannot load: warn once per role and model, at the key that chose
/// the OS (the role's `platforms` entry, else the model, whose catalog `os` chose it).
pub fn check_vendor(spec: &ClusterSpec, f: &super::Fabric, diags: &mut Diagnostics) {
    let mut found: std::collections::BTreeMap<(Role, &str, Platform), u32> =
        std::collections::BTreeMap::new();
    for d in f.devices() {
        let Some(p) = d.platform else { continue };
        let (Some(vendor), Some(m)) = (&p.row().vendor, f.catalog.switches.get(&d.model)) else {
            continue;
        };
        if !vendor
            .names
            .iter()
            .any(|v| v.eq_ignore_ascii_case(&m.vendor))
        {
            *found.entry((d.role, d.model.as_str(), p)).or_default() += 1;
        }
    }
    for ((role, model, p), n) in found {
        let vendor = f
            .catalog
            .switches
            .get(model)
            .map_or("another vendor", |m| m.vendor.as_str());
        let Some(own) = &p.row().vendor else { continue };
        let (code, os, native) = (own.code, own.os, own.native);
        let d = Diagnostic::warning(
            code,
            format!(
                "{n} `{}` switch(es) are `{model}` ({vendor}) but get {os} configs: that model does not run {os}",
                role.as_str()
            ),
        );
        let d = match spec.platforms.for_role(role) {
            Some(chosen) => d.at(chosen.span, format!("`{}` chosen here", p.as_str())),
            None => d.at(
                spec.model_span(role),
                format!("the catalog's `os` of this model is `{}`", p.as_str()),
            ),
        };
        diags.push(d.help(format!(
            "use {native} for `{}` switches, or the OS `{model}` runs",
            role.as_str()
        )));
    }
}
