//! Every NVUE `startup.yaml` railyard writes, validated offline against NVUE's own object model.
//!
//! No real NVUE runs here. The strongest offline check available is NVIDIA's published NVUE
//! OpenAPI specification, per Cumulus Linux release, as the Pydantic models of the PyPI package
//! `nvueschema` (pinned in tests/python/requirements.txt), made strict: an unknown or misplaced
//! key is an error, every enumeration, range and pattern of the specification applies.
//! `tests/python/nvue_validate.py` validates the files against the 5.15 model (the release the
//! files target) and the 5.16 model, reads them with PyYAML (YAML 1.1, NVUE's side) and compares
//! that reading with railyard's own YAML reader, and reports any content the specification leaves
//! untyped (nothing may hide there).

use crate::common;
use crate::pyenv;

use std::path::Path;
use std::process::Command;

use common::*;
use railyard::output::OutputGroup;

fn nvue_startup_files(files: &[railyard::output::OutputFile]) -> Vec<(String, String)> {
    files
        .iter()
        .filter_map(|f| {
            let dev = f
                .path
                .strip_prefix("configs/")?
                .strip_suffix("/startup.yaml")?;
            let text = String::from_utf8(f.bytes.clone()).ok()?;
            // EOS writes `startup-config`; only NVUE writes `startup.yaml`.
            Some((dev.to_string(), text))
        })
        .collect()
}

fn write_case(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(format!("{name}.yaml")), text).unwrap();
    let seen: serde_json::Value = serde_saphyr::from_str(text).expect("railyard reads its YAML");
    std::fs::write(
        dir.join(format!("{name}.json")),
        serde_json::to_string(&seen).unwrap(),
    )
    .unwrap();
}

fn validate(python: &Path, dir: &Path) -> serde_json::Value {
    let out = Command::new(python)
        .arg(pyenv::script("nvue_validate.py"))
        .args(["--release", "5.15", "--release", "5.16"])
        .arg(dir)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

fn specs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    let mut out: Vec<(String, String)> = names
        .iter()
        .map(|n| (n.trim_end_matches(".yaml").to_string(), inventory(n)))
        .collect();
    let lab = inventory("lab-small.yaml");
    out.push((
        "lab-services-dualstack-numbered".into(),
        format!(
            "{lab}\nservices: {{ntp: [192.0.2.1, ntp.example], syslog: [192.0.2.2], dns: [192.0.2.53], snmp_traps: [192.0.2.162], domain: lab.example}}\naddressing: {{fabric_links: 192.168.0.0/16, loopbacks_v6: 'fd00:1::/64', fabric_links_v6: 'fd00:f::/48', gpu_v6: 'fd00:64::/48', vteps: 10.1.0.0/16}}\nbgp: {{reuse_leaf_asns: true}}\n"
        ),
    ));
    out.push((
        "lab-lossy".into(),
        format!("{lab}\nroce: {{mode: lossy, dscp: 24}}\n"),
    ));
    // Every BGP hardening option off its default: password placeholder, GTSM, full graceful
    // restart, a warning-only prefix limit.
    out.push((
        "spx-tenants-hardened".into(),
        format!(
            "{}\nbgp: {{auth_env: BGP_FABRIC_PASSWORD, gtsm: true, graceful_restart: full, max_prefix: {{action: warning-only, margin_percent: 50}}}}\n",
            inventory("spectrum-x-cloud-tenants.yaml")
        ),
    ));
    // Global IPv6 on the links under adaptive routing: the inbound prefer-global route map.
    out.push((
        "spx-ar-fabric-v6".into(),
        format!(
            "{}\naddressing: {{fabric_links_v6: 'fd00:f::/48'}}\n",
            inventory("spectrum-x-cloud.yaml")
        ),
    ));
    out.push((
        "spx-tenants-asn-reuse".into(),
        format!(
            "{}\nbgp: {{reuse_leaf_asns: true}}\n",
            inventory("spectrum-x-cloud-tenants.yaml")
        ),
    ));
    out
}

/// Every NVUE startup.yaml of every spec, rendered side by side (configs only), keyed by
/// content: a file byte-identical to one already kept (the same switch in a spec variant) is
/// validated once, under the first name it had.
fn startup_files() -> (usize, std::collections::BTreeMap<String, String>) {
    let rendered: Vec<Vec<(String, String)>> = std::thread::scope(|scope| {
        let jobs: Vec<_> = specs()
            .into_iter()
            .map(|(name, spec)| {
                scope.spawn(move || {
                    nvue_startup_files(&outputs_of(&spec, &[OutputGroup::Configs]))
                        .into_iter()
                        .map(|(dev, text)| (format!("{name}__{dev}"), text))
                        .collect()
                })
            })
            .collect();
        jobs.into_iter()
            .map(|j| j.join().expect("render thread"))
            .collect()
    });
    let mut total = 0;
    let mut by_text = std::collections::BTreeMap::new();
    for (case, text) in rendered.into_iter().flatten() {
        total += 1;
        by_text.entry(text).or_insert(case);
    }
    let unique = by_text
        .into_iter()
        .map(|(text, case)| (case, text))
        .collect();
    (total, unique)
}

