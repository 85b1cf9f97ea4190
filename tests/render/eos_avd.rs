//! railyard's EOS configs cross-checked against the most trusted EOS renderer there is: Arista's
//! own AVD, as the PyPI package `pyavd` (pinned in tests/python/requirements.txt).
//!
//! For a leaf and a spine of the EOS example (with and without tenants) and a numbered,
//! dual-stack lab leaf with every management service, the switch's *intent* is expressed here as
//! AVD *structured config* (the `eos_cli_config_gen` data model: `ethernet_interfaces`,
//! `router_bgp`, `qos_profiles`, `priority_flow_control`, `vxlan_interface`, `vrfs`, …). pyavd
//! validates it against AVD's schema and renders it with AVD's own templates
//! (`get_device_config`); railyard's `startup-config` must then hold exactly pyavd's lines,
//! modulo order, section by section and line by line within each section (every line is compared
//! with the path of blocks above it: `router bgp 65000 > address-family evpn > bgp
//! next-hop-unchanged`).
//!
//! The mapping below is written from the intent and AVD's data model, not from railyard's output:
//! the structured config says what the switch must do, AVD says how EOS spells it.

use crate::common;
use crate::pyenv;
#[path = "../avd/structured.rs"]
mod structured;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

use common::*;
use railyard::diag::SourceFile;
use railyard::intent::Intents;
use serde_json::{Value, json};
use structured::structured_config;

fn intents(spec: &str) -> Intents {
    railyard::compile(&SourceFile::new("spec.yaml", spec))
        .design
        .map(|d| d.intents)
        .expect("spec compiles")
}

/// The EOS example without its tenants: no VTEP pool, no EVPN.
fn without_tenants(spec: &str) -> String {
    let cut = spec.find("\naddressing:").expect("the tenant part");
    spec[..cut].to_string() + "\n"
}

/// Config lines with the path of blocks above them; comments and separators dropped.
fn lines(cfg: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    for raw in cfg.lines() {
        let body = raw.trim_start();
        if body.is_empty() || body.starts_with('!') || body == "end" {
            continue;
        }
        let indent = raw.len() - body.len();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path: Vec<&str> = stack
            .iter()
            .map(|(_, l)| l.as_str())
            .chain([body])
            .collect();
        out.insert(path.join(" > "));
        stack.push((indent, body.to_string()));
    }
    out
}

fn pyavd(cases: &BTreeMap<String, Value>) -> BTreeMap<String, String> {
    let python = pyenv::python("eos_configs_match_pyavd").expect("checked by the caller");
    let mut child = Command::new(python)
        .arg(pyenv::script("avd_render.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(cases).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "pyavd failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: BTreeMap<String, Value> = serde_json::from_slice(&out.stdout).unwrap();
    r.into_iter()
        .map(|(k, v)| {
            let Some(text) = v["config"].as_str() else {
                panic!("{k}: AVD rejects the structured config: {:#}", v["errors"]);
            };
            (k, text.to_string())
        })
        .collect()
}

#[test]
fn eos_configs_match_pyavd() {
    if pyenv::python("eos_configs_match_pyavd").is_none() {
        return;
    }
    let example = inventory("eos-ai-fabric.yaml");
    let lab = format!(
        "{}\nplatforms: {{default: eos}}\naddressing: {{fabric_links: 192.168.0.0/16, loopbacks_v6: 'fd00:1::/64', fabric_links_v6: 'fd00:f::/48', gpu_v6: 'fd00:64::/48'}}\nservices: {{ntp: [192.0.2.1], syslog: [192.0.2.2], dns: [192.0.2.53], snmp_traps: [192.0.2.162], domain: lab.example}}\nbgp: {{reuse_leaf_asns: true}}\n",
        inventory("lab-small.yaml")
    );
    let specs = [
        (
            "tenants",
            example.clone(),
            vec!["leaf-su01-01", "spine01", "stor-leaf01"],
        ),
        (
            "plain",
            without_tenants(&example),
            vec!["leaf-su01-01", "spine01"],
        ),
        (
            "lab-numbered-v6-services",
            lab.clone(),
            vec!["leaf-su01-01", "spine01"],
        ),
        (
            "lab-hardened",
            format!("{lab}bgp: {{reuse_leaf_asns: true, auth_env: BGP_FABRIC_PASSWORD, gtsm: true, graceful_restart: full, max_prefix: {{action: warning-only}}}}\n").replacen("bgp: {reuse_leaf_asns: true}\n", "", 1),
            vec!["leaf-su01-01", "spine01"],
        ),
        (
            "oob-on-eos",
            format!("{example}platforms: {{oob: eos}}\n"),
            vec!["oob-su01-01", "oob-gw01"],
        ),
        (
            "plain-no-graceful-restart",
            format!("{}bgp: {{graceful_restart: disabled}}\n", without_tenants(&example)),
            vec!["leaf-su01-01"],
        ),
    ];
    let mut cases = BTreeMap::new();
    let mut ours = BTreeMap::new();
    for (name, spec, devices) in &specs {
        let i = intents(spec);
        let files = outputs(spec);
        for dev in devices {
            let key = format!("{name}/{dev}");
            cases.insert(key.clone(), structured_config(&i.devices[*dev]));
            ours.insert(key, file(&files, &format!("configs/{dev}/startup-config")));
        }
    }
    // The check can fail: the same leaf with one fact of its intent changed (the lossless MTU, as
    // if a platform allowed 9216) must differ from railyard's config in exactly that line per port.
    let mut changed = cases["tenants/leaf-su01-01"].clone();
    for p in changed["ethernet_interfaces"].as_array_mut().unwrap() {
        p["mtu"] = json!(9216);
    }
    cases.insert("negative/leaf-su01-01".into(), changed);
    let theirs = pyavd(&cases);

    let (a, b) = (
        lines(&ours["tenants/leaf-su01-01"]),
        lines(&theirs["negative/leaf-su01-01"]),
    );
    let only_avd: Vec<&String> = b.difference(&a).collect();
    assert_eq!(only_avd.len(), 128, "one changed line per port");
    assert!(only_avd.iter().all(|l| l.ends_with(" > mtu 9216")));

    let mut compared = 0;
    for (key, text) in &ours {
        let rendered = &theirs[key];
        let (a, b) = (lines(text), lines(rendered));
        let only_ours: Vec<&String> = a.difference(&b).collect();
        let only_avd: Vec<&String> = b.difference(&a).collect();
        assert!(
            only_ours.is_empty() && only_avd.is_empty(),
            "{key}: only in railyard: {only_ours:#?}\nonly in pyavd: {only_avd:#?}"
        );
        // Not vacuous: AVD rendered the sections the structured config carries.
        // (OOB switches have no management port: they are reached on their VLAN interfaces.)
        let reach = if key.starts_with("oob-on-eos/") {
            "interface Vlan"
        } else {
            "management ssh"
        };
        for section in ["hostname ", "interface Ethernet", reach] {
            assert!(
                rendered.contains(section),
                "{key}: pyavd rendered no `{section}`"
            );
        }
        compared += a.len();
    }
    eprintln!(
        "{} EOS configs, {compared} lines: railyard = pyavd modulo order",
        ours.len()
    );
}
