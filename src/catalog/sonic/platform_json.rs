//! `platform.json` (ports, lanes, breakout modes) and `hwsku.json` (default breakout per port).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{BreakoutMode, PlatformPort};

#[derive(Deserialize)]
struct PlatformJson {
    interfaces: BTreeMap<String, InterfaceJson>,
}

#[derive(Deserialize)]
struct InterfaceJson {
    index: String,
    lanes: String,
    breakout_modes: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
struct HwskuJson {
    interfaces: BTreeMap<String, HwskuPort>,
}

#[derive(Deserialize)]
struct HwskuPort {
    default_brkout_mode: String,
}

fn numbers(list: &str, what: &str) -> Result<Vec<u32>, String> {
    list.split(',')
        .map(|n| {
            n.trim()
                .parse()
                .map_err(|_| format!("{what} `{list}` is not a list of numbers"))
        })
        .collect()
}

/// Every port of the platform, in front-panel order. Modes SONiC spells as mixes of widths
/// (`4x100G(4)+1x400G(4)`) are not carried: railyard splits a cage evenly.
pub fn ports(text: &str) -> Result<Vec<PlatformPort>, String> {
    let parsed: PlatformJson =
        serde_json::from_str(text).map_err(|e| format!("platform.json: {e}"))?;
    let mut out = Vec::new();
    for (name, i) in parsed.interfaces {
        let number = name
            .strip_prefix("Ethernet")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("port name `{name}` is not Ethernet<n>"))?;
        let lanes = numbers(&i.lanes, "lanes")?;
        let indexes = numbers(&i.index, "index")?;
        let cage = *indexes
            .first()
            .ok_or_else(|| format!("{name}: empty index"))?;
        let mut modes = Vec::new();
        for (mode, aliases) in i.breakout_modes {
            if mode.contains('+') {
                continue;
            }
            modes.push(parse_mode(&mode, aliases).map_err(|e| format!("{name}: {e}"))?);
        }
        out.push(PlatformPort {
            name,
            number,
            cage,
            lanes,
            indexes,
            modes,
        });
    }
    out.sort_by_key(|p| (p.cage, p.number));
    Ok(out)
}

/// `<n>x<speed>[<speed>,…]`, speeds as `400G` or in Mb/s (`1000`), as `portconfig.py` reads them
/// (`BRKOUT_PATTERN`, `_speed_to_int`).
fn parse_mode(mode: &str, aliases: Vec<String>) -> Result<BreakoutMode, String> {
    let bad = || format!("breakout mode `{mode}` is not <n>x<speed>[<speeds>]");
    let (head, alts) = match mode.split_once('[') {
        Some((h, rest)) => (h, rest.strip_suffix(']').ok_or_else(bad)?),
        None => (mode, ""),
    };
    let (n, speed) = head.split_once('x').ok_or_else(bad)?;
    let ports: u32 = n.parse().map_err(|_| bad())?;
    let default_mbps = mbps(speed).ok_or_else(bad)?;
    let mut speeds_mbps = vec![default_mbps];
    for s in alts.split(',').filter(|s| !s.is_empty()) {
        speeds_mbps.push(mbps(s.trim()).ok_or_else(bad)?);
    }
    if aliases.len() != ports as usize {
        return Err(format!("mode `{mode}` lists {} aliases", aliases.len()));
    }
    Ok(BreakoutMode {
        name: mode.to_string(),
        ports,
        default_mbps,
        speeds_mbps,
        aliases,
    })
}

fn mbps(s: &str) -> Option<u32> {
    match s.strip_suffix('G') {
        Some(g) => g.parse::<u32>().ok()?.checked_mul(1000),
        None => s.parse().ok(),
    }
}

/// Port name → default breakout mode of the HWSKU.
pub fn default_modes(text: &str) -> Result<BTreeMap<String, String>, String> {
    let parsed: HwskuJson = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(parsed
        .interfaces
        .into_iter()
        .map(|(k, v)| (k, v.default_brkout_mode))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_in_gigabits_and_megabits() {
        let m = parse_mode("2x400G[200G,100G]", vec!["a".into(), "b".into()]).unwrap();
        assert_eq!((m.ports, m.default_mbps), (2, 400_000));
        assert_eq!(m.speeds_mbps, vec![400_000, 200_000, 100_000]);
        let rj45 = parse_mode("1x1000[100,10]", vec!["etp1".into()]).unwrap();
        assert_eq!(rj45.speeds_mbps, vec![1000, 100, 10]);
        assert!(parse_mode("2x400G", vec!["a".into()]).is_err());
        assert!(parse_mode("twoxfast", vec![]).is_err());
    }
}
