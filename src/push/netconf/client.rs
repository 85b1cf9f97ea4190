//! A blocking NETCONF client (RFC 6241) over any byte transport, framing per RFC 6242.
//!
//! Input: a connected transport (the SSH `netconf` subsystem in production, a socket pair in
//! unit tests). Output: typed replies and typed `rpc-error`s. Invariants: every read has a
//! deadline (a hung server never hangs railyard); one request is outstanding at a time and its
//! reply must carry the same `message-id` (anything else ends the session); after a timeout or a
//! framing error the session is marked broken and refuses further requests, because a late reply
//! would otherwise be matched to the wrong request.

use std::collections::BTreeSet;
use std::fmt;
use std::io;
use std::time::{Duration, Instant};

use super::framing::{self, Decoder, Framing, FramingError};
use crate::meaning::netconf::payload::ConfigPayload;
use crate::meaning::netconf::xml::{self, Element, NS_BASE, XmlBuilder, XmlError};

pub(crate) const CAP_BASE10: &str = "urn:ietf:params:netconf:base:1.0";
pub const CAP_BASE11: &str = "urn:ietf:params:netconf:base:1.1";
pub const CAP_CANDIDATE: &str = "urn:ietf:params:netconf:capability:candidate:1.0";
pub(crate) const CAP_CONFIRMED_COMMIT10: &str =
    "urn:ietf:params:netconf:capability:confirmed-commit:1.0";
pub const CAP_CONFIRMED_COMMIT11: &str = "urn:ietf:params:netconf:capability:confirmed-commit:1.1";
pub(crate) const CAP_VALIDATE10: &str = "urn:ietf:params:netconf:capability:validate:1.0";
pub(crate) const CAP_VALIDATE11: &str = "urn:ietf:params:netconf:capability:validate:1.1";
pub(crate) const CAP_ROLLBACK_ON_ERROR: &str =
    "urn:ietf:params:netconf:capability:rollback-on-error:1.0";
pub const CAP_WRITABLE_RUNNING: &str = "urn:ietf:params:netconf:capability:writable-running:1.0";
pub const CAP_STARTUP: &str = "urn:ietf:params:netconf:capability:startup:1.0";

/// What a transport must offer: bytes both ways and a read/write deadline.
pub trait Transport: io::Read + io::Write + Send {
    /// Bound the next blocking reads and writes; `Duration::ZERO` is never passed.
    fn set_timeout(&mut self, timeout: Duration);
}

impl Transport for std::os::unix::net::UnixStream {
    fn set_timeout(&mut self, timeout: Duration) {
        let _ = self.set_read_timeout(Some(timeout));
        let _ = self.set_write_timeout(Some(timeout));
    }
}

/// `error-severity`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One parsed `<rpc-error>` (RFC 6241 §4.3).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RpcError {
    /// `transport`, `rpc`, `protocol` or `application`.
    pub error_type: String,
    /// e.g. `lock-denied`, `invalid-value`, `in-use`, `data-missing`.
    pub tag: String,
    pub severity: Severity,
    pub app_tag: Option<String>,
    pub path: Option<String>,
    pub message: Option<String>,
    /// `error-info` children as (local name, trimmed text), e.g. `("session-id", "3")`.
    pub info: Vec<(String, String)>,
}

