//! `ibnetdiscover` output (infiniband-diags): records of `Switch`, `Ca` and `Rt` nodes, each a
//! header line and one line per connected port. A CA record reads
//!
//! ```text
//! caguid=0xb8cef60300000001
//! Ca    1 "H-b8cef60300000001"        # "gpu001 mlx5_0"
//! [1](b8cef60300000001)     "S-b8cef60300aa0001"[1]        # lid 3 lmc 0 "leaf-su01-01" lid 1 4xNDR
//! ```
//!
//! The CA's node description (`gpu001 mlx5_0`: rdma-ndd's default `%h %d`) names host and HCA;
//! the port line gives the port GUID in parentheses and, after `#`, the description of the switch
//! it is cabled to.

use super::{CapturedPort, PortRef};
use crate::capture::{Line, end_span, error, lines};
use crate::diag::{Diagnostics, SourceFile, codes};
use crate::model::Guid;

/// The quoted strings of `s`, in order.
fn quoted(s: &str) -> Vec<&str> {
    s.split('"').skip(1).step_by(2).collect()
}

/// `gpu001 mlx5_0` → (`gpu001`, `mlx5_0`).
fn host_and_hca(desc: &str) -> Option<(&str, &str)> {
    let mut it = desc.split_whitespace();
    let (host, hca) = (it.next()?, it.next()?);
    let hca_like = hca.contains('_')
        && hca.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && hca.ends_with(|c: char| c.is_ascii_digit());
    (it.next().is_none() && hca_like).then_some((host, hca))
}

/// The record a port line belongs to.
enum Record<'a> {
    Ca {
        line: Line<'a>,
        desc: Option<&'a str>,
        ports: usize,
    },
    Other,
}

const HELP_FORMAT: &str =
    "give the unmodified output of `ibnetdiscover` (no options) captured on a host of the fabric";

pub fn parse(file: usize, src: &SourceFile, diags: &mut Diagnostics) -> Vec<CapturedPort> {
    let mut out = Vec::new();
    let mut record: Option<Record<'_>> = None;
    let mut cas = 0;
    let close = |r: &Option<Record<'_>>, diags: &mut Diagnostics| {
        if let Some(Record::Ca { line, ports: 0, .. }) = r {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                line.span(),
                "this `Ca` record lists no port: the capture looks truncated",
                "record without ports",
                HELP_FORMAT,
            ));
        }
    };
    for line in lines(src) {
        let t = line.text.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if [
            "vendid=",
            "devid=",
            "sysimgguid=",
            "switchguid=",
            "caguid=",
            "rtguid=",
        ]
        .iter()
        .any(|k| t.starts_with(k))
        {
            continue;
        }
        let kind = t.split_whitespace().next().unwrap_or("");
        if matches!(kind, "Switch" | "Ca" | "Rt") {
            close(&record, diags);
            let (head, comment) = t.split_once('#').unwrap_or((t, ""));
            if quoted(head).is_empty() {
                diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    line.span(),
                    format!("`{kind}` record without its quoted node id"),
                    "no node id",
                    HELP_FORMAT,
                ));
            }
            record = Some(if kind == "Ca" {
                cas += 1;
                Record::Ca {
                    line,
                    desc: quoted(comment).first().copied(),
                    ports: 0,
                }
            } else {
                Record::Other
            });
            continue;
        }
        if !t.starts_with('[') {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                line.span(),
                "not a line of `ibnetdiscover` output",
                "unrecognised",
                HELP_FORMAT,
            ));
            continue;
        }
        let Some(Record::Ca {
            line: head,
            desc,
            ports,
        }) = &mut record
        else {
            if record.is_none() {
                diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    line.span(),
                    "a port line before any `Switch` or `Ca` record",
                    "orphan port",
                    HELP_FORMAT,
                ));
            }
            continue;
        };
        *ports += 1;
        if let Some(p) = ca_port(file, &line, *desc, head, *ports == 1, diags) {
            out.push(p);
        }
    }
    close(&record, diags);
    if cas == 0 && !diags.has_errors() {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            end_span(src),
            "no `Ca` record: this is not (all of) an `ibnetdiscover` capture",
            "no channel adapters",
            HELP_FORMAT,
        ));
    }
    out
}

/// `[1](b8cef60300000001)     "S-…"[1]        # lid 3 lmc 0 "leaf-su01-01" lid 1 4xNDR`
fn ca_port(
    file: usize,
    line: &Line<'_>,
    desc: Option<&str>,
    head: &Line<'_>,
    first: bool,
    diags: &mut Diagnostics,
) -> Option<CapturedPort> {
    let t = line.text.trim();
    let (body, comment) = t.split_once('#').unwrap_or((t, ""));
    let bad = |diags: &mut Diagnostics, part: &str, what: &str| {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            line.span_of(part),
            format!("CA port line {what}: the capture looks truncated or edited"),
            what,
            HELP_FORMAT,
        ));
    };
    let Some((num, rest)) = body.strip_prefix('[').and_then(|r| r.split_once(']')) else {
        bad(diags, t, "without `[port]`");
        return None;
    };
    let Ok(port) = num.trim().parse::<u8>() else {
        bad(diags, num, "with a port number that is not 1-255");
        return None;
    };
    let Some((guid_text, remote)) = rest.strip_prefix('(').and_then(|r| r.split_once(')')) else {
        bad(diags, rest, "without the `(port GUID)`");
        return None;
    };
    let Some(guid) = Guid::parse(guid_text) else {
        bad(
            diags,
            guid_text,
            "with a port GUID that is not 16 hex digits",
        );
        return None;
    };
    if quoted(remote).is_empty() || !remote.contains('[') {
        bad(diags, remote, "without the remote `\"id\"[port]`");
        return None;
    }
    let Some((host, hca)) = desc.and_then(host_and_hca) else {
        if !first {
            return None;
        }
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            head.span(),
            format!(
                "node description `{}` does not name the host and HCA",
                desc.unwrap_or("")
            ),
            "node description",
            "rdma-ndd sets it to `<hostname> <hca>` by default (`/sys/class/infiniband/*/node_desc`); \
             restore that, or import `ibstat` per node or a GUID CSV instead",
        ));
        return None;
    };
    Some(CapturedPort {
        file,
        span: line.span_of(guid_text),
        host: host.to_string(),
        port: PortRef::Hca {
            rdma: hca.to_string(),
            port,
        },
        guid,
        peer: quoted(comment).first().map(|s| s.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_hca_from_the_default_description() {
        assert_eq!(host_and_hca("gpu001 mlx5_0"), Some(("gpu001", "mlx5_0")));
        assert_eq!(host_and_hca("MT4129 ConnectX7 Mellanox Technologies"), None);
        assert_eq!(host_and_hca("gpu001"), None);
    }
}
