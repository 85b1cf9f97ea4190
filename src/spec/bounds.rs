//! Bounds on every count, index and length a spec's catalog entries and its `racks:`,
//! `cabling:` and `physical:` sections give, checked on the spanned tree before the typed parse:
//! each value outside its bound is a located error (`RY0007`), all at once, and the typed parse
//! never sees it. Later stages allocate per cage, per port and per lane from these numbers
//! (a switch's cage table, the solver's slots, the port maps) and add them (`first + count`,
//! `first + i / lanes`): without a bound a catalog entry of `count: 20000000` grows a build past
//! 6.8 GB, and `first: 1, count: 4294967295` wraps a 32-bit cage number into silently wrong
//! cabling (issue 38). Within these bounds no sum or product of them overflows a `u32`.
//!
//! The bounds come from the largest real devices, with headroom, so no real catalog entry meets
//! them:
//! - cages: the largest fixed switches have 64 OSFP cages (NVIDIA SN5600, Spectrum-4; NVIDIA
//!   QM9700 has 32 cages for 64 NDR ports) or 72 (Quantum-X800 Q3400, 144 ports of 800G); the
//!   largest modular chassis 576 ports (Arista 7816R3: 16 line cards of 36 x 400G). 4,096 cages
//!   per switch, and cage numbers up to 4,096, leave room above all of them (seven times the
//!   chassis; an OOB model of 4,096 1G ports is how `tests/diagnostics/127-oob-vlans-exhausted.yaml`
//!   exhausts the OOB VLANs).
//! - ports per cage: an OSFP cage carries 8 electrical lanes, at most 8 ports (8x100G); OSFP-XD
//!   carries 16. A breakout of at most 16 ports, lanes per cage or plug at most 16: at most
//!   65,536 logical ports per switch (the SN5600's 64 cages x 8 = 512 is the largest real one).
//! - a module has at most 2 optical ports (twin-port OSFP); 4 allowed. A fibre has at most 8
//!   legs (MPO-16 to 8 x duplex LC); 16 allowed. An assembly end at most 8 plugs (1:8 breakout
//!   DAC); 16 allowed.
//! - a node: 72 GPUs in one NVLink domain (GB200 NVL72) is the most; 1,024 allowed. Rack units:
//!   a 48U rack is the tallest; 64 allowed. NUMA nodes and PCIe link width: 8 sockets and x16
//!   links at most; 64 allowed.
//! - lengths and reaches: single-mode optics reach 80-120 km (ZR); 1,000 km allowed and finite,
//!   never negative. Power: the largest module draws under 30 W; 10 kW allowed.
//! - racks: 1,000 nodes per rack (a rack holds at most 72 GPU trays); widths, pitches and slack
//!   finite and up to 1,000 km like every length (a test spaces rows 3 km apart to see reach
//!   refused).

use super::yaml::{Node, Sp};
use crate::diag::{Diagnostic, Diagnostics, Span, codes};

/// A number's allowed range, inclusive.
#[derive(Clone, Copy, Debug)]
enum Bound {
    Int(u64, u64),
    Real(f64, f64),
}

/// The most cages (front-panel numbers) a switch model has, and the highest cage number.
pub const MAX_CAGES: u64 = 4_096;
/// The most logical ports one cage breaks out into, and the most electrical lanes it has.
pub const MAX_PORTS_PER_CAGE: u64 = 16;
/// The most logical ports of one switch model: every cage split the most.
pub const MAX_PORTS_PER_SWITCH: u64 = MAX_CAGES * MAX_PORTS_PER_CAGE;

const LANES: Bound = Bound::Int(0, MAX_PORTS_PER_CAGE);
const METRES: Bound = Bound::Real(0.0, 1_000_000.0);
const WATTS: Bound = Bound::Real(0.0, 10_000.0);