impl RpcError {
    /// From an `<rpc-error>` element. Unknown children (server extensions) are ignored.
    pub fn from_element(e: &Element) -> Self {
        // Servers put the fields in the base namespace; read leniently by local name too.
        let text = |name: &str| {
            e.child(NS_BASE, name)
                .or_else(|| e.child_local(name))
                .map(|c| c.text.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let info = e
            .child(NS_BASE, "error-info")
            .or_else(|| e.child_local("error-info"))
            .map(|i| {
                i.children
                    .iter()
                    .map(|c| (c.name.clone(), c.text.trim().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        RpcError {
            error_type: text("error-type").unwrap_or_default(),
            tag: text("error-tag").unwrap_or_default(),
            severity: if text("error-severity").as_deref() == Some("warning") {
                Severity::Warning
            } else {
                Severity::Error
            },
            app_tag: text("error-app-tag"),
            path: text("error-path"),
            message: text("error-message"),
            info,
        }
    }

    /// An `error-info` field.
    pub fn info(&self, name: &str) -> Option<&str> {
        self.info
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// For `lock-denied`: the session holding the lock.
    pub fn lock_holder(&self) -> Option<&str> {
        self.info("session-id")
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tag)?;
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        // RFC 6241 Appendix A: what the error is about travels in error-info; say it.
        let subject: Vec<String> = [
            ("bad-namespace", "namespace"),
            ("bad-element", "element"),
            ("bad-attribute", "attribute"),
        ]
        .iter()
        .filter_map(|(k, label)| self.info(k).map(|v| format!("{label} `{v}`")))
        .collect();
        if !subject.is_empty() {
            write!(f, ": {}", subject.join(", "))?;
        }
        if let Some(p) = &self.path {
            write!(f, " (at {p})")?;
        }
        if let Some(s) = self.lock_holder() {
            write!(f, " [held by session {s}]")?;
        }
        Ok(())
    }
}

/// Why a NETCONF exchange failed.
#[derive(Debug)]
pub enum NetconfError {
    /// The transport failed or the peer closed the session.
    Io(String),
    /// No reply within the request's deadline; the session is no longer usable.
    Timeout {
        op: String,
        after: Duration,
    },
    Framing(FramingError),
    Xml(XmlError),
    /// The peer broke the protocol (no hello, wrong message-id, unexpected element).
    Protocol(String),
    /// The server answered with `rpc-error`s of severity `error`.
    Rpc {
        op: String,
        errors: Vec<RpcError>,
    },
    /// The server lacks a capability this operation needs.
    MissingCapability(String),
    /// An earlier failure left the session unusable.
    Broken,
}

impl NetconfError {
    /// The parsed errors, when the server refused.
    pub fn rpc_errors(&self) -> &[RpcError] {
        match self {
            NetconfError::Rpc { errors, .. } => errors,
            _ => &[],
        }
    }

    /// Whether a retry on the same session cannot help.
    pub fn is_fatal_for_session(&self) -> bool {
        !matches!(
            self,
            NetconfError::Rpc { .. } | NetconfError::MissingCapability(_)
        )
    }
}

impl fmt::Display for NetconfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetconfError::Io(e) => write!(f, "transport: {e}"),
            NetconfError::Timeout { op, after } => {
                write!(f, "{op}: no reply within {:.1} s", after.as_secs_f64())
            }
            NetconfError::Framing(e) => write!(f, "framing: {e}"),
            NetconfError::Xml(e) => write!(f, "{e}"),
            NetconfError::Protocol(e) => write!(f, "protocol: {e}"),
            NetconfError::Rpc { op, errors } => {
                write!(f, "{op} refused: ")?;
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        write!(f, "; ")?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            NetconfError::MissingCapability(c) => write!(f, "server lacks capability {c}"),
            NetconfError::Broken => write!(f, "session unusable after an earlier failure"),
        }
    }
}

impl std::error::Error for NetconfError {}

impl From<FramingError> for NetconfError {
    fn from(e: FramingError) -> Self {
        NetconfError::Framing(e)
    }
}

impl From<XmlError> for NetconfError {
    fn from(e: XmlError) -> Self {
        NetconfError::Xml(e)
    }
}

/// A configuration datastore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Datastore {
    Running,
    Candidate,
    Startup,
}

impl Datastore {
    pub fn as_str(self) -> &'static str {
        match self {
            Datastore::Running => "running",
            Datastore::Candidate => "candidate",
            Datastore::Startup => "startup",
        }
    }
}

/// `edit-config` `default-operation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultOperation {
    Merge,
    Replace,
    None,
}

/// `edit-config` `test-option`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestOption {
    TestThenSet,
    Set,
    TestOnly,
}

/// `edit-config` `error-option`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorOption {
    StopOnError,
    ContinueOnError,
    RollbackOnError,
}

/// Parameters of one `edit-config`; `None` leaves the server default.
#[derive(Clone, Copy, Debug, Default)]
pub struct EditOptions {
    pub default_operation: Option<DefaultOperation>,
    pub test_option: Option<TestOption>,
    pub error_option: Option<ErrorOption>,
}

