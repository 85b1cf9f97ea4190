//! NetBox bulk-import files (`netbox/1-sites.csv` … `netbox/9-cables.csv`), numbered in the
//! order NetBox needs them (each names objects of the ones before): site, racks,
//! manufacturers, device types, device roles, devices, interfaces, IP addresses, cables.
//! Columns are those of NetBox's import forms (netbox-community/netbox
//! @43fe81f9e833228c9869f7ddadb67e6c5f145060, `netbox/dcim/forms/bulk_import.py`:
//! `SiteImportForm`, `RackImportForm`, `ManufacturerImportForm`, `DeviceTypeImportForm`,
//! `DeviceRoleImportForm`, `DeviceImportForm`, `InterfaceImportForm`, `CableImportForm`;
//! `netbox/ipam/forms/bulk_import.py`: `IPAddressImportForm`), values of its choice sets
//! (`netbox/dcim/choices.py`, `netbox/ipam/choices.py`); the lists are copied in
//! `tests/fixtures/netbox/` and the tests hold every file to them.
//!
//! Everything is `planned` (IP addresses, which have no such status: `reserved`). The cables
//! file is `netbox-cables.csv` of `railyard build`, byte for byte, so both imports agree. Device
//! types are named as netbox-community/devicetype-library names them (`netbox_types.rs`), so a
//! DCIM team that imported the library's types finds them.

use std::collections::{BTreeMap, BTreeSet};

use super::ExportError;
use super::netbox_types::{device_type, interface_type, slug};
use crate::design::Design;
use crate::model::{Role, Transport};
use crate::output::csv::{Column, Writer};
use crate::output::{OutputFile, OutputGroup};
use crate::topology::{Device, Fabric, PortId};

pub const SITES: [Column; 3] = [
    Column::text("name"),
    Column::text("slug"),
    Column::text("status"),
];
pub const RACKS: [Column; 3] = [
    Column::text("site"),
    Column::text("name"),
    Column::text("status"),
];
pub const MANUFACTURERS: [Column; 2] = [Column::text("name"), Column::text("slug")];
pub const DEVICE_TYPES: [Column; 5] = [
    Column::text("manufacturer"),
    Column::text("model"),
    Column::text("slug"),
    Column::number("u_height"),
    Column::text("description"),
];
pub const DEVICE_ROLES: [Column; 3] = [
    Column::text("name"),
    Column::text("slug"),
    Column::text("color"),
];
pub const DEVICES: [Column; 7] = [
    Column::text("name"),
    Column::text("role"),
    Column::text("manufacturer"),
    Column::text("device_type"),
    Column::text("status"),
    Column::text("site"),
    Column::text("rack"),
];
pub const INTERFACES: [Column; 5] = [
    Column::text("device"),
    Column::text("name"),
    Column::text("type"),
    Column::number("speed"),
    Column::text("mgmt_only"),
];
pub const IP_ADDRESSES: [Column; 6] = [
    Column::text("address"),
    Column::text("status"),
    Column::text("device"),
    Column::text("interface"),
    Column::text("is_oob"),
    Column::text("description"),
];

/// Role colours (6 hex digits, as NetBox's colour field takes them), by network.
fn color(role: Role) -> &'static str {
    match role {
        Role::Node | Role::Appliance => "76b900",
        Role::Leaf | Role::Spine | Role::Core => "2196f3",
        Role::StorageLeaf | Role::StorageSpine | Role::StorageCore => "ff9800",
        Role::InbandLeaf | Role::InbandSpine | Role::InbandCore => "9c27b0",
        Role::OobLeaf | Role::OobCore | Role::OobGateway => "9e9e9e",
        Role::NvlinkSwitchTray | Role::PowerShelf => "607d8b",
    }
}

fn csv(path: &str, columns: &[Column], rows: &[Vec<String>]) -> Result<OutputFile, ExportError> {
    let mut w = Writer::new(columns);
    for r in rows {
        w.row(r.iter().map(String::as_str));
    }
    let bytes = w
        .finish()
        .map_err(|e| ExportError::new(path, e.to_string()))?;
    Ok(OutputFile::new(OutputGroup::Plan, path, bytes))
}

/// One NetBox device of the plan: its type's names.
struct Typed<'a> {
    device: &'a Device,
    manufacturer: String,
    model: String,
}

pub(super) fn files(i: &Design) -> Result<Vec<OutputFile>, ExportError> {
    let f = &i.fabric;
    let site = f.site.clone().unwrap_or_else(|| f.name.clone());
    let mut out = Vec::new();
    out.push(csv(
        "netbox/1-sites.csv",
        &SITES,
        &[vec![site.clone(), slug(&site), "planned".into()]],
    )?);
    let racks: BTreeSet<&str> = f.devices().filter_map(|d| d.rack.as_deref()).collect();
    let rows: Vec<Vec<String>> = racks
        .iter()
        .map(|r| vec![site.clone(), (*r).to_string(), "planned".into()])
        .collect();
    out.push(csv("netbox/2-racks.csv", &RACKS, &rows)?);
    let typed = types(f, &mut out)?;
    let roles: BTreeSet<Role> = f.devices().map(|d| d.role).collect();
    let rows: Vec<Vec<String>> = roles
        .iter()
        .map(|r| vec![r.as_str().into(), slug(r.as_str()), color(*r).into()])
        .collect();
    out.push(csv("netbox/5-device-roles.csv", &DEVICE_ROLES, &rows)?);
    let rows: Vec<Vec<String>> = typed
        .iter()
        .map(|t| {
            vec![
                t.device.name.clone(),
                t.device.role.as_str().into(),
                t.manufacturer.clone(),
                t.model.clone(),
                "planned".into(),
                site.clone(),
                t.device.rack.clone().unwrap_or_default(),
            ]
        })
        .collect();
    out.push(csv("netbox/6-devices.csv", &DEVICES, &rows)?);
    out.push(csv("netbox/7-interfaces.csv", &INTERFACES, &interfaces(f))?);
    out.push(csv(
        "netbox/8-ip-addresses.csv",
        &IP_ADDRESSES,
        &addresses(i),
    )?);
    let cables = crate::artifacts::netbox_cables(i)
        .map_err(|e| ExportError::new("netbox/9-cables.csv", e.to_string()))?;
    out.push(OutputFile::new(
        OutputGroup::Plan,
        "netbox/9-cables.csv",
        cables.bytes,
    ));
    Ok(out)
}

