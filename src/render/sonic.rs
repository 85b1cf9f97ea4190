//! Placeholder: the sonic renderer lands in its own commit.

use minijinja::Environment;

use super::RenderError;
use crate::intent::DeviceIntent;

pub fn render(
    _env: &Environment<'_>,
    _d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    Ok(Vec::new())
}
