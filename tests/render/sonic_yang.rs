//! Every `config_db.json` railyard writes passes the validation `config reload` runs on the
//! switch (sonic-utilities `config/main.py`, `config_file_yang_validation`): translated into
//! YANG instance data the way SONiC translates it (`sonic_yang/xlate.rs`), validated by the real
//! `yanglint` (Debian `libyang2-tools`) against SONiC's own YANG models
//! (`tests/fixtures/sonic-yang/`), and a table without a model is a failure, as it is there.
//! The port table is also checked against the vendor's platform files
//! (`sonic_yang/platform_check.rs`), which YANG cannot see.
//!
//! Covered: every example inventory on NVIDIA switches; Ethernet fabrics with every compute,
//! storage and in-band switch forced to SONiC, InfiniBand ones with their Ethernet (in-band,
//! storage) switches on SONiC. OOB switches keep their model's OS here: SONiC's SN2201
//! `platform.json` offers no 4x breakout of the QSFP28 uplink cages, so the OOB uplinks' 4x10G
//! split is refused on SONiC (RY0111) by design. `eos-ai-fabric.yaml` is built from Arista
//! switches, for which railyard carries no SONiC platform data (RY0110). The tests at the end
//! show the check rejects what the switch would reject.

use crate::common;
#[path = "sonic_yang/platform_check.rs"]
mod platform_check;
use crate::prereq;
#[path = "sonic_yang/xlate.rs"]
mod xlate;
#[path = "sonic_yang/yang.rs"]
mod yang;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use railyard::diag::SourceFile;
use railyard::model::{Platform, Transport};
use railyard::spec::Sp;
use serde_json::{Map, Value};

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sonic-yang")
}

struct Schema {
    tables: BTreeMap<String, yang::Table>,
    /// The module files that define tables: all of them are loaded, as `sonic_yang` loads the
    /// whole YANG directory.
    files: Vec<PathBuf>,
}

fn schema() -> &'static Schema {
    static S: OnceLock<Schema> = OnceLock::new();
    S.get_or_init(|| {
        let m = yang::Models::load(&models_dir()).unwrap_or_else(|e| panic!("{e}"));
        Schema {
            tables: m.tables().unwrap_or_else(|e| panic!("{e}")),
            files: m
                .table_modules()
                .iter()
                .map(|n| models_dir().join(format!("{n}.yang")))
                .collect(),
        }
    })
}

/// (example, device, config_db).
type Rendered = Vec<(String, String, Map<String, Value>)>;

/// Every example inventory rendered for SONiC.
fn rendered() -> &'static Rendered {
    static R: OnceLock<Rendered> = OnceLock::new();
    R.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("inventories/")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        names.sort();
        let mut out = Vec::new();
        for name in names {
            // Arista hardware: no SONiC platform data is carried for it (RY0110, pinned).
            if name == "eos-ai-fabric.yaml" {
                continue;
            }
            for (dev, db) in sonic_configs(&name, &common::inventory(&name)) {
                out.push((name.clone(), dev, db));
            }
        }
        out
    })
}

/// The SONiC config_db of every Ethernet switch of a spec.
fn sonic_configs(name: &str, text: &str) -> Vec<(String, Map<String, Value>)> {
    let src = SourceFile::new(name, text);
    let ethernet = railyard::compile(&src)
        .design
        .is_some_and(|d| d.spec.compute.transport == Transport::Ethernet);
    let c = railyard::compile_with(&src, |s| {
        let sonic = Some(Sp::new(Platform::Sonic));
        if ethernet {
            s.platforms.leaf = sonic.clone();
            s.platforms.spine = sonic.clone();
            s.platforms.core = sonic.clone();
        }
        if s.storage
            .as_ref()
            .is_some_and(|a| a.transport == Transport::Ethernet)
        {
            s.platforms.storage = sonic.clone();
        }
        s.platforms.inband = sonic;
    });
    let files = match c.outputs(&railyard::render::Templates::default()) {
        Some(Ok(f)) => f,
        Some(Err(e)) => panic!("{name}: render failed: {e}"),
        None => panic!(
            "{name} does not compile for SONiC: {:?}",
            c.diagnostics
                .sorted()
                .iter()
                .map(|d| format!("{}: {}", d.code.id, d.message))
                .collect::<Vec<_>>()
        ),
    };
    files
        .iter()
        .filter_map(|f| {
            let dev = f
                .path
                .strip_prefix("configs/")?
                .strip_suffix("/config_db.json")?;
            let v: Value = serde_json::from_slice(&f.bytes).expect("config_db.json is JSON");
            Some((dev.to_string(), v.as_object().expect("an object").clone()))
        })
        .collect()
}

