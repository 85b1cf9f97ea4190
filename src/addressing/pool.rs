//! Prefix arithmetic: a pool is cut into equal blocks, a block into equal subnets, and every cut
//! is addressed by an index computed from identity. No iteration order is involved anywhere.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use crate::diag::{Diagnostic, Diagnostics, Span, codes};
use crate::spec::Sp;

/// A parsed pool with the spec key it came from.
#[derive(Clone, Debug)]
pub struct Pool {
    pub net: IpNet,
    pub key: &'static str,
    pub span: Option<Span>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
}

impl Pool {
    /// Parse `value` as a prefix of the given family; a diagnostic on failure.
    pub fn parse(
        key: &'static str,
        value: &Sp<String>,
        family: Family,
        diags: &mut Diagnostics,
    ) -> Option<Pool> {
        let bad = |msg: String, help: &str| {
            Diagnostic::error(codes::BAD_POOL, msg)
                .at(value.span, "not a usable pool")
                .help(help.to_string())
        };
        let net: IpNet = match value.value.trim().parse() {
            Ok(n) => n,
            Err(_) => {
                diags.push(bad(
                    format!("`addressing.{key}` is `{}`, not a prefix", value.value),
                    "write a prefix in CIDR form, e.g. `10.0.0.0/16`",
                ));
                return None;
            }
        };
        if net.trunc() != net {
            diags.push(bad(
                format!("`addressing.{key}` is `{net}`, which has host bits set",),
                &format!("did you mean `{}`?", net.trunc()),
            ));
            return None;
        }
        let ok = matches!(
            (family, net),
            (Family::V4, IpNet::V4(_)) | (Family::V6, IpNet::V6(_))
        );
        if !ok {
            let want = if family == Family::V4 { "IPv4" } else { "IPv6" };
            diags.push(bad(
                format!("`addressing.{key}` must be an {want} prefix, got `{net}`"),
                "IPv6 pools go under the `_v6` keys",
            ));
            return None;
        }
        Some(Pool {
            net,
            key,
            span: value.span,
        })
    }

    /// Addresses in the pool.
    pub fn size(&self) -> u128 {
        1u128 << (self.bits() - u32::from(self.net.prefix_len()))
    }

    fn bits(&self) -> u32 {
        match self.net {
            IpNet::V4(_) => 32,
            IpNet::V6(_) => 128,
        }
    }

    fn base(&self) -> u128 {
        match self.net.network() {
            IpAddr::V4(a) => u128::from(u32::from(a)),
            IpAddr::V6(a) => u128::from(a),
        }
    }

    /// The address at `offset` from the pool's start, as a prefix of length `len`.
    /// The caller has checked capacity; `None` only if it did not.
    pub fn at(&self, offset: u128, len: u8) -> Option<IpNet> {
        if offset >= self.size() {
            return None;
        }
        let v = self.base() + offset;
        match self.net {
            IpNet::V4(_) => {
                let a = Ipv4Addr::from(u32::try_from(v).ok()?);
                Ipv4Net::new(a, len).ok().map(IpNet::V4)
            }
            IpNet::V6(_) => Ipv6Net::new(Ipv6Addr::from(v), len).ok().map(IpNet::V6),
        }
    }

    /// Prefix length of a block of `size` addresses (a power of two).
    pub fn len_for(&self, size: u128) -> u8 {
        let bits = self.bits() - size.trailing_zeros();
        u8::try_from(bits).unwrap_or(0)
    }

    /// Report if the pool holds fewer than `need` addresses: say how many and the smallest
    /// prefix that fits. Returns whether it fits.
    pub fn require(&self, need: u128, what: &str, diags: &mut Diagnostics) -> bool {
        if need <= self.size() {
            return true;
        }
        let fits = self.len_for(need.next_power_of_two());
        diags.push(
            Diagnostic::error(
                codes::POOL_TOO_SMALL,
                format!(
                    "`addressing.{}` ({}) holds {} addresses; {what} needs {need}",
                    self.key,
                    self.net,
                    self.size()
                ),
            )
            .at(self.span, "too small")
            .help(format!(
                "use a /{fits} or shorter prefix (blocks are placed by identity, so the highest \
                 identity decides the size)"
            )),
        );
        false
    }
}

/// Check every pair of pools for overlap; report each pair once, at the later one.
pub fn check_disjoint(pools: &[&Pool], diags: &mut Diagnostics) {
    for (i, a) in pools.iter().enumerate() {
        for b in &pools[i + 1..] {
            if a.net.contains(&b.net.network()) || b.net.contains(&a.net.network()) {
                diags.push(
                    Diagnostic::error(
                        codes::POOLS_OVERLAP,
                        format!(
                            "`addressing.{}` ({}) overlaps `addressing.{}` ({})",
                            b.key, b.net, a.key, a.net
                        ),
                    )
                    .at(b.span.or(a.span), "overlapping pool")
                    .help("give every pool its own range"),
                );
            }
        }
    }
}

/// The smallest power of two ≥ `n` (at least 1).
pub fn pow2(n: u128) -> u128 {
    n.max(1).next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(s: &str) -> Pool {
        Pool {
            net: s.parse().unwrap(),
            key: "test",
            span: None,
        }
    }

    #[test]
    fn offsets_and_lengths() {
        let p = pool("10.64.0.0/10");
        assert_eq!(p.size(), 1 << 22);
        assert_eq!(p.at(257, 31).unwrap().to_string(), "10.64.1.1/31");
        assert_eq!(p.len_for(256), 24);
        let v6 = pool("fd00::/48");
        assert_eq!(v6.at(3, 127).unwrap().to_string(), "fd00::3/127");
    }

    #[test]
    fn too_small_names_the_fitting_prefix() {
        let mut d = Diagnostics::default();
        assert!(!pool("10.0.0.0/24").require(1000, "x", &mut d));
        let msg = d.iter().next().unwrap().help.clone().unwrap();
        assert!(msg.starts_with("use a /22"), "{msg}");
    }

    #[test]
    fn overlap_found_once() {
        let (a, b, c) = (
            pool("10.0.0.0/8"),
            pool("10.1.0.0/16"),
            pool("192.168.0.0/16"),
        );
        let mut d = Diagnostics::default();
        check_disjoint(&[&a, &b, &c], &mut d);
        assert_eq!(d.iter().count(), 1);
    }
}
