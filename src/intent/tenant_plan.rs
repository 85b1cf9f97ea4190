//! The tenant plan as the renderers see it: `tenants/plan.yaml` is this value serialized. The
//! intent carries the plan `tenancy` computed and re-exports its types here, so `render` names
//! only `intent` and the stage order `tenancy` → `intent` → `render` holds without a copy.

pub use crate::tenancy::{SharedService, Tenant, TenantPlan};
