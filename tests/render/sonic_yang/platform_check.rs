//! The port table against the vendor's own files, read here straight from `catalog/sonic/`
//! (not through railyard's parser): every cage of `platform.json` has a BREAKOUT_CFG mode the
//! file lists, and the PORT rows of a cage are exactly the ports SONiC's dynamic port breakout
//! creates for that mode (sonic-buildimage `portconfig.py` `BreakoutCfg.get_config`: name =
//! cage name + lane offset, the lane slice, the mode's alias, the index of the first lane); an
//! unsplit cage matches the HWSKU's `port_config.ini` row. YANG cannot see any of this (`lanes`
//! is a free string there); `config reload` of a wrong table creates ports the ASIC refuses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

fn catalog() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/sonic")
}

fn s<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or("")
}

/// `port_config.ini`: name → (lanes, alias, index).
fn port_config(path: &Path) -> BTreeMap<String, (String, String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].to_string(),
                (f[1].to_string(), f[2].to_string(), f[3].to_string()),
            )
        })
        .collect()
}

/// Every disagreement between the PORT/BREAKOUT_CFG tables of `db` and the vendor's files.
pub fn check(db: &Map<String, Value>) -> Vec<String> {
    let mut errors = Vec::new();
    let md = &db["DEVICE_METADATA"]["localhost"];
    let (platform, hwsku) = (s(md, "platform"), s(md, "hwsku"));
    let dir = catalog().join(platform);
    let Ok(text) = std::fs::read_to_string(dir.join("platform.json")) else {
        return vec![format!("no platform.json for `{platform}`")];
    };
    let pj: Value = serde_json::from_str(&text).expect("platform.json");
    let cages = pj["interfaces"].as_object().expect("interfaces");
    let sku = port_config(&dir.join(hwsku).join("port_config.ini"));
    let empty = Map::new();
    let ports = db.get("PORT").and_then(Value::as_object).unwrap_or(&empty);
    let breakout = db
        .get("BREAKOUT_CFG")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut expected: BTreeSet<String> = BTreeSet::new();
    for (cage, spec) in cages {
        let Some(mode) = breakout.get(cage).map(|m| s(m, "brkout_mode")) else {
            errors.push(format!("BREAKOUT_CFG has no mode for {cage}"));
            continue;
        };
        let Some(aliases) = spec["breakout_modes"].get(mode).and_then(Value::as_array) else {
            errors.push(format!("{cage}: `{mode}` is not a mode of {platform}"));
            continue;
        };
        let lanes: Vec<&str> = s(spec, "lanes").split(',').collect();
        let indexes: Vec<&str> = s(spec, "index").split(',').collect();
        let base: usize = cage
            .trim_start_matches("Ethernet")
            .parse()
            .expect("EthernetN");
        let per = lanes.len() / aliases.len();
        for (k, alias) in aliases.iter().enumerate() {
            let name = format!("Ethernet{}", base + k * per);
            expected.insert(name.clone());
            let Some(p) = ports.get(&name) else {
                errors.push(format!("{cage} in `{mode}` needs PORT {name}"));
                continue;
            };
            let want_lanes = lanes[k * per..(k + 1) * per].join(",");
            let want_alias = alias.as_str().unwrap_or("");
            let want_index = indexes[k * per];
            for (field, want) in [
                ("lanes", want_lanes.as_str()),
                ("alias", want_alias),
                ("index", want_index),
            ] {
                if s(p, field) != want {
                    errors.push(format!(
                        "PORT {name} {field} `{}`, the platform says `{want}`",
                        s(p, field)
                    ));
                }
            }
            if !mode_speeds(mode).contains(&s(p, "speed").parse().unwrap_or(0)) {
                errors.push(format!(
                    "PORT {name} speed {} is not a speed of `{mode}`",
                    s(p, "speed")
                ));
            }
            if aliases.len() == 1 {
                match sku.get(&name) {
                    Some((l, a, i))
                        if (l.as_str(), a.as_str(), i.as_str())
                            == (s(p, "lanes"), s(p, "alias"), s(p, "index")) => {}
                    Some(row) => errors.push(format!(
                        "PORT {name} differs from {hwsku}/port_config.ini {row:?}"
                    )),
                    None => errors.push(format!("PORT {name} is not in {hwsku}/port_config.ini")),
                }
            }
        }
    }
    for name in ports.keys().filter(|n| !expected.contains(*n)) {
        errors.push(format!(
            "PORT {name} is no port of {platform} in the breakouts written"
        ));
    }
    errors
}

/// Speeds of a mode in Mb/s: `2x400G[200G,100G]` → 400000, 200000, 100000 (`1000` is Mb/s).
fn mode_speeds(mode: &str) -> Vec<u64> {
    let speeds = mode.split_once('x').map_or("", |(_, rest)| rest);
    speeds
        .split(['[', ']', ','])
        .filter(|t| !t.is_empty())
        .filter_map(|t| match t.strip_suffix('G') {
            Some(g) => g.parse::<u64>().ok().map(|g| g * 1000),
            None => t.parse().ok(),
        })
        .collect()
}
