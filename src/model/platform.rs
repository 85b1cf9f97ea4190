//! Network operating systems railyard renders for and pushes to, and what each can do. Everything
//! that varies by OS is one row of data per OS here (`PlatformRow`), so design checks (not
//! templates) decide what a platform gets, and render and push read the row instead of matching
//! on the platform.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Form, Speed};
use crate::diag::codes::{self, Code};

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
    /// Every platform, in the order the targets file's driver names are listed (`netconf`
    /// first, then each platform's own driver).
    pub const ALL: [Platform; 4] = [
        Platform::Frr,
        Platform::Nvue,
        Platform::Eos,
        Platform::Sonic,
    ];

    /// This OS's capability row: everything that varies by OS, as data.
    pub const fn row(self) -> &'static PlatformRow {
        match self {
            Platform::Nvue => &NVUE,
            Platform::Sonic => &SONIC,
            Platform::Frr => &FRR,
            Platform::Eos => &EOS,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.row().name
    }

    pub fn has_adaptive_routing(self) -> bool {
        self.row().adaptive_routing
    }

    pub fn has_qos(self) -> bool {
        self.row().qos
    }

    /// Largest L3 MTU the OS accepts on a port.
    pub fn max_mtu(self) -> u32 {
        self.row().max_mtu
    }

    /// Name of the management interface.
    pub fn mgmt_port(self, model_default: &str) -> String {
        self.row().mgmt_port.unwrap_or(model_default).into()
    }

    /// The OS name of a front-panel port, where the platform numbers ports by a rule
    /// ([`PortNaming::name`]); `None` when the name comes from elsewhere.
    pub fn port_name(self, form: Form, cage: u32, lane: u32, lanes: u32) -> Option<String> {
        self.row().ports.name(form, cage, lane, lanes)
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Form {
    /// Whether a module or plug of form `m` fits a cage of this form: the QSFP family takes its
    /// slower members (NVIDIA LinkX 100G-PAM4 overview: ConnectX-7 QSFP112 cages take QSFP56 and
    /// QSFP28; the QSFP-DD MSA, http://www.qsfp-dd.com/specification/: QSFP-DD cages take QSFP
    /// modules), an SFP28 cage SFP+; OSFP takes only OSFP.
    pub fn accepts(self, m: Form) -> bool {
        use Form::*;
        self == m
            || matches!(
                (self, m),
                (Qsfp112 | QsfpDd, Qsfp56 | Qsfp28) | (Qsfp56, Qsfp28) | (Sfp28, SfpPlus)
            )
    }

    /// Electrical lanes of the cage (what EOS numbers split ports by).
    pub fn serdes_lanes(self) -> u32 {
        match self {
            Form::Osfp | Form::QsfpDd => 8,
            Form::Qsfp112 | Form::Qsfp56 | Form::Qsfp28 => 4,
            Form::Sfp28 | Form::SfpPlus | Form::Rj45 => 1,
        }
    }
}

/// Everything that varies by network OS, as data: one row per [`Platform`] ([`Platform::row`]).
/// Design checks, render and push read the row; the only matches on a platform left are the
/// exhaustive ones the compiler checks (the renderer and the push driver of each OS, and
/// [`Platform::row`] itself). The OS's code lives in folders of its name:
/// `src/render/<name>/`, `templates/<name>/` and `src/push/drivers/<name>/`.
#[derive(Debug)]
pub struct PlatformRow {
    /// The spec's name of the OS (`platforms: {leaf: eos}`, a model's `os:`), also the name of
    /// its folders.
    pub name: &'static str,
    /// Largest L3 MTU the OS accepts on a port.
    pub max_mtu: u32,
    /// The management interface's name; `None`: the model's own (`mgmt_port` in the catalog).
    pub mgmt_port: Option<&'static str>,
    /// The loopback that carries the router-id.
    pub loopback: &'static str,
    /// A second loopback for an EVPN VTEP address that is not the router-id's; `None`: the VTEP
    /// address shares the router-id's loopback.
    pub vtep_loopback: Option<&'static str>,
    /// How the OS names front-panel ports.
    pub ports: PortNaming,
    /// The files rendered under `configs/<device>/`, besides `openconfig.xml` (the payload of
    /// the generic `netconf` push driver, for the OSes the spec's `push.netconf` names).
    pub files: &'static [&'static str],
    /// The hardware vendor the OS runs on; `None` for a multi-vendor OS.
    pub vendor: Option<Vendor>,
    /// Whether the OS configures the data-plane QoS of RoCE (classes, PFC, ECN).
    pub qos: bool,
    /// Whether the OS configures adaptive routing.
    pub adaptive_routing: bool,
    /// How `railyard push` delivers the OS's files with its own driver.
    pub push: Delivery,
}

