//! SONiC's own description of each switch platform, as the vendor ships it in sonic-buildimage
//! (`device/mellanox/<platform>/`): the front-panel ports with their SerDes lanes, aliases and
//! breakout modes (`platform.json`), and per HWSKU the default breakout (`hwsku.json`), the
//! lossless headroom table (`pg_profile_lookup.ini`) and the buffer pool sizes
//! (`buffers_defaults_t0.j2`, `buffers_defaults_t1.j2`). The files live unchanged under
//! `catalog/sonic/` (provenance and licence in its README) and are embedded at build time.
//!
//! Port names, lanes, aliases and indexes of a split cage are derived exactly as SONiC's dynamic
//! port breakout derives them (sonic-buildimage `src/sonic-config-engine/portconfig.py`,
//! `BreakoutCfg.get_config`), so the cabling plan, the port maps and `config_db.json` name the
//! ports the switch creates.

mod buffers;
mod platform_json;

use std::collections::BTreeMap;
use std::sync::OnceLock;

pub use buffers::{BufferDefaults, Headroom, Topology};

use crate::model::Speed;

/// One SONiC platform (`x86_64-nvidia_sn5600-r0`) and the HWSKUs railyard carries for it.
#[derive(Clone, Debug)]
pub struct SonicPlatform {
    pub name: &'static str,
    /// The HWSKU a fresh install picks (`default_sku`).
    pub default_hwsku: String,
    /// Every front-panel port, in front-panel order.
    pub ports: Vec<PlatformPort>,
    pub hwskus: BTreeMap<&'static str, Hwsku>,
}

/// A front-panel port (cage) as `platform.json` lists it: the name and lanes of the whole cage.
#[derive(Clone, Debug)]
pub struct PlatformPort {
    /// `Ethernet<number>`.
    pub name: String,
    pub number: u32,
    /// Front-panel number of the cage.
    pub cage: u32,
    /// SerDes lanes, in order.
    pub lanes: Vec<u32>,
    /// Front-panel index per lane (all equal for one cage).
    pub indexes: Vec<u32>,
    pub modes: Vec<BreakoutMode>,
}

/// One breakout mode of a cage: `2x400G[200G,100G]` is 2 ports at 400G by default, which may
/// also run at 200G or 100G.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakoutMode {
    /// The mode exactly as SONiC spells it (the `BREAKOUT_CFG` value).
    pub name: String,
    pub ports: u32,
    /// Default speed in Mb/s (what a freshly broken-out port gets).
    pub default_mbps: u32,
    /// Every speed the ports may run at, default included, in Mb/s.
    pub speeds_mbps: Vec<u32>,
    /// Alias of each port of the mode (`etp1a`, `etp1b`).
    pub aliases: Vec<String>,
}

/// A logical port of a cage in a given breakout mode, with the fields SONiC's breakout writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubPort {
    pub name: String,
    pub lanes: Vec<u32>,
    pub alias: String,
    pub index: u32,
    /// 0 for an unsplit cage, else 1-based position in the cage.
    pub subport: u32,
    /// RS-FEC, as `portconfig.py` sets it: lane rate of the mode's default speed ≥ 50G (PAM4).
    pub fec_rs: bool,
}

/// What railyard needs of one HWSKU.
#[derive(Clone, Debug)]
pub struct Hwsku {
    pub name: &'static str,
    /// Default breakout mode per port name (`hwsku.json`).
    pub default_modes: BTreeMap<String, String>,
    /// Lossless PG headroom by speed and cable length (`pg_profile_lookup.ini`).
    pub headroom: Vec<Headroom>,
    /// Buffer pool sizes and default cable length per topology template.
    pub buffers: BTreeMap<Topology, BufferDefaults>,
    /// The swss container sets `DEVICE_METADATA|localhost|create_only_config_db_buffers` when the
    /// HWSKU ships `create_only_config_db_buffers.json` (files/build_templates/docker_image_ctl.j2).
    pub create_only_config_db_buffers: bool,
}

/// The embedded files of one platform.
struct PlatformFiles {
    name: &'static str,
    platform_json: &'static str,
    default_sku: &'static str,
    skus: &'static [SkuFiles],
}

struct SkuFiles {
    name: &'static str,
    hwsku_json: &'static str,
    pg_profile_lookup: &'static str,
    buffers_t0: &'static str,
    buffers_t1: &'static str,
    create_only: Option<&'static str>,
}

