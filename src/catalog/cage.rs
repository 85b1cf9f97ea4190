//! What a module or cable end must fit: a cage's form, top, electrical lanes and lane rates, as
//! the catalog states them or, where a model leaves them out, as its form has them.
//!
//! Form defaults (NVIDIA LinkX "Connectors and Cages",
//! https://docs.nvidia.com/networking/display/cableovpub/connectors+and+cages, and "Key
//! Technologies", https://docs.nvidia.com/networking/display/CABLEOVpub/Key+Technologies):
//! OSFP and QSFP-DD carry 8 lanes, QSFP112/56/28 4, SFP 1; OSFP and QSFP112 run 100G-PAM4
//! (and the slower rates), QSFP-DD and QSFP56 up to 50G-PAM4, QSFP28 and SFP28 25G-NRZ, SFP+
//! 10G-NRZ. A switch's OSFP cage is finned (IHS), a NIC's flat (RHS).

use crate::model::ident::Text;
use crate::model::{Fits, Form, LaneRate, Top};

/// A cage as the link solver sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cage {
    pub form: Form,
    pub top: Top,
    pub lanes: u32,
    pub rates: Vec<LaneRate>,
    /// A switch cage or a NIC cage (modules state where they go).
    pub host: Fits,
    /// Only this vendor's modules come up in the cage (Arista EOS keeps third-party
    /// transceivers down unless told otherwise).
    pub vendor_lock: Option<Text>,
}

impl Cage {
    pub fn new(
        form: Form,
        top: Option<Top>,
        lanes: Option<u32>,
        rates: &[LaneRate],
        host: Fits,
    ) -> Cage {
        let top = top.unwrap_or(match (form, host) {
            (Form::Osfp, Fits::Switch) => Top::Finned,
            (Form::Osfp, _) => Top::Flat,
            _ => Top::None,
        });
        let rates = if rates.is_empty() {
            default_rates(form).to_vec()
        } else {
            rates.to_vec()
        };
        Cage {
            form,
            top,
            lanes: lanes.unwrap_or_else(|| form.serdes_lanes()),
            rates,
            host,
            vendor_lock: None,
        }
    }

    pub fn runs(&self, rate: LaneRate) -> bool {
        self.rates.contains(&rate)
    }
}

fn default_rates(form: Form) -> &'static [LaneRate] {
    use LaneRate::*;
    match form {
        Form::Osfp | Form::Qsfp112 => &[G100Pam4, G50Pam4, G25Nrz, G10Nrz],
        Form::QsfpDd | Form::Qsfp56 => &[G50Pam4, G25Nrz, G10Nrz],
        Form::Qsfp28 | Form::Sfp28 => &[G25Nrz, G10Nrz],
        Form::SfpPlus => &[G10Nrz],
        Form::Rj45 => &[G1],
    }
}
