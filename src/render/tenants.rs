//! Tenant outputs: `tenants/plan.yaml` (per tenant: nodes, ports, leaves, VRF, VNI, RT/RD, PKey)
//! and, on InfiniBand fabrics, the OpenSM `partitions.conf` (FACTS §3.3) with the default
//! partition limited so tenants cannot meet there.

use minijinja::{Environment, Value};

use super::{RenderError, template};
use crate::OutputFile;
use crate::tenancy::TenantPlan;

pub fn render(env: &Environment<'_>, plan: &TenantPlan) -> Result<Vec<OutputFile>, RenderError> {
    if plan.tenants.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = vec![OutputFile::new(
        "tenants/plan.yaml",
        crate::spec::to_yaml(plan),
    )];
    if plan.tenants.iter().any(|t| t.pkey.is_some()) {
        out.push(OutputFile::new(
            "tenants/partitions.conf",
            template(
                env,
                "subnet-manager",
                "opensm/partitions.conf.j2",
                Value::from_serialize(plan),
            )?,
        ));
    }
    Ok(out)
}
