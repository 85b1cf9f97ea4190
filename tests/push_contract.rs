//! Contract tests of the NVUE, EOS and SONiC command drivers.
//!
//! THE STAND-INS HERE ARE NOT THE VENDORS' DEVICES. `contract_nv`, `contract_eos_cli` and
//! `contract_sonic_config` are small bash scripts, written by these tests, that implement only the
//! documented command sequences railyard relies on (PUSH-DESIGN §1.1–1.3): state kept in files,
//! a real timer for confirm windows, every invocation recorded. They reached through a real
//! sshd on 127.0.0.1, and the tests assert railyard's *sequencing, units and cleanup* — never
//! NVUE, EOS or GCU semantics. Needs root (loud SKIP otherwise).

mod push_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use push_support::{SshBox, connect_opts, require_root, run_push, wait_for};
use railyard::push::cli_drivers::{CliSettings, Remote, SonicDriver};
use railyard::push::driver::Driver;

const CONTRACT_NV: &str = r#"#!/bin/bash
# CONTRACT STAND-IN — not NVIDIA's nv. Implements only the documented NVUE sequence railyard uses:
# config replace|diff|detach|show -r applied -o yaml|apply --confirm <N>s -y|--confirm-yes|--confirm-no.
set -u
S="$(dirname "$0")/nv-state"; mkdir -p "$S"; touch "$S/applied.yaml"
echo "$*" >> "$S/calls.log"
[ "${1:-}" = config ] || { echo "unknown command" >&2; exit 2; }
shift
case "${1:-}" in
  replace) cp "$2" "$S/pending.yaml" ;;
  diff) if [ -f "$S/pending.yaml" ]; then diff -u "$S/applied.yaml" "$S/pending.yaml" | tail -n +3; fi; true ;;
  detach) rm -f "$S/pending.yaml" ;;
  show) cat "$S/applied.yaml" ;;
  apply)
    case "${2:-}" in
      --confirm)
        t="$3"
        [[ "$t" =~ ^[0-9]+s$ ]] || { echo "ambiguous --confirm unit: $t" >&2; exit 2; }
        [ "${4:-}" = -y ] || { echo "would prompt" >&2; exit 2; }
        [ -f "$S/pending.yaml" ] || { echo "nothing pending" >&2; exit 1; }
        [ -f "$S/fail-apply" ] && { echo "apply failed" >&2; exit 1; }
        [ -f "$S/confirm.pid" ] && { echo "a confirm is already pending" >&2; exit 1; }
        cp "$S/applied.yaml" "$S/rollback.yaml"; mv "$S/pending.yaml" "$S/applied.yaml"
        setsid bash -c "sleep ${t%s}; cp '$S/rollback.yaml' '$S/applied.yaml'; rm -f '$S/confirm.pid'" </dev/null >/dev/null 2>&1 &
        echo $! > "$S/confirm.pid" ;;
      --confirm-yes)
        [ -f "$S/confirm.pid" ] || { echo "no pending confirm" >&2; exit 1; }
        kill -- -"$(cat "$S/confirm.pid")"; rm -f "$S/confirm.pid" ;;
      --confirm-no)
        [ -f "$S/confirm.pid" ] || { echo "no pending confirm" >&2; exit 1; }
        kill -- -"$(cat "$S/confirm.pid")"; rm -f "$S/confirm.pid"
        cp "$S/rollback.yaml" "$S/applied.yaml" ;;
      *) echo "unsupported apply form" >&2; exit 2 ;;
    esac ;;
  *) echo "unsupported" >&2; exit 2 ;;
esac
"#;

