//! Hardware models: switch port layouts and breakouts, node GPUs and NICs.
//!
//! The built-in models live as YAML under `catalog/` at the crate root and are embedded at build
//! time; a spec may add or replace models under its own `catalog:` key.

mod builtin;
mod cage;
mod physical;
pub mod sonic;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::ident::{IfName, IfPattern, Name, Text};
use crate::model::{Fits, Form, LaneRate, Platform, Speed, Top, Transport};

pub use builtin::builtin;
pub use cage::Cage;
pub use physical::{
    Adapter, Assembly, AssemblyEnd, Evidence, Fibre, Length, Module, PnBasis, PnRule, SourceKind,
    length_for, order,
};

/// Every hardware model known to a build: built-ins plus the spec's own.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Switch models by name (the key a spec's `model:` names).
    #[serde(default)]
    pub switches: BTreeMap<Name, SwitchModel>,
    /// Node (server) models by name (the key `scalable_units.node_model` names).
    #[serde(default)]
    pub nodes: BTreeMap<Name, NodeModel>,
    /// Pluggable transceivers by part number (`catalog/physical.yaml`).
    #[serde(default)]
    pub modules: BTreeMap<Name, Module>,
    /// DAC, ACC, AOC and twisted-pair cables by part family.
    #[serde(default)]
    pub assemblies: BTreeMap<Name, Assembly>,
    /// Passive fibre cords by part family.
    #[serde(default)]
    pub fibres: BTreeMap<Name, Fibre>,
    /// Adapters (QSFP-to-SFP) by part number.
    #[serde(default)]
    pub adapters: BTreeMap<Name, Adapter>,
}

