//! Local checks of spec values that need no graph: ranges and consistency of the RoCE settings,
//! the BGP hardening options.

use super::types::ClusterSpec;
use super::yaml::Sp;
use crate::diag::Code;
use crate::diag::{Diagnostic, Diagnostics, codes};

fn range<T: Copy + PartialOrd + std::fmt::Display>(
    key: &str,
    v: &Sp<T>,
    lo: T,
    hi: T,
    diags: &mut Diagnostics,
) {
    if v.value < lo || v.value > hi {
        diags.push(
            Diagnostic::error(
                codes::BAD_QOS,
                format!("`roce.{key}` is {}, outside {lo}–{hi}", v.value),
            )
            .at(v.span, "out of range")
            .help(format!("use a value from {lo} to {hi}")),
        );
    }
}

/// The RoCE QoS values: ranges, distinct classes, ECN band, MTUs.
pub fn roce(spec: &ClusterSpec, diags: &mut Diagnostics) {
    let r = &spec.roce;
    range("dscp", &r.dscp, 0, 63, diags);
    range("cnp_dscp", &r.cnp_dscp, 0, 63, diags);
    range("priority", &r.priority, 0, 7, diags);
    range("cnp_priority", &r.cnp_priority, 0, 7, diags);
    range("ecn_probability", &r.ecn_probability, 1, 100, diags);
    range("roce_weight", &r.roce_weight, 1, 99, diags);
    range("mtu", &r.mtu, 1500, 9216, diags);
    range("host_mtu", &r.host_mtu, 1280, 9216, diags);
    range(
        "pfc_watchdog_detection_ms",
        &r.pfc_watchdog_detection_ms,
        100,
        5000,
        diags,
    );
    range(
        "pfc_watchdog_restoration_ms",
        &r.pfc_watchdog_restoration_ms,
        100,
        60000,
        diags,
    );
    let clash = |what: &str, span, help: &str| {
        Diagnostic::error(codes::BAD_QOS, what.to_string())
            .at(span, "clashes")
            .help(help.to_string())
    };
    if r.dscp.value == r.cnp_dscp.value {
        diags.push(clash(
            "RoCE data and CNPs share a DSCP; CNPs must bypass the data queue",
            r.cnp_dscp.span.or(r.dscp.span),
            "the usual values are 26 for RoCE and 48 for CNP",
        ));
    }
    if r.priority.value == r.cnp_priority.value || r.priority.value == 0 {
        diags.push(clash(
            "the RoCE priority must differ from the CNP priority and from the default priority 0",
            r.priority.span.or(r.cnp_priority.span),
            "the usual values are 3 for RoCE and 6 for CNP",
        ));
    }
    if r.ecn_min_bytes.value >= r.ecn_max_bytes.value {
        diags.push(clash(
            "`roce.ecn_min_bytes` must be below `roce.ecn_max_bytes`",
            r.ecn_min_bytes.span,
            "NVIDIA's default band is 150000–1500000 bytes",
        ));
    }
    if r.host_mtu.value > r.mtu.value {
        diags.push(clash(
            "`roce.host_mtu` exceeds the switch MTU `roce.mtu`; frames would be dropped",
            r.host_mtu.span.or(r.mtu.span),
            "hosts usually run 9000 under a 9216 switch MTU",
        ));
    }
}

/// The BGP hardening options: the password's variable name, the maximum-prefix numbers.
pub fn bgp(spec: &ClusterSpec, diags: &mut Diagnostics) {
    let b = &spec.bgp;
    // `auth_env` is an `EnvName` (spec::grammar reports one that is not).
    let m = &b.max_prefix;
    for (key, v, lo, hi) in [
        ("margin_percent", &m.margin_percent, 0, 1000),
        ("restart_minutes", &m.restart_minutes, 1, 65535),
    ] {
        if v.value < lo || v.value > hi {
            diags.push(
                Diagnostic::error(
                    codes::BAD_BGP_OPTION,
                    format!("`bgp.max_prefix.{key}` is {}, outside {lo}–{hi}", v.value),
                )
                .at(v.span, "out of range")
                .help(format!("use a value from {lo} to {hi}")),
            );
        }
    }
}

/// The physical-layer policy: lengths positive and finite, spares a percentage.
pub fn physical(spec: &ClusterSpec, diags: &mut Diagnostics) {
    let p = &spec.physical;
    let checks = [
        ("copper_max_m", &p.copper_max_m, 0.0, 10_000.0),
        (
            "singlemode_beyond_m",
            &p.singlemode_beyond_m,
            0.0,
            100_000.0,
        ),
        ("spares_percent", &p.spares_percent, 0.0, 100.0),
    ];
    let aoc = p
        .aoc_max_m
        .as_ref()
        .map(|v| ("aoc_max_m", v, 0.0, 10_000.0));
    for (key, v, lo, hi) in checks.into_iter().chain(aoc) {
        if !(v.value.is_finite() && v.value >= lo && v.value <= hi) {
            diags.push(
                Diagnostic::error(
                    codes::PHYSICAL_POLICY,
                    format!("`physical.{key}` is {}, outside {lo}–{hi}", v.value),
                )
                .at(v.span, "out of range")
                .help(format!("use a value from {lo} to {hi}")),
            );
        }
    }
    if let Some(t) = spec.racks.as_ref().and_then(|r| r.tray_height_m.as_ref())
        && !(t.value.is_finite() && (0.0..=20.0).contains(&t.value))
    {
        diags.push(
            Diagnostic::error(
                codes::PHYSICAL_POLICY,
                format!("`racks.tray_height_m` is {}, outside 0–20", t.value),
            )
            .at(t.span, "out of range")
            .help("the tray's height above the floor in metres, e.g. 2.6"),
        );
    }
    patch_panels(spec, diags);
}

/// NVIDIA's optics reaches "assume two optical connector junctions or patch panels in the link,
/// a total of 4 ferule-to ferule connections" (NVIDIA cabling requirements,
/// https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth): a link through more
/// panels has more loss than any of its reaches allows for. Copper cannot pass a panel, so every
/// link of a tier with panels is optical.
fn patch_panels(spec: &ClusterSpec, diags: &mut Diagnostics) {
    for (key, v) in spec.physical.patch_panels.all() {
        if v.value > 2 {
            diags.push(
                Diagnostic::error(
                    codes::TOO_MANY_PATCH_PANELS,
                    format!(
                        "`physical.patch_panels.{key}` is {}: NVIDIA's optics reaches assume at \
                         most two patch panels in a link (4 ferrule-to-ferrule connections)",
                        v.value
                    ),
                )
                .at(v.span, "more panels than any optic's reach allows for")
                .help(
                    "cross-connect at most twice between the two devices (0, 1 or 2), or \
                     add a part whose vendor states a reach with more connections",
                ),
            );
        }
    }
}

/// `diagnostics.allow`: every entry a known code. Returns the codes.
pub fn allowed_codes(spec: &ClusterSpec, diags: &mut Diagnostics) -> Vec<Code> {
    let mut codes = Vec::new();
    for entry in &spec.diagnostics.allow {
        match Code::find(entry.value.trim()) {
            Some(code) => codes.push(code),
            None => diags.push(
                Diagnostic::error(
                    codes::INVALID_VALUE,
                    format!(
                        "`diagnostics.allow` names `{}`, which is no diagnostic code",
                        entry.value
                    ),
                )
                .at(entry.span, "not a code")
                .help("use a code such as RY0501; `railyard explain` lists them all"),
            ),
        }
    }
    codes
}
