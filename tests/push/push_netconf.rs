//! railyard's NETCONF client against the real yuma123 `netconfd` behind a real `sshd` on
//! 127.0.0.1 (LAB-NOTES recipe), with the OpenConfig interfaces model. Each test starts its own
//! pair and tears it down. Needs root; without it every test prints a loud SKIP.

use crate::push_support;

use std::time::{Duration, Instant};

use push_support::{NetconfLab, connect_opts, oc_interfaces, require_root, write_known_host};
use railyard::meaning::netconf::canon;
use railyard::meaning::netconf::payload::ConfigPayload;
use railyard::meaning::netconf::xml::Element;
use railyard::push::netconf::client::{
    CAP_BASE11, CAP_CANDIDATE, CAP_CONFIRMED_COMMIT11, Client, ClientOptions, Datastore,
    DefaultOperation, EditOptions, ErrorOption, NetconfError, TestOption,
};
use railyard::push::netconf::framing::Framing;
use railyard::push::{SshError, SshTransport, connect_ssh};

type Nc = Client<SshTransport>;

fn client_opts() -> ClientOptions {
    ClientOptions {
        rpc_timeout: Duration::from_secs(20),
        commit_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    }
}

fn open_with(lab: &NetconfLab, opts: ClientOptions) -> Nc {
    let sess = connect_ssh(&lab.endpoint(), &lab.auth(), &connect_opts()).expect("ssh connect");
    let t = SshTransport::netconf(sess, Duration::from_secs(20)).expect("netconf subsystem");
    match Client::handshake(t, opts) {
        Ok(c) => c,
        Err(e) => panic!(
            "hello: {e}\n--- sshd log ---\n{}\n--- netconfd log (tail) ---\n{}",
            lab.sshd_log(),
            lab.netconfd_log_tail()
        ),
    }
}

fn open(lab: &NetconfLab) -> Nc {
    open_with(lab, client_opts())
}

fn replace() -> EditOptions {
    EditOptions {
        default_operation: Some(DefaultOperation::Replace),
        test_option: Some(TestOption::TestThenSet),
        error_option: Some(ErrorOption::RollbackOnError),
    }
}

fn payload(ifs: &[(&str, u32, &str)]) -> ConfigPayload {
    ConfigPayload::from_xml(oc_interfaces(ifs).as_bytes()).expect("payload")
}

/// The managed subtree of `ds` equals `want` (canonical, order-insensitive).
fn diff_to(c: &mut Nc, ds: Datastore, want: &ConfigPayload) -> canon::ConfigDiff {
    let data = c.get_config(ds, None).expect("get-config");
    canon::diff(&data, want.tree())
}

fn mtus(data: &Element) -> Vec<String> {
    canon::canonical_lines(data)
        .into_iter()
        .filter(|l| l.ends_with("/config/mtu = 9000") || l.contains("/config/mtu = "))
        .collect()
}

const OLD: &[(&str, u32, &str)] = &[("eth1", 1500, "old")];
const NEW: &[(&str, u32, &str)] = &[("eth1", 9000, "new & <improved>"), ("eth2", 9000, "b")];

fn startup_old() -> String {
    oc_interfaces(OLD)
}

#[test]
fn hello_capabilities_and_both_framings() {
    if !require_root("hello_capabilities_and_both_framings") {
        return;
    }
    let lab = NetconfLab::start(None);
    let t = Instant::now();
    let mut c = open(&lab);
    eprintln!("connect+hello: {:?}", t.elapsed());
    assert_eq!(c.framing(), Framing::Chunked);
    for cap in [CAP_BASE11, CAP_CANDIDATE, CAP_CONFIRMED_COMMIT11] {
        assert!(c.has(cap), "missing {cap}: {:?}", c.capabilities());
    }
    assert!(
        c.capabilities()
            .iter()
            .any(|x| x.contains("openconfig-interfaces")),
        "module capability missing"
    );
    assert!(c.session_id().is_some());
    c.get_config(Datastore::Running, None)
        .expect("get-config (chunked)");
    c.close_session().expect("close");

    // A client offering only base:1.0 keeps end-of-message framing for the whole session.
    let mut c10 = open_with(
        &lab,
        ClientOptions {
            offer_base11: false,
            ..client_opts()
        },
    );
    assert_eq!(c10.framing(), Framing::EndOfMessage);
    c10.get_config(Datastore::Running, None)
        .expect("get-config (EOM)");
    c10.close_session().expect("close");
}

