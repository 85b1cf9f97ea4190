//! InfiniBand tenancy on the compute fabric: one OpenSM partition per tenant (OpenSM doc/partition-config.txt (linux-rdma/opensm)), its
//! members the tenant nodes' compute ports by port GUID, and the PKey *index* every member port
//! ends up with — the number `NCCL_IB_PKEY` takes.
//!
//! How a port's P_Key table is filled (OpenSM `opensm/osm_pkey_mgr.c`, linux-rdma/opensm):
//! the default partition's key (0x7fff, with the membership bit 0xffff or 0x7fff) always sits at
//! index 0; every other key a port is a member of goes to the entry after the last one OpenSM has
//! already given out on that port (it remembers them for as long as it runs, so a key keeps its
//! index), starting at index 1. railyard puts each node in at most one tenant and writes no other
//! partition, so on a subnet manager that loads this file fresh every member port holds
//! `[0] = 0x7fff` (limited default) and `[1] = 0x8000 | tenant PKey`: the index is 1.
//! tests/deliverables/partitions_opensm.rs proves it against real OpenSM on a simulated fabric.
//!
//! What railyard cannot know: keys a running OpenSM handed out before (a node moved between
//! tenants keeps the old key's index until OpenSM restarts), partitions added outside this file
//! (UFM, a storage or SHARP partition), and virtual-function tables of SR-IOV guests. The
//! per-tenant env files say how to check the index on a node (sysfs `pkeys/<index>`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::host::HostIntents;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Network, PortGuids};
use crate::spec::ClusterSpec;
use crate::tenancy::TenantPlan;

/// PKey table index of a tenant's key on its members' ports (see the module doc).
pub const TENANT_PKEY_INDEX: u16 = 1;

/// The partitions of the compute fabric's subnet manager.
#[derive(Clone, Debug, Serialize)]
pub struct Partitions {
    pub network: Network,
    pub partitions: Vec<Partition>,
    /// Member ports without an imported GUID; the file is a template until this is 0.
    pub missing_guids: usize,
    /// GPU nodes in no tenant: limited members of the default partition only, so they reach no
    /// other node over InfiniBand until they join a tenant.
    pub unassigned: Vec<String>,
}

impl Partitions {
    /// Every member is named by its GUID: OpenSM can load the file.
    pub fn complete(&self) -> bool {
        self.missing_guids == 0
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Partition {
    /// The tenant's name (a partition name in partitions.conf).
    pub name: String,
    pub tenant_id: u32,
    /// The 15-bit key, `0x0101`.
    pub pkey: String,
    /// The key with the full-membership bit, as `pkeys/<index>` in sysfs shows it (`0x8101`).
    pub pkey_full: String,
    pub pkey_index: u16,
    pub nodes: Vec<String>,
    pub members: Vec<Member>,
}

/// One member port of a partition.
#[derive(Clone, Debug, Serialize)]
pub struct Member {
    pub node: String,
    /// Catalog port name (`OSFP4P2`).
    pub port: String,
    pub rdma: Option<String>,
    /// `0x…`, when imported.
    pub guid: Option<String>,
}

/// The codes of what [`build`] reports: a second pass over new port GUIDs replaces exactly these.
pub const FINDINGS: [&str; 2] = [
    codes::PARTITIONS_TEMPLATE.id,
    codes::NODES_WITHOUT_PARTITION.id,
];

/// The partitions of the compute fabric, when it is InfiniBand and has tenants with a PKey.
pub fn build(
    spec: &ClusterSpec,
    plan: &TenantPlan,
    hosts: &HostIntents,
    guids: &PortGuids,
    diags: &mut Diagnostics,
) -> Option<Partitions> {
    if hosts.transport != Some(crate::model::Transport::Infiniband)
        || !plan.tenants.iter().any(|t| t.pkey.is_some())
    {
        return None;
    }
    let rdma: BTreeMap<(&str, &str), Option<&str>> = hosts
        .nodes
        .values()
        .flat_map(|n| {
            n.ports
                .iter()
                .map(move |p| ((n.name.as_str(), p.port.as_str()), p.rdma.as_deref()))
        })
        .collect();
    let mut missing = 0;
    let mut partitions = Vec::new();
    for t in &plan.tenants {
        let Some(pkey) = &t.pkey else { continue };
        let Some(value) = u16::from_str_radix(pkey.trim_start_matches("0x"), 16).ok() else {
            continue;
        };
        let members: Vec<Member> = t
            .nic_ports
            .iter()
            .filter_map(|np| np.split_once(':'))
            .map(|(node, port)| {
                let guid = guids.get(node, port).map(|g| g.to_string());
                missing += usize::from(guid.is_none());
                Member {
                    node: node.to_string(),
                    port: port.to_string(),
                    rdma: rdma
                        .get(&(node, port))
                        .copied()
                        .flatten()
                        .map(str::to_string),
                    guid,
                }
            })
            .collect();
        partitions.push(Partition {
            name: t.name.clone(),
            tenant_id: t.id,
            pkey: pkey.clone(),
            pkey_full: format!("{:#06x}", value | 0x8000),
            pkey_index: TENANT_PKEY_INDEX,
            nodes: t.nodes.clone(),
            members,
        });
    }
    let owned = plan.tenant_of_node();
    let unassigned = hosts
        .nodes
        .keys()
        .filter(|n| !owned.contains_key(n.as_str()))
        .cloned()
        .collect();
    let p = Partitions {
        network: Network::Compute,
        partitions,
        missing_guids: missing,
        unassigned,
    };
    report(spec, &p, diags);
    Some(p)
}

/// The build says when the partitions file is only a template and which nodes are left without
/// InfiniBand peers.
fn report(spec: &ClusterSpec, p: &Partitions, diags: &mut Diagnostics) {
    let span = spec.tenants.first().and_then(|t| t.name.span);
    if !p.complete() {
        diags.push(
            // Advisory: before the fabric is installed there are no GUIDs to give.
            Diagnostic::info(
                codes::PARTITIONS_TEMPLATE,
                format!(
                    "no port GUIDs for {} tenant port(s): tenants/partitions.conf.template is written \
                     instead of partitions.conf, with placeholders OpenSM cannot load",
                    p.missing_guids
                ),
            )
            .at(span, "InfiniBand tenants")
            .help(
                "capture `ibnetdiscover` on the fabric, run `railyard ib import SPEC --ibnetdiscover \
                 FILE -o port-guids.csv`, then build with `--port-guids port-guids.csv`",
            ),
        );
    }
    if !p.unassigned.is_empty() {
        let first = p.unassigned.first().map_or("", String::as_str);
        let last = p.unassigned.last().map_or("", String::as_str);
        diags.push(
            Diagnostic::warning(
                codes::NODES_WITHOUT_PARTITION,
                format!(
                    "{} GPU node(s) in no tenant ({}): with the default partition limited they reach \
                     no other node over InfiniBand",
                    p.unassigned.len(),
                    if first == last { first.to_string() } else { format!("{first} … {last}") }
                ),
            )
            .at(span, "InfiniBand tenants")
            .help("assign them to a tenant (or a tenant for the free pool) before running jobs on them"),
        );
    }
}