/// Manufacturers and device types (files 3 and 4), and every device with its type's names.
fn types<'a>(f: &'a Fabric, out: &mut Vec<OutputFile>) -> Result<Vec<Typed<'a>>, ExportError> {
    let mut manufacturers = BTreeSet::new();
    let mut models: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut typed = Vec::new();
    for d in f.devices() {
        let (vendor, ru, description) = match (f.switch_model(d), f.node_model(d)) {
            (Some(m), _) => (m.vendor.to_string(), m.ru, m.description.to_string()),
            (None, Some(m)) => (m.vendor.to_string(), m.ru, m.description.to_string()),
            (None, None) => ("Generic".to_string(), 1, String::new()),
        };
        let t = device_type(&d.model, &vendor);
        manufacturers.insert(t.manufacturer.clone());
        models
            .entry((t.manufacturer.clone(), t.model.clone()))
            .or_insert_with(|| vec![t.slug.clone(), ru.to_string(), description]);
        typed.push(Typed {
            device: d,
            manufacturer: t.manufacturer,
            model: t.model,
        });
    }
    let rows: Vec<Vec<String>> = manufacturers
        .iter()
        .map(|m| vec![m.clone(), slug(m)])
        .collect();
    out.push(csv("netbox/3-manufacturers.csv", &MANUFACTURERS, &rows)?);
    let rows: Vec<Vec<String>> = models
        .into_iter()
        .map(|((m, model), rest)| [vec![m, model], rest].concat())
        .collect();
    out.push(csv("netbox/4-device-types.csv", &DEVICE_TYPES, &rows)?);
    typed.sort_by(|a, b| a.device.name.cmp(&b.device.name));
    Ok(typed)
}

/// Every cabled port, each once, and every management port with an address.
fn interfaces(f: &Fabric) -> Vec<Vec<String>> {
    let mut rows: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for l in f.links() {
        let ib = [l.a, l.b].iter().any(|e| {
            let d = f.device_of(e);
            f.transport_of(d.role) == Some(Transport::Infiniband)
        });
        for e in [l.a, l.b] {
            let n = f.named(&e);
            let form = match e.port {
                PortId::Cage { cage } | PortId::Lane { cage, .. } => f
                    .switch_model(n.device)
                    .and_then(|m| {
                        m.port_groups.iter().find(|g| {
                            u32::from(cage) >= g.first && u32::from(cage) < g.first + g.count
                        })
                    })
                    .map(|g| g.form),
                _ => None,
            };
            let mgmt = e.port == PortId::Mgmt;
            let ty = interface_type(l.speed, form, ib, mgmt);
            rows.entry((n.device.name.clone(), n.port_name.clone()))
                .or_insert_with(|| {
                    vec![
                        n.device.name.clone(),
                        n.port_name.clone(),
                        ty.to_string(),
                        (u64::from(l.speed.as_gbps()) * 1_000_000).to_string(),
                        mgmt.to_string(),
                    ]
                });
        }
    }
    for d in f.devices() {
        let port = f.port_name(d, PortId::Mgmt);
        rows.entry((d.name.clone(), port.clone()))
            .or_insert_with(|| {
                vec![
                    d.name.clone(),
                    port,
                    "1000base-t".into(),
                    String::new(),
                    "true".into(),
                ]
            });
    }
    rows.into_values().collect()
}

/// Management addresses on the management ports, and the numbered cables' addresses.
fn addresses(i: &Design) -> Vec<Vec<String>> {
    let f = &i.fabric;
    let mut rows = Vec::new();
    for d in f.devices() {
        if let Some(a) = i.allocation.devices.get(&d.name).and_then(|x| x.mgmt) {
            let port = f.port_name(d, PortId::Mgmt);
            rows.push(vec![
                a.to_string(),
                "reserved".into(),
                d.name.clone(),
                port,
                "true".into(),
                "management".into(),
            ]);
        }
    }
    for (id, l) in f.links_with_ids() {
        let la = &i.allocation.links[id];
        for (e, a) in [(l.a, la.a), (l.b, la.b), (l.a, la.a6), (l.b, la.b6)] {
            if let Some(a) = a {
                let n = f.named(&e);
                rows.push(vec![
                    a.to_string(),
                    "reserved".into(),
                    n.device.name.clone(),
                    n.port_name,
                    "false".into(),
                    format!("cable {}", l.cable_id),
                ]);
            }
        }
    }
    rows
}
