//! Out-of-band sizing: access switches per SU for the SU's BMCs and management ports, the port
//! each OOB switch uplinks from, and the gateway's ports that take those uplinks.

use serde::Serialize;

use super::{AccessPlan, CageRun, ComputePlan, DomainPlan, lanes, nonzero, switch_model};
use crate::catalog::{Catalog, SwitchModel};
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Speed, Transport};
use crate::spec::{ClusterSpec, Sp};

#[derive(Clone, Debug, Serialize)]
pub struct OobPlan {
    pub model: String,
    pub access: CageRun,
    pub per_su: u32,
    /// Ports of each SU's block: node BMCs, the SU's compute leaves, then the storage and in-band
    /// leaves whose node group starts in the SU (a fixed reservation per SU, used or not, so
    /// ports follow identity).
    pub su_block: u32,
    /// Where the storage and in-band leaves start in the SU block.
    pub storage_leaves_at: u32,
    pub inband_leaves_at: u32,
    pub core_switches: u32,
    /// The port each OOB switch uplinks to the gateway from (its first lane).
    pub uplink: CageRun,
    pub gateway_model: String,
    /// The gateway's ports for the OOB switches' uplinks: SU switches from the first, the
    /// central OOB switches from the last, so neither moves when the other grows.
    pub gateway_down: CageRun,
    /// Rack-scale systems: the rack's own management switches are the SU's OOB switches,
    /// `in_rack` per rack, and a rack's trays take the first lanes of its own switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_rack: Option<InRack>,
}

/// The in-rack OOB switches of a rack-scale system.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct InRack {
    /// Trays per rack (NVLink domain) and OOB switches per rack.
    pub trays: u32,
    pub per_rack: u32,
    /// The rack's other managed parts: NVLink switch trays, then power shelves.
    pub nvlink_switch_trays: u32,
    pub power_shelves: u32,
}

impl InRack {
    /// Management ports a rack brings to its own switches: trays, then its other parts.
    pub fn ports(&self) -> u32 {
        self.trays + self.nvlink_switch_trays + self.power_shelves
    }

    /// The rack's own switch (0-based within the SU) and lane of the rack's `i`-th management port
    /// (trays first, then NVLink switch trays, then power shelves): ports alternate over the
    /// rack's switches.
    pub fn place(&self, rack_in_su: u32, i: u32) -> (u32, u32) {
        (
            rack_in_su * self.per_rack + i % self.per_rack,
            i / self.per_rack,
        )
    }
}

impl OobPlan {
    /// Lanes of each switch the rack's own ports take (the rest serve the SU block's other ports).
    fn bmc_lanes(&self) -> u32 {
        self.in_rack.map_or(0, |r| r.ports().div_ceil(r.per_rack))
    }

    /// The SU switch (0-based) and lane of slot `slot` of an SU block. Without in-rack switches
    /// the block fills the switches in order. With them, tray `t` of rack `r` goes to the rack's
    /// switch `t mod per_rack` (trays alternate over the rack's switches), and every other port
    /// of the block fills the lanes the trays leave, switch by switch.
    pub fn place(&self, slot: u32, nps: u32) -> (u32, u32) {
        let cap = self.access.capacity();
        let Some(r) = self.in_rack else {
            return (slot / cap, slot % cap);
        };
        let t = self.bmc_lanes();
        if slot < nps {
            return r.place(slot / r.trays, slot % r.trays);
        }
        let room = (cap - t).max(1);
        let q = slot - nps;
        (q / room, t + q % room)
    }

    /// Ports of SU 1's switches left after its block (central devices take them first).
    pub fn spare_in_su1(&self, nps: u32) -> u32 {
        let cap = self.access.capacity();
        if self.in_rack.is_none() {
            return self.per_su * cap - self.su_block;
        }
        (self.per_su * (cap - self.bmc_lanes())).saturating_sub(self.su_block - nps)
    }
}

/// The run of `m` for a port at `speed`, on the port group `lanes` picks; when that group is
/// also the access group, its last cage (taken away from the access ports).
fn uplink_run(
    m: &SwitchModel,
    name: &Sp<String>,
    speed: Speed,
    access: &mut CageRun,
    diags: &mut Diagnostics,
) -> Option<CageRun> {
    let (gi, lanes_per) = lanes(m, name, speed, "OOB uplinks", diags)?;
    let g = &m.port_groups[gi];
    if g.first == access.first && access.cages > 1 {
        access.cages -= 1;
        return Some(CageRun {
            first: access.first + access.cages,
            cages: 1,
            lanes: lanes_per,
            speed,
        });
    }
    Some(CageRun {
        first: g.first,
        cages: g.count,
        lanes: lanes_per,
        speed,
    })
}