/// A reply that was not an error: `<ok/>`, `<data>` or warnings only.
#[derive(Clone, Debug)]
pub struct Reply {
    pub root: Element,
    /// Errors of severity `warning` (the request still succeeded).
    pub warnings: Vec<RpcError>,
}

impl Reply {
    /// The `<data>` element of a `get`/`get-config` reply.
    pub fn data(&self) -> Option<&Element> {
        self.root.child(NS_BASE, "data")
    }

    pub fn is_ok(&self) -> bool {
        self.root.child(NS_BASE, "ok").is_some()
    }
}

/// Client settings.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// Deadline for the server hello.
    pub hello_timeout: Duration,
    /// Default deadline per RPC (commit gets [`ClientOptions::commit_timeout`]).
    pub rpc_timeout: Duration,
    pub commit_timeout: Duration,
    /// Offer base:1.1 (chunked) in our hello.
    pub offer_base11: bool,
    /// Pause after our hello before the first request: yuma123's `netconf-subsystem` was seen to
    /// leave a request that follows the hello back-to-back unprocessed (LAB-NOTES).
    pub hello_settle: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            hello_timeout: Duration::from_secs(15),
            rpc_timeout: Duration::from_secs(60),
            commit_timeout: Duration::from_secs(300),
            offer_base11: true,
            hello_settle: Duration::from_millis(50),
        }
    }
}

/// An established NETCONF session.
pub struct Client<T: Transport> {
    io: T,
    decoder: Decoder,
    framing: Framing,
    next_id: u64,
    caps: BTreeSet<String>,
    session_id: Option<String>,
    opts: ClientOptions,
    broken: bool,
    closed: bool,
    /// Bytes written and read, for progress/diagnostics (never logged as content).
    pub bytes_out: u64,
    pub bytes_in: u64,
}

impl<T: Transport> Client<T> {
    /// Exchange hellos and settle the framing.
    pub fn handshake(io: T, opts: ClientOptions) -> Result<Self, NetconfError> {
        let mut c = Client {
            io,
            decoder: Decoder::new(Framing::EndOfMessage),
            framing: Framing::EndOfMessage,
            next_id: 1,
            caps: BTreeSet::new(),
            session_id: None,
            opts,
            broken: false,
            closed: false,
            bytes_out: 0,
            bytes_in: 0,
        };
        let mut b = XmlBuilder::new();
        b.decl()
            .open("hello", &[("xmlns", NS_BASE)])
            .open("capabilities", &[])
            .leaf("capability", CAP_BASE10);
        if c.opts.offer_base11 {
            b.leaf("capability", CAP_BASE11);
        }
        let hello = b.finish();
        c.send(&hello)?;
        let deadline = Instant::now() + c.opts.hello_timeout;
        let msg = c.recv_message("hello", deadline)?;
        let root = xml::parse(&msg)?;
        if !root.is(NS_BASE, "hello") {
            return Err(NetconfError::Protocol(format!(
                "expected <hello>, got <{}>",
                root.name
            )));
        }
        if let Some(caps) = root.child(NS_BASE, "capabilities") {
            for cap in &caps.children {
                let t = cap.text.trim();
                if !t.is_empty() {
                    c.caps.insert(t.to_string());
                }
            }
        }
        if !c.caps.contains(CAP_BASE10) && !c.caps.contains(CAP_BASE11) {
            return Err(NetconfError::Protocol(
                "server hello lists neither base:1.0 nor base:1.1".into(),
            ));
        }
        c.session_id = root.child_text(NS_BASE, "session-id").map(str::to_string);
        if c.opts.offer_base11 && c.caps.contains(CAP_BASE11) {
            c.framing = Framing::Chunked;
            c.decoder.set_framing(Framing::Chunked);
        }
        if !c.opts.hello_settle.is_zero() {
            std::thread::sleep(c.opts.hello_settle);
        }
        Ok(c)
    }

    pub fn capabilities(&self) -> &BTreeSet<String> {
        &self.caps
    }

