//! The `netconf` driver: candidate datastore + persisted confirmed commit (RFC 6241 §8.4).
//!
//! Preflight locks the candidate, discards leftovers, reads running, stages the intended config
//! with `default-operation=replace` (only the top-level trees present in the payload are
//! replaced; other trees on the device are left alone), reads the candidate back and diffs it.
//! The commit is `confirmed` with `persist=<txid>-<device>`, so losing this session does not
//! revert it but any later session can confirm or cancel it, and the device reverts by itself
//! when nobody does. The payload is `openconfig.xml`, which every platform renders; it is compared
//! by meaning as canonical OpenConfig lines (`push::netconf::canon`), whose facts `facts.rs` reads
//! for disruptive changes.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::meaning::disruptive;
use crate::meaning::netconf::canon;
use crate::meaning::netconf::facts::OpenConfigLines;
use crate::meaning::netconf::payload::ConfigPayload;
use crate::meaning::netconf::xml::{self, Element, NS_BASE};
use crate::output::digest::sha256_hex;
use crate::push::PushSettings;
use crate::push::driver::{AuditLines, ConfigSet, Driver, DriverError, FailKind, Preflight};
use crate::push::netconf::client::{
    CAP_CANDIDATE, CAP_CONFIRMED_COMMIT11, CAP_ROLLBACK_ON_ERROR, Client, ClientOptions, Datastore,
    DefaultOperation, EditOptions, ErrorOption, NetconfError, TestOption,
};
use crate::push::ssh::{self, Auth, ConnectOptions, Endpoint, SshTransport};
use crate::push::targets::Target;

/// The driver of a target within transaction `tag` (`<txid>-<device>`).
pub(crate) fn for_target(t: &Target, tag: String, s: &PushSettings) -> Box<dyn Driver> {
    Box::new(NetconfDriver::new(
        t.endpoint.clone(),
        t.auth.clone(),
        s.connect.clone(),
        s.client.clone(),
        tag,
        s.txn.dry_run,
    ))
}

pub struct NetconfDriver {
    pub endpoint: Endpoint,
    pub auth: Auth,
    pub connect: ConnectOptions,
    pub client: ClientOptions,
    /// The persist id of this device's confirmed commit (`<txid>-<device>`).
    pub persist_id: String,
    /// Dry runs need only the candidate, not confirmed-commit:1.1.
    pub dry_run: bool,
    session: Option<Client<SshTransport>>,
    payload: Option<ConfigPayload>,
    pre_hash: String,
    locked: bool,
}

impl NetconfDriver {
    pub fn new(
        endpoint: Endpoint,
        auth: Auth,
        connect: ConnectOptions,
        client: ClientOptions,
        persist_id: String,
        dry_run: bool,
    ) -> Self {
        Self {
            endpoint,
            auth,
            connect,
            client,
            persist_id,
            dry_run,
            session: None,
            payload: None,
            pre_hash: String::new(),
            locked: false,
        }
    }

    fn open(&self) -> Result<Client<SshTransport>, DriverError> {
        let sess = ssh::connect(&self.endpoint, &self.auth, &self.connect)?;
        let t = SshTransport::netconf(sess, self.client.rpc_timeout)?;
        Ok(Client::handshake(t, self.client.clone())?)
    }

    /// The session from preflight while it is healthy, else a new one.
    fn session(&mut self) -> Result<&mut Client<SshTransport>, DriverError> {
        if self.session.as_ref().is_some_and(Client::is_broken) {
            self.session = None;
            self.locked = false;
        }
        if self.session.is_none() {
            self.session = Some(self.open()?);
        }
        self.session
            .as_mut()
            .ok_or_else(|| DriverError::new(FailKind::Transport, "no session"))
    }

    fn payload(&self) -> Result<&ConfigPayload, DriverError> {
        self.payload
            .as_ref()
            .ok_or_else(|| DriverError::new(FailKind::Rejected, "no payload staged"))
    }