impl Catalog {
    /// Overlay `other` on `self`: a model of the same name in `other` replaces the built-in one.
    pub fn extended_with(&self, other: &Catalog) -> Catalog {
        let mut out = self.clone();
        out.switches
            .extend(other.switches.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.nodes
            .extend(other.nodes.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.modules
            .extend(other.modules.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.assemblies
            .extend(other.assemblies.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.fibres
            .extend(other.fibres.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.adapters
            .extend(other.adapters.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }
}

/// A switch model: its cages, how they break out, how its OS names ports.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchModel {
    pub vendor: Text,
    pub description: Text,
    /// The transports the model's ports speak.
    pub transport: Vec<Transport>,
    /// Rack units.
    pub ru: u32,
    /// Name of the dedicated management (OOB) port.
    pub mgmt_port: IfName,
    /// Switch ASIC (`spectrum-4`), which decides features such as adaptive routing.
    #[serde(default)]
    pub asic: Option<Name>,
    /// Network OS the model ships with; a spec may choose another under `platforms`.
    #[serde(default)]
    pub os: Option<Platform>,
    /// Data port groups, in front-panel order.
    pub port_groups: Vec<PortGroup>,
    /// The SONiC platform and HWSKU the model runs when a spec picks `sonic`; their port tables
    /// and buffer data come from `catalog/sonic/<platform>/`.
    #[serde(default)]
    pub sonic: Option<SonicModel>,
    /// Only this vendor's transceivers come up in the model's cages (the switch OS refuses
    /// others unless told otherwise): the link solver picks modules of this vendor.
    #[serde(default)]
    pub optics_vendor: Option<Text>,
    /// Where the figures come from.
    #[serde(default)]
    pub source: Text,
}

/// Names under which SONiC knows a switch model (sonic-buildimage `device/<vendor>/<platform>/`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SonicModel {
    /// SONiC platform string (`x86_64-nvidia_sn5600-r0`), as `DEVICE_METADATA.platform` holds it.
    pub platform: Name,
    /// HWSKU (`ACS-SN5600`): port layout and buffer templates of the platform.
    pub hwsku: Name,
}

impl SwitchModel {
    /// The carried SONiC platform data of this model and its HWSKU, when both are known.
    pub fn sonic_platform(&self) -> Option<(&'static sonic::SonicPlatform, &'static sonic::Hwsku)> {
        let m = self.sonic.as_ref()?;
        let p = sonic::platform(&m.platform)?;
        Some((p, p.hwskus.get(m.hwsku.as_str())?))
    }
}

/// A run of identical cages.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortGroup {
    /// Front-panel number of the first cage in this group.
    pub first: u32,
    /// Cages in the group.
    pub count: u32,
    pub form: Form,
    /// Full cage rate.
    pub speed: Speed,
    /// Supported modes as `<ports>x<speed>`, e.g. `2x400G`. `1x<speed>` is the unsplit cage.
    pub breakouts: Vec<String>,
    /// OS name of an unsplit cage: `{cage}` is the front-panel number.
    pub name: IfPattern,
    /// OS name of a split port: `{cage}`, `{lane}` (0-based) or `{lane1}` (1-based).
    pub split_name: IfPattern,
    /// Top of the cage (OSFP: `finned` on switches unless stated).
    #[serde(default)]
    pub top: Option<Top>,
    /// Electrical lanes of one cage (default: the form's, OSFP 8).
    #[serde(default)]
    pub lanes: Option<u32>,
    /// Lane rates the cage runs (default: the form's).
    #[serde(default)]
    pub lane_rates: Vec<LaneRate>,
}

impl PortGroup {
    pub fn cage(&self) -> Cage {
        Cage::new(
            self.form,
            self.top,
            self.lanes,
            &self.lane_rates,
            Fits::Switch,
        )
    }

    /// Logical ports per cage when run at `speed`, if the model lists that breakout.
    pub fn lanes_at(&self, speed: Speed) -> Option<u32> {
        self.breakouts.iter().find_map(|b| {
            let (n, s) = b.split_once('x')?;
            let n: u32 = n.parse().ok()?;
            let s: Speed = s.parse().ok()?;
            (s == speed).then_some(n)
        })
    }
}

impl SwitchModel {
    /// The first port group that can run `speed`, with its lanes per cage.
    pub fn group_for(&self, speed: Speed) -> Option<(usize, u32)> {
        self.port_groups
            .iter()
            .enumerate()
            .find_map(|(i, g)| g.lanes_at(speed).map(|l| (i, l)))
    }

    pub fn total_cages(&self) -> u32 {
        self.port_groups.iter().map(|g| g.count).sum()
    }
}

/// A server model: GPUs and the ports it brings to each network.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeModel {
    pub vendor: Text,
    pub description: Text,
    /// GPUs per node.
    pub gpus: u32,
    pub gpu_model: Text,
    /// Rack units.
    pub ru: u32,
    /// Compute NICs in rail order: NIC i serves rail i.
    pub compute: Vec<NodePort>,
    /// Storage fabric ports.
    #[serde(default)]
    pub storage: Vec<NodePort>,
    /// In-band management ports (usually a bonded pair).
    #[serde(default)]
    pub inband: Vec<NodePort>,
    /// The BMC port, cabled to the OOB network.
    pub bmc: NodePort,
    #[serde(default)]
    pub source: Text,
    /// PCIe/NUMA layout for the NCCL topology file; without it no `nccl-topo.xml` is written.
    #[serde(default)]
    pub pcie: Option<PcieLayout>,
    /// The rack-scale system this node is a compute tray of (GB200/GB300 NVL72): its trays share
    /// one NVLink domain. Without it a node is its own NVLink domain.
    #[serde(default)]
    pub rack_scale: Option<RackScale>,
    /// What the port names are: `physical` (default: the chassis labels or the names the OS
    /// gives them) or `neutral` (a scheme of the catalog's own, `nic0…`, because the vendor's
    /// slot numbering is not sourced): a technician cannot find a neutral name on the machine.
    #[serde(default)]
    #[schemars(example = &"neutral")]
    pub port_names: PortNames,
}

/// Whether a node model's port names can be found on the machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PortNames {
    #[default]
    Physical,
    Neutral,
}

/// A rack-scale system: compute trays joined by NVLink switch trays into one NVLink domain per
/// rack, with the rack's own management switches and power shelves.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RackScale {
    /// The system's name as the vendor prints it (`GB200 NVL72`).
    pub system: Text,
    /// Compute trays in one NVLink domain (one rack): 18 in an NVL72.
    pub trays: u32,
    /// NVLink switch trays in the rack: 9 in an NVL72.
    pub nvlink_switch_trays: u32,
    /// NVLink bandwidth of one GPU in GB/s (both directions): 1800 for fifth-generation NVLink.
    pub nvlink_gbytes_per_gpu: u32,
    /// NVLink switch chips in one switch tray (2 in a GB200 NVL72), where a source gives it; each
    /// GPU has one NVLink to every chip of its rack.
    #[serde(default)]
    pub nvlink_switch_chips_per_tray: Option<u32>,
    /// Power shelves in the rack, where a source gives the count.
    #[serde(default)]
    pub power_shelves: Option<u32>,
    /// The rack's power draw at most, kW, where a source gives it.
    #[serde(default)]
    pub rack_kw: Option<f64>,
    /// Management switches inside the rack (the NVL72's two SN2201), where a source gives them.
    #[serde(default)]
    pub in_rack_switches: Option<InRackSwitches>,
    /// GPUs reach their Grace CPU over NVLink-C2C (written as `<c2c>` in the NCCL topology).
    #[serde(default)]
    pub c2c: bool,
    /// The public pages the figures come from.
    pub source: Text,
}

