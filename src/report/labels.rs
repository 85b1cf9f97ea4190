//! Cable labels: two per cable (A end and B end), grouped into one set of files per rack (or per
//! switch when the spec has no racks) by the cable's B end, where the run is usually dressed.
//!
//! Every label says the same, whatever it is printed from: the cable id and the end it sits on,
//! both ends as `[rack.]device:port` (the `label` column of `cabling.csv`), the cable or fibre
//! part as ordered with its splitter leg, and each end's module part (the physical plan, #26).
//! Its QR code holds the cable id. Three forms of the same labels:
//! - `labels/<rack>.zpl` (default): ZPL II for Zebra thermal-transfer printers; the printer draws
//!   the QR code itself (`^BQ`), railyard draws none (`zpl.rs`);
//! - `labels/<rack>.csv` (default): one row per label, for the data import of label software
//!   (BarTender, Brady Workstation): a header row, one column per printed line and the QR
//!   payload, plus the fields the lines are made of (`table.rs`);
//! - `labels/<rack>.html` (on request, `build --only labels`): sheets for an office printer with
//!   QR codes drawn as SVG (`sheet.rs`), the largest output of a large fabric.
//!
//! Stock: Panduit R200X150V1T, a white self-laminating wrap-around label 2.00 in × 1.50 in whose
//! print-on area is 2.00 in × 0.50 in and whose clear tail laminates it on cables of 0.22–0.28 in
//! (5.6–7.1 mm) outside diameter (Panduit R-series self-laminating label data sheet).

mod sheet;
mod table;
mod zpl;

use std::collections::BTreeMap;

use crate::artifacts::LinkNames;
use crate::output::FileError;
use crate::output::natural::Natural;
use crate::output::{Memo, OutputFile, Sink, unit_digest};
use crate::topology::{Device, Fabric, LinkId};

pub const STOCK: &str = "Panduit R200X150V1T self-laminating wrap-around label, 2.00 in × 1.50 in, print-on area 2.00 in × 0.50 in, for cable OD 0.22–0.28 in (5.6–7.1 mm)";

/// One cable as its two labels print it.
pub(crate) struct CableLabel<'a> {
    pub id: &'a str,
    /// `[rack.]device:port` of the A and B end.
    pub ends: [String; 2],
    /// The cable or fibre part as ordered (empty when the plan has none).
    pub part: &'a str,
    /// The splitter leg (1-based) or empty.
    pub leg: &'a str,
    /// Each end's module part, empty where the cable's end is built in (DAC, AOC).
    pub modules: [&'a str; 2],
}

/// The ends of a cable, as letters on its labels.
pub(crate) const ENDS: [&str; 2] = ["A", "B"];

impl CableLabel<'_> {
    /// The printed lines of the label on end `end` (0 = A, 1 = B): the cable id and the end,
    /// the two ends, the cable part and leg, the modules. A line with nothing to say is empty.
    pub fn lines(&self, end: usize) -> [String; 5] {
        let part = match (self.part, self.leg) {
            ("", _) => String::new(),
            (p, "") => format!("cable {p}"),
            (p, leg) => format!("cable {p} leg {leg}"),
        };
        let modules = match self.modules {
            ["", ""] => String::new(),
            [a, ""] => format!("A {a}"),
            ["", b] => format!("B {b}"),
            [a, b] => format!("A {a}  B {b}"),
        };
        [
            format!("{} {}", self.id, ENDS[end]),
            format!("A {}", self.ends[0]),
            format!("B {}", self.ends[1]),
            part,
            modules,
        ]
    }

    /// The texts a label file is a function of, for the rebuild memo.
    fn digest_parts<'s>(&'s self, parts: &mut Vec<&'s [u8]>) {
        parts.extend([self.id.as_bytes(), self.ends[0].as_bytes()]);
        parts.extend([self.ends[1].as_bytes(), self.part.as_bytes()]);
        parts.extend([self.leg.as_bytes(), self.modules[0].as_bytes()]);
        parts.push(self.modules[1].as_bytes());
    }
}

/// One end of a cable as printed on its label: `[rack.]device:port` (the same rule as the
/// `label` column of `cabling.csv`, which joins the two ends with `/`).
fn label_end(d: &Device, port: &str) -> String {
    match &d.rack {
        Some(r) => format!("{r}.{}:{port}", d.name),
        None => format!("{}:{port}", d.name),
    }
}

/// The label files of one location: its name and its cables (sorted by the B end's device and
/// port).
pub(crate) struct Location<'a> {
    pub name: String,
    /// `rack` or `switch`.
    pub kind: &'static str,
    pub cables: Vec<CableLabel<'a>>,
}

/// A cable in a label file: the B end's device and port in natural order, and the cable.
type Key<'a> = (Natural<&'a str>, Natural<&'a str>, LinkId);

