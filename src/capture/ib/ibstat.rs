//! `ibstat` output of one node (infiniband-diags): per CA (`CA 'mlx5_0'`) its ports
//! (`Port 1:`), each with `Port GUID: 0x…` and `Link layer:`. The host is not in the output; the
//! command line names it. Ethernet ports (RoCE) carry no InfiniBand GUID a partition could use
//! and are skipped.

use super::{CapturedPort, PortRef};
use crate::capture::{Line, end_span, error, lines};
use crate::diag::{Diagnostics, SourceFile, codes};
use crate::model::Guid;

const HELP: &str = "give the unmodified output of `ibstat` (no options) captured on that node";

struct Port<'a> {
    line: Line<'a>,
    number: u8,
    guid: Option<(Guid, Line<'a>, &'a str)>,
    ethernet: bool,
}

pub fn parse(
    file: usize,
    host: &str,
    src: &SourceFile,
    diags: &mut Diagnostics,
) -> Vec<CapturedPort> {
    let mut out = Vec::new();
    let mut ca: Option<(String, Line<'_>, usize)> = None;
    let mut port: Option<Port<'_>> = None;
    let finish = |ca: &Option<(String, Line<'_>, usize)>,
                  port: Option<Port<'_>>,
                  out: &mut Vec<CapturedPort>,
                  diags: &mut Diagnostics| {
        let (Some((rdma, _, _)), Some(p)) = (ca, port) else {
            return;
        };
        match p.guid {
            Some(_) if p.ethernet => {}
            Some((guid, line, text)) => out.push(CapturedPort {
                file,
                span: line.span_of(text),
                host: host.to_string(),
                port: PortRef::Hca {
                    rdma: rdma.clone(),
                    port: p.number,
                },
                guid,
                peer: None,
            }),
            None => diags.push(error(
                codes::CAPTURE_SYNTAX,
                p.line.span(),
                format!(
                    "port {} of `{rdma}` has no `Port GUID:` line: the capture looks truncated",
                    p.number
                ),
                "no port GUID",
                HELP,
            )),
        }
    };
    let mut cas = 0;
    for line in lines(src) {
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("CA '") {
            finish(&ca, port.take(), &mut out, diags);
            if let Some((_, l, 0)) = &ca {
                diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    l.span(),
                    "CA without ports: the capture looks truncated",
                    "no ports",
                    HELP,
                ));
            }
            let name = rest.trim_end_matches('\'');
            cas += 1;
            ca = Some((name.to_string(), line, 0));
            continue;
        }
        if let Some(num) = t.strip_prefix("Port ").and_then(|r| r.strip_suffix(':')) {
            finish(&ca, port.take(), &mut out, diags);
            let Some((_, _, n)) = &mut ca else {
                diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    line.span(),
                    "a port before any `CA '…'` line",
                    "orphan port",
                    HELP,
                ));
                continue;
            };
            *n += 1;
            match num.trim().parse::<u8>() {
                Ok(number) => {
                    port = Some(Port {
                        line,
                        number,
                        guid: None,
                        ethernet: false,
                    })
                }
                Err(_) => diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    line.span_of(num),
                    "port number is not 1-255",
                    "port number",
                    HELP,
                )),
            }
            continue;
        }
        let Some((key, value)) = t.split_once(':') else {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                line.span(),
                "not a line of `ibstat` output",
                "unrecognised",
                HELP,
            ));
            continue;
        };
        let value = value.trim();
        match (key.trim(), &mut port) {
            ("Port GUID", Some(p)) => match Guid::parse(value) {
                Some(g) => p.guid = Some((g, line, value)),
                None => diags.push(error(
                    codes::CAPTURE_SYNTAX,
                    line.span_of(value),
                    format!("`{value}` is not a port GUID"),
                    "port GUID",
                    HELP,
                )),
            },
            ("Link layer", Some(p)) => p.ethernet = value.eq_ignore_ascii_case("ethernet"),
            _ => {}
        }
    }
    finish(&ca, port.take(), &mut out, diags);
    if let Some((_, l, 0)) = &ca {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            l.span(),
            "CA without ports: the capture looks truncated",
            "no ports",
            HELP,
        ));
    }
    if cas == 0 && !diags.has_errors() {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            end_span(src),
            "no `CA '…'` line: this is not `ibstat` output",
            "no CA",
            HELP,
        ));
    }
    out
}
