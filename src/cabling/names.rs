//! Device names as LLDP reports them, resolved to the plan's names.

use std::collections::BTreeMap;

use crate::topology::Fabric;

/// The plan's device names, found by the names devices report.
pub(super) struct Names {
    /// Lower-cased device name → plan name.
    by_lower: BTreeMap<String, String>,
}

impl Names {
    pub fn new(f: &Fabric) -> Self {
        let by_lower = f
            .devices()
            .map(|d| (d.name.to_lowercase(), d.name.clone()))
            .collect();
        Names { by_lower }
    }

    /// The plan's name for a reported system name: exact, case-insensitive, or its short host
    /// name (`spine01.dc1.example` → `spine01`).
    pub fn find(&self, name: &str) -> Option<&str> {
        let lower = name.trim().to_lowercase();
        if let Some(n) = self.by_lower.get(&lower) {
            return Some(n);
        }
        let short = lower.split('.').next().unwrap_or_default();
        self.by_lower.get(short).map(String::as_str)
    }

    /// [`Names::find`], or the name as reported (trimmed) when the plan has no such device.
    pub fn resolve(&self, name: &str) -> String {
        self.find(name)
            .map_or_else(|| name.trim().to_string(), str::to_string)
    }

    /// Whether `name` is a plan name as it is.
    pub fn is_planned(&self, name: &str) -> bool {
        self.by_lower
            .get(&name.to_lowercase())
            .is_some_and(|n| n == name)
    }
}

/// The names a host's operating system gives its ports (`ens1f0np0`, from the node model's
/// `netdev` or its PCIe layout), by device, each to the plan's port name (`nic0`): LLDP from a
/// server reports the OS name, and a correctly cabled port must not read as a miswire whose fix
/// ("move the plug from gpu001:ens1f0np0 to gpu001:nic0") cannot be carried out.
#[derive(Clone, Debug, Default)]
pub struct PortAliases {
    by: BTreeMap<(String, String), String>,
}

impl PortAliases {
    /// From `(device, OS name, plan port)` triples. A name the plan already uses for another
    /// port of the device is not an alias (the plan's own name wins).
    pub fn new(names: impl IntoIterator<Item = (String, String, String)>) -> Self {
        let by = names
            .into_iter()
            .filter(|(_, os, plan)| os != plan)
            .map(|(d, os, plan)| ((d, os), plan))
            .collect();
        Self { by }
    }

    /// The plan's name of the port `device` reports as `reported` (unchanged when none).
    pub fn port(&self, device: &str, reported: &str) -> String {
        self.by
            .get(&(device.to_string(), reported.to_string()))
            .map_or_else(|| reported.to_string(), String::clone)
    }

    pub fn is_empty(&self) -> bool {
        self.by.is_empty()
    }
}
