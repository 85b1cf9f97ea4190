//! The push targets file (`railyard push --targets FILE`): YAML naming each device's address,
//! driver, user and files, never a secret.
//!
//! Invariants checked:
//! - every accepted target has a plain device name and a file that stays under
//!   `configs/<device>/` (push reads exactly that path), and absolute key, agent socket and
//!   known_hosts paths (the file's directory and `$HOME` being absolute);
//! - an error is one line and never repeats the value given to a `password`, `passphrase` or
//!   `secret` key (the file may wrongly hold one; the error goes to a terminal or a CI log);
//! - read without `--trust-targets-file`, a file that parses gives every target exactly the
//!   operator's credentials and known_hosts: nothing the file says chooses them (#38 item 5).

use std::path::{Component, Path};

use railyard::push::{Operator, parse_targets};

const BASE: &str = "/fuzz/base";

/// The operator's choices the untrusted parse must hand every target unchanged.
fn operator() -> Operator {
    let mut op = Operator::default();
    op.auth.agent = false;
    op.auth.password_env = Some("RY_FUZZ_OPERATOR_PASSWORD".into());
    op.known_hosts = Some("/fuzz/operator/known_hosts".into());
    op
}

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let op = operator();
    if let Ok(ts) = parse_targets(&text, Path::new(BASE), &op) {
        for t in &ts {
            assert!(
                !t.auth.agent
                    && t.auth.agent_socket.is_none()
                    && t.auth.key_file.is_none()
                    && t.auth.key_passphrase_env.is_none()
                    && t.auth.password_env == op.auth.password_env
                    && Some(&t.endpoint.known_hosts) == op.known_hosts.as_ref(),
                "the untrusted targets file chose {}'s credentials or known_hosts: {:?} {:?}",
                t.name,
                t.auth,
                t.endpoint.known_hosts
            );
        }
    }
    let trusted = Operator {
        trust_targets_file: true,
        ..Operator::default()
    };
    match parse_targets(&text, Path::new(BASE), &trusted) {
        Ok(ts) => {
            // Relative paths are resolved against the file's directory, `~/` against $HOME.
            let home_is_absolute =
                std::env::var_os("HOME").is_some_and(|h| Path::new(&h).is_absolute());
            for t in &ts {
                assert!(
                    !t.name.is_empty() && !t.name.contains(['/', '\0']) && !t.name.starts_with('.'),
                    "device name {:?} accepted",
                    t.name
                );
                let file = Path::new(&t.file);
                assert!(
                    file.components()
                        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir)),
                    "file {:?} of {} leaves configs/{}/",
                    t.file,
                    t.name,
                    t.name
                );
                if home_is_absolute {
                    let paths = [Some(&t.endpoint.known_hosts), t.auth.key_file.as_ref()];
                    for p in paths
                        .into_iter()
                        .chain([t.auth.agent_socket.as_ref()])
                        .flatten()
                    {
                        assert!(p.is_absolute(), "path {p:?} of {} is relative", t.name);
                    }
                }
            }
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "multi-line error: {msg}");
            for secret in secrets(&text).into_iter().filter(|s| msg.contains(s)) {
                // Fixed wording that happens to equal the value is no leak: the same file with
                // another value in its place must still give an error showing it.
                let other = text.replacen(secret, &"Q".repeat(secret.len()), 1);
                let again = parse_targets(&other, Path::new(BASE), &trusted)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                assert!(
                    again.contains(secret),
                    "the error repeats the secret {secret:?}: {msg}"
                );
            }
        }
    }
}

/// Values written after a secret-looking key (`password: X`, `{passphrase: X}`, and the
/// typo `password:X`, which YAML reads as one key), when long enough and found only once in the
/// text.
fn secrets(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for key in ["password", "passphrase", "secret"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(key) {
            let after = &text[from + i + key.len()..];
            from += i + key.len();
            let Some(v) = after.trim_start_matches([' ', '\t']).strip_prefix(':') else {
                continue;
            };
            let v = v.trim_start_matches([' ', '\t']);
            let end = v
                .find(|c: char| c.is_whitespace() || matches!(c, ',' | '}' | ']' | '#'))
                .unwrap_or(v.len());
            let v = v[..end].trim_matches(['"', '\'']);
            if v.len() >= 6 && text.matches(v).count() == 1 {
                out.push(v);
            }
        }
    }
    out
}
