//! Contract tests of the NVUE, EOS and SONiC command drivers.
//!
//! THE STAND-INS HERE ARE NOT THE VENDORS' DEVICES. `contract_nv`, `contract_eos_cli` and
//! `contract_sonic_config` are small bash scripts, written by these tests, that implement only the
//! documented command sequences railyard relies on (PUSH-DESIGN §1.1–1.3): state kept in files,
//! a real timer for confirm windows, every invocation recorded. They reached through a real
//! sshd on 127.0.0.1, and the tests assert railyard's *sequencing, units and cleanup* — never
//! NVUE, EOS or GCU semantics. Needs root (loud SKIP otherwise).

use crate::push_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use push_support::{
    FrrLab, Run, SshBox, build, connect_opts, lab_small_on, require_root, run_audit, run_push,
    wait_for, write_manifest,
};
use railyard::push::{
    Auth, CliSettings, ConfigSet, Driver, Endpoint, FrrSpec, Remote, SonicDriver,
};

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
        // Hand-written contract payloads, not a build: there is no manifest to match.
        let mut args = vec![
            "--from",
            out.to_str().expect("utf-8 path"),
            "--allow-edited",
        ];
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
    check_audit(
        &s,
        "applied.yaml",
        &NV_NEW.replace("hostname: sw1", "hostname: by-hand"),
        ("system > hostname = by-hand", "system > hostname = sw1"),
        &["config show -r applied -o yaml"],
    );
    assert!(!s.state.join("pending.yaml").exists());

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

/// The device and its drift in an audit report of one device: lines only on the device, lines
/// only in the build.
fn drift(v: &serde_json::Value) -> (String, Vec<String>, Vec<String>) {
    let d = &v["devices"][0];
    let lines = |k: &str| -> Vec<String> {
        d[k].as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l.as_str().map(str::to_string))
            .collect()
    };
    let device = d["device"].as_str().unwrap_or_default().to_string();
    (device, lines("removed"), lines("added"))
}