fn yanglint(test: &str) -> Option<PathBuf> {
    prereq::program(test, "yanglint", "libyang2-tools")
}

/// yanglint's verdict on data files; `Err` carries its error lines.
fn validate(yanglint: &Path, data: &[PathBuf]) -> Result<(), String> {
    let out = Command::new(yanglint)
        .args(["-t", "config", "-p"])
        .arg(models_dir())
        .args(&schema().files)
        .args(data)
        .output()
        .expect("run yanglint");
    if out.status.success() {
        return Ok(());
    }
    // libyang warns about cross-module paths while it loads the models; only errors count.
    let errors: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("libyang err") || l.starts_with("YANGLINT[E]"))
        .map(str::to_string)
        .collect();
    Err(format!(
        "yanglint exit {}:\n{}",
        out.status,
        errors.join("\n")
    ))
}

/// Translate and write one config_db; `Err` when it cannot be translated at all.
fn write_xml(dir: &Path, name: &str, db: &Map<String, Value>) -> Result<PathBuf, String> {
    let xml = xlate::to_xml(db, &schema().tables).map_err(|e| e.join("\n"))?;
    let path = dir.join(format!("{}.xml", name.replace('/', "_")));
    std::fs::write(&path, xml).expect("write XML");
    Ok(path)
}

/// The verdict on one config_db: translation, platform files and YANG.
fn verdict(yl: &Path, dir: &Path, name: &str, db: &Map<String, Value>) -> Result<(), String> {
    let path = write_xml(dir, name, db)?;
    let platform = platform_check::check(db);
    if !platform.is_empty() {
        return Err(platform.join("\n"));
    }
    validate(yl, &[path])
}

