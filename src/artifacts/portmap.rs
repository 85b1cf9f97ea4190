//! Per-switch port maps (CSV and Markdown), every port listed, used or free; and one table of all
//! node ports.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::names::{BuildNames, LinkNames};
use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{Device, Fabric, Link, LinkId, PerDevice, PortId};

struct Row<'a> {
    port: String,
    cage: String,
    speed: String,
    /// The cable and its far end (device, port).
    link: Option<(&'a Link, &'a str, &'a str, &'a BuildNames<'a>)>,
    /// The module in this end's cage (empty for built-in cable ends).
    module: &'a str,
}

/// A cable seen from one of its ends: (port here, the cable, is this the `a` end).
type Attached = (PortId, LinkId, bool);

/// `portmaps/nodes.csv`: every node port with a cable.
const NODE_COLUMNS: [Column; 9] = [
    Column::text("node"),
    Column::text("port"),
    Column::text("network"),
    Column::number("rail"),
    Column::number("plane"),
    Column::text("peer_device"),
    Column::text("peer_port"),
    Column::text("cable_id"),
    Column::text("speed"),
];

/// `portmaps/<switch>.csv`: every port of the switch.
const SWITCH_COLUMNS: [Column; 12] = [
    Column::text("port"),
    Column::text("cage"),
    Column::text("speed"),
    Column::text("peer_device"),
    Column::text("peer_port"),
    Column::text("cable_id"),
    Column::text("network"),
    Column::text("tier"),
    Column::text("media"),
    Column::number("length_m"),
    Column::text("module"),
    Column::text("cable_part"),
];

pub fn port_maps(f: &Fabric, n: &LinkNames) -> Result<Vec<OutputFile>, FileError> {
    let mut by_dev: PerDevice<Vec<Attached>> = PerDevice::of(f, |_, _| Vec::new());
    for (i, l) in f.links_with_ids() {
        by_dev[f.device_id(&l.a)].push((l.a.port, i, true));
        by_dev[f.device_id(&l.b)].push((l.b.port, i, false));
    }
    // The far end of link `i` seen from end `a` (or `b`).
    let far = |i: LinkId, is_a: bool| -> (&str, &str) {
        let l = f.link(i);
        if is_a {
            (f.device_of(&l.b).name.as_str(), n.b_port[i].as_str())
        } else {
            (f.device_of(&l.a).name.as_str(), n.a_port[i].as_str())
        }
    };
    let mut out = Vec::new();
    let mut nodes = Writer::new(&NODE_COLUMNS);
    for (di, d) in f.devices_with_ids() {
        let mut attached = std::mem::take(&mut by_dev[di]);
        attached.sort_by_key(|(p, _, _)| *p);
        if d.role.is_switch() {
            let by_port: BTreeMap<PortId, Row<'_>> = attached
                .iter()
                .map(|(p, i, is_a)| {
                    let (fd, fp) = far(*i, *is_a);
                    let here = if *is_a { &n.a_port[*i] } else { &n.b_port[*i] };
                    let b = &n.build[*i];
                    (
                        *p,
                        Row {
                            port: here.clone(),
                            cage: String::new(),
                            speed: String::new(),
                            link: Some((f.link(*i), fd, fp, b)),
                            module: if *is_a { b.a_module } else { b.b_module },
                        },
                    )
                })
                .collect();
            let rows = switch_rows(f, d, by_port);
            out.push(csv_map(d, &rows)?);
            out.push(md_map(f, d, &rows));
        } else {
            for (_, i, is_a) in &attached {
                let l = f.link(*i);
                let (fd, fp) = far(*i, *is_a);
                let here = if *is_a { &n.a_port[*i] } else { &n.b_port[*i] };
                nodes.row([
                    d.name.as_str(),
                    here,
                    l.network.as_str(),
                    &l.rail.map(|r| r.to_string()).unwrap_or_default(),
                    &l.plane.map(|r| r.to_string()).unwrap_or_default(),
                    fd,
                    fp,
                    &l.cable_id,
                    &l.speed.to_string(),
                ]);
            }
        }
    }
    const NODES: &str = "portmaps/nodes.csv";
    out.push(OutputFile::new(
        OutputGroup::Cabling,
        NODES,
        nodes.finish().in_file(NODES)?,
    ));
    Ok(out)
}

