//! A rack-scale system's rack parts besides its compute trays: the NVLink switch trays and power
//! shelves, each with the management port the rack's own OOB switches serve (NVIDIA's GB200
//! user guide: the `ipminet` network holds "the out-of-band interfaces of all the components in
//! the rack, including the compute trays, NVLink switch trays, the power shelves"). Added only
//! where the model names in-rack management switches, for racks with a tray installed, after
//! the fabrics' devices and before the OOB expansion cables them.

use super::builder::{Builder, Identity};
use crate::model::{Network, Role};

/// The model names the plan gives these parts (they are no catalog switches or nodes).
pub const NVLINK_SWITCH_TRAY: &str = "nvlink-switch-tray";
pub const POWER_SHELF: &str = "power-shelf";

pub fn expand(b: &mut Builder<'_>) {
    let s = b.sizing;
    let (Some(d), Some(r)) = (s.domains.as_ref(), s.oob.in_rack) else {
        return;
    };
    for su in 1..=s.sus {
        for rack in 0..d.per_su {
            let first = rack * d.trays + 1;
            if !(first..first + d.trays).any(|slot| s.is_populated(su, slot)) {
                continue;
            }
            let domain = d.domain_of(su, first);
            let parts = [
                (
                    Role::NvlinkSwitchTray,
                    NVLINK_SWITCH_TRAY,
                    r.nvlink_switch_trays,
                ),
                (Role::PowerShelf, POWER_SHELF, r.power_shelves),
            ];
            for (role, model, count) in parts {
                for k in 1..=count {
                    let id = Identity {
                        su: Some(su),
                        index: k,
                        domain: Some(domain),
                        ..Identity::default()
                    };
                    b.add_device(role, Network::Oob, model, id);
                }
            }
        }
    }
}
