//! Numbers by identity: what an existing device or tenant is numbered with, on both sides. A
//! number that changes (or goes) under the same identity is a renumbering: hosts, peers and
//! tenants' own configuration hold it, so it is never a safe change. Growth must show none
//! (ARCHITECTURE.md, "Identity, not iteration order").
//!
//! Identities: an address is (device, interface, purpose, family) in `addresses.csv`; a
//! switch's BGP ASN and router-id are its `intent/<device>.yaml`'s `bgp`; a tenant's id, VRF,
//! L3 VNI, VLAN, route targets, PKey and per-leaf RDs are its entry in `tenants/plan.yaml`
//! (every scalar it has, so a number added there later is compared too).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::table::Table;
use super::{ChangeError, Files, both};

pub const ADDRESSES: &str = "addresses.csv";
pub const TENANTS: &str = "tenants/plan.yaml";

/// A tenant's entries that are not numbers: its name (the identity) and its membership, which
/// the cabling and the configs compare.
const NOT_NUMBERS: &[&str] = &[
    "name",
    "nodes",
    "ports",
    "nic_ports",
    "networks",
    "shared_services",
];

/// One number of one identity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct NumberChange {
    /// The device, or `tenant <name>`.
    pub owner: String,
    /// What the number is (`address swp1 host-link ipv4`, `bgp asn`, `l3vni`, `rd leaf01`).
    pub what: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// The numbering change.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Numbering {
    /// Same identity, another number: a renumbering.
    pub renumbered: Vec<NumberChange>,
    /// Numbers whose identity is gone (a device, interface or tenant removed).
    pub gone: Vec<NumberChange>,
    /// New tenant numbers (a tenant added, or an existing tenant on a new leaf), listed.
    pub tenant_new: Vec<NumberChange>,
    /// How many new device numbers (addresses, ASNs, router-ids of new identities).
    pub device_new: usize,
}

impl Numbering {
    pub fn is_empty(&self) -> bool {
        self.renumbered.is_empty()
            && self.gone.is_empty()
            && self.tenant_new.is_empty()
            && self.device_new == 0
    }

    pub fn disturbs(&self) -> bool {
        !self.renumbered.is_empty() || !self.gone.is_empty()
    }
}

type Numbers = BTreeMap<(String, String), String>;

pub fn compare(old: &Files, new: &Files) -> Result<Numbering, Vec<ChangeError>> {
    let mut errors = Vec::new();
    let mut side = |f: &Files, other: &Files| -> (Numbers, Numbers) {
        let mut devices = Numbers::new();
        if let Err(e) = addresses(f, &mut devices) {
            errors.push(e);
        }
        errors.extend(bgp(f, other, &mut devices));
        let mut tenants = Numbers::new();
        if let Err(e) = tenant_plan(f, &mut tenants) {
            errors.push(e);
        }
        (devices, tenants)
    };
    let ((old_dev, old_ten), (new_dev, new_ten)) = (side(old, new), side(new, old));
    // A tenant plan on one side only is the first tenant added or the last removed (issue #39
    // item 3): its numbers are new or gone, which `delta` says; only the addresses must be on
    // both sides.
    if let Err(e) = both(old, new, ADDRESSES) {
        errors.push(e);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut out = Numbering::default();
    let mut device_new = Vec::new();
    delta(&old_dev, &new_dev, &mut out, &mut device_new);
    out.device_new = device_new.len();
    let mut tenant_new = Vec::new();
    delta(&old_ten, &new_ten, &mut out, &mut tenant_new);
    out.tenant_new = tenant_new;
    Ok(out)
}

fn delta(old: &Numbers, new: &Numbers, out: &mut Numbering, added: &mut Vec<NumberChange>) {
    let change =
        |(owner, what): &(String, String), o: Option<&String>, n: Option<&String>| NumberChange {
            owner: owner.clone(),
            what: what.clone(),
            old: o.cloned(),
            new: n.cloned(),
        };
    for (k, o) in old {
        match new.get(k) {
            Some(n) if n != o => out.renumbered.push(change(k, Some(o), Some(n))),
            Some(_) => {}
            None => out.gone.push(change(k, Some(o), None)),
        }
    }
    for (k, n) in new {
        if !old.contains_key(k) {
            added.push(change(k, None, Some(n)));
        }
    }
}

/// Every address of `addresses.csv` by identity; two rows of one identity are kept together.
fn addresses(files: &Files, out: &mut Numbers) -> Result<(), ChangeError> {
    let Some(bytes) = files.get(ADDRESSES) else {
        return Ok(());
    };
    let t = Table::parse(
        ADDRESSES,
        bytes,
        &["device", "interface", "address", "family", "purpose"],
    )?;
    let mut sets: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for r in t.rows() {
        let what = format!(
            "address {} {} {}",
            r.get("interface"),
            r.get("purpose"),
            r.get("family")
        );
        sets.entry((r.get("device").to_string(), what))
            .or_default()
            .insert(r.get("address").to_string());
    }
    for (k, v) in sets {
        out.insert(k, v.into_iter().collect::<Vec<_>>().join(", "));
    }
    Ok(())
}

/// Each switch's BGP ASN and router-id from its intent; an intent with the same bytes on the
/// `other` side states the same numbers and is not read.
fn bgp(files: &Files, other: &Files, out: &mut Numbers) -> Vec<ChangeError> {
    let mut errors = Vec::new();
    let intents = files.iter().filter(|(p, _)| p.starts_with("intent/"));
    for (path, bytes) in intents.filter(|(p, b)| other.get(*p) != Some(*b)) {
        let Some(dev) = path
            .strip_prefix("intent/")
            .and_then(|f| f.strip_suffix(".yaml"))
            .filter(|d| !d.contains('/'))
        else {
            continue;
        };
        let doc = std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_saphyr::from_str::<Value>(t).map_err(|e| e.to_string()));
        let doc = match doc {
            Ok(d) => d,
            Err(e) => {
                errors.push(ChangeError::new(path, format!("not YAML: {e}")));
                continue;
            }
        };
        for (key, what) in [("asn", "bgp asn"), ("router_id", "router-id")] {
            if let Some(v) = doc.get("bgp").and_then(|b| b.get(key)).and_then(scalar) {
                out.insert((dev.to_string(), what.to_string()), v);
            }
        }
    }
    errors
}

