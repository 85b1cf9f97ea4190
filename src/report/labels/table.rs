//! `labels/<location>.csv`: the labels as data for label software to import and print on its
//! own templates (BarTender, Brady Workstation and the like). BarTender reads a text database
//! with a header row that names the fields, one record per line, "Mixed Quote and Comma"
//! delimitation by default (Seagull Scientific, BarTender help, "About Delimitation":
//! <https://help.seagullscientific.com/2016/en/Content/Delimitation_About.htm>); a template maps
//! each of its text objects and its QR code to a column by that name. So: one row per label (two
//! per cable), the header first, one column per printed line (`line1` … `line5`, as the ZPL and
//! HTML labels print them), `qr` the code's payload (the cable id), and the fields the lines are
//! made of for templates of another layout. Written by the one CSV writer (`output::csv`), whose
//! cells are safe from spreadsheet formulas.

use super::{ENDS, Location};
use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};

pub(super) const COLUMNS: [Column; 14] = [
    Column::text("cable_id"),
    Column::text("end"),
    Column::text("qr"),
    Column::text("line1"),
    Column::text("line2"),
    Column::text("line3"),
    Column::text("line4"),
    Column::text("line5"),
    Column::text("a_end"),
    Column::text("b_end"),
    Column::text("cable_part"),
    Column::number("leg"),
    Column::text("a_module"),
    Column::text("b_module"),
];

/// The label-software import of one location.
pub(super) fn file(loc: &Location<'_>) -> Result<OutputFile, FileError> {
    let path = format!("labels/{}.csv", loc.name);
    let mut w = Writer::new(&COLUMNS);
    for c in &loc.cables {
        for (end, letter) in ENDS.iter().enumerate() {
            let [l1, l2, l3, l4, l5] = c.lines(end);
            w.row([
                c.id,
                letter,
                c.id,
                &l1,
                &l2,
                &l3,
                &l4,
                &l5,
                &c.ends[0],
                &c.ends[1],
                c.part,
                c.leg,
                c.modules[0],
                c.modules[1],
            ]);
        }
    }
    Ok(OutputFile::new(
        OutputGroup::Report,
        path.clone(),
        w.finish().in_file(&path)?,
    ))
}