/// How an OS names a front-panel port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortNaming {
    /// The model's own pattern (Cumulus-style `swp1`, `swp1s0`; also FRR on Linux).
    Model,
    /// `Ethernet<cage>/<first lane, 1-based>`, lanes counted in the cage's electrical lanes
    /// (EOS).
    CageLane,
    /// The vendor's platform data: SONiC follows no rule a model's form could give. Each
    /// platform's `platform.json` names its cages (`Ethernet0`, `Ethernet8`, … on the SN5600, but
    /// `Ethernet0`, `Ethernet4` over lanes 0-3 and 8-11 on the SN4600C, and `Ethernet48` for cage
    /// 49 of the SN2201), and a split port is named after the cage's name plus its lane offset
    /// within the cage (`catalog::sonic::SonicPlatform::port_name`).
    VendorData,
}

impl PortNaming {
    /// The name of a port where the OS numbers ports by a rule; `None` means the name comes from
    /// elsewhere (the model's pattern, or the vendor's platform data).
    pub fn name(self, form: Form, cage: u32, lane: u32, lanes: u32) -> Option<String> {
        match self {
            PortNaming::CageLane => {
                let step = form.serdes_lanes() / lanes.max(1);
                Some(format!("Ethernet{}/{}", cage, lane * step + 1))
            }
            PortNaming::Model | PortNaming::VendorData => None,
        }
    }
}

/// The vendor whose hardware a vendor OS runs on, and how the warning says so when the OS is
/// chosen for another vendor's model.
#[derive(Debug)]
pub struct Vendor {
    /// The catalog's `vendor:` names of that hardware (compared ignoring case).
    pub names: &'static [&'static str],
    /// The warning's code.
    pub code: Code,
    /// The OS as the warning names it.
    pub os: &'static str,
    /// What the warning's help proposes instead.
    pub native: &'static str,
}

/// How a platform's files are pushed: what a targets file's `driver:` names and the defaults
/// of a device using that driver.
#[derive(Debug)]
pub struct Delivery {
    /// The driver's name in the targets file (`driver: eos-ssh`).
    pub driver: &'static str,
    /// The rendered file under `configs/<device>/` pushed by default.
    pub file: &'static str,
    /// Files pushed in the same transaction besides the main one.
    pub companions: &'static [&'static str],
    pub port: u16,
    /// The platform tool the driver calls (overridable per device with `tool:`); empty when the
    /// driver calls none.
    pub tool: &'static str,
    /// The command prefix that reaches FRR on the device, when FRR runs in a container
    /// (overridable per device with `frr.exec`).
    pub frr_exec: Option<&'static str>,
}

const NVUE: PlatformRow = PlatformRow {
    name: "nvue",
    max_mtu: 9216,
    mgmt_port: None,
    loopback: "lo",
    vtep_loopback: None,
    ports: PortNaming::Model,
    files: &["nv-set.sh", "startup.yaml"],
    vendor: Some(Vendor {
        names: &["NVIDIA", "Mellanox"],
        code: codes::NVUE_ON_FOREIGN_MODEL,
        os: "Cumulus Linux (NVUE)",
        native: "an NVIDIA Spectrum model",
    }),
    qos: true,
    // Adaptive routing is configured through NVUE only (NVUE reference, Adaptive Routing).
    adaptive_routing: true,
    push: Delivery {
        driver: "nvue-ssh",
        file: "startup.yaml",
        companions: &[],
        port: 22,
        tool: "nv",
        frr_exec: None,
    },
};

