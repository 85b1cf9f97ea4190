//! The secrets a build declares (`output::secrets`): every `${NAME}` placeholder the renderers
//! write on purpose. The TCP-MD5 password of the fabric BGP sessions (`bgp.auth_env` names the
//! variable; every platform renders it), and the SNMP community when the spec lists
//! `services.snmp_traps` (EOS `${SNMP_COMMUNITY}`, NVUE and SONiC `${SNMP_TRAP_COMMUNITY}`).

use crate::intent::{DeviceIntent, Intents};
use crate::model::Platform;
use crate::output::OutputFile;
use crate::output::secrets::Declaration;

/// EOS's SNMP community variable (`render/eos`'s placeholder).
const EOS_SNMP_COMMUNITY: &str = "SNMP_COMMUNITY";
/// NVUE's and SONiC's SNMP trap community variable (`render/nvue`'s and `render/sonic`'s).
const TRAP_COMMUNITY: &str = "SNMP_TRAP_COMMUNITY";

/// Every device's declared placeholders.
pub fn declared(intents: &Intents) -> Declaration {
    let mut out = Declaration::default();
    for d in intents.devices.values() {
        for (name, purpose) in of_device(d) {
            out.declare(name, purpose, &d.hostname);
        }
    }
    out
}

/// `configs/secrets.json`, when the build declares any secret.
pub fn declaration(intents: &Intents) -> Option<OutputFile> {
    let declared = declared(intents);
    (!declared.secrets.is_empty()).then(|| declared.to_file())
}

/// The placeholders one device's renderer writes: (variable, what it is for).
fn of_device(d: &DeviceIntent) -> Vec<(&str, &'static str)> {
    let mut v = Vec::new();
    let bgp_password = d.bgp.as_ref().and_then(|b| b.password.as_deref());
    if let Some(name) = bgp_password.and_then(placeholder_name) {
        v.push((
            name,
            "bgp.auth_env: the fabric BGP sessions' TCP-MD5 password",
        ));
    }
    if !d.system.snmp_traps.is_empty() {
        match d.platform {
            Platform::Eos => v.push((EOS_SNMP_COMMUNITY, "the SNMP community")),
            Platform::Nvue | Platform::Sonic => v.push((TRAP_COMMUNITY, "the SNMP trap community")),
            Platform::Frr => {}
        }
    }
    v
}

/// `NAME` of `${NAME}`.
fn placeholder_name(p: &str) -> Option<&str> {
    p.strip_prefix("${")?.strip_suffix('}')
}
