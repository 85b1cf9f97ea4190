//! Parts to order: the bill of materials' delta by part number and description (`bom.csv`:
//! part, description, quantity, spares, order). A length-coded family (one part number for
//! every length, the length in the description: `GEN-MPO12-UPC-4LC-OM4 … 15 m`) is a line per
//! length, so a 15 m harness swapped for an 18 m one is one left over and one to order, never
//! netted to nothing. A part the new design needs more of is ordered; one it needs fewer of is
//! left over (returned or kept as spares), never a disruption by itself.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::table::Table;
use super::{ChangeError, Files, both};

pub const PATH: &str = "bom.csv";

/// One part whose counts differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartDelta {
    pub part: String,
    pub category: String,
    pub description: String,
    pub old: Counts,
    pub new: Counts,
    /// `new.order - old.order`: positive to order, negative left over.
    pub order_delta: i64,
}

/// A part's counts on one side (all zero when the side does not list it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub quantity: i64,
    pub spares: i64,
    pub order: i64,
}

struct Line {
    category: String,
    description: String,
    counts: Counts,
}

/// A bill-of-materials line's identity: part number and description (which carries the length).
type Key = (String, String);

fn parse(bytes: &[u8]) -> Result<BTreeMap<Key, Line>, ChangeError> {
    let t = Table::parse(PATH, bytes, &["part", "quantity", "spares", "order"])?;
    let mut out: BTreeMap<Key, Line> = BTreeMap::new();
    for r in t.rows() {
        let n = |col: &str| {
            r.get(col).parse::<i64>().map_err(|_| {
                ChangeError::new(
                    PATH,
                    format!(
                        "part {}: {col} `{}` is not a count",
                        r.get("part"),
                        r.get(col).escape_debug()
                    ),
                )
            })
        };
        let counts = Counts {
            quantity: n("quantity")?,
            spares: n("spares")?,
            order: n("order")?,
        };
        let key = (r.get("part").to_string(), r.get("description").to_string());
        let line = out.entry(key).or_insert(Line {
            category: r.get("category").to_string(),
            description: r.get("description").to_string(),
            counts: Counts::default(),
        });
        // A part listed twice (in two categories) is ordered as one.
        line.counts.quantity += counts.quantity;
        line.counts.spares += counts.spares;
        line.counts.order += counts.order;
    }
    Ok(out)
}

pub fn compare(old: &Files, new: &Files) -> Result<Vec<PartDelta>, ChangeError> {
    let Some((o, n)) = both(old, new, PATH)? else {
        return Ok(Vec::new());
    };
    let (old, new) = (parse(o)?, parse(n)?);
    let parts: BTreeSet<&Key> = old.keys().chain(new.keys()).collect();
    let mut out = Vec::new();
    for key in parts {
        let (o, n) = (old.get(key), new.get(key));
        let counts = |l: Option<&Line>| l.map(|l| l.counts).unwrap_or_default();
        let (oc, nc) = (counts(o), counts(n));
        if oc == nc {
            continue;
        }
        let Some(about) = n.or(o) else { continue };
        out.push(PartDelta {
            part: key.0.clone(),
            category: about.category.clone(),
            description: about.description.clone(),
            old: oc,
            new: nc,
            order_delta: nc.order - oc.order,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `bom.csv` of these rows.
    fn f(body: &str) -> Files {
        [(
            PATH.to_string(),
            format!("category,part,description,quantity,spares,order\n{body}").into_bytes(),
        )]
        .into_iter()
        .collect()
    }

    #[test]
    fn the_delta_is_by_part_number() {
        let d = compare(
            &f("cable,C1,x,10,1,11\nswitch,S1,y,2,0,2\n"),
            &f("cable,C1,x,20,2,22\nswitch,S1,y,2,0,2\noptic,O1,z,4,0,4\n"),
        )
        .unwrap();
        let got: Vec<(&str, i64)> = d.iter().map(|p| (p.part.as_str(), p.order_delta)).collect();
        assert_eq!(got, vec![("C1", 11), ("O1", 4)]);
    }

    /// #39 item 5: growth lengthens a breakout harness from 15 m to 18 m. The part number is the
    /// same; the order is one 18 m harness and one 15 m left over, not "no change".
    #[test]
    fn a_length_coded_part_is_a_line_per_length() {
        let d = compare(
            &f("fibre,H,\"harness, 15 m\",1,0,1\n"),
            &f("fibre,H,\"harness, 18 m\",1,0,1\n"),
        )
        .unwrap();
        let got: Vec<(&str, i64)> = d
            .iter()
            .map(|p| (p.description.as_str(), p.order_delta))
            .collect();
        assert_eq!(got, vec![("harness, 15 m", -1), ("harness, 18 m", 1)]);
    }
}
