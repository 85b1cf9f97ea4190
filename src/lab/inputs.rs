//! What `lab up` boots from a compile: the plan of its compiled stages (`crate::labplan`) and
//! the rendered `configs/<switch>/frr.conf` of each of the plan's routers, loaded byte for byte.

use std::collections::{BTreeMap, BTreeSet};

use super::LabError;
use crate::labplan::{self, LabPlan, PlanError};
use crate::{Compiled, OutputFile};

/// Router name → its rendered `frr.conf`, byte for byte.
pub type Configs = BTreeMap<String, String>;

/// The lab plan of a compiled spec (with `scale_down`, a sample of the same shape). Fails when
/// the compile failed or the spec makes no lab.
pub fn plan(c: &Compiled, scale_down: bool) -> Result<LabPlan, LabError> {
    let Some(design) = &c.design else {
        return Err(LabError::Plan(
            "the spec did not compile: fix the errors above first".into(),
        ));
    };
    Ok(labplan::build(design, scale_down)?)
}

/// The rendered configs of the plan's routers. Fails when railyard rendered none, or none for
/// one of the routers (its platform is not FRR).
pub fn configs(plan: &LabPlan, outputs: &[OutputFile]) -> Result<Configs, LabError> {
    let routers: BTreeSet<&str> = plan.routers.iter().map(|r| r.name.as_str()).collect();
    let configs: Configs = configs_from(outputs)
        .into_iter()
        .filter(|(name, _)| routers.contains(name.as_str()))
        .collect();
    if configs.is_empty() {
        return Err(PlanError::NoSwitches.into());
    }
    for name in routers {
        if !configs.contains_key(name) {
            return Err(LabError::Plan(format!(
                "no rendered `configs/{name}/frr.conf` for switch `{name}` (is its platform frr?)"
            )));
        }
    }
    Ok(configs)
}

/// The rendered FRR configs among the outputs.
fn configs_from(outputs: &[OutputFile]) -> Configs {
    outputs
        .iter()
        .filter_map(|f| {
            let rest = f.path.strip_prefix("configs/")?;
            let name = rest.strip_suffix("/frr.conf")?;
            Some((
                name.to_string(),
                String::from_utf8_lossy(&f.bytes).into_owned(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use crate::model::Platform;

    fn compiled(text: &str) -> (Compiled, Vec<OutputFile>) {
        let c = crate::compile_for_platform(&SourceFile::new("spec.yaml", text), Platform::Frr);
        match c.outputs(&crate::render::Templates::default()) {
            Some(Ok(o)) => (c, o),
            _ => panic!("spec did not render"),
        }
    }

    #[test]
    fn every_router_loads_its_rendered_config() {
        let (c, outputs) = compiled(crate::LAB_SMALL);
        let p = plan(&c, false).unwrap_or_else(|e| panic!("{e}"));
        let configs = configs(&p, &outputs).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(configs.len(), 5);
        assert!(configs.keys().eq(p.routers.iter().map(|r| &r.name)));
        assert!(configs["spine01"].contains("router bgp"));
    }

    #[test]
    fn a_router_without_a_rendered_config_is_an_error() {
        let (c, mut outputs) = compiled(crate::LAB_SMALL);
        let p = plan(&c, false).unwrap_or_else(|e| panic!("{e}"));
        outputs.retain(|f| f.path != "configs/spine02/frr.conf");
        let e = configs(&p, &outputs).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            e,
            "no rendered `configs/spine02/frr.conf` for switch `spine02` (is its platform frr?)"
        );
        outputs.retain(|f| !f.path.ends_with("/frr.conf"));
        let e = configs(&p, &outputs).map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with("railyard rendered no FRR config"), "{e}");
    }
}
