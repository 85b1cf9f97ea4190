//! The physical layer's rules, one test each, every test quoting the vendor sentence it enforces
//! (kept in `tests/fixtures/physical/` with its source) and asserting on the solved plan of a
//! real example: lane rate, cage form and top, breakout cabling, reach per media, APC/UPC, the
//! lengths a part is sold in; and every example's BOM has a catalog part on every optic, cable
//! and fibre line.

use crate::common;

use std::collections::BTreeMap;

use railyard::diag::SourceFile;
use railyard::model::{FibreMedia, Role};
use railyard::physical::PhysicalPlan;
use railyard::topology::Fabric;

/// The vendor sentence a rule enforces, read from its fixture (so the test fails if the
/// quote is not what the source says).
fn quote(file: &str, sentence: &str) {
    let path = format!(
        "{}/tests/fixtures/physical/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        norm(&text).contains(&norm(sentence)),
        "{file} does not say: {sentence}"
    );
}

fn solve(name: &str, text: &str) -> (Fabric, PhysicalPlan) {
    let c = railyard::compile(&SourceFile::new(name, text));
    let errors: Vec<String> = c
        .diagnostics
        .sorted()
        .iter()
        .filter(|d| d.severity == railyard::diag::Severity::Error)
        .map(|d| format!("{}: {}", d.code.id, d.message))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    let d = c.design.expect("compiled");
    (d.fabric, d.physical)
}

fn errors(text: &str) -> Vec<(String, String, bool)> {
    let c = railyard::compile(&SourceFile::new("spec.yaml", text));
    c.diagnostics
        .sorted()
        .iter()
        .filter(|d| d.severity == railyard::diag::Severity::Error)
        .map(|d| {
            let help = d.help.clone().unwrap_or_default();
            (
                d.code.id.to_string(),
                format!("{} {help}", d.message),
                d.span.is_some(),
            )
        })
        .collect()
}

/// Module part at each end of every link, by the role of the device.
fn modules_by_role(f: &Fabric, p: &PhysicalPlan) -> BTreeMap<Role, BTreeMap<String, usize>> {
    let mut out: BTreeMap<Role, BTreeMap<String, usize>> = BTreeMap::new();
    for m in &p.modules {
        let role = f.device(m.device).role;
        *out.entry(role)
            .or_default()
            .entry(p.part_of(m).expect("part").part.to_string())
            .or_default() += 1;
    }
    out
}

/// Lane rate: both ends run the same lanes at the same rate. mdx's nodes have QSFP28 NICs
/// (4 x 25G-NRZ); a 2x100G split of the SN3700's QSFP56 cage gives each port 2 lanes of
/// 50G-PAM4. The example as first written is refused, located, with the fix.
#[test]
fn both_ends_must_run_one_lane_rate() {
    quote(
        "nvidia-linkx-100g-pam4-overview.txt",
        "QSFP112 cages in ConnectX-7 adapters and BlueField-3 DPUs are backwards compatible and support QSFP56 200G with 4x50G-PAM4 and QSFP28 100G with 4x 25G-NRZ.",
    );
    let fixed = common::inventory("mdx-research-cloud.yaml");
    let split = fixed.replace(
        "breakouts: [1x200G, 1x100G, 2x100G",
        "breakouts: [1x200G, 2x100G",
    );
    assert_ne!(fixed, split, "the example lists 1x100G first");
    let e = errors(&split);
    assert!(
        e.iter().any(|(code, msg, located)| code == "RY1001"
            && *located
            && msg.contains("25G-NRZ")
            && msg.contains("50G-PAM4")
            && msg.contains("unsplit at 100G (4 × 25G-NRZ)")),
        "{e:?}"
    );
    // Unsplit, the same links come up as 4 x 25G-NRZ on NRZ optics.
    let (f, p) = solve("mdx", &fixed);
    let nodes = &modules_by_role(&f, &p)[&Role::Node];
    assert!(nodes.contains_key("MMA1B00-C100D"), "{nodes:?}");
}

