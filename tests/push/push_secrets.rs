//! Secrets stay out of `build`: whatever the environment holds, the rendered files carry
//! `${NAME}` placeholders (which `railyard push --list-secrets` lists) and never a value. The
//! push side — filled at push, refused when unset, never shown — is tested against real FRR in
//! `tests/push/push_frr.rs`. No root needed.

use crate::push_support;

use std::path::Path;
use std::process::Command;

use push_support::lab_small_on;

const VALUE: &str = "community-value-never-rendered-4412";

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn build_writes_placeholders_never_values_and_push_lists_them() {
    let scratch = tempfile::tempdir().expect("tempdir");
    for platform in ["eos", "nvue"] {
        let spec = lab_small_on(platform, scratch.path());
        let text = std::fs::read_to_string(&spec).expect("spec")
            + "services: {ntp: [192.0.2.1], syslog: [192.0.2.2], snmp_traps: [192.0.2.162]}\n";
        std::fs::write(&spec, text).expect("spec");
        let out = scratch.path().join(format!("out-{platform}"));
        // Every variable a renderer might name, set: build must not use any of them.
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_railyard"));
        cmd.arg("build").arg(&spec).arg("-o").arg(&out);
        for var in ["SNMP_COMMUNITY", "SNMP_TRAP_COMMUNITY", "BGP_PASSWORD"] {
            cmd.env(var, VALUE);
        }
        let o = cmd.output().expect("railyard build");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!String::from_utf8_lossy(&o.stdout).contains(VALUE));
        assert!(!String::from_utf8_lossy(&o.stderr).contains(VALUE));
        let mut all = Vec::new();
        files(&out, &mut all);
        let mut placeholders = 0;
        for p in &all {
            let text = String::from_utf8_lossy(&std::fs::read(p).expect("read")).into_owned();
            assert!(
                !text.contains(VALUE),
                "{} holds a secret value",
                p.display()
            );
            placeholders += railyard::push::secret_names(text.as_bytes()).len();
        }
        assert!(
            placeholders > 0,
            "{platform}: no placeholder rendered for the SNMP community"
        );

        // `--list-secrets` names what a push of these files needs (set here: exit 0).
        let targets = scratch.path().join(format!("targets-{platform}.yaml"));
        let (driver, file) = if platform == "eos" {
            ("eos-ssh", "startup-config")
        } else {
            ("nvue-ssh", "startup.yaml")
        };
        std::fs::write(
            &targets,
            format!(
                "defaults: {{user: admin, driver: {driver}}}\ndevices:\n  \
                 leaf-su01-01: {{address: 192.0.2.10}}\n"
            ),
        )
        .expect("targets");
        let list = |set: bool| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_railyard"));
            c.arg("push")
                .arg("--from")
                .arg(&out)
                .arg("--targets")
                .arg(&targets)
                .arg("--list-secrets")
                .env_remove("SNMP_COMMUNITY")
                .env_remove("SNMP_TRAP_COMMUNITY");
            if set {
                c.env("SNMP_COMMUNITY", VALUE)
                    .env("SNMP_TRAP_COMMUNITY", VALUE);
            }
            c.output().expect("railyard push --list-secrets")
        };
        let o = list(false);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(o.status.code(), Some(2), "{stdout}");
        assert!(stdout.contains("UNSET"), "{stdout}");
        assert!(
            stdout.contains(&format!("configs/leaf-su01-01/{file}")),
            "{stdout}"
        );
        let o = list(true);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(o.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains(" set "), "{stdout}");
        assert!(!stdout.contains(VALUE), "the value was listed: {stdout}");
    }
}
