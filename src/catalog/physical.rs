//! The physical parts a link is built from: pluggable modules (transceivers), cable assemblies
//! with their ends built in (DAC, ACC, AOC, twisted pair), passive fibre cords and adapters
//! (QSA). Built-ins are
//! `catalog/physical.yaml`, each part with its public source and the quotes that back it
//! (`tests/pipeline/physical_catalog.rs` checks them against the copies in `tests/fixtures/physical/`);
//! a spec adds or replaces parts under `catalog: {modules, assemblies, fibres}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::ident::{Name, Text};
use crate::model::{
    AssemblyKind, Connector, FibreKind, FibreMedia, Fits, Form, Grade, LaneRate, Top,
};

/// What a part's number and figures rest on (issue #42's decision on sources): the maker's own
/// page, the maker's words on another host (a mirror, a public repository), a third-party
/// listing (a seller, an inventory, someone's table), or a standard the part is ordered by
/// (`GEN-` cords). The rules that decide what fits where come from vendor text whatever the
/// kind; the kind tells the buyer how far to trust the part number: the BOM marks a third-party
/// line "confirm with the vendor before ordering", and `physical.parts: vendor-only` refuses it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    Vendor,
    VendorText,
    ThirdParty,
    Specification,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Vendor => "vendor",
            SourceKind::VendorText => "vendor-text",
            SourceKind::ThirdParty => "third-party",
            SourceKind::Specification => "specification",
        }
    }

    /// What the BOM says of a line of this kind (`None`: the spec's own part, no kind stated).
    pub fn bom_note(kind: Option<SourceKind>) -> &'static str {
        match kind {
            Some(SourceKind::ThirdParty) => "confirm with the vendor before ordering",
            Some(SourceKind::Specification) => "order by specification",
            Some(SourceKind::Vendor | SourceKind::VendorText) => "",
            None => "declared in the spec",
        }
    }
}

/// A pluggable transceiver (or adapter), keyed by its orderable part number.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Module {
    pub vendor: Text,
    /// How the key is formed where no page names the whole number.
    #[serde(default)]
    pub pn_basis: Option<PnBasis>,
    /// The length-code rule of `lengths[].part`.
    #[serde(default)]
    pub pn_rule: Option<PnRule>,
    pub description: Text,
    pub form: Form,
    pub top: Top,
    pub fits: Fits,
    /// Optical ports (connectors) per module: 2 for a twin-port OSFP.
    pub ports: u32,
    /// Electrical lanes behind each optical port.
    pub lanes: u32,
    pub lane_rates: Vec<LaneRate>,
    /// Fewest lanes per port the module runs with (a 400G SR4 module at 200G on a splitter: 2).
    #[serde(default)]
    pub min_lanes: Option<u32>,
    /// Optical standard (`SR4`, `DR4`, `FR4`, `SR`): both ends of a fibre run the same.
    pub standard: Text,
    pub connector: Connector,
    pub media: FibreMedia,
    /// Longest run on the best fibre the catalog carries, patch panels included; where the
    /// vendor's page states none, the IEEE 802.3 reach of the module's standard
    /// ([`Module::reach`]).
    #[serde(default)]
    pub reach_m: Option<f64>,
    /// Power drawn, in watts, from the vendor's data (the optics-power sheet and the rack power).
    #[serde(default)]
    pub power_w: Option<f64>,
    pub source: Text,
    /// What `source` is (built-in parts always say; a spec's own part may leave it out).
    #[serde(default)]
    pub source_kind: Option<SourceKind>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
}

impl Module {
    pub fn min_lanes(&self) -> u32 {
        self.min_lanes.unwrap_or(self.lanes)
    }

    /// The module's reach: the vendor's figure, else the IEEE 802.3 operating range on OM4 of
    /// the PMD its standard and lane rate name (IEEE 802.3-2022: 10GBASE-SR clause 52, 400 m;
    /// 40GBASE-SR4 clause 86, 150 m; 25GBASE-SR clause 112 and 100GBASE-SR4 clause 95, 100 m;
    /// 200GBASE-SR4 clause 138, 100 m),
    /// else none (the solver then cannot use it for any run).
    pub fn reach(&self) -> f64 {
        use crate::model::LaneRate::*;
        if let Some(r) = self.reach_m {
            return r;
        }
        let fastest = self.lane_rates.iter().copied().max();
        match (self.media, self.standard.as_str(), fastest) {
            (FibreMedia::Mmf, "SR", Some(G10Nrz)) => 400.0,
            // 40GBASE-SR4, clause 86: 150 m on OM4.
            (FibreMedia::Mmf, "SR4", Some(G10Nrz)) => 150.0,
            (FibreMedia::Mmf, "SR" | "SR4", Some(G25Nrz | G50Pam4)) => 100.0,
            _ => 0.0,
        }
    }
}

