//! The natural order of names: `gpu2` before `gpu10`, `Ethernet8` before `Ethernet16`, `mlx5_9`
//! before `mlx5_10`. Used wherever names are listed for people or in an order a vendor's tool
//! keeps (SONiC's PORT table, NCCL's device numbering).

use std::cmp::Ordering;

/// Runs of digits compare by value (leading zeros aside), everything else byte by byte.
pub fn cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (trim_zeros(&a[..na]), trim_zeros(&b[..nb]));
                let ord = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

/// A name that orders naturally, for sort keys and tuples of them (`Natural(&d.name)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Natural<S>(pub S);

impl<S: AsRef<str> + Eq> Ord for Natural<S> {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp(self.0.as_ref(), other.0.as_ref())
    }
}

impl<S: AsRef<str> + Eq> PartialOrd for Natural<S> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::cmp;

    #[test]
    fn numbers_by_value() {
        let mut v = vec![
            "gpu10",
            "gpu2",
            "Ethernet16",
            "Ethernet8",
            "mlx5_10",
            "mlx5_9",
            "su01",
            "su1b",
            "a",
            "a99999999999999999999999",
        ];
        v.sort_by(|a, b| cmp(a, b));
        assert_eq!(
            v,
            [
                "Ethernet8",
                "Ethernet16",
                "a",
                "a99999999999999999999999",
                "gpu2",
                "gpu10",
                "mlx5_9",
                "mlx5_10",
                "su01",
                "su1b",
            ]
        );
    }
}
