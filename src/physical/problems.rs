//! What the solver could not build, reported once per kind of link (the same models, tier and
//! reason), located at the spec key that chose the upper switch model, with the first cable as
//! the example and how many more are like it.

use std::collections::BTreeMap;

use super::Inputs;
use super::signal;
use crate::diag::{Code, Diagnostic, Diagnostics, Span, codes};
use crate::model::{FibreMedia, Network, Tier};
use crate::topology::DeviceId;

#[derive(Default)]
pub(crate) struct Problems {
    /// (code, kind of link, reason) → (first link, count, message, help).
    found: BTreeMap<(&'static str, String, String), Found>,
    /// (an example link, message) of each warning.
    warnings: Vec<(usize, String)>,
    /// Errors located at a spec key of their own (the part policy, a catalog model), not at a
    /// link's switch model: (span, label, code, message, help).
    at_keys: Vec<Keyed>,
}

pub(crate) struct Keyed {
    pub span: Option<Span>,
    pub label: &'static str,
    pub code: Code,
    pub message: String,
    pub help: String,
}

struct Found {
    code: Code,
    first: usize,
    count: usize,
    message: String,
    help: String,
}

impl Problems {
    /// `why` names no device (it is the same for every link of the kind); the first cable of
    /// the kind is named in front of it.
    fn add(&mut self, code: Code, i: usize, input: &Inputs<'_>, why: String, help: String) {
        let l = input.links.get(i).copied();
        let kind = l.map_or_else(String::new, |l| {
            let (a, b) = (input.fabric.device_of(&l.a), input.fabric.device_of(&l.b));
            format!("{}/{}/{}/{}", l.tier.as_str(), a.model, b.model, l.speed)
        });
        let e = self
            .found
            .entry((code.id, kind, why.clone()))
            .or_insert(Found {
                code,
                first: i,
                count: 0,
                message: format!("{}: {why}", cable(i, input)),
                help,
            });
        e.count += 1;
    }

    pub fn no_signal(&mut self, i: usize, input: &Inputs<'_>) {
        let Some(l) = input.links.get(i).copied() else {
            return;
        };
        let (a, b) = &input.ends[i];
        let cages = &input.cages;
        let (ca, cb) = (&cages.all[a.cage], &cages.all[b.cage]);
        let side = |e: &super::ends::EndCage, end: &crate::topology::End| {
            let n = input.fabric.named(end);
            let c = &cages.all[e.cage];
            let split = if e.ports > 1 {
                format!(", one of {} ports of its cage", e.ports)
            } else {
                String::new()
            };
            format!(
                "the {} end is a {} ({}{split})",
                n.device.role.as_str(),
                cages.names[e.cage],
                signal::describe(c, e.lanes(cages))
            )
        };
        let why = format!(
            "{}; {}: no lane rate carries {} on both ends, so the link cannot come up",
            side(a, &l.a),
            side(b, &l.b),
            l.speed
        );
        let mut fixes = Vec::new();
        for (e, c) in [(a, ca), (b, cb)] {
            if e.ports > 1 {
                let other = if std::ptr::eq(c, ca) {
                    (cb, b)
                } else {
                    (ca, a)
                };
                if let Some(s) =
                    signal::agree(l.speed, (c, c.lanes), (other.0, other.1.lanes(cages)))
                {
                    fixes.push(format!(
                        "run the {} unsplit at {} ({s})",
                        cages.names[e.cage], l.speed
                    ));
                }
            }
        }
        fixes.push("or choose a NIC or switch model that runs the other end's lane rate".into());
        self.add(codes::LINK_SIGNAL, i, input, why, fixes.join(", "));
    }

    pub fn no_part(&mut self, i: usize, why: &str, input: &Inputs<'_>) {
        let why = why.to_string();
        let help = "add a part that fits under `catalog:` (modules, assemblies, fibres), or change `physical:`".into();
        self.add(codes::LINK_NO_PART, i, input, why, help);
    }

