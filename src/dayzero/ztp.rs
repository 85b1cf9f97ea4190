//! The ZTP files of each identified switch, by OS, under `dayzero/ztp/<switch>/`: what its DHCP
//! reservation points at, fetching the switch's rendered configs from the provisioning URL.
//! Scripts from `templates/dayzero/`, every shell word through [`crate::output::shell::quote`];
//! SONiC's `ztp.json` serialized from the structs below.
//!
//! - Cumulus Linux: `cumulus-ztp.sh` (option 239): checks the release, fetches `startup.yaml`,
//!   `nv config replace`, `nv config apply -y`.
//! - SONiC: `ztp.json` (option 67; sonic-net/SONiC `doc/ztp/ztp.md` at commit
//!   98de38fd1512017cfee5513025d750da8b1fa2f1): `01-configdb-json` installs `config_db.json`,
//!   `02-provisioning-script` runs `frr.sh`, which installs `frr.conf`, then SONiC reboots.
//! - EOS: `bootstrap` (option 67): installs `startup-config`; Arista ZTP then reboots.
//!
//! Secrets stay placeholders (`${NAME}`): the scripts refuse a file that still holds one, so the
//! operator fills them where the files are served, never in the build.

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use super::served::{ZTP_DIR, first_file};
use super::url::ProvisioningUrl;
use crate::model::Platform;
use crate::output::{FileError, InFile, OutputFile, OutputGroup};
use crate::topology::Device;

const CUMULUS: &str = include_str!("../../templates/dayzero/cumulus-ztp.sh.j2");
const SONIC_FRR: &str = include_str!("../../templates/dayzero/sonic-frr.sh.j2");
const EOS: &str = include_str!("../../templates/dayzero/eos-bootstrap.j2");

/// A SONiC ZTP JSON file: sections run in the lexical order of their names.
#[derive(Serialize)]
struct ZtpJson {
    ztp: Sections,
}

#[derive(Serialize)]
struct Sections {
    #[serde(rename = "01-configdb-json")]
    configdb: ConfigDb,
    #[serde(rename = "02-provisioning-script")]
    frr: ProvisioningScript,
}

/// The `configdb-json` plugin: downloads the file and runs `config reload` with it.
#[derive(Serialize)]
struct ConfigDb {
    url: UrlObject,
}

#[derive(Serialize)]
struct UrlObject {
    source: String,
    destination: &'static str,
}

/// The `provisioning-script` plugin: downloads the script and runs it.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ProvisioningScript {
    plugin: PluginUrl,
    reboot_on_success: bool,
}

#[derive(Serialize)]
struct PluginUrl {
    url: String,
}

/// The ZTP files of switch `d` (none for a platform without ZTP).
pub fn files(d: &Device, url: &ProvisioningUrl) -> Result<Vec<OutputFile>, FileError> {
    let Some(platform) = d.platform else {
        return Ok(Vec::new());
    };
    let Some((first, _)) = first_file(platform, &d.name) else {
        return Ok(Vec::new());
    };
    let script = |template: &str, path: &str| -> Result<OutputFile, FileError> {
        let text = environment()
            .render_str(
                template,
                minijinja::context! {
                    base => url.as_str(),
                    switch => &d.name,
                    release => crate::render::NVUE_RELEASE,
                },
            )
            .in_file(path)?;
        Ok(OutputFile::new(OutputGroup::Configs, path, text))
    };
    match platform {
        Platform::Nvue => Ok(vec![script(CUMULUS, &first)?]),
        Platform::Eos => Ok(vec![script(EOS, &first)?]),
        Platform::Sonic => {
            let frr = format!("{ZTP_DIR}/{}/frr.sh", d.name);
            let json = ZtpJson {
                ztp: Sections {
                    configdb: ConfigDb {
                        url: UrlObject {
                            source: url.join(&format!("configs/{}/config_db.json", d.name)),
                            destination: "/etc/sonic/config_db.json",
                        },
                    },
                    frr: ProvisioningScript {
                        plugin: PluginUrl {
                            url: url.join(&frr),
                        },
                        reboot_on_success: true,
                    },
                },
            };
            let mut bytes = serde_json::to_vec_pretty(&json).in_file(&first)?;
            bytes.push(b'\n');
            Ok(vec![
                OutputFile::new(OutputGroup::Configs, first, bytes),
                script(SONIC_FRR, &frr)?,
            ])
        }
        Platform::Frr => Ok(Vec::new()),
    }
}

/// The scripts' environment: line-oriented (a value with a line break fails the render) and
/// `sh`, the one shell quoting.
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    env.set_formatter(crate::output::line::formatter);
    env.add_filter("sh", |s: String| crate::output::shell::quote(&s));
    env
}
