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
    let mut reader = Reader {
        file,
        host,
        out: Vec::new(),
        ca: None,
        port: None,
        cas: 0,
    };
    for line in lines(src) {
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("CA '") {
            reader.ca(rest.trim_end_matches('\''), line, diags);
        } else if let Some(num) = t.strip_prefix("Port ").and_then(|r| r.strip_suffix(':')) {
            reader.port(num, line, diags);
        } else {
            reader.field(t, line, diags);
        }
    }
    reader.finish_ca(diags);
    if reader.cas == 0 && !diags.has_errors() {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            end_span(src),
            "no `CA '…'` line: this is not `ibstat` output",
            "no CA",
            HELP,
        ));
    }
    reader.out
}

/// The reading state: the CA and port being read, and the ports done.
struct Reader<'a> {
    file: usize,
    host: &'a str,
    out: Vec<CapturedPort>,
    /// The current CA: its RDMA name, its line and how many ports it has so far.
    ca: Option<(String, Line<'a>, usize)>,
    port: Option<Port<'a>>,
    cas: usize,
}

impl<'a> Reader<'a> {
    /// `CA 'mlx5_0'`: the previous CA is done.
    fn ca(&mut self, name: &str, line: Line<'a>, diags: &mut Diagnostics) {
        self.finish_ca(diags);
        self.cas += 1;
        self.ca = Some((name.to_string(), line, 0));
    }

    /// `Port 1:`: the previous port is done.
    fn port(&mut self, num: &'a str, line: Line<'a>, diags: &mut Diagnostics) {
        self.finish_port(diags);
        let Some((_, _, n)) = &mut self.ca else {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                line.span(),
                "a port before any `CA '…'` line",
                "orphan port",
                HELP,
            ));
            return;
        };
        *n += 1;
        match num.trim().parse::<u8>() {
            Ok(number) => {
                self.port = Some(Port {
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
    }

    /// `Key: value` lines; the port's GUID and link layer are the ones that matter.
    fn field(&mut self, t: &'a str, line: Line<'a>, diags: &mut Diagnostics) {
        let Some((key, value)) = t.split_once(':') else {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                line.span(),
                "not a line of `ibstat` output",
                "unrecognised",
                HELP,
            ));
            return;
        };
        let value = value.trim();
        match (key.trim(), &mut self.port) {
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

    /// The current CA (and its last port) is done: a CA without ports is a truncated capture.
    fn finish_ca(&mut self, diags: &mut Diagnostics) {
        self.finish_port(diags);
        if let Some((_, l, 0)) = &self.ca {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                l.span(),
                "CA without ports: the capture looks truncated",
                "no ports",
                HELP,
            ));
        }
    }

    /// The current port is done: an InfiniBand port with its GUID is captured.
    fn finish_port(&mut self, diags: &mut Diagnostics) {
        let (Some((rdma, _, _)), Some(p)) = (&self.ca, self.port.take()) else {
            return;
        };
        match p.guid {
            Some(_) if p.ethernet => {}
            Some((guid, line, text)) => self.out.push(CapturedPort {
                file: self.file,
                span: line.span_of(text),
                host: self.host.to_string(),
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
    }
}
