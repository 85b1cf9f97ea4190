//! `bom-not-included.csv`: what a purchase order for the cluster needs beyond `bom.csv`, which
//! railyard does not plan, each with why. A buyer reads the BOM as complete only for what it
//! lists; this file names the rest so that nothing is left off an order by silence (issue #46).
//! The same list for every spec: none of these depend on anything the spec says.

use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile, OutputFile, OutputGroup};

const PATH: &str = "bom-not-included.csv";

const COLUMNS: [Column; 2] = [Column::text("item"), Column::text("why")];

/// Item and why, in the order a buyer meets them (power, mounting, software, cabling plant,
/// labelling, then the model lines of `bom.csv` itself).
const EXCLUDED: [(&str, &str); 8] = [
    (
        "power cords",
        "the connector at each end depends on the chassis power supplies and the site's PDUs \
         (C13/C14, C19/C20 or other), neither of which the catalog or the spec describes",
    ),
    (
        "PDUs",
        "sized by the site's power design (feeds, phases, outlets per rack); railyard plans no \
         power distribution",
    ),
    (
        "rails and rack-mount kits",
        "ordered per chassis model from its vendor; the catalog has no kit part numbers",
    ),
    (
        "software licences and support (switch OS, fabric manager, UFM, NetQ, node OS)",
        "per vendor contract and term; no public price list or part number is sourced",
    ),
    (
        "patch panels, fibre enclosures and cassettes",
        "the panel hardware itself is not planned; the cords railyard plans to a panel are in \
         bom.csv",
    ),
    (
        "cable management (trays, ladders, managers, hook-and-loop)",
        "depends on the room and rack hardware, which the spec does not describe",
    ),
    (
        "label stock",
        "the labels are laid out for one stock, Panduit R200X150V1T (cable OD 5.6-7.1 mm, \
         Panduit R-series self-laminating label data sheet); most fibres are thinner, and no \
         data sheet of a stock for them is sourced, so no stock per cable diameter is chosen: \
         order the stock with the printer after checking each cable's diameter",
    ),
    (
        "orderable numbers of switches and nodes",
        "bom.csv names them by model: the orderable number fixes options (power supplies, \
         airflow, OS, rails) that the spec does not choose; the vendor quotes it from the model",
    ),
];

pub fn not_included_csv() -> Result<OutputFile, FileError> {
    let mut w = Writer::new(&COLUMNS);
    for (item, why) in EXCLUDED {
        w.row([item, why]);
    }
    Ok(OutputFile::new(
        OutputGroup::Cabling,
        PATH,
        w.finish().in_file(PATH)?,
    ))
}
