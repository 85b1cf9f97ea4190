//! The spec's catalog overlay: the input is the body of a spec's `catalog:` key (switch and node
//! models that add to or replace the built-in ones), placed under a fixed small cluster that uses
//! the names `lab-gpu-2rail` (a node model only an overlay defines) and `sn4600c` (a built-in
//! switch an overlay may replace). Everything then goes through the same checks as the `spec`
//! target, so the mutations are spent on model validation, port groups, breakouts, NIC lists and
//! PCIe layouts instead of on the rest of the spec.

/// The cluster around the overlay (lab-small.yaml without its catalog).
pub const BASE: &str = "name: fuzz-catalog
site: lab
scalable_units: {count: 1, nodes_per_su: 4, node_model: lab-gpu-2rail}
compute:
  leaf: {model: sn4600c, rails_per_leaf: 1}
  spine: {model: sn4600c, count: 2}
inband: {leaf: {model: sn4600c}}
catalog:
";

pub fn run(data: &[u8]) {
    super::spec::check(&spec_text(&String::from_utf8_lossy(data)));
}

/// [`BASE`] with `overlay` indented under its `catalog:` key.
pub fn spec_text(overlay: &str) -> String {
    let mut text = String::from(BASE);
    for line in overlay.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}