#[test]
fn edit_commit_and_dry_run_diff() {
    if !require_root("edit_commit_and_dry_run_diff") {
        return;
    }
    let lab = NetconfLab::start(Some(&startup_old()));
    let mut c = open(&lab);
    let new = payload(NEW);
    let old = payload(OLD);
    assert!(diff_to(&mut c, Datastore::Running, &old).is_empty());

    // Dry run: edit the candidate, diff it against running, discard.
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit-config");
    let running = c.get_config(Datastore::Running, None).expect("running");
    let candidate = c.get_config(Datastore::Candidate, None).expect("candidate");
    let d = canon::diff(&running, &candidate);
    let text = d.to_text();
    eprintln!("dry-run diff:\n{text}");
    assert!(text.contains("- /interfaces:interfaces/interface[name=eth1]/config/mtu = 1500"));
    assert!(text.contains("+ /interfaces:interfaces/interface[name=eth1]/config/mtu = 9000"));
    assert!(text.contains("description = new & <improved>"), "escaping");
    assert!(text.contains("+ /interfaces:interfaces/interface[name=eth2]/config/name = eth2"));
    // Candidate equals intent exactly.
    assert!(canon::diff(&candidate, new.tree()).is_empty());
    c.discard_changes().expect("discard");
    assert!(diff_to(&mut c, Datastore::Candidate, &old).is_empty());
    assert!(diff_to(&mut c, Datastore::Running, &old).is_empty());

    // Real push: edit, commit, read back.
    let t = Instant::now();
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit-config");
    c.commit().expect("commit");
    eprintln!("edit+commit: {:?}", t.elapsed());
    c.unlock(Datastore::Candidate).expect("unlock");
    c.close_session().expect("close");
    let mut fresh = open(&lab);
    assert!(diff_to(&mut fresh, Datastore::Running, &new).is_empty());
    // Replace removed nothing it should keep and added both interfaces.
    let running = fresh.get_config(Datastore::Running, None).expect("running");
    assert_eq!(mtus(&running).len(), 2);
}

#[test]
fn confirmed_commit_then_confirm_keeps_config() {
    if !require_root("confirmed_commit_then_confirm_keeps_config") {
        return;
    }
    let lab = NetconfLab::start(Some(&startup_old()));
    let new = payload(NEW);
    let mut c = open(&lab);
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit");
    c.commit_confirmed(Duration::from_secs(2), Some("rytest-1"))
        .expect("confirmed commit");
    assert!(diff_to(&mut c, Datastore::Running, &new).is_empty());
    c.confirm_persisted("rytest-1").expect("confirm");
    c.unlock(Datastore::Candidate).expect("unlock");
    c.close_session().expect("close");
    drop(c);
    // Past the 2 s window (and idle, so yuma's timer could run): still the new config.
    std::thread::sleep(Duration::from_millis(3500));
    let mut f = open(&lab);
    assert!(diff_to(&mut f, Datastore::Running, &new).is_empty());
}

#[test]
fn unconfirmed_commit_rolls_back_by_itself() {
    if !require_root("unconfirmed_commit_rolls_back_by_itself") {
        return;
    }
    let lab = NetconfLab::start(Some(&startup_old()));
    let (old, new) = (payload(OLD), payload(NEW));
    let mut c = open(&lab);
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit");
    c.commit_confirmed(Duration::from_secs(2), Some("rytest-lost"))
        .expect("confirmed commit");
    assert!(diff_to(&mut c, Datastore::Running, &new).is_empty());
    // The laptop dies: the connection is cut, no close-session, no confirm.
    c.into_transport().abort();
    // yuma123 runs the rollback timer only once the server has been idle >= 1 s (LAB-NOTES), so
    // do not poll: wait out the window plus margin, then look once.
    let t = Instant::now();
    std::thread::sleep(Duration::from_millis(4500));
    let mut f = open(&lab);
    let d = diff_to(&mut f, Datastore::Running, &old);
    assert!(
        d.is_empty(),
        "not rolled back after {:?}:\n{}",
        t.elapsed(),
        d.to_text()
    );
}