const CONTRACT_EOS: &str = r#"#!/bin/bash
# CONTRACT STAND-IN — not Arista EOS. Reads CLI commands on stdin and implements only the
# documented config-session sequence: configure session S [commit timer hh:mm:ss|commit|abort],
# rollback clean-config, end, show session-config named S diffs, show running-config; at most 5
# pending sessions.
S="$(dirname "$0")/eos-state"; mkdir -p "$S/sessions"; touch "$S/running"
cur=""
while IFS= read -r line; do
  echo "$line" >> "$S/calls.log"
  case "$line" in
    "configure session "*)
      rest=${line#configure session }; name=${rest%% *}; verb=${rest#"$name"}; verb=${verb# }
      f="$S/sessions/$name"
      case "$verb" in
        "")
          n=$(ls "$S/sessions" | grep -c '\.cfg$')
          if [ ! -f "$f.cfg" ] && [ "$n" -ge 5 ]; then echo "% Maximum number of pending sessions has been reached"; exit 1; fi
          [ -f "$f.cfg" ] || cp "$S/running" "$f.cfg"; cur=$name ;;
        "commit timer "*)
          t=${verb#commit timer }
          [[ "$t" =~ ^[0-9][0-9]:[0-5][0-9]:[0-5][0-9]$ ]] || { echo "% Invalid timer $t"; exit 1; }
          [ -f "$f.cfg" ] || { echo "% No such session $name"; exit 1; }
          secs=$((10#${t:0:2}*3600 + 10#${t:3:2}*60 + 10#${t:6:2}))
          cp "$S/running" "$f.rollback"; cp "$f.cfg" "$S/running"
          setsid bash -c "sleep $secs; cp '$f.rollback' '$S/running'; rm -f '$f.cfg' '$f.rollback' '$f.timer'" </dev/null >/dev/null 2>&1 &
          echo $! > "$f.timer" ;;
        commit)
          if [ -f "$f.timer" ]; then kill -- -"$(cat "$f.timer")";
          elif [ -f "$f.cfg" ]; then cp "$f.cfg" "$S/running";
          else echo "% No such session $name"; exit 1; fi
          rm -f "$f.cfg" "$f.rollback" "$f.timer" ;;
        abort)
          if [ -f "$f.timer" ]; then kill -- -"$(cat "$f.timer")"; cp "$f.rollback" "$S/running"; fi
          rm -f "$f.cfg" "$f.rollback" "$f.timer" ;;
        *) echo "% Invalid input"; exit 1 ;;
      esac ;;
    "rollback clean-config") [ -n "$cur" ] || { echo "% Not in a session"; exit 1; }; : > "$S/sessions/$cur.cfg" ;;
    "end") cur="" ;;
    "show session-config named "*" diffs")
      rest=${line#show session-config named }; name=${rest%% *}
      diff -u "$S/running" "$S/sessions/$name.cfg" | tail -n +3; true ;;
    "show running-config") cat "$S/running" ;;
    *)
      if [ -n "$cur" ]; then printf '%s\n' "$line" >> "$S/sessions/$cur.cfg";
      else echo "% Invalid input (not in a session): $line"; exit 1; fi ;;
  esac
done
"#;

const CONTRACT_SONIC: &str = r#"#!/bin/bash
# CONTRACT STAND-IN — not SONiC's config/GCU. Keeps CONFIG_DB as a JSON file and implements only:
# checkpoint N, delete-checkpoint N, replace [--dry-run] F, rollback [--dry-run] N, save -y.
# A dry run prints [] when nothing would change (stand-in convention for an empty JSON patch).
S="$(dirname "$0")/sonic-state"; mkdir -p "$S/checkpoints"; [ -f "$S/db.json" ] || echo '{}' > "$S/db.json"
echo "$*" >> "$S/calls.log"
same() { cmp -s <(python3 -m json.tool --sort-keys "$1") <(python3 -m json.tool --sort-keys "$2"); }
case "${1:-}" in
  checkpoint) cp "$S/db.json" "$S/checkpoints/$2.cp.json" ;;
  delete-checkpoint) rm -f "$S/checkpoints/$2.cp.json" ;;
  replace)
    if [ "$2" = --dry-run ]; then
      python3 -m json.tool "$3" >/dev/null || { echo "invalid JSON" >&2; exit 1; }
      if same "$S/db.json" "$3"; then echo "[]"; else echo "Patch Applier: would apply:"; diff <(python3 -m json.tool --sort-keys "$S/db.json") <(python3 -m json.tool --sort-keys "$3"); true; fi
    else
      [ -f "$S/fail-replace" ] && { echo "Patch Applier: Failed to apply patch" >&2; exit 1; }
      cp "$2" "$S/db.json"
    fi ;;
  rollback)
    if [ "$2" = --dry-run ]; then
      if same "$S/db.json" "$S/checkpoints/$3.cp.json"; then echo "[]"; else echo "would roll back"; fi
    else
      [ -f "$S/checkpoints/$2.cp.json" ] || { echo "no checkpoint $2" >&2; exit 1; }
      cp "$S/checkpoints/$2.cp.json" "$S/db.json"
    fi ;;
  save) [ "${2:-}" = -y ] || { echo "would prompt" >&2; exit 2; }; cp "$S/db.json" "$S/saved.json" ;;
  *) echo "unsupported" >&2; exit 2 ;;