macro_rules! sku {
    ($platform:literal, $sku:literal) => {
        SkuFiles {
            name: $sku,
            hwsku_json: include_str!(concat!(
                "../../../catalog/sonic/",
                $platform,
                "/",
                $sku,
                "/hwsku.json"
            )),
            pg_profile_lookup: include_str!(concat!(
                "../../../catalog/sonic/",
                $platform,
                "/",
                $sku,
                "/pg_profile_lookup.ini"
            )),
            buffers_t0: include_str!(concat!(
                "../../../catalog/sonic/",
                $platform,
                "/",
                $sku,
                "/buffers_defaults_t0.j2"
            )),
            buffers_t1: include_str!(concat!(
                "../../../catalog/sonic/",
                $platform,
                "/",
                $sku,
                "/buffers_defaults_t1.j2"
            )),
            create_only: Some(include_str!(concat!(
                "../../../catalog/sonic/",
                $platform,
                "/",
                $sku,
                "/create_only_config_db_buffers.json"
            ))),
        }
    };
}

macro_rules! platform {
    ($platform:literal, [$($sku:literal),+]) => {
        PlatformFiles {
            name: $platform,
            platform_json: include_str!(concat!("../../../catalog/sonic/", $platform, "/platform.json")),
            default_sku: include_str!(concat!("../../../catalog/sonic/", $platform, "/default_sku")),
            skus: &[$(sku!($platform, $sku)),+],
        }
    };
}

/// Every platform carried in `catalog/sonic/`, with the HWSKUs whose buffer templates railyard
/// reproduces (see `catalog/sonic/README.md` for why others are left out).
const PLATFORMS: &[PlatformFiles] = &[
    platform!("x86_64-mlnx_msn3700-r0", ["ACS-MSN3700"]),
    platform!("x86_64-mlnx_msn4600c-r0", ["ACS-MSN4600C"]),
    platform!("x86_64-nvidia_sn2201-r0", ["ACS-SN2201"]),
    platform!("x86_64-nvidia_sn5400-r0", ["ACS-SN5400"]),
    platform!("x86_64-nvidia_sn5600-r0", ["ACS-SN5600"]),
];

/// Every carried platform, parsed once. The files are built in, so a parse error is a bug the
/// catalog tests catch; it panics with the parser's message instead of becoming a diagnostic.
pub fn platforms() -> &'static BTreeMap<&'static str, SonicPlatform> {
    static ALL: OnceLock<BTreeMap<&'static str, SonicPlatform>> = OnceLock::new();
    ALL.get_or_init(|| {
        PLATFORMS
            .iter()
            .map(|p| match load(p) {
                Ok(sp) => (p.name, sp),
                Err(e) => panic!("catalog/sonic/{}: {e}", p.name),
            })
            .collect()
    })
}

/// The platform of that name, if railyard carries its data.
pub fn platform(name: &str) -> Option<&'static SonicPlatform> {
    platforms().get(name)
}

fn load(p: &PlatformFiles) -> Result<SonicPlatform, String> {
    let ports = platform_json::ports(p.platform_json)?;
    let default_hwsku = p
        .default_sku
        .split_whitespace()
        .next()
        .ok_or("default_sku is empty")?
        .to_string();
    let mut hwskus = BTreeMap::new();
    for s in p.skus {
        let sku = Hwsku {
            name: s.name,
            default_modes: platform_json::default_modes(s.hwsku_json)
                .map_err(|e| format!("{}/hwsku.json: {e}", s.name))?,
            headroom: buffers::headroom(s.pg_profile_lookup)
                .map_err(|e| format!("{}/pg_profile_lookup.ini: {e}", s.name))?,
            buffers: [
                (Topology::T0, s.buffers_t0, "t0"),
                (Topology::T1, s.buffers_t1, "t1"),
            ]
            .into_iter()
            .map(|(t, text, file)| {
                buffers::defaults(text)
                    .map(|d| (t, d))
                    .map_err(|e| format!("{}/buffers_defaults_{file}.j2: {e}", s.name))
            })
            .collect::<Result<_, _>>()?,
            create_only_config_db_buffers: s
                .create_only
                .is_some_and(buffers::create_only_config_db_buffers),
        };
        hwskus.insert(s.name, sku);
    }
    Ok(SonicPlatform {
        name: p.name,
        default_hwsku,
        ports,
        hwskus,
    })
}

