//! The InfiniBand side (NVIDIA InfiniBand cluster bring-up procedure, Adaptive Routing): an `opensm.conf` fragment selecting `ar_updn` with adaptive
//! routing, and the root-switch list by name for the operator to resolve to GUIDs.

use minijinja::{Environment, Value};

use super::{RenderError, template};
use crate::intent::SubnetManager;
use crate::output::{OutputFile, OutputGroup};

pub fn render(env: &Environment<'_>, sm: &SubnetManager) -> Result<Vec<OutputFile>, RenderError> {
    let dir = format!("configs/subnet-manager-{}", sm.network.as_str());
    let who = format!("subnet-manager-{}", sm.network.as_str());
    let ctx = Value::from_serialize(sm);
    Ok(vec![
        OutputFile::new(
            OutputGroup::Configs,
            format!("{dir}/opensm.conf"),
            template(env, &who, "opensm/opensm.conf.j2", ctx.clone())?,
        ),
        OutputFile::new(
            OutputGroup::Configs,
            format!("{dir}/root-switches.txt"),
            template(env, &who, "opensm/root-switches.txt.j2", ctx)?,
        ),
    ])
}