/// (path, bound) of every number the table checks; paths as in `grammar.rs` (`*` any list item
/// or map entry's value).
const RULES: &[(&str, Bound)] = &[
    ("catalog.switches.*.ru", Bound::Int(0, 64)),
    (
        "catalog.switches.*.port_groups.*.first",
        Bound::Int(0, MAX_CAGES),
    ),
    (
        "catalog.switches.*.port_groups.*.count",
        Bound::Int(0, MAX_CAGES),
    ),
    ("catalog.switches.*.port_groups.*.lanes", LANES),
    ("catalog.nodes.*.gpus", Bound::Int(0, 1_024)),
    ("catalog.nodes.*.ru", Bound::Int(0, 64)),
    ("catalog.nodes.*.compute.*.numa", Bound::Int(0, 64)),
    ("catalog.nodes.*.compute.*.lanes", LANES),
    ("catalog.nodes.*.storage.*.numa", Bound::Int(0, 64)),
    ("catalog.nodes.*.storage.*.lanes", LANES),
    ("catalog.nodes.*.inband.*.numa", Bound::Int(0, 64)),
    ("catalog.nodes.*.inband.*.lanes", LANES),
    ("catalog.nodes.*.bmc.numa", Bound::Int(0, 64)),
    ("catalog.nodes.*.bmc.lanes", LANES),
    ("catalog.nodes.*.pcie.gpu_sm", Bound::Int(0, 1_000)),
    ("catalog.nodes.*.pcie.link_width", Bound::Int(0, 64)),
    ("catalog.modules.*.ports", Bound::Int(0, 4)),
    ("catalog.modules.*.lanes", LANES),
    ("catalog.modules.*.min_lanes", LANES),
    ("catalog.modules.*.reach_m", METRES),
    ("catalog.modules.*.power_w", WATTS),
    ("catalog.assemblies.*.a.lanes", LANES),
    ("catalog.assemblies.*.a.count", Bound::Int(0, 16)),
    ("catalog.assemblies.*.b.lanes", LANES),
    ("catalog.assemblies.*.b.count", Bound::Int(0, 16)),
    ("catalog.assemblies.*.power_w", WATTS),
    ("catalog.assemblies.*.max_m", METRES),
    ("catalog.assemblies.*.lengths.*.m", METRES),
    ("catalog.fibres.*.legs", Bound::Int(0, 16)),
    ("catalog.fibres.*.lanes_per_leg", LANES),
    ("catalog.fibres.*.max_m", METRES),
    ("catalog.fibres.*.lengths.*.m", METRES),
    ("catalog.adapters.*.power_w", WATTS),
    ("racks.nodes_per_rack", Bound::Int(0, 1_000)),
    ("racks.rack_width_m", METRES),
    ("racks.row_pitch_m", METRES),
    ("racks.slack_m", METRES),
    ("racks.in_rack_m", METRES),
    ("cabling.node_leaf_m", METRES),
    ("cabling.leaf_spine_m", METRES),
    ("cabling.spine_core_m", METRES),
    ("cabling.mgmt_m", METRES),
];

/// The scalars of `tree` at `path`, with their spans.
fn scalars<'a>(tree: &'a Sp<Node>, path: &[&str], out: &mut Vec<(&'a str, Option<Span>)>) {
    let Some((first, rest)) = path.split_first() else {
        if let Node::Scalar(Some(text)) = &tree.value {
            out.push((text, tree.span));
        }
        return;
    };
    match (&tree.value, *first) {
        (Node::Map(entries), "*") => entries.iter().for_each(|(_, v)| scalars(v, rest, out)),
        (Node::Seq(items), "*") => items.iter().for_each(|v| scalars(v, rest, out)),
        (Node::Map(entries), key) => {
            if let Some((_, v)) = entries.iter().find(|(k, _)| k.value == key) {
                scalars(v, rest, out);
            }
        }
        _ => {}
    }
}

/// The child of a map node at `key`.
fn child<'a>(tree: &'a Sp<Node>, key: &str) -> Option<&'a Sp<Node>> {
    match &tree.value {
        Node::Map(entries) => entries.iter().find(|(k, _)| k.value == key).map(|(_, v)| v),
        _ => None,
    }
}

/// A scalar as an integer, when it is one (anything else is the typed parse's to report).
fn int(node: Option<&Sp<Node>>) -> Option<u64> {
    match &node?.value {
        Node::Scalar(Some(t)) => t.trim().parse().ok(),
        _ => None,
    }
}

fn out_of_bounds(path: &str, text: &str, span: Option<Span>, range: String) -> Diagnostic {
    Diagnostic::error(
        codes::VALUE_OUT_OF_BOUNDS,
        format!("`{path}` is {text}, outside {range}"),
    )
    .at(span, "outside what any real device has")
    .help(format!(
        "use a value within {range} (the bounds and the devices they come from: src/spec/bounds.rs)"
    ))
}