    /// Cut the preflight session without a goodbye (tests: a connection lost mid-commit).
    pub fn drop_session(&mut self) {
        if let Some(c) = self.session.take() {
            c.into_transport().abort();
        }
        self.locked = false;
    }

    fn running_managed(&self, c: &mut Client<SshTransport>) -> Result<Element, DriverError> {
        let data = c.get_config(Datastore::Running, None)?;
        Ok(managed_subset(&data, self.payload()?.tree()))
    }
}

/// The top-level trees of `data` that `intended` manages.
fn managed_subset(data: &Element, intended: &Element) -> Element {
    let mut out = data.clone();
    out.children.retain(|c| {
        intended
            .children
            .iter()
            .any(|i| i.ns == c.ns && i.name == c.name)
    });
    out
}

fn hash_lines(el: &Element) -> String {
    sha256_hex(canon::canonical_lines(el).join("\n").as_bytes())
}

impl Driver for NetconfDriver {
    fn preflight(&mut self, intended: &ConfigSet) -> Result<Preflight, DriverError> {
        let file = intended.main_name().to_string();
        let payload = ConfigPayload::from_xml(intended.main())
            .map_err(|e| DriverError::new(FailKind::Rejected, format!("{file}: {e}")))?;
        let intended_hash = hash_lines(payload.tree());
        self.payload = Some(payload.clone());
        let dry = self.dry_run;
        let c = self.session()?;
        if !c.has(CAP_CANDIDATE) {
            return Err(NetconfError::MissingCapability(CAP_CANDIDATE.into()).into());
        }
        if !dry && !c.has(CAP_CONFIRMED_COMMIT11) {
            // Without :confirmed-commit:1.1 there is no persist-id: a lost session would revert
            // or strand the commit. Refuse rather than push unsafely.
            return Err(NetconfError::MissingCapability(CAP_CONFIRMED_COMMIT11.into()).into());
        }
        let rollback = c.has(CAP_ROLLBACK_ON_ERROR);
        c.lock(Datastore::Candidate).map_err(|e| {
            let mut d = DriverError::from(e);
            if let Some(h) = d.rpc_errors.iter().find_map(|x| x.lock_holder()) {
                d.message = format!("candidate locked by NETCONF session {h}: {}", d.message);
            }
            d
        })?;
        self.locked = true;
        let c = self.session()?;
        // Leftover edits of an earlier railyard run would otherwise ride along.
        c.discard_changes()?;
        let running = c.get_config(Datastore::Running, None)?;
        c.edit_config(
            Datastore::Candidate,
            &payload,
            EditOptions {
                default_operation: Some(DefaultOperation::Replace),
                test_option: Some(TestOption::TestThenSet),
                error_option: rollback.then_some(ErrorOption::RollbackOnError),
            },
        )?;
        let candidate = c.get_config(Datastore::Candidate, None)?;
        let native = canon::diff(
            &managed_subset(&running, payload.tree()),
            &managed_subset(&candidate, payload.tree()),
        );
        let canonical = canon::diff(&running, payload.tree());
        let changed = !native.is_empty() || !canonical.is_empty();
        if !changed {
            c.discard_changes()?;
        }
        let managed = managed_subset(&running, payload.tree());
        self.pre_hash = hash_lines(&managed);
        let mut pre = managed;
        pre.name = "config".into();
        pre.ns = NS_BASE.into();
        pre.attrs.clear();
        Ok(Preflight {
            native_diff: native.to_text(),
            canonical_diff: canonical.to_text(),
            changed,
            pre_hash: self.pre_hash.clone(),
            intended_hash,
            disruptive: disruptive::findings(
                &OpenConfigLines,
                &canon::canonical_lines(&managed_subset(&running, payload.tree())),
                &canonical.removed,
                &canonical.added,
            ),
            pre_config: Some(ConfigSet::single(&file, xml::write(&pre))),
        })
    }

