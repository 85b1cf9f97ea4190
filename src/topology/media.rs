//! Where devices stand and what cable joins them: rack positions, run lengths rounded up to the
//! length classes (the parts themselves are chosen by the `physical` stage).

use super::Device;
use super::sizing::Sizing;
use crate::model::{Role, Tier};
use crate::spec::ClusterSpec;

/// Lengths cables are ordered in, in metres.
const LENGTH_CLASSES: [f64; 21] = [
    0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0, 150.0,
    200.0, 300.0, 500.0, 1000.0, 2000.0,
];

/// Row letters: SU 1 is row A, SU 27 row AA; the central network row is N0.
fn row_name(su: u32) -> String {
    let mut n = su;
    let mut s = Vec::new();
    while n > 0 {
        let r = (n - 1) % 26;
        s.push(b'A' + r as u8);
        n = (n - 1) / 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Rack of a device (its SU and index, 1-based), when the spec has a rack layout.
pub fn rack_of(
    spec: &ClusterSpec,
    sizing: &Sizing,
    role: Role,
    (su, domain): (Option<u32>, Option<u32>),
    index: u32,
) -> Option<String> {
    let racks = spec.racks.as_ref()?;
    let npr = racks.nodes_per_rack.value.max(1);
    let per_su = sizing.nodes_per_su.div_ceil(npr);
    let central = |n: u32| format!("N0-{n:02}");
    Some(match role {
        Role::Node => format!("{}{:02}", row_name(su?), (index - 1) / npr + 1),
        // A rack-scale rack's own parts stand in it: rack `domain` is column `domain` of its SU.
        Role::NvlinkSwitchTray | Role::PowerShelf => {
            let per = sizing.domains.as_ref().map_or(1, |d| d.per_su.max(1));
            format!("{}{:02}", row_name(su?), (domain? - 1) % per + 1)
        }
        // A rack-scale system's OOB switches stand in the racks they serve.
        Role::OobLeaf if sizing.oob.in_rack.is_some() => {
            let per_rack = sizing.oob.in_rack.map_or(1, |r| r.per_rack.max(1));
            format!("{}{:02}", row_name(su?), (index - 1) / per_rack + 1)
        }
        Role::Leaf | Role::OobLeaf => format!("{}{:02}", row_name(su?), per_su + 1),
        Role::Appliance => format!("{}{:02}", row_name(su.unwrap_or(1)), per_su + 1),
        Role::Spine | Role::Core => central(1),
        Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => central(2),
        Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => central(3),
        Role::OobCore | Role::OobGateway => central(4),
    })
}

/// (row index, column) of a rack name; row 0 is the central row.
/// The row of a rack by the layout's numbering (`A09` → 1, a network rack `N0-04` → 0).
pub fn row(rack: &str) -> f64 {
    position(rack).0
}

fn position(rack: &str) -> (f64, f64) {
    if let Some(col) = rack.strip_prefix("N0-") {
        return (0.0, col.parse().unwrap_or(1.0));
    }
    let split = rack
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(rack.len());
    let (row, col) = rack.split_at(split);
    let row = row
        .bytes()
        .fold(0u32, |acc, c| acc * 26 + u32::from(c - b'A' + 1));
    (f64::from(row), col.parse().unwrap_or(1.0))
}

fn round_up(m: f64) -> f64 {
    LENGTH_CLASSES
        .iter()
        .copied()
        .find(|c| *c >= m)
        .unwrap_or(m.ceil())
}

/// The length class of a link (its routed run rounded up to [`LENGTH_CLASSES`]), which the
/// configs use where a cable's length matters (PFC headroom): the old rack-to-rack estimate,
/// kept so that the physical solver's finer routing changes no config.
pub fn length(spec: &ClusterSpec, a: &Device, b: &Device, tier: Tier) -> f64 {
    if let (Some(r), Some(ra), Some(rb)) = (&spec.racks, &a.rack, &b.rack) {
        let (ya, xa) = position(ra);
        let (yb, xb) = position(rb);
        let run = (ya - yb).abs() * r.row_pitch_m + (xa - xb).abs() * r.rack_width_m + r.slack_m;
        return round_up(run);
    }
    round_up(tier_default(spec, tier))
}

/// The routed run of a cable in metres, before rounding to what a part is sold in. Between
/// racks: rows apart times the row pitch plus rack positions apart times the rack width (the
/// horizontal run in the overhead tray) plus `slack_m` (the two vertical drops and service
/// loops; with `tray_height_m` declared, two drops of the tray's height plus `slack_m` as the
/// service loops alone); within one rack: `in_rack_m`. Without a rack layout: the tier's
/// `cabling:` length.
pub fn route(spec: &ClusterSpec, a: &Device, b: &Device, tier: Tier) -> f64 {
    if let (Some(r), Some(ra), Some(rb)) = (&spec.racks, &a.rack, &b.rack) {
        if ra == rb {
            return r.in_rack_m;
        }
        let (ya, xa) = position(ra);
        let (yb, xb) = position(rb);
        let drops = r.tray_height_m.as_ref().map_or(0.0, |t| 2.0 * t.value);
        return (ya - yb).abs() * r.row_pitch_m
            + (xa - xb).abs() * r.rack_width_m
            + drops
            + r.slack_m;
    }
    tier_default(spec, tier)
}

fn tier_default(spec: &ClusterSpec, tier: Tier) -> f64 {
    let c = &spec.cabling;
    match tier {
        Tier::NodeLeaf => c.node_leaf_m,
        Tier::LeafSpine | Tier::LeafLeaf => c.leaf_spine_m,
        Tier::SpineCore => c.spine_core_m,
        Tier::Mgmt => c.mgmt_m,
        // OOB switches stand in the racks of the switches they serve: a row-level run.
        Tier::OobUplink => c.leaf_spine_m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_rounding() {
        assert_eq!(row_name(1), "A");
        assert_eq!(row_name(27), "AA");
        assert_eq!(position("AA03"), (27.0, 3.0));
        assert_eq!(round_up(3.2), 5.0);
    }
}
