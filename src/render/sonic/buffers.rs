//! Buffers and cable lengths, as the switch would hold them after SONiC generated them itself:
//!
//! - BUFFER_POOL, the static BUFFER_PROFILEs, BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST,
//!   BUFFER_QUEUE and the lossy BUFFER_PG of every port, as the HWSKU's buffer templates render
//!   them (sonic-buildimage `files/build_templates/buffers_config.j2` with the HWSKU's
//!   `buffers_defaults_objects.j2` and `buffers_defaults_t0/t1.j2`, the "traditional" buffer
//!   model): a port with a DEVICE_NEIGHBOR (a cabled port) is active, every other port gets the
//!   zero profiles that hand its buffer back to the pools;
//! - the lossless `pg_lossless_<speed>_<cable>_profile`s and the lossless BUFFER_PG of every
//!   lossless port, which buffermgrd derives from PORT speed, CABLE_LENGTH and PORT_QOS_MAP
//!   `pfc_enable` through the HWSKU's `pg_profile_lookup.ini` (sonic-swss
//!   `cfgmgr/buffermgr.cpp`, `doSpeedUpdateTask`);
//! - CABLE_LENGTH from the cabling plan's length of each cable, rounded up to the lengths the
//!   headroom table is written for (a 3 m cable gets the 5 m headroom), where SONiC's template
//!   would guess a length from the neighbour's role.
//!
//! Writing what SONiC derives keeps `config replace` and golden-config diffs quiet: buffermgrd
//! finds the profiles it would create already there and reuses them.

use std::collections::{BTreeMap, BTreeSet};

use super::ports::LaidPort;
use super::tables::{BufferPool, BufferProfile, BufferProfileRef, ConfigDb, Key, ProfileList};
use crate::catalog::sonic::{BufferDefaults, Headroom, Hwsku, Topology};
use crate::intent::DeviceIntent;
use crate::model::Role;

const INGRESS_LOSSLESS_POOL: &str = "ingress_lossless_pool";
const INGRESS_LOSSY_POOL: &str = "ingress_lossy_pool";
const EGRESS_LOSSLESS_POOL: &str = "egress_lossless_pool";
const EGRESS_LOSSY_POOL: &str = "egress_lossy_pool";
const INGRESS_ZERO_POOL: &str = "ingress_zero_pool";

/// The CABLE_LENGTH table's one entry (`buffers_config.j2` writes `"AZURE"`).
const CABLE_LENGTH_NAME: &str = "AZURE";

/// Queues and PGs the templates treat as lossless (`<port>|3-4`), and the lossy rest.
const LOSSLESS_QUEUES: &str = "3-4";
const LOSSY_QUEUES: [&str; 2] = ["0-2", "5-6"];
const LOSSY_PG: &str = "0";

/// `buffers_config.j2`: ToRRouter → `_t0`, LeafRouter → `_t1`, SpineRouter → `_t2`. NVIDIA ships
/// no `_t2` for these HWSKUs (a `config qos reload` on a SpineRouter would fail to import it), so
/// a core switch gets the `_t1` pools, the template of the tier closest to it.
fn topology(role: Role) -> Topology {
    match role {
        Role::Spine
        | Role::StorageSpine
        | Role::InbandSpine
        | Role::Core
        | Role::StorageCore
        | Role::InbandCore => Topology::T1,
        _ => Topology::T0,
    }
}

/// The cable length buffermgrd looks up for a cable: the shortest length of the headroom table
/// at that speed that is at least the cable's, or the cable's own length (rounded up) when the
/// table has none, which only a lossy port can have (RY0112 refuses it on a lossless one).
fn cable_length(h: &Hwsku, speed_mbps: u32, metres: f64) -> String {
    h.headroom
        .iter()
        .filter(|r| r.speed_mbps == speed_mbps && f64::from(r.cable_m) >= metres)
        .min_by_key(|r| r.cable_m)
        .map_or_else(|| format!("{}m", metres.ceil()), |r| r.cable.clone())
}

fn headroom<'h>(h: &'h Hwsku, speed_mbps: u32, cable: &str) -> Option<&'h Headroom> {
    h.headroom
        .iter()
        .find(|r| r.speed_mbps == speed_mbps && r.cable == cable)
}

fn profile(pool: &'static str, size: &str, dynamic_th: &str) -> BufferProfile {
    BufferProfile {
        dynamic_th: Some(dynamic_th.into()),
        pool,
        size: size.into(),
        static_th: None,
        xoff: None,
        xon: None,
        xon_offset: None,
    }
}

