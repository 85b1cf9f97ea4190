//! EVPN-VXLAN tenancy (symmetric routing, one L3VNI per tenant VRF, no L2VNIs), split the way
//! SONiC splits it (sonic-net/SONiC `doc/vxlan/EVPN/EVPN_VXLAN_HLD.md` §4.3, "Following
//! configurations are required for enabling EVPN L3 service"): the VTEP, the L3VNI's VLAN and its
//! VNI map, the VRF with its `vni` and the VLAN interface in that VRF are config_db rows; the same
//! VRF-to-VNI binding and the per-VRF BGP instance are FRR configuration in `frr.conf`. A switch
//! with tenant ports but no EVPN (the intent drops EVPN where there is no BGP, e.g. a storage
//! leaf pair without spines) gets its tenant VRFs as local VRFs: `VRF` rows without `vni` and its
//! ports bound to them, nothing of VXLAN. intfmgrd refuses to move a port that still has
//! addresses from one VRF to another (sonic-swss `cfgmgr/intfmgr.cpp`, `isIntfChangeVrf`), so
//! re-homing a port on a running switch means removing its `INTERFACE` rows first.

use std::collections::{BTreeMap, BTreeSet};

use super::tables::{
    ConfigDb, EvpnNvo, Key, Vlan, VlanInterface, VrfEntry, VxlanTunnel, VxlanTunnelMap,
};
use crate::intent::DeviceIntent;

/// The VTEP (`VXLAN_TUNNEL`) and the EVPN NVO naming it. sonic-vxlan.yang allows one
/// VXLAN_EVPN_NVO and at most two tunnels; `config vxlan add <vtepname> <src_ip>` and `config
/// vxlan evpn_nvo add <nvoname> <vtepname>` (EVPN_VXLAN_HLD.md §5.1.1) take any name.
const VTEP_NAME: &str = "vtep";
const NVO_NAME: &str = "nvo";

/// SONiC data VRFs are named `Vrf...`: sonic-vrf.yang's name pattern is `Vrf[a-zA-Z0-9_-]+`,
/// sonic-utilities `config vrf add` refuses other names and names over 15 characters, and
/// intfmgrd only waits for a VRF to come up when its name starts with `Vrf` (sonic-swss
/// `cfgmgr/intfmgr.cpp` `isIntfStateOk`: any other `vrf_name` is looked up as a port and the
/// interface is never bound). The intent's tenant names are kernel-safe but unprefixed.
const VRF_PREFIX: &str = "Vrf";
/// Linux IFNAMSIZ - 1, the limit `config vrf add` enforces.
const VRF_NAME_MAX: usize = 15;

/// The intent with every tenant VRF renamed to its SONiC name (see [`VRF_PREFIX`]): `Vrf` and
/// the tenant name, or `Vrf` and the tenant id when that would pass 15 characters (tenant names
/// may have 15). The rule depends on the tenant alone, so a tenant has one name on every switch.
pub fn sonic_vrf_names(d: &DeviceIntent) -> Result<DeviceIntent, String> {
    let fail = |message: String| message;
    let names: BTreeMap<&str, String> = d
        .vrfs
        .iter()
        .map(|v| {
            let full = format!("{VRF_PREFIX}{}", v.name);
            let name = if full.len() <= VRF_NAME_MAX {
                full
            } else {
                format!("{VRF_PREFIX}{}", v.tenant_id)
            };
            (v.name.as_str(), name)
        })
        .collect();
    let distinct: BTreeSet<&String> = names.values().collect();
    if distinct.len() != names.len() {
        return Err(fail(format!(
            "tenant VRFs {:?} map to clashing SONiC VRF names {:?}",
            names.keys().collect::<Vec<_>>(),
            names.values().collect::<Vec<_>>()
        )));
    }
    let mut s = d.clone();
    for v in &mut s.vrfs {
        v.name = names[v.name.as_str()].clone();
    }
    for i in &mut s.interfaces {
        if let Some(vrf) = &mut i.vrf {
            *vrf = names.get(vrf.as_str()).cloned().ok_or_else(|| {
                fail(format!(
                    "port {} is in VRF `{vrf}`, which the switch does not carry",
                    i.name
                ))
            })?;
        }
    }
    Ok(s)
}