/// The management switches a rack-scale system carries in its own rack.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InRackSwitches {
    /// Switches per rack (an NVL72 has two).
    pub count: u32,
    /// Their switch model (`sn2201`); the rack's trays are cabled to them as OOB switches.
    pub model: String,
}

/// One NIC port (or, for compute NICs, one NIC with a port per plane).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodePort {
    /// Port names; a compute NIC lists one per plane it can serve.
    pub ports: Vec<IfName>,
    /// Highest rate of the port.
    pub speed: Speed,
    /// Other rates the port can run at.
    #[serde(default)]
    pub also: Vec<Speed>,
    pub form: Form,
    /// Physical cage: ports that share a cage share one (twin-port) transceiver.
    #[serde(default)]
    pub cage: Option<IfName>,
    /// RDMA device name (`mlx5_0`).
    #[serde(default)]
    pub rdma: Option<IfName>,
    /// NUMA node the NIC hangs off.
    #[serde(default)]
    pub numa: Option<u32>,
    /// Top of the cage (OSFP: `flat` on NICs unless stated).
    #[serde(default)]
    pub top: Option<Top>,
    /// Electrical lanes of the cage, shared by the ports that name the same `cage`
    /// (default: the form's; a DGX compute OSFP cage carries 8 for its two ports).
    #[serde(default)]
    pub lanes: Option<u32>,
    /// Lane rates the NIC runs (default: the form's).
    #[serde(default)]
    pub lane_rates: Vec<LaneRate>,
}

impl NodePort {
    pub fn cage_spec(&self) -> Cage {
        Cage::new(self.form, self.top, self.lanes, &self.lane_rates, Fits::Nic)
    }

    pub fn supports(&self, speed: Speed) -> bool {
        self.speed == speed || self.also.contains(&speed)
    }
}

/// The PCIe/NUMA layout of a node model, as the NCCL topology file describes it (NVIDIA/nccl
/// `src/graph/xml.cc`, `topo.cc`): CPU sockets (NUMA nodes), the PCIe switches under each, and
/// the GPUs and compute NICs behind every switch. railyard serializes it to `hosts/<model>/nccl-topo.xml` so that NCCL pairs
/// GPU *i* with the NIC on rail *i* even where auto-detection cannot see the PCIe tree (VMs,
/// flattened ACS setups). Every string lands in an XML attribute NCCL parses with a 255-character
/// limit, so formats are checked ([`PcieLayout::problems`]) before anything is written.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcieLayout {
    /// CUDA compute capability × 10 (`gpu sm`): 90 for H100/H200, 100 for B200.
    pub gpu_sm: u32,
    /// PCI vendor and device id of the GPUs (`0x10de`, `0x2330`), when known.
    #[serde(default)]
    pub gpu_vendor: Option<String>,
    /// PCI device id of the GPUs (`0x2330` = H100 SXM), with `gpu_vendor`.
    #[serde(default)]
    pub gpu_device_id: Option<String>,
    /// PCI vendor and device id of the compute NICs (`0x15b3`, `0x1021` = ConnectX-7).
    #[serde(default)]
    pub nic_vendor: Option<String>,
    /// PCI device id of the compute NICs (`0x1021` = ConnectX-7), with `nic_vendor`.
    #[serde(default)]
    pub nic_device_id: Option<String>,
    /// PCI vendor and device id of the PCIe switches (`0x1000`, `0xc030` = Broadcom PEX).
    #[serde(default)]
    pub switch_vendor: Option<String>,
    /// PCI device id of the PCIe switches, with `switch_vendor`.
    #[serde(default)]
    pub switch_device_id: Option<String>,
    /// PCIe link speed as sysfs prints it and NCCL matches it (`32.0 GT/s PCIe`).
    pub link_speed: String,
    /// PCIe lanes of every GPU, NIC and switch uplink (16).
    pub link_width: u32,
    /// NVLink from every GPU to the NVSwitches; absent lets NCCL query NVML instead.
    #[serde(default)]
    pub nvlink: Option<NvlinkLayout>,
    /// NVLink-C2C between every GPU and its CPU (Grace), as NVML reports it; written as NCCL's
    /// `<c2c>` under each GPU of a `rack_scale.c2c` model on an `arm64` CPU. Absent lets NCCL
    /// query NVML instead.
    #[serde(default)]
    pub c2c: Option<C2cLinks>,
    /// CPU sockets (NUMA nodes) in NUMA order.
    pub cpus: Vec<PcieCpu>,
    /// Every figure NCCL matches against the running node — GPU bus ids, NIC bus ids and RDMA
    /// names, the GPU-NIC pairing, NUMA — is published or captured on a real node
    /// (`nvidia-smi topo -m`, `lspci -tv`, `ibdev2netdev -v`). Only a verified layout is installed as `NCCL_TOPO_FILE`: NCCL places GPUs
    /// by bus id, so invented ids would put real GPUs beside the wrong NICs.
    #[serde(default)]
    pub verified: bool,
    /// Where the layout comes from (documents, repositories, or the capture files it was
    /// imported from).
    #[serde(default)]
    pub source: String,
    /// Figures of this layout that are NOT sourced; the generated files repeat them in a header
    /// so nobody installs an unverified layout unknowingly. A verified layout lists none.
    #[serde(default)]
    pub unverified: Vec<String>,
}

