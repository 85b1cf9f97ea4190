//! The command-line conventions of the ecosystem, run on the real binary: a closed pipe ends a
//! command quietly, machine output is on standard output, `-` reads standard input, `--quiet`,
//! `--strict` with the spec's `diagnostics.allow`, completions a shell loads, a manual page
//! groff renders, `--version` with the commit, `catalog --format json`.

use std::io::Write as _;

use std::process::{Command, Stdio};

use crate::prereq;

use crate::common::railyard_in as railyard;

fn inv(name: &str) -> String {
    format!("{}/inventories/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// 128 + SIGPIPE: what a shell reports for `cat` or `grep` writing into a closed pipe.
const CLOSED_PIPE: i32 = 141;

/// Every command that prints on standard output, with its reader gone before it writes (`| head`
/// having exited): no panic (exit 101), no message, the closed pipe's status.
#[test]
fn a_closed_pipe_ends_every_printing_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (inv("lab-small.yaml"), inv("tor-cluster.yaml"));
    let commands: Vec<Vec<&str>> = vec![
        vec!["explain"],
        vec!["explain", "RY0204"],
        vec!["schema"],
        vec!["catalog"],
        vec!["catalog", "--format", "json"],
        vec!["summary", &a],
        vec!["summary", &a, "--format", "json"],
        vec!["validate", &a, "--format", "json"],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["impact", &a],
        vec!["diff", &a, &b],
        vec!["diff", &a, &b, "--format", "json"],
        vec!["--help"],
    ];
    for args in &commands {
        // The reader is gone before railyard starts: its first write meets a closed pipe.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
            .args(args)
            .current_dir(dir.path())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("binary runs");
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
        if args[0] == "--help" {
            // clap writes help itself (and ignores the error); what matters is no panic.
            continue;
        }
        assert_eq!(out.status.code(), Some(CLOSED_PIPE), "{args:?}: {err}");
        // Warnings about the spec may be there; no word about the pipe.
        assert!(
            !err.contains("error") && !err.to_lowercase().contains("pipe"),
            "{args:?}: {err}"
        );
    }
}

/// `--format json` is the command's answer: on standard output, whole, parseable; progress and
/// messages stay on standard error.
#[test]
fn machine_output_is_on_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let spec = inv("lab-small.yaml");
    let v = railyard(dir.path(), &["validate", &spec, "--format", "json"]);
    assert!(v.status.success(), "{}", text(&v.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&v.stdout).expect("JSON on stdout");
    assert_eq!(doc["format"], "railyard/validate/v1", "{doc}");
    assert!(
        doc["diagnostics"]
            .as_array()
            .is_some_and(|d| !d.is_empty() && d.iter().all(|d| d["code"].is_string())),
        "{doc}"
    );
    assert!(!text(&v.stderr).contains('['), "{}", text(&v.stderr));

    let b = railyard(
        dir.path(),
        &["build", &spec, "-o", "out", "--format", "json"],
    );
    assert!(b.status.success(), "{}", text(&b.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&b.stdout).expect("only JSON on stdout");
    assert_eq!(doc["format"], "railyard/build/v1", "{doc}");
    assert!(text(&b.stderr).contains("wrote "), "{}", text(&b.stderr));

    // One spelling of the option, everywhere; the old `summary --json` still works.
    let s = railyard(dir.path(), &["summary", &spec, "--format", "json"]);
    let old = railyard(dir.path(), &["summary", &spec, "--json"]);
    let summary: serde_json::Value = serde_json::from_slice(&s.stdout).expect("summary JSON");
    assert_eq!(s.stdout, old.stdout);
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/plan.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cluster"], plan["cluster"], "{summary}");
}

/// `-` is standard input: the same diagnostics as the file, named `<stdin>`.
#[test]
fn a_dash_reads_the_spec_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string(inv("lab-small.yaml")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["validate", "-", "--format", "short"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(spec.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("<stdin>:8:17: info[RY0501]"), "{err}");
}

/// `--quiet` prints no warning, progress or "wrote" line; errors still reach the user.
#[test]
fn quiet_prints_only_errors() {
    let dir = tempfile::tempdir().unwrap();
    let spec = inv("lab-small.yaml");
    let b = railyard(dir.path(), &["build", &spec, "-o", "out", "--quiet"]);
    assert!(b.status.success());
    assert_eq!(text(&b.stderr), "", "quiet build wrote to stderr");
    assert!(dir.path().join("out/manifest.json").is_file());
    std::fs::write(dir.path().join("bad.yaml"), "version: 1\nname: x\n").unwrap();
    let bad = railyard(
        dir.path(),
        &["validate", "bad.yaml", "-q", "--format", "short"],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("error[RY0002]"),
        "{}",
        text(&bad.stderr)
    );
}

/// `--strict` fails on any warning the spec has not accepted, not on advisory findings (spare
/// ports are `info`, #47 item 2); `diagnostics.allow` accepts one by code (counted, not shown),
/// names an unknown code as a located error, and never hides an error.
#[test]
fn strict_fails_on_warnings_the_spec_does_not_accept() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string(inv("lab-small.yaml")).unwrap();
    std::fs::write(dir.path().join("spare.yaml"), &spec).unwrap();
    let spare = railyard(
        dir.path(),
        &["validate", "spare.yaml", "--strict", "--format", "short"],
    );
    assert!(spare.status.success(), "{}", text(&spare.stderr));
    assert!(text(&spare.stderr).contains("info[RY0501]"));
    // sonic-rail-cluster: an unverified PCIe layout (RY0902, a warning) and spare ports.
    let warned = std::fs::read_to_string(inv("sonic-rail-cluster.yaml")).unwrap();
    std::fs::write(dir.path().join("plain.yaml"), &warned).unwrap();
    let plain = railyard(
        dir.path(),
        &["validate", "plain.yaml", "--strict", "--format", "short"],
    );
    assert_eq!(plain.status.code(), Some(1), "{}", text(&plain.stderr));
    assert!(
        text(&plain.stderr).contains("error[RY0902]")
            && text(&plain.stderr).contains("info[RY0501]"),
        "{}",
        text(&plain.stderr)
    );
    assert!(!dir.path().join("out").exists());
    let strict_build = railyard(dir.path(), &["build", "plain.yaml", "--strict"]);
    assert_eq!(strict_build.status.code(), Some(1));
    assert!(
        !dir.path().join("out").exists(),
        "a strict failure wrote outputs"
    );

    let accepted = format!("{warned}\ndiagnostics:\n  allow: [RY0902, RY0501]\n");
    std::fs::write(dir.path().join("accepted.yaml"), &accepted).unwrap();
    let ok = railyard(dir.path(), &["validate", "accepted.yaml", "--strict"]);
    let err = text(&ok.stderr);
    assert!(ok.status.success(), "{err}");
    assert!(!err.contains("RY0501") && !err.contains("RY0902"), "{err}");
    // Every finding of the two codes the strict run listed, counted.
    let listed = text(&plain.stderr)
        .lines()
        .filter(|l| l.contains("[RY0902]") || l.contains("[RY0501]"))
        .count();
    assert!(
        err.contains(&format!("{listed} accepted by `diagnostics.allow`")),
        "{err}"
    );
    // The report a customer reads lists no accepted warning, and says that some were accepted.
    let b = railyard(
        dir.path(),
        &["build", "accepted.yaml", "-o", "acc", "--strict"],
    );
    assert!(b.status.success(), "{}", text(&b.stderr));
    let page = std::fs::read_to_string(dir.path().join("acc/report.html")).unwrap();
    assert!(
        !page.contains("<code>RY0501</code>"),
        "an accepted warning is listed"
    );
    assert!(
        page.contains("diagnostics.allow: [RY0902, RY0501]"),
        "no word of the accepted warnings"
    );

    let unknown = format!("{spec}\ndiagnostics:\n  allow: [RY9999]\n");
    std::fs::write(dir.path().join("unknown.yaml"), &unknown).unwrap();
    let line = unknown.lines().count();
    let u = railyard(
        dir.path(),
        &["validate", "unknown.yaml", "--format", "short"],
    );
    assert_eq!(u.status.code(), Some(1));
    assert!(
        text(&u.stderr).contains(&format!("unknown.yaml:{line}:11: error[RY0002]")),
        "{}",
        text(&u.stderr)
    );

    // An error with an allowed code is still an error.
    let broken = spec.replace("count: 2", "count: 0")
        + "\ndiagnostics:\n  allow: [RY0002, RY0501, RY0204]\n";
    std::fs::write(dir.path().join("broken.yaml"), &broken).unwrap();
    let b = railyard(
        dir.path(),
        &["validate", "broken.yaml", "--format", "short"],
    );
    assert_eq!(b.status.code(), Some(1), "{}", text(&b.stderr));
    assert!(
        text(&b.stderr).contains("error[RY0201]"),
        "{}",
        text(&b.stderr)
    );
}

/// Errors come before warnings and advisory findings, so what must be fixed is read first.
#[test]
fn errors_print_before_warnings() {
    let dir = tempfile::tempdir().unwrap();
    // Leaf-spine runs of 3 km (beyond every module's reach: an error of the physical layer),
    // on a fabric with spare ports (advisory findings of an earlier stage).
    let spec = std::fs::read_to_string(inv("lab-small.yaml")).unwrap()
        + "\ncabling: {leaf_spine_m: 3000}\n";
    std::fs::write(dir.path().join("s.yaml"), &spec).unwrap();
    let out = railyard(dir.path(), &["validate", "s.yaml", "--format", "short"]);
    let err = text(&out.stderr);
    let first_warning = err.find("info[").expect("advisory findings");
    let last_error = err.rfind("error[").expect("an error");
    assert!(last_error < first_warning, "{err}");
}

/// Completion scripts for bash, zsh and fish from clap's generator; bash loads its own and
/// completes a subcommand.
#[test]
fn completions_load_in_bash() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = railyard(dir.path(), &["completions", shell]);
        assert!(out.status.success(), "{shell}");
        assert!(text(&out.stdout).contains("railyard"), "{shell}");
    }
    if !prereq::require(
        "completions_load_in_bash",
        "bash",
        Command::new("bash").arg("--version").output().is_ok(),
        "apt-get install bash",
    ) {
        return;
    }
    let script = railyard(dir.path(), &["completions", "bash"]).stdout;
    std::fs::write(dir.path().join("railyard.bash"), script).unwrap();
    let probe = r#"source ./railyard.bash
complete -p railyard
COMP_WORDS=(railyard bui); COMP_CWORD=1; COMP_LINE="railyard bui"; COMP_POINT=${#COMP_LINE}
_railyard railyard bui railyard
printf '%s\n' "${COMPREPLY[@]}""#;
    let out = Command::new("bash")
        .args(["-c", probe])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("-F _railyard railyard"), "{stdout}");
    assert!(stdout.lines().any(|l| l == "build"), "{stdout}");
}

