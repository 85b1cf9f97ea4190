//! The lanes both ends of a link run: the fastest lane rate both cages run whose lane count
//! carries the link's speed within the lanes each port has (NVIDIA LinkX, Key Technologies:
//! https://docs.nvidia.com/networking/display/CABLEOVpub/Key+Technologies, "100G can be
//! 1 x 100G-PAM4, 2 x 50G-PAM4 or 4 x 25G-NRZ"; 50G-PAM4 optics cannot link to 100G-PAM4 ones,
//! https://docs.nvidia.com/networking/display/400g100gpam4ovpub/linkx-100g-pam4-product-line-overview).

use crate::catalog::Cage;
use crate::model::{LaneRate, Signal, Speed};

/// The signal both ends run, or `None` when no lane rate carries `speed` on both.
pub fn agree(speed: Speed, a: (&Cage, u32), b: (&Cage, u32)) -> Option<Signal> {
    LaneRate::ALL.into_iter().find_map(|rate| {
        let g = speed.as_gbps();
        if !(a.0.runs(rate) && b.0.runs(rate) && g.is_multiple_of(rate.gbps())) {
            return None;
        }
        let lanes = g / rate.gbps();
        (lanes <= a.1 && lanes <= b.1).then_some(Signal { lanes, rate })
    })
}

/// What one end can run, for a person: `2 lanes of 50G-PAM4/25G-NRZ/10G-NRZ`.
pub fn describe(cage: &Cage, lanes: u32) -> String {
    let rates: Vec<&str> = cage.rates.iter().map(|r| r.as_str()).collect();
    let s = if lanes == 1 { "" } else { "s" };
    format!("{lanes} lane{s} of {}", rates.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Fits, Form};

    /// mdx: a QSFP56 cage split 2x100G gives each port 2 lanes, so 100G is 2 × 50G-PAM4; a
    /// QSFP28 NIC runs 25G-NRZ only (Cumulus Linux, Switch Port Attributes: QSFP28 ports are
    /// NRZ). No signal; unsplit the cage runs 4 × 25G-NRZ.
    #[test]
    fn nrz_nic_on_a_pam4_split_cannot_come_up() {
        let sw = Cage::new(Form::Qsfp56, None, None, &[], Fits::Switch);
        let nic = Cage::new(Form::Qsfp28, None, None, &[], Fits::Nic);
        assert_eq!(agree(Speed::gbps(100), (&sw, 2), (&nic, 4)), None);
        assert_eq!(
            agree(Speed::gbps(100), (&sw, 4), (&nic, 4)),
            Some(Signal {
                lanes: 4,
                rate: LaneRate::G25Nrz
            })
        );
    }

    /// A 4x200G split of an 8-lane OSFP cage: 2 × 100G-PAM4 per port, which a 400G NIC runs on
    /// 2 of its 4 lanes (NVIDIA MMA1Z00-NS400: "400G or 200G").
    #[test]
    fn a_200g_split_port_runs_two_pam4_lanes() {
        let sw = Cage::new(Form::Osfp, None, None, &[], Fits::Switch);
        let nic = Cage::new(Form::Qsfp112, None, None, &[], Fits::Nic);
        assert_eq!(
            agree(Speed::gbps(200), (&sw, 2), (&nic, 4)),
            Some(Signal {
                lanes: 2,
                rate: LaneRate::G100Pam4
            })
        );
    }

    /// A ConnectX-8 OSFP cage (4 × 200G-PAM4, NVIDIA LinkX 800g200gpam4list) runs one 800G XDR
    /// port on all four lanes, or — its Ethernet mode, "2 x 400GbE" (ConnectX-8 firmware release
    /// notes; "800GbE link speed is not supported on a single port") — two ports of 2 × 200G-PAM4.
    /// Against a 100G-PAM4 cage there is no common rate: "200G-PAM4-based transceivers cannot
    /// downshift to 100G-PAM4 or 50G-PAM4".
    #[test]
    fn a_connectx8_cage_runs_xdr_or_two_400gbe_ports_and_never_downshifts() {
        let xdr = [LaneRate::G200Pam4];
        let cx8 = Cage::new(Form::Osfp, None, Some(4), &xdr, Fits::Nic);
        let q3400 = Cage::new(Form::Osfp, None, Some(8), &xdr, Fits::Switch);
        let ndr = Cage::new(Form::Osfp, None, None, &[], Fits::Switch);
        assert_eq!(
            agree(Speed::gbps(800), (&cx8, 4), (&q3400, 4)),
            Some(Signal {
                lanes: 4,
                rate: LaneRate::G200Pam4
            })
        );
        assert_eq!(
            agree(Speed::gbps(400), (&cx8, 2), (&q3400, 2)),
            Some(Signal {
                lanes: 2,
                rate: LaneRate::G200Pam4
            })
        );
        assert_eq!(agree(Speed::gbps(400), (&cx8, 4), (&ndr, 4)), None);
        assert_eq!(agree(Speed::gbps(800), (&q3400, 8), (&ndr, 8)), None);
    }
}