/// The cables of every location, by the B end's rack (or switch when the spec has no racks).
fn locations<'a>(f: &'a Fabric, names: &'a LinkNames) -> Vec<Location<'a>> {
    let racks = f.devices().any(|d| d.rack.is_some());
    let mut groups: BTreeMap<String, Vec<Key>> = BTreeMap::new();
    for (i, l) in f.links_with_ids() {
        let b = f.device_of(&l.b);
        let loc = match (&b.rack, racks) {
            (Some(r), true) => r.clone(),
            _ => b.name.clone(),
        };
        groups.entry(loc).or_default().push((
            Natural(b.name.as_str()),
            Natural(names.b_port[i].as_str()),
            i,
        ));
    }
    let kind = if racks { "rack" } else { "switch" };
    groups
        .into_iter()
        .map(|(name, mut keys)| {
            keys.sort();
            let cables = keys
                .iter()
                .map(|&(_, _, i)| {
                    let l = f.link(i);
                    let p = &names.build[i];
                    CableLabel {
                        id: l.cable_id.as_str(),
                        ends: [
                            label_end(f.device_of(&l.a), &names.a_port[i]),
                            label_end(f.device_of(&l.b), &names.b_port[i]),
                        ],
                        part: p.part,
                        leg: &p.leg,
                        modules: [p.a_module, p.b_module],
                    }
                })
                .collect();
            Location { name, kind, cables }
        })
        .collect()
}

/// One format's files of a location, drawn unless `memo` has them from an earlier build.
type Draw = fn(&str, &Location<'_>) -> Result<Vec<OutputFile>, FileError>;

/// Every location's files of one format into `sink` as soon as they are drawn (locations split
/// over the cores; in no particular order). A location's files are a function of the cluster
/// name, the location and its cables' texts: a rebuild carries over those the change did not
/// touch. `unit` names the format in the memo.
fn each_location(
    f: &Fabric,
    names: &LinkNames,
    sink: &Sink<'_>,
    memo: &dyn Memo,
    unit: &str,
    draw: Draw,
) -> Result<(), FileError> {
    let locations = locations(f, names);
    crate::parallel::chunks(&locations, |part| {
        for loc in part {
            let unit = format!("labels/{}{unit}", loc.name);
            let mut parts: Vec<&[u8]> = vec![f.name.as_bytes(), loc.name.as_bytes()];
            parts.push(loc.kind.as_bytes());
            loc.cables.iter().for_each(|c| c.digest_parts(&mut parts));
            let inputs = unit_digest(&parts);
            if !memo.reuse(&unit, &inputs) {
                let files = draw(&f.name, loc)?;
                memo.record(
                    &unit,
                    &inputs,
                    files.iter().map(|x| x.path.clone()).collect(),
                );
                files.into_iter().for_each(sink);
            }
        }
        Ok(())
    })
    .into_iter()
    .collect()
}

/// The default label files: `labels/<location>.zpl` and `labels/<location>.csv`.
pub fn files(
    f: &Fabric,
    names: &LinkNames,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    each_location(f, names, sink, memo, "", |cluster, loc| {
        Ok(vec![zpl::file(cluster, loc)?, table::file(loc)?])
    })
}

/// The office-printer sheets, on request: `labels/<location>.html`.
pub fn sheets(
    f: &Fabric,
    names: &LinkNames,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), FileError> {
    each_location(f, names, sink, memo, ".html", |cluster, loc| {
        Ok(vec![sheet::file(cluster, loc)?])
    })
}

/// A location of one cable, for the tests of each format.
#[cfg(test)]
fn one_cable<'a>(id: &'a str, part: &'a str) -> Location<'a> {
    Location {
        name: "r1".into(),
        kind: "rack",
        cables: vec![CableLabel {
            id,
            ends: ["r1.leaf_1:swp1".into(), "r1.gpu1:rdma0".into()],
            part,
            leg: "",
            modules: ["", ""],
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_says_both_ends_the_part_leg_and_modules() {
        let c = CableLabel {
            id: "c1",
            ends: ["r1.leaf1:swp1".into(), "r2.gpu1:rdma0".into()],
            part: "MFP7E20-N005",
            leg: "2",
            modules: ["MMA4Z00-NS", "MMA1Z00-NS400"],
        };
        assert_eq!(
            c.lines(1),
            [
                "c1 B",
                "A r1.leaf1:swp1",
                "B r2.gpu1:rdma0",
                "cable MFP7E20-N005 leg 2",
                "A MMA4Z00-NS  B MMA1Z00-NS400"
            ]
        );
        let dac = CableLabel {
            leg: "",
            modules: ["", ""],
            part: "MCP4Y10-N001",
            ..c
        };
        assert_eq!(dac.lines(0)[0], "c1 A");
        assert_eq!(dac.lines(0)[3], "cable MCP4Y10-N001");
        assert_eq!(dac.lines(0)[4], "");
    }
}