    fn abort(&mut self) -> Result<(), DriverError> {
        let Some(mut c) = self.session.take() else {
            return Ok(());
        };
        let mut first = None;
        // Only the lock holder may touch the shared candidate: without our lock (lock denied,
        // or a fresh session after a lost one) the staged edits are not ours to discard.
        if !c.is_broken() {
            if self.locked {
                if let Err(e) = c.discard_changes() {
                    first.get_or_insert(DriverError::from(e));
                }
                if let Err(e) = c.unlock(Datastore::Candidate) {
                    first.get_or_insert(DriverError::from(e));
                }
            }
            let _ = c.close_session();
        }
        self.locked = false;
        first.map_or(Ok(()), Err)
    }

    fn commit_confirmed(&mut self, timeout: Duration) -> Result<String, DriverError> {
        let pid = self.persist_id.clone();
        let c = self.session()?;
        c.commit_confirmed(timeout, Some(&pid))?;
        Ok(pid)
    }

    fn verify(&mut self) -> Result<(), DriverError> {
        let mut fresh = self.open()?;
        let running = fresh.get_config(Datastore::Running, None)?;
        let _ = fresh.close_session();
        let d = canon::diff(&running, self.payload()?.tree());
        if d.is_empty() {
            Ok(())
        } else {
            Err(DriverError::new(
                FailKind::Verify,
                format!(
                    "running differs from intended after commit:\n{}",
                    d.to_text()
                ),
            ))
        }
    }

    fn confirm(&mut self) -> Result<(), DriverError> {
        let pid = self.persist_id.clone();
        let c = self.session()?;
        c.confirm_persisted(&pid)?;
        // The change is permanent now; releasing the lock and closing are courtesy.
        let _ = self.abort();
        Ok(())
    }

    fn cancel(&mut self) -> Result<(), DriverError> {
        let pid = self.persist_id.clone();
        let c = self.session()?;
        let r = c.cancel_commit(Some(&pid));
        let _ = self.abort();
        r.map(|_| ()).map_err(DriverError::from)
    }

    fn check_reverted(&mut self) -> Result<bool, DriverError> {
        let mut fresh = self.open()?;
        let now = self.running_managed(&mut fresh)?;
        let _ = fresh.close_session();
        Ok(hash_lines(&now) == self.pre_hash)
    }

    fn adopt(&mut self, intended: &ConfigSet, pre_hash: &str) -> Result<(), DriverError> {
        let payload = ConfigPayload::from_xml(intended.main()).map_err(|e| {
            DriverError::new(FailKind::Rejected, format!("{}: {e}", intended.main_name()))
        })?;
        self.payload = Some(payload);
        self.pre_hash = pre_hash.to_string();
        // No lock: the candidate is not ours; confirm/cancel by persist-id need none.
        self.locked = false;
        Ok(())
    }

    fn running(&mut self, intended: &ConfigSet) -> Result<AuditLines, DriverError> {
        let payload = ConfigPayload::from_xml(intended.main()).map_err(|e| {
            DriverError::new(FailKind::Rejected, format!("{}: {e}", intended.main_name()))
        })?;
        // A session of its own: `<get-config>` of running only — no lock, no candidate.
        let mut c = self.open()?;
        let data = c.get_config(Datastore::Running, None);
        let _ = c.close_session();
        // The difference exactly as preflight computes it (`canon::diff`: list entries recognised
        // over both trees at once, only the payload's top-level trees); the lines both sides
        // share are the build's, so the sets differ by exactly that difference.
        let d = canon::diff(&data?, payload.tree());
        let added: BTreeSet<String> = d.added.into_iter().collect();
        let common: BTreeSet<String> = canon::canonical_lines(payload.tree())
            .into_iter()
            .filter(|l| !added.contains(l))
            .collect();
        Ok(AuditLines {
            device: common.iter().cloned().chain(d.removed).collect(),
            build: common.into_iter().chain(added).collect(),
            notes: Vec::new(),
        })
    }
}
