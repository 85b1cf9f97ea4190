//! `nccl-topo.xml` (`NCCL_TOPO_FILE`): the node model's PCIe tree with each compute NIC's `net`
//! carrying the rail (and plane) of the leaf it is cabled to, so that NCCL pairs GPU *i* with the
//! NIC on rail *i* (NVIDIA/nccl `src/graph/topo.cc`).
//!
//! Serialized from typed structs by a writer of our own that enforces NCCL's hand-written parser
//! (NVIDIA/nccl `src/graph/xml.cc`): no `<?xml?>` prolog (the parser rejects it), one element per
//! line, attributes on that line separated by single spaces in a fixed order, at most 16
//! attributes per element, names and values at most 255 characters, values escaped.
//!
//! Rails and planes are written 0-based, the same ids `nccl.env` passes in `NCCL_IB_HCA`
//! (`name:port:rail[:plane]`). NVIDIA/nccl v2.30.7-1 (73cf112) is the first tag that reads them:
//! `ncclTopoAddNet` takes `rail`/`plane` from this file, and where the file has none,
//! `ncclTopoPopulateNics` fills in what the IB plugin parsed from `NCCL_IB_HCA` (a value in the
//! file is kept; NCCL reports no mismatch). With `NCCL_CROSS_NIC=0` a channel then stays on one
//! rail id (`ncclTopoSearchCheckNet`, src/graph/search.cc); earlier releases ignore both and pair
//! NICs by GUID and port. `hosts.nccl_rails: false` leaves the ids out.

use crate::catalog::{NodeModel, PcieLayout};
use crate::intent::host::{HostIntent, HostPort};
use crate::model::Transport;

/// NCCL's `MAX_ATTR_COUNT`: further attributes are ignored, silently.
pub const MAX_ATTRS: usize = 16;
/// NCCL's `MAX_STR_LEN`: longer names or values are cut.
pub const MAX_STR: usize = 255;

/// PCI classes NCCL keys on (`src/graph/topo.cc`).
const CLASS_BRIDGE: &str = "0x060400";
const CLASS_GPU: &str = "0x030200";
const CLASS_NIC_IB: &str = "0x020700";
const CLASS_NIC_ETH: &str = "0x020000";
const CLASS_NVSWITCH: &str = "0x068000";
/// NCCL's name of the Arm CPU architecture (`kvDictCpuArch`, src/graph/topo.cc).
const ARM64: &str = "arm64";

/// One XML element, attributes in output order.
#[derive(Debug, Default)]
struct Element {
    name: &'static str,
    attrs: Vec<(&'static str, String)>,
    children: Vec<Element>,
}

impl Element {
    fn new(name: &'static str) -> Self {
        Self {
            name,
            ..Self::default()
        }
    }

    fn attr(mut self, key: &'static str, value: impl ToString) -> Self {
        self.attrs.push((key, value.to_string()));
        self
    }

    fn opt(self, key: &'static str, value: Option<impl ToString>) -> Self {
        match value {
            Some(v) => self.attr(key, v),
            None => self,
        }
    }

