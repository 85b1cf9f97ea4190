//! Tenant outputs: `tenants/plan.yaml` (per tenant: nodes, ports, leaves, VRF, VNI, RT/RD, PKey)
//! and, on InfiniBand compute fabrics, the OpenSM partitions (OpenSM doc/partition-config.txt (linux-rdma/opensm); `intent/partitions.rs`)
//! with the default partition limited so tenants cannot meet there. The partitions file is
//! `partitions.conf` once every member has an imported port GUID, and `partitions.conf.template`
//! (placeholders, not loadable) until then.

use minijinja::{Environment, Value, context};

use super::{RenderError, template};
use crate::intent::partitions::{Partitions, TENANT_PKEY_INDEX};
use crate::output::{OutputFile, OutputGroup};
use crate::tenancy::TenantPlan;

pub fn render(
    env: &Environment<'_>,
    plan: &TenantPlan,
    partitions: Option<&Partitions>,
) -> Result<Vec<OutputFile>, RenderError> {
    if plan.tenants.is_empty() {
        return Ok(Vec::new());
    }
    let yaml = super::yaml("tenants", "plan.yaml", plan)?;
    let mut out = vec![OutputFile::new(
        OutputGroup::Configs,
        "tenants/plan.yaml",
        yaml,
    )];
    if let Some(p) = partitions {
        let name = if p.complete() {
            "tenants/partitions.conf"
        } else {
            "tenants/partitions.conf.template"
        };
        let ctx = context! {
            complete => p.complete(),
            tenant_index => TENANT_PKEY_INDEX,
            ..Value::from_serialize(p)
        };
        out.push(OutputFile::new(
            OutputGroup::Configs,
            name,
            template(env, "subnet-manager", "opensm/partitions.conf.j2", ctx)?,
        ));
    }
    Ok(out)
}
