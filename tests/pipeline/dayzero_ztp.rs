//! The ZTP files (`dayzero/ztp/<switch>/`, #45 item 3): every generated script of every example
//! passes `bash -n` and ShellCheck; SONiC's `ztp.json` has the sections of sonic-net/SONiC
//! `doc/ztp/ztp.md` and points at files the build has; and the Cumulus script, run against the
//! build served by a real `python3 -m http.server` with a recording stand-in for `nv`, checks the
//! release, issues `nv config replace` then `nv config apply -y` and installs a `startup.yaml`
//! byte-identical to the build's, and refuses a wrong release or an unfilled secret.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use railyard::dayzero::ProvisioningUrl;
use railyard::diag::{Diagnostics, SourceFile};
use serde_json::Value;

use crate::common::railyard_in;
use crate::prereq;

/// The day-zero files of an example whose every switch has a (generated) MAC, by path.
fn dayzero(example: &str) -> Vec<railyard::output::OutputFile> {
    let c = railyard::compile(&SourceFile::new(example, crate::common::inventory(example)));
    let design = c.design.expect("compiled");
    let mut ids = String::from("name,mac_address\n");
    for (i, d) in design
        .fabric
        .devices()
        .filter(|d| d.role.is_switch())
        .enumerate()
    {
        ids.push_str(&format!(
            "{},02:00:00:00:{:02x}:{:02x}\n",
            d.name,
            i >> 8,
            i & 255
        ));
    }
    let mut diags = Diagnostics::default();
    let ids =
        railyard::dayzero::parse(&SourceFile::new("ids.csv", ids), &design.fabric, &mut diags);
    let url = ProvisioningUrl::parse("http://192.0.2.10/site-a").expect("url");
    railyard::dayzero::files(&design, &ids, Some(&url), &mut diags)
        .expect("written")
        .unwrap_or_else(|| panic!("{example}: {:?}", diags.sorted()))
}

fn examples() -> Vec<String> {
    let mut out: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/inventories"))
            .expect("inventories")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
    out.sort();
    out
}