    fn child(mut self, c: Element) -> Self {
        self.children.push(c);
        self
    }
}

/// Write `e` and its subtree, one element per line, two spaces of indent per level.
fn write(e: &Element, depth: usize, out: &mut String) -> Result<(), String> {
    if e.attrs.len() > MAX_ATTRS {
        return Err(format!(
            "<{}> has {} attributes; NCCL reads {MAX_ATTRS}",
            e.name,
            e.attrs.len()
        ));
    }
    let indent = "  ".repeat(depth);
    out.push_str(&indent);
    out.push('<');
    out.push_str(e.name);
    for (k, v) in &e.attrs {
        let v = crate::output::markup::escaped(v);
        if v.len() > MAX_STR || k.len() > MAX_STR || v.contains('\n') {
            return Err(format!("<{} {k}> value is too long for NCCL", e.name));
        }
        out.push(' ');
        out.push_str(k);
        out.push_str("=\"");
        out.push_str(&v);
        out.push('"');
    }
    if e.children.is_empty() {
        out.push_str("/>\n");
        return Ok(());
    }
    out.push_str(">\n");
    for c in &e.children {
        write(c, depth + 1, out)?;
    }
    out.push_str(&indent);
    out.push_str("</");
    out.push_str(e.name);
    out.push_str(">\n");
    Ok(())
}

/// `<system version="1">`: the root (`NCCL_TOPO_XML_VERSION` 1).
struct System {
    cpus: Vec<Cpu>,
}

/// `<cpu>`: a socket. `host_hash` is left out: NCCL overwrites it on load.
struct Cpu {
    numaid: i32,
    affinity: Option<String>,
    arch: String,
    vendor: Option<String>,
    familyid: Option<u32>,
    modelid: Option<u32>,
    pcis: Vec<Pci>,
}

/// `<pci>`: a bridge (PCIe switch), a GPU or a NIC function.
struct Pci {
    busid: String,
    class: &'static str,
    link_speed: String,
    link_width: u32,
    vendor: Option<String>,
    device: Option<String>,
    pcis: Vec<Pci>,
    gpu: Option<Gpu>,
    nic: Option<Nic>,
}

/// `<gpu>`: `rank` is a placeholder NCCL overwrites with the real rank of the process that
/// drives the GPU (`ncclTopoGetSystem`); without it NCCL skips the GPU.
struct Gpu {
    dev: u32,
    sm: u32,
    rank: u32,
    gdr: u8,
    nvlinks: Vec<Nvlink>,
    /// NVLink-C2C to the CPU: (MB/s per link, links).
    c2c: Option<(u32, u32)>,
}

struct Nvlink {
    target: String,
    count: u32,
    tclass: &'static str,
}

struct Nic {
    nets: Vec<Net>,
}

/// `<net>`: one RDMA port. `speed` in Mb/s; `rail`/`plane` 0-based (see the module doc).
struct Net {
    name: String,
    dev: u32,
    speed: u64,
    port: u32,
    gdr: u8,
    rail: Option<u32>,
    plane: Option<u32>,
}

impl System {
    fn element(&self) -> Element {
        self.cpus
            .iter()
            .fold(Element::new("system").attr("version", 1), |e, c| {
                e.child(c.element())
            })
    }
}

impl Cpu {
    fn element(&self) -> Element {
        let e = Element::new("cpu")
            .attr("numaid", self.numaid)
            .opt("affinity", self.affinity.as_ref())
            .attr("arch", &self.arch)
            .opt("vendor", self.vendor.as_ref())
            .opt("familyid", self.familyid)
            .opt("modelid", self.modelid);
        self.pcis.iter().fold(e, |e, p| e.child(p.element()))
    }
}

impl Pci {
    fn element(&self) -> Element {
        let mut e = Element::new("pci")
            .attr("busid", &self.busid)
            .attr("class", self.class)
            .attr("link_speed", &self.link_speed)
            .attr("link_width", self.link_width)
            .opt("vendor", self.vendor.as_ref())
            .opt("device", self.device.as_ref());
        for p in &self.pcis {
            e = e.child(p.element());
        }
        if let Some(g) = &self.gpu {
            e = e.child(g.element());
        }
        if let Some(n) = &self.nic {
            e = e.child(n.element());
        }
        e
    }
}

impl Gpu {
    fn element(&self) -> Element {
        let e = Element::new("gpu")
            .attr("dev", self.dev)
            .attr("sm", self.sm)
            .attr("rank", self.rank)
            .attr("gdr", self.gdr);
        let e = self.nvlinks.iter().fold(e, |e, l| {
            e.child(
                Element::new("nvlink")
                    .attr("target", &l.target)
                    .attr("count", l.count)
                    .attr("tclass", l.tclass),
            )
        });
        // NVIDIA/nccl 5067397c src/graph/topo.cc `ncclTopoAddC2c`: GPU<->CPU bandwidth
        // bw x count / 1000 GB/s, link type C2C.
        match self.c2c {
            Some((bw, count)) => e.child(Element::new("c2c").attr("bw", bw).attr("count", count)),
            None => e,
        }
    }
}

impl Nic {
    fn element(&self) -> Element {
        self.nets.iter().fold(Element::new("nic"), |e, n| {
            e.child(
                Element::new("net")
                    .attr("name", &n.name)
                    .attr("dev", n.dev)
                    .attr("speed", n.speed)
                    .attr("port", n.port)
                    .attr("gdr", n.gdr)
                    .opt("rail", n.rail)
                    .opt("plane", n.plane),
            )
        })
    }
}

/// NCCL's net device index of each RDMA name: the IB plugin numbers the devices it keeps in
/// ibverbs order (mlx5 probe order, i.e. by name number) and rewrites a differing `dev` with a
/// warning, so the file uses the same numbering.
fn dev_numbers(ports: &[HostPort]) -> Vec<(String, u32)> {
    let mut names: Vec<&str> = ports.iter().filter_map(|p| p.rdma.as_deref()).collect();
    names.sort_by(|a, b| crate::output::natural::cmp(a, b));
    names.dedup();
    names
        .into_iter()
        .zip(0u32..)
        .map(|(n, i)| (n.to_string(), i))
        .collect()
}

/// The topology of one node, built from its model's layout and its own cabled ports.
/// Rails are written only on rail-optimized fabrics: there a rail is one leaf (set), and NCCL
/// must never pair NICs of different rails; on top-of-rack fabrics every NIC reaches the same
/// leaf and NCCL's own grouping is right.
fn system(
    layout: &PcieLayout,
    c2c: bool,
    transport: Transport,
    rails: bool,
    planes: bool,
    node: &HostIntent,
) -> System {
    let devs = dev_numbers(&node.ports);
    let nic_class = match transport {
        Transport::Infiniband => CLASS_NIC_IB,
        Transport::Ethernet => CLASS_NIC_ETH,
    };
    let nvlinks = |_: u32| -> Vec<Nvlink> {
        layout
            .nvlink
            .iter()
            .flat_map(|nv| nv.nvswitches.iter().zip(&nv.links))
            .map(|(target, count)| Nvlink {
                target: target.clone(),
                count: *count,
                tclass: CLASS_NVSWITCH,
            })
            .collect()
    };
    let leaf_pci =
        |busid: &str, class: &'static str, vendor: &Option<String>, device: &Option<String>| Pci {
            busid: busid.to_string(),
            class,
            link_speed: layout.link_speed.clone(),
            link_width: layout.link_width,
            vendor: vendor.clone(),
            device: device.clone(),
            pcis: Vec::new(),
            gpu: None,
            nic: None,
        };
    let cpus = layout
        .cpus
        .iter()
        .map(|c| Cpu {
            numaid: c.numa,
            affinity: c.affinity.clone(),
            arch: c.arch.clone(),
            vendor: c.vendor.clone(),
            familyid: c.familyid,
            modelid: c.modelid,
            pcis: c
                .switches
                .iter()
                .map(|sw| {
                    let mut bridge = leaf_pci(
                        &sw.busid,
                        CLASS_BRIDGE,
                        &layout.switch_vendor,
                        &layout.switch_device_id,
                    );
                    for g in &sw.gpus {
                        let mut p = leaf_pci(
                            &g.busid,
                            CLASS_GPU,
                            &layout.gpu_vendor,
                            &layout.gpu_device_id,
                        );
                        p.gpu = Some(Gpu {
                            dev: g.index,
                            sm: layout.gpu_sm,
                            rank: g.index,
                            gdr: 1,
                            nvlinks: nvlinks(g.index),
                            c2c: layout
                                .c2c
                                .as_ref()
                                .filter(|_| c2c && c.arch == ARM64)
                                .map(|l| (l.bw, l.count)),
                        });
                        bridge.pcis.push(p);
                    }
                    for n in &sw.nics {
                        let nets: Vec<Net> = node
                            .ports
                            .iter()
                            .filter(|p| p.nic == n.nic)
                            .filter_map(|p| {
                                let name = p.rdma.clone()?;
                                let dev = devs.iter().find(|(d, _)| *d == name)?.1;
                                Some(Net {
                                    dev,
                                    speed: u64::from(p.speed.as_gbps()) * 1000,
                                    port: 1 + p.port_index,
                                    gdr: 1,
                                    rail: rails.then(|| p.rail.saturating_sub(1)),
                                    plane: p.plane.filter(|_| planes).map(|x| x.saturating_sub(1)),
                                    name,
                                })
                            })
                            .collect();
                        let mut p = leaf_pci(
                            &n.busid,
                            nic_class,
                            &layout.nic_vendor,
                            &layout.nic_device_id,
                        );
                        if !nets.is_empty() {
                            p.nic = Some(Nic { nets });
                        }
                        bridge.pcis.push(p);
                    }
                    bridge
                })
                .collect(),
        })
        .collect();
    System { cpus }
}