/// A quote of the part's public source, kept in `tests/fixtures/physical/<file>`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub file: Text,
    pub quote: Text,
}

/// One end of an assembly: `count` plugs of one form.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssemblyEnd {
    pub form: Form,
    pub top: Top,
    /// Electrical lanes of each plug.
    pub lanes: u32,
    /// Plugs at this end: 1 for a straight cable, 2 or 4 for a breakout's split end.
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

/// A cable with its ends built in.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Assembly {
    pub vendor: Text,
    /// How the key is formed where no page names the whole number.
    #[serde(default)]
    pub pn_basis: Option<PnBasis>,
    /// The length-code rule of `lengths[].part`.
    #[serde(default)]
    pub pn_rule: Option<PnRule>,
    pub description: Text,
    pub kind: AssemblyKind,
    pub a: AssemblyEnd,
    pub b: AssemblyEnd,
    pub lane_rates: Vec<LaneRate>,
    /// Power drawn per assembly end, in watts, from the vendor's data (active copper, AOC).
    #[serde(default)]
    pub power_w: Option<f64>,
    /// Longest run where `lengths` is empty (a cord made to length, e.g. twisted pair: 100 m).
    #[serde(default)]
    pub max_m: Option<f64>,
    pub lengths: Vec<Length>,
    pub source: Text,
    /// What `source` is (built-in parts always say; a spec's own part may leave it out).
    #[serde(default)]
    pub source_kind: Option<SourceKind>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
}

/// An orderable length and its own part number.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Length {
    /// Length in metres.
    pub m: f64,
    pub part: Name,
}

/// A passive fibre cord between optical modules.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fibre {
    pub vendor: Text,
    /// How the key is formed where no page names the whole number.
    #[serde(default)]
    pub pn_basis: Option<PnBasis>,
    /// The length-code rule of `lengths[].part`.
    #[serde(default)]
    pub pn_rule: Option<PnRule>,
    pub description: Text,
    pub kind: FibreKind,
    /// Connectors on the B side: 1 straight, 2 for a 1:2 splitter.
    pub legs: u32,
    /// Lanes (fibre pairs) each leg carries.
    pub lanes_per_leg: u32,
    pub connector: Connector,
    /// The legs' connector where it differs (an MPO-12 to 4 x LC duplex breakout harness).
    #[serde(default)]
    pub leg_connector: Option<Connector>,
    pub media: FibreMedia,
    pub grade: Grade,
    /// Longest run of the cord at its grade, in metres.
    pub max_m: f64,
    pub lengths: Vec<Length>,
    pub source: Text,
    /// What `source` is (built-in parts always say; a spec's own part may leave it out).
    #[serde(default)]
    pub source_kind: Option<SourceKind>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
}

/// A passive adapter that seats a smaller module in a larger cage (a QSA: one SFP module in a
/// QSFP port), keyed by its orderable part number.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Adapter {
    pub vendor: Text,
    pub description: Text,
    /// The cage form it plugs into.
    pub host_form: Form,
    /// The module form it takes.
    pub module_form: Form,
    /// Lane rates it passes.
    pub lane_rates: Vec<LaneRate>,
    /// Power drawn per module end, in watts (the optics-power sheet and the rack power), from the vendor's data.
    #[serde(default)]
    pub power_w: Option<f64>,
    pub source: Text,
    /// What `source` is (built-in parts always say; a spec's own part may leave it out).
    #[serde(default)]
    pub source_kind: Option<SourceKind>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
}

/// How a part number is formed where no page names it (the catalog says why, beside the part).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PnBasis {
    pub base: Text,
    pub suffix: Text,
}

/// The vendor's length-code rule a family's `lengths[].part` follow.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PnRule {
    pub family: Text,
}

/// The shortest orderable length at least `m` long.
pub fn length_for(lengths: &[Length], m: f64) -> Option<&Length> {
    lengths
        .iter()
        .filter(|l| l.m + 1e-9 >= m)
        .min_by(|a, b| a.m.total_cmp(&b.m))
}

/// What to order for a run of `m` metres: the listed length that covers it, or, for a family
/// whose lengths the catalog does not list (fibre cut to length), the family number at `m`
/// rounded up to a whole metre, within `max`.
pub fn order(family: &Name, lengths: &[Length], max: f64, m: f64) -> Option<(Name, f64)> {
    if lengths.is_empty() {
        let at = m.ceil().max(1.0);
        return (at <= max + 1e-9).then(|| (family.clone(), at));
    }
    length_for(lengths, m).map(|l| (l.part.clone(), l.m))
}