    pub fn no_module(&mut self, i: usize, a_side: bool, media: FibreMedia, input: &Inputs<'_>) {
        let Some(l) = input.links.get(i).copied() else {
            return;
        };
        let (a, b) = &input.ends[i];
        let (e, end) = if a_side { (a, &l.a) } else { (b, &l.b) };
        let role = input.fabric.device_of(end).role.as_str();
        let c = &input.cages.all[e.cage];
        let lock = c
            .vendor_lock
            .as_ref()
            .map_or(String::new(), |v| format!(", {v} optics only"));
        let why = format!(
            "no {media} module in the catalog fits the {role} end ({}, {} top, {}{lock}) at {}",
            input.cages.names[e.cage],
            c.top,
            signal::describe(c, e.lanes(&input.cages)),
            l.speed
        );
        let help =
            "add the module under `catalog: {modules: …}` with its source, or change `physical:`"
                .into();
        self.add(codes::LINK_NO_PART, i, input, why, help);
    }

    /// `run`: the whole channel, the routed run plus any patch cords its panels add.
    pub fn too_long(&mut self, i: usize, run: f64, reach: f64, input: &Inputs<'_>) {
        let route = input.links.get(i).copied().map_or(0.0, |l| l.route_m);
        let why = if run > route + 1e-9 {
            format!(
                "the run is {route} m plus {} m of patch cords at its panels, the modules that fit reach {reach} m",
                run - route
            )
        } else {
            format!("the run is {route} m, the modules that fit reach {reach} m")
        };
        let help =
            "place the devices closer (`racks:`), or add a longer-reach module to `catalog:`"
                .into();
        self.add(codes::LINK_TOO_LONG, i, input, why, help);
    }

    /// Modules of another vendor in an Arista switch (EOS keeps them down unless unlocked):
    /// one warning per switch model.
    pub fn third_party(&mut self, input: &Inputs<'_>, plan: &super::PhysicalPlan) {
        let mut seen: BTreeMap<String, (DeviceId, usize)> = BTreeMap::new();
        let foreign: Vec<bool> = plan
            .module_parts
            .iter()
            .map(|p| {
                input
                    .catalog
                    .modules
                    .get(&p.part)
                    .is_some_and(|m| m.vendor.as_str() != "Arista")
            })
            .collect();
        for m in &plan.modules {
            if !foreign[m.part as usize] {
                continue;
            }
            let d = input.fabric.device(m.device);
            let Some(sm) = input.fabric.switch_model(d) else {
                continue;
            };
            if sm.vendor.as_str() == "Arista" {
                match seen.get_mut(d.model.as_str()) {
                    Some(e) => e.1 += 1,
                    None => {
                        seen.insert(d.model.to_string(), (m.device, 1));
                    }
                }
            }
        }
        for (model, (device, n)) in seen {
            let i = input
                .ends
                .iter()
                .position(|(a, b)| a.device == device || b.device == device)
                .unwrap_or(0);
            self.warnings.push((
                i,
                format!(
                    "{n} non-Arista modules planned in `{model}` cages: EOS keeps unsupported \
                     transceivers down unless told otherwise"
                ),
            ));
        }
    }

    /// An error at a spec key of its own.
    pub fn at_key(&mut self, k: Keyed) {
        self.at_keys.push(k);
    }