/// Every number of the table outside its bound; every port group whose last cage passes
/// [`MAX_CAGES`]; every breakout of more than [`MAX_PORTS_PER_CAGE`] ports; every switch model
/// with more than [`MAX_CAGES`] cages or [`MAX_PORTS_PER_SWITCH`] logical ports.
pub fn check(tree: &Sp<Node>, diags: &mut Diagnostics) {
    for (path, bound) in RULES {
        let segments: Vec<&str> = path.split('.').collect();
        let mut found = Vec::new();
        scalars(tree, &segments, &mut found);
        for (text, span) in found {
            let t = text.trim();
            let (inside, range) = match *bound {
                Bound::Int(lo, hi) => (
                    t.parse::<u64>().map_or(true, |v| (lo..=hi).contains(&v))
                        && !t.starts_with('-'),
                    format!("{lo}–{hi}"),
                ),
                Bound::Real(lo, hi) => (
                    t.parse::<f64>()
                        .map_or(!is_special_real(t), |v| v.is_finite() && v >= lo && v <= hi),
                    format!("{lo}–{hi}"),
                ),
            };
            if !inside {
                diags.push(out_of_bounds(path, t, span, range));
            }
        }
    }
    if let Some(switches) = child(tree, "catalog").and_then(|c| child(c, "switches"))
        && let Node::Map(models) = &switches.value
    {
        for (name, model) in models {
            switch_totals(&name.value, name.span, model, diags);
        }
    }
}

/// YAML's spellings of infinity and not-a-number, which Rust's float parse does not take.
fn is_special_real(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    matches!(
        l.trim_start_matches(['+', '-']),
        ".inf" | ".nan" | "inf" | "nan" | "infinity"
    )
}

