//! Where a switch port physically is, read from the build's port maps (`portmaps/<switch>.csv`:
//! `port`, `cage`), so a cable is matched by its physical ends (issue #47 item 4): the same cage
//! and lane of the same switch is the same port whatever the network OS calls it (`swp1s1` on
//! NVUE, `Ethernet4` on SONiC, `Ethernet1/5` on EOS), and a platform change renames ports
//! without moving a cable. A port map lists a cage's ports in lane order; a port outside any
//! cage (the management port) is numbered among those. Ports no map lists keep their names.
//! Only a switch of the same model on both sides (`plan.json`) is matched so: a switch replaced
//! by another model is a new box, and its cables are matched by port name as before (re-fitted
//! where the names stay, moved where they change).

use std::collections::BTreeMap;

use super::Files;
use super::table::Table;

/// Switch → port name → the port's physical identity (`#c<cage>.<lane>`, `#m<k>`), which no
/// port name takes (names are checked identifiers without `#`); nested so a cable end is looked
/// up by reference, without copying its names.
pub type Slots = BTreeMap<String, BTreeMap<String, String>>;

/// Each device's model, from `plan.json` (empty when the build has none).
fn models(files: &Files) -> BTreeMap<String, String> {
    let Some(doc) = files
        .get("plan.json")
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
    else {
        return BTreeMap::new();
    };
    doc["devices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| {
            Some((
                d["name"].as_str()?.to_string(),
                d["model"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// The physical identity of every port the build's port maps list, on the switches whose model
/// the `other` side's build shares.
pub fn slots(files: &Files, other: &Files) -> Slots {
    let (models, theirs) = (models(files), models(other));
    let mut out = Slots::new();
    for (path, bytes) in files {
        let Some(device) = path
            .strip_prefix("portmaps/")
            .and_then(|p| p.strip_suffix(".csv"))
        else {
            continue;
        };
        let Ok(t) = Table::parse(path, bytes, &["port", "cage"]) else {
            continue;
        };
        if models.get(device) != theirs.get(device) {
            continue;
        }
        let mut lanes: BTreeMap<String, u32> = BTreeMap::new();
        for r in t.rows() {
            let cage = r.get("cage");
            let n = lanes.entry(cage.to_string()).or_default();
            let id = if cage.is_empty() {
                format!("#m{n}")
            } else {
                format!("#c{cage}.{n}")
            };
            *n += 1;
            out.entry(device.to_string())
                .or_default()
                .insert(r.get("port").to_string(), id);
        }
    }
    out
}
