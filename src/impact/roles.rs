//! The analysis summed up per switch role: for "a leaf down", "a spine down", … the worst case
//! (the first of the role in the ranking) and the typical one (the median of the role's failures
//! in ranking order: half of the role's switches cost at least that much, half at most), so a
//! reader sees both the outlier and what to expect of a random failure of that role.

use std::collections::BTreeMap;

use super::{Analysis, Impact};
use crate::model::Role;

/// One role's failures.
pub struct RoleSummary<'a> {
    pub role: Role,
    /// How many of the role's switches were analysed.
    pub count: usize,
    pub worst: &'a Impact,
    pub typical: &'a Impact,
}

/// Every switch role of the analysis, in the model's role order; cable failures are left out.
pub fn by_role(a: &Analysis) -> Vec<RoleSummary<'_>> {
    let mut of: BTreeMap<Role, Vec<&Impact>> = BTreeMap::new();
    for i in &a.impacts {
        if let Some(r) = i.role {
            of.entry(r).or_default().push(i);
        }
    }
    of.into_iter()
        .filter_map(|(role, v)| {
            Some(RoleSummary {
                role,
                count: v.len(),
                worst: v.first()?,
                typical: v.get(v.len() / 2)?,
            })
        })
        .collect()
}