/// NVLink of each GPU: `links[k]` links to NVSwitch `nvswitches[k]` (5, 5, 4, 4 on HGX H100).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NvlinkLayout {
    /// PCI bus ids of the NVSwitches (NCCL attaches every NVSwitch-class link to one NVSwitch node
    /// and never resolves the id, but it must be a well-formed bus id).
    pub nvswitches: Vec<String>,
    /// Links from each GPU to each NVSwitch, in `nvswitches` order.
    pub links: Vec<u32>,
}

/// One CPU socket (NUMA node) and what hangs off it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcieCpu {
    /// NUMA node id (`numaid`).
    pub numa: i32,
    /// Cpuset mask (`ffffffff,ffff0000,00000000`); absent lets NCCL read it from sysfs, which is
    /// right whatever the core count and SMT setting of the installed SKU.
    #[serde(default)]
    pub affinity: Option<String>,
    /// `x86_64`, `arm64` or `ppc64`.
    pub arch: String,
    /// `GenuineIntel`, `AuthenticAMD`; required by NCCL on x86_64.
    #[serde(default)]
    pub vendor: Option<String>,
    /// CPUID family and model (Intel family 6, model 143 = Sapphire Rapids, 207 = Emerald Rapids).
    #[serde(default)]
    pub familyid: Option<u32>,
    /// CPUID model, with `familyid`.
    #[serde(default)]
    pub modelid: Option<u32>,
    /// PCIe switches under this socket.
    pub switches: Vec<PcieSwitch>,
}

/// A PCIe switch with the GPUs and compute NICs behind it (the rail pairing).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcieSwitch {
    /// Bus id of the switch's upstream bridge; a made-up id such as `ffff:ff:01.0` is accepted
    /// by NCCL (Azure's ndv5-topo.xml does this) when the real one is unknown.
    pub busid: String,
    /// GPUs behind this switch.
    #[serde(default)]
    pub gpus: Vec<PcieGpu>,
    /// Compute NICs behind this switch.
    #[serde(default)]
    pub nics: Vec<PcieNic>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcieGpu {
    /// GPU index (CUDA device order, 0-based).
    pub index: u32,
    /// PCI bus id, lowercase `dddd:bb:dd.f`.
    pub busid: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcieNic {
    /// Index into the model's `compute` list (rail order, 0-based).
    pub nic: u32,
    /// PCI bus id of the NIC's first function, lowercase `dddd:bb:dd.f`.
    pub busid: String,
    /// RDMA device per port, in plane order, when the NIC has one port per plane (each port its
    /// own PCI function and mlx5 device); default: the compute NIC's `rdma`.
    #[serde(default)]
    pub rdma: Vec<String>,
    /// Linux interface name per port, in plane order (`enp24s0np0`); default: derived from the
    /// bus id by systemd's PCI-path naming (`en` + `p<bus>s<slot>` + `np<port>`).
    #[serde(default)]
    pub netdev: Vec<String>,
}

/// Whether `s` is a lowercase PCI bus id `dddd:bb:dd.f` (13 characters with NUL, NCCL BUSID_SIZE).
pub fn is_busid(s: &str) -> bool {
    let b = s.as_bytes();
    let hex = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c);
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && [0, 1, 2, 3, 5, 6, 8, 9].iter().all(|&i| hex(&b[i]))
        && (b'0'..=b'7').contains(&b[11])
}

