//! Bill of materials from the physical plan: switches and nodes by model, every module,
//! cable and fibre by its orderable part number (the length is part of a cable's number), with
//! the spares the spec's `physical.spares_percent` adds (rounded up per part); and
//! `optics-power.csv`, the modules' power per device (what the optics add to a switch's budget).

use std::collections::BTreeMap;

use crate::catalog::SourceKind;
use crate::model::Media;
use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::physical::PhysicalPlan;
use crate::topology::{Fabric, PerDevice};

const COLUMNS: [Column; 8] = [
    Column::text("category"),
    Column::text("part"),
    Column::text("description"),
    Column::number("quantity"),
    Column::number("spares"),
    Column::number("order"),
    // What the part number rests on (catalog `source_kind`), and what the buyer must do about
    // it: a third-party listing is "confirm with the vendor before ordering" (issue #42).
    Column::text("source_kind"),
    Column::text("note"),
];

/// What a cord line says of its number beyond its source kind: a family ordered at the planned
/// length has no orderable number (the catalog lists no lengths for it), and without `racks:`
/// every length is the tier's class length, a placeholder (issue #42).
fn cord_notes(c: &crate::physical::CordPart, placeholder: bool) -> Vec<&'static str> {
    let mut out = Vec::new();
    if c.part == c.family && c.source.kind != Some(SourceKind::Specification) {
        out.push("no orderable number: the family at the planned length (confirm the length code with the vendor)");
    }
    if placeholder {
        out.push("length is a placeholder: the spec has no `racks:`");
    }
    out
}

/// The source columns of a part line: its kind (`spec` for a part the spec declares without
/// one) and the notes: the one the kind asks for, then the line's own.
fn source_cells(kind: Option<SourceKind>, extra: &[&str]) -> (&'static str, String) {
    let notes: Vec<&str> = std::iter::once(SourceKind::bom_note(kind))
        .chain(extra.iter().copied())
        .filter(|n| !n.is_empty())
        .collect();
    (kind.map_or("spec", SourceKind::as_str), notes.join("; "))
}

fn category(m: Media) -> &'static str {
    match m {
        Media::DacPassive | Media::Acc | Media::Aoc => "cable",
        Media::Cat6 => "patch cord",
        Media::MmfOm3 | Media::MmfOm4 | Media::SmfOs2 => "fibre",
    }
}

/// Spares for `q` of a part: `percent` of it, rounded up; none for switches and nodes.
fn spares(q: u64, percent: f64) -> u64 {
    ((q as f64) * percent / 100.0 - 1e-9).ceil().max(0.0) as u64
}

const RACK_NOTE: &str = "a rack-scale system is ordered as racks: the `node` line counts the compute trays inside them and the OOB `switch` line includes the racks' own management switches; do not order those twice";

/// A rack-scale system's order line: (system, what one rack holds, racks with a tray installed).
/// What a source did not give (a GB200 rack's power-shelf count) is said, not guessed.
fn rack_line(f: &Fabric) -> Option<(String, String, u64)> {
    let d = f.sizing.domains.as_ref()?;
    let racks: std::collections::BTreeSet<u32> = f.devices().filter_map(|x| x.domain).collect();
    let shelves = d.power_shelves.map_or(
        "power shelves (count not in the sources)".to_string(),
        |n| format!("{n} power shelves"),
    );
    let switches = d.in_rack_switches.as_ref().map_or(
        "in-rack management switches (not in the sources)".to_string(),
        |(n, m)| format!("{n} x {m} in-rack management switches"),
    );
    let power = d
        .rack_kw
        .map_or("power per rack not in the sources".to_string(), |kw| {
            format!("up to {kw} kW per rack")
        });
    let contents = format!(
        "{}: {} compute trays ({}), {} NVLink switch trays, {switches}, {shelves}; one NVLink domain of {} GPUs; {power}",
        d.system, d.trays, f.sizing.node_model, d.nvlink_switch_trays, d.gpus
    );
    Some((d.system.clone(), contents, racks.len() as u64))
}

