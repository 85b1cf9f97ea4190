//! Pods: how a large fabric's report and workbook are split (`report/<pod>.html`,
//! `workbooks/<pod>.xlsx`), so a person opens the part they work on and a one-SU change rewrites
//! only its pod's files.
//!
//! A pod of a 3-tier fabric is a spine group: its `sus_per_group` SUs (their leaves, nodes and
//! every device placed in those SUs) and the group's spines, the unit NVIDIA's SuperPOD reference
//! architectures build and cable together. A 2-tier fabric has no spine group (every leaf meets
//! every spine), so a pod is a run of [`SUS_PER_POD_2TIER`] SUs. Devices of no SU and no spine
//! group (cores, storage and in-band spines, the OOB network's upper switches) are the page
//! `central`. A cable belongs to every page one of its ends is on.

use crate::model::{Network, Role};
use crate::topology::{DeviceId, Fabric, LinkId, PerDevice};

/// SUs per pod of a 2-tier fabric: the spine group of the bench's 3-tier fabric (4 SUs,
/// 1,024 GPUs of 8-GPU nodes), so a 2-tier pod page is as large as a 3-tier one.
pub const SUS_PER_POD_2TIER: u32 = 4;

/// The page name of the devices in no pod.
pub const CENTRAL: &str = "central";

pub struct Pods {
    /// Page names, in order: `pod1`, `pod2`, …, then `central` when it has devices.
    pub names: Vec<String>,
    /// What a page holds: `SU 5–8`, `cores and shared switches`.
    pub spans: Vec<String>,
    /// The page of every device.
    pub of_device: PerDevice<usize>,
    /// Every page's devices (ascending).
    pub devices: Vec<Vec<DeviceId>>,
    /// Every page's cables (ascending): those with an end there.
    pub cables: Vec<Vec<LinkId>>,
    /// SUs per pod.
    pub size: u32,
}

impl Pods {
    pub fn of(f: &Fabric) -> Self {
        let c = &f.sizing.compute;
        let three_tier = c.tiers == 3 && c.sus_per_group > 0;
        let size = if three_tier {
            c.sus_per_group
        } else {
            SUS_PER_POD_2TIER
        };
        let pods = f.sizing.sus.div_ceil(size).max(1) as usize;
        let pod = |d: &crate::topology::Device| -> Option<usize> {
            if let Some(su) = d.su {
                return Some(((su.max(1) - 1) / size) as usize);
            }
            let spine = d.role == Role::Spine && d.network == Network::Compute;
            d.group
                .filter(|_| spine && three_tier)
                .map(|g| (g.max(1) - 1) as usize)
        };
        let of_device = PerDevice::of(f, |_, d| pod(d).map_or(pods, |p| p.min(pods - 1)));
        let mut devices = vec![Vec::new(); pods + 1];
        for (i, &p) in of_device.iter() {
            devices[p].push(i);
        }
        let mut cables = vec![Vec::new(); pods + 1];
        for (i, l) in f.links_with_ids() {
            let (a, b) = (of_device[f.device_id(&l.a)], of_device[f.device_id(&l.b)]);
            cables[a].push(i);
            if b != a {
                cables[b].push(i);
            }
        }
        let mut names: Vec<String> = (1..=pods).map(|p| format!("pod{p}")).collect();
        let mut spans: Vec<String> = (1..=pods as u32)
            .map(|p| {
                let first = (p - 1) * size + 1;
                let last = (p * size).min(f.sizing.sus.max(first));
                if first == last {
                    format!("SU {first}")
                } else {
                    format!("SU {first}–{last}")
                }
            })
            .collect();
        if devices[pods].is_empty() {
            devices.pop();
            cables.pop();
        } else {
            names.push(CENTRAL.into());
            spans.push("cores and shared switches".into());
        }
        Self {
            names,
            spans,
            of_device,
            devices,
            cables,
            size,
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// Whether the report and workbook are split per pod: above the spec's GPU count.
pub fn split(gpus: u64, above: u64) -> bool {
    gpus > above
}