/// Tenant VRFs, and EVPN-VXLAN on a VTEP (symmetric IRB, RFC 9135, through one L3VNI per
/// tenant VRF, type-5 routes only). A relay (spine, core: `vtep` = None) only carries the
/// l2vpn-evpn family, which is FRR configuration; it gets no row here. A switch with tenant VRFs
/// and no VTEP gets them as local VRFs (`VRF|<vrf>` with no `vni`) and nothing else.
///
/// The rows are the ones EVPN_VXLAN_HLD.md §4.3 lists for an EVPN L3 service, each what one
/// `config` command writes (§5.1.1: `vxlan add`, `vxlan evpn_nvo add`, `vxlan map add`, `vrf
/// add_vrf_vni_map`; and the general `vlan add`, `interface vrf bind Vlan<id>`);
/// `config load` writes them at once (intfmgrd, for one, retries a `vrf_name` binding until the
/// VRF is up: `cfgmgr/intfmgr.cpp` `doIntfGeneralTask`):
/// - `VXLAN_TUNNEL|vtep` `src_ip` and `VXLAN_EVPN_NVO|nvo` `source_vtep` — the VTEP;
/// - `VLAN|Vlan<id>` `vlanid` and `VXLAN_TUNNEL_MAP|vtep|map_<vni>_Vlan<id>` — "Configure
///   L3VNI-VLAN mapping for the given NVO" (§5.2.3: the VNI-VLAN map must exist before the
///   VRF-VNI map, "since VNI should be both L2 and L3");
/// - `VRF|<vrf>` `vni` — "Configure L3VNI under the corresponding SONiC VRF config";
/// - `VLAN_INTERFACE|Vlan<id>` `vrf_name` — "Configure VRF on VLAN interface associated with the
///   VLAN" (the HLD spells the field `vrf-name`; sonic-vlan.yang and intfmgrd read `vrf_name`).
///   §4.3.9: VRF routes become type-5 routes only "if corresponding VRF is configured with L3VNI
///   and corresponding IRB VLAN is present and belongs to the corresponding VRF".
///
/// The tenant ports' `vrf_name` is written with their addresses (`ports::interfaces`).
///
/// RoCE over VXLAN: config_db has no outer-DSCP setting for a VXLAN tunnel. sonic-vxlan.yang
/// VXLAN_TUNNEL has only `src_ip`, `dst_ip` and `ttl_mode` (the DSCP/ECN modes and QoS maps of
/// Configuration.md "Tunnel" belong to the IP-in-IP `TUNNEL` table), and sonic-swss
/// `orchagent/vxlanorch.cpp` `create_tunnel` sets no `SAI_TUNNEL_ATTR_ENCAP_DSCP_MODE`,
/// `..._DECAP_DSCP_MODE` or ECN mode. The SAI defaults therefore apply (opencomputeproject/SAI
/// `inc/saitunnel.h`): DSCP `SAI_TUNNEL_DSCP_MODE_UNIFORM_MODEL` both ways — the inner DSCP is
/// copied into the outer header on encapsulation and from it on decapsulation — and ECN
/// `SAI_TUNNEL_ENCAP_ECN_MODE_STANDARD` (RFC 6040 §4.1, copy from inner) /
/// `SAI_TUNNEL_DECAP_ECN_MODE_STANDARD` (RFC 6040 §4.2, a CE mark on the outer header reaches
/// the inner one). So the RoCE DSCP rides in the outer header, where the fabric ports' DSCP map
/// (`qos`, trusted on every cabled port) puts it in the lossless class on every hop, and ECN
/// marks set in the underlay reach the receiving NIC. Nothing is written for it; whether a given
/// vendor SAI honours the default for VXLAN is not something config_db can state or check.
pub fn tenancy(d: &DeviceIntent, db: &mut ConfigDb) {
    let vtep = d.evpn.as_ref().and_then(|e| e.vtep);
    if let Some(vtep) = vtep {
        db.vxlan_tunnel.insert(
            Key::from(VTEP_NAME),
            VxlanTunnel {
                src_ip: vtep.addr().to_string(),
            },
        );
        db.vxlan_evpn_nvo.insert(
            Key::from(NVO_NAME),
            EvpnNvo {
                source_vtep: VTEP_NAME,
            },
        );
    }
    for v in &d.vrfs {
        db.vrf.insert(
            Key(v.name.clone()),
            VrfEntry {
                vni: vtep.map(|_| v.l3vni.to_string()),
            },
        );
        if vtep.is_none() {
            continue;
        }
        let vlan = format!("Vlan{}", v.vlan);
        db.vlan.insert(
            Key(vlan.clone()),
            Vlan {
                vlanid: v.vlan.to_string(),
                description: format!("L3VNI {} of tenant VRF {}", v.l3vni, v.name),
            },
        );
        db.vlan_interface.insert(
            Key(vlan.clone()),
            VlanInterface {
                vrf_name: v.name.clone(),
            },
        );
        db.vxlan_tunnel_map.insert(
            Key(format!("{VTEP_NAME}|map_{}_{vlan}", v.l3vni)),
            VxlanTunnelMap {
                vlan,
                vni: v.l3vni.to_string(),
            },
        );
    }
}
