//! Output groups: what `railyard build --only` selects, for jobs that need one kind of output
//! (a CI job that lints configs, a site team that prints labels). Every file names its group
//! itself (`OutputFile::group`); the producer that writes it knows what it is.

use std::collections::BTreeSet;

/// One kind of output.
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
    /// What people look at: `report.html`, `cabling.xlsx`, the label files for label printers
    /// and label software (`labels/*.zpl`, `labels/*.csv`).
    Report,
    /// The label sheets for office printers (`labels/*.html`): only on request (`--only
    /// labels`), never in [`Selection::all`] — at 131k GPUs they were a million QR codes drawn
    /// as SVG, 0.85 GB.
    Labels,
}

impl OutputGroup {
    /// Every group a build can write: the default ones, then the on-request label sheets.
    pub const ALL: [OutputGroup; 7] = {
        let mut all = [Self::Labels; 7];
        let mut i = 0;
        while i < Self::DEFAULT.len() {
            all[i] = Self::DEFAULT[i];
            i += 1;
        }
        all
    };

    /// What a build writes when no group is named: all but the on-request label sheets.
    pub const DEFAULT: [OutputGroup; 6] = [
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
            Self::Labels => "labels",
        }
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

/// The groups a build writes; the default ones ([`OutputGroup::DEFAULT`]) with [`Selection::all`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection(BTreeSet<OutputGroup>);

impl Selection {
    /// Every group but the on-request label sheets.
    pub fn all() -> Self {
        Self(OutputGroup::DEFAULT.into_iter().collect())
    }

    /// The given groups; the default ones when the list is empty.
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

    /// Whether a file of `group` is written: its group is selected (the manifest, of no group,
    /// always is).
    pub fn keeps(&self, group: Option<OutputGroup>) -> bool {
        group.is_none_or(|g| self.has(g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_kept_by_its_group_and_the_manifest_always() {
        let only = Selection::of(&[OutputGroup::Cabling]);
        let file = |g| super::super::OutputFile::new(g, "x", "").group;
        assert!(only.keeps(file(OutputGroup::Cabling)));
        assert!(!only.keeps(file(OutputGroup::Report)));
        assert!(!only.keeps(file(OutputGroup::Configs)));
        let manifest = super::super::Manifest::default().to_file();
        assert!(only.keeps(manifest.group));
        assert_eq!(Selection::of(&[]), Selection::all());
        assert_eq!("report".parse::<OutputGroup>(), Ok(OutputGroup::Report));
        assert_eq!("labels".parse::<OutputGroup>(), Ok(OutputGroup::Labels));
        assert!(!Selection::all().has(OutputGroup::Labels));
        assert!(
            "label"
                .parse::<OutputGroup>()
                .unwrap_err()
                .contains("one of: configs")
        );
    }
}
