//! Who is in each tenant, on both sides (`tenants/plan.yaml`: a tenant's `nodes`, its
//! `nic_ports` and its `networks`). A member that leaves a tenant loses its traffic at once: on
//! Ethernet its leaf ports leave the tenant's VRF, on InfiniBand its ports leave the tenant's
//! partition (OpenSM's `partitions.conf` is written from this membership). So a member leaving
//! is disruptive, a member joining is not. Numbers (VNI, VLAN, PKey, …) are `numbering.rs`'s.
//!
//! A design without tenants has no plan file: the first tenant added (or the last removed) is
//! compared with an empty membership, never refused.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::numbering::TENANTS;
use super::{ChangeError, Files};

/// The membership lists of a tenant in `tenants/plan.yaml`, and what each names.
const MEMBERS: &[(&str, &str)] = &[
    ("nodes", "node"),
    ("nic_ports", "NIC port"),
    ("networks", "network"),
];

/// One tenant's members that leave or join.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MembershipChange {
    pub tenant: String,
    /// What the members are (`node`, `NIC port`, `network`).
    pub kind: String,
    /// Members the tenant loses: their traffic in the tenant stops.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub leave: Vec<String>,
    /// Members the tenant gains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub join: Vec<String>,
}

impl MembershipChange {
    pub fn disturbs(&self) -> bool {
        !self.leave.is_empty()
    }
}

type Membership = BTreeMap<(String, &'static str), BTreeSet<String>>;

/// The membership change of every tenant, by tenant and kind.
pub fn compare(old: &Files, new: &Files) -> Result<Vec<MembershipChange>, ChangeError> {
    let (old, new) = (members(old)?, members(new)?);
    let keys: BTreeSet<&(String, &'static str)> = old.keys().chain(new.keys()).collect();
    let empty = BTreeSet::new();
    let mut out = Vec::new();
    for key in keys {
        let (o, n) = (
            old.get(key).unwrap_or(&empty),
            new.get(key).unwrap_or(&empty),
        );
        let leave: Vec<String> = o.difference(n).cloned().collect();
        let join: Vec<String> = n.difference(o).cloned().collect();
        if leave.is_empty() && join.is_empty() {
            continue;
        }
        out.push(MembershipChange {
            tenant: key.0.clone(),
            kind: key.1.to_string(),
            leave,
            join,
        });
    }
    Ok(out)
}

/// Every tenant's members; no plan file is no tenant.
fn members(files: &Files) -> Result<Membership, ChangeError> {
    let mut out = Membership::new();
    let Some(bytes) = files.get(TENANTS) else {
        return Ok(out);
    };
    let doc = std::str::from_utf8(bytes)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_saphyr::from_str::<Value>(t).map_err(|e| e.to_string()))
        .map_err(|e| ChangeError::new(TENANTS, format!("not YAML: {e}")))?;
    for t in doc
        .get("tenants")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            return Err(ChangeError::new(TENANTS, "a tenant without a name"));
        };
        for (key, kind) in MEMBERS {
            let list = t.get(*key).and_then(Value::as_array).into_iter().flatten();
            let set: BTreeSet<String> = list
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            if !set.is_empty() {
                out.insert((name.to_string(), kind), set);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::tests::files;

    fn plan(tenants: &str) -> Files {
        files(&[(TENANTS, tenants)])
    }

    #[test]
    fn a_node_leaving_a_tenant_disturbs_and_one_joining_does_not() {
        let old = plan("tenants:\n- name: a\n  nodes: [n1, n2]\n  nic_ports: ['n1:p1', 'n2:p1']\n");
        let new = plan("tenants:\n- name: a\n  nodes: [n1, n3]\n  nic_ports: ['n1:p1', 'n3:p1']\n");
        let c = compare(&old, &new).unwrap();
        let nodes = c.iter().find(|m| m.kind == "node").unwrap();
        assert_eq!(nodes.leave, ["n2"]);
        assert_eq!(nodes.join, ["n3"]);
        assert!(nodes.disturbs());
        let grown = plan("tenants:\n- name: a\n  nodes: [n1, n2, n3]\n");
        let only_join = compare(&plan("tenants:\n- name: a\n  nodes: [n1, n2]\n"), &grown).unwrap();
        assert!(only_join.iter().all(|m| !m.disturbs()));
    }

    #[test]
    fn the_first_tenant_compares_with_no_tenant() {
        let c = compare(&Files::new(), &plan("tenants:\n- name: a\n  nodes: [n1]\n")).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].join, ["n1"]);
        let gone = compare(&plan("tenants:\n- name: a\n  nodes: [n1]\n"), &Files::new()).unwrap();
        assert!(gone[0].disturbs());
    }
}