/// Every port of a switch in front-panel order, the management port first; `used` holds the
/// rows of ports that carry a cable.
fn switch_rows<'a>(f: &Fabric, d: &Device, mut used: BTreeMap<PortId, Row<'a>>) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    let mut row_for = |port: PortId, cage: String, speed: String| match used.remove(&port) {
        Some(r) => Row { cage, speed, ..r },
        None => Row {
            port: f.port_name(d, port),
            cage,
            speed,
            link: None,
            module: "",
        },
    };
    rows.push(row_for(PortId::Mgmt, String::new(), "1G".into()));
    let Some(m) = f.switch_model(d) else {
        return rows;
    };
    for g in &m.port_groups {
        let full = g.speed.to_string();
        for cage in g.first..g.first + g.count {
            let lanes = d.cage_lanes.get((cage - 1) as usize).copied().unwrap_or(0);
            let c16 = u16::try_from(cage).unwrap_or(u16::MAX);
            if lanes <= 1 {
                rows.push(row_for(
                    PortId::Cage { cage: c16 },
                    cage.to_string(),
                    full.clone(),
                ));
            } else {
                let speed = format!("{}G", g.speed.as_gbps() / u32::from(lanes));
                for lane in 0..lanes {
                    rows.push(row_for(
                        PortId::Lane { cage: c16, lane },
                        cage.to_string(),
                        speed.clone(),
                    ));
                }
            }
        }
    }
    rows
}

fn csv_map(d: &Device, rows: &[Row<'_>]) -> Result<OutputFile, FileError> {
    let mut w = Writer::new(&SWITCH_COLUMNS);
    for r in rows {
        let (pd, pp, id, net, tier, media, len, part) = match &r.link {
            Some((l, dn, pn, b)) => (
                *dn,
                *pn,
                l.cable_id.as_str(),
                l.network.as_str(),
                l.tier.as_str(),
                b.media,
                b.length.as_str(),
                b.part,
            ),
            None => ("", "", "", "", "", "", "", ""),
        };
        w.row([
            r.port.as_str(),
            &r.cage,
            &r.speed,
            pd,
            pp,
            id,
            net,
            tier,
            media,
            len,
            r.module,
            part,
        ]);
    }
    let path = format!("portmaps/{}.csv", d.name);
    let bytes = w.finish().in_file(&path)?;
    Ok(OutputFile::new(OutputGroup::Cabling, path, bytes))
}

fn md_map(f: &Fabric, d: &Device, rows: &[Row<'_>]) -> OutputFile {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", d.name);
    let _ = writeln!(s, "- Role: {}", d.role.as_str());
    let _ = writeln!(
        s,
        "- Model: {}",
        f.switch_model(d).map_or(d.model.clone(), |m| format!(
            "{} ({})",
            d.model, m.description
        ))
    );
    if let Some(r) = &d.rack {
        let _ = writeln!(s, "- Rack: {r}");
    }
    if !d.rails.is_empty() {
        let _ = writeln!(
            s,
            "- Rails: {}",
            d.rails
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let used = rows.iter().filter(|r| r.link.is_some()).count();
    let _ = writeln!(s, "- Ports in use: {used} of {}\n", rows.len());
    let _ = writeln!(
        s,
        "| Port | Cage | Speed | Peer | Peer port | Cable | Tier |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    let mut k = 0;
    while k < rows.len() {
        let r = &rows[k];
        match &r.link {
            Some((l, dn, pn, _)) => {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {dn} | {pn} | {} | {} |",
                    r.port,
                    r.cage,
                    r.speed,
                    l.cable_id,
                    l.tier.as_str()
                );
                k += 1;
            }
            None => {
                let run = free_run(&rows[k..]);
                free_row(&mut s, &rows[k..k + run]);
                k += run;
            }
        }
    }
    OutputFile::new(OutputGroup::Cabling, format!("portmaps/{}.md", d.name), s)
}

/// How many rows from the first are free ports of one speed (the first is free).
fn free_run(rows: &[Row<'_>]) -> usize {
    rows.iter()
        .take_while(|r| r.link.is_none() && r.speed == rows[0].speed)
        .count()
        .max(1)
}

/// A free port, or a run of three or more as one row (`swp49 … swp64`, cages `49–64`, "16
/// free"): a person reads the port map for what is cabled; the CSV lists every port.
fn free_row(s: &mut String, run: &[Row<'_>]) {
    if run.len() < 3 {
        for r in run {
            let _ = writeln!(
                s,
                "| {} | {} | {} | — | | | free |",
                r.port, r.cage, r.speed
            );
        }
        return;
    }
    let (first, last) = (&run[0], &run[run.len() - 1]);
    let cages = if first.cage == last.cage {
        first.cage.clone()
    } else {
        format!("{}–{}", first.cage, last.cage)
    };
    let _ = writeln!(
        s,
        "| {} … {} | {cages} | {} | — | | | {} free |",
        first.port,
        last.port,
        first.speed,
        run.len()
    );
}
