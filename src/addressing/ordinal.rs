//! Stable ordinals: a device's position computed from its identity (plane, SU, group, index) and
//! design constants that do not change when the cluster grows (leaves per SU, planes, spines per
//! group). Adding an SU appends ordinals; it never shifts existing ones.

use crate::model::Role;
use crate::topology::{Device, Sizing};

/// The per-design constants ordinals are built from.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub planes: u32,
    pub leaves_per_su: u32,
    pub spines_per_group: u32,
    pub oob_per_su: u32,
    pub nodes_per_su: u32,
    pub sus_per_group: u32,
    pub three_tier: bool,
    /// Spines per spine group of the storage and in-band fabrics.
    pub storage_spines: u32,
    pub inband_spines: u32,
    /// Rack-scale racks per SU and each rack's managed parts besides its trays (NVLink switch
    /// trays, then power shelves); 0 without in-rack management switches.
    pub racks_per_su: u32,
    pub nvlink_switch_trays: u32,
    pub rack_parts: u32,
}

impl Shape {
    pub fn of(s: &Sizing) -> Self {
        Self {
            planes: s.compute.planes.max(1),
            leaves_per_su: s.compute.leaves_per_su,
            spines_per_group: s.compute.spines_per_group,
            oob_per_su: s.oob.per_su,
            nodes_per_su: s.nodes_per_su,
            sus_per_group: s.compute.sus_per_group.max(1),
            three_tier: s.compute.tiers == 3,
            storage_spines: s.storage.as_ref().map_or(0, |a| a.spines),
            inband_spines: s.inband.as_ref().map_or(0, |a| a.spines),
            racks_per_su: s.oob.in_rack.map_or(0, |r| s.nodes_per_su / r.trays.max(1)),
            nvlink_switch_trays: s.oob.in_rack.map_or(0, |r| r.nvlink_switch_trays),
            rack_parts: s
                .oob
                .in_rack
                .map_or(0, |r| r.nvlink_switch_trays + r.power_shelves),
        }
    }

    /// A rack part's position among its SU's rack parts (0-based): rack by rack, NVLink switch
    /// trays before power shelves.
    pub fn rack_part_in_su(&self, d: &Device) -> u32 {
        let per = self.racks_per_su.max(1);
        let rack = (d.domain.unwrap_or(1) - 1) % per;
        let k = d.index - 1
            + if d.role == Role::PowerShelf {
                self.nvlink_switch_trays
            } else {
                0
            };
        rack * self.rack_parts + k
    }

    fn plane(&self, d: &Device) -> u32 {
        d.plane.unwrap_or(1) - 1
    }

    /// Position among the devices of its role across the whole cluster (0-based).
    pub fn ordinal(&self, d: &Device) -> u64 {
        let (p, planes) = (u64::from(self.plane(d)), u64::from(self.planes));
        let i = u64::from(d.index.max(1) - 1);
        match d.role {
            Role::Leaf => {
                let su = u64::from(d.su.unwrap_or(1) - 1);
                (su * u64::from(self.leaves_per_su) + i) * planes + p
            }
            Role::Spine => {
                let g = u64::from(d.group.unwrap_or(1) - 1);
                (g * u64::from(self.spines_per_group) + i) * planes + p
            }
            Role::Core => i * planes + p,
            Role::StorageSpine | Role::InbandSpine => {
                let per = if d.role == Role::StorageSpine {
                    self.storage_spines
                } else {
                    self.inband_spines
                };
                u64::from(d.group.unwrap_or(1) - 1) * u64::from(per) + i
            }
            Role::OobLeaf => {
                let su = u64::from(d.su.unwrap_or(1) - 1);
                su * u64::from(self.oob_per_su) + i
            }
            _ => i,
        }
    }

    /// Position within its SU (leaves, for ASN reuse and management offsets) or its spine group.
    pub fn ordinal_in_su(&self, d: &Device) -> u64 {
        let (p, planes) = (u64::from(self.plane(d)), u64::from(self.planes));
        u64::from(d.index.max(1) - 1) * planes + p
    }

    /// The spine group's position (spine ASNs): group-major, then plane. Storage and in-band
    /// fabrics have one plane.
    pub fn spine_group(&self, d: &Device) -> u64 {
        let g = u64::from(d.group.unwrap_or(1) - 1);
        match d.role {
            Role::Spine => g * u64::from(self.planes) + u64::from(self.plane(d)),
            _ => g,
        }
    }
}