    /// Whether the server advertised `cap` (parameters after `?` ignored).
    pub fn has(&self, cap: &str) -> bool {
        self.caps.iter().any(|c| c.split('?').next() == Some(cap))
    }

    /// The server-assigned session id from its hello.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    pub fn framing(&self) -> Framing {
        self.framing
    }

    pub fn is_broken(&self) -> bool {
        self.broken
    }

    fn require(&self, cap: &str) -> Result<(), NetconfError> {
        if self.has(cap) {
            Ok(())
        } else {
            Err(NetconfError::MissingCapability(cap.into()))
        }
    }

    fn send(&mut self, msg: &[u8]) -> Result<(), NetconfError> {
        let framed = framing::encode(msg, self.framing)?;
        self.io.set_timeout(self.opts.rpc_timeout);
        let r = self.io.write_all(&framed).and_then(|()| self.io.flush());
        if let Err(e) = r {
            self.broken = true;
            return Err(NetconfError::Io(e.to_string()));
        }
        self.bytes_out += framed.len() as u64;
        Ok(())
    }

    fn recv_message(&mut self, op: &str, deadline: Instant) -> Result<Vec<u8>, NetconfError> {
        let started = Instant::now();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match self.decoder.next_message() {
                Ok(Some(m)) => return Ok(m),
                Ok(None) => {}
                Err(e) => {
                    self.broken = true;
                    return Err(e.into());
                }
            }
            let now = Instant::now();
            if now >= deadline {
                self.broken = true;
                return Err(NetconfError::Timeout {
                    op: op.into(),
                    after: now - started,
                });
            }
            self.io
                .set_timeout((deadline - now).max(Duration::from_millis(1)));
            match self.io.read(&mut buf) {
                Ok(0) => {
                    self.broken = true;
                    return Err(NetconfError::Io(format!(
                        "server closed the session during {op}"
                    )));
                }
                Ok(n) => {
                    self.bytes_in += n as u64;
                    self.decoder.feed(&buf[..n]);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                    ) =>
                {
                    // Loop: the deadline check above turns this into a Timeout.
                    if Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.broken = true;
                    return Err(NetconfError::Io(format!("{op}: {e}")));
                }
            }
        }
    }

    /// Send one operation (the element inside `<rpc>`) and wait for its reply.
    pub fn rpc(&mut self, op: &str, body: &[u8], timeout: Duration) -> Result<Reply, NetconfError> {
        if self.broken || self.closed {
            return Err(NetconfError::Broken);
        }
        let id = self.next_id.to_string();
        self.next_id += 1;
        let mut b = XmlBuilder::new();
        b.open("rpc", &[("xmlns", NS_BASE), ("message-id", id.as_str())])
            .raw(body)
            .close();
        let msg = b.finish();
        self.send(&msg)?;
        let deadline = Instant::now() + timeout;
        loop {
            let raw = self.recv_message(op, deadline)?;
            let root = match xml::parse(&raw) {
                Ok(r) => r,
                Err(e) => {
                    self.broken = true;
                    return Err(e.into());
                }
            };
            if root.name == "notification" {
                // Interleaved notifications are not ours to answer; keep waiting for the reply.
                continue;
            }
            if !root.is(NS_BASE, "rpc-reply") {
                self.broken = true;
                return Err(NetconfError::Protocol(format!(
                    "expected <rpc-reply> to {op}, got <{}>",
                    root.name
                )));
            }
            let errors: Vec<RpcError> = root
                .children
                .iter()
                .filter(|c| c.is(NS_BASE, "rpc-error"))
                .map(RpcError::from_element)
                .collect();
            match root.attr("", "message-id") {
                Some(got) if got == id => {}
                // A server that cannot parse a request may answer without the id; with one
                // request outstanding, that answer is ours.
                None if !errors.is_empty() => {}
                other => {
                    self.broken = true;
                    return Err(NetconfError::Protocol(format!(
                        "reply to {op} carries message-id {other:?}, expected {id}"
                    )));
                }
            }
            let (errs, warnings): (Vec<_>, Vec<_>) = errors
                .into_iter()
                .partition(|e| e.severity == Severity::Error);
            if !errs.is_empty() {
                return Err(NetconfError::Rpc {
                    op: op.into(),
                    errors: errs,
                });
            }
            return Ok(Reply { root, warnings });
        }
    }

    fn simple(&mut self, op: &str, body: Vec<u8>) -> Result<Reply, NetconfError> {
        let t = self.opts.rpc_timeout;
        self.rpc(op, &body, t)
    }

    /// `<get-config>` of `source`, optionally with a subtree filter (elements placed inside
    /// `<filter type="subtree">`). Returns the `<data>` element.
    pub fn get_config(
        &mut self,
        source: Datastore,
        filter: Option<&[u8]>,
    ) -> Result<Element, NetconfError> {
        let mut b = XmlBuilder::new();
        b.open("get-config", &[])
            .open("source", &[])
            .empty(source.as_str(), &[])
            .close();
        if let Some(f) = filter {
            // The filter element must be in the base namespace or yuma123 ignores it (LAB-NOTES);
            // it inherits the default namespace of <rpc>.
            b.open("filter", &[("type", "subtree")]).raw(f).close();
        }
        b.close();
        let reply = self.simple("get-config", b.finish())?;
        reply
            .data()
            .cloned()
            .ok_or_else(|| NetconfError::Protocol("get-config reply without <data>".into()))
    }

    /// `<edit-config>` of `target` with `config`.
    pub fn edit_config(
        &mut self,
        target: Datastore,
        config: &ConfigPayload,
        opts: EditOptions,
    ) -> Result<Reply, NetconfError> {
        if target == Datastore::Candidate {
            self.require(CAP_CANDIDATE)?;
        }
        if opts.error_option == Some(ErrorOption::RollbackOnError) {
            self.require(CAP_ROLLBACK_ON_ERROR)?;
        }
        if opts.test_option.is_some() && !self.has(CAP_VALIDATE11) && !self.has(CAP_VALIDATE10) {
            return Err(NetconfError::MissingCapability(CAP_VALIDATE11.into()));
        }
        if opts.test_option == Some(TestOption::TestOnly) {
            self.require(CAP_VALIDATE11)?;
        }
        let mut b = XmlBuilder::new();
        b.open("edit-config", &[])
            .open("target", &[])
            .empty(target.as_str(), &[])
            .close();
        if let Some(d) = opts.default_operation {
            b.leaf(
                "default-operation",
                match d {
                    DefaultOperation::Merge => "merge",
                    DefaultOperation::Replace => "replace",
                    DefaultOperation::None => "none",
                },
            );
        }
        if let Some(t) = opts.test_option {
            b.leaf(
                "test-option",
                match t {
                    TestOption::TestThenSet => "test-then-set",
                    TestOption::Set => "set",
                    TestOption::TestOnly => "test-only",
                },
            );
        }
        if let Some(e) = opts.error_option {
            b.leaf(
                "error-option",
                match e {
                    ErrorOption::StopOnError => "stop-on-error",
                    ErrorOption::ContinueOnError => "continue-on-error",
                    ErrorOption::RollbackOnError => "rollback-on-error",
                },
            );
        }
        b.raw(config.bytes()).close();
        self.simple("edit-config", b.finish())
    }

    /// `<copy-config>` from one datastore to another.
    pub fn copy_config(
        &mut self,
        target: Datastore,
        source: Datastore,
    ) -> Result<Reply, NetconfError> {
        let mut b = XmlBuilder::new();
        b.open("copy-config", &[])
            .open("target", &[])
            .empty(target.as_str(), &[])
            .close()
            .open("source", &[])
            .empty(source.as_str(), &[])
            .close()
            .close();
        self.simple("copy-config", b.finish())
    }

    /// `<copy-config>` of an inline configuration into `target`.
    pub fn copy_config_inline(
        &mut self,
        target: Datastore,
        config: &ConfigPayload,
    ) -> Result<Reply, NetconfError> {
        let mut b = XmlBuilder::new();
        b.open("copy-config", &[])
            .open("target", &[])
            .empty(target.as_str(), &[])
            .close()
            .open("source", &[])
            .raw(config.bytes())
            .close()
            .close();
        self.simple("copy-config", b.finish())
    }

    fn target_op(&mut self, op: &str, ds: Datastore) -> Result<Reply, NetconfError> {
        let mut b = XmlBuilder::new();
        b.open(op, &[])
            .open("target", &[])
            .empty(ds.as_str(), &[])
            .close()
            .close();
        self.simple(op, b.finish())
    }

    /// `<lock>`; a `lock-denied` error names the holder in [`RpcError::lock_holder`].
    pub fn lock(&mut self, ds: Datastore) -> Result<Reply, NetconfError> {
        self.target_op("lock", ds)
    }

    pub fn unlock(&mut self, ds: Datastore) -> Result<Reply, NetconfError> {
        self.target_op("unlock", ds)
    }

    /// `<validate>` of a datastore. Note (LAB-NOTES): on yuma123, validating the candidate and
    /// then committing applied nothing; railyard relies on commit's own validation instead.
    pub fn validate(&mut self, source: Datastore) -> Result<Reply, NetconfError> {
        if !self.has(CAP_VALIDATE11) {
            self.require(CAP_VALIDATE10)?;
        }
        let mut b = XmlBuilder::new();
        b.open("validate", &[])
            .open("source", &[])
            .empty(source.as_str(), &[])
            .close()
            .close();
        self.simple("validate", b.finish())
    }

    pub fn discard_changes(&mut self) -> Result<Reply, NetconfError> {
        self.require(CAP_CANDIDATE)?;
        let mut b = XmlBuilder::new();
        b.empty("discard-changes", &[]);
        self.simple("discard-changes", b.finish())
    }

    /// Plain `<commit/>` (also confirms a pending confirmed commit made by this session).
    pub fn commit(&mut self) -> Result<Reply, NetconfError> {
        self.require(CAP_CANDIDATE)?;
        let mut b = XmlBuilder::new();
        b.empty("commit", &[]);
        let t = self.opts.commit_timeout;
        self.rpc("commit", &b.finish(), t)
    }

    /// Confirmed commit (RFC 6241 §8.4): reverts after `timeout` (whole seconds, the NETCONF
    /// unit) unless confirmed. With `persist`, the commit survives this session's end and any
    /// session can confirm or cancel it with that id (needs `:confirmed-commit:1.1`).
    pub fn commit_confirmed(
        &mut self,
        timeout: Duration,
        persist: Option<&str>,
    ) -> Result<Reply, NetconfError> {
        self.require(CAP_CANDIDATE)?;
        if persist.is_some() {
            self.require(CAP_CONFIRMED_COMMIT11)?;
        } else if !self.has(CAP_CONFIRMED_COMMIT11) {
            self.require(CAP_CONFIRMED_COMMIT10)?;
        }
        let secs = timeout.as_secs().max(1).to_string();
        let mut b = XmlBuilder::new();
        b.open("commit", &[])
            .empty("confirmed", &[])
            .leaf("confirm-timeout", &secs);
        if let Some(p) = persist {
            b.leaf("persist", p);
        }
        b.close();
        let t = self.opts.commit_timeout;
        self.rpc("commit", &b.finish(), t)
    }

    /// The confirming commit for a persisted confirmed commit, from any session.
    pub fn confirm_persisted(&mut self, persist_id: &str) -> Result<Reply, NetconfError> {
        self.require(CAP_CONFIRMED_COMMIT11)?;
        let mut b = XmlBuilder::new();
        b.open("commit", &[]).leaf("persist-id", persist_id).close();
        let t = self.opts.commit_timeout;
        self.rpc("commit", &b.finish(), t)
    }

    /// `<cancel-commit>`: revert a pending confirmed commit now. `persist_id` is required when
    /// cancelling from a session other than the one that issued a persisted commit.
    pub fn cancel_commit(&mut self, persist_id: Option<&str>) -> Result<Reply, NetconfError> {
        self.require(CAP_CONFIRMED_COMMIT11)?;
        let mut b = XmlBuilder::new();
        match persist_id {
            Some(p) => {
                b.open("cancel-commit", &[]).leaf("persist-id", p).close();
            }
            None => {
                b.empty("cancel-commit", &[]);
            }
        }
        let t = self.opts.commit_timeout;
        self.rpc("cancel-commit", &b.finish(), t)
    }

    /// `<kill-session>` of another session (needs privileges on most servers).
    pub fn kill_session(&mut self, session_id: &str) -> Result<Reply, NetconfError> {
        let mut b = XmlBuilder::new();
        b.open("kill-session", &[])
            .leaf("session-id", session_id)
            .close();
        self.simple("kill-session", b.finish())
    }

    /// `<close-session>`; the transport is dropped with the client afterwards.
    pub fn close_session(&mut self) -> Result<(), NetconfError> {
        if self.closed {
            return Ok(());
        }
        let mut b = XmlBuilder::new();
        b.empty("close-session", &[]);
        let t = self.opts.rpc_timeout.min(Duration::from_secs(10));
        let r = self.rpc("close-session", &b.finish(), t);
        self.closed = true;
        r.map(|_| ())
    }

    /// The underlying transport (for the SSH driver to close the channel).
    pub fn into_transport(self) -> T {
        self.io
    }
}