/// Whether `s` is a token safe in an XML attribute, an env file and a shell word: letters,
/// digits and `_ . : -`, 1–64 characters (RDMA and interface names are at most 64).
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
}

fn is_hex_id(s: &str) -> bool {
    s.strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.len() <= 8 && h.bytes().all(|c| c.is_ascii_hexdigit()))
}

/// PCIe link speeds NCCL's `kvDictPciGen` knows (NVIDIA/nccl `src/graph/topo.cc`); anything else
/// reads as 8 GT/s.
pub const PCIE_LINK_SPEEDS: [&str; 11] = [
    "2.5 GT/s",
    "5 GT/s",
    "8 GT/s",
    "16 GT/s",
    "32 GT/s",
    "2.5 GT/s PCIe",
    "5.0 GT/s PCIe",
    "8.0 GT/s PCIe",
    "16.0 GT/s PCIe",
    "32.0 GT/s PCIe",
    "64.0 GT/s PCIe",
];

/// A GPU's NVLink-C2C links to its CPU, the two figures NCCL reads from NVML
/// (NVIDIA/nccl src/graph/xml.cc `ncclTopoGetXmlFromGpu`) and from a topology file's `<c2c>`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct C2cLinks {
    /// Bandwidth of one link in MB/s (`NVML_FI_DEV_C2C_LINK_GET_MAX_BW`).
    pub bw: u32,
    /// Links up (`NVML_FI_DEV_C2C_LINK_COUNT` with status 1).
    pub count: u32,
}

impl PcieLayout {
    /// Everything wrong with this layout for `model`: every GPU and every compute NIC exactly
    /// once, well-formed bus ids and ids, known link speed, per-port names for every plane.
    /// An empty list means the layout can be written as an NCCL topology file.
    pub fn problems(&self, model: &NodeModel) -> Vec<String> {
        let mut out = Vec::new();
        self.provenance_problems(&mut out);
        self.link_problems(&mut out);
        self.id_problems(&mut out);
        let mut census = Census::new(model);
        for cpu in &self.cpus {
            cpu_problems(cpu, &mut out);
            for sw in &cpu.switches {
                census.switch(sw, model, &mut out);
            }
        }
        census.problems(&mut out);
        out
    }

    /// `verified: true` is a claim: nothing left unverified, and a source.
    fn provenance_problems(&self, out: &mut Vec<String>) {
        if self.verified && !self.unverified.is_empty() {
            out.push(
                "`verified: true` but `unverified` lists figures: verify them or unset `verified`"
                    .into(),
            );
        }
        if self.verified && self.source.trim().is_empty() {
            out.push("`verified: true` needs a `source` saying where the figures come from".into());
        }
    }

    /// PCIe link speed and width as NCCL reads them.
    fn link_problems(&self, out: &mut Vec<String>) {
        if !PCIE_LINK_SPEEDS.contains(&self.link_speed.as_str()) {
            out.push(format!(
                "`link_speed` `{}` is not one NCCL knows ({})",
                self.link_speed,
                PCIE_LINK_SPEEDS.join(", ")
            ));
        }
        if self.link_width == 0 || self.link_width > 32 {
            out.push(format!("`link_width` {} is not 1-32", self.link_width));
        }
    }

    /// Vendor and device ids, and the NVSwitches' bus ids.
    fn id_problems(&self, out: &mut Vec<String>) {
        for (what, v) in [
            ("gpu_vendor", &self.gpu_vendor),
            ("gpu_device_id", &self.gpu_device_id),
            ("nic_vendor", &self.nic_vendor),
            ("nic_device_id", &self.nic_device_id),
            ("switch_vendor", &self.switch_vendor),
            ("switch_device_id", &self.switch_device_id),
        ] {
            if let Some(v) = v
                && !is_hex_id(v)
            {
                out.push(format!("`{what}` `{v}` is not a hex id like `0x10de`"));
            }
        }
        if let Some(nv) = &self.nvlink {
            if nv.nvswitches.len() != nv.links.len() {
                out.push("`nvlink.links` needs one count per NVSwitch".into());
            }
            for b in nv.nvswitches.iter().filter(|b| !is_busid(b)) {
                out.push(format!("NVSwitch bus id `{b}` is not `dddd:bb:dd.f`"));
            }
        }
    }
}

