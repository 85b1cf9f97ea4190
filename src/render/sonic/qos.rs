//! The RoCE class (NVIDIA's lossless RoCE profile: trust DSCP, RoCE on a PFC priority with ECN,
//! CNPs strict; Onyx "RoCE Commands", docs.nvidia.com/networking/display/Onyxv31040100) in SONiC's
//! QoS tables, replacing the `AZURE` maps of SONiC's
//! default QoS template (`files/build_templates/qos_config.j2`). Every cabled port of the switch
//! gets the class (trust DSCP, queues, ECN); PFC and its watchdog go on the lossless ports only.
//! One function per decision: classification, queueing, priority groups, PAUSE handling, ECN,
//! scheduling, the per-port bindings, the watchdog.

use std::collections::{BTreeMap, BTreeSet};

use super::tables::{ConfigDb, Key, PfcWd, PortQosMap, Queue, Scheduler, WredProfile};
use crate::intent::{DeviceIntent, Qos};

/// Name of every QoS map this file defines.
const QOS_MAP: &str = "ROCE";
const ECN_PROFILE: &str = "ROCE_ECN";
const STRICT_SCHEDULER: &str = "STRICT";

/// sonic-pfcwd.yang: POLL_INTERVAL 100..1000 ms, and detection and restoration times must not be
/// shorter than it. sonic-utilities `pfcwd/main.py` polls every 200 ms by default.
const PFCWD_POLL_MIN_MS: u32 = 100;
const PFCWD_POLL_DEFAULT_MS: u32 = 200;

pub fn qos(d: &DeviceIntent, q: &Qos, db: &mut ConfigDb) {
    dscp_to_tc(q, db);
    tc_to_queue(db);
    priority_groups(q, db);
    pfc_to_queue(q, db);
    ecn(q, db);
    let per_queue = schedulers(q, db);
    bindings(d, q, &per_queue, db);
    watchdog(d, q, db);
}

/// Priority → traffic class, as the intent maps it (identity unless a class says otherwise).
fn tc_of_priority(q: &Qos, p: u8) -> u8 {
    if p == q.roce.priority {
        q.roce.traffic_class
    } else if p == q.cnp.priority {
        q.cnp.traffic_class
    } else {
        p
    }
}

fn map<V: ToString>(entries: impl IntoIterator<Item = (u8, V)>) -> BTreeMap<u8, String> {
    entries
        .into_iter()
        .map(|(k, v)| (k, v.to_string()))
        .collect()
}

/// Classification. The map tables are `{<map name>: {"<from>": "<to>"}}` (Configuration.md
/// DSCP_TO_TC_MAP). All 64 DSCPs are explicit: RoCE and CNP to their classes, everything else to
/// TC 0. The AZURE map would send DSCP 26 (RoCE) to TC 1, a lossy queue.
fn dscp_to_tc(q: &Qos, db: &mut ConfigDb) {
    let tc = |v: u8| {
        if v == q.roce.dscp {
            q.roce.traffic_class
        } else if v == q.cnp.dscp {
            q.cnp.traffic_class
        } else {
            0
        }
    };
    db.dscp_to_tc_map
        .insert(QOS_MAP.into(), map((0u8..64).map(|v| (v, tc(v)))));
}

/// Queueing: one queue per traffic class.
fn tc_to_queue(db: &mut ConfigDb) {
    db.tc_to_queue_map
        .insert(QOS_MAP.into(), map((0u8..8).map(|tc| (tc, tc))));
}

/// Priority groups. A lossless class needs its own PG, numbered after its PFC priority: the PG
/// that sends PAUSE for that priority and that buffermgrd gives the lossless headroom
/// (`BUFFER_PG <port>|<pfc_enable>`). Lossy classes share PG 0. NVIDIA ASICs also map a received
/// PFC priority to a PG (`PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`, which `qos_config.j2` writes for
/// Mellanox and Barefoot only); it is the identity on the lossless priorities.
fn priority_groups(q: &Qos, db: &mut ConfigDb) {
    let lossless_pg: BTreeMap<u8, u8> = q
        .pfc_priorities
        .iter()
        .map(|&p| (tc_of_priority(q, p), p))
        .collect();
    db.tc_to_priority_group_map.insert(
        QOS_MAP.into(),
        map((0u8..8).map(|tc| (tc, lossless_pg.get(&tc).copied().unwrap_or(0)))),
    );
    if !q.pfc_priorities.is_empty() {
        db.pfc_priority_to_priority_group_map.insert(
            QOS_MAP.into(),
            map(q.pfc_priorities.iter().map(|&p| (p, p))),
        );
    }
}

/// PAUSE handling: a PFC frame received for a priority pauses the queue its class uses.
fn pfc_to_queue(q: &Qos, db: &mut ConfigDb) {
    db.map_pfc_priority_to_queue.insert(
        QOS_MAP.into(),
        map((0u8..8).map(|p| (p, tc_of_priority(q, p)))),
    );
}

