//! The point-to-point (P2P) file of NVIDIA's UFM Cable Validation Tool (`ufm-cvt-p2p.csv`): one
//! row per cable with the columns CVT's documentation lists ("P2P File", NVIDIA UFM Cable
//! Validation Tool v1.6.0, docs.nvidia.com/networking/display/cablevalidationtool160/P2P+File):
//! `A-Node Name`, `A-Type` (`Host` or `Switch`), `A-Port`, `Z-Node Name`, `Z-Type`, `Z-Port`.
//! A is the cable's lower end, as in `cabling.csv`. Ports are the cabling plan's names (the
//! documentation's Ethernet example names switch ports `swp1s0`).
//!
//! Every cable but the management tier (BMC and switch management ports on the OOB switches):
//! CVT validates links with agents on the switches and hosts, and a BMC port is no interface of
//! the host its agent runs on. The optional rack layout and HCA-mapping sheets are not written:
//! the layout needs U positions the plan does not have, and the plan names HCA ports already.

use super::ExportError;
use crate::model::{Role, Tier};
use crate::output::csv::{Column, Writer};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{Device, Fabric};

const PATH: &str = "ufm-cvt-p2p.csv";

pub const COLUMNS: [Column; 6] = [
    Column::text("A-Node Name"),
    Column::text("A-Type"),
    Column::text("A-Port"),
    Column::text("Z-Node Name"),
    Column::text("Z-Type"),
    Column::text("Z-Port"),
];

fn kind(d: &Device) -> &'static str {
    match d.role {
        Role::Node | Role::Appliance => "Host",
        _ => "Switch",
    }
}

pub(super) fn file(f: &Fabric) -> Result<OutputFile, ExportError> {
    let mut w = Writer::new(&COLUMNS);
    for l in f.links().filter(|l| l.tier != Tier::Mgmt) {
        let (a, b) = (f.named(&l.a), f.named(&l.b));
        w.row([
            a.device.name.as_str(),
            kind(a.device),
            &a.port_name,
            &b.device.name,
            kind(b.device),
            &b.port_name,
        ]);
    }
    let bytes = w
        .finish()
        .map_err(|e| ExportError::new(PATH, e.to_string()))?;
    Ok(OutputFile::new(OutputGroup::Plan, PATH, bytes))
}
