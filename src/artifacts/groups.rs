//! Output groups: what `railyard build --only` selects, for jobs that need one kind of output
//! (a CI job that lints configs, a site team that prints labels).

use std::collections::BTreeSet;

/// One kind of output, by the paths it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutputGroup {
    /// Switch configs, subnet-manager files, intent dumps, the tenant plan (`configs/`,
    /// `intent/`, `tenants/`).
    Configs,
    /// Cabling plan, NetBox import, port maps, bill of materials.
    Cabling,
    /// The address plan (`addresses.csv`).
    Addresses,
    /// Host-side files and scheduler topology (`hosts/`, `scheduler/`).
    Hosts,
    /// The machine-readable plan and summary (`plan.json`, `summary.json`).
    Plan,
    /// What people look at: `report.html`, `cabling.xlsx`, `labels/`.
    Report,
}

impl OutputGroup {
    pub const ALL: [OutputGroup; 6] = [
        Self::Configs,
        Self::Cabling,
        Self::Addresses,
        Self::Hosts,
        Self::Plan,
        Self::Report,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Configs => "configs",
            Self::Cabling => "cabling",
            Self::Addresses => "addresses",
            Self::Hosts => "hosts",
            Self::Plan => "plan",
            Self::Report => "report",
        }
    }

    /// The group a path of the output directory belongs to; `None` for `manifest.json`, which
    /// every build writes.
    pub fn of(path: &str) -> Option<Self> {
        let top = path.split('/').next().unwrap_or(path);
        Some(match top {
            "configs" | "intent" | "tenants" => Self::Configs,
            "cabling.csv" | "netbox-cables.csv" | "portmaps" | "bom.csv" => Self::Cabling,
            "addresses.csv" => Self::Addresses,
            "hosts" | "scheduler" => Self::Hosts,
            "plan.json" | "summary.json" => Self::Plan,
            "report.html" | "cabling.xlsx" | "labels" => Self::Report,
            _ => return None,
        })
    }
}

impl std::str::FromStr for OutputGroup {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|g| g.name()).collect();
                format!("unknown output group `{s}` (one of: {})", names.join(", "))
            })
    }
}

/// The groups a build writes; every group when built with [`Selection::all`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection(BTreeSet<OutputGroup>);

impl Selection {
    pub fn all() -> Self {
        Self(OutputGroup::ALL.into_iter().collect())
    }

    /// The given groups; every group when the list is empty.
    pub fn of(groups: &[OutputGroup]) -> Self {
        if groups.is_empty() {
            Self::all()
        } else {
            Self(groups.iter().copied().collect())
        }
    }

    pub fn has(&self, g: OutputGroup) -> bool {
        self.0.contains(&g)
    }

    /// Whether a path is written: its group is selected (the manifest always is).
    pub fn keeps(&self, path: &str) -> bool {
        OutputGroup::of(path).is_none_or(|g| self.has(g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_has_its_group_and_the_manifest_is_always_kept() {
        for (path, group) in [
            ("configs/leaf01/nv-set.sh", OutputGroup::Configs),
            ("intent/leaf01.yaml", OutputGroup::Configs),
            ("tenants/plan.yaml", OutputGroup::Configs),
            ("portmaps/leaf01.csv", OutputGroup::Cabling),
            ("labels/r01.html", OutputGroup::Report),
            ("scheduler/slurm/topology.conf", OutputGroup::Hosts),
        ] {
            assert_eq!(OutputGroup::of(path), Some(group), "{path}");
        }
        let only = Selection::of(&[OutputGroup::Cabling]);
        assert!(only.keeps("manifest.json") && only.keeps("bom.csv"));
        assert!(!only.keeps("report.html") && !only.keeps("configs/x/frr.conf"));
        assert_eq!(Selection::of(&[]), Selection::all());
        assert_eq!("report".parse::<OutputGroup>(), Ok(OutputGroup::Report));
        assert!(
            "labels"
                .parse::<OutputGroup>()
                .unwrap_err()
                .contains("one of: configs")
        );
    }
}
