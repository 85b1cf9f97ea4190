//! SONiC: `config_db.json`, the switch's whole CONFIG_DB, and `frr.conf`, its routing.
//!
//! `config_db.json` is serialized from typed tables (`tables.rs`), never templated, and is a
//! complete configuration: what `config reload <file>` loads after flushing CONFIG_DB (merged
//! over `/etc/sonic/init_cfg.json`, the image's defaults such as FEATURE), and what
//! `config replace <file>` diffs the running configuration against. Both validate the file
//! against SONiC's YANG models first, and `config reload` refuses a table without one
//! (sonic-utilities `config/main.py`, `config_file_yang_validation`); `tests/render/sonic_yang.rs`
//! runs the same validation with yanglint. So every row the switch needs is here, platform rows
//! included, and nothing without a model is:
//!
//! - `ports.rs`: every cage of the platform with its vendor lanes, alias, index and breakout
//!   (`catalog/sonic/<platform>/platform.json`), the cabling plan's peers, routed interfaces;
//!   `link.rs` the auto-negotiation of switch-to-switch PAM4 links;
//! - `buffers.rs`: the buffer pools, profiles, PGs and queues the HWSKU's templates and
//!   buffermgrd would generate, with CABLE_LENGTH from the cabling plan;
//! - `qos.rs`: the RoCE class; `tenancy.rs`: VRFs and EVPN-VXLAN; `system.rs`: metadata,
//!   management and services (the SNMP trap receiver goes to `snmp_trap.json`, see there).
//!
//! Table and field names follow sonic-buildimage `src/sonic-yang-models/yang-models/` and
//! `doc/Configuration.md`, cited per table.
//!
//! `frr.conf` comes from `templates/sonic/frr.conf.j2`, which reuses the FRR sections; SONiC
//! reads it as is in `split-unified` routing-config mode (`system::ROUTING_CONFIG_MODE`).

mod buffers;
mod link;
mod ports;
mod qos;
mod system;
mod tables;
mod tenancy;

use minijinja::{Environment, Value};

use super::{RenderError, template};
use crate::catalog::sonic::{Hwsku, SonicPlatform};
use crate::intent::{DeviceIntent, SonicTarget};
use tables::ConfigDb;

pub fn render(
    env: &Environment<'_>,
    d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    let fail = |message: String| RenderError {
        device: d.hostname.clone(),
        template: "config_db.json".into(),
        message,
    };
    // Both files see the tenant VRFs under their SONiC names: config_db's `VRF` keys and FRR's
    // `vrf`/`router bgp .. vrf` must name the same kernel VRF device, which vrfmgrd creates.
    let d = &tenancy::sonic_vrf_names(d).map_err(fail)?;
    let (target, platform, hwsku) = hardware(d).map_err(fail)?;
    let db = config_db(d, target, platform, hwsku).map_err(fail)?;
    let mut files = vec![("config_db.json".to_string(), json(&db).map_err(fail)?)];
    files.push((
        "frr.conf".into(),
        template(
            env,
            &d.hostname,
            "sonic/frr.conf.j2",
            Value::from_serialize(d),
        )?,
    ));
    if let Some(traps) = system::snmp_traps(d) {
        files.push(("snmp_trap.json".into(), json(&traps).map_err(fail)?));
    }
    Ok(files)
}

fn json(v: &impl serde::Serialize) -> Result<String, String> {
    let mut text = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

/// The vendor data the intent names. A switch without it never reaches the renderer from a spec
/// (RY0110); a hand-edited intent can.
fn hardware(
    d: &DeviceIntent,
) -> Result<(&SonicTarget, &'static SonicPlatform, &'static Hwsku), String> {
    let t = d
        .sonic
        .as_ref()
        .ok_or("the intent names no SONiC platform and HWSKU")?;
    let p = crate::catalog::sonic::platform(&t.platform)
        .ok_or_else(|| format!("no SONiC data for platform `{}`", t.platform))?;
    let h = p
        .hwskus
        .get(t.hwsku.as_str())
        .ok_or_else(|| format!("no SONiC data for HWSKU `{}` of `{}`", t.hwsku, t.platform))?;
    Ok((t, p, h))
}

fn config_db(
    d: &DeviceIntent,
    target: &SonicTarget,
    platform: &SonicPlatform,
    hwsku: &Hwsku,
) -> Result<ConfigDb, String> {
    let mut db = ConfigDb::default();
    system::metadata(d, target, hwsku, &mut db);
    let (laid, modes) = ports::layout(d, platform, hwsku)?;
    ports::ports(&laid, &modes, platform, &mut db);
    ports::interfaces(d, &mut db);
    buffers::buffers(d, hwsku, &laid, &mut db)?;
    tenancy::tenancy(d, &mut db);
    system::management(d, &mut db);
    if let Some(q) = &d.qos {
        qos::qos(d, q, &mut db);
    }
    Ok(db)
}
