//! Columns of the diagram: a device's SU, or its pod when SUs are too many to draw one by one,
//! or the central rows (devices of no SU).

use super::{Mode, PER_SU_MAX_SUS};
use crate::topology::{Device, Fabric};

/// The column a device belongs to: its SU, or its pod, or the central network rows.
pub struct Columns {
    mode: Mode,
    pod_size: u32,
}

impl Columns {
    /// A pod is a spine group when the fabric has spine groups, else an even run of SUs.
    pub fn new(mode: Mode, f: &Fabric) -> Self {
        let c = &f.sizing.compute;
        let pod_size = if c.tiers == 3 && c.sus_per_group > 0 {
            c.sus_per_group
        } else {
            f.sizing.sus.div_ceil(PER_SU_MAX_SUS).max(1)
        };
        Self { mode, pod_size }
    }

    pub fn of_su(&self, su: u32) -> String {
        match self.mode {
            Mode::PerPod => format!("pod{}", (su.max(1) - 1) / self.pod_size + 1),
            _ => format!("su{su}"),
        }
    }

    pub fn of(&self, d: &Device) -> String {
        match d.su {
            Some(su) => self.of_su(su),
            None => "central".into(),
        }
    }

    /// `SU 3`, `Pod 2`: the column's name on a box.
    pub fn short(&self, col: &str) -> String {
        if let Some(p) = col.strip_prefix("pod") {
            format!("Pod {p}")
        } else if let Some(s) = col.strip_prefix("su") {
            format!("SU {s}")
        } else {
            "central".into()
        }
    }

    /// `SU 3`, `Pod 2 (SU 5–8)`: the column's name on a frame.
    pub fn label(&self, col: &str) -> String {
        if let Some(p) = col.strip_prefix("pod") {
            let p: u32 = p.parse().unwrap_or(1);
            let first = (p - 1) * self.pod_size + 1;
            format!("Pod {p} (SU {first}–{})", first + self.pod_size - 1)
        } else if let Some(s) = col.strip_prefix("su") {
            format!("SU {s}")
        } else {
            "central".into()
        }
    }
}