/// Cage form and top: a DGX compute cage is a flat-top twin-port OSFP; switches take finned.
#[test]
fn modules_fit_their_cages_form_and_top() {
    quote(
        "nvidia-cableov-connectors-cages.txt",
        "800G flat-top, twin-port , 8-channel, 2x400G OSFP for linking DGX H100 Cedar7 GPU links which use internal cage riding, air-cooled, heat sinks for liquid-cooled systems.",
    );
    quote(
        "nvidia-mma1z00-ns400-t.txt",
        "QSFP112 are not for use in switches.",
    );
    for example in ["dgx-superpod-h100.yaml", "dgx-b200-16su.yaml"] {
        let (f, p) = solve(example, &common::inventory(example));
        let by_role = modules_by_role(&f, &p);
        let cat = &f.catalog.modules;
        for (role, parts) in &by_role {
            for part in parts.keys() {
                let m = &cat[part.as_str()];
                if *role == Role::Node && m.form == railyard::model::Form::Osfp {
                    assert_eq!(
                        m.top,
                        railyard::model::Top::Flat,
                        "{example}: {part} in a DGX cage"
                    );
                }
                if role.is_switch() && m.form == railyard::model::Form::Osfp {
                    assert_eq!(
                        m.top,
                        railyard::model::Top::Finned,
                        "{example}: {part} in a switch"
                    );
                }
                if role.is_switch() {
                    assert_ne!(
                        m.fits,
                        railyard::model::Fits::Nic,
                        "{example}: {part} in a switch"
                    );
                }
            }
        }
        assert!(
            by_role[&Role::Node].contains_key("MMA4Z00-NS-FLT"),
            "{by_role:?}"
        );
    }
}

/// Breakout cabling: a twin-port at 4x200G takes two 1:2 splitter fibres; the NIC modules run
/// 2 lanes (spectrum-x-cloud storage: SN5600 cages split 4x200G to 200G BlueField-3 ports).
#[test]
fn a_4x200g_twin_port_takes_two_splitters() {
    quote(
        "nvidia-transceivers-fiber-details.txt",
        "Twin-port transceivers can be linked to each other forming an 800Gb/s link and can be linked to two or four 400G QSFP112 or OSFP transceivers using two straight or 1:2 splitter fiber cables forming either two 400G or four 200Gb/s links.",
    );
    quote(
        "nvidia-mma1z00-ns400-t.txt",
        "200Gb/s mode: Using 2-channels and 1:2 splitter 50-meter crossover fiber cables (MFP7E20), the transceiver operates at 200Gb/E rate and draws 5 Watts maximum.",
    );
    let (f, p) = solve(
        "spectrum-x-cloud",
        &common::inventory("spectrum-x-cloud.yaml"),
    );
    // Per storage-leaf module: the splitter cords of its links, and the leg of each.
    let mut per_module: BTreeMap<u32, Vec<(u32, Option<u32>)>> = BTreeMap::new();
    for (i, b) in p.links.iter() {
        if f.link(i).speed.as_gbps() != 200
            || f.link(i).network != railyard::model::Network::Storage
        {
            continue;
        }
        assert_eq!(b.signal.lanes, 2, "a 200G split port runs 2 lanes");
        let cord = p.cord(b.cord).expect("the link's cord");
        assert_eq!(cord.family.as_str(), "MFP7E20");
        assert_eq!(cord.legs, 2);
        let (ma, mb) = (b.a_module.expect("optics"), b.b_module.expect("optics"));
        let leaf_end = if f.device(p.modules[ma as usize].device).role.is_switch() {
            ma
        } else {
            mb
        };
        assert_eq!(
            p.module(Some(leaf_end)).expect("module").part.as_str(),
            "MMA4Z00-NS"
        );
        per_module
            .entry(leaf_end)
            .or_default()
            .push((b.cord, b.leg));
    }
    assert!(!per_module.is_empty());
    for (m, legs) in per_module {
        let mut cords: Vec<u32> = legs.iter().map(|(c, _)| *c).collect();
        cords.sort_unstable();
        cords.dedup();
        assert!(cords.len() <= 2, "module {m}: {legs:?}");
        assert!(legs.iter().all(|(_, l)| matches!(l, Some(1 | 2))));
    }
}

/// Reach per media: multimode SR4 to 50 m, single-mode beyond (DR4 100 m, 2xDR4 500 m switch to
/// switch, 2xFR4 2 km); a run no module reaches is refused, located.
#[test]
fn reach_decides_the_media_and_too_long_is_refused() {
    quote(
        "nvidia-mma4z00-ns400-t.txt",
        "The Short Reach 4-channel (SR4) design uses 100G-PAM4 modulation and has a maximum fiber reach of 50-meters using OM4 multimode fiber and assumes two optical patch panels in the link.",
    );
    quote(
        "nvidia-mms4x50-nm.txt",
        "The primary use case for the MMS4X50-NM transceiver is to link multiple switches together up to 2km reaches.",
    );
    let text = common::inventory("spectrum-x-cloud.yaml");
    let (f, p) = solve("sx", &text);
    for (i, l) in f.links_with_ids() {
        let b = &p.links[i];
        let part = |m: Option<u32>| m.map(|m| p.module(Some(m)).expect("module").part.to_string());
        if let Some(a) = part(b.a_module) {
            let m = &f.catalog.modules[a.as_str()];
            let want = if l.route_m > 50.0 {
                FibreMedia::Smf
            } else {
                FibreMedia::Mmf
            };
            assert_eq!(m.media, want, "{} at {} m: {a}", l.cable_id, l.route_m);
        }
    }
    // Rows 3 km apart: nothing reaches.
    let e = errors(&text.replace("racks: {", "racks: {row_pitch_m: 3000, "));
    assert!(
        e.iter()
            .any(|(c, m, located)| c == "RY1003" && *located && m.contains("reach")),
        "{e:?}"
    );
}