#[cfg(test)]
mod tests {
    /// Found by the `netconf_reply` fuzz target: a prefixed `<nc:config>` whose data element has
    /// no namespace must keep it inside `<rpc>`, whose default namespace is the base one.
    #[test]
    fn unqualified_data_under_a_prefixed_config_stays_unqualified_inside_rpc() {
        let doc = br#"<nc:config xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"><a x="1">t</a></nc:config>"#;
        let p = ConfigPayload::from_xml(doc).unwrap();
        assert_eq!(p.tree().children[0].ns, "");
        let rpc = format!(
            "<rpc xmlns=\"{NS_BASE}\" message-id=\"1\"><edit-config>{}</edit-config></rpc>",
            String::from_utf8_lossy(p.bytes())
        );
        let parsed = xml::parse(rpc.as_bytes()).unwrap();
        let sent = parsed
            .child(NS_BASE, "edit-config")
            .and_then(|e| e.child(NS_BASE, "config"))
            .unwrap();
        assert_eq!(sent, p.tree());
        // A root that declares its own default namespace is left as it is.
        let own = br#"<nc:config xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns="urn:x"><a/></nc:config>"#;
        assert_eq!(ConfigPayload::from_xml(own).unwrap().bytes(), own);
    }

    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    const SERVER_HELLO: &str = r#"<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities>
<capability>urn:ietf:params:netconf:base:1.0</capability>
<capability>urn:ietf:params:netconf:base:1.1</capability>
<capability>urn:ietf:params:netconf:capability:candidate:1.0</capability>
<capability>urn:ietf:params:netconf:capability:confirmed-commit:1.1</capability>
</capabilities><session-id>4</session-id></hello>"#;

