//! FRR (`frr.conf`, integrated vtysh config). Also the routing half of SONiC.

use minijinja::{Environment, Value};

use super::{RenderError, template};
use crate::intent::DeviceIntent;

pub fn render(
    env: &Environment<'_>,
    d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    let text = template(env, &d.hostname, "frr/main.j2", Value::from_serialize(d))?;
    Ok(vec![("frr.conf".into(), text)])
}
