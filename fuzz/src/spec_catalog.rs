//! The spec's catalog overlay: the input is the body of a spec's `catalog:` key (switch and node
//! models that add to or replace the built-in ones), placed under a fixed small cluster that uses
//! the names `lab-gpu-2rail` (a node model only an overlay defines) and `sn4600c` (a built-in
//! switch an overlay may replace). Everything then goes through the same checks as the `spec`
//! target, so the mutations are spent on model validation, port groups, breakouts, NIC lists and
//! PCIe layouts instead of on the rest of the spec.
//!
//! Besides the `spec` target's invariants: every catalog number a spec that parsed holds is within
//! its bound (`railyard::spec::bounds`: cage numbers and cages per switch up to `MAX_CAGES`,
//! ports per cage and lanes up to `MAX_PORTS_PER_CAGE`, lengths finite), so nothing past the
//! spec boundary allocates or adds beyond them (issue 38). The committed corpus holds the
//! numeric extremes (`bounds-*`: each field at its bound and past it, wrapping sums, `inf`).

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
    let text = spec_text(&String::from_utf8_lossy(data));
    within_bounds(&text);
    super::spec::check(&text);
}

/// A spec that parses holds only catalog numbers within their bounds.
fn within_bounds(text: &str) {
    use railyard::spec::bounds::{MAX_CAGES, MAX_PORTS_PER_CAGE};
    let src = railyard::diag::SourceFile::new("fuzz.yaml", text);
    let mut diags = railyard::diag::Diagnostics::default();
    let Some(spec) = railyard::spec::parse(&src, &mut diags) else {
        return;
    };
    let catalog = &spec.catalog;
    for (name, m) in &catalog.switches {
        let mut cages = 0u64;
        for g in &m.port_groups {
            let (first, count) = (u64::from(g.first), u64::from(g.count));
            assert!(
                count == 0 || first + count - 1 <= MAX_CAGES,
                "{name}: cages {first}+{count} accepted past {MAX_CAGES}"
            );
            assert!(g.lanes.is_none_or(|l| u64::from(l) <= MAX_PORTS_PER_CAGE));
            cages += count;
        }
        assert!(cages <= MAX_CAGES, "{name}: {cages} cages accepted");
    }
    for (name, m) in &catalog.modules {
        assert!(
            u64::from(m.lanes) <= MAX_PORTS_PER_CAGE,
            "{name}: {} lanes",
            m.lanes
        );
        assert!(
            m.reach_m.is_none_or(f64::is_finite),
            "{name}: reach {:?}",
            m.reach_m
        );
    }
    for (name, a) in &catalog.assemblies {
        for l in &a.lengths {
            assert!(l.m.is_finite() && l.m >= 0.0, "{name}: length {}", l.m);
        }
    }
    for (name, f) in &catalog.fibres {
        assert!(f.max_m.is_finite(), "{name}: max_m {}", f.max_m);
        assert!(u64::from(f.legs) <= 16 && u64::from(f.lanes_per_leg) <= MAX_PORTS_PER_CAGE);
    }
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
