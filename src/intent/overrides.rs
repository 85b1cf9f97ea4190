//! Per-device overrides from the spec, applied last to one device's intent only (its peers keep
//! the planned values), so an override can deliberately break a session; the checks that run
//! afterwards report what it breaks.

use std::collections::BTreeMap;

use ipnet::IpNet;

use super::device::DeviceIntent;
use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::spec::ClusterSpec;

pub fn apply(
    spec: &ClusterSpec,
    devs: &mut BTreeMap<String, DeviceIntent>,
    diags: &mut Diagnostics,
) {
    for (name, o) in &spec.overrides {
        let span = o
            .asn
            .as_ref()
            .and_then(|a| a.span)
            .or(o.loopback.as_ref().and_then(|l| l.span));
        let Some(d) = devs.get_mut(name.as_str()) else {
            diags.push(
                Diagnostic::error(
                    codes::UNKNOWN_OVERRIDE,
                    format!("`overrides` names `{name}`, which is not a configured switch"),
                )
                .at(span, "unknown device")
                .help("use a switch name from the cabling plan (nodes and OOB switches take no overrides)"),
            );
            continue;
        };
        if let Some(asn) = &o.asn {
            if asn.value == 0 || asn.value > 4_294_967_294 {
                diags.push(
                    Diagnostic::error(
                        codes::UNKNOWN_OVERRIDE,
                        format!("ASN {} is not usable", asn.value),
                    )
                    .at(asn.span, "bad ASN")
                    .help("ASNs run from 1 to 4294967294"),
                );
            } else if let Some(b) = d.bgp.as_mut() {
                b.asn = asn.value;
            }
        }
        if let Some(lo) = &o.loopback {
            match lo.value.parse::<IpNet>() {
                Ok(IpNet::V4(n)) if n.prefix_len() == 32 => {
                    d.loopback.ipv4 = Some(IpNet::V4(n));
                    if let Some(b) = d.bgp.as_mut() {
                        b.router_id = n.addr();
                        if let Some(r) = b.redistribute.first_mut() {
                            r.prefix = IpNet::V4(n);
                        }
                    }
                }
                _ => diags.push(
                    Diagnostic::error(
                        codes::UNKNOWN_OVERRIDE,
                        format!("loopback `{}` is not an IPv4 /32", lo.value),
                    )
                    .at(lo.span, "bad loopback")
                    .help("write it like `10.0.0.99/32`"),
                ),
            }
        }
    }
}
