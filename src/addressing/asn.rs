//! ASNs per RFC 7938 §5.2: one per leaf, one per spine group (per plane), one for all cores;
//! private ranges of RFC 6996. Each network (compute, storage, in-band) is its own BGP domain.

use crate::diag::{Diagnostic, Diagnostics, codes};
use crate::model::{Network, Role};
use crate::spec::{AsnScheme, ClusterSpec};

pub const PRIVATE_2BYTE: (u64, u64) = (64_512, 65_534);
pub const PRIVATE_4BYTE: (u64, u64) = (4_200_000_000, 4_294_967_294);

/// Where the tiers sit inside the scheme's range.
#[derive(Clone, Copy, Debug)]
pub struct AsnPlan {
    scheme: AsnScheme,
    reuse: bool,
    span: Option<crate::diag::Span>,
}

/// A switch's ASN inputs: its network, role and ordinals.
pub struct AsnKey {
    pub network: Network,
    pub role: Role,
    pub ordinal: u64,
    pub ordinal_in_su: u64,
    pub spine_group: u64,
}

impl AsnPlan {
    pub fn new(spec: &ClusterSpec) -> Self {
        Self {
            scheme: spec.bgp.asn_scheme.value,
            reuse: spec.bgp.reuse_leaf_asns.value,
            span: spec.bgp.asn_scheme.span.or(spec.bgp.reuse_leaf_asns.span),
        }
    }

    pub fn reuses_leaf_asns(&self) -> bool {
        self.reuse
    }

    /// (first spine-group ASN, spine-group slots, first leaf ASN, last usable ASN, core ASN).
    fn layout(&self, network: Network) -> (u64, u64, u64, u64, u64) {
        match self.scheme {
            AsnScheme::Private4Byte => {
                let base = PRIVATE_4BYTE.0
                    + match network {
                        Network::Compute => 0,
                        Network::Storage => 10_000_000,
                        Network::Inband => 20_000_000,
                        Network::Oob => 30_000_000,
                    };
                let last = match network {
                    Network::Compute => PRIVATE_4BYTE.1,
                    _ => base + 9_999_999,
                };
                (base + 1, 999, base + 1000, last, base)
            }
            // 2-byte: cores 64512, spine groups 64513-64575, leaves 64576-65534.
            AsnScheme::Private2Byte => (64_513, 63, 64_576, PRIVATE_2BYTE.1, PRIVATE_2BYTE.0),
        }
    }

    /// The ASN of a switch, or `Err(needed_slots)` when the range is exhausted.
    pub fn asn(&self, k: &AsnKey) -> Result<u64, (&'static str, u64, u64)> {
        let (spine0, spine_slots, leaf0, last, core) = self.layout(k.network);
        match k.role {
            Role::Core | Role::StorageCore | Role::InbandCore => Ok(core),
            Role::Spine | Role::StorageSpine | Role::InbandSpine => {
                let g = k.spine_group;
                if g < spine_slots {
                    Ok(spine0 + g)
                } else {
                    Err(("spine groups", g + 1, spine_slots))
                }
            }
            _ => {
                let o = if self.reuse && k.role == Role::Leaf {
                    k.ordinal_in_su
                } else {
                    k.ordinal
                };
                let slots = last - leaf0 + 1;
                if o < slots {
                    Ok(leaf0 + o)
                } else {
                    Err(("leaves", o + 1, slots))
                }
            }
        }
    }

    pub fn exhausted(&self, what: &str, need: u64, have: u64) -> Diagnostic {
        let scheme = match self.scheme {
            AsnScheme::Private4Byte => "private-4byte",
            AsnScheme::Private2Byte => "private-2byte",
        };
        Diagnostic::error(
            codes::ASN_EXHAUSTED,
            format!("the `{scheme}` ASN plan has room for {have} {what}; the fabric needs {need}"),
        )
        .at(self.span, "ASN plan")
        .help(match self.scheme {
            AsnScheme::Private2Byte => {
                "set `bgp.asn_scheme: private-4byte`, or `bgp.reuse_leaf_asns: true` to reuse leaf ASNs per SU"
            }
            AsnScheme::Private4Byte => "set `bgp.reuse_leaf_asns: true` to reuse leaf ASNs per SU",
        })
    }
}

/// External peers must use a valid ASN that no fabric switch has.
pub fn check_external(spec: &ClusterSpec, fabric_asns: &[u64], diags: &mut Diagnostics) {
    for peer in &spec.bgp.external_peers {
        let asn = peer.asn.value;
        if asn == 0 || asn == 23_456 || asn > 4_294_967_294 {
            diags.push(
                Diagnostic::error(
                    codes::ASN_COLLISION,
                    format!(
                        "external peer `{}` has ASN {asn}, which is not usable",
                        peer.name
                    ),
                )
                .at(peer.asn.span, "reserved or out of range")
                .help("ASNs run from 1 to 4294967294, excluding 23456 (AS_TRANS)"),
            );
        } else if fabric_asns.binary_search(&asn).is_ok() {
            diags.push(
                Diagnostic::error(
                    codes::ASN_COLLISION,
                    format!(
                        "external peer `{}` uses ASN {asn}, which railyard gives to a fabric switch",
                        peer.name
                    ),
                )
                .at(peer.asn.span, "collides with the fabric's ASN plan")
                .help("pick an ASN outside the fabric's plan (`railyard build` lists them in intent/*.yaml)"),
            );
        }
    }
}
