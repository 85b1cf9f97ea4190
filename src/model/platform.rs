//! Network operating systems railyard renders for, and what each can do. Capabilities are data
//! here, so design checks (not templates) decide what a platform gets.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Form, Speed};

/// A switch network OS, as the spec names it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// NVIDIA Cumulus Linux, configured with NVUE.
    Nvue,
    /// SONiC: config_db.json plus FRR (split routing-config mode).
    Sonic,
    /// FRR on Linux (also what the virtual lab runs).
    Frr,
    /// Arista EOS.
    Eos,
}

impl Platform {
    pub const ALL: [Platform; 4] = [
        Platform::Nvue,
        Platform::Sonic,
        Platform::Frr,
        Platform::Eos,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Nvue => "nvue",
            Platform::Sonic => "sonic",
            Platform::Frr => "frr",
            Platform::Eos => "eos",
        }
    }

    /// Adaptive routing is configured through NVUE only (NVUE reference, Adaptive Routing).
    pub fn has_adaptive_routing(self) -> bool {
        self == Platform::Nvue
    }

    /// FRR alone has no data-plane QoS: RoCE classes live in the Linux/NIC layer there.
    pub fn has_qos(self) -> bool {
        self != Platform::Frr
    }

    /// Name of the management interface.
    pub fn mgmt_port(self, model_default: &str) -> String {
        match self {
            Platform::Eos => "Management1".into(),
            Platform::Sonic => "eth0".into(),
            Platform::Nvue | Platform::Frr => model_default.into(),
        }
    }

    /// The OS name of a front-panel port, where the platform numbers ports by a rule. `None`
    /// means the name comes from elsewhere: the model's own pattern (Cumulus-style `swp` names,
    /// also used by FRR on Linux), or, for SONiC, the vendor's platform data.
    ///
    /// EOS numbers `Ethernet<cage>/<first lane, 1-based>`. SONiC follows no rule a model's form
    /// could give: each platform's `platform.json` names its cages (`Ethernet0`, `Ethernet8`, … on
    /// the SN5600, but `Ethernet0`, `Ethernet4` over lanes 0-3 and 8-11 on the SN4600C, and
    /// `Ethernet48` for cage 49 of the SN2201), and a split port is named after the cage's name
    /// plus its lane offset within the cage (`catalog::sonic::SonicPlatform::port_name`).
    pub fn port_name(self, form: Form, cage: u32, lane: u32, lanes: u32) -> Option<String> {
        let serdes = form.serdes_lanes();
        let step = serdes / lanes.max(1);
        match self {
            Platform::Eos => Some(format!("Ethernet{}/{}", cage, lane * step + 1)),
            Platform::Sonic | Platform::Nvue | Platform::Frr => None,
        }
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Form {
    /// Electrical lanes of the cage (what EOS numbers split ports by).
    pub fn serdes_lanes(self) -> u32 {
        match self {
            Form::Osfp | Form::QsfpDd => 8,
            Form::Qsfp112 | Form::Qsfp56 | Form::Qsfp28 => 4,
            Form::Sfp28 | Form::Rj45 => 1,
        }
    }
}

/// Whether a switch ASIC runs adaptive routing at a port speed (NVUE reference, Adaptive Routing: Spectrum-4 at 400G
/// and 200G, not 800G). `Err` carries the reason, for the warning.
pub fn adaptive_routing_support(asic: Option<&str>, speed: Speed) -> Result<(), String> {
    match asic {
        Some("spectrum-4") if speed == Speed::gbps(400) || speed == Speed::gbps(200) => Ok(()),
        Some("spectrum-4") => Err(format!(
            "Spectrum-4 runs adaptive routing on 200G and 400G links only, not {speed}"
        )),
        Some(other) => Err(format!(
            "adaptive routing needs a Spectrum-4 ASIC; this model has {other}"
        )),
        None => Err("the catalog does not name this model's ASIC".into()),
    }
}
