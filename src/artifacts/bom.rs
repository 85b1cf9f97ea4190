//! Bill of materials: switches and nodes by model, transceivers per cage (a twin-port module
//! serves both lanes of a cage), cables by type and length class.
//!
//! Part numbers are given only where NVIDIA LinkX cable and transceiver data sheets sources them; other items carry a description.

use std::collections::BTreeMap;

use super::{ArtifactError, InFile, metres};
use crate::model::{Form, Media, Speed};
use crate::output::csv::{Column, Writer};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{Fabric, PortId};

/// A transceiver kind: the cage form, the rate of each port it serves, how many ports, the fibre.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Optic {
    form: Form,
    port_speed: Speed,
    ports: u32,
    media: Media,
}

fn optic_part(o: Optic) -> (&'static str, String) {
    let reach = if o.media == Media::MmfOm4 {
        "SR4 multimode"
    } else {
        "DR4 single-mode"
    };
    let desc = if o.ports > 1 {
        format!(
            "{} {}x{} twin-port {reach} transceiver",
            o.form.as_str(),
            o.ports,
            o.port_speed
        )
    } else {
        format!("{} {} {reach} transceiver", o.form.as_str(), o.port_speed)
    };
    let part = match (o.form, o.port_speed.as_gbps(), o.ports, o.media) {
        (Form::Osfp, 400, 2, Media::MmfOm4) => "MMA4Z00-NS",
        (Form::Osfp, 400, 2, Media::SmfOs2) => "MMS4X00-NS",
        (Form::Osfp, 400, 1, Media::MmfOm4) => "MMA4Z00-NS400",
        (Form::Osfp, 400, 1, Media::SmfOs2) => "MMS4X00-NS400",
        (Form::Qsfp112, 400, 1, Media::MmfOm4) => "MMA1Z00-NS400",
        _ => "",
    };
    (part, desc)
}

fn cable_part(media: Media, speed: Speed, length: f64) -> (&'static str, String) {
    let len = metres(length);
    match media {
        Media::MmfOm4 => (
            "MFP7E10",
            format!("MPO-12/APC OM4 multimode fibre, straight, {len} m"),
        ),
        Media::SmfOs2 => (
            "MFP7E30",
            format!("MPO-12/APC OS2 single-mode fibre, straight, {len} m"),
        ),
        Media::DacPassive => (
            "",
            format!("{speed} passive copper DAC (per port), {len} m"),
        ),
        Media::Cat6 => ("", format!("Cat6 patch cord, {len} m")),
    }
}

pub fn bom_csv(f: &Fabric) -> Result<OutputFile, ArtifactError> {
    // (category, part, description) → quantity
    let mut items: BTreeMap<(&'static str, String, String), u64> = BTreeMap::new();
    for d in f.devices() {
        let desc = f
            .switch_model(d)
            .map(|m| m.description.to_string())
            .or_else(|| f.node_model(d).map(|m| m.description.to_string()))
            .unwrap_or_else(|| "fabric-manager appliance".into());
        let cat = if d.role.is_switch() { "switch" } else { "node" };
        *items.entry((cat, d.model.clone(), desc)).or_default() += 1;
    }
    // Fibre ends: one module per (device, cage); lanes used decide twin-port or single.
    let mut cages: BTreeMap<(usize, String), (Optic, u32)> = BTreeMap::new();
    for l in f.links() {
        if matches!(l.media, Media::MmfOm4 | Media::SmfOs2) {
            for e in [&l.a, &l.b] {
                let d = f.device_of(e);
                let (form, cage) = match (e.port, f.switch_model(d), f.node_model(d)) {
                    (p @ (PortId::Cage { .. } | PortId::Lane { .. }), Some(m), _) => {
                        let c = p.cage().map_or(0, u32::from);
                        let g = m
                            .port_groups
                            .iter()
                            .find(|g| c >= g.first && c < g.first + g.count);
                        (g.map_or(Form::Osfp, |g| g.form), format!("cage{c}"))
                    }
                    (PortId::Nic(i), _, Some(m)) => {
                        let port_name = f.port_name(d, e.port);
                        let np = m
                            .compute
                            .iter()
                            .chain(&m.storage)
                            .chain(&m.inband)
                            .find(|p| p.ports.iter().any(|n| *n == port_name));
                        (
                            np.map_or(Form::Osfp, |p| p.form),
                            np.and_then(|p| p.cage.as_ref().map(|c| c.to_string()))
                                .unwrap_or_else(|| format!("nic{i}")),
                        )
                    }
                    _ => (Form::Osfp, "appliance".into()),
                };
                let entry = cages.entry((f.device_position(e), cage)).or_insert((
                    Optic {
                        form,
                        port_speed: l.speed,
                        ports: 0,
                        media: l.media,
                    },
                    0,
                ));
                entry.1 += 1;
            }
        }
        let (part, desc) = cable_part(l.media, l.speed, l.length_m);
        *items.entry(("cable", part.to_string(), desc)).or_default() += 1;
    }
    for (_, (mut optic, lanes)) in cages {
        optic.ports = lanes;
        let (part, desc) = optic_part(optic);
        *items
            .entry(("transceiver", part.to_string(), desc))
            .or_default() += 1;
    }
    let mut w = Writer::new(&[
        Column::text("category"),
        Column::text("part"),
        Column::text("description"),
        Column::number("quantity"),
    ]);
    for ((cat, part, desc), q) in items {
        w.row([cat, part.as_str(), desc.as_str(), &q.to_string()]);
    }
    Ok(OutputFile::new(
        OutputGroup::Cabling,
        "bom.csv",
        w.finish().in_file("bom.csv")?,
    ))
}