esac
"#;

/// A box with one stand-in installed at `<dir>/bin/<name>`.
struct Stand {
    sbox: SshBox,
    bin: PathBuf,
    state: PathBuf,
}

fn stand(name: &str, script: &str, state: &str) -> Stand {
    let sbox = SshBox::start(None);
    let bin = sbox.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let tool = bin.join(name);
    std::fs::write(&tool, script).expect("stand-in");
    let ok = Command::new("chmod")
        .arg("755")
        .arg(&tool)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "chmod");
    let state = bin.join(state);
    std::fs::create_dir_all(&state).expect("state");
    Stand { sbox, bin, state }
}

impl Stand {
    fn tool(&self, name: &str) -> String {
        self.bin.join(name).display().to_string()
    }

    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.state.join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn clear_calls(&self) {
        let _ = std::fs::remove_file(self.state.join("calls.log"));
    }

    /// `railyard push` with one device of `driver` whose file is `file`.
    fn push(
        &self,
        driver: &str,
        tool: &str,
        file: &str,
        config: &str,
        extra: &[&str],
    ) -> (i32, String) {
        let w = self.sbox.path();
        let out = w.join("out/configs/sw1");
        std::fs::create_dir_all(&out).expect("out");
        std::fs::write(out.join(file), config).expect("config");
        std::fs::write(
            w.join("targets.yaml"),
            format!(
                "known_hosts: {kh}\nauth: {{agent: false, key_file: {key}}}\ndevices:\n  sw1:\n    \
                 address: 127.0.0.1\n    port: {port}\n    user: root\n    driver: {driver}\n    \
                 tool: {tool}\n    state_dir: {state}\n",
                kh = self.sbox.known_hosts.display(),
                key = self.sbox.key.display(),
                port = self.sbox.port,
                state = w.join("railyard-state").display(),
            ),
        )
        .expect("targets");
        let out = w.join("out");
        let mut args = vec!["--from", out.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        let r = run_push(w, &args, &[], None);
        (r.code, format!("{}{}", r.stdout, r.stderr))
    }
}

fn starts(calls: &[String], prefixes: &[&str]) {
    let got: Vec<&str> = calls.iter().map(String::as_str).collect();
    assert_eq!(got.len(), prefixes.len(), "calls: {got:#?}");
    for (c, p) in got.iter().zip(prefixes) {
        assert!(c.starts_with(p), "expected `{p}…`, got `{c}` in {got:#?}");
    }
}

fn no_files_ending(dir: &Path, suffix: &str) -> bool {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .all(|e| !e.file_name().to_string_lossy().ends_with(suffix))
        })
        .unwrap_or(true)
}

const NV_OLD: &str = "- set:\n    system:\n      hostname: sw1\n";
const NV_NEW: &str =
    "- set:\n    system:\n      hostname: sw1\n    interface:\n      swp1:\n        type: swp\n";