pub fn bom_csv(f: &Fabric, p: &PhysicalPlan) -> Result<OutputFile, FileError> {
    // (category, part, description) → quantity, and each part line's source kind.
    let mut items: BTreeMap<(&'static str, String, String), u64> = BTreeMap::new();
    let mut kinds: BTreeMap<String, Option<SourceKind>> = BTreeMap::new();
    let mut extra: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    // A rack's NVLink switch trays and power shelves come with the rack (its own line).
    for d in f.devices().filter(|d| !d.role.is_rack_component()) {
        let desc = f
            .switch_model(d)
            .map(|m| m.description.to_string())
            .or_else(|| f.node_model(d).map(|m| m.description.to_string()))
            .unwrap_or_else(|| "fabric-manager appliance".into());
        let cat = if d.role.is_switch() { "switch" } else { "node" };
        *items.entry((cat, d.model.clone(), desc)).or_default() += 1;
    }
    if let Some((system, contents, racks)) = rack_line(f) {
        items.insert(("rack", system, contents), racks);
    }
    // Counted by part index first: a 131k fabric has a million modules of a dozen parts.
    let mut modules = vec![0u64; p.module_parts.len()];
    for m in &p.modules {
        modules[m.part as usize] += 1;
    }
    for (part, n) in p.module_parts.iter().zip(modules).filter(|(_, n)| *n > 0) {
        kinds.insert(part.part.to_string(), part.source.kind);
        let key = (
            "transceiver",
            part.part.to_string(),
            part.description.to_string(),
        );
        *items.entry(key).or_default() += n;
    }
    let mut cords = vec![0u64; p.cord_parts.len()];
    for c in p.cords.iter().chain(&p.panel_cords) {
        cords[*c as usize] += 1;
    }
    // A splitter lengthened after its first leg leaves its first part unused.
    for (c, n) in p.cord_parts.iter().zip(cords).filter(|(_, n)| *n > 0) {
        kinds.insert(c.part.to_string(), c.source.kind);
        extra.insert(c.part.to_string(), cord_notes(c, p.lengths_placeholder));
        let desc = format!(
            "{}, {} m",
            c.description,
            super::printed::metres(c.length_m)
        );
        *items
            .entry((category(c.media), c.part.to_string(), desc))
            .or_default() += n;
    }
    if p.adapters > 0 {
        let (part, desc, kind) = match &p.adapter {
            Some(a) => (a.part.to_string(), a.description.to_string(), a.source.kind),
            None => (
                "GEN-QSA".into(),
                "QSFP-to-SFP adapter (QSA): one SFP module in a QSFP cage, order by specification"
                    .into(),
                Some(SourceKind::Specification),
            ),
        };
        kinds.insert(part.clone(), kind);
        items.insert(("adapter", part, desc), p.adapters);
    }
    let mut w = Writer::new(&COLUMNS);
    for ((cat, part, desc), q) in items {
        let model = matches!(cat, "switch" | "node" | "rack");
        let s = if model {
            0
        } else {
            spares(q, p.spares_percent)
        };
        // Switch and node lines are models (their sources are the catalog's `source`), not parts.
        let (kind, note) = if cat == "rack" {
            ("", RACK_NOTE.to_string())
        } else if model {
            // No orderable number: the line says so and where the reason is (issue #46).
            (
                "",
                "a model, not an orderable number (bom-not-included.csv)".to_string(),
            )
        } else {
            let own = extra.get(&part).map_or(&[][..], Vec::as_slice);
            source_cells(kinds.get(&part).copied().flatten(), own)
        };
        w.row([
            cat,
            part.as_str(),
            desc.as_str(),
            &q.to_string(),
            &s.to_string(),
            &(q + s).to_string(),
            kind,
            note.as_str(),
        ]);
    }
    Ok(OutputFile::new(
        OutputGroup::Cabling,
        "bom.csv",
        w.finish().in_file("bom.csv")?,
    ))
}

/// Modules and their total power per device, devices in plan order.
pub fn optics_power_csv(f: &Fabric, p: &PhysicalPlan) -> Result<OutputFile, FileError> {
    const PATH: &str = "optics-power.csv";
    let mut per: PerDevice<(u32, f64, u32)> = PerDevice::of(f, |_, _| (0, 0.0, 0));
    for m in &p.modules {
        let e = &mut per[m.device];
        e.0 += 1;
        match p.part_of(m).and_then(|p| p.power_w) {
            Some(w) => e.1 += w,
            None => e.2 += 1,
        }
    }
    let mut w = Writer::new(&[
        Column::text("device"),
        Column::text("role"),
        Column::number("modules"),
        Column::number("watts"),
        Column::number("modules_without_power_figure"),
    ]);
    for (id, d) in f.devices_with_ids() {
        if let Some((n, watts, unknown)) = per.get(id).filter(|e| e.0 > 0) {
            w.row([
                d.name.as_str(),
                d.role.as_str(),
                &n.to_string(),
                &format!("{watts:.1}"),
                &unknown.to_string(),
            ]);
        }
    }
    Ok(OutputFile::new(
        OutputGroup::Cabling,
        PATH,
        w.finish().in_file(PATH)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::spares;

    #[test]
    fn spares_round_up_per_part() {
        assert_eq!(spares(100, 0.0), 0);
        assert_eq!(spares(100, 2.0), 2);
        assert_eq!(spares(101, 2.0), 3);
        assert_eq!(spares(1, 5.0), 1);
    }
}
