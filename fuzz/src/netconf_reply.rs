//! NETCONF replies: railyard's XML reader and the client's `rpc-reply`/`rpc-error` handling.
//!
//! Input: `[mode, rest…]`. An even `mode` reads `rest` as one XML document (what a server sends
//! inside a frame, or a config payload); an odd `mode` plays `rest` as everything a server sends
//! on a session (hello, then replies, framed), arriving in reads whose sizes `mode` picks, while
//! the client runs a push-like sequence of operations against it.
//!
//! Invariants checked, document mode:
//! - a document that parses survives write → parse with the same tree (names, namespaces,
//!   attributes, children) and the same canonical config lines (what push compares with the
//!   device), so re-serializing never changes a config's meaning;
//! - every `rpc-error` element parses into an `RpcError` that displays;
//! - a document accepted as a config payload parses again from its own bytes into the same tree,
//!   and keeps that tree when embedded in an `<rpc>` (the bytes push sends).
//!
//! Session mode:
//! - no panic, whatever the server sends or when;
//! - a successful reply is an `rpc-reply` in the base namespace whose `rpc-error`s are all
//!   warnings; a refusal carries at least one error-severity `rpc-error`;
//! - once the session is broken (timeout, framing, malformed XML, wrong message-id), the client
//!   reads nothing more from the server and every later request fails;
//! - everything the client wrote is well-framed XML with an `rpc` (or `hello`) root, even when it
//!   echoes strings the server chose (a lock holder's session id).

use std::io;
use std::time::Duration;

use railyard::meaning::netconf::canon;
use railyard::meaning::netconf::payload::ConfigPayload;
use railyard::meaning::netconf::xml::{self, Element, NS_BASE, XmlBuilder};
use railyard::push::netconf::client::{
    Client, ClientOptions, Datastore, DefaultOperation, EditOptions, ErrorOption, NetconfError,
    RpcError, Severity, TestOption, Transport,
};
use railyard::push::netconf::framing::{Decoder, Framing};

pub fn run(data: &[u8]) {
    let [mode, rest @ ..] = data else {
        return;
    };
    if mode % 2 == 0 {
        document(rest);
    } else {
        session(*mode, rest);
    }
}

fn document(doc: &[u8]) {
    if let Ok(el) = xml::parse(doc) {
        let written = xml::write(&el);
        let again = xml::parse(&written).unwrap_or_else(|e| {
            panic!(
                "xml::write produced unreadable XML ({e}): {}",
                String::from_utf8_lossy(&written)
            )
        });
        assert_same_tree(&el, &again);
        assert_eq!(
            lines(&el),
            lines(&again),
            "write → parse changed the canonical config lines"
        );
        visit(&el, &mut |e| {
            if e.name == "rpc-error" {
                let _ = RpcError::from_element(e).to_string();
            }
        });
    }
    if let Ok(p) = ConfigPayload::from_xml(doc) {
        assert!(
            p.tree().is(NS_BASE, "config"),
            "payload root is not <config>"
        );
        let reread = xml::parse(p.bytes()).unwrap_or_else(|e| panic!("payload bytes: {e}"));
        assert_eq!(&reread, p.tree(), "payload bytes and payload tree disagree");
        let mut b = XmlBuilder::new();
        b.open("rpc", &[("xmlns", NS_BASE), ("message-id", "1")])
            .open("edit-config", &[])
            .open("target", &[])
            .empty("candidate", &[])
            .close()
            .raw(p.bytes())
            .close();
        let rpc = xml::parse(&b.finish()).unwrap_or_else(|e| panic!("payload inside <rpc>: {e}"));
        let sent = rpc
            .child(NS_BASE, "edit-config")
            .and_then(|e| e.child(NS_BASE, "config"));
        assert_eq!(
            sent,
            Some(p.tree()),
            "the payload means something else inside <rpc>"
        );
    }
}

/// Same element names, namespaces, attributes and children; text equal unless it is a
/// prefixed name (its prefix may change, its namespace may not).
fn assert_same_tree(a: &Element, b: &Element) {
    assert_eq!(
        (&a.ns, &a.name),
        (&b.ns, &b.name),
        "element identity changed"
    );
    // Attribute order carries no meaning in XML (the writer puts unqualified ones first).
    let sorted = |e: &Element| {
        let mut v = e.attrs.clone();
        v.sort();
        v
    };
    assert_eq!(sorted(a), sorted(b), "attributes of <{}> changed", a.name);
    assert_eq!(
        a.text_ns, b.text_ns,
        "text namespace of <{}> changed",
        a.name
    );
    if a.text_ns.is_none() {
        assert_eq!(a.text, b.text, "text of <{}> changed", a.name);
    }
    assert_eq!(
        a.children.len(),
        b.children.len(),
        "children of <{}> changed",
        a.name
    );
    for (x, y) in a.children.iter().zip(&b.children) {
        assert_same_tree(x, y);
    }
}

fn lines(el: &Element) -> Vec<String> {
    let root = Element {
        children: vec![el.clone()],
        ..Element::default()
    };
    canon::canonical_lines(&root)
}

fn visit(el: &Element, f: &mut impl FnMut(&Element)) {
    f(el);
    for c in &el.children {
        visit(c, f);
    }
}

