//! How each simulator names a switch's data ports, per network OS: the one mapping from the lab
//! plan's cable ends (the cabling plan's port and the kernel interface name the virtual lab
//! gives it, `labplan::names`) to the interface a containerlab or NVIDIA Air node has.
//!
//! Rows are keyed by the platform's spec name (`model::platform`), so nothing here matches on
//! the platform; a device without a platform (a GPU node) is a plain Linux host.
//! Sources (srl-labs/containerlab@39ff2b7ccce20f3c4610fcbd1fc030582f4499c1,
//! `docs/manual/kinds/`): `nvidia_cumulusvx.md` ("dataplane interfaces … named as `swpN` … matches
//! the port name in the network OS configuration"), `sonic-vs.md` (`eth1` is the first front-panel
//! port, `Ethernet0`; the vs image's ports are `Ethernet0`, `Ethernet4`, … four lanes apart, so
//! `eth<k/4+1>` is `Ethernet<k>`), `ceos.md` ("`eth1_1` … equivalent to `Ethernet1/1`"), `linux.md`
//! (the container's own interface names). NVIDIA Air (CumulusNetworks/docs,
//! `content/nvidia-air-v2/Custom-Topology.md`): Cumulus VX ports `swpN`, SONiC VS ports `ethN`
//! as in its example; other images are Ubuntu hosts with the kernel's names.

use crate::labplan::CableEnd;
use crate::model::Platform;

/// How a tool names a port of the cabling plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PortMap {
    /// The kernel interface name of the lab plan (Cumulus `swpN`, FRR and hosts).
    Kernel,
    /// SONiC VS: `Ethernet<k>` as `eth<k/4+1>`.
    SonicVs,
    /// cEOS: `Ethernet<a>/<b>` as `eth<a>_<b>`.
    CeosUnderscore,
}

/// One network OS as the simulators run it.
#[derive(Debug)]
pub(super) struct Kind {
    /// The platform's spec name; `node` for GPU nodes.
    pub key: &'static str,
    /// containerlab's kind.
    pub clab: &'static str,
    pub clab_ports: PortMap,
    /// Whether the rendered config is bound into the container as FRR's files (`linux` kind
    /// with the FRR image, as containerlab's `lab-examples/frr01`), rather than named as the
    /// node's `startup-config`.
    pub frr_binds: bool,
    pub air_ports: PortMap,
}

const KINDS: [Kind; 5] = [
    Kind {
        key: "nvue",
        clab: "nvidia_cumulusvx",
        clab_ports: PortMap::Kernel,
        frr_binds: false,
        air_ports: PortMap::Kernel,
    },
    Kind {
        key: "sonic",
        clab: "sonic-vs",
        clab_ports: PortMap::SonicVs,
        frr_binds: false,
        air_ports: PortMap::SonicVs,
    },
    Kind {
        key: "eos",
        clab: "arista_ceos",
        clab_ports: PortMap::CeosUnderscore,
        frr_binds: false,
        // Air has no EOS image: an Ubuntu host with the lab's kernel names.
        air_ports: PortMap::Kernel,
    },
    Kind {
        key: "frr",
        clab: "linux",
        clab_ports: PortMap::Kernel,
        frr_binds: true,
        air_ports: PortMap::Kernel,
    },
    Kind {
        key: "node",
        clab: "linux",
        clab_ports: PortMap::Kernel,
        frr_binds: false,
        air_ports: PortMap::Kernel,
    },
];

/// The kind of a device running `platform` (`None`: a GPU node). A platform without a row
/// runs as a Linux router with FRR, what the virtual lab boots.
pub(super) fn of(platform: Option<Platform>) -> &'static Kind {
    let key = platform.map_or("node", Platform::as_str);
    let frr = &KINDS[3];
    KINDS.iter().find(|k| k.key == key).unwrap_or(frr)
}

/// The interface `map` gives a cable end, or why it has none.
pub(super) fn interface(map: PortMap, end: &CableEnd) -> Result<String, String> {
    match map {
        PortMap::Kernel => Ok(end.ifname.clone()),
        PortMap::SonicVs => {
            let k = end
                .port
                .strip_prefix("Ethernet")
                .and_then(|n| n.parse::<u32>().ok());
            match k {
                Some(k) if k % 4 == 0 => Ok(format!("eth{}", k / 4 + 1)),
                _ => Err(format!(
                    "{}:{}: SONiC VS names its ports Ethernet0, Ethernet4, … (one per eth \
                     interface, four lanes apart); this port has no eth interface there",
                    end.device, end.port
                )),
            }
        }
        PortMap::CeosUnderscore => match end.port.strip_prefix("Ethernet") {
            Some(rest)
                if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '/') =>
            {
                Ok(format!("eth{}", rest.replace('/', "_")))
            }
            _ => Err(format!(
                "{}:{}: cEOS maps ethN (ethN_M) to EthernetN (EthernetN/M) only",
                end.device, end.port
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(port: &str) -> CableEnd {
        CableEnd {
            device: "sw".into(),
            port: port.into(),
            ifname: port.replace('/', "-"),
            ns: "rylab-sw".into(),
            mtu: 9216,
            address: None,
        }
    }

    #[test]
    fn each_kind_names_ports_as_its_documentation_says() {
        assert_eq!(
            interface(PortMap::Kernel, &end("swp1s0")),
            Ok("swp1s0".into())
        );
        assert_eq!(
            interface(PortMap::SonicVs, &end("Ethernet0")),
            Ok("eth1".into())
        );
        assert_eq!(
            interface(PortMap::SonicVs, &end("Ethernet8")),
            Ok("eth3".into())
        );
        assert!(interface(PortMap::SonicVs, &end("Ethernet2")).is_err());
        assert_eq!(
            interface(PortMap::CeosUnderscore, &end("Ethernet3/5")),
            Ok("eth3_5".into())
        );
        assert_eq!(
            interface(PortMap::CeosUnderscore, &end("Ethernet12")),
            Ok("eth12".into())
        );
        assert!(interface(PortMap::CeosUnderscore, &end("Management1")).is_err());
        assert_eq!(of(None).key, "node");
        assert_eq!(of(Some(Platform::Sonic)).clab, "sonic-vs");
        for p in Platform::ALL {
            assert_eq!(of(Some(p)).key, p.as_str(), "every platform has its row");
        }
    }
}