const SONIC: PlatformRow = PlatformRow {
    name: "sonic",
    max_mtu: 9216,
    mgmt_port: Some("eth0"),
    loopback: "Loopback0",
    vtep_loopback: None,
    ports: PortNaming::VendorData,
    files: &["config_db.json", "frr.conf", "snmp_trap.json"],
    vendor: None,
    qos: true,
    adaptive_routing: false,
    push: Delivery {
        driver: "sonic-ssh",
        file: "config_db.json",
        // Split routing-config mode: FRR's own config, pushed in the same transaction.
        companions: &["frr.conf"],
        port: 22,
        tool: "sudo config",
        // SONiC runs FRR in its `bgp` container.
        frr_exec: Some("docker exec -i bgp"),
    },
};

const FRR: PlatformRow = PlatformRow {
    name: "frr",
    max_mtu: 9216,
    mgmt_port: None,
    loopback: "lo",
    vtep_loopback: None,
    ports: PortNaming::Model,
    files: &["frr.conf"],
    vendor: None,
    // FRR alone has no data-plane QoS: RoCE classes live in the Linux/NIC layer there.
    qos: false,
    adaptive_routing: false,
    push: Delivery {
        driver: "frr-ssh",
        file: "frr.conf",
        companions: &[],
        port: 22,
        tool: "",
        frr_exec: None,
    },
};

const EOS: PlatformRow = PlatformRow {
    name: "eos",
    // EOS caps L3 MTU at 9214 (NVIDIA Cumulus Linux RoCE documentation); the others take 9216.
    max_mtu: 9214,
    mgmt_port: Some("Management1"),
    loopback: "Loopback0",
    vtep_loopback: Some("Loopback1"),
    ports: PortNaming::CageLane,
    files: &["startup-config"],
    vendor: Some(Vendor {
        names: &["Arista"],
        code: codes::EOS_ON_FOREIGN_MODEL,
        os: "Arista EOS",
        native: "an Arista model",
    }),
    qos: true,
    adaptive_routing: false,
    push: Delivery {
        driver: "eos-ssh",
        file: "startup-config",
        companions: &[],
        port: 22,
        // EOS's CLI binary reads commands from stdin when run from the switch's shell.
        tool: "Cli -p 15",
        frr_exec: None,
    },
};

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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` is a list the compiler does not check: the schema's names (one per variant) are.
    #[test]
    fn all_lists_every_platform_under_its_spec_name() {
        fn names_in(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    for (k, x) in m {
                        match (k.as_str(), x) {
                            ("const", serde_json::Value::String(s)) => out.push(s.clone()),
                            ("enum", serde_json::Value::Array(a)) => {
                                out.extend(a.iter().filter_map(|s| s.as_str().map(str::to_string)))
                            }
                            _ => names_in(x, out),
                        }
                    }
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| names_in(x, out)),
                _ => {}
            }
        }
        let schema = serde_json::to_value(schemars::schema_for!(Platform)).unwrap();
        let mut names = Vec::new();
        names_in(&schema, &mut names);
        let mut listed: Vec<String> = Platform::ALL.iter().map(|p| p.to_string()).collect();
        names.sort();
        listed.sort();
        assert_eq!(names, listed);
        for p in Platform::ALL {
            let parsed: Platform = serde_json::from_value(serde_json::json!(p.as_str())).unwrap();
            assert_eq!(parsed, p);
        }
    }

    #[test]
    fn rows_are_consistent() {
        let mut drivers: Vec<&str> = Platform::ALL.iter().map(|p| p.row().push.driver).collect();
        drivers.sort();
        drivers.dedup();
        assert_eq!(
            drivers.len(),
            Platform::ALL.len(),
            "driver names are unique"
        );
        for p in Platform::ALL {
            let r = p.row();
            assert!(
                r.files.contains(&r.push.file),
                "{p}: pushes a file it renders"
            );
            for c in r.push.companions {
                assert!(r.files.contains(c), "{p}: companion {c} is rendered");
            }
        }
    }

    #[test]
    fn eos_numbers_ports_by_cage_and_lane() {
        assert_eq!(
            Platform::Eos.port_name(Form::Osfp, 3, 1, 2).as_deref(),
            Some("Ethernet3/5")
        );
        assert_eq!(Platform::Nvue.port_name(Form::Osfp, 3, 1, 2), None);
        assert_eq!(Platform::Eos.mgmt_port("eth0"), "Management1");
        assert_eq!(Platform::Frr.mgmt_port("eth0"), "eth0");
    }
}