/// A server that sends `stream` in reads of varying size and records what the client writes.
struct Server {
    stream: Vec<u8>,
    at: usize,
    seed: u32,
    written: Vec<u8>,
}

impl io::Read for Server {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 17;
        self.seed ^= self.seed << 5;
        let want = (self.seed as usize % 64) + 1;
        let n = want.min(buf.len()).min(self.stream.len() - self.at);
        buf[..n].copy_from_slice(&self.stream[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl io::Write for Server {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Transport for Server {
    fn set_timeout(&mut self, _: Duration) {}
}

fn session(mode: u8, stream: &[u8]) {
    let server = Server {
        stream: stream.to_vec(),
        at: 0,
        seed: u32::from(mode) | 0x5bd1_e900,
        written: Vec::new(),
    };
    let opts = ClientOptions {
        hello_timeout: Duration::from_secs(3600),
        rpc_timeout: Duration::from_secs(3600),
        commit_timeout: Duration::from_secs(3600),
        offer_base11: mode & 2 == 2,
        hello_settle: Duration::ZERO,
    };
    let mut c = match Client::handshake(server, opts) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let payload = ConfigPayload::from_xml(
        b"<config xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\">\
          <interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\">\
          <interface><name>swp1</name><mtu>9216</mtu></interface></interfaces></config>",
    )
    .unwrap_or_else(|e| panic!("fixed payload: {e}"));

    let mut holder: Option<String> = None;
    let mut broken = false;
    for step in 0..12 {
        let before = c.bytes_in;
        let r = match step {
            0 => c.get_config(Datastore::Running, None).map(|data| {
                let _ = canon::diff(&data, payload.tree()).to_text();
                None
            }),
            1 => c.lock(Datastore::Candidate).map(Some),
            2 => match holder.take() {
                Some(h) => c.kill_session(&h).map(Some),
                None => c.lock(Datastore::Running).map(Some),
            },
            3 => c
                .edit_config(
                    Datastore::Candidate,
                    &payload,
                    EditOptions {
                        default_operation: Some(DefaultOperation::Replace),
                        test_option: Some(TestOption::TestThenSet),
                        error_option: Some(ErrorOption::RollbackOnError),
                    },
                )
                .map(Some),
            4 => c.validate(Datastore::Candidate).map(Some),
            5 => c
                .commit_confirmed(Duration::from_secs(120), Some("ry-fuzz"))
                .map(Some),
            6 => c
                .get_config(Datastore::Candidate, Some(b"<interfaces/>"))
                .map(|data| {
                    let _ = canon::canonical_lines(&data);
                    None
                }),
            7 => c.confirm_persisted("ry-fuzz").map(Some),
            8 => c.cancel_commit(Some("ry-fuzz")).map(Some),
            9 => c.discard_changes().map(Some),
            10 => c.unlock(Datastore::Candidate).map(Some),
            _ => c.close_session().map(|()| None),
        };
        if broken {
            assert!(r.is_err(), "a broken session accepted a request");
        }
        match r {
            Ok(Some(reply)) => {
                assert!(
                    reply.root.is(NS_BASE, "rpc-reply"),
                    "a reply that is not <rpc-reply> was accepted"
                );
                assert!(
                    reply
                        .warnings
                        .iter()
                        .all(|w| w.severity == Severity::Warning),
                    "an error-severity rpc-error was returned as a warning"
                );
                let _ = (reply.is_ok(), reply.data());
            }
            Ok(None) => {}
            Err(e) => {
                if let NetconfError::Rpc { errors, .. } = &e {
                    assert!(!errors.is_empty(), "a refusal without rpc-error");
                    assert!(
                        errors.iter().all(|x| x.severity == Severity::Error),
                        "a warning was reported as a refusal"
                    );
                    holder = errors
                        .iter()
                        .find_map(|x| x.lock_holder().map(str::to_string));
                }
                let _ = (e.to_string(), e.is_fatal_for_session(), e.rpc_errors());
            }
        }
        if broken {
            assert_eq!(c.bytes_in, before, "a broken session kept reading");
        }
        broken = c.is_broken();
    }
    let framing = c.framing();
    let server = c.into_transport();
    assert_client_wrote_rpcs(&server.written, framing);
}

/// The client's hello (end-of-message framed), then its requests in `framing`.
fn assert_client_wrote_rpcs(written: &[u8], framing: Framing) {
    let mut d = Decoder::new(Framing::EndOfMessage);
    d.feed(written);
    let mut n = 0;
    loop {
        let m = match d.next_message() {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(e) => panic!("the client wrote a badly framed message: {e}"),
        };
        let root = xml::parse(&m).unwrap_or_else(|e| {
            panic!(
                "the client wrote malformed XML ({e}): {}",
                String::from_utf8_lossy(&m)
            )
        });
        let want = if n == 0 { "hello" } else { "rpc" };
        assert!(
            root.is(NS_BASE, want),
            "client message {n} is <{}>",
            root.name
        );
        if n == 0 {
            d.set_framing(framing);
        }
        n += 1;
    }
    assert!(!d.has_partial(), "the client left a message unfinished");
}