#[test]
fn persist_id_confirm_from_a_new_session_after_the_first_is_dropped() {
    if !require_root("persist_id_confirm_from_a_new_session_after_the_first_is_dropped") {
        return;
    }
    let lab = NetconfLab::start(Some(&startup_old()));
    let new = payload(NEW);
    let mut c = open(&lab);
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit");
    c.commit_confirmed(Duration::from_secs(3), Some("rytest-persist"))
        .expect("confirmed commit");
    c.into_transport().abort();

    let mut b = open(&lab);
    // A wrong persist-id is refused with a typed error pointing at persist-id.
    let e = b
        .confirm_persisted("not-the-id")
        .expect_err("wrong id accepted");
    let errs = e.rpc_errors();
    assert!(!errs.is_empty(), "{e}");
    assert_eq!(errs[0].tag, "invalid-value", "{e}");
    assert!(
        errs[0].path.as_deref().unwrap_or("").contains("persist-id"),
        "{e}"
    );
    b.confirm_persisted("rytest-persist").expect("confirm");
    b.close_session().expect("close");
    drop(b);
    std::thread::sleep(Duration::from_millis(4500));
    let mut f = open(&lab);
    assert!(diff_to(&mut f, Datastore::Running, &new).is_empty());
}

#[test]
fn cancel_commit_reverts_now() {
    if !require_root("cancel_commit_reverts_now") {
        return;
    }
    let lab = NetconfLab::start(Some(&startup_old()));
    let (old, new) = (payload(OLD), payload(NEW));
    let mut c = open(&lab);
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit");
    c.commit_confirmed(Duration::from_secs(60), Some("rytest-cancel"))
        .expect("confirmed commit");
    let mut other = open(&lab);
    other
        .cancel_commit(Some("rytest-cancel"))
        .expect("cancel-commit");
    assert!(diff_to(&mut other, Datastore::Running, &old).is_empty());
}

#[test]
fn lock_held_by_another_session_names_the_holder() {
    if !require_root("lock_held_by_another_session_names_the_holder") {
        return;
    }
    let lab = NetconfLab::start(None);
    let mut a = open(&lab);
    a.lock(Datastore::Candidate).expect("first lock");
    let mut b = open(&lab);
    let e = b
        .lock(Datastore::Candidate)
        .expect_err("second lock granted");
    let errs = e.rpc_errors();
    assert_eq!(errs.len(), 1, "{e}");
    assert_eq!(errs[0].tag, "lock-denied");
    assert_eq!(errs[0].lock_holder(), a.session_id(), "{e}");
    assert!(e.to_string().contains("held by session"), "{e}");
    a.unlock(Datastore::Candidate).expect("unlock");
    b.lock(Datastore::Candidate).expect("lock after release");
}

