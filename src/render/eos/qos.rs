//! EOS QoS for RoCE: DSCP maps to traffic classes, the egress queues (strict, DWRR weights, ECN)
//! and the PFC watchdog, attached to lossless ports through one `service-profile`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::intent::{DeviceIntent, Qos};
use crate::render::RenderError;

/// The QoS profile every lossless port is attached to with `service-profile`.
pub const QOS_PROFILE: &str = "ROCE";
/// EOS takes ECN thresholds in segments, bytes, kbytes, mbytes or milliseconds (AVD schema
/// `uc_tx_queues[].random_detect.ecn.threshold.units`). Bytes keep the spec's figures exact
/// and do not depend on the ASIC's segment size.
const ECN_UNIT: &str = "bytes";

#[derive(Serialize)]
pub struct QosPlan {
    profile: &'static str,
    /// `qos map dscp <dscp> to traffic-class <tc>`, one per marked class.
    dscp_maps: Vec<DscpMap>,
    /// Egress queues by id; traffic class n leaves on queue n (EOS default map).
    queues: Vec<TxQueue>,
    watchdog: Option<Watchdog>,
}

#[derive(Serialize)]
struct DscpMap {
    dscp: u8,
    traffic_class: u8,
}

#[derive(Serialize)]
struct TxQueue {
    id: u8,
    /// `priority strict`; otherwise `no priority` (DWRR).
    strict: bool,
    bandwidth_percent: Option<u8>,
    ecn: Option<EcnThreshold>,
}

#[derive(Serialize)]
struct EcnThreshold {
    min: u32,
    max: u32,
    unit: &'static str,
    max_probability: u8,
}

#[derive(Serialize)]
struct Watchdog {
    /// Seconds, as EOS takes them (`0.2`).
    timeout: String,
    recovery_time: String,
    action: &'static str,
}

pub fn qos_plan(d: &DeviceIntent, q: &Qos) -> Result<QosPlan, RenderError> {
    let mut dscp_maps = vec![
        DscpMap {
            dscp: q.roce.dscp,
            traffic_class: q.roce.traffic_class,
        },
        DscpMap {
            dscp: q.cnp.dscp,
            traffic_class: q.cnp.traffic_class,
        },
    ];
    dscp_maps.sort_by_key(|m| m.dscp);
    dscp_maps.dedup_by_key(|m| m.dscp);

    let mut queues: BTreeMap<u8, TxQueue> = BTreeMap::new();
    for e in &q.ets {
        slot(&mut queues, e.traffic_class).bandwidth_percent = Some(e.weight);
    }
    for &tc in &q.strict_traffic_classes {
        let t = slot(&mut queues, tc);
        t.strict = true;
        t.bandwidth_percent = None;
    }
    slot(&mut queues, q.ecn.traffic_class).ecn = Some(EcnThreshold {
        min: q.ecn.min_bytes,
        max: q.ecn.max_bytes,
        unit: ECN_UNIT,
        max_probability: q.ecn.probability,
    });

    let watchdog = match &q.pfc_watchdog {
        Some(w) => Some(Watchdog {
            timeout: seconds(w.detection_ms),
            recovery_time: seconds(w.restoration_ms),
            action: watchdog_action(d, &w.action)?,
        }),
        None => None,
    };
    Ok(QosPlan {
        profile: QOS_PROFILE,
        dscp_maps,
        queues: queues.into_values().collect(),
        watchdog,
    })
}

fn slot(queues: &mut BTreeMap<u8, TxQueue>, id: u8) -> &mut TxQueue {
    queues.entry(id).or_insert_with(|| TxQueue {
        id,
        strict: false,
        bandwidth_percent: None,
        ecn: None,
    })
}

/// `priority-flow-control pause watchdog action` keywords.
fn watchdog_action(d: &DeviceIntent, action: &str) -> Result<&'static str, RenderError> {
    match action {
        "drop" => Ok("drop"),
        "errdisable" => Ok("errdisable"),
        other => Err(RenderError {
            device: d.hostname.clone(),
            template: "eos/priority-flow-control.j2".into(),
            message: format!("EOS has no PFC watchdog action `{other}` (drop or errdisable)"),
        }),
    }
}

/// Milliseconds as EOS's decimal seconds, without trailing zeros: 200 → `0.2`, 1500 → `1.5`.
fn seconds(ms: u32) -> String {
    let whole = ms / 1000;
    let frac = ms % 1000;
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:03}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_become_eos_seconds() {
        assert_eq!(seconds(200), "0.2");
        assert_eq!(seconds(50), "0.05");
        assert_eq!(seconds(1500), "1.5");
        assert_eq!(seconds(2000), "2");
    }
}