/// A comment NCCL skips; `--` may not appear inside one.
fn comment(text: &str) -> String {
    format!("<!-- {} -->\n", text.replace("--", "-"))
}

/// The topology file of one node, or why it cannot be written.
pub fn render(
    model_name: &str,
    model: &NodeModel,
    transport: Transport,
    rails: bool,
    planes: bool,
    node: &HostIntent,
) -> Result<String, String> {
    let Some(layout) = &model.pcie else {
        return Err(format!("node model `{model_name}` has no `pcie` layout"));
    };
    let mut out = comment(&format!(
        "railyard: NCCL topology of node model {model_name} (NCCL_TOPO_FILE; rails and planes 0-based)"
    ));
    for u in &layout.unverified {
        out.push_str(&comment(&format!("UNVERIFIED: {u}")));
    }
    write(
        &system(
            layout,
            model.rack_scale.as_ref().is_some_and(|r| r.c2c),
            transport,
            rails,
            planes,
            node,
        )
        .element(),
        0,
        &mut out,
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_escapes_and_refuses_too_many_attributes() {
        let mut out = String::new();
        let e = Element::new("x").attr("a", "<\"&'>");
        assert!(write(&e, 0, &mut out).is_ok());
        assert_eq!(out, "<x a=\"&lt;&quot;&amp;&#39;&gt;\"/>\n");
        let many = (0..17).fold(Element::new("y"), |e, _| e.attr("k", 1));
        assert!(write(&many, 0, &mut String::new()).is_err());
        let long = Element::new("z").attr("v", "a".repeat(256));
        assert!(write(&long, 0, &mut String::new()).is_err());
    }
}
