//! Slurm hostlist expressions: `gpu[001-032]`, `gpu[001-016,018]`, `su[01-03]`.
//!
//! Slurm (`src/common/hostlist.c`) splits a name into a prefix and a trailing decimal number;
//! in `prefix[lo-hi]` every number is printed zero-padded to the width of `lo`'s digits. The
//! compressor here emits only expressions that expand back to exactly the input names, so a
//! name's padding survives (`gpu001` stays `gpu001`, never `gpu1`).

use std::collections::BTreeMap;

/// Longest digit run read as a number: 18 digits always fit in a `u64`; longer runs stay text.
const MAX_DIGITS: usize = 18;

/// A run of consecutive numbers under one prefix, printable with one zero-padding width.
struct Range {
    lo: u64,
    hi: u64,
    /// Widths every member can be printed with and still read back as itself (inclusive).
    widths: (usize, usize),
}

impl Range {
    fn text(&self) -> String {
        let w = self.widths.1;
        if self.lo == self.hi {
            format!("{:0w$}", self.lo)
        } else {
            format!("{:0w$}-{:0w$}", self.lo, self.hi)
        }
    }
}

/// Zero-padding widths that print `value` as exactly `digits`: a padded number (`007`) fixes the
/// width; an unpadded one (`7`, `100`) reads back the same at any width up to its own length.
fn widths(digits: &str) -> (usize, usize) {
    if digits.len() > 1 && digits.starts_with('0') {
        (digits.len(), digits.len())
    } else {
        (1, digits.len())
    }
}

/// Split `gpu001` into (`gpu`, `001`, 1); `None` when the name has no usable trailing number.
fn split(name: &str) -> Option<(&str, &str, u64)> {
    let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &name[prefix.len()..];
    if digits.is_empty() || digits.len() > MAX_DIGITS {
        return None;
    }
    digits.parse().ok().map(|v| (prefix, digits, v))
}

/// The shortest hostlist expression Slurm reads back as exactly `names` (duplicates dropped).
/// Deterministic: prefixes in byte order, numbers ascending, whatever the input order.
pub fn compress<S: AsRef<str>>(names: &[S]) -> String {
    // Prefix → (number, digits as written); names without a number are kept whole.
    let mut numbered: BTreeMap<&str, Vec<(u64, &str)>> = BTreeMap::new();
    let mut plain: Vec<&str> = Vec::new();
    for name in names {
        let name = name.as_ref();
        match split(name) {
            Some((prefix, digits, v)) => numbered.entry(prefix).or_default().push((v, digits)),
            None => plain.push(name),
        }
    }
    // Each term is (sort key, text); the key keeps plain names and prefixes in one order.
    let mut terms: Vec<(String, String)> = plain
        .into_iter()
        .map(|n| (n.to_string(), n.to_string()))
        .collect();
    for (prefix, mut nums) in numbered {
        nums.sort_unstable();
        nums.dedup();
        let mut ranges: Vec<Range> = Vec::new();
        for (v, digits) in nums {
            let (a, b) = widths(digits);
            if let Some(r) = ranges.last_mut() {
                let (lo, hi) = (r.widths.0.max(a), r.widths.1.min(b));
                if r.hi.checked_add(1) == Some(v) && lo <= hi {
                    r.hi = v;
                    r.widths = (lo, hi);
                    continue;
                }
            }
            ranges.push(Range {
                lo: v,
                hi: v,
                widths: (a, b),
            });
        }
        let text = match ranges.as_slice() {
            [r] if r.lo == r.hi => format!("{prefix}{}", r.text()),
            _ => {
                let inner: Vec<String> = ranges.iter().map(Range::text).collect();
                format!("{prefix}[{}]", inner.join(","))
            }
        };
        terms.push((prefix.to_string(), text));
    }
    terms.sort();
    terms.dedup();
    let texts: Vec<String> = terms.into_iter().map(|(_, t)| t).collect();
    texts.join(",")
}

