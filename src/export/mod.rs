//! Topology exports: the plan written in the input formats of the tools a data center already
//! runs, so they simulate the fabric or check its cabling (README, "Exports"). A pure stage beside
//! `artifacts` and `labplan`: it reads the compiled stages and the lab plan and returns
//! [`OutputFile`]s; the command line (`railyard export`) writes them.
//!
//! One file per tool: `air.rs` (NVIDIA Air JSON), `air_dot.rs` (NVIDIA Air DOT),
//! `containerlab.rs`, `ptm.rs` (Cumulus PTM `topology.dot` per switch), `ufm_cvt.rs` (UFM Cable
//! Validation Tool point-to-point file), `netbox.rs` (NetBox bulk-import files). Shared:
//! `kinds.rs` (how each tool names a switch's ports, per network OS), `images.rs` (the NOS image
//! or Air `os` per OS, overridable), `dot.rs` (the one DOT writer and its escape).
//!
//! Scope: the simulations (Air, containerlab) take the lab plan's devices and cables (Ethernet
//! switches with a config and the GPU nodes; no InfiniBand, which neither simulates, and no OOB
//! cables, which their own management network stands in for), scaled down on request. PTM,
//! UFM CVT and NetBox take the whole cabling plan.

mod air;
mod air_dot;
mod containerlab;
mod dot;
mod images;
mod kinds;
mod netbox;
mod netbox_types;
mod ptm;
mod ufm_cvt;

use std::fmt;

pub use images::{IMAGE_KEYS, Images};

use crate::design::Design;
use crate::labplan::{self, LabPlan};
use crate::output::OutputFile;

/// One export target, as `railyard export` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Air,
    AirDot,
    Containerlab,
    Ptm,
    UfmCvt,
    Netbox,
}

impl Target {
    pub const ALL: [Target; 6] = [
        Target::Air,
        Target::AirDot,
        Target::Containerlab,
        Target::Ptm,
        Target::UfmCvt,
        Target::Netbox,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Air => "air",
            Target::AirDot => "air-dot",
            Target::Containerlab => "containerlab",
            Target::Ptm => "ptm",
            Target::UfmCvt => "ufm-cvt",
            Target::Netbox => "netbox",
        }
    }

    /// Whether the export is a simulation of the lab plan (and `--scale-down` applies).
    pub fn simulates(self) -> bool {
        matches!(self, Target::Air | Target::AirDot | Target::Containerlab)
    }
}

impl std::str::FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|t| t.name()).collect();
                format!("unknown export `{s}` (one of: {})", names.join(", "))
            })
    }
}

/// What an export produced: its files, and the rendered switch files they name (paths under
/// `configs/`), which the caller renders and writes beside them.
#[derive(Debug, Default)]
pub struct Export {
    pub files: Vec<OutputFile>,
    pub configs: Vec<String>,
}

/// Why an export wrote nothing: the file it was writing and what went wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct ExportError {
    pub file: String,
    pub message: String,
}

impl ExportError {
    pub(crate) fn new(file: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write `{}`: {}", self.file, self.message)
    }
}

impl std::error::Error for ExportError {}

/// The export `target` of a compiled spec (its design). `scale_down` samples the lab plan of a simulation
/// (as `railyard lab up --scale-down` does); the other exports always cover the whole plan.
pub fn export(
    target: Target,
    i: &Design,
    images: &Images,
    scale_down: bool,
) -> Result<Export, ExportError> {
    let only = |files| {
        Ok(Export {
            files,
            configs: Vec::new(),
        })
    };
    match target {
        Target::Air => {
            let plan = air::plan(&lab(i, scale_down)?, &i.fabric, images, air::PATH)?;
            only(vec![air::file(&plan)?])
        }
        Target::AirDot => {
            let plan = air::plan(&lab(i, scale_down)?, &i.fabric, images, air_dot::PATH)?;
            only(vec![air_dot::file(&plan)])
        }
        Target::Containerlab => containerlab::files(&lab(i, scale_down)?, i, images),
        Target::Ptm => only(ptm::files(&i.fabric)?),
        Target::UfmCvt => only(vec![ufm_cvt::file(&i.fabric)?]),
        Target::Netbox => only(netbox::files(i)?),
    }
}

fn lab(i: &Design, scale_down: bool) -> Result<LabPlan, ExportError> {
    labplan::build(i, scale_down).map_err(|e| ExportError::new("the lab plan", e.to_string()))
}

/// Text safe on one `#` comment line (control characters, line breaks included, as spaces).
fn comment(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// What `--scale-down` kept and sampled, as comment lines (empty when the plan is complete).
fn scale_note(lab: &LabPlan) -> Vec<String> {
    let s = &lab.scale;
    let mut lines = Vec::new();
    if s.scaled {
        lines.push("scaled down (--scale-down): a sample of the same shape".to_string());
        for (role, kept) in &s.kept {
            let dropped = s.dropped.get(role).map_or(0, Vec::len);
            lines.push(format!(
                "  {role}: kept {} of {}",
                kept.len(),
                kept.len() + dropped
            ));
        }
        lines.extend(s.sampled.iter().map(|x| format!("  sampled: {x}")));
    }
    lines.extend(s.not_modelled.iter().map(|x| format!("not modelled: {x}")));
    lines.into_iter().map(|l| comment(&l)).collect()
}