impl SonicPlatform {
    /// The cage with that front-panel number.
    pub fn cage(&self, cage: u32) -> Option<&PlatformPort> {
        self.ports.iter().find(|p| p.cage == cage)
    }

    /// The SONiC name of logical port `lane` (0-based) of `cage` split into `ports` ports.
    pub fn port_name(&self, cage: u32, lane: u32, ports: u32) -> Option<String> {
        let p = self.cage(cage)?;
        let per = p.lanes_per_port(ports)?;
        Some(format!("Ethernet{}", p.number + lane * per))
    }
}

impl PlatformPort {
    /// Lanes each logical port gets when the cage is split `ports` ways.
    pub fn lanes_per_port(&self, ports: u32) -> Option<u32> {
        let lanes = u32::try_from(self.lanes.len()).ok()?;
        (ports > 0 && lanes % ports == 0).then(|| lanes / ports)
    }

    /// The mode that runs `ports` ports at `speed`: its default speed first, else any mode of
    /// that width listing the speed.
    pub fn mode_for(&self, ports: u32, speed: Speed) -> Option<&BreakoutMode> {
        let mbps = speed.as_gbps().saturating_mul(1000);
        let of_width = || self.modes.iter().filter(move |m| m.ports == ports);
        of_width()
            .find(|m| m.default_mbps == mbps)
            .or_else(|| of_width().find(|m| m.speeds_mbps.contains(&mbps)))
    }

    pub fn mode(&self, name: &str) -> Option<&BreakoutMode> {
        self.modes.iter().find(|m| m.name == name)
    }

    /// The logical ports of the cage in `mode` (`BreakoutCfg.get_config`).
    pub fn sub_ports(&self, mode: &BreakoutMode) -> Vec<SubPort> {
        let Some(per) = self.lanes_per_port(mode.ports) else {
            return Vec::new();
        };
        (0..mode.ports)
            .map(|k| {
                let first = (k * per) as usize;
                let lanes = self.lanes[first..first + per as usize].to_vec();
                SubPort {
                    name: format!("Ethernet{}", self.number + k * per),
                    lanes,
                    alias: mode.aliases.get(k as usize).cloned().unwrap_or_default(),
                    index: self.indexes.get(first).copied().unwrap_or(self.cage),
                    subport: if mode.ports == 1 { 0 } else { k + 1 },
                    fec_rs: mode.default_mbps / per >= 50_000,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_carried_platform_parses_with_its_default_hwsku() {
        for (name, p) in platforms() {
            assert!(!p.ports.is_empty(), "{name}");
            assert!(
                p.hwskus.contains_key(p.default_hwsku.as_str()),
                "{name}: default {} not carried",
                p.default_hwsku
            );
            for s in p.hwskus.values() {
                assert!(!s.headroom.is_empty(), "{name} {}", s.name);
                assert_eq!(s.buffers.len(), 2, "{name} {}", s.name);
            }
        }
    }

    #[test]
    fn sn5600_splits_like_dynamic_port_breakout() {
        let p = platform("x86_64-nvidia_sn5600-r0").unwrap();
        let cage = p.cage(2).unwrap();
        assert_eq!(cage.name, "Ethernet8");
        let mode = cage.mode_for(2, Speed::gbps(400)).unwrap();
        assert_eq!(mode.name, "2x400G[200G,100G,50G,40G,25G,10G]");
        let subs = cage.sub_ports(mode);
        assert_eq!(subs[1].name, "Ethernet12");
        assert_eq!(subs[1].lanes, vec![12, 13, 14, 15]);
        assert_eq!(subs[1].alias, "etp2b");
        assert_eq!((subs[1].index, subs[1].subport), (2, 2));
        // 4x100G runs in the 4x200G mode at a supported lower speed.
        assert!(cage.mode_for(4, Speed::gbps(100)).is_some());
        assert!(cage.mode_for(8, Speed::gbps(100)).is_none());
    }

    #[test]
    fn sn2201_names_its_qsfp_cages_after_the_rj45_ports() {
        let p = platform("x86_64-nvidia_sn2201-r0").unwrap();
        assert_eq!(p.port_name(48, 0, 1).as_deref(), Some("Ethernet47"));
        assert_eq!(p.port_name(49, 0, 1).as_deref(), Some("Ethernet48"));
        assert_eq!(p.port_name(49, 1, 2).as_deref(), Some("Ethernet50"));
    }
}