/// APC never meets UPC: 100G-PAM4 optics are MPO-12/APC, NRZ SR4 optics MPO-12/UPC; every
/// fibre's polish is its modules'.
#[test]
fn apc_never_meets_upc() {
    quote(
        "nvidia-mma4z00-ns400-t.txt",
        "Green plastic shell on the MPO-12/APC optical connector denotes Angled Polish Connector and is not compatible with Ultra-flat Polished Connectors (UPC) (aqua colored).",
    );
    let (f, p) = solve("h100", &common::inventory("dgx-superpod-h100.yaml"));
    let mut checked = 0;
    for b in p.links.values() {
        let (Some(ma), Some(mb)) = (b.a_module, b.b_module) else {
            continue;
        };
        let cord = p.cord(b.cord).expect("the link's cord");
        let fibre = &f.catalog.fibres[cord.family.as_str()];
        for m in [ma, mb] {
            let module = &f.catalog.modules[p.module(Some(m)).expect("module").part.as_str()];
            let ends = [
                fibre.connector,
                fibre.leg_connector.unwrap_or(fibre.connector),
            ];
            assert!(
                ends.contains(&module.connector),
                "{} on {}",
                module.description,
                cord.family
            );
        }
        checked += 1;
    }
    assert!(checked > 1000);
    assert!(p.ordered_cords().any(|c| c.family.as_str() == "MFP7E10"));
    assert!(
        p.ordered_cords()
            .any(|c| c.family.as_str() == "GEN-MPO12-UPC-OM4")
    );
}

/// Lengths offered: the twin-port 800G DAC is sold 0.5–2 m, so a 2 m in-rack peer link takes
/// the 2 m part and a 3 m run takes optics, never a 3 m DAC.
#[test]
fn parts_are_ordered_in_the_lengths_they_are_sold() {
    quote("nvidia-mcp4y10.txt", "0.5, 1, 1.5, and 2-meter lengths");
    let text = common::inventory("spectrum-x-cloud.yaml");
    let (_, p) = solve("sx", &text);
    let dac: Vec<_> = p
        .ordered_cords()
        .filter(|c| c.family.as_str() == "MCP4Y10")
        .collect();
    assert!(!dac.is_empty());
    assert!(
        dac.iter()
            .all(|c| c.part.as_str() == "MCP4Y10-N002" && c.length_m == 2.0)
    );
    let long = text.replace("racks: {", "racks: {in_rack_m: 3, ");
    let (_, p) = solve("sx-3m", &long);
    assert!(
        p.ordered_cords().all(|c| c.family.as_str() != "MCP4Y10"),
        "no 3 m MCP4Y10"
    );
    assert!(p.ordered_cords().all(|c| c.length_m >= 1.0));
}