/// The manual pages come from the same definition as `--help`; groff (man's formatter) renders
/// railyard(1) with every command in it.
#[test]
fn the_manual_page_renders() {
    let dir = tempfile::tempdir().unwrap();
    let page = railyard(dir.path(), &["man"]);
    assert!(page.status.success());
    assert!(text(&page.stdout).starts_with(".ie") || text(&page.stdout).contains(".TH railyard 1"));
    let pages = railyard(dir.path(), &["man", "--dir", "man"]);
    assert!(pages.status.success(), "{}", text(&pages.stderr));
    for p in [
        "railyard.1",
        "railyard-build.1",
        "railyard-diff.1",
        "railyard-lab-up.1",
    ] {
        assert!(dir.path().join("man").join(p).is_file(), "{p}");
    }
    if !prereq::require(
        "the_manual_page_renders",
        "groff",
        Command::new("groff").arg("--version").output().is_ok(),
        "apt-get install groff-base",
    ) {
        return;
    }
    let out = Command::new("groff")
        .args(["-man", "-Tutf8", "man/railyard.1"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let rendered = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for cmd in ["build", "validate", "diff", "push", "completions"] {
        assert!(rendered.contains(cmd), "{cmd} missing:\n{rendered}");
    }
}

/// `--version` names the commit it was built from (or says it is unknown outside git).
#[test]
fn version_names_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let v = text(&railyard(dir.path(), &["--version"]).stdout);
    assert!(v.starts_with("railyard "), "{v}");
    assert!(
        v.contains("(commit ") || v.contains("(unknown commit)"),
        "{v}"
    );
}

/// `catalog --format json`: every built-in model with its ports and breakouts, and the
/// built-in examples, which are exactly the specs under `inventories/`.
#[test]
fn catalog_json_lists_ports_breakouts_and_examples() {
    let dir = tempfile::tempdir().unwrap();
    let out = railyard(dir.path(), &["catalog", "--format", "json"]);
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(c["version"], 1);
    let sn5600 = &c["switches"]["sn5600"];
    assert_eq!(sn5600["port_groups"][0]["count"], 64, "{sn5600}");
    assert!(
        sn5600["port_groups"][0]["breakouts"]
            .as_array()
            .is_some_and(|b| b.iter().any(|b| b == "2x400G")),
        "{sn5600}"
    );
    assert!(
        c["nodes"]["dgx-h100"]["compute"]
            .as_array()
            .is_some_and(|n| n.len() == 8)
    );
    let mut on_disk: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/inventories"))
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".yaml").map(str::to_string)
            })
            .collect();
    on_disk.sort();
    let listed: Vec<String> = c["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, on_disk);
}