/// One switch model's port groups together: each group's last cage within [`MAX_CAGES`]
/// (`first + count - 1`, computed in `u64`: no wrap), each breakout within
/// [`MAX_PORTS_PER_CAGE`], and the model's cages and logical ports within their bounds.
fn switch_totals(name: &str, at: Option<Span>, model: &Sp<Node>, diags: &mut Diagnostics) {
    let Some(Node::Seq(groups)) = child(model, "port_groups").map(|g| &g.value) else {
        return;
    };
    let (mut cages, mut ports) = (0u64, 0u64);
    // A group already refused by the table is not summed again: its own error says it.
    let mut refused = false;
    for g in groups {
        let first = int(child(g, "first")).unwrap_or(0);
        let count = int(child(g, "count")).unwrap_or(0);
        refused |= first > MAX_CAGES || count > MAX_CAGES;
        let last = first.saturating_add(count).saturating_sub(1);
        if count > 0 && last > MAX_CAGES && first <= MAX_CAGES && count <= MAX_CAGES {
            diags.push(out_of_bounds(
                &format!("catalog.switches.{name}.port_groups.*.first + count - 1"),
                &last.to_string(),
                child(g, "count").and_then(|c| c.span),
                format!("0–{MAX_CAGES} (the last cage's number)"),
            ));
        }
        let mut split = 1u64;
        if let Some(Node::Seq(modes)) = child(g, "breakouts").map(|b| &b.value) {
            for m in modes {
                let Node::Scalar(Some(t)) = &m.value else {
                    continue;
                };
                let Some(n) = t.split_once('x').and_then(|(n, _)| n.parse::<u64>().ok()) else {
                    continue;
                };
                if n == 0 || n > MAX_PORTS_PER_CAGE {
                    diags.push(out_of_bounds(
                        &format!("catalog.switches.{name}.port_groups.*.breakouts.*"),
                        t,
                        m.span,
                        format!("1–{MAX_PORTS_PER_CAGE} ports per cage"),
                    ));
                }
                split = split.max(n.min(MAX_PORTS_PER_CAGE));
            }
        }
        let count = count.min(MAX_CAGES);
        cages = cages.saturating_add(count);
        ports = ports.saturating_add(count.saturating_mul(split));
    }
    if !refused && (cages > MAX_CAGES || ports > MAX_PORTS_PER_SWITCH) {
        diags.push(out_of_bounds(
            &format!("catalog.switches.{name}"),
            &format!("{cages} cages, {ports} logical ports"),
            at,
            format!("{MAX_CAGES} cages and {MAX_PORTS_PER_SWITCH} logical ports per switch"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::yaml::parse_tree;

    /// `path` (`*` as a map entry `x`) holding `value`, as a YAML document.
    fn at(path: &str, value: &str) -> String {
        let mut text = String::new();
        for (depth, seg) in path.split('.').enumerate() {
            let key = if seg == "*" { "x" } else { seg };
            text.push_str(&"  ".repeat(depth));
            text.push_str(key);
            text.push(':');
            text.push(if depth + 1 == path.split('.').count() {
                ' '
            } else {
                '\n'
            });
        }
        text.push_str(value);
        text.push('\n');
        text
    }

    fn codes_of(text: &str) -> Vec<(String, Option<Span>)> {
        let tree = parse_tree(text).expect("YAML");
        let mut d = Diagnostics::default();
        check(&tree, &mut d);
        d.iter().map(|x| (x.code.id.to_string(), x.span)).collect()
    }

    /// Every field of the table at its maximum is accepted, and just past it refused with
    /// `RY0007` located at the value (reals also: infinity and not-a-number, and below zero).
    #[test]
    fn every_field_at_its_maximum_and_just_past_it() {
        for (path, bound) in RULES {
            let (max, past): (String, Vec<String>) = match *bound {
                Bound::Int(_, hi) => (hi.to_string(), vec![(hi + 1).to_string(), "-1".into()]),
                Bound::Real(_, hi) => (
                    format!("{hi:?}"),
                    vec![
                        format!("{:?}", hi * (1.0 + 1e-9)),
                        "inf".into(),
                        "NaN".into(),
                        "-0.5".into(),
                    ],
                ),
            };
            let ok = at(path, &max);
            assert!(codes_of(&ok).is_empty(), "{path} = {max}: refused");
            for v in past {
                let text = at(path, &v);
                let found = codes_of(&text);
                assert_eq!(found.len(), 1, "{path} = {v}: {found:?}");
                assert_eq!(found[0].0, "RY0007", "{path} = {v}");
                let span = found[0].1.expect("located");
                let (start, len) = (span.start as usize, span.len as usize);
                assert_eq!(text[start..start + len].trim(), v, "{path}");
            }
        }
    }

    /// A port group whose last cage passes the bound (`first + count - 1`, no wrap at 2^32),
    /// a breakout past 16 ports, and a model past 4,096 cages or 65,536 ports: refused; at the
    /// bounds, accepted.
    #[test]
    fn port_groups_together_within_the_bounds() {
        let model =
            |groups: &str| format!("catalog:\n  switches:\n    big:\n      port_groups:\n{groups}");
        let group = |first: u64, count: u64, split: u64| {
            format!(
                "        - {{first: {first}, count: {count}, breakouts: [1x800G, {split}x100G]}}\n"
            )
        };
        assert!(codes_of(&model(&group(1, 4096, 16))).is_empty());
        assert!(codes_of(&model(&(group(1, 2048, 16) + &group(2049, 2048, 16)))).is_empty());
        for bad in [
            group(1, 4097, 8),
            group(2, 4096, 8),
            group(1, 4_294_967_295, 8),
            group(1, 64, 17),
            group(1, 4096, 8) + &group(1, 1, 8),
        ] {
            let found = codes_of(&model(&bad));
            assert!(
                !found.is_empty() && found.iter().all(|(c, s)| c == "RY0007" && s.is_some()),
                "{bad}: {found:?}"
            );
        }
    }
    /// The bounds are above every built-in catalog entry (real devices): the largest built-in
    /// switch's cages and ports, and its groups' last cages.
    #[test]
    fn every_built_in_model_is_within_the_bounds() {
        let c = crate::catalog::builtin();
        for (name, m) in &c.switches {
            let cages: u64 = m.port_groups.iter().map(|g| u64::from(g.count)).sum();
            assert!(cages <= super::MAX_CAGES, "{name}: {cages} cages");
            for g in &m.port_groups {
                assert!(u64::from(g.first) + u64::from(g.count) - 1 <= super::MAX_CAGES);
                assert!(u64::from(g.lanes.unwrap_or(8)) <= super::MAX_PORTS_PER_CAGE);
            }
        }
    }
}
