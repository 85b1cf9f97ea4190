//! The cabling plan: one row per cable, both ends named, TIA-606-style labels; and the same
//! plan in NetBox's cable bulk-import columns (NetBox CableImportForm (netbox-community/netbox)).

use super::{LinkNames, metres};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::Fabric;

pub const COLUMNS: [&str; 15] = [
    "cable_id", "label", "a_device", "a_port", "b_device", "b_port", "speed", "media", "length_m",
    "network", "tier", "plane", "rail", "a_rack", "b_rack",
];

pub(crate) fn writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new())
}

fn opt(v: Option<u32>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

pub fn cabling_csv(f: &Fabric, n: &LinkNames) -> OutputFile {
    let mut w = writer();
    let _ = w.write_record(COLUMNS);
    for (i, l) in f.links().enumerate() {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        let _ = w.write_record([
            l.cable_id.as_str(),
            &n.label[i],
            &a.name,
            &n.a_port[i],
            &b.name,
            &n.b_port[i],
            &l.speed.to_string(),
            l.media.as_str(),
            &metres(l.length_m),
            l.network.as_str(),
            l.tier.as_str(),
            &opt(l.plane),
            &opt(l.rail),
            a.rack.as_deref().unwrap_or(""),
            b.rack.as_deref().unwrap_or(""),
        ]);
    }
    OutputFile::new(
        OutputGroup::Cabling,
        "cabling.csv",
        w.into_inner().unwrap_or_default(),
    )
}

pub fn netbox_csv(f: &Fabric, n: &LinkNames) -> OutputFile {
    let mut w = writer();
    let _ = w.write_record([
        "side_a_device",
        "side_a_type",
        "side_a_name",
        "side_b_device",
        "side_b_type",
        "side_b_name",
        "type",
        "status",
        "label",
        "length",
        "length_unit",
        "description",
    ]);
    for (i, l) in f.links().enumerate() {
        let (a, b) = (f.device_of(&l.a), f.device_of(&l.b));
        let _ = w.write_record([
            a.name.as_str(),
            "dcim.interface",
            &n.a_port[i],
            &b.name,
            "dcim.interface",
            &n.b_port[i],
            l.media.as_str(),
            "planned",
            &n.label[i],
            &metres(l.length_m),
            "m",
            &l.cable_id,
        ]);
    }
    OutputFile::new(
        OutputGroup::Cabling,
        "netbox-cables.csv",
        w.into_inner().unwrap_or_default(),
    )
}