fn pool(kind: &'static str, size: &str) -> BufferPool {
    BufferPool {
        mode: "dynamic",
        size: size.into(),
        kind,
    }
}

/// `generateIdListFromMap` of buffermgrd: `[3, 4]` → `3-4`, `[3]` → `3`.
fn pg_range(pgs: &[u8]) -> String {
    let mut v: Vec<u8> = pgs.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(",")
}

pub fn buffers(
    d: &DeviceIntent,
    hwsku: &Hwsku,
    ports: &[LaidPort<'_>],
    db: &mut ConfigDb,
) -> Result<(), String> {
    let defaults = hwsku.buffers.get(&topology(d.role)).ok_or_else(|| {
        format!(
            "{} has no buffer defaults for {:?}",
            hwsku.name,
            topology(d.role)
        )
    })?;
    let inactive = ports.iter().any(|p| p.cabled.is_none());
    pools(defaults, inactive, db);
    static_profiles(inactive, db);
    for p in ports {
        port_buffers(p, db);
    }
    cable_lengths(hwsku, defaults, ports, db);
    lossless(d, hwsku, ports, db)
}

/// `generate_buffer_pool_and_profiles_with_inactive_ports`: the four pools, and the zero pool
/// when some port is inactive.
fn pools(b: &BufferDefaults, inactive: bool, db: &mut ConfigDb) {
    if inactive {
        db.buffer_pool.insert(
            INGRESS_ZERO_POOL.into(),
            BufferPool {
                mode: "static",
                size: "0".into(),
                kind: "ingress",
            },
        );
    }
    for (name, kind, size) in [
        (
            INGRESS_LOSSLESS_POOL,
            "ingress",
            &b.ingress_lossless_pool_size,
        ),
        (INGRESS_LOSSY_POOL, "ingress", &b.ingress_lossy_pool_size),
        (EGRESS_LOSSLESS_POOL, "egress", &b.egress_lossless_pool_size),
        (EGRESS_LOSSY_POOL, "egress", &b.egress_lossy_pool_size),
    ] {
        db.buffer_pool.insert(name.into(), pool(kind, size));
    }
}

/// The template's profiles (same macro): the working ones, and the zero ones of inactive ports.
fn static_profiles(inactive: bool, db: &mut ConfigDb) {
    let mut put = |name: &str, p: BufferProfile| {
        db.buffer_profile.insert(name.into(), p);
    };
    if inactive {
        put(
            "ingress_lossy_pg_zero_profile",
            BufferProfile {
                dynamic_th: None,
                static_th: Some("0".into()),
                ..profile(INGRESS_ZERO_POOL, "0", "")
            },
        );
        put(
            "ingress_lossless_zero_profile",
            profile(INGRESS_LOSSLESS_POOL, "0", "-8"),
        );
        put(
            "ingress_lossy_zero_profile",
            profile(INGRESS_LOSSY_POOL, "0", "-8"),
        );
        put(
            "egress_lossless_zero_profile",
            profile(EGRESS_LOSSLESS_POOL, "0", "-8"),
        );
        put(
            "egress_lossy_zero_profile",
            profile(EGRESS_LOSSY_POOL, "0", "-8"),
        );
    }
    put(
        "ingress_lossless_profile",
        profile(INGRESS_LOSSLESS_POOL, "0", "7"),
    );
    put(
        "ingress_lossy_profile",
        profile(INGRESS_LOSSY_POOL, "0", "3"),
    );
    put(
        "egress_lossless_profile",
        profile(EGRESS_LOSSLESS_POOL, "0", "7"),
    );
    put(
        "egress_lossy_profile",
        profile(EGRESS_LOSSY_POOL, "9216", "7"),
    );
    put("q_lossy_profile", profile(EGRESS_LOSSY_POOL, "0", "3"));
}

/// Profile lists, queues and the lossy PG of one port (`generate_profile_lists`,
/// `generate_queue_buffers`, `generate_pg_profiles`).
fn port_buffers(p: &LaidPort<'_>, db: &mut ConfigDb) {
    let name = &p.sub.name;
    let active = p.cabled.is_some();
    let refer = |profile: &str| BufferProfileRef {
        profile: profile.into(),
    };
    let list = |profiles: &str| ProfileList {
        profile_list: profiles.into(),
    };
    let (ingress, egress, lossless_q, lossy_q, lossy_pg) = if active {
        (
            "ingress_lossless_profile,ingress_lossy_profile",
            "egress_lossless_profile,egress_lossy_profile",
            "egress_lossless_profile",
            "q_lossy_profile",
            "ingress_lossy_profile",
        )
    } else {
        (
            "ingress_lossless_zero_profile,ingress_lossy_zero_profile",
            "egress_lossless_zero_profile,egress_lossy_zero_profile",
            "egress_lossless_zero_profile",
            "egress_lossy_zero_profile",
            "ingress_lossy_pg_zero_profile",
        )
    };
    db.buffer_port_ingress_profile_list
        .insert(Key(name.clone()), list(ingress));
    db.buffer_port_egress_profile_list
        .insert(Key(name.clone()), list(egress));
    db.buffer_queue
        .insert(Key(format!("{name}|{LOSSLESS_QUEUES}")), refer(lossless_q));
    for q in LOSSY_QUEUES {
        db.buffer_queue
            .insert(Key(format!("{name}|{q}")), refer(lossy_q));
    }
    db.buffer_pg
        .insert(Key(format!("{name}|{LOSSY_PG}")), refer(lossy_pg));
}

/// CABLE_LENGTH of every port: the cabling plan's length for a cabled port, the template's
/// `default_cable` for the others.
fn cable_lengths(h: &Hwsku, b: &BufferDefaults, ports: &[LaidPort<'_>], db: &mut ConfigDb) {
    let lengths = ports
        .iter()
        .map(|p| {
            let len = match p.cabled {
                Some(i) => cable_length(h, p.speed_mbps, i.cable_length_m),
                None => b.default_cable.clone(),
            };
            (Key(p.sub.name.clone()), len)
        })
        .collect();
    db.cable_length.insert(CABLE_LENGTH_NAME.into(), lengths);
}

/// What buffermgrd writes for every port with a PORT_QOS_MAP entry (every cabled port): the
/// `pg_lossless_<speed>_<cable>_profile` of its speed and cable (created even for a port with
/// no PFC, as `doSpeedUpdateTask` does), and for a lossless port the BUFFER_PG of its PFC
/// priorities pointing at it. The threshold field is named after the ingress lossless pool's
/// mode (`dynamic_th`).
fn lossless(
    d: &DeviceIntent,
    h: &Hwsku,
    ports: &[LaidPort<'_>],
    db: &mut ConfigDb,
) -> Result<(), String> {
    let pfc: Vec<u8> = d
        .qos
        .as_ref()
        .map(|q| q.pfc_priorities.clone())
        .unwrap_or_default();
    let lossless_ports: BTreeSet<&str> = d
        .qos
        .as_ref()
        .map(|q| q.ports.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let mut profiles: BTreeMap<String, &Headroom> = BTreeMap::new();
    for p in ports {
        let Some(i) = p.cabled else { continue };
        if d.qos.is_none() {
            continue;
        }
        let cable = cable_length(h, p.speed_mbps, i.cable_length_m);
        let is_lossless = lossless_ports.contains(i.name.as_str()) && !pfc.is_empty();
        let Some(row) = headroom(h, p.speed_mbps, &cable) else {
            if is_lossless {
                return Err(format!(
                    "{}: no lossless headroom in {} for {} Mb/s over {cable}",
                    i.name, h.name, p.speed_mbps
                ));
            }
            continue;
        };
        let name = format!("pg_lossless_{}_{cable}_profile", p.speed_mbps);
        if is_lossless {
            db.buffer_pg.insert(
                Key(format!("{}|{}", i.name, pg_range(&pfc))),
                BufferProfileRef {
                    profile: name.clone(),
                },
            );
        }
        profiles.insert(name, row);
    }
    for (name, r) in profiles {
        db.buffer_profile.insert(
            Key(name),
            BufferProfile {
                dynamic_th: Some(r.threshold.clone()),
                pool: INGRESS_LOSSLESS_POOL,
                size: r.size.clone(),
                static_th: None,
                xoff: Some(r.xoff.clone()),
                xon: Some(r.xon.clone()),
                xon_offset: r.xon_offset.clone(),
            },
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pg_lists_collapse_into_ranges_like_buffermgrd() {
        assert_eq!(pg_range(&[3]), "3");
        assert_eq!(pg_range(&[4, 3]), "3-4");
        assert_eq!(pg_range(&[1, 3, 4]), "1,3-4");
    }
}