/// Ports an SU's block reserves for an access fabric's leaves: the leaf groups that can start in
/// one SU, times the group width.
fn leaf_reserve(a: Option<&AccessPlan>, nps: u32) -> u32 {
    a.map_or(0, |a| nps.div_ceil(a.nodes_per_group.max(1)) * a.width)
}

pub(super) fn oob_plan(
    spec: &ClusterSpec,
    cat: &Catalog,
    c: &ComputePlan,
    fabrics: [Option<&AccessPlan>; 2],
    nps: u32,
    domains: Option<&DomainPlan>,
    diags: &mut Diagnostics,
) -> Option<OobPlan> {
    let o = &spec.oob;
    let m = switch_model(cat, &o.model, Some(Transport::Ethernet), diags)?;
    let g = lanes(m, &o.model, Speed::gbps(1), "management ports", diags)?;
    let grp = &m.port_groups[g.0];
    let mut access = CageRun {
        first: grp.first,
        cages: grp.count,
        lanes: 1,
        speed: Speed::gbps(1),
    };
    let speed = o.uplink_speed.value;
    let uplink = uplink_run(m, &o.model, speed, &mut access, diags);
    let gw_name = o.gateway.model.as_ref().unwrap_or(&o.model);
    let gw = switch_model(cat, gw_name, Some(Transport::Ethernet), diags)?;
    let gateway_down = match lanes(gw, gw_name, speed, "OOB switch downlinks", diags) {
        Some((gi, l)) => {
            let gg = &gw.port_groups[gi];
            Some(CageRun {
                first: gg.first,
                cages: gg.count,
                lanes: l,
                speed,
            })
        }
        None => None,
    };
    let (uplink, gateway_down) = (uplink?, gateway_down?);
    let storage_leaves_at = nps + c.planes * c.leaves_per_su;
    let inband_leaves_at = storage_leaves_at + leaf_reserve(fabrics[0], nps);
    let su_block = inband_leaves_at + leaf_reserve(fabrics[1], nps);
    let in_rack = domains.and_then(|d| {
        d.in_rack_switches.as_ref().map(|(k, _)| InRack {
            trays: d.trays,
            per_rack: (*k).max(1),
            nvlink_switch_trays: d.nvlink_switch_trays,
            power_shelves: d.power_shelves.unwrap_or(0),
        })
    });
    let need = match in_rack {
        // The racks' own switches; the SU's other management ports must fit in what the racks'
        // own ports leave on them.
        Some(r) => {
            let per_su = nps / r.trays * r.per_rack;
            let room = per_su
                * access
                    .capacity()
                    .saturating_sub(r.ports().div_ceil(r.per_rack));
            if su_block - nps > room {
                diags.push(
                    Diagnostic::error(codes::OOB_SHORTAGE, format!(
                        "the {per_su} in-rack OOB switches of an SU have {room} ports beside the racks' own, but the SU has {} other management ports", su_block - nps))
                        .at(o.model.span, "too small for the racks' switches")
                        .help("use an OOB model with more 1G ports"),
                );
                return None;
            }
            per_su
        }
        None => su_block.div_ceil(access.capacity()),
    };
    let per_su = match &o.switches_per_su {
        Some(n) => {
            let n = nonzero(n, "`oob.switches_per_su`", diags)?;
            if n < need {
                diags.push(
                    Diagnostic::error(codes::OOB_SHORTAGE, format!(
                        "{n} OOB switch(es) per SU give {} ports, but each SU has {su_block} management and BMC ports", n * access.capacity()))
                        .at(o.switches_per_su.as_ref().and_then(|s| s.span), "too few")
                        .help(format!("use `switches_per_su: {need}` or more, or leave it out to size automatically")),
                );
                return None;
            }
            n
        }
        None => need,
    };
    Some(OobPlan {
        model: o.model.value.clone(),
        access,
        per_su,
        su_block,
        storage_leaves_at,
        inband_leaves_at,
        core_switches: 0,
        uplink,
        gateway_model: gw_name.value.clone(),
        gateway_down,
        in_rack,
    })
}