#[test]
fn every_generated_script_passes_bash_n_and_shellcheck() {
    let test = "every_generated_script_passes_bash_n_and_shellcheck";
    let (Some(bash), Some(shellcheck)) = (
        prereq::program(test, "bash", "bash"),
        prereq::program(test, "shellcheck", "shellcheck"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut kinds = std::collections::BTreeSet::new();
    for example in examples() {
        let mut scripts = Vec::new();
        for f in dayzero(&example)
            .iter()
            .filter(|f| f.bytes.starts_with(b"#!/bin/bash\n"))
        {
            let path = dir.path().join(f.path.replace('/', "__"));
            std::fs::write(&path, &f.bytes).expect("write");
            let out = Command::new(&bash)
                .arg("-n")
                .arg(&path)
                .output()
                .expect("bash");
            assert!(
                out.status.success(),
                "{example} {}: {}",
                f.path,
                String::from_utf8_lossy(&out.stderr)
            );
            kinds.insert(f.path.rsplit('/').next().expect("name").to_owned());
            scripts.push(path);
        }
        for chunk in scripts.chunks(200) {
            let out = Command::new(&shellcheck)
                .arg("--shell=bash")
                .args(chunk)
                .output()
                .expect("shellcheck");
            assert!(
                out.status.success(),
                "{example}: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
    assert_eq!(
        kinds,
        ["bootstrap", "cumulus-ztp.sh", "frr.sh"],
        "every OS's script was checked"
    );
}

#[test]
fn sonic_ztp_json_has_the_documented_sections_pointing_at_the_builds_files() {
    let example = "sonic-rail-cluster.yaml";
    let built = crate::common::example_outputs(example);
    let files = dayzero(example);
    let ztp: Vec<_> = files
        .iter()
        .filter(|f| f.path.ends_with("/ztp.json"))
        .collect();
    assert!(!ztp.is_empty());
    for f in ztp {
        let switch = f.path.split('/').nth(2).expect("switch");
        let json: Value = serde_json::from_slice(&f.bytes).expect("json");
        let sections = json["ztp"].as_object().expect("a `ztp` object first");
        let names: Vec<&String> = sections.keys().collect();
        assert_eq!(
            names,
            ["01-configdb-json", "02-provisioning-script"],
            "{}",
            f.path
        );
        let configdb = &sections["01-configdb-json"]["url"];
        assert_eq!(configdb["destination"], "/etc/sonic/config_db.json");
        let source = configdb["source"].as_str().expect("source");
        let rel = source
            .strip_prefix("http://192.0.2.10/site-a/")
            .expect("under the URL");
        assert_eq!(rel, format!("configs/{switch}/config_db.json"));
        assert!(built.iter().any(|b| b.path == rel), "{rel} is in the build");
        let script = sections["02-provisioning-script"]["plugin"]["url"]
            .as_str()
            .expect("plugin url");
        let rel = script
            .strip_prefix("http://192.0.2.10/site-a/")
            .expect("under the URL");
        assert!(files.iter().any(|b| b.path == rel), "{rel} is written");
        assert_eq!(
            sections["02-provisioning-script"]["reboot-on-success"],
            true
        );
    }
}

/// `python3 -m http.server` serving `dir` on a free local port; killed when dropped.
struct Served(Child, u16);

impl Served {
    fn start(python: &Path, dir: &Path) -> Served {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("port")
            .local_addr()
            .expect("addr")
            .port();
        // Owned at once: a failed start below still ends the server (Drop).
        let served = Served(
            Command::new(python)
                .args([
                    "-m",
                    "http.server",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--directory",
                ])
                .arg(dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("http.server starts"),
            port,
        );
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return served;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("http.server did not listen on {port}");
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `nv` stand-in on PATH: each call's arguments on a line of `nv.log`; `config replace FILE`
/// keeps a copy of FILE as `replaced.yaml`.
fn stand_ins(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let log = dir.join("nv.log");
    let kept = dir.join("replaced.yaml");
    let nv = format!(
        "#!/bin/bash\nprintf '%s\\n' \"$*\" >> '{}'\nif [ \"$1 $2\" = 'config replace' ]; then cp \"$3\" '{}'; fi\n",
        log.display(),
        kept.display()
    );
    std::fs::write(bin.join("nv"), nv).expect("nv");
    Command::new("chmod")
        .arg("+x")
        .arg(bin.join("nv"))
        .status()
        .expect("chmod");
    bin
}

/// The script run as ZTP runs it, with `/etc/os-release` saying `version` (bind-mounted in a
/// private mount namespace) and the stand-ins first on PATH: its exit code and stderr.
fn run_ztp(script: &Path, work: &Path, version: &str) -> (Option<i32>, String) {
    let release = work.join("os-release");
    std::fs::write(
        &release,
        format!("NAME=\"Cumulus Linux\"\nVERSION_ID={version}\n"),
    )
    .expect("os-release");
    let path = format!(
        "{}:{}",
        work.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("unshare")
        .args([
            "-m",
            "bash",
            "-c",
            "mount --bind \"$1\" /etc/os-release && exec bash \"$2\"",
            "ztp",
        ])
        .arg(&release)
        .arg(script)
        .env("PATH", path)
        .output()
        .expect("unshare runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn nv_calls(work: &Path) -> Vec<String> {
    std::fs::read_to_string(work.join("nv.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_cumulus_script_installs_the_builds_startup_yaml_in_the_documented_sequence() {
    let test = "the_cumulus_script_installs_the_builds_startup_yaml_in_the_documented_sequence";
    if !prereq::root(test) {
        return;
    }
    let (Some(python), Some(_)) = (
        prereq::program(test, "python3", "python3"),
        prereq::program(test, "curl", "curl"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let leaf = "leaf-su01-01";
    std::fs::write(
        dir.path().join("ids.csv"),
        format!("name,mac_address\n{leaf},02:00:00:00:00:01\n"),
    )
    .expect("ids");
    // The port is known before the build: the URL is in the reservation and the script.
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).expect("site");
    let served = Served::start(&python, &site);
    let url = format!("http://127.0.0.1:{}", served.1);
    let out = railyard_in(
        dir.path(),
        &[
            "build",
            "--example",
            "lab-small",
            "-o",
            "site/out",
            "--identities",
            "ids.csv",
            "--provisioning-url",
            &format!("{url}/out"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let build = site.join("out");
    let script = build.join(format!("dayzero/ztp/{leaf}/cumulus-ztp.sh"));
    let kea: Value =
        serde_json::from_slice(&std::fs::read(build.join("dayzero/kea-dhcp4.json")).expect("kea"))
            .expect("json");
    assert!(
        kea.to_string()
            .contains(&format!("{url}/out/dayzero/ztp/{leaf}/cumulus-ztp.sh")),
        "the reservation points at the script"
    );

    let work = dir.path().join("switch");
    stand_ins(&work);
    let (code, err) = run_ztp(&script, &work, "5.15.0");
    assert_eq!(code, Some(0), "{err}");
    let calls = nv_calls(&work);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].starts_with("config replace /"), "{calls:?}");
    assert_eq!(calls[1], "config apply -y");
    let installed = std::fs::read(work.join("replaced.yaml")).expect("replaced");
    let built = std::fs::read(build.join(format!("configs/{leaf}/startup.yaml"))).expect("built");
    assert_eq!(
        installed, built,
        "the installed startup.yaml is the build's"
    );

    // Another release: nothing applied.
    let work = dir.path().join("old-release");
    stand_ins(&work);
    let (code, err) = run_ztp(&script, &work, "\"5.9.1\"");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("5.9.1") && err.contains("5.15"), "{err}");
    assert_eq!(nv_calls(&work), Vec::<String>::new());

    // A secret left as its placeholder where the file is served: nothing applied.
    let mut served_copy = built.clone();
    served_copy.extend_from_slice(b"# ${RY_SECRET}\n");
    std::fs::write(
        build.join(format!("configs/{leaf}/startup.yaml")),
        served_copy,
    )
    .expect("serve");
    let work = dir.path().join("unfilled");
    stand_ins(&work);
    let (code, err) = run_ztp(&script, &work, "5.15.0");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("placeholder"), "{err}");
    assert_eq!(nv_calls(&work), Vec::<String>::new());
    drop(served);
}
