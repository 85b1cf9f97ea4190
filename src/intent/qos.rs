//! The RoCE class (NVIDIA Cumulus Linux RoCE documentation): trust DSCP; RoCE DSCP → its priority and traffic class with PFC
//! (lossless) and ECN; CNP DSCP → strict priority; DWRR between RoCE and the default class.

use super::device::{Ecn, EtsWeight, Interface, PfcWatchdog, Qos, QosMode, TrafficClass};
use crate::model::Platform;
use crate::spec::{ClusterSpec, RoceMode};
use crate::topology::{Device, Fabric};

/// The RoCE class of a switch on a network that carries RoCE: the compute fabric, and a storage
/// fabric whose nodes reach storage over RDMA (the same class, so a node's NIC settings agree).
pub fn build(
    spec: &ClusterSpec,
    f: &Fabric,
    d: &Device,
    platform: Platform,
    ifs: &[Interface],
) -> Option<Qos> {
    if !super::runs_roce(f, d.network) || !platform.has_qos() {
        return None;
    }
    let r = &spec.roce;
    let lossless = r.mode == RoceMode::Lossless;
    // Priority n maps to traffic class n (the NVIDIA default profile).
    let roce = TrafficClass {
        dscp: *r.dscp,
        priority: *r.priority,
        traffic_class: *r.priority,
    };
    let cnp = TrafficClass {
        dscp: *r.cnp_dscp,
        priority: *r.cnp_priority,
        traffic_class: *r.cnp_priority,
    };
    Some(Qos {
        mode: if lossless {
            QosMode::Lossless
        } else {
            QosMode::Lossy
        },
        pfc_priorities: if lossless {
            vec![roce.priority]
        } else {
            Vec::new()
        },
        ecn: Ecn {
            traffic_class: roce.traffic_class,
            min_bytes: *r.ecn_min_bytes,
            max_bytes: *r.ecn_max_bytes,
            probability: *r.ecn_probability,
        },
        ets: vec![
            EtsWeight {
                traffic_class: 0,
                weight: 100 - *r.roce_weight,
            },
            EtsWeight {
                traffic_class: roce.traffic_class,
                weight: *r.roce_weight,
            },
        ],
        strict_traffic_classes: vec![cnp.traffic_class],
        pfc_watchdog: (lossless && r.pfc_watchdog).then(|| PfcWatchdog {
            detection_ms: *r.pfc_watchdog_detection_ms,
            restoration_ms: *r.pfc_watchdog_restoration_ms,
            action: "drop".into(),
        }),
        // Every data port carries the RoCE class; `lossless` only adds PFC.
        ports: ifs.iter().map(|i| i.name.clone()).collect(),
        roce,
        cnp,
    })
}