#[test]
fn contract_nvue_sequence_units_and_cleanup() {
    if !require_root("contract_nvue_sequence_units_and_cleanup") {
        return;
    }
    let s = stand("contract_nv", CONTRACT_NV, "nv-state");
    std::fs::write(s.state.join("applied.yaml"), NV_OLD).expect("applied");
    let tool = s.tool("contract_nv");

    // Dry run: replace, diff, detach — nothing applied.
    let (code, out) = s.push("nvue-ssh", &tool, "startup.yaml", NV_NEW, &["--dry-run"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("+        type: swp"),
        "native diff shown: {out}"
    );
    starts(
        &s.calls(),
        &[
            "config show -r applied",
            "config replace ",
            "config diff",
            "config detach",
        ],
    );
    assert!(!s.state.join("pending.yaml").exists());

    // Push: apply with an explicit seconds unit, verify over a fresh session, confirm.
    s.clear_calls();
    let (code, out) = s.push(
        "nvue-ssh",
        &tool,
        "startup.yaml",
        NV_NEW,
        &["--confirm-timeout", "120"],
    );
    assert_eq!(code, 0, "{out}");
    starts(
        &s.calls(),
        &[
            "config show -r applied",
            "config replace ",
            "config diff",
            "config apply --confirm 120s -y",
            "config show -r applied",
            "config apply --confirm-yes",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(s.state.join("applied.yaml")).unwrap_or_default(),
        NV_NEW
    );
    assert!(
        !s.state.join("confirm.pid").exists(),
        "confirm timer left running"
    );

    // Unchanged: never applied.
    s.clear_calls();
    let (code, _) = s.push("nvue-ssh", &tool, "startup.yaml", NV_NEW, &[]);
    assert_eq!(code, 0);
    assert!(
        s.calls().iter().all(|c| !c.starts_with("config apply")),
        "{:?}",
        s.calls()
    );

    // A failing apply: cancelled, pending detached, device back at its config.
    std::fs::write(s.state.join("fail-apply"), "").expect("inject");
    s.clear_calls();
    let (code, out) = s.push("nvue-ssh", &tool, "startup.yaml", NV_OLD, &[]);
    assert_eq!(code, 1, "{out}");
    let calls = s.calls();
    assert!(
        calls.iter().any(|c| c == "config apply --confirm-no"),
        "{calls:?}"
    );
    assert!(calls.iter().any(|c| c == "config detach"), "{calls:?}");
    assert!(
        !s.state.join("pending.yaml").exists(),
        "pending left behind"
    );
    assert_eq!(
        std::fs::read_to_string(s.state.join("applied.yaml")).unwrap_or_default(),
        NV_NEW
    );
}

const EOS_OLD: &str = "hostname sw1\n!\ninterface Ethernet1\n   mtu 1500\n!\nend\n";
const EOS_NEW: &str = "hostname sw1\n!\ninterface Ethernet1\n   mtu 9214\n   no shutdown\n!\nrouter bgp 65001\n   router-id 10.0.0.1\n!\nend\n";

#[test]
fn contract_eos_sequence_units_and_cleanup() {
    if !require_root("contract_eos_sequence_units_and_cleanup") {
        return;
    }
    let s = stand("contract_eos_cli", CONTRACT_EOS, "eos-state");
    std::fs::write(s.state.join("running"), EOS_OLD).expect("running");
    let tool = s.tool("contract_eos_cli");
    let sessions = s.state.join("sessions");

    let (code, out) = s.push("eos-ssh", &tool, "startup-config", EOS_NEW, &["--dry-run"]);
    assert_eq!(code, 0, "{out}");
    let calls = s.calls();
    assert!(
        calls.iter().any(|c| c == "rollback clean-config"),
        "{calls:?}"
    );
    assert!(
        calls.last().is_some_and(|c| c.ends_with(" abort")),
        "{calls:?}"
    );
    assert!(
        no_files_ending(&sessions, ".cfg"),
        "session left pending by a dry run"
    );

    s.clear_calls();
    let (code, out) = s.push(
        "eos-ssh",
        &tool,
        "startup-config",
        EOS_NEW,
        &["--confirm-timeout", "300"],
    );
    assert_eq!(code, 0, "{out}");
    let calls = s.calls();
    let session = calls
        .first()
        .and_then(|c| c.strip_prefix("show running-config").map(|_| ()))
        .and_then(|()| calls.get(1))
        .and_then(|c| c.strip_prefix("configure session "))
        .expect("session opened after reading running")
        .to_string();
    assert!(session.starts_with("railyard-"), "{session}");
    for want in [
        "rollback clean-config".to_string(),
        "   mtu 9214".to_string(),
        format!("show session-config named {session} diffs"),
        format!("configure session {session} commit timer 00:05:00"),
        format!("configure session {session} commit"),
    ] {
        assert!(calls.contains(&want), "missing `{want}` in {calls:#?}");
    }
    let pos = |x: &str| calls.iter().position(|c| c == x).unwrap_or(usize::MAX);
    assert!(
        pos(&format!(
            "configure session {session} commit timer 00:05:00"
        )) < pos(&format!("configure session {session} commit"))
    );
    assert!(no_files_ending(&sessions, ".cfg") && no_files_ending(&sessions, ".timer"));

    // Five leaked foreign sessions: EOS's cap refuses a sixth; railyard stops at preflight and
    // leaves the foreign sessions alone.
    for i in 0..5 {
        std::fs::write(sessions.join(format!("someone-{i}.cfg")), "").expect("leak");
    }
    let (code, out) = s.push("eos-ssh", &tool, "startup-config", EOS_OLD, &[]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("Maximum number of pending sessions"), "{out}");
    assert!(sessions.join("someone-0.cfg").exists());
}

const DB_OLD: &str = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "sw1"}}}"#;
const DB_NEW: &str = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "sw1"}}, "PORT": {"Ethernet0": {"mtu": "9100"}}}"#;