/// Expand a hostlist expression (the subset `compress` writes: `p[a-b,c]` terms and plain
/// names, comma-separated). `None` on malformed input.
#[cfg(test)]
pub fn expand(expr: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = expr;
    while !rest.is_empty() {
        // A term ends at the first comma outside brackets.
        let end = match (rest.find('['), rest.find(',')) {
            (Some(b), Some(c)) if b < c => rest[b..].find(']').map(|e| b + e + 1)?,
            (Some(b), None) => rest[b..].find(']').map(|e| b + e + 1)?,
            (_, Some(c)) => c,
            (None, None) => rest.len(),
        };
        let term = &rest[..end];
        rest = rest[end..].strip_prefix(',').unwrap_or(&rest[end..]);
        let Some(open) = term.find('[') else {
            out.push(term.to_string());
            continue;
        };
        let prefix = &term[..open];
        let inner = term[open + 1..].strip_suffix(']')?;
        for part in inner.split(',') {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            let w = lo.len();
            let (lo, hi): (u64, u64) = (lo.parse().ok()?, hi.parse().ok()?);
            if lo > hi {
                return None;
            }
            out.extend((lo..=hi).map(|n| format!("{prefix}{n:0w$}")));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(prefix: &str, range: std::ops::RangeInclusive<u32>, w: usize) -> Vec<String> {
        range.map(|n| format!("{prefix}{n:0w$}")).collect()
    }

    /// `compress` then `expand` gives the input back as a set.
    fn round_trip(input: &[String]) -> String {
        let expr = compress(input);
        let mut back = expand(&expr).unwrap_or_else(|| panic!("`{expr}` does not expand"));
        let mut want = input.to_vec();
        back.sort();
        want.sort();
        want.dedup();
        assert_eq!(back, want, "`{expr}` does not expand to its input");
        expr
    }

    #[test]
    fn compresses_a_full_su() {
        assert_eq!(round_trip(&names("gpu", 1..=32, 3)), "gpu[001-032]");
    }

    #[test]
    fn keeps_gaps_as_separate_ranges() {
        let mut v = names("gpu", 1..=16, 3);
        v.push("gpu018".into());
        assert_eq!(round_trip(&v), "gpu[001-016,018]");
    }

    #[test]
    fn single_name_has_no_brackets() {
        assert_eq!(round_trip(&["gpu005".to_string()]), "gpu005");
        assert_eq!(round_trip(&["login".to_string()]), "login");
    }

    #[test]
    fn input_order_and_duplicates_do_not_matter() {
        let mut v = names("gpu", 1..=8, 3);
        v.reverse();
        v.push("gpu003".into());
        assert_eq!(round_trip(&v), "gpu[001-008]");
    }

    #[test]
    fn mixed_prefixes_are_grouped() {
        let mut v = names("su01-leaf", 1..=2, 2);
        v.extend(names("su02-leaf", 1..=2, 2));
        v.extend(names("dgx", 9..=11, 2));
        v.push("mgmt".into());
        assert_eq!(
            round_trip(&v),
            "dgx[09-11],mgmt,su01-leaf[01-02],su02-leaf[01-02]"
        );
    }

    #[test]
    fn padding_width_is_kept_across_a_decade() {
        assert_eq!(round_trip(&names("gpu", 98..=101, 3)), "gpu[098-101]");
        // Slurm reads `gpu[999-1000]` as gpu999, gpu1000: unpadded numbers merge across widths.
        assert_eq!(round_trip(&names("gpu", 999..=1000, 1)), "gpu[999-1000]");
        // A padded 4-digit name cannot share a range with a 3-digit one.
        let v = vec!["gpu999".to_string(), "gpu0998".to_string()];
        assert_eq!(round_trip(&v), "gpu[0998,999]");
    }

    #[test]
    fn differently_padded_equal_numbers_stay_distinct() {
        let v = vec!["n1".to_string(), "n01".to_string(), "n2".to_string()];
        let expr = round_trip(&v);
        assert_eq!(expr, "n[01,1-2]");
    }

    #[test]
    fn unpadded_numbers() {
        assert_eq!(round_trip(&names("node", 1..=12, 1)), "node[1-12]");
        assert_eq!(round_trip(&names("s", 0..=2, 1)), "s[0-2]");
    }

    #[test]
    fn huge_digit_runs_stay_text() {
        let long = format!("n{}", "9".repeat(25));
        assert_eq!(round_trip(std::slice::from_ref(&long)), long);
    }

    #[test]
    fn round_trips_many_shapes() {
        // A deterministic pseudo-random walk over sets of names (no RNG crate needed).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200 {
            let mut v = Vec::new();
            for _ in 0..(x % 40) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let prefix = ["gpu", "su1-n", "x"][(x % 3) as usize];
                let w = [1, 2, 3][((x >> 8) % 3) as usize];
                v.push(format!("{prefix}{:0w$}", (x >> 16) % 130));
            }
            x = x.wrapping_add(1);
            if !v.is_empty() {
                round_trip(&v);
            }
        }
    }

    #[test]
    fn expand_rejects_malformed() {
        assert!(expand("gpu[001-").is_none());
        assert!(expand("gpu[5-1]").is_none());
        assert!(expand("gpu[a-b]").is_none());
    }
}
