//! The lane generation a switch model is declared in. NVIDIA's XDR line is "four-channel
//! 200G-PAM4" and "200G-PAM4-based transceivers cannot downshift to 100G-PAM4 or 50G-PAM4"
//! (LinkX, https://docs.nvidia.com/networking/display/800g200gpam4list). A spec that declares
//! an XDR switch with 800G cages of 100G lanes would otherwise solve silently with NDR optics:
//! a model of the spec that replaces a built-in 200G-PAM4 model without any 200G-PAM4 cage, or
//! that names a 200G-SerDes ASIC (`quantum-x800`) without one, is a located error (RY1008).

use super::Inputs;
use super::problems::{Keyed, Problems};
use crate::catalog::{SwitchModel, builtin};
use crate::diag::codes;
use crate::model::LaneRate;

/// ASICs whose every port runs 200G-PAM4 lanes: NVIDIA's Quantum-X800 (Q3400, Q3200: "IHS
/// transceivers or copper cables are only used in air-cooled switches (Q3400, Q3200)", on the
/// 200G-PAM4 line's own page).
const XDR_ASICS: [&str; 1] = ["quantum-x800"];

fn runs_200g(m: &SwitchModel) -> bool {
    m.port_groups
        .iter()
        .any(|g| g.cage().runs(LaneRate::G200Pam4))
}

/// Every switch model the spec declares and the fabric uses, checked against its generation.
pub(crate) fn check(input: &Inputs<'_>, problems: &mut Problems) {
    let used: std::collections::BTreeSet<&str> =
        input.fabric.devices().map(|d| d.model.as_str()).collect();
    for (name, m) in &input.spec.catalog.switches {
        if !used.contains(name.as_str()) || runs_200g(m) {
            continue;
        }
        let builtin_xdr = builtin().switches.get(name).filter(|b| runs_200g(b));
        let asic = m
            .asic
            .as_ref()
            .map(|a| a.as_str())
            .filter(|a| XDR_ASICS.contains(a));
        let why = match (builtin_xdr, asic) {
            (Some(_), _) => {
                format!("the built-in `{name}` runs 200G-PAM4 lanes in 1.6T twin-port OSFP cages")
            }
            (None, Some(a)) => format!("its ASIC `{a}` runs 200G-PAM4 lanes"),
            (None, None) => continue,
        };
        let lanes: Vec<String> = m
            .port_groups
            .iter()
            .map(|g| format!("{} {} cages of {}", g.count, g.speed, lane_rates(g)))
            .collect();
        problems.at_key(Keyed {
            span: input
                .spec
                .catalog_spans
                .get(&format!("switches.{name}"))
                .copied(),
            label: "declared here",
            code: codes::LANE_GENERATION,
            message: format!(
                "switch model `{name}` is declared with {} but {why}: its links would be planned \
                 with parts of the 100G-PAM4 generation, which cannot link to 200G-PAM4 ones",
                lanes.join(", ")
            ),
            help: format!(
                "use the built-in model (remove `{name}` from `catalog.switches`), or declare its \
                 port groups with `lane_rates: [200G-PAM4]`"
            ),
        });
    }
}

fn lane_rates(g: &crate::catalog::PortGroup) -> String {
    let rates: Vec<&str> = g.cage().rates.iter().map(|r| r.as_str()).collect();
    rates.join("/")
}