#[test]
fn contract_sonic_sequence_timer_and_cleanup() {
    if !require_root("contract_sonic_sequence_timer_and_cleanup") {
        return;
    }
    let s = stand("contract_sonic_config", CONTRACT_SONIC, "sonic-state");
    std::fs::write(s.state.join("db.json"), DB_OLD).expect("db");
    let tool = s.tool("contract_sonic_config");

    let (code, out) = s.push(
        "sonic-ssh",
        &tool,
        "config_db.json",
        DB_NEW,
        &["--confirm-timeout", "90"],
    );
    assert_eq!(code, 0, "{out}");
    starts(
        &s.calls(),
        &[
            "checkpoint railyard-",
            "replace --dry-run ",
            "replace ",
            "replace --dry-run ",
            "save -y",
            "delete-checkpoint railyard-",
        ],
    );
    assert!(no_files_ending(&s.state.join("checkpoints"), ".json"));
    let rstate = s.sbox.path().join("railyard-state");
    assert!(
        no_files_ending(&rstate, "timer.pid"),
        "revert timer left armed"
    );

    // GCU fails mid-replace: railyard rolls back to its checkpoint and cleans up.
    std::fs::write(s.state.join("fail-replace"), "").expect("inject");
    s.clear_calls();
    let (code, out) = s.push("sonic-ssh", &tool, "config_db.json", DB_OLD, &[]);
    assert_eq!(code, 1, "{out}");
    let calls = s.calls();
    assert!(
        calls.iter().any(|c| c.starts_with("rollback railyard-")),
        "{calls:?}"
    );
    assert!(
        calls
            .iter()
            .any(|c| c.starts_with("rollback --dry-run railyard-")),
        "{calls:?}"
    );
    assert!(
        calls
            .last()
            .is_some_and(|c| c.starts_with("delete-checkpoint")),
        "{calls:?}"
    );
    assert!(no_files_ending(&rstate, "timer.pid"));
    let _ = std::fs::remove_file(s.state.join("fail-replace"));

    // Not confirmed: the device-side timer rolls back by itself (railyard gone).
    let mut d = SonicDriver::new(
        Remote::new(
            s.sbox.endpoint(),
            s.sbox.auth(),
            connect_opts(),
            Duration::from_secs(30),
        ),
        CliSettings {
            tool: tool.clone(),
            state_dir: rstate.display().to_string(),
            tag: "ry-timer-sw1".into(),
        },
    );
    d.preflight(DB_OLD.as_bytes()).expect("preflight");
    d.commit_confirmed(Duration::from_secs(1)).expect("commit");
    drop(d);
    let db = s.state.join("db.json");
    let now_new = std::fs::read_to_string(&db).unwrap_or_default();
    assert!(!now_new.contains("Ethernet0"), "the change was not applied");
    wait_for("SONiC revert timer", Duration::from_secs(10), || {
        std::fs::read_to_string(&db)
            .unwrap_or_default()
            .contains("Ethernet0")
    });
}