/// ECN marking on the RoCE queue. The profile has the shape of `qos_config.j2`'s
/// AZURE_LOSSLESS (all three colours enabled, `ecn_all`); the newer separate `ecn_*_threshold`
/// fields are left out because released images do not know them.
fn ecn(q: &Qos, db: &mut ConfigDb) {
    let e = &q.ecn;
    db.wred_profile.insert(
        ECN_PROFILE.into(),
        WredProfile {
            ecn: "ecn_all",
            green_drop_probability: e.probability.to_string(),
            green_max_threshold: e.max_bytes.to_string(),
            green_min_threshold: e.min_bytes.to_string(),
            red_drop_probability: e.probability.to_string(),
            red_max_threshold: e.max_bytes.to_string(),
            red_min_threshold: e.min_bytes.to_string(),
            wred_green_enable: "true",
            wred_red_enable: "true",
            wred_yellow_enable: "true",
            yellow_drop_probability: e.probability.to_string(),
            yellow_max_threshold: e.max_bytes.to_string(),
            yellow_min_threshold: e.min_bytes.to_string(),
        },
    );
}

/// Scheduling: DWRR weights and the strict CNP class. Schedulers are named after what they do:
/// sonic-scheduler.yang marks `type` and `weight` create-only, so a changed weight must be a new
/// scheduler, not an edit of an earlier one. Returns the QUEUE row of each traffic class.
fn schedulers(q: &Qos, db: &mut ConfigDb) -> BTreeMap<u8, Queue> {
    let mut per_queue: BTreeMap<u8, Queue> = BTreeMap::new();
    for w in &q.ets {
        let name = format!("DWRR_{}", w.weight);
        db.scheduler.insert(
            Key(name.clone()),
            Scheduler {
                kind: "DWRR",
                weight: Some(w.weight.to_string()),
            },
        );
        per_queue.entry(w.traffic_class).or_default().scheduler = Some(name);
    }
    for &tc in &q.strict_traffic_classes {
        db.scheduler.insert(
            STRICT_SCHEDULER.into(),
            Scheduler {
                kind: "STRICT",
                weight: None,
            },
        );
        per_queue.entry(tc).or_default().scheduler = Some(STRICT_SCHEDULER.into());
    }
    per_queue
        .entry(q.ecn.traffic_class)
        .or_default()
        .wred_profile = Some(ECN_PROFILE);
    per_queue
}

/// `[3, 4]` → `"3,4"`, the list format of PORT_QOS_MAP.
fn list(v: &[u8]) -> String {
    v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

/// Per port: the maps, PFC on the lossless ports (explicitly off elsewhere), the watchdog's
/// queues (`qos_config.j2` guards the same queues it makes lossless), and the queue rows.
fn bindings(d: &DeviceIntent, q: &Qos, per_queue: &BTreeMap<u8, Queue>, db: &mut ConfigDb) {
    let lossless: BTreeSet<&str> = q.ports.iter().map(String::as_str).collect();
    let pfc = list(&q.pfc_priorities);
    let guarded = match q.pfc_watchdog {
        Some(_) => list(
            &q.pfc_priorities
                .iter()
                .map(|&p| tc_of_priority(q, p))
                .collect::<Vec<_>>(),
        ),
        None => String::new(),
    };
    db.port_qos_map.insert(
        "global".into(),
        PortQosMap {
            dscp_to_tc_map: Some(QOS_MAP),
            ..PortQosMap::default()
        },
    );
    for i in &d.interfaces {
        let on = lossless.contains(i.name.as_str());
        db.port_qos_map.insert(
            Key(i.name.clone()),
            PortQosMap {
                dscp_to_tc_map: Some(QOS_MAP),
                pfc_enable: Some(if on { pfc.clone() } else { String::new() }),
                pfc_to_pg_map: (!q.pfc_priorities.is_empty()).then_some(QOS_MAP),
                pfc_to_queue_map: Some(QOS_MAP),
                pfcwd_sw_enable: Some(if on { guarded.clone() } else { String::new() }),
                tc_to_pg_map: Some(QOS_MAP),
                tc_to_queue_map: Some(QOS_MAP),
            },
        );
        for (tc, row) in per_queue {
            db.queue
                .insert(Key(format!("{}|{tc}", i.name)), row.clone());
        }
    }
}

/// The PFC watchdog on every lossless port, and its poll interval: the default 200 ms unless a
/// detection or restoration time is shorter, never below the 100 ms the model allows.
fn watchdog(d: &DeviceIntent, q: &Qos, db: &mut ConfigDb) {
    let Some(wd) = &q.pfc_watchdog else { return };
    let lossless: BTreeSet<&str> = q.ports.iter().map(String::as_str).collect();
    for i in d
        .interfaces
        .iter()
        .filter(|i| lossless.contains(i.name.as_str()))
    {
        db.pfc_wd.insert(
            Key(i.name.clone()),
            PfcWd {
                action: Some(wd.action.clone()),
                detection_time: Some(wd.detection_ms.to_string()),
                restoration_time: Some(wd.restoration_ms.to_string()),
                poll_interval: None,
            },
        );
    }
    let poll = PFCWD_POLL_DEFAULT_MS
        .min(wd.detection_ms)
        .min(wd.restoration_ms)
        .max(PFCWD_POLL_MIN_MS);
    db.pfc_wd.insert(
        "GLOBAL".into(),
        PfcWd {
            poll_interval: Some(poll.to_string()),
            ..PfcWd::default()
        },
    );
}
