//! Management: the mgmt port in its own VRF (OOB switches: their management VLAN instead), and
//! the services every switch points at.

use super::device::{Mgmt, System};
use crate::addressing::DeviceAlloc;
use crate::spec::ClusterSpec;
use crate::topology::{Device, Fabric, PortId};

pub fn build(spec: &ClusterSpec, f: &Fabric, d: &Device, own: &DeviceAlloc) -> System {
    fn list<T: ToString>(v: &[crate::spec::Sp<T>]) -> Vec<String> {
        v.iter().map(|s| s.value.to_string()).collect()
    }
    let s = &spec.services;
    // An OOB switch is managed in-band on its own management VLAN (`l2`), not on an uncabled
    // management port.
    let in_band = d.role.is_oob();
    System {
        mgmt: own
            .mgmt
            .filter(|_| !in_band)
            .zip(own.mgmt_gateway)
            .map(|(address, gateway)| Mgmt {
                interface: f.port_name(d, PortId::Mgmt),
                vrf: "mgmt".into(),
                address,
                gateway,
            }),
        ntp: list(&s.ntp),
        syslog: list(&s.syslog),
        dns: list(&s.dns),
        snmp_traps: list(&s.snmp_traps),
        domain: s.domain.as_ref().map(|d| d.to_string()),
    }
}
