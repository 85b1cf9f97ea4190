//! The files under `examples/` work as the README says.

use std::path::Path;
use std::process::Command;

use railyard::model::Platform;
use railyard::push::{DriverKind, Operator, parse_targets};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn build(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("build")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs")
}

/// The targets file parses, names only switches of the built-in example, each at the management
/// address `addresses.csv` gives it, with a driver whose file the build wrote for that switch.
#[test]
fn push_targets_match_the_built_in_example() {
    let path = root().join("examples/push/lab-small-targets.yaml");
    let text = std::fs::read_to_string(&path).expect("targets file");
    assert!(
        !text.to_lowercase().contains("password:"),
        "no secret in it"
    );
    let ts = parse_targets(&text, &path, &Operator::default()).expect("parses");
    let dir = tempfile::tempdir().expect("tmp");
    assert!(
        build(dir.path(), &["--example", "lab-small", "-o", "out"])
            .status
            .success()
    );
    let out = dir.path().join("out");
    let addresses = std::fs::read_to_string(out.join("addresses.csv")).expect("addresses");
    assert!(ts.len() >= 6, "{} targets", ts.len());
    for t in &ts {
        assert_eq!(t.driver, DriverKind::Native(Platform::Nvue), "{}", t.name);
        assert!(
            out.join("configs").join(&t.name).join(&t.file).is_file(),
            "{}: no {}",
            t.name,
            t.file
        );
        let mgmt = addresses
            .lines()
            .filter(|l| l.starts_with(&format!("{},", t.name)))
            .filter(|l| l.contains(",mgmt,"))
            .find_map(|l| l.split(',').nth(2)?.split('/').next().map(str::to_string))
            .unwrap_or_else(|| panic!("{}: no management address", t.name));
        assert_eq!(t.endpoint.host, mgmt, "{}", t.name);
    }
}

/// The template override replaces the built-in section in every FRR config and leaves the rest.
#[test]
fn templates_override_reaches_every_frr_config() {
    let dir = tempfile::tempdir().expect("tmp");
    let spec = dir.path().join("spec.yaml");
    let text = std::fs::read_to_string(root().join("inventories/lab-small.yaml")).expect("spec");
    std::fs::write(&spec, format!("{text}\nplatforms: {{default: frr}}\n")).expect("write");
    let templates = root().join("examples/templates");
    let spec = spec.to_string_lossy().into_owned();
    let with = build(
        dir.path(),
        &[
            &spec,
            "-o",
            "with",
            "--templates",
            &templates.to_string_lossy(),
        ],
    );
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    assert!(
        build(dir.path(), &[&spec, "-o", "without"])
            .status
            .success()
    );
    let banner = "banner motd line Authorized access only.";
    let configs = std::fs::read_dir(dir.path().join("with/configs")).expect("configs");
    let mut n = 0;
    for d in configs {
        let d = d.expect("entry").path();
        let name = d.file_name().expect("name").to_owned();
        let Ok(conf) = std::fs::read_to_string(d.join("frr.conf")) else {
            continue;
        };
        let plain = std::fs::read_to_string(
            dir.path()
                .join("without/configs")
                .join(&name)
                .join("frr.conf"),
        )
        .expect("built-in render");
        assert!(conf.contains(banner), "{name:?}");
        assert!(!plain.contains(banner));
        let without_banner: String = conf
            .lines()
            .filter(|l| !l.starts_with("banner motd") && *l != "!")
            .map(|l| format!("{l}\n"))
            .collect();
        let plain: String = plain
            .lines()
            .filter(|l| *l != "!")
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(without_banner, plain, "{name:?}: only the banner differs");
        n += 1;
    }
    assert!(n >= 5, "{n} FRR configs");
}

/// Overrides of templates whose renderers embed them (the report, the node files, the day-zero
/// scripts) are refused
/// with a message, never silently ignored.
#[test]
fn an_override_of_an_embedded_template_is_refused() {
    for name in [
        "hosts/roce.sh.j2",
        "report/report.html.j2",
        "dayzero/cumulus-ztp.sh.j2",
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let over = dir.path().join("over").join(name);
        std::fs::create_dir_all(over.parent().expect("parent")).expect("mkdir");
        std::fs::write(&over, "#!/bin/sh\necho overridden\n").expect("write");
        let out = build(
            dir.path(),
            &[
                "-o",
                "out",
                "--templates",
                &dir.path().join("over").to_string_lossy(),
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: accepted");
        assert!(
            err.contains(name) && err.contains("cannot be overridden"),
            "{name}: {err}"
        );
        assert!(!dir.path().join("out").exists(), "{name}: wrote outputs");
    }
}