#[test]
fn invalid_payload_gives_a_parsed_rpc_error() {
    if !require_root("invalid_payload_gives_a_parsed_rpc_error") {
        return;
    }
    let lab = NetconfLab::start(None);
    let mut c = open(&lab);
    c.lock(Datastore::Candidate).expect("lock");
    let bad = oc_interfaces(OLD).replace("<mtu>1500</mtu>", "<mtu>not-a-number</mtu>");
    let bad = ConfigPayload::from_xml(bad.as_bytes()).expect("well-formed");
    let e = c
        .edit_config(Datastore::Candidate, &bad, replace())
        .expect_err("bad mtu accepted");
    eprintln!("parsed: {e}\n{:#?}", e.rpc_errors());
    let NetconfError::Rpc { errors, .. } = &e else {
        panic!("not an rpc-error: {e}");
    };
    let err = &errors[0];
    // yuma123 reports a value that does not parse as its type with `bad-element`.
    assert_eq!(err.tag, "bad-element", "{err:?}");
    assert_eq!(err.error_type, "protocol");
    assert_eq!(err.app_tag.as_deref(), Some("data-invalid"));
    assert_eq!(err.info("bad-value"), Some("not-a-number"));
    assert_eq!(err.info("bad-element"), Some("oc-if:mtu"));
    assert_eq!(
        err.severity,
        railyard::push::netconf::client::Severity::Error
    );
    assert!(
        err.path.as_deref().unwrap_or("").ends_with("oc-if:mtu"),
        "{err:?}"
    );
    assert_eq!(err.message.as_deref(), Some("invalid number"));
    // The session survives an rpc-error.
    assert!(!c.is_broken());
    c.discard_changes().expect("discard after error");

    // An element in a namespace the server does not know: the message names the namespace
    // (the issue: `unknown-namespace: unknown namespace` alone).
    let bogus = oc_interfaces(OLD).replace(
        "<mtu>1500</mtu>",
        "<mtu>1500</mtu><speed xmlns=\"http://example.com/ns/not-loaded\">fast</speed>",
    );
    let bogus = ConfigPayload::from_xml(bogus.as_bytes()).expect("well-formed");
    let e = c
        .edit_config(Datastore::Candidate, &bogus, replace())
        .expect_err("unknown namespace accepted");
    eprintln!("parsed: {e}\n{:#?}", e.rpc_errors());
    let msg = e.to_string();
    assert!(
        msg.contains("http://example.com/ns/not-loaded"),
        "the namespace is not named: {msg}"
    );
    c.discard_changes().expect("discard after error");
}

#[test]
fn host_key_mismatch_is_refused_before_authentication() {
    if !require_root("host_key_mismatch_is_refused_before_authentication") {
        return;
    }
    let lab = NetconfLab::start(None);
    // Record a different key for this endpoint.
    let other = lab.path().join("other_host_key");
    push_support::keygen(&other, "impostor");
    let kh = lab.path().join("known_hosts_wrong");
    write_known_host(&kh, lab.port, &lab.path().join("other_host_key.pub"));
    let mut ep = lab.endpoint();
    ep.known_hosts = kh.clone();
    let Err(e) = connect_ssh(&ep, &lab.auth(), &connect_opts()) else {
        panic!("mismatch accepted");
    };
    let msg = e.to_string();
    eprintln!("{msg}");
    let SshError::HostKeyMismatch {
        presented, known, ..
    } = &e
    else {
        panic!("not a mismatch: {e}");
    };
    assert!(e.before_auth());
    assert!(presented.contains("SHA256:"));
    assert_eq!(known.len(), 1);
    assert_ne!(presented, &known[0]);
    assert!(msg.contains(presented.as_str()) && msg.contains(known[0].as_str()));
    // The message names the known_hosts file holding the old key, and says what to remove.
    assert!(
        msg.contains(&format!(
            "remove the old entry for [127.0.0.1]:{} from {}",
            lab.port,
            kh.display()
        )),
        "{msg}"
    );
    // sshd saw no authentication request at all for this connection.
    std::thread::sleep(Duration::from_millis(200));
    let log = lab.sshd_log();
    assert!(!log.contains("userauth-request"), "auth attempted:\n{log}");

    // Unknown host: refused without --accept-new; recorded with it; then a plain match.
    let fresh = lab.path().join("known_hosts_new");
    ep.known_hosts = fresh.clone();
    let Err(e) = connect_ssh(&ep, &lab.auth(), &connect_opts()) else {
        panic!("unknown host accepted");
    };
    assert!(matches!(e, SshError::HostKeyUnknown { .. }), "{e}");
    assert!(
        e.to_string()
            .contains(&format!("not in {}; verify it", fresh.display())),
        "{e}"
    );
    assert!(!fresh.exists(), "known_hosts written without --accept-new");
    let mut accept = connect_opts();
    accept.accept_new = true;
    connect_ssh(&ep, &lab.auth(), &accept).expect("accept-new");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&fresh).expect("recorded").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    connect_ssh(&ep, &lab.auth(), &connect_opts()).expect("recorded key matches");
}