/// A scalar as text; `None` for null, a list or a map.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Every tenant's numbers: its scalars, its lists of scalars joined, its maps' scalars by key.
fn tenant_plan(files: &Files, out: &mut Numbers) -> Result<(), ChangeError> {
    let Some(bytes) = files.get(TENANTS) else {
        return Ok(());
    };
    let doc = std::str::from_utf8(bytes)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_saphyr::from_str::<Value>(t).map_err(|e| e.to_string()))
        .map_err(|e| ChangeError::new(TENANTS, format!("not YAML: {e}")))?;
    let tenants = doc.get("tenants").and_then(Value::as_array);
    for t in tenants.into_iter().flatten() {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            return Err(ChangeError::new(TENANTS, "a tenant without a name"));
        };
        let owner = format!("tenant {name}");
        for (key, v) in t.as_object().into_iter().flatten() {
            if NOT_NUMBERS.contains(&key.as_str()) {
                continue;
            }
            let mut put = |what: String, v: Option<String>| {
                if let Some(v) = v {
                    out.insert((owner.clone(), what), v);
                }
            };
            match v {
                Value::Array(items) => {
                    let items: Vec<String> = items.iter().filter_map(scalar).collect();
                    put(key.clone(), Some(items.join(", ")));
                }
                Value::Object(map) => {
                    for (sub, v) in map {
                        put(format!("{key} {sub}"), scalar(v));
                    }
                }
                _ => put(key.clone(), scalar(v)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::tests::files;

    const HEAD: &str = "device,interface,address,family,purpose\n";

    #[test]
    fn a_moved_address_is_a_renumbering_and_a_new_one_is_counted() {
        let old = files(&[(
            ADDRESSES,
            &format!("{HEAD}l1,lo,10.0.0.1/32,ipv4,loopback\n"),
        )]);
        let new = files(&[(
            ADDRESSES,
            &format!("{HEAD}l1,lo,10.0.0.9/32,ipv4,loopback\nl2,lo,10.0.0.2/32,ipv4,loopback\n"),
        )]);
        let n = compare(&old, &new).unwrap();
        assert_eq!(n.renumbered.len(), 1);
        assert_eq!(n.renumbered[0].new.as_deref(), Some("10.0.0.9/32"));
        assert_eq!(n.device_new, 1);
        assert!(n.disturbs());
    }

    #[test]
    fn a_new_tenant_lists_its_numbers() {
        let plan = |extra: &str| {
            format!("tenants:\n- name: a\n  l3vni: 100001\n  vlan: 101\n  nodes: [n1]\n{extra}")
        };
        let old = files(&[(TENANTS, &plan(""))]);
        let new = files(&[(
            TENANTS,
            &plan("- name: b\n  l3vni: 100002\n  rd: {l1: '1:2'}\n"),
        )]);
        let n = compare(&old, &new).unwrap();
        let what: Vec<(&str, &str)> = n
            .tenant_new
            .iter()
            .map(|c| (c.owner.as_str(), c.what.as_str()))
            .collect();
        assert_eq!(what, vec![("tenant b", "l3vni"), ("tenant b", "rd l1")]);
        assert!(!n.disturbs());
    }
}