#[test]
fn every_sonic_config_db_of_every_example_passes_sonics_yang_validation() {
    let Some(yl) = yanglint("every_sonic_config_db_of_every_example_passes_sonics_yang_validation")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut files = Vec::new();
    let mut examples = BTreeSet::new();
    let mut tables = BTreeSet::new();
    for (example, dev, db) in rendered() {
        let name = format!("{example}-{dev}");
        examples.insert(example.clone());
        tables.extend(db.keys().cloned());
        match write_xml(dir.path(), &name, db) {
            Ok(p) => files.push((name.clone(), p)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        for e in platform_check::check(db) {
            failures.push(format!("{name}: {e}"));
        }
    }
    // One yanglint run validates every file separately; on failure, each file alone names its
    // own errors.
    let paths: Vec<PathBuf> = files.iter().map(|(_, p)| p.clone()).collect();
    if validate(&yl, &paths).is_err() {
        for (name, p) in &files {
            if let Err(e) = validate(&yl, std::slice::from_ref(p)) {
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    eprintln!(
        "SONiC YANG: {} config_db.json files of {} examples, {} tables",
        rendered().len(),
        examples.len(),
        tables.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(rendered().len() >= 120, "only {} files", rendered().len());
    for e in [
        "lab-small.yaml",
        "spectrum-x-cloud-tenants.yaml",
        "mdx-research-cloud.yaml",
        "dgx-superpod-h100.yaml",
        "tor-cluster.yaml",
    ] {
        assert!(examples.contains(e), "{e} not covered");
    }
    for t in [
        "PORT",
        "BREAKOUT_CFG",
        "BUFFER_PG",
        "BUFFER_PROFILE",
        "CABLE_LENGTH",
        "PFC_WD",
        "VXLAN_TUNNEL_MAP",
        "VRF",
        "DEVICE_NEIGHBOR",
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    ] {
        assert!(tables.contains(t), "no example exercises {t}");
    }
}

/// One rendered Spectrum-X leaf, for the negative tests.
fn leaf() -> Map<String, Value> {
    rendered()
        .iter()
        .find(|(e, d, _)| e == "spectrum-x-cloud-tenants.yaml" && d == "leaf-su01-01")
        .map(|(_, _, db)| db.clone())
        .expect("spectrum-x-cloud-tenants leaf-su01-01")
}

fn rejected(test: &str, db: &Map<String, Value>) -> Option<String> {
    let yl = yanglint(test)?;
    let dir = tempfile::tempdir().unwrap();
    match verdict(&yl, dir.path(), test, db) {
        Ok(()) => panic!("{test}: the broken config_db was accepted"),
        Err(e) => Some(e),
    }
}

#[test]
fn the_unmodified_leaf_is_accepted() {
    let Some(yl) = yanglint("the_unmodified_leaf_is_accepted") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    verdict(&yl, dir.path(), "leaf", &leaf()).unwrap();
}

#[test]
fn an_unknown_field_is_rejected() {
    let mut db = leaf();
    db["PORT"]["Ethernet0"]
        .as_object_mut()
        .unwrap()
        .insert("lane_speed".into(), "400000".into());
    let Some(e) = rejected("an_unknown_field_is_rejected", &db) else {
        return;
    };
    assert!(e.contains("Node \"lane_speed\" not found"), "{e}");
}

#[test]
fn an_unknown_table_is_rejected() {
    let mut db = leaf();
    db.insert(
        "SNMP_TRAP_CONFIG".into(),
        serde_json::json!({"v2TrapDest": {"DestIp": "10.0.0.9"}}),
    );
    let Some(e) = rejected("an_unknown_table_is_rejected", &db) else {
        return;
    };
    assert!(e.contains("SNMP_TRAP_CONFIG has no YANG model"), "{e}");
}

#[test]
fn a_wrong_lane_is_rejected() {
    let mut db = leaf();
    db["PORT"]["Ethernet4"]["lanes"] = "5,6,7,8".into();
    let Some(e) = rejected("a_wrong_lane_is_rejected", &db) else {
        return;
    };
    assert!(
        e.contains("PORT Ethernet4 lanes `5,6,7,8`, the platform says `4,5,6,7`"),
        "{e}"
    );
}

#[test]
fn a_mode_the_platform_lacks_is_rejected() {
    let mut db = leaf();
    db["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"] = "4x400G".into();
    let Some(e) = rejected("a_mode_the_platform_lacks_is_rejected", &db) else {
        return;
    };
    assert!(e.contains("`4x400G` is not a mode"), "{e}");
}

#[test]
fn a_value_out_of_range_is_rejected() {
    let mut db = leaf();
    db["PORT"]["Ethernet0"]["mtu"] = "9300".into();
    let Some(e) = rejected("a_value_out_of_range_is_rejected", &db) else {
        return;
    };
    assert!(e.contains("9300"), "{e}");
}

#[test]
fn a_dangling_reference_is_rejected() {
    let mut db = leaf();
    db["BUFFER_PG"].as_object_mut().unwrap().insert(
        "Ethernet0|3".into(),
        serde_json::json!({"profile": "pg_lossless_1_1m_profile"}),
    );
    let Some(e) = rejected("a_dangling_reference_is_rejected", &db) else {
        return;
    };
    assert!(e.contains("pg_lossless_1_1m_profile"), "{e}");
}

#[test]
fn a_must_statement_is_evaluated() {
    // sonic-pfcwd.yang: detection_time must not be shorter than GLOBAL POLL_INTERVAL.
    let mut db = leaf();
    db["PFC_WD"]["Ethernet0"]["detection_time"] = "150".into();
    db["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "200".into();
    let Some(e) = rejected("a_must_statement_is_evaluated", &db) else {
        return;
    };
    assert!(
        e.contains("detection_time must be greater than or equal to POLL_INTERVAL"),
        "{e}"
    );
}