    /// `physical.parts: vendor-only`: every part the plan orders whose number rests on a
    /// third-party listing is refused, once per part, at the policy key, naming the listing's
    /// link (issue #42).
    pub fn vendor_only(&mut self, input: &Inputs<'_>, plan: &super::PhysicalPlan) {
        let policy = &input.spec.physical.parts;
        if policy.value != crate::spec::PartsPolicy::VendorOnly {
            return;
        }
        let third = |s: &super::Source| s.kind == Some(crate::catalog::SourceKind::ThirdParty);
        let mut refused: BTreeMap<String, (String, usize)> = BTreeMap::new();
        let mut refuse = |part: &str, link: &str| {
            refused
                .entry(part.to_string())
                .or_insert_with(|| (link.to_string(), 0))
                .1 += 1;
        };
        for m in &plan.modules {
            if let Some(p) = plan.part_of(m).filter(|p| third(&p.source)) {
                refuse(p.part.as_str(), p.source.link.as_str());
            }
        }
        for c in plan.ordered_cords().chain(
            plan.panel_cords
                .iter()
                .filter_map(|k| plan.cord_parts.get(*k as usize)),
        ) {
            if third(&c.source) {
                refuse(c.part.as_str(), c.source.link.as_str());
            }
        }
        for (part, (link, n)) in refused {
            self.at_keys.push(Keyed {
                span: policy.span,
                label: "the plan may order only vendor-sourced parts",
                code: codes::THIRD_PARTY_PART_REFUSED,
                message: format!(
                    "part `{part}` ({n} ordered) rests on a third-party listing ({link}), which \
                     `physical.parts: vendor-only` refuses"
                ),
                help: "confirm the part number with the vendor and declare the part under \
                       `catalog:` with the vendor's page as its source, or drop `vendor-only`"
                    .into(),
            });
        }
    }

    pub fn report(self, input: &Inputs<'_>, diags: &mut Diagnostics) {
        for k in self.at_keys {
            diags.push(
                Diagnostic::error(k.code, k.message)
                    .at(k.span, k.label)
                    .help(k.help),
            );
        }
        for (i, message) in &self.warnings {
            let (span, label) = span_for(input, *i);
            diags.push(
                Diagnostic::warning(codes::THIRD_PARTY_OPTICS, message.clone())
                    .at(span, label)
                    .help("order Arista optics of the same standard (catalog `modules`, `optics_vendor: Arista`), or plan `service unsupported-transceiver`"),
            );
        }
        for f in self.found.into_values() {
            let more = match f.count {
                1 => String::new(),
                n => format!(" ({} more like it)", n - 1),
            };
            let (span, label) = span_for(input, f.first);
            diags.push(
                Diagnostic::error(f.code, format!("{}{more}", f.message))
                    .at(span, label)
                    .help(f.help),
            );
        }
    }
}

fn cable(i: usize, input: &Inputs<'_>) -> String {
    input.links.get(i).copied().map_or_else(String::new, |l| {
        let (a, b) = (input.fabric.named(&l.a), input.fabric.named(&l.b));
        format!(
            "cable `{}` ({}:{} – {}:{}, {}, {} m)",
            l.cable_id, a.device.name, a.port_name, b.device.name, b.port_name, l.speed, l.route_m
        )
    })
}

/// The spec key that chose the link's upper switch model.
fn span_for(input: &Inputs<'_>, i: usize) -> (Option<Span>, &'static str) {
    let spec = input.spec;
    let Some(l) = input.links.get(i).copied() else {
        return (None, "");
    };
    let access = |s: Option<&crate::spec::AccessSpec>| s.map(|s| s.leaf.model.span);
    let span = match (l.network, l.tier) {
        (_, Tier::Mgmt | Tier::OobUplink) | (Network::Oob, _) => Some(spec.oob.model.span),
        (Network::Compute, Tier::NodeLeaf) => Some(spec.compute.leaf.model.span),
        (Network::Compute, Tier::SpineCore) => spec
            .compute
            .core
            .as_ref()
            .map(|c| c.model.span)
            .or(Some(spec.compute.spine.model.span)),
        (Network::Compute, _) => Some(spec.compute.spine.model.span),
        (Network::Storage, _) => access(spec.storage.as_ref()),
        (Network::Inband, _) => spec
            .inband
            .as_ref()
            .and_then(|s| s.leaf.as_ref().map(|l| l.model.span)),
    };
    match span.flatten() {
        Some(s) => (Some(s), "this model's cables"),
        // The OOB model left at its default is written nowhere: point at the fabric's leaves.
        None => (
            spec.compute.leaf.model.span,
            "cables of this fabric (the OOB switches are the default model)",
        ),
    }
}
