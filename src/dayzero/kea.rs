//! The ISC Kea DHCPv4 server configuration for the management network (`dayzero/kea-dhcp4.json`):
//! one subnet per management subnet of the plan (its VLAN as the subnet id, the OOB gateway's
//! address as the router), one reservation per identified switch (by the MAC of its management
//! port, or by the serial a Cumulus Linux 5.10+ switch sends as its client id) with its planned
//! address and the ZTP option of its OS. Serialized from these structs; the key names are Kea
//! 2.2's (Kea Administrator Reference Manual, "The DHCPv4 Server",
//! https://kea.readthedocs.io/en/kea-2.2.0/arm/dhcp4-srv.html).
//!
//! No pools: an unknown device gets no lease, so a switch never boots into another's config.
//! Management addressing is IPv4 only (`addressing::DeviceAlloc::mgmt_gateway`), so there is no
//! `kea-dhcp6` configuration to write.

use serde::Serialize;

use super::served::ZtpOption;

#[derive(Serialize)]
pub struct KeaDhcp4 {
    #[serde(rename = "Dhcp4")]
    pub dhcp4: Dhcp4,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Dhcp4 {
    pub interfaces_config: Interfaces,
    /// Which identifiers a reservation may use, looked up in this order.
    pub host_reservation_identifiers: Vec<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub option_def: Vec<OptionDef>,
    pub subnet4: Vec<Subnet4>,
}

#[derive(Serialize)]
pub struct Interfaces {
    /// `*`: every interface; the operator narrows it to the management-facing one.
    pub interfaces: Vec<String>,
}

/// A user-defined option (option 239 is not one of Kea's standard options).
#[derive(Serialize)]
pub struct OptionDef {
    pub name: &'static str,
    pub code: u8,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub space: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Subnet4 {
    /// The management VLAN: stable as the cluster grows.
    pub id: u32,
    pub subnet: String,
    pub user_context: SubnetContext,
    /// Reservations may lie outside any pool (there are none), and only in this subnet.
    pub reservations_in_subnet: bool,
    pub reservations_out_of_pool: bool,
    pub option_data: Vec<OptionData>,
    pub reservations: Vec<Reservation>,
}

#[derive(Serialize)]
pub struct SubnetContext {
    pub name: String,
    pub vlan: u16,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct OptionData {
    pub name: &'static str,
    pub data: String,
    /// Sent whether or not the client asked for it: a ZTP agent that does not list the option
    /// in its parameter request list still gets its URL.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub always_send: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Reservation {
    pub hostname: String,
    #[serde(flatten)]
    pub identifier: Identifier,
    pub ip_address: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub option_data: Vec<OptionData>,
}

/// The one identifier a reservation is keyed on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Identifier {
    /// The MAC address, lowercase with colons.
    HwAddress(String),
    /// The client id in hex pairs (`00:` and the serial's bytes).
    ClientId(String),
}

impl std::fmt::Display for Identifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::HwAddress(mac) => write!(f, "MAC address {mac}"),
            Self::ClientId(id) => write!(f, "client id {id}"),
        }
    }
}

impl OptionData {
    pub fn router(gateway: String) -> Self {
        OptionData {
            name: "routers",
            data: gateway,
            always_send: false,
        }
    }

    pub fn ztp(option: ZtpOption, url: String) -> Self {
        OptionData {
            name: option.kea_name(),
            data: url,
            always_send: true,
        }
    }
}

impl Dhcp4 {
    pub fn new(subnet4: Vec<Subnet4>) -> Self {
        let uses_239 = subnet4.iter().any(|s| {
            s.reservations.iter().any(|r| {
                r.option_data
                    .iter()
                    .any(|o| o.name == ZtpOption::CUMULUS_NAME)
            })
        });
        let option_def = if uses_239 {
            vec![OptionDef {
                name: ZtpOption::CUMULUS_NAME,
                code: ZtpOption::CUMULUS_CODE,
                kind: "string",
                space: "dhcp4",
            }]
        } else {
            Vec::new()
        };
        Dhcp4 {
            interfaces_config: Interfaces {
                interfaces: vec!["*".to_owned()],
            },
            host_reservation_identifiers: vec!["hw-address", "client-id"],
            option_def,
            subnet4,
        }
    }
}
