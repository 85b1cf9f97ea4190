//! NVLink domains: the compute trays of a rack-scale system (one NVL72 rack = 18 trays = 72 GPUs)
//! share one NVLink domain. Domains are laid over an SU's node positions in order, `trays`
//! positions each, so a domain never straddles two SUs and adding an SU renumbers none.

use serde::Serialize;

use crate::catalog::NodeModel;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::spec::ClusterSpec;

/// The NVLink domains of a rack-scale node model, as laid over the SUs.
#[derive(Clone, Debug, Serialize)]
pub struct DomainPlan {
    /// The system's name (`DGX GB200 NVL72`).
    pub system: String,
    /// Trays (nodes) per domain.
    pub trays: u32,
    /// Domains per SU.
    pub per_su: u32,
    /// GPUs in one domain.
    pub gpus: u32,
    /// NVLink bandwidth of one GPU, GB/s.
    pub nvlink_gbytes_per_gpu: u32,
    pub nvlink_switch_trays: u32,
    pub nvlink_switch_chips_per_tray: Option<u32>,
    pub power_shelves: Option<u32>,
    /// The rack's power draw at most, kW (a source's figure).
    pub rack_kw: Option<f64>,
    /// In-rack management switches: (count, model).
    pub in_rack_switches: Option<(u32, String)>,
    /// GPU–CPU over NVLink-C2C.
    pub c2c: bool,
}

impl DomainPlan {
    /// The domain (1-based, cluster-wide) of a node position (SU and slot, 1-based).
    pub fn domain_of(&self, su: u32, slot: u32) -> u32 {
        (su - 1) * self.per_su + (slot - 1) / self.trays + 1
    }

    /// The tray's position in its domain (1-based).
    pub fn tray_of(&self, slot: u32) -> u32 {
        (slot - 1) % self.trays + 1
    }
}

/// The domain plan of `node` over SUs of `nps` positions: `None` for a model that is not
/// rack-scale, or (reported) when the SU is not a whole number of domains.
pub(super) fn domain_plan(
    spec: &ClusterSpec,
    node: &NodeModel,
    nps: u32,
    diags: &mut Diagnostics,
) -> Option<DomainPlan> {
    let rs = node.rack_scale.as_ref()?;
    let su = &spec.scalable_units;
    let trays = rs.trays.max(1);
    let model = &su.node_model.value;
    if nps < trays || !nps.is_multiple_of(trays) {
        let what = if nps < trays {
            format!(
                "one NVLink domain of `{model}` is {trays} trays, more than the SU's {nps} nodes"
            )
        } else {
            format!(
                "{nps} nodes per SU do not divide into NVLink domains of {trays} trays (`{model}`)"
            )
        };
        diags.push(
            Diagnostic::error(codes::NVLINK_DOMAIN_SIZE, what)
                .at(su.nodes_per_su.span, "not a whole number of NVLink domains")
                .help(format!(
                    "use a multiple of {trays}: {} … (one rack per {trays} trays; an SU of NVIDIA's GB200 RA is 8 racks = {})",
                    (1..=4).map(|k| (k * trays).to_string()).collect::<Vec<_>>().join(", "),
                    8 * trays
                )),
        );
        return None;
    }
    if let Some(r) = &spec.racks
        && r.nodes_per_rack.value != trays
    {
        diags.push(
            Diagnostic::error(
                codes::NVLINK_RACKS,
                format!(
                    "`racks.nodes_per_rack` is {}, but a `{model}` rack holds one NVLink domain of {trays} trays",
                    r.nodes_per_rack.value
                ),
            )
            .at(r.nodes_per_rack.span, "not the domain size")
            .help(format!("set `nodes_per_rack: {trays}`")),
        );
        return None;
    }
    Some(DomainPlan {
        system: rs.system.to_string(),
        trays,
        per_su: nps / trays,
        gpus: trays * node.gpus,
        nvlink_gbytes_per_gpu: rs.nvlink_gbytes_per_gpu,
        nvlink_switch_trays: rs.nvlink_switch_trays,
        nvlink_switch_chips_per_tray: rs.nvlink_switch_chips_per_tray,
        power_shelves: rs.power_shelves,
        rack_kw: rs.rack_kw,
        in_rack_switches: rs
            .in_rack_switches
            .as_ref()
            .map(|s| (s.count, s.model.clone())),
        c2c: rs.c2c,
    })
}