/// Every example's BOM: every transceiver, cable, patch-cord and fibre line carries a part of the
/// catalog (a module key, a length part number, or a family cut to length).
#[test]
fn every_bom_line_has_a_catalog_part() {
    let dir = format!("{}/inventories", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("inventories")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    for name in names {
        let text = common::inventory(&name);
        let (f, p) = solve(&name, &text);
        let cat = &f.catalog;
        let mut known: Vec<String> = cat.modules.keys().map(|k| k.to_string()).collect();
        for (k, a) in &cat.assemblies {
            known.push(k.to_string());
            known.extend(a.lengths.iter().map(|l| l.part.to_string()));
        }
        for (k, fb) in &cat.fibres {
            known.push(k.to_string());
            known.extend(fb.lengths.iter().map(|l| l.part.to_string()));
        }
        for m in &p.modules {
            let part = &p.part_of(m).expect("part").part;
            assert!(known.contains(&part.to_string()), "{name}: {part}");
        }
        for c in p.ordered_cords() {
            assert!(known.contains(&c.part.to_string()), "{name}: {}", c.part);
        }
        assert_eq!(p.links.len(), f.link_count(), "{name}: every link solved");
        let c = railyard::compile(&SourceFile::new(name.as_str(), text.as_str()));
        let only = railyard::output::Selection::of(&[railyard::output::OutputGroup::Cabling]);
        let files = c
            .outputs_only(&railyard::render::Templates::default(), &only)
            .expect("compiled")
            .expect("rendered");
        for row in common::file(&files, "bom.csv").lines().skip(1) {
            let part = row.split(',').nth(1).unwrap_or("");
            if !row.starts_with("switch,") && !row.starts_with("node,") {
                assert!(!part.is_empty(), "{name}: {row}");
            }
        }
    }
}

/// Patch panels (`physical.patch_panels`): NVIDIA's reaches assume at most two panels, totals
/// include the cords; copper cannot pass a panel; each panel adds one cord per fibre (cord –
/// panel – trunk – panel – cord: 4 ferrule-to-ferrule connections with two panels). Three
/// panels are refused, located.
#[test]
fn patch_panels_take_optics_add_cords_and_count_in_the_reach() {
    quote(
        "nvidia-structured-cabling-requirements.txt",
        "The maximum reach specifications of NVIDIA IB XDR/NDR and 400/800G ETH transceivers assume two optical connector junctions or patch panels in the link, a total of 4 ferule-to ferule connections",
    );
    quote(
        "nvidia-structured-cabling-requirements.txt",
        "MPO Multi-Mode straight and splitter cables: Total length up to 50m for NDR and 400G ETH (inc. patch panels, trunk, and cables).",
    );
    // Without racks, node links of 2 m (copper in the plain plan) and 30 m leaf–spine runs.
    let racks = "racks: {nodes_per_rack: 4}";
    let example = common::inventory("spectrum-x-cloud.yaml");
    assert!(example.contains(racks) && !example.contains("physical:"));
    let text = example.replace(racks, "cabling: {node_leaf_m: 2}");
    let panels = format!("{text}\nphysical: {{patch_panels: {{node_leaf: 2, leaf_spine: 1}}}}\n");
    let (f, p) = solve("sx-panels", &panels);
    let (_, plain) = solve("sx", &text);
    let cord_m = 2.0; // no racks: the default in-rack cord
    let mut fibres = std::collections::BTreeSet::new();
    let mut want = 0;
    for (i, l) in f.links_with_ids() {
        let n: u32 = match l.tier {
            railyard::model::Tier::NodeLeaf => 2,
            railyard::model::Tier::LeafSpine => 1,
            _ => continue,
        };
        let b = &p.links[i];
        // Copper cannot pass a panel: a module at both ends, a fibre between.
        assert!(
            b.a_module.is_some() && b.b_module.is_some(),
            "{}: {:?} through a panel",
            l.cable_id,
            b.media
        );
        // The whole channel, cords included, within the reach; multimode only within 50 m.
        let channel = l.route_m + f64::from(n) * cord_m;
        for m in [b.a_module, b.b_module] {
            let part = p.module(m).expect("module").part.to_string();
            let module = &f.catalog.modules[part.as_str()];
            assert!(module.reach() + 1e-9 >= channel, "{}: {part}", l.cable_id);
            assert_eq!(
                module.media == FibreMedia::Smf,
                channel > 50.0,
                "{} at {channel} m: {part}",
                l.cable_id
            );
        }
        for c in b.cord..b.cord + b.cord_count {
            if fibres.insert(c) {
                want += n as usize;
            }
        }
    }
    assert_eq!(p.panel_cords.len(), want, "one cord per fibre per panel");
    assert!(plain.panel_cords.is_empty());
    for k in &p.panel_cords {
        let c = &p.cord_parts[*k as usize];
        assert_eq!((c.legs, c.length_m), (1, cord_m), "{}", c.part);
    }
    // The 2 m node links are copper without panels: through them, optics.
    let copper = |p: &PhysicalPlan| {
        p.links
            .values()
            .filter(|b| b.a_module.is_none() && b.b_module.is_none())
            .count()
    };
    assert!(copper(&p) < copper(&plain), "panels moved links off copper");
    let three = format!("{text}\nphysical: {{patch_panels: {{leaf_spine: 3}}}}\n");
    let e = errors(&three);
    assert!(
        e.iter()
            .any(|(c, m, located)| c == "RY1006" && *located && m.contains("two patch panels")),
        "{e:?}"
    );
}

/// Tray height (`racks.tray_height_m`): a cable between racks climbs to the tray and drops
/// again, two drops of the tray's height on top of the horizontal run and the loops; a cable
/// within one rack does not reach the tray. Not a vendor rule: the drop is the longest one (the
/// spec places devices in racks, not at U positions), stated in docs/physical.md.
#[test]
fn tray_height_adds_two_drops_between_racks() {
    let text = common::inventory("spectrum-x-cloud.yaml");
    let tray = text.replace("racks: {", "racks: {tray_height_m: 2.5, ");
    assert_ne!(tray, text);
    let (f0, _) = solve("sx", &text);
    let (f1, _) = solve("sx-tray", &tray);
    let mut between = 0;
    for (a, b) in f0.links().zip(f1.links()) {
        let (da, db) = (f0.device_of(&a.a), f0.device_of(&a.b));
        let same_rack = da.rack.is_some() && da.rack == db.rack;
        let added = b.route_m - a.route_m;
        if same_rack {
            assert_eq!(added, 0.0, "{}", a.cable_id);
        } else {
            assert!((added - 5.0).abs() < 1e-9, "{}: {added}", a.cable_id);
            between += 1;
        }
    }
    assert!(between > 100);
}

/// The bom.csv lines of a spec by part: (source_kind, note), read from the file's text.
fn bom_notes(text: &str) -> BTreeMap<String, (String, String)> {
    let c = railyard::compile(&SourceFile::new("spec.yaml", text));
    let only = railyard::output::Selection::of(&[railyard::output::OutputGroup::Cabling]);
    let files = c
        .outputs_only(&railyard::render::Templates::default(), &only)
        .expect("compiled")
        .expect("rendered");
    let bom = common::file(&files, "bom.csv");
    let mut lines = bom.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(
        &header[header.len() - 2..],
        ["source_kind", "note"],
        "bom.csv says every line's source"
    );
    let mut out = BTreeMap::new();
    for row in lines {
        // The description is the only quoted cell; the last two cells never hold a comma.
        let cells: Vec<&str> = row.rsplitn(3, ',').collect();
        let (note, kind) = (cells[0], cells[1]);
        let part = row.split(',').nth(1).unwrap_or("").to_string();
        out.insert(part, (kind.to_string(), note.to_string()));
    }
    out
}

/// XDR on Quantum-X800 (`inventories/dgx-b300-xdr.yaml`): every module of the compute fabric runs
/// 200G-PAM4 only, single-mode (no multimode at XDR), finned in the air-cooled Q3400, flat in the
/// ConnectX-8 cages; the fibres are the single-mode ones NVIDIA uses for both generations; every
/// XDR part's BOM line says it rests on a third-party listing.
#[test]
fn an_xdr_fabric_orders_only_200g_pam4_parts() {
    quote(
        "nvidia-800g200gpam4list.txt",
        "The XDR InfiniBand four-channel 200G-PAM4 cable and transceiver product line consists of linear active copper cables (LACC), single-mode transceivers and optical fiber cables.",
    );
    quote(
        "nvidia-800g200gpam4list.txt",
        "Multimode transceivers, active optical cables (AOC). (Lasers not available yet)",
    );
    quote(
        "nvidia-800g200gpam4list.txt",
        "IHS transceivers or copper cables are only used in air-cooled switches (Q3400, Q3200) – everything else uses RHS.",
    );
    quote(
        "nvidia-800g200gpam4list.txt",
        "The same single mode, straight and 1:2 splitter crossover fiber cables are used for both XDR and NDR/400GbE.",
    );
    let text = common::inventory("dgx-b300-xdr.yaml");
    let (f, p) = solve("b300-xdr", &text);
    let cat = &f.catalog;
    let mut compute_modules = 0;
    for (i, l) in f.links_with_ids() {
        if l.network != railyard::model::Network::Compute {
            continue;
        }
        let b = &p.links[i];
        assert_eq!(b.signal.rate.as_str(), "200G-PAM4", "{}", l.cable_id);
        for m in [b.a_module, b.b_module] {
            let use_ = &p.modules[m.expect("optics on every compute link") as usize];
            let part = p.part_of(use_).expect("part").part.as_str();
            let module = &cat.modules[part];
            assert_eq!(module.lane_rates.len(), 1, "{part}");
            assert_eq!(module.lane_rates[0].as_str(), "200G-PAM4", "{part}");
            assert_eq!(module.media, FibreMedia::Smf, "{part}");
            let top = if f.device(use_.device).role.is_switch() {
                railyard::model::Top::Finned
            } else {
                railyard::model::Top::Flat
            };
            assert_eq!(module.top, top, "{part} on {}", l.cable_id);
            compute_modules += 1;
        }
        let cord = p.cord(b.cord).expect("cord");
        assert!(
            ["MFP7E30", "MFP7E40", "MCA4K50"].contains(&cord.family.as_str()),
            "{}: {}",
            l.cable_id,
            cord.family
        );
    }
    assert_eq!(
        compute_modules,
        2 * (72 * 8 + 8 * 72),
        "node-leaf and leaf-spine ends"
    );
    let notes = bom_notes(&text);
    for part in ["980-9IAH1-00XM00", "980-9IAT0-00XM00"] {
        assert_eq!(
            notes[part],
            (
                "third-party".to_string(),
                "confirm with the vendor before ordering".to_string()
            ),
            "{part}"
        );
    }
    // The fibre family is vendor-sourced; its length code is not (no orderable number).
    assert_eq!(notes["MFP7E30"].0, "vendor");
    assert!(
        !notes["MFP7E30"]
            .1
            .contains("confirm with the vendor before ordering")
    );
}

/// No downshift: an XDR switch port and a NIC of the 100G-PAM4 generation cannot link; the
/// error names both ends and their lane rates, located at the leaf model.
#[test]
fn no_downshift_between_lane_generations() {
    quote(
        "nvidia-800g200gpam4list.txt",
        "200G-PAM4-based transceivers cannot downshift to 100G-PAM4 or 50G-PAM4.",
    );
    let text = common::inventory("dgx-b300-xdr.yaml");
    let ndr_nic = text.replace(
        "speed: 800G, also: [400G], form: osfp, top: flat, lanes: 4, lane_rates: [200G-PAM4]",
        "speed: 800G, also: [400G], form: osfp, top: flat, lanes: 8, lane_rates: [100G-PAM4]",
    );
    assert_ne!(ndr_nic, text);
    let e = errors(&ndr_nic);
    assert!(
        e.iter().any(|(code, msg, located)| code == "RY1001"
            && *located
            && msg.contains("the node end")
            && msg.contains("the leaf end")
            && msg.contains("200G-PAM4")
            && msg.contains("100G-PAM4")),
        "{e:?}"
    );
}

/// The XDR switch declared as 800G cages of 100G lanes (the workaround a new user tries) no
/// longer builds silently: RY1008 at the spec's model, naming both generations.
#[test]
fn an_xdr_switch_declared_with_100g_lanes_is_refused() {
    let h100 = common::inventory("dgx-superpod-h100.yaml");
    assert!(!h100.contains("\ncatalog:"));
    let faked = format!(
        "{}\ncatalog:\n  switches:\n    q3400:\n      vendor: NVIDIA\n      description: \"Q3400 as 800G cages\"\n      transport: [infiniband]\n      ru: 4\n      mgmt_port: eth0\n      port_groups:\n        - {{first: 1, count: 72, form: osfp, speed: 800G, breakouts: [\"2x400G\"], name: \"sw{{cage}}\", split_name: \"sw{{cage}}p{{lane1}}\"}}\n",
        h100.replace("model: qm9700", "model: q3400")
    );
    let e = errors(&faked);
    assert!(
        e.iter().any(|(code, msg, located)| code == "RY1008"
            && *located
            && msg.contains("100G-PAM4")
            && msg.contains("200G-PAM4")),
        "{e:?}"
    );
}

/// `physical.parts: vendor-only` refuses a part whose number rests on a third-party listing, at
/// the key, naming the listing's link; declaring the same part with a vendor source (the mutation
/// a buyer makes after confirming the number) lifts both the refusal and the BOM's mark.
#[test]
fn vendor_only_refuses_third_party_parts_and_the_mark_follows_the_source_kind() {
    let text = common::inventory("dgx-b300-xdr.yaml");
    let strict = format!("{text}\nphysical: {{parts: vendor-only}}\n");
    let e = errors(&strict);
    let refused = |e: &[(String, String, bool)], part: &str| {
        e.iter().any(|(code, msg, located)| {
            code == "RY1007"
                && *located
                && msg.contains(part)
                && msg.contains("https://networking-docs.nvidia.com/")
        })
    };
    assert!(refused(&e, "980-9IAT0-00XM00"), "{e:?}");
    assert!(refused(&e, "980-9IAH1-00XM00"), "{e:?}");
    // The NIC module again, its source kind mutated to `vendor` (every other field as built in).
    let built_in = std::fs::read_to_string(format!(
        "{}/catalog/physical-xdr.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("catalog/physical-xdr.yaml");
    let entry: String = built_in
        .split("\n  980-9IAT0-00XM00:\n")
        .nth(1)
        .expect("the NIC module")
        .split("\n\n")
        .next()
        .expect("entry")
        .lines()
        .map(|l| format!("  {l}\n"))
        .collect();
    assert!(entry.contains("source_kind: third-party"));
    let mutated = entry.replace("source_kind: third-party", "source_kind: vendor");
    let overlay = format!("  modules:\n    980-9IAT0-00XM00:\n{mutated}");
    let with = |t: &str| t.replacen("catalog:\n", &format!("catalog:\n{overlay}"), 1);
    let e = errors(&with(&strict));
    assert!(!refused(&e, "980-9IAT0-00XM00"), "{e:?}");
    assert!(refused(&e, "980-9IAH1-00XM00"), "{e:?}");
    let before = bom_notes(&text);
    let after = bom_notes(&with(&text));
    assert_eq!(
        before["980-9IAT0-00XM00"].1,
        "confirm with the vendor before ordering"
    );
    assert_eq!(
        after["980-9IAT0-00XM00"],
        ("vendor".to_string(), String::new())
    );
    assert_eq!(before["980-9IAH1-00XM00"], after["980-9IAH1-00XM00"]);
}

/// Breakout modes of a SONiC `platform.json` port as (ports, speed in G), default and alternates:
/// `4x200G[100G,50G]` gives (4, 200), (4, 100), (4, 50); mixed modes (`4x100G(4)+1x400G(4)`) none.
fn platform_modes(modes: &serde_json::Map<String, serde_json::Value>) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for mode in modes.keys().filter(|m| !m.contains('+')) {
        let (head, alts) = mode.split_once('[').unwrap_or((mode, ""));
        let Some((n, s)) = head.split_once('x') else {
            continue;
        };
        let n: u32 = n.parse().expect("port count");
        for speed in std::iter::once(s).chain(alts.trim_end_matches(']').split(',')) {
            if let Some(g) = speed.strip_suffix('G').and_then(|g| g.parse().ok()) {
                out.push((n, g));
            }
        }
    }
    out
}

/// SN5610 and SN5640 as the vendor's SONiC port tables describe them (sonic-buildimage
/// `platform.json` @ 086b03bd): 64 OSFP cages of 8 SerDes lanes; the SN5610 runs at most 800G on a
/// cage, so 100 Gb/s per lane — it is a 100G-PAM4 switch, not one of the XDR generation — and every
/// catalog breakout is one of the table's modes. A Spectrum-X fabric on SN5610 therefore builds with
/// the same optics as on the SN5600 and no 200G-PAM4 part.
#[test]
fn sn5610_and_sn5640_cages_match_the_vendors_port_tables() {
    for (model, file) in [
        ("sn5610", "x86_64-nvidia_sn5610n-r0.platform.json"),
        ("sn5640", "x86_64-nvidia_sn5640-r0.platform.json"),
    ] {
        let path = format!(
            "{}/tests/fixtures/physical/sonic/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json");
        let ports: Vec<&serde_json::Value> = v["interfaces"]
            .as_object()
            .expect("interfaces")
            .values()
            .filter(|p| p["lanes"].as_str().unwrap_or("").split(',').count() == 8)
            .collect();
        let cat = railyard::catalog::builtin();
        let g = &cat.switches[model].port_groups[0];
        assert_eq!(ports.len() as u32, g.count, "{model}: cages");
        let cage = g.cage();
        assert_eq!(cage.lanes, 8, "{model}");
        for p in &ports {
            let modes = platform_modes(p["breakout_modes"].as_object().expect("modes"));
            // The fastest a cage carries, over its 8 lanes: the lane rate it needs.
            let cage_gbps = modes.iter().map(|(n, s)| n * s).max().expect("a mode");
            assert!(cage_gbps / 8 <= 100, "{model}: {cage_gbps}G over 8 lanes");
            for b in &g.breakouts {
                let (n, s) = b.split_once('x').expect("NxS");
                let want = (
                    n.parse::<u32>().expect("n"),
                    s.trim_end_matches('G').parse::<u32>().expect("speed"),
                );
                assert!(modes.contains(&want), "{model}: {b} not in {modes:?}");
            }
        }
        assert!(!cage.runs(railyard::model::LaneRate::G200Pam4), "{model}");
        assert!(cage.runs(railyard::model::LaneRate::G100Pam4), "{model}");
    }
    let text = common::inventory("spectrum-x-cloud.yaml").replace("model: sn5600", "model: sn5610");
    let (f, p) = solve(
        "sx-sn5610",
        &format!("{text}\nplatforms: {{default: nvue}}\n"),
    );
    assert!(f.devices().any(|d| d.model == "sn5610"));
    for m in &p.modules {
        let part = p.part_of(m).expect("part").part.as_str();
        let rates = &f.catalog.modules[part].lane_rates;
        assert!(
            !rates.contains(&railyard::model::LaneRate::G200Pam4),
            "{part} on an SN5610"
        );
    }
}

/// An AOC has its own reach (`physical.aoc_max_m`): NVIDIA "AOCs (Active Optical Cable) are used
/// from 3 meters to about 100 meters", and the DGX SuperPOD H100 RA orders its in-band and
/// OOB-to-in-band uplinks as "100 Gbps QSFP to QSFP AOC" 980-9I13N-00C030. Given that shape, the
/// H100 example's in-band links up to 30 m are that part; unset, nothing changes (AOCs stay within
/// `copper_max_m`, as the built-in examples are planned).
#[test]
fn an_aoc_has_its_own_reach_and_the_h100_ra_orders_its_aocs() {
    quote(
        "nvidia-superpod-h100-ra-table8.txt",
        "100 Gbps Two uplinks per OOB to in-band 980-9I13N-00C030",
    );
    quote(
        "nvidia-superpod-h100-ra-table8.txt",
        "100 Gbps QSFP to QSFP AOC Leaf – Core cables 980-9I440-00H030 980-9I13N-00C030",
    );
    let text = common::inventory("dgx-superpod-h100.yaml");
    assert!(!text.contains("physical:"));
    let (_, plain) = solve("h100", &text);
    assert!(
        plain
            .ordered_cords()
            .all(|c| c.part.as_str() != "980-9I13N-00C030"),
        "no AOC beyond copper_max_m unless asked"
    );
    let ra = format!("{text}\nphysical: {{aoc_max_m: 30}}\n");
    let (f, p) = solve("h100-ra", &ra);
    let mut aocs = 0;
    for (i, l) in f.links_with_ids() {
        if l.network != railyard::model::Network::Inband || l.speed.as_gbps() != 100 {
            continue;
        }
        let b = &p.links[i];
        let cord = p.cord(b.cord).expect("cord");
        if l.route_m <= 30.0 {
            assert_eq!(cord.part.as_str(), "980-9I13N-00C030", "{}", l.cable_id);
            assert_eq!(b.media, railyard::model::Media::Aoc);
            assert!(b.a_module.is_none() && b.b_module.is_none());
            aocs += 1;
        } else {
            assert_ne!(b.media, railyard::model::Media::Aoc, "{}", l.cable_id);
        }
    }
    assert!(aocs > 100, "{aocs} in-band AOCs");
    let notes = bom_notes(&ra);
    // Vendor text: no third-party mark; the example has no `racks:`, so its length is a placeholder.
    assert_eq!(notes["980-9I13N-00C030"].0, "vendor-text");
    assert_eq!(
        notes["980-9I13N-00C030"].1,
        "length is a placeholder: the spec has no `racks:`"
    );
}

/// A fibre family the catalog lists no lengths for (MFP7E10: NVIDIA's ordering table was not
/// found) is ordered at the planned length with no orderable number, and its BOM line says so;
/// without `racks:` every cable and fibre length is the tier's class length, and every such line
/// says it is a placeholder. With `racks:` (spectrum-x-cloud) no line says so.
#[test]
fn bom_lines_say_when_a_number_or_a_length_is_not_orderable_as_printed() {
    let h100 = common::inventory("dgx-superpod-h100.yaml");
    assert!(!h100.contains("\nracks:"));
    let notes = bom_notes(&h100);
    let mut cords = 0;
    for (part, (_, note)) in &notes {
        let family_only = part == "MFP7E10" || part == "MFP7E30";
        if family_only {
            assert!(note.contains("no orderable number"), "{part}: {note}");
        }
        if part.starts_with("MFP7E") || part.starts_with("GEN-") || part.starts_with("MCP") {
            assert!(note.contains("placeholder"), "{part}: {note}");
            cords += 1;
        }
    }
    assert!(cords >= 2, "{notes:?}");
    let sx = bom_notes(&common::inventory("spectrum-x-cloud.yaml"));
    assert!(
        sx.values().all(|(_, n)| !n.contains("placeholder")),
        "{sx:?}"
    );
    assert!(
        sx.iter()
            .any(|(p, (_, n))| p.starts_with("MFP7E") && n.contains("no orderable number"))
    );
}

/// IHS or RHS by the cage's top: the air-cooled Q3400 takes finned (IHS) twin-ports; a
/// liquid-cooled Quantum-X800 (flat cages, declared by the spec) takes the flat (RHS) twin-port of
/// the same line, and the ConnectX-8 ends stay flat.
#[test]
fn xdr_modules_follow_the_cage_top() {
    quote(
        "nvidia-800g200gpam4list.txt",
        "RHS devices are used in ConnectX-8 cages for B300, GB300, ConnectX-8 PCIe cards, and liquid cooled switches.",
    );
    let text = common::inventory("dgx-b300-xdr.yaml");
    let liquid = text.replace("model: q3400", "model: q3400-liquid").replacen(
        "catalog:\n",
        "catalog:\n  switches:\n    q3400-liquid:\n      vendor: NVIDIA\n      description: \"a liquid-cooled Quantum-X800 (flat cages)\"\n      transport: [infiniband]\n      ru: 4\n      mgmt_port: eth0\n      asic: quantum-x800\n      port_groups:\n        - {first: 1, count: 72, form: osfp, speed: 1600G, top: flat, lanes: 8, lane_rates: [200G-PAM4], breakouts: [\"2x800G\"], name: \"sw{cage}\", split_name: \"sw{cage}p{lane1}\"}\n",
        1,
    );
    assert_ne!(liquid, text);
    for (name, spec, switch_part) in [
        ("air", &text, "980-9IAH1-00XM00"),
        ("liquid", &liquid, "980-9IAU0-00XM00"),
    ] {
        let (f, p) = solve(name, spec);
        let by_role = modules_by_role(&f, &p);
        for role in [Role::Leaf, Role::Spine] {
            assert_eq!(
                by_role[&role].keys().collect::<Vec<_>>(),
                [switch_part],
                "{name}: {role:?}"
            );
        }
        assert_eq!(
            by_role[&Role::Node].keys().collect::<Vec<_>>(),
            ["980-9IAT0-00XM00"],
            "{name}"
        );
    }
}
