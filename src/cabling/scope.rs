//! What a verification covers, and what its result means.
//!
//! The **scope** is the set of planned cables the verification must see: every planned cable,
//! unless the user narrows it by device (cables with at least one end on a named device) and/or
//! by tier. Narrowing says what must be seen, never what may be wrong: every deviation LLDP saw
//! is a finding, in scope or not, so no flag can hide a miswire.
//!
//! The **status**:
//! - `FAIL`: a finding (miswired, missing, unexpected);
//! - else `INCOMPLETE` when something was not verified ([`Gap`]): a planned cable in scope that
//!   LLDP did not see (no end captured, or its far end sent nothing a capture saw), a capture from
//!   a device the plan does not have (its neighbours are not compared: a wrong `DEVICE=` or a
//!   file of another fabric would otherwise read as miswires), no neighbour entry in any capture,
//!   or a scope that holds no planned cable;
//! - else `PASS`: every planned cable in scope was seen, as planned.

use std::fmt;

use serde::de::IntoDeserializer;
use serde::{Deserialize, Serialize};

use super::names::Names;
use crate::model::Tier;
use crate::topology::Fabric;

/// Which planned cables a verification must see.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scope {
    /// Only cables with an end on one of these devices (plan names); empty: any device.
    pub devices: Vec<String>,
    /// Only cables of these tiers; empty: every tier.
    pub tiers: Vec<Tier>,
}

impl Scope {
    /// Every planned cable.
    pub fn everything() -> Self {
        Scope::default()
    }

    /// The scope of `devices` (resolved as reported LLDP names are: exact, case-insensitive, or
    /// the short host name) and `tiers` in the plan of `fabric`. A name the plan does not have
    /// is an error: a typo must not narrow the scope to nothing.
    pub fn new(fabric: &Fabric, devices: &[String], tiers: &[Tier]) -> Result<Scope, NotInPlan> {
        let names = Names::new(fabric);
        let mut found = Vec::new();
        let mut unknown = Vec::new();
        for d in devices {
            match names.find(d) {
                Some(n) => found.push(n.to_string()),
                None => unknown.push(d.clone()),
            }
        }
        if !unknown.is_empty() {
            return Err(NotInPlan(unknown));
        }
        found.sort();
        found.dedup();
        let mut tiers = tiers.to_vec();
        tiers.sort();
        tiers.dedup();
        Ok(Scope {
            devices: found,
            tiers,
        })
    }

    /// Narrower than every planned cable.
    pub fn is_narrowed(&self) -> bool {
        !self.devices.is_empty() || !self.tiers.is_empty()
    }

    /// Whether a planned cable between devices `a` and `b`, of tier `tier`, is in scope.
    pub(super) fn covers(&self, a: &str, b: &str, tier: Tier) -> bool {
        let listed = |d: &str| self.devices.binary_search_by(|n| n.as_str().cmp(d)).is_ok();
        let by_device = self.devices.is_empty() || listed(a) || listed(b);
        let by_tier = self.tiers.is_empty() || self.tiers.contains(&tier);
        by_device && by_tier
    }

    /// `devices a, b; tiers x, y` (empty for every planned cable).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.devices.is_empty() {
            parts.push(format!("devices {}", self.devices.join(", ")));
        }
        if !self.tiers.is_empty() {
            let tiers: Vec<&str> = self.tiers.iter().map(|t| t.as_str()).collect();
            parts.push(format!("tiers {}", tiers.join(", ")));
        }
        parts.join("; ")
    }
}

/// A tier by its name in the cabling plan (`node-leaf`, `leaf-spine`, …).
pub fn tier_named(name: &str) -> Result<Tier, String> {
    Tier::deserialize(name.into_deserializer()).map_err(|e: serde::de::value::Error| e.to_string())
}

/// Device names given for the scope that the plan does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotInPlan(pub Vec<String>);

impl fmt::Display for NotInPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.0.iter().map(|n| format!("`{n}`")).collect();
        write!(f, "not a device of the plan: {}", names.join(", "))
    }
}

impl std::error::Error for NotInPlan {}

/// The verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every planned cable in scope was seen, as planned; nothing else was seen.
    Pass,
    /// LLDP saw a deviation from the plan.
    Fail,
    /// No deviation seen, but something was not verified (the report's gaps).
    Incomplete,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Incomplete => "INCOMPLETE",
        }
    }
}

/// Something the verification did not verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gap {
    /// Planned cables in scope LLDP did not see (the report's `not_verified`).
    UnseenCables,
    /// Captures from devices the plan does not have (captures with `planned: false`); their
    /// neighbours were not compared.
    UnplannedCaptures,
    /// No capture holds a neighbour entry.
    NothingObserved,
    /// The scope holds no planned cable.
    EmptyScope,
}
