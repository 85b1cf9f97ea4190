//! Link bring-up between switches: what a port's lanes carry, and the auto-negotiation that
//! follows from it.
//!
//! Cumulus Linux 5.15, Switch Port Attributes, "Auto-negotiation with the Spectrum-4 Switch":
//! "When you connect an NVIDIA Spectrum-4 switch to another NVIDIA Spectrum-4 switch with PAM4
//! modulation, you must enable auto-negotiation." NVUE enables it by default; SONiC leaves a port
//! without `autoneg` to the SAI, and NVIDIA's own SN5600 HWSKUs write `"autoneg": "off"` for
//! every port (sonic-buildimage `device/mellanox/x86_64-nvidia_sn5600-r0/Mellanox-SN5600-O128/
//! hwsku.json`, which `portconfig.py` copies into PORT as an optional HWSKU attribute). So a
//! switch-to-switch port whose lanes run PAM4 gets `autoneg: on` with `adv_speeds` = its planned
//! speed (sonic-port.yang: with auto-negotiation on, the advertised speeds replace `speed`): both
//! ends are railyard's, so both advertise the same single speed. Ports to NICs keep the SAI's
//! default; the note is about switch pairs.

use crate::intent::{Interface, InterfaceKind};

/// What one lane of a port carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    Nrz,
    Pam4,
}

/// The lane modulation of a port from its speed and lane count. IEEE 802.3: lanes up to 25G are
/// NRZ (25GBASE-R, 100GBASE-CR4/SR4); 50G lanes and faster are PAM4 (802.3cd 50GBASE-R,
/// 802.3ck 100G per lane, 802.3dj 200G per lane). Kept apart so a physical stage with real lane
/// rates can replace it.
pub fn modulation(speed_mbps: u32, lanes: usize) -> Modulation {
    let lanes = u32::try_from(lanes.max(1)).unwrap_or(u32::MAX);
    if speed_mbps / lanes >= 50_000 {
        Modulation::Pam4
    } else {
        Modulation::Nrz
    }
}

/// `autoneg` and `adv_speeds` of a PORT row: on, advertising only the planned speed, for a
/// cabled switch-to-switch port with PAM4 lanes; nothing otherwise.
pub fn autoneg(
    cabled: Option<&Interface>,
    speed_mbps: u32,
    lanes: usize,
) -> Option<(&'static str, String)> {
    let i = cabled?;
    (i.kind == InterfaceKind::Fabric && modulation(speed_mbps, lanes) == Modulation::Pam4)
        .then(|| ("on", speed_mbps.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_of_50g_and_more_are_pam4() {
        assert_eq!(modulation(100_000, 4), Modulation::Nrz); // 100GBASE-CR4
        assert_eq!(modulation(25_000, 1), Modulation::Nrz);
        assert_eq!(modulation(200_000, 4), Modulation::Pam4); // 4 × 50G
        assert_eq!(modulation(400_000, 4), Modulation::Pam4); // 4 × 100G
        assert_eq!(modulation(100_000, 1), Modulation::Pam4);
        assert_eq!(modulation(100_000, 0), Modulation::Pam4);
    }
}