/// The validator's reports of several directories as one (counts summed, lists joined).
fn merge(reports: Vec<serde_json::Value>) -> serde_json::Value {
    let mut all = serde_json::json!({"files": 0, "errors": [], "mismatches": [], "unchecked": [], "leaves": 0});
    for r in reports {
        for n in ["files", "leaves"] {
            all[n] = (all[n].as_u64().unwrap() + r[n].as_u64().expect("a count")).into();
        }
        for l in ["errors", "mismatches", "unchecked"] {
            let more = r[l].as_array().expect("a list").clone();
            all[l].as_array_mut().unwrap().extend(more);
        }
    }
    all
}

#[test]
fn every_startup_yaml_is_valid_in_nvues_object_model() {
    let Some(python) = pyenv::python("every_startup_yaml_is_valid_in_nvues_object_model") else {
        return;
    };
    let (total, unique) = startup_files();
    assert!(total >= 150, "only {total} NVUE files");
    // The validator is one Python process per directory: the files are dealt over as many
    // directories as there are cores, validated side by side, and the reports merged.
    let shards = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4));
    let dirs: Vec<tempfile::TempDir> = (0..shards).map(|_| tempfile::tempdir().unwrap()).collect();
    for (i, (case, text)) in unique.iter().enumerate() {
        write_case(dirs[i % shards].path(), case, text);
    }
    let r = merge(std::thread::scope(|scope| {
        let runs: Vec<_> = dirs
            .iter()
            .map(|d| scope.spawn(|| validate(&python, d.path())))
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("validator thread"))
            .collect()
    }));
    assert_eq!(r["files"], unique.len(), "every distinct file validated");
    let errors = r["errors"].as_array().unwrap();
    assert!(
        errors.is_empty(),
        "{} schema errors, first: {:#}",
        errors.len(),
        serde_json::Value::Array(errors.iter().take(20).cloned().collect())
    );
    assert_eq!(
        r["mismatches"],
        serde_json::json!([]),
        "YAML 1.1 reads differ"
    );
    assert_eq!(
        r["unchecked"],
        serde_json::json!([]),
        "content the schema does not type"
    );
    let leaves = r["leaves"].as_u64().unwrap();
    assert!(leaves > 100_000, "only {leaves} settings checked");
    eprintln!(
        "{total} startup.yaml files ({} distinct), {leaves} settings valid in NVUE 5.15 and 5.16",
        unique.len()
    );
}

/// The validator can fail: the shapes issue #11 found in the old files (a link state as a value),
/// an unknown key, the CL 5.14 `enable: on` form and an out-of-range MTU are each rejected, and a
/// file whose YAML 1.1 reading differs from railyard's is reported.
#[test]
fn the_schema_check_rejects_what_nvue_rejects() {
    let Some(python) = pyenv::python("the_schema_check_rejects_what_nvue_rejects") else {
        return;
    };
    let head = "- header:\n    model: SN5600\n    nvue-api-version: nvue_v1\n    rev-id: 1.0\n    version: Cumulus Linux 5.15.0\n- set:\n";
    let cases = [
        (
            "state-as-value",
            "    interface:\n      swp1:\n        link:\n          state: up\n",
        ),
        (
            "unknown-key",
            "    interface:\n      swp1:\n        link:\n          mtu: 9216\n          speeed: 400G\n",
        ),
        (
            "cl514-enable-on",
            "    router:\n      bgp:\n        enable: on\n",
        ),
        (
            "mtu-out-of-range",
            "    interface:\n      swp1:\n        link:\n          mtu: 9300\n",
        ),
    ];
    // One validator run over every case (each run loads both releases' models): the report
    // names the file of every error, so each case is judged on its own.
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in cases {
        write_case(dir.path(), name, &format!("{head}{body}"));
    }
    // A reading that differs from what railyard's reader saw is a mismatch.
    let text = format!("{head}    system:\n      hostname: sw1\n");
    std::fs::write(dir.path().join("trap.yaml"), &text).unwrap();
    std::fs::write(
        dir.path().join("trap.json"),
        r#"[{"header":{"model":"SN5600","nvue-api-version":"nvue_v1","rev-id":1.0,"version":"Cumulus Linux 5.15.0"}},{"set":{"system":{"hostname":"sw2"}}}]"#,
    )
    .unwrap();
    let r = validate(&python, dir.path());
    assert_eq!(r["files"], cases.len() + 1, "every case validated: {r}");
    let errors = r["errors"].as_array().unwrap();
    for (name, _) in cases {
        let file = format!("{name}.yaml");
        assert!(
            errors.iter().any(|e| e["file"] == file.as_str()),
            "{name} must be rejected: {r}"
        );
    }
    assert!(
        !errors.iter().any(|e| e["file"] == "trap.yaml"),
        "the trap file itself is valid: {r}"
    );
    // (`enable: on` is itself a YAML 1.1 trap, so its case may be listed too.)
    let mismatches = r["mismatches"].as_array().unwrap();
    assert!(
        mismatches.iter().any(|m| m == "trap.yaml"),
        "the differing reading is reported: {r}"
    );
}
