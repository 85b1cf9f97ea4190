//! NVUE's canonical line form: the configuration tree (`startup.yaml`'s `set` maps, or what `nv
//! config show -o yaml` prints) as one line per leaf, keys joined by ` > ` (`push::tree`).

use std::collections::BTreeSet;

use crate::meaning::tree;

/// Parse YAML into a JSON value for order-insensitive comparison of maps.
fn yaml_value(text: &str) -> Option<serde_json::Value> {
    serde_saphyr::from_str::<serde_json::Value>(text).ok()
}

/// The canonical lines of an NVUE config (`startup.yaml` or `nv config show -o yaml`).
pub fn nvue_lines(text: &str) -> Option<BTreeSet<String>> {
    yaml_value(text).map(|v| tree::lines(&tree::nvue_config(&v)))
}
