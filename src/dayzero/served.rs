//! What each switch is pointed at on day zero: the file its OS's ZTP agent fetches first, by
//! which DHCP option, under the provisioning URL. The operator serves the build directory at the
//! provisioning URL, so a path relative to the build is also the file's URL under it: the ZTP
//! files (`dayzero/ztp/<switch>/`) fetch the switch's configs from `configs/<switch>/`.

use crate::model::Platform;

/// Where the ZTP files are, in the build and under the provisioning URL.
pub const ZTP_DIR: &str = "dayzero/ztp";

/// How a platform's ZTP agent learns where its first file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZtpOption {
    /// Option 239, `cumulus-provision-url`: not a standard option, defined in the server's
    /// configuration. Cumulus Linux ZTP ("Zero Touch Provisioning - ZTP", Cumulus Linux user
    /// guide, https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-515/Installation-Management/Zero-Touch-Provisioning-ZTP/).
    CumulusProvisionUrl,
    /// Option 67, `boot-file-name`: SONiC ZTP reads the URL of its `ztp.json` there
    /// (sonic-net/SONiC `doc/ztp/ztp.md`); Arista ZTP the URL of its bootstrap script (Arista
    /// EOS manual, "Zero Touch Provisioning").
    BootFileName,
}

impl ZtpOption {
    pub const CUMULUS_CODE: u8 = 239;
    pub const CUMULUS_NAME: &'static str = "cumulus-provision-url";

    /// Kea's name of the option.
    pub fn kea_name(self) -> &'static str {
        match self {
            Self::CumulusProvisionUrl => Self::CUMULUS_NAME,
            Self::BootFileName => "boot-file-name",
        }
    }
}

/// The first file of `platform`'s ZTP, relative to the served tree, and the option that points
/// at it; `None` for a platform without ZTP (FRR on Linux: the lab's, provisioned by the lab).
pub fn first_file(platform: Platform, switch: &str) -> Option<(String, ZtpOption)> {
    let (file, option) = match platform {
        Platform::Nvue => ("cumulus-ztp.sh", ZtpOption::CumulusProvisionUrl),
        Platform::Sonic => ("ztp.json", ZtpOption::BootFileName),
        Platform::Eos => ("bootstrap", ZtpOption::BootFileName),
        Platform::Frr => return None,
    };
    Some((format!("{ZTP_DIR}/{switch}/{file}"), option))
}

/// Whether the platform's DHCP client sends the serial number as its client id, so a switch
/// known by its serial alone can be reserved. Cumulus Linux 5.10 and later do (NVIDIA Config
/// Manager, docs/dhcp/nautobot-modeling.mdx: `client_id_template: "00:{{ serial | hex }}"`,
/// https://github.com/dsx-ai-factory/nv-config-manager).
pub fn sends_serial_as_client_id(platform: Platform) -> bool {
    platform == Platform::Nvue
}

/// The client id such a switch sends: type 0 (not a hardware type) and the serial's bytes.
pub fn serial_client_id(serial: &str) -> String {
    std::iter::once("00".to_owned())
        .chain(serial.bytes().map(|b| format!("{b:02x}")))
        .collect::<Vec<_>>()
        .join(":")
}
