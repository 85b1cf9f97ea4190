//! The reservations of the management network, from the plan and the identities: which switch
//! gets which address, keyed on what, pointed at which ZTP file. Every refusal is reported at the
//! switch's row of the identity file, before any DHCP server sees the configuration.

use std::collections::BTreeMap;

use super::identities::{Identities, Identity};
use super::kea::{Dhcp4, Identifier, KeaDhcp4, OptionData, Reservation, Subnet4, SubnetContext};
use super::served::{first_file, sends_serial_as_client_id, serial_client_id};
use super::url::ProvisioningUrl;
use crate::addressing::Allocation;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::Role;
use crate::topology::{Device, Fabric};

/// Whose address and identifier a reservation already holds: a second holder is refused.
#[derive(Default)]
struct Taken {
    addresses: BTreeMap<String, String>,
    identifiers: BTreeMap<Identifier, String>,
}

/// The Kea DHCPv4 configuration of every identified switch; `None` when a switch cannot be
/// reserved or two reservations collide (every such problem reported).
pub fn kea_dhcp4(
    fabric: &Fabric,
    allocation: &Allocation,
    ids: &Identities,
    url: Option<&ProvisioningUrl>,
    diags: &mut Diagnostics,
) -> Option<KeaDhcp4> {
    let mut subnets: BTreeMap<u16, Vec<Reservation>> = BTreeMap::new();
    let mut taken = Taken::default();
    let errors = diags.error_count();
    // The OOB gateway routes the management subnets: it is up before any switch can reach the
    // server through it, provisioned from the site network or its console, not by this file.
    for d in fabric
        .devices()
        .filter(|d| d.role.is_switch() && d.role != Role::OobGateway)
    {
        let Some(id) = ids.0.get(&d.name) else {
            continue;
        };
        let Some((vlan, r)) = reservation(d, id, allocation, url, diags) else {
            continue;
        };
        if taken.admit(&d.name, &r, id, diags) {
            subnets.entry(vlan).or_default().push(r);
        }
    }
    if diags.error_count() > errors {
        return None;
    }
    let subnet4 = allocation
        .mgmt_subnets
        .iter()
        .map(|(vlan, s)| Subnet4 {
            id: u32::from(*vlan),
            subnet: s.subnet.trunc().to_string(),
            user_context: SubnetContext {
                name: s.name.clone(),
                vlan: *vlan,
            },
            reservations_in_subnet: true,
            reservations_out_of_pool: true,
            option_data: vec![OptionData::router(s.gateway.addr().to_string())],
            reservations: subnets.remove(vlan).unwrap_or_default(),
        })
        .collect();
    Some(KeaDhcp4 {
        dhcp4: Dhcp4::new(subnet4),
    })
}

/// One switch's reservation and its subnet's VLAN, or why it has none (reported).
fn reservation(
    d: &Device,
    id: &Identity,
    allocation: &Allocation,
    url: Option<&ProvisioningUrl>,
    diags: &mut Diagnostics,
) -> Option<(u16, Reservation)> {
    let planned = allocation.devices.get(&d.name);
    let (Some(address), Some(vlan)) = (
        planned.and_then(|p| p.mgmt),
        planned.and_then(|p| p.mgmt_vlan),
    ) else {
        diags.push(unreservable(
            id,
            format!(
                "`{}` has no management address in a management subnet of the plan",
                d.name
            ),
        ));
        return None;
    };
    let identifier = match (id.mac, &id.serial, d.platform) {
        (Some(mac), _, _) => Identifier::HwAddress(mac.to_string()),
        (None, Some(serial), Some(p)) if sends_serial_as_client_id(p) => {
            Identifier::ClientId(serial_client_id(serial.as_str()))
        }
        _ => {
            diags.push(unreservable(
                id,
                format!(
                    "`{}` has only a serial number, and its OS ({}) does not send it as its DHCP client id: give its management port's MAC address",
                    d.name,
                    d.platform.map_or("none", |p| p.as_str())
                ),
            ));
            return None;
        }
    };
    let option_data = match (url, d.platform.and_then(|p| first_file(p, &d.name))) {
        (Some(url), Some((file, option))) => vec![OptionData::ztp(option, url.join(&file))],
        _ => Vec::new(),
    };
    Some((
        vlan,
        Reservation {
            hostname: d.name.clone(),
            identifier,
            ip_address: address.addr().to_string(),
            option_data,
        },
    ))
}

impl Taken {
    /// Whether the reservation's address and identifier are no other switch's (reported if so).
    fn admit(
        &mut self,
        name: &str,
        r: &Reservation,
        id: &Identity,
        diags: &mut Diagnostics,
    ) -> bool {
        let mut clash = |what: String| {
            diags.push(
                Diagnostic::error(codes::DHCP_DUPLICATE_RESERVATION, what)
                    .at(Some(id.at), "this switch's reservation")
                    .help("one reservation per address and per MAC or client id: correct the identity file"),
            );
        };
        if let Some(other) = self.addresses.get(&r.ip_address) {
            clash(format!(
                "`{name}` would be reserved {}, which `{other}` already is",
                r.ip_address
            ));
            return false;
        }
        if let Some(other) = self.identifiers.get(&r.identifier) {
            clash(format!(
                "`{name}` would be reserved by the {} of `{other}`",
                r.identifier
            ));
            return false;
        }
        self.addresses.insert(r.ip_address.clone(), name.to_owned());
        self.identifiers
            .insert(r.identifier.clone(), name.to_owned());
        true
    }
}

fn unreservable(id: &Identity, message: String) -> Diagnostic {
    Diagnostic::error(codes::DHCP_UNRESERVABLE, message)
        .at(Some(id.at), "this switch")
        .help("a reservation needs the switch's planned management address and its MAC (or, on Cumulus Linux 5.10+, its serial)")
}