    fn opts(rpc_ms: u64) -> ClientOptions {
        ClientOptions {
            hello_timeout: Duration::from_secs(5),
            rpc_timeout: Duration::from_millis(rpc_ms),
            commit_timeout: Duration::from_millis(rpc_ms),
            offer_base11: true,
            hello_settle: Duration::ZERO,
        }
    }

    /// Answers one request given its message-id (`None`: stay silent).
    type Responder = Box<dyn Fn(&str) -> Option<String> + Send>;

    /// A scripted server: sends its hello, then answers each request with `reply(id)`.
    fn server(mut s: UnixStream, replies: Vec<Responder>) -> std::thread::JoinHandle<Vec<Vec<u8>>> {
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            let _ = s.write_all(&framing::encode_eom(SERVER_HELLO.as_bytes()).unwrap_or_default());
            let mut d = Decoder::new(Framing::EndOfMessage);
            let mut buf = [0u8; 4096];
            let mut replies = replies.into_iter();
            let mut hello_seen = false;
            loop {
                let n = match s.read(&mut buf) {
                    Ok(0) | Err(_) => return seen,
                    Ok(n) => n,
                };
                d.feed(&buf[..n]);
                while let Ok(Some(m)) = d.next_message() {
                    if !hello_seen {
                        hello_seen = true;
                        d.set_framing(Framing::Chunked);
                        continue;
                    }
                    let root = xml::parse(&m).unwrap_or_default();
                    let id = root.attr("", "message-id").unwrap_or("").to_string();
                    seen.push(m);
                    let Some(f) = replies.next() else { return seen };
                    if let Some(r) = f(&id) {
                        let _ = s.write_all(
                            &framing::encode_chunked(r.as_bytes(), 5).unwrap_or_default(),
                        );
                    }
                }
            }
        })
    }

    #[test]
    fn message_ids_match_and_errors_parse() {
        let (a, b) = UnixStream::pair().unwrap();
        let h = server(
            b,
            vec![
                Box::new(|id: &str| {
                    Some(format!(
                        r#"<rpc-reply xmlns="{NS_BASE}" message-id="{id}"><ok/></rpc-reply>"#
                    ))
                }),
                Box::new(|id: &str| {
                    Some(format!(
                        r#"<rpc-reply xmlns="{NS_BASE}" message-id="{id}" xmlns:y="urn:yuma"><rpc-error>
<error-type>protocol</error-type><error-tag>lock-denied</error-tag>
<error-severity>error</error-severity><y:error-number>268</y:error-number>
<error-message xml:lang="en">lock denied</error-message>
<error-info><session-id>1</session-id></error-info></rpc-error></rpc-reply>"#
                    ))
                }),
                Box::new(|_id: &str| {
                    Some(format!(
                        r#"<rpc-reply xmlns="{NS_BASE}" message-id="999"><ok/></rpc-reply>"#
                    ))
                }),
            ],
        );
        let mut c = Client::handshake(a, opts(2000)).unwrap();
        assert_eq!(c.framing(), Framing::Chunked);
        assert_eq!(c.session_id(), Some("4"));
        assert!(c.has(CAP_CONFIRMED_COMMIT11));
        assert!(c.lock(Datastore::Candidate).unwrap().is_ok());
        let e = c.lock(Datastore::Candidate).unwrap_err();
        let errs = e.rpc_errors();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].tag, "lock-denied");
        assert_eq!(errs[0].lock_holder(), Some("1"));
        assert_eq!(errs[0].message.as_deref(), Some("lock denied"));
        assert!(!c.is_broken());
        // A reply with someone else's message-id ends the session.
        assert!(matches!(
            c.discard_changes(),
            Err(NetconfError::Protocol(_))
        ));
        assert!(matches!(c.discard_changes(), Err(NetconfError::Broken)));
        drop(c);
        let seen = h.join().unwrap();
        assert!(String::from_utf8_lossy(&seen[0]).contains("<lock><target><candidate/>"));
    }

    #[test]
    fn per_rpc_timeout_fires_on_a_silent_server() {
        let (a, b) = UnixStream::pair().unwrap();
        let h = server(b, vec![Box::new(|_: &str| None)]);
        let mut c = Client::handshake(a, opts(300)).unwrap();
        let t = Instant::now();
        let e = c.commit().unwrap_err();
        assert!(matches!(e, NetconfError::Timeout { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(3));
        assert!(c.is_broken());
        drop(c);
        let _ = h.join();
    }

    #[test]
    fn payload_forms() {
        let p = ConfigPayload::from_xml(
            br#"<?xml version="1.0"?><config xmlns:x="urn:x"><x:a>1</x:a></config>"#,
        );
        // Unqualified <config> whose children use a prefix bound on <config>: not isolatable
        // verbatim, so it must fail loudly rather than send unbound prefixes.
        assert!(p.is_err());
        let p = ConfigPayload::from_xml(br#"<config><a xmlns="urn:x">1</a></config>"#).unwrap();
        assert_eq!(p.tree().children[0].ns, "urn:x");
        let p = ConfigPayload::from_xml(br#"<a xmlns="urn:x">1</a>"#).unwrap();
        assert!(p.tree().is(NS_BASE, "config"));
        let p = ConfigPayload::from_xml(
            br#"<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><a xmlns="urn:x"/></config>"#,
        )
        .unwrap();
        assert_eq!(p.tree().children.len(), 1);
    }
}
