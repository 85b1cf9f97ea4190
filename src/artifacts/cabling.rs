//! The cabling plan: one row per cable, both ends named, TIA-606-style labels; and the same
//! plan in NetBox's cable bulk-import columns (NetBox CableImportForm (netbox-community/netbox)).

use super::names::LinkNames;
use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::Fabric;

pub const COLUMNS: [Column; 22] = [
    Column::text("cable_id"),
    Column::text("label"),
    Column::text("a_device"),
    Column::text("a_port"),
    Column::text("b_device"),
    Column::text("b_port"),
    Column::text("speed"),
    Column::text("media"),
    Column::number("length_m"),
    Column::text("network"),
    Column::text("tier"),
    Column::number("plane"),
    Column::number("rail"),
    Column::text("a_rack"),
    Column::text("b_rack"),
    Column::text("a_module"),
    Column::text("cable_part"),
    Column::number("cable_count"),
    Column::number("leg"),
    Column::text("b_module"),
    Column::text("harness"),
    Column::number("harness_m"),
];

/// The NetBox cable bulk-import columns.
const NETBOX: [Column; 12] = [
    Column::text("side_a_device"),
    Column::text("side_a_type"),
    Column::text("side_a_name"),
    Column::text("side_b_device"),
    Column::text("side_b_type"),
    Column::text("side_b_name"),
    Column::text("type"),
    Column::text("status"),
    Column::text("label"),
    Column::number("length"),
    Column::text("length_unit"),
    Column::text("description"),
];

fn opt(v: Option<u32>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

pub fn cabling_csv(f: &Fabric, n: &LinkNames) -> Result<OutputFile, FileError> {
    const PATH: &str = "cabling.csv";
    let mut w = Writer::new(&COLUMNS);
    for (i, l) in f.links_with_ids() {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        let p = &n.build[i];
        w.row([
            l.cable_id.as_str(),
            &n.label[i],
            &a.name,
            &n.a_port[i],
            &b.name,
            &n.b_port[i],
            &l.speed.to_string(),
            p.media,
            &p.length,
            l.network.as_str(),
            l.tier.as_str(),
            &opt(l.plane),
            &opt(l.rail),
            a.rack.as_deref().unwrap_or(""),
            b.rack.as_deref().unwrap_or(""),
            p.a_module,
            p.part,
            &p.count.to_string(),
            &p.leg,
            p.b_module,
            &p.harness,
            &p.harness_m,
        ]);
    }
    Ok(OutputFile::new(
        OutputGroup::Cabling,
        PATH,
        w.finish().in_file(PATH)?,
    ))
}

pub fn netbox_csv(f: &Fabric, n: &LinkNames) -> Result<OutputFile, FileError> {
    const PATH: &str = "netbox-cables.csv";
    let mut w = Writer::new(&NETBOX);
    for (i, l) in f.links_with_ids() {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        w.row([
            a.name.as_str(),
            "dcim.interface",
            &n.a_port[i],
            &b.name,
            "dcim.interface",
            &n.b_port[i],
            n.build[i].media,
            "planned",
            &n.label[i],
            &n.build[i].length,
            "m",
            &l.cable_id,
        ]);
    }
    Ok(OutputFile::new(
        OutputGroup::Cabling,
        PATH,
        w.finish().in_file(PATH)?,
    ))
}
