//! Management: the mgmt port in its own VRF, and the services every switch points at.

use super::device::{Mgmt, System};
use crate::addressing::DeviceAlloc;
use crate::spec::ClusterSpec;
use crate::topology::{Device, Fabric, PortId};

pub fn build(spec: &ClusterSpec, f: &Fabric, d: &Device, own: &DeviceAlloc) -> System {
    let list = |v: &[crate::spec::Sp<String>]| v.iter().map(|s| s.value.clone()).collect();
    let s = &spec.services;
    System {
        mgmt: own
            .mgmt
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
        domain: s.domain.clone(),
    }
}