/// A CPU's own values: a known arch, and what NCCL needs to tell x86 CPUs apart.
fn cpu_problems(cpu: &PcieCpu, out: &mut Vec<String>) {
    if !matches!(cpu.arch.as_str(), "x86_64" | "arm64" | "ppc64") {
        out.push(format!(
            "CPU arch `{}` is not x86_64, arm64 or ppc64",
            cpu.arch
        ));
    }
    if cpu.arch == "x86_64" && cpu.vendor.is_none() {
        out.push(format!("CPU {} on x86_64 needs a `vendor`", cpu.numa));
    }
    if cpu.vendor.as_deref() == Some("GenuineIntel")
        && (cpu.familyid.is_none() || cpu.modelid.is_none())
    {
        out.push(format!(
            "Intel CPU {} needs `familyid` and `modelid`",
            cpu.numa
        ));
    }
    for v in [&cpu.vendor, &cpu.affinity].into_iter().flatten() {
        if !is_token(&v.replace(',', "")) {
            out.push(format!("CPU value `{v}` has characters NCCL cannot take"));
        }
    }
}

/// How often the layout names each GPU, compute NIC and bus id.
struct Census<'a> {
    gpus: Vec<u32>,
    nics: Vec<u32>,
    busids: BTreeMap<&'a str, u32>,
}

impl<'a> Census<'a> {
    fn new(model: &NodeModel) -> Self {
        Census {
            gpus: vec![0u32; model.gpus as usize],
            nics: vec![0u32; model.compute.len()],
            busids: BTreeMap::new(),
        }
    }

    /// A PCIe switch with its GPUs and NICs.
    fn switch(&mut self, sw: &'a PcieSwitch, model: &NodeModel, out: &mut Vec<String>) {
        *self.busids.entry(&sw.busid).or_default() += 1;
        for g in &sw.gpus {
            *self.busids.entry(&g.busid).or_default() += 1;
            match self.gpus.get_mut(g.index as usize) {
                Some(c) => *c += 1,
                None => out.push(format!(
                    "GPU index {} but the model has {} GPUs",
                    g.index, model.gpus
                )),
            }
        }
        for n in &sw.nics {
            self.nic(n, model, out);
        }
    }

    /// A compute NIC: one of the model's, with a name per port when it names them.
    fn nic(&mut self, n: &'a PcieNic, model: &NodeModel, out: &mut Vec<String>) {
        *self.busids.entry(&n.busid).or_default() += 1;
        let Some(nic) = model.compute.get(n.nic as usize) else {
            out.push(format!(
                "compute NIC {} but the model has {}",
                n.nic,
                model.compute.len()
            ));
            return;
        };
        self.nics[n.nic as usize] += 1;
        let ports = nic.ports.len();
        if !n.rdma.is_empty() && n.rdma.len() != ports {
            out.push(format!(
                "compute NIC {} lists {} `rdma` names for {ports} port(s)",
                n.nic,
                n.rdma.len()
            ));
        }
        if !n.netdev.is_empty() && n.netdev.len() != ports {
            out.push(format!(
                "compute NIC {} lists {} `netdev` names for {ports} port(s)",
                n.nic,
                n.netdev.len()
            ));
        }
        for name in n.rdma.iter().chain(&n.netdev) {
            if !is_token(name) {
                out.push(format!(
                    "name `{name}` may hold only letters, digits, `_.:-`"
                ));
            }
        }
    }

    /// Bus ids well-formed and unique; every GPU and compute NIC exactly once.
    fn problems(&self, out: &mut Vec<String>) {
        for (b, n) in &self.busids {
            if !is_busid(b) {
                out.push(format!("bus id `{b}` is not lowercase `dddd:bb:dd.f`"));
            } else if *n > 1 {
                out.push(format!("bus id `{b}` is used {n} times"));
            }
        }
        for (i, c) in self.gpus.iter().enumerate().filter(|(_, c)| **c != 1) {
            out.push(format!("GPU {i} appears {c} times (must be exactly once)"));
        }
        for (i, c) in self.nics.iter().enumerate().filter(|(_, c)| **c != 1) {
            out.push(format!(
                "compute NIC {i} appears {c} times (must be exactly once)"
            ));
        }
    }
}