/// `railyard audit` right after a push: no drift; then the stand-in's state `file` rewritten by
/// hand to `edited`: that change named by device and line (`removed` only on the device, `added`
/// only in the build). Each audit runs exactly `reads` on the stand-in, nothing that stages or
/// applies. The state file is put back after.
fn check_audit(s: &Stand, file: &str, edited: &str, drifted: (&str, &str), reads: &[&str]) {
    let (w, out) = (s.sbox.path(), s.sbox.path().join("out"));
    write_manifest(&out);
    let state = s.state.join(file);
    let pushed = std::fs::read_to_string(&state).expect("state");
    for (text, code) in [(pushed.as_str(), 0), (edited, 1)] {
        std::fs::write(&state, text).expect("state");
        s.clear_calls();
        let (got, v) = run_audit(w, &out);
        assert_eq!(got, code, "{v}");
        let (removed, added) = if code == 0 {
            (vec![], vec![])
        } else {
            (vec![drifted.0.to_string()], vec![drifted.1.to_string()])
        };
        assert_eq!(drift(&v), ("sw1".to_string(), removed, added), "{v}");
        starts(&s.calls(), reads);
    }
    std::fs::write(&state, pushed).expect("restore");
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
    assert!(
        out.contains("DISRUPTIVE: MTU on Ethernet1: 1500 → 9214"),
        "disruptive change listed: {out}"
    );
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
    // Without --allow-disruptive the MTU change refuses the push before anything is staged
    // for commit; with it, the session sequence runs.
    let (code, out) = s.push("eos-ssh", &tool, "startup-config", EOS_NEW, &[]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("disruptive change(s) refused"), "{out}");
    s.clear_calls();
    let (code, out) = s.push(
        "eos-ssh",
        &tool,
        "startup-config",
        EOS_NEW,
        &["--confirm-timeout", "300", "--allow-disruptive"],
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
    check_audit(
        &s,
        "running",
        &EOS_NEW.replace("mtu 9214", "mtu 1500"),
        (
            "interface Ethernet1 > mtu 1500",
            "interface Ethernet1 > mtu 9214",
        ),
        &["show running-config"],
    );
    assert!(no_files_ending(&sessions, ".cfg"));

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

const DB_OLD: &str = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf-su01-01"}}}"#;

/// The SONiC stand-in on an FRR lab "switch": `config` is the contract script, CONFIG_DB its
/// JSON file (read back with `cat`), FRR the lab's real FRR (no container: exec prefix "").
struct SonicBox {
    lab: FrrLab,
    dev: String,
    bin: PathBuf,
    state: PathBuf,
    out: PathBuf,
    /// config_db.json as rendered (the test edits the file in `out` later).
    rendered: serde_json::Value,
}

impl SonicBox {
    fn start() -> SonicBox {
        let scratch = tempfile::tempdir().expect("tempdir");
        let spec = lab_small_on("sonic", scratch.path());
        let built = scratch.path().join("out");
        build(&spec, &built);
        let dev = "leaf-su01-01".to_string();
        let lab = FrrLab::start(&[&dev]);
        let bin = lab.path().join("bin");
        std::fs::create_dir_all(&bin).expect("bin");
        let tool = bin.join("contract_sonic_config");
        std::fs::write(&tool, CONTRACT_SONIC).expect("stand-in");
        let ok = Command::new("chmod")
            .arg("755")
            .arg(&tool)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "chmod");
        let state = bin.join("sonic-state");
        std::fs::create_dir_all(&state).expect("state");
        std::fs::write(state.join("db.json"), DB_OLD).expect("db");
        // The rendered pair, as `railyard build` wrote it (manifest included).
        let out = lab.path().join("out");
        let dst = out.join("configs").join(&dev);
        std::fs::create_dir_all(&dst).expect("out");
        for f in ["config_db.json", "frr.conf"] {
            std::fs::copy(built.join("configs").join(&dev).join(f), dst.join(f)).expect("copy");
        }
        std::fs::copy(built.join("manifest.json"), out.join("manifest.json")).expect("manifest");
        let r = lab.router(&dev);
        std::fs::write(
            lab.path().join("targets.yaml"),
            format!(
                "known_hosts: {kh}\nauth: {{agent: false, key_file: {key}}}\ndevices:\n  {dev}:\n    \
                 address: 127.0.0.1\n    port: {port}\n    user: root\n    driver: sonic-ssh\n    \
                 tool: {tool}\n    read: cat {db}\n    state_dir: {rstate}\n    \
                 frr: {{exec: '', vty_socket: {vty}, state_dir: {fstate}, config_dir: {etc}}}\n",
                kh = lab.known_hosts.display(),
                key = lab.key.display(),
                port = lab.port,
                tool = tool.display(),
                db = state.join("db.json").display(),
                rstate = lab.path().join("railyard-state").display(),
                vty = r.vty.display(),
                fstate = r.state_dir.display(),
                etc = r.config_dir.display(),
            ),
        )
        .expect("targets");
        let rendered = serde_json::from_slice(
            &std::fs::read(dst.join("config_db.json")).expect("config_db.json"),
        )
        .expect("rendered JSON");
        SonicBox {
            lab,
            dev,
            bin,
            state,
            out,
            rendered,
        }
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

    fn push(&self, extra: &[&str]) -> Run {
        let mut args = vec!["--from", self.out.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        run_push(self.lab.path(), &args, &[], None)
    }

    fn db(&self) -> serde_json::Value {
        self.db_now().expect("db.json")
    }

    /// CONFIG_DB now, `None` while the stand-in is rewriting it.
    fn db_now(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(self.state.join("db.json")).ok()?).ok()
    }

    fn rendered_db(&self) -> serde_json::Value {
        self.rendered.clone()
    }
}

#[test]
fn contract_sonic_both_halves_one_transaction_timer_and_cleanup() {
    if !require_root("contract_sonic_both_halves_one_transaction_timer_and_cleanup") {
        return;
    }
    let s = SonicBox::start();
    let rendered_frr =
        std::fs::read_to_string(s.out.join("configs").join(&s.dev).join("frr.conf")).expect("frr");
    let asn = rendered_frr
        .lines()
        .find(|l| l.starts_with("router bgp "))
        .expect("router bgp")
        .to_string();
    check_sonic_one_transaction(&s, &asn);
    check_sonic_second_push_unchanged(&s);
    check_sonic_audit(&s);
    check_sonic_unified_mode_refuses_frr_conf(&s);
    let edited = check_sonic_failed_replace_rolls_back_both(&s, &rendered_frr);
    check_sonic_unconfirmed_commit_reverts_both(&s, &edited);
}

impl SonicBox {
    /// The rendered `config_db.json` in the pushed output directory.
    fn config_db_file(&self) -> PathBuf {
        self.out
            .join("configs")
            .join(&self.dev)
            .join("config_db.json")
    }

    /// The rendered `frr.conf` in the pushed output directory.
    fn frr_file(&self) -> PathBuf {
        self.out.join("configs").join(&self.dev).join("frr.conf")
    }

    /// Where the driver keeps its files on the device.
    fn railyard_state(&self) -> PathBuf {
        self.lab.path().join("railyard-state")
    }
}

/// One transaction: the GCU sequence for config_db.json and the FRR sequence for frr.conf,
/// one revert timer for both, confirm saves both.
fn check_sonic_one_transaction(s: &SonicBox, asn: &str) {
    let router = s.lab.router(&s.dev);
    let r = s.push(&["--confirm-timeout", "90"]);
    assert_eq!(r.code, 0, "push of the rendered SONiC pair failed");
    assert!(
        r.stdout
            .contains(&format!("== {} (sonic-ssh): Confirmed", s.dev))
    );
    starts(
        &s.calls(),
        &[
            "checkpoint railyard-",
            "replace --dry-run ",
            "replace ",
            "save -y",
            "delete-checkpoint railyard-",
        ],
    );
    assert_eq!(
        s.db(),
        s.rendered_db(),
        "CONFIG_DB is not the rendered config_db.json"
    );
    assert!(router.running().contains(asn), "FRR half not applied");
    let saved = std::fs::read_to_string(router.config_dir.join("frr.conf")).unwrap_or_default();
    assert!(saved.contains(asn), "frr.conf not saved at confirm");
    assert!(no_files_ending(&s.state.join("checkpoints"), ".json"));
    let rstate = s.railyard_state();
    assert!(
        std::fs::read_dir(&rstate).map(|d| d.count()).unwrap_or(0) == 0,
        "files left in {}",
        rstate.display()
    );
    assert!(router.leftovers().is_empty(), "{:?}", router.leftovers());
}

/// Second push: nothing to do on either half.
fn check_sonic_second_push_unchanged(s: &SonicBox) {
    s.clear_calls();
    let r = s.push(&[]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout
            .contains(&format!("== {} (sonic-ssh): Unchanged", s.dev))
    );
    assert!(
        s.calls()
            .iter()
            .all(|c| !c.starts_with("replace /") && !c.starts_with("save"))
    );
}

/// `railyard audit` after the push: no drift on either half; then CONFIG_DB's hostname edited
/// by hand and a static route added with vtysh, each named with its file; the `config`
/// stand-in is never called (no checkpoint, no replace) and nothing is left on the device.
fn check_sonic_audit(s: &SonicBox) {
    let router = s.lab.router(&s.dev);
    s.clear_calls();
    let (code, v) = run_audit(s.lab.path(), &s.out);
    assert_eq!(
        (code, &v["devices"][0]["state"]),
        (0, &"in-sync".into()),
        "{v}"
    );
    let mut db = s.rendered_db();
    let hostname = db["DEVICE_METADATA"]["localhost"]["hostname"].clone();
    db["DEVICE_METADATA"]["localhost"]["hostname"] = "by-hand".into();
    std::fs::write(s.state.join("db.json"), db.to_string()).expect("edit");
    router.vtysh(&["conf t", "ip route 192.0.2.0/24 blackhole"]);
    let (code, v) = run_audit(s.lab.path(), &s.out);
    assert_eq!(code, 1, "{v}");
    let key = "config_db.json: DEVICE_METADATA > localhost > hostname";
    assert_eq!(
        drift(&v),
        (
            s.dev.clone(),
            vec![
                format!("{key} = by-hand"),
                "frr.conf: ip route 192.0.2.0/24 blackhole".to_string()
            ],
            vec![format!("{key} = {}", hostname.as_str().unwrap_or_default())]
        )
    );
    assert!(s.calls().is_empty(), "{:?}", s.calls());
    assert!(router.leftovers().is_empty(), "{:?}", router.leftovers());
    std::fs::write(s.state.join("db.json"), s.rendered_db().to_string()).expect("restore");
    router.vtysh(&["conf t", "no ip route 192.0.2.0/24 blackhole"]);
}

/// A config_db.json in a mode where CONFIG_DB generates FRR's config: frr.conf is refused.
fn check_sonic_unified_mode_refuses_frr_conf(s: &SonicBox) {
    let mut db = s.rendered_db();
    db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "unified".into();
    std::fs::write(
        s.config_db_file(),
        serde_json::to_vec_pretty(&db).expect("json"),
    )
    .expect("edit");
    let r = s.push(&["--allow-edited"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout.contains("docker_routing_config_mode to unified") && r.stdout.contains("frr.conf"),
        "{}",
        r.stdout
    );
}

/// Both halves edited in the output directory, and CONFIG_DB before they were pushed.
struct Edited {
    db: serde_json::Value,
    before_db: serde_json::Value,
}

/// GCU fails mid-replace while the FRR half changes too: both halves go back, nothing left.
fn check_sonic_failed_replace_rolls_back_both(s: &SonicBox, rendered_frr: &str) -> Edited {
    let router = s.lab.router(&s.dev);
    let rstate = s.railyard_state();
    let mut db = s.rendered_db();
    db["DEVICE_METADATA"]["localhost"]["hostname"] = "renamed".into();
    std::fs::write(
        s.config_db_file(),
        serde_json::to_vec_pretty(&db).expect("json"),
    )
    .expect("edit");
    std::fs::write(
        s.frr_file(),
        rendered_frr.replacen("router bgp", "!\nrouter bgp", 1)
            + "ip prefix-list EXTRA seq 5 permit 192.0.2.0/24\n",
    )
    .expect("edit frr");
    std::fs::write(s.state.join("fail-replace"), "").expect("inject");
    s.clear_calls();
    let before_db = s.db();
    let r = s.push(&["--allow-edited"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let calls = s.calls();
    assert!(
        calls.iter().any(|c| c.starts_with("rollback railyard-")),
        "{calls:?}"
    );
    assert!(
        calls
            .last()
            .is_some_and(|c| c.starts_with("delete-checkpoint")),
        "{calls:?}"
    );
    assert_eq!(s.db(), before_db);
    assert!(
        !router.running().contains("EXTRA"),
        "the FRR half was not rolled back"
    );
    assert!(router.leftovers().is_empty(), "{:?}", router.leftovers());
    // A failed run leaves its journal and nothing else: no saved copies, no device files.
    let txid = r
        .stdout
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().nth(1))
        .map(|t| t.trim_end_matches(':').to_string())
        .expect("txid");
    assert!(s.lab.path().join(format!("journal/{txid}.jsonl")).is_file());
    assert!(!s.lab.path().join(format!("journal.saved/{txid}")).exists());
    assert_eq!(
        std::fs::read_dir(&rstate).map(|d| d.count()).unwrap_or(0),
        0,
        "files left in {}",
        rstate.display()
    );
    let _ = std::fs::remove_file(s.state.join("fail-replace"));
    Edited { db, before_db }
}

/// Not confirmed: the one device-side timer rolls both halves back by itself.
fn check_sonic_unconfirmed_commit_reverts_both(s: &SonicBox, edited: &Edited) {
    let router = s.lab.router(&s.dev);
    let mut d = SonicDriver::new(
        Remote::new(
            endpoint(&s.lab),
            Auth {
                key_file: Some(s.lab.key.clone()),
                ..Auth::default()
            },
            connect_opts(),
            Duration::from_secs(60),
        ),
        CliSettings {
            tool: s.bin.join("contract_sonic_config").display().to_string(),
            state_dir: s.railyard_state().display().to_string(),
            tag: "ry-timer-sonic".into(),
        },
        format!("cat {}", s.state.join("db.json").display()),
        FrrSpec {
            exec: Some(String::new()),
            vty_socket: Some(router.vty.display().to_string()),
            state_dir: Some(router.state_dir.display().to_string()),
            config_dir: Some(router.config_dir.display().to_string()),
            ..FrrSpec::default()
        },
    );
    let set = ConfigSet {
        files: vec![
            (
                "config_db.json".into(),
                serde_json::to_vec(&edited.db).expect("json"),
            ),
            ("frr.conf".into(), std::fs::read(s.frr_file()).expect("frr")),
        ],
    };
    assert!(d.preflight(&set).expect("preflight").changed);
    // The window must outlast the FRR reload (seconds under load) for the check below.
    d.commit_confirmed(Duration::from_secs(15)).expect("commit");
    drop(d);
    assert_eq!(
        s.db()["DEVICE_METADATA"]["localhost"]["hostname"],
        "renamed"
    );
    assert!(router.running().contains("EXTRA"));
    wait_for("SONiC revert timer", Duration::from_secs(60), || {
        s.db_now().as_ref() == Some(&edited.before_db) && !router.running().contains("EXTRA")
    });
}

fn endpoint(lab: &FrrLab) -> Endpoint {
    Endpoint {
        host: "127.0.0.1".into(),
        port: lab.port,
        user: "root".into(),
        known_hosts: lab.known_hosts.clone(),
    }
}
