//! Out-of-band sizing: access switches per SU for the SU's BMCs and management ports.

use serde::Serialize;

use super::{CageRun, ComputePlan, lanes, nonzero, switch_model};
use crate::catalog::Catalog;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Speed, Transport};
use crate::spec::ClusterSpec;

#[derive(Clone, Debug, Serialize)]
pub struct OobPlan {
    pub model: String,
    pub access: CageRun,
    pub per_su: u32,
    /// Ports of each SU's block: node BMCs, then the SU's compute leaves.
    pub su_block: u32,
    pub core_switches: u32,
}

pub(super) fn oob_plan(
    spec: &ClusterSpec,
    cat: &Catalog,
    c: &ComputePlan,
    nps: u32,
    diags: &mut Diagnostics,
) -> Option<OobPlan> {
    let o = &spec.oob;
    let m = switch_model(cat, &o.model, Some(Transport::Ethernet), diags)?;
    let g = lanes(m, &o.model, Speed::gbps(1), "management ports", diags)?;
    let grp = &m.port_groups[g.0];
    let access = CageRun {
        first: grp.first,
        cages: grp.count,
        lanes: 1,
        speed: Speed::gbps(1),
    };
    let su_block = nps + c.planes * c.leaves_per_su;
    let need = su_block.div_ceil(access.capacity());
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
        core_switches: 0,
    })
}
