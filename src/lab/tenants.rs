//! Tenant VRFs without VRF devices: FRR's namespace-as-VRF backend (`LAB-NOTES.md`). This
//! kernel has no `vrf` link type, so each tenant VRF of a leaf is a namespace of its own (named
//! by [`crate::labplan::vrf_ns`]) holding the leaf's ports of that VRF and the L3VNI: a VXLAN
//! device created in the leaf's namespace (its UDP socket, and so its underlay, stay there) and
//! then moved into the VRF namespace, enslaved to a bridge that is the L3VNI's SVI (zebra derives
//! the router MAC from it; without it the L3VNI stays down).
//!
//! Only kernel plumbing: the VRF, its VNI, RD and RTs all come from the rendered `frr.conf`.

use super::LabError;
use super::netns::{Features, batch};
use crate::labplan::LabPlan;

/// `vni100001`: fits the 15-character limit for any 24-bit VNI.
pub fn vxlan_name(l3vni: u32) -> String {
    format!("vni{l3vni}")
}

/// `br100001`.
pub fn bridge_name(l3vni: u32) -> String {
    format!("br{l3vni}")
}

/// Why tenant VRFs cannot be built on this kernel, if they cannot.
pub fn unsupported(f: &Features) -> Option<String> {
    let mut missing = Vec::new();
    if !f.vxlan {
        missing.push("VXLAN devices");
    }
    if !f.bridge {
        missing.push("bridges");
    }
    (!missing.is_empty()).then(|| {
        format!(
            "the kernel lacks {} (needed for the L3VNIs of tenant VRFs)",
            missing.join(" and ")
        )
    })
}

/// Create the L3VNI devices of every tenant VRF. The VRF namespaces themselves, and the leaf
/// ports in them, are made with the rest of the lab.
pub fn build(plan: &LabPlan) -> Result<(), LabError> {
    for r in &plan.routers {
        let mut leaf_lines = Vec::new();
        for v in &r.vrfs {
            // No VTEP: the switch runs no EVPN (a standalone storage leaf), so the VRF is
            // local to it, as its config says; there is no L3VNI device to make.
            let Some(vtep) = v.vtep else {
                continue;
            };
            // Room for the largest host MTU of the VRF inside the underlay.
            let mtu = plan
                .cables
                .iter()
                .flat_map(|c| [&c.a, &c.b])
                .filter(|e| e.ns == v.ns)
                .map(|e| e.mtu)
                .max()
                .unwrap_or(1500);
            let vx = vxlan_name(v.l3vni);
            leaf_lines.push(format!(
                "link add {vx} mtu {mtu} type vxlan id {} local {vtep} dstport 4789 nolearning",
                v.l3vni
            ));
            leaf_lines.push(format!("link set {vx} netns {}", v.ns));
        }
        batch(Some(&r.ns), &leaf_lines)?;
        for v in r.vrfs.iter().filter(|v| v.vtep.is_some()) {
            let (vx, br) = (vxlan_name(v.l3vni), bridge_name(v.l3vni));
            let lines = vec![
                format!("link add {br} type bridge"),
                format!("link set {vx} master {br}"),
                format!("link set dev {vx} type bridge_slave neigh_suppress on learning off"),
                format!("link set {vx} up"),
                format!("link set {br} up"),
            ];
            batch(Some(&v.ns), &lines)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_fit_the_kernel_limit() {
        assert_eq!(vxlan_name(16_777_215), "vni16777215");
        assert!(vxlan_name(16_777_215).len() <= 15);
        assert_eq!(bridge_name(100_001), "br100001");
    }

    #[test]
    fn missing_features_are_named() {
        let f = Features {
            netns: true,
            veth: true,
            vxlan: false,
            bridge: true,
            missing: vec![],
        };
        assert_eq!(
            unsupported(&f).as_deref(),
            Some("the kernel lacks VXLAN devices (needed for the L3VNIs of tenant VRFs)")
        );
        let ok = Features { vxlan: true, ..f };
        assert_eq!(unsupported(&ok), None);
    }
}
