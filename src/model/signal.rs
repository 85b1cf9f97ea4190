//! The physical vocabulary a link is solved in: the electrical lane rate and modulation both
//! ends must run, the top of an OSFP cage, the optical connector and its polish, fibre media.
//!
//! Sources: NVIDIA LinkX "Key Technologies" (100G per lane is PAM4; 100G ports run as
//! 1 × 100G-PAM4, 2 × 50G-PAM4 or 4 × 25G-NRZ), https://docs.nvidia.com/networking/display/CABLEOVpub/Key+Technologies;
//! "Connectors and Cages" (OSFP finned top for switches, flat top for ConnectX-7 and DGX
//! cages), https://docs.nvidia.com/networking/display/cableovpub/connectors+and+cages;
//! "Optical Connectors" (APC and UPC ferrules cannot mate),
//! https://docs.nvidia.com/networking/display/cableovpub/optical+connectors.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Speed;

/// One electrical lane's rate and modulation (`100G-PAM4`). Both ends of a link run the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LaneRate {
    /// 1000BASE-T and 1G SFP: one lane.
    G1,
    G10Nrz,
    G25Nrz,
    G50Pam4,
    G100Pam4,
    /// The XDR / 1.6T generation: NVIDIA's "four-channel 200G-PAM4" parts, which "cannot
    /// downshift to 100G-PAM4 or 50G-PAM4" (LinkX 800g200gpam4list).
    G200Pam4,
}

impl LaneRate {
    pub const ALL: [LaneRate; 6] = [
        LaneRate::G200Pam4,
        LaneRate::G100Pam4,
        LaneRate::G50Pam4,
        LaneRate::G25Nrz,
        LaneRate::G10Nrz,
        LaneRate::G1,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LaneRate::G1 => "1G",
            LaneRate::G10Nrz => "10G-NRZ",
            LaneRate::G25Nrz => "25G-NRZ",
            LaneRate::G50Pam4 => "50G-PAM4",
            LaneRate::G100Pam4 => "100G-PAM4",
            LaneRate::G200Pam4 => "200G-PAM4",
        }
    }

    pub fn gbps(self) -> u32 {
        match self {
            LaneRate::G1 => 1,
            LaneRate::G10Nrz => 10,
            LaneRate::G25Nrz => 25,
            LaneRate::G50Pam4 => 50,
            LaneRate::G100Pam4 => 100,
            LaneRate::G200Pam4 => 200,
        }
    }

    pub fn modulation(self) -> &'static str {
        match self {
            LaneRate::G50Pam4 | LaneRate::G100Pam4 | LaneRate::G200Pam4 => "PAM4",
            LaneRate::G1 | LaneRate::G10Nrz | LaneRate::G25Nrz => "NRZ",
        }
    }

    /// The lane rate that carries `speed` on `lanes` lanes, if one does.
    pub fn carrying(speed: Speed, lanes: u32) -> Option<LaneRate> {
        Self::ALL
            .into_iter()
            .find(|r| r.gbps() * lanes == speed.as_gbps())
    }
}

impl fmt::Display for LaneRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LaneRate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!(
                    "`{s}` is not a lane rate; one of 200G-PAM4, 100G-PAM4, 50G-PAM4, 25G-NRZ, 10G-NRZ, 1G"
                )
            })
    }
}

impl Serialize for LaneRate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LaneRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for LaneRate {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LaneRate".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "enum": ["200G-PAM4", "100G-PAM4", "50G-PAM4", "25G-NRZ", "10G-NRZ", "1G"],
            "description": "Electrical lane rate and modulation"
        })
    }
}

/// How a link's port runs: lanes × lane rate (a 200G port of a 4x200G OSFP split: 2 × 100G-PAM4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Signal {
    pub lanes: u32,
    pub rate: LaneRate,
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} × {}", self.lanes, self.rate)
    }
}

macro_rules! kebab_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum $name { $($(#[$vm])* #[serde(rename = $s)] $v),+ }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

kebab_enum!(
    /// The top of an OSFP cage and module: switches take finned (IHS) modules, ConnectX-7 and
    /// DGX cages flat (RHS) ones; QSFP and SFP forms have no such variant.
    Top {
        Finned = "finned",
        Flat = "flat",
        None = "none",
    }
);

kebab_enum!(
    /// An optical port's connector and polish. APC (angled) and UPC (flat) ferrules cannot mate.
    Connector {
        Mpo12Apc = "mpo12-apc",
        Mpo12Upc = "mpo12-upc",
        LcUpc = "lc-upc",
        Rj45 = "rj45",
    }
);

kebab_enum!(
    /// Fibre media of an optical module or cord.
    FibreMedia {
        Mmf = "mmf",
        Smf = "smf",
    }
);

kebab_enum!(
    /// Fibre grade (TIA-492AAAD OM4, ITU-T G.652 OS2 …).
    Grade {
        Om3 = "om3",
        Om4 = "om4",
        Os2 = "os2",
    }
);

kebab_enum!(
    /// Where a module may go: NVIDIA's 1-port OSFP modules are "not for switches".
    Fits {
        Switch = "switch",
        Nic = "nic",
        Any = "any",
    }
);

kebab_enum!(
    /// A cable with its ends built in.
    AssemblyKind {
        /// Direct-attach passive copper.
        Dac = "dac",
        /// Active copper (signal conditioning in the ends).
        Acc = "acc",
        /// Active optical cable.
        Aoc = "aoc",
        /// Twisted-pair patch cord (RJ45).
        Utp = "utp",
    }
);

kebab_enum!(
    /// A passive fibre cord: one connector each end, or a 1:N splitter.
    FibreKind {
        Straight = "straight",
        Splitter = "splitter",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_rates_carry_speeds() {
        assert_eq!(
            LaneRate::carrying(Speed::gbps(200), 2),
            Some(LaneRate::G100Pam4)
        );
        assert_eq!(
            LaneRate::carrying(Speed::gbps(100), 4),
            Some(LaneRate::G25Nrz)
        );
        assert_eq!(LaneRate::carrying(Speed::gbps(25), 2), None);
        assert_eq!("50g-pam4".parse::<LaneRate>(), Ok(LaneRate::G50Pam4));
        // XDR: 800G is four 200G-PAM4 lanes, 400G two (NVIDIA LinkX 800g200gpam4list).
        assert_eq!(
            LaneRate::carrying(Speed::gbps(800), 4),
            Some(LaneRate::G200Pam4)
        );
        assert_eq!("200G-PAM4".parse::<LaneRate>(), Ok(LaneRate::G200Pam4));
    }
}
