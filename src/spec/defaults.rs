//! Every default of the spec, in one place.

use super::yaml::Sp;
use crate::model::Transport;
use crate::model::ident::{IfnameList, LabelPrefix, NodePath};

pub fn version() -> Sp<u32> {
    Sp::new(1)
}
pub fn one() -> Sp<u32> {
    Sp::new(1)
}
pub fn transport() -> Transport {
    Transport::Ethernet
}
pub fn ratio() -> Sp<String> {
    Sp::new("1:1".to_string())
}
pub fn ufm_model() -> String {
    "ufm-appliance".to_string()
}
pub fn oob_model() -> Sp<String> {
    Sp::new("sn2201".to_string())
}
/// OOB uplinks: one 10G lane of a split QSFP28 cage (SN2201 `4x10G`), plenty for management.
pub fn oob_uplink_speed() -> Sp<crate::model::Speed> {
    Sp::new(crate::model::Speed::gbps(10))
}
/// Maximum-prefix margin over the full build-out's prefix count: twice what the plan expects.
pub fn max_prefix_margin() -> Sp<u32> {
    Sp::new(100)
}
/// Minutes a session torn down by maximum-prefix waits before it retries.
pub fn max_prefix_restart() -> Sp<u32> {
    Sp::new(5)
}
pub fn rack_width() -> f64 {
    0.6
}
pub fn row_pitch() -> f64 {
    3.0
}
pub fn slack() -> f64 {
    3.0
}
/// A 42U rack is about 1.9 m of vertical run; with its service loop, 2 m.
pub fn in_rack() -> f64 {
    2.0
}
/// Row-level node-to-leaf runs in a SuperPOD network rack (NVIDIA LinkX cable and transceiver data sheets: SR4 multimode ≤ 50 m).
pub fn len_node_leaf() -> f64 {
    10.0
}
/// Leaf-to-spine runs across rows (NVIDIA LinkX cable and transceiver data sheets: DR4 single-mode ≤ 100 m).
pub fn len_leaf_spine() -> f64 {
    30.0
}
pub fn len_spine_core() -> f64 {
    50.0
}
pub fn len_mgmt() -> f64 {
    5.0
}

/// Default naming patterns; twin-planar fabrics get the plane in compute switch names.
pub struct Patterns;

impl Patterns {
    pub const NODE: &'static str = "gpu{node:03}";
    pub const FABRIC_MANAGER: &'static str = "ufm{index:02}";
    pub const STORAGE_LEAF: &'static str = "stor-leaf{index:02}";
    pub const STORAGE_CORE: &'static str = "stor-core{index:02}";
    pub const INBAND_LEAF: &'static str = "inb-leaf{index:02}";
    pub const INBAND_CORE: &'static str = "inb-core{index:02}";
    pub const OOB: &'static str = "oob-su{su:02}-{index:02}";
    pub const OOB_CORE: &'static str = "oob-core{index:02}";
    pub const OOB_GATEWAY: &'static str = "oob-gw{index:02}";

    /// Storage spines: by index in a 2-tier fabric, by spine group and index in a 3-tier one.
    pub fn storage_spine(three_tier: bool) -> &'static str {
        if three_tier {
            "stor-spine-g{group:02}-{index:02}"
        } else {
            "stor-spine{index:02}"
        }
    }

    pub fn inband_spine(three_tier: bool) -> &'static str {
        if three_tier {
            "inb-spine-g{group:02}-{index:02}"
        } else {
            "inb-spine{index:02}"
        }
    }

    pub fn leaf(planes: u32) -> &'static str {
        if planes > 1 {
            "leaf-p{plane}-su{su:02}-{leaf:02}"
        } else {
            "leaf-su{su:02}-{leaf:02}"
        }
    }

    pub fn spine(planes: u32, three_tier: bool) -> &'static str {
        match (planes > 1, three_tier) {
            (false, false) => "spine{index:02}",
            (true, false) => "spine-p{plane}-{index:02}",
            (false, true) => "spine-g{group:02}-{index:02}",
            (true, true) => "spine-p{plane}-g{group:02}-{index:02}",
        }
    }

    pub fn core(planes: u32) -> &'static str {
        if planes > 1 {
            "core-p{plane}-{index:02}"
        } else {
            "core{index:02}"
        }
    }
}