#[test]
fn agent_tries_every_identity() {
    if !require_root("agent_tries_every_identity") {
        return;
    }
    let lab = NetconfLab::start(None);
    let w = lab.path();
    // First identity in the agent is not authorized; the second (the lab's client key) is.
    let decoy = w.join("id_decoy");
    push_support::keygen(&decoy, "decoy");
    let sock = w.join("agent.sock");
    let mut agent_cmd = std::process::Command::new("ssh-agent");
    agent_cmd.arg("-D").arg("-a").arg(&sock);
    agent_cmd.stdout(std::process::Stdio::null());
    let _agent = push_support::Daemon::spawn("ssh-agent", &mut agent_cmd);
    push_support::wait_for("agent socket", Duration::from_secs(5), || sock.exists());
    for k in [&decoy, &lab.client_key] {
        let ok = std::process::Command::new("ssh-add")
            .arg(k)
            .env("SSH_AUTH_SOCK", &sock)
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "ssh-add {}", k.display());
    }
    let auth = railyard::push::Auth {
        agent: true,
        agent_socket: Some(sock.clone()),
        ..railyard::push::Auth::default()
    };
    connect_ssh(&lab.endpoint(), &auth, &connect_opts())
        .expect("agent auth with the second identity");
}

#[test]
fn multi_megabyte_config_round_trip() {
    if !require_root("multi_megabyte_config_round_trip") {
        return;
    }
    // openconfig-interfaces alone: with the openconfig-if-ip augments loaded, netconfd needs
    // minutes to validate 5000 entries on a busy 2-core machine. This test is about framing.
    let lab =
        NetconfLab::start_modules(None, &[], None, &["iana-if-type", "openconfig-interfaces"]);
    // Enough interfaces that the request and the get-config reply are megabytes, so both cross
    // many chunks (our 64 KiB request chunks; whatever netconfd's reply chunks are).
    let names: Vec<String> = (0..N_LARGE).map(|i| format!("swp{i}")).collect();
    let descr = "x".repeat(200);
    let ifs: Vec<(&str, u32, &str)> = names
        .iter()
        .map(|n| (n.as_str(), 9000, descr.as_str()))
        .collect();
    let big = payload(&ifs);
    assert!(big.bytes().len() > 1_500_000, "{}", big.bytes().len());
    let mut c = open_with(
        &lab,
        ClientOptions {
            rpc_timeout: Duration::from_secs(60),
            commit_timeout: Duration::from_secs(60),
            ..ClientOptions::default()
        },
    );
    let t = Instant::now();
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &big, replace())
        .expect("edit");
    c.commit().expect("commit");
    eprintln!("{} bytes edit+commit: {:?}", big.bytes().len(), t.elapsed());
    let before = c.bytes_in;
    let t = Instant::now();
    let running = c.get_config(Datastore::Running, None).expect("get-config");
    eprintln!(
        "get-config reply {} bytes in {:?}",
        c.bytes_in - before,
        t.elapsed()
    );
    assert!(c.bytes_in - before > 1_500_000);
    assert!(canon::diff(&running, big.tree()).is_empty());
}

const N_LARGE: usize = 5000;

#[test]
fn validate_and_copy_config_reset_the_candidate() {
    if !require_root("validate_and_copy_config_reset_the_candidate") {
        return;
    }
    let lab = NetconfLab::start(Some(&startup_old()));
    let (old, new) = (payload(OLD), payload(NEW));
    let mut c = open(&lab);
    c.lock(Datastore::Candidate).expect("lock");
    c.edit_config(Datastore::Candidate, &new, replace())
        .expect("edit");
    c.validate(Datastore::Candidate).expect("validate");
    assert!(diff_to(&mut c, Datastore::Candidate, &new).is_empty());
    // copy-config running → candidate throws the edit away.
    c.copy_config(Datastore::Candidate, Datastore::Running)
        .expect("copy-config");
    assert!(diff_to(&mut c, Datastore::Candidate, &old).is_empty());
    c.unlock(Datastore::Candidate).expect("unlock");
}