pub fn yes() -> bool {
    true
}
pub fn loopbacks() -> Sp<String> {
    Sp::new("10.0.0.0/16".into())
}
pub fn fabric_links() -> Sp<String> {
    Sp::new("unnumbered".into())
}
/// GPU NIC /31s: room for 131,072 GPUs' ports in /24 leaf blocks (2,048 leaves).
pub fn gpu_pool() -> Sp<String> {
    Sp::new("10.64.0.0/10".into())
}
pub fn storage_pool() -> Sp<String> {
    Sp::new("10.32.0.0/11".into())
}
pub fn inband_pool() -> Sp<String> {
    Sp::new("10.16.0.0/12".into())
}
/// 2,048 management /23s: 16 central roles plus one per SU.
pub fn oob_pool() -> Sp<String> {
    Sp::new("172.16.0.0/12".into())
}
/// A /23 holds the 256 spines of a 64-SU DGX SuperPOD in one central-role subnet.
pub fn oob_subnet() -> Sp<u8> {
    Sp::new(23)
}
/// NVIDIA's DGX H100 BasePOD Ethernet fabric demo (NVIDIA Air; github.com/berkinkartal/cumulus_ansible_modules): BFD 3 × 300 ms on the underlay.
pub fn bfd_interval() -> Sp<u32> {
    Sp::new(300)
}
pub fn bfd_multiplier() -> Sp<u32> {
    Sp::new(3)
}
/// NVIDIA Cumulus Linux RoCE documentation: RoCE DSCP 26 → priority 3 (PFC); CNP DSCP 48 → priority 6 strict.
pub fn roce_dscp() -> Sp<u8> {
    Sp::new(26)
}
pub fn roce_priority() -> Sp<u8> {
    Sp::new(3)
}
pub fn cnp_dscp() -> Sp<u8> {
    Sp::new(48)
}
pub fn cnp_priority() -> Sp<u8> {
    Sp::new(6)
}
/// NVIDIA Cumulus Linux RoCE documentation; Cumulus Linux RoCE documentation: NVIDIA default ECN 150,000–1,500,000 bytes, probability 100.
pub fn ecn_min() -> Sp<u32> {
    Sp::new(150_000)
}
pub fn ecn_max() -> Sp<u32> {
    Sp::new(1_500_000)
}
pub fn ecn_probability() -> Sp<u8> {
    Sp::new(100)
}
/// NVIDIA Cumulus Linux RoCE documentation: ETS TC3 (RoCE) DWRR 50 %, TC0 50 %.
pub fn roce_weight() -> Sp<u8> {
    Sp::new(50)
}
/// SONiC's qos_config.j2 and Configuration.md (sonic-net/sonic-buildimage): PFC watchdog 200/200 ms, action drop.
pub fn pfcwd_ms() -> Sp<u32> {
    Sp::new(200)
}
/// NVIDIA Cumulus Linux RoCE documentation: lossless switch MTU 9216 (Cumulus).
pub fn mtu() -> Sp<u32> {
    Sp::new(9216)
}
/// NVIDIA Cumulus Linux RoCE documentation: host MTU 9000 (RoCE path MTU is 4096 within it).
pub fn host_mtu() -> Sp<u32> {
    Sp::new(9000)
}
/// Above 8,192 GPUs the report and workbook are split per pod: every example (at most 4,096
/// GPUs, a 2.8 MB page) stays one page; the 16k bench fabric (12.6 MB, 4 s to a first
/// screenshot in headless Chromium) is split.
pub fn per_pod_above_gpus() -> u64 {
    8192
}
/// Kubernetes label-key prefix for the fabric topology levels (a DNS subdomain the operator owns).
pub fn label_prefix() -> Sp<LabelPrefix> {
    Sp::new(LabelPrefix::known("topology.railyard.dev"))
}
/// `NCCL_IB_GID_INDEX` on RoCE: 3 = the RoCEv2 IPv4 GID on ConnectX (NVIDIA MLNX_OFED/DOCA QoS documentation).
pub fn gid_index() -> Sp<i32> {
    Sp::new(3)
}
/// `NCCL_SOCKET_IFNAME`: NCCL's own exclusions made explicit; the operator names the in-band
/// interface where it is known. Left unset, `nccl.env` also excludes the rail NICs that
/// `netplan.yaml` routes per rail (`artifacts::hosts::bootstrap`).
pub fn socket_ifname() -> Sp<IfnameList> {
    Sp::new(IfnameList::known("^lo,docker"))
}
/// Install path of the generated NCCL topology file on the nodes.
pub fn nccl_topo_file() -> Sp<NodePath> {
    Sp::new(NodePath::known("/etc/railyard/nccl-topo.xml"))
}
/// L3VNI = 100000 + tenant id: clear of the small VNIs L2 segments usually take.
pub fn l3vni_base() -> Sp<u32> {
    Sp::new(100_000)
}
/// VLAN of a tenant's L3VNI on a leaf = 100 + id (ids up to 3994 fit under 4094).
pub fn vlan_base() -> Sp<u32> {
    Sp::new(100)
}
/// Route targets `65000:<L3VNI>`: one fixed RT per tenant across leaves with different ASNs.
pub fn rt_asn() -> Sp<u32> {
    Sp::new(65_000)
}
/// PKey = 0x0100 + id (OpenSM doc/partition-config.txt (linux-rdma/opensm) example shape `0x0101`).
pub fn pkey_base() -> Sp<u32> {
    Sp::new(0x0100)
}

/// 100G-PAM4 passive copper reaches 3 m (NVIDIA LinkX 100G-PAM4 product line overview:
/// https://docs.nvidia.com/networking/display/400g100gpam4ovpub/linkx-100g-pam4-product-line-overview).
pub fn copper_max() -> Sp<f64> {
    Sp::new(3.0)
}

/// SR4 multimode optics reach 50 m on OM4 (NVIDIA MMA4Z00-NS400 overview,
/// https://docs.nvidia.com/networking/display/MMA4Z00NS400T).
pub fn singlemode_beyond() -> Sp<f64> {
    Sp::new(50.0)
}
