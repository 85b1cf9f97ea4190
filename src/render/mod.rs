//! Stage 5: intent → configuration files per platform. Sees only [`crate::intent`]: any platform
//! can be re-rendered from a saved `intent/<device>.yaml`.
//!
//! Line-oriented configs (FRR, EOS, NVUE `nv set`) come from minijinja templates under
//! `templates/<platform>/`, one template per section, included in device order by `main.j2`.
//! Structured formats (SONiC `config_db.json`, NVUE `startup.yaml`) are serialized from typed
//! structs. Templates format; they do not decide: every value is computed in intent or in the
//! platform adapter here.

pub mod budget;
mod env;
mod eos;
mod frr;
mod nvue;
mod openconfig;
pub mod secrets;
mod sonic;
mod subnet_manager;
mod tenants;

use minijinja::Environment;

pub use env::Templates;
/// The Cumulus Linux release the NVUE files target (what a day-zero script checks for).
pub use nvue::RELEASE as NVUE_RELEASE;

use crate::intent::{DeviceIntent, Intents};
use crate::model::Platform;
use crate::output::{Memo, NoMemo, OutputFile, OutputGroup, Sink, unit_digest};

/// A template failed: a bug in a built-in template, or in a user's override.
#[derive(Debug)]
pub struct RenderError {
    pub device: String,
    pub template: String,
    pub message: String,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rendering `{}` with template `{}` failed: {}",
            self.device, self.template, self.message
        )
    }
}

impl std::error::Error for RenderError {}

/// `value` as the YAML file `file` of `device`, through the one YAML writer; a failure is a
/// `RenderError` naming the file, never an empty file on a switch.
pub(crate) fn yaml<T: serde::Serialize>(
    device: &str,
    file: &str,
    value: &T,
) -> Result<String, RenderError> {
    crate::output::yaml::to_string(value).map_err(|e| RenderError {
        device: device.to_string(),
        template: file.to_string(),
        message: e.to_string(),
    })
}

/// Render one template against a context; errors carry the template name and minijinja's detail.
pub(crate) fn template(
    env: &Environment<'_>,
    device: &str,
    name: &str,
    ctx: minijinja::Value,
) -> Result<String, RenderError> {
    let fail = |e: minijinja::Error| {
        // Name the innermost template: an error inside an include surfaces from `main.j2`.
        let mut inner = &e;
        let mut message = e.to_string();
        while let Some(next) =
            std::error::Error::source(inner).and_then(|s| s.downcast_ref::<minijinja::Error>())
        {
            inner = next;
            message = format!("{message}: {next}");
        }
        if let Some(limit) = env::out_of_fuel(inner).or_else(|| budget::over_budget(inner)) {
            message = format!("{message}: {limit}");
        }
        RenderError {
            device: device.to_string(),
            template: inner.name().unwrap_or(name).to_string(),
            message,
        }
    };
    let t = env.get_template(name).map_err(fail)?;
    // Into a writer with a byte budget: fuel alone does not bound what a template prints.
    let mut out = budget::Budget::default();
    budget::start();
    t.render_captured_to(ctx, &mut out).map_err(fail)?;
    String::from_utf8(out.bytes).map_err(|_| RenderError {
        device: device.to_string(),
        template: name.to_string(),
        message: "the rendered text is not UTF-8".into(),
    })
}

/// The files of one switch under `configs/<device>/`: its platform's own, and the payload of
/// the generic `netconf` push driver (`openconfig.xml`) when its OS is one of `netconf` (the
/// spec's `push.netconf`): only a switch loaded over NETCONF reads it (issue #28: at 16k GPUs
/// the files nothing sent were 170 MB of 397 MB of configs).
pub fn device(
    env: &Environment<'_>,
    d: &DeviceIntent,
    netconf: &[Platform],
) -> Result<Vec<OutputFile>, RenderError> {
    let dir = format!("configs/{}", d.hostname);
    let mut files = match d.platform {
        Platform::Frr => frr::render(env, d)?,
        Platform::Nvue => nvue::render(env, d)?,
        Platform::Sonic => sonic::render(env, d)?,
        Platform::Eos => eos::render(env, d)?,
    };
    if netconf.contains(&d.platform) {
        files.push(openconfig::render(d)?);
    }
    Ok(files
        .into_iter()
        .map(|(name, text)| OutputFile::new(OutputGroup::Configs, format!("{dir}/{name}"), text))
        .collect())
}

/// Every switch config, the subnet-manager files and the intent dumps, sorted by path (no
/// `openconfig.xml`: no OS declared loaded over NETCONF).
pub fn render_all(
    intents: &Intents,
    templates: &Templates,
) -> Result<Vec<OutputFile>, RenderError> {
    let c = std::sync::Mutex::new(Vec::new());
    emit(
        intents,
        templates,
        &[],
        &|f| {
            c.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(f);
        },
        &NoMemo,
    )?;
    let mut out = c
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Every switch config, the subnet-manager files and the intent dumps into `sink`, each device's
/// files as soon as they are rendered (devices split over the cores; in no particular order).
/// A switch's configs and intent dump are a function of its intent and the templates: when `memo`
/// has them from an earlier build with the same digest of both, they are carried over, not
/// rendered.
pub fn emit(
    intents: &Intents,
    templates: &Templates,
    netconf: &[Platform],
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), RenderError> {
    let env = templates.environment();
    let overrides = templates.fingerprint();
    let devices: Vec<&DeviceIntent> = intents.devices.values().collect();
    crate::parallel::chunks(&devices, |part| {
        for d in part {
            let path = format!("intent/{}.yaml", d.hostname);
            // The intent as JSON is the digest's input: the same value as the YAML dump (one
            // `Serialize`), several times cheaper to write, and needed only for the digest.
            let text = match serde_json::to_vec(d) {
                Ok(json) => json,
                Err(_) => yaml(&d.hostname, &path, d)?.into_bytes(),
            };
            let unit = format!("configs/{}", d.hostname);
            let loaded: &[u8] = if netconf.contains(&d.platform) {
                b"netconf"
            } else {
                b""
            };
            let inputs = unit_digest(&[overrides.as_bytes(), &text, loaded]);
            if !memo.reuse(&unit, &inputs) {
                let mut files = device(&env, d, netconf)?;
                files.push(OutputFile::new(
                    OutputGroup::Configs,
                    path.clone(),
                    yaml(&d.hostname, &path, d)?,
                ));
                memo.record(
                    &unit,
                    &inputs,
                    files.iter().map(|f| f.path.clone()).collect(),
                );
                files.into_iter().for_each(sink);
            }
        }
        Ok(())
    })
    .into_iter()
    .collect::<Result<(), RenderError>>()?;
    for sm in &intents.subnet_managers {
        subnet_manager::render(&env, sm)?.into_iter().for_each(sink);
    }
    tenants::render(&env, &intents.tenants, intents.partitions.as_ref())?
        .into_iter()
        .for_each(sink);
    // What push may fill: only the placeholders declared here.
    if let Some(f) = secrets::declaration(intents) {
        sink(f);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    /// Each platform's row names the files its renderer writes (`files`), `openconfig.xml`
    /// aside (only for an OS declared loaded over NETCONF); the one its push driver sends by
    /// default is always among them.
    #[test]
    fn every_platform_renders_the_files_its_row_names() {
        let env = Templates::default();
        let env = env.environment();
        let mut seen = std::collections::BTreeSet::new();
        let frr = Some(crate::model::Platform::Frr);
        for (spec, all) in [
            ("lab-small", None),
            ("lab-small", frr),
            ("eos-ai-fabric", None),
            ("sonic-rail-cluster", None),
        ] {
            let path = format!("{}/inventories/{spec}.yaml", env!("CARGO_MANIFEST_DIR"));
            let src = SourceFile::new(&path, std::fs::read_to_string(&path).unwrap());
            let c = match all {
                Some(p) => crate::compile_for_platform(&src, p),
                None => crate::compile(&src),
            };
            let intents = c.design.expect("the example compiles").intents;
            for d in intents.devices.values() {
                let row = d.platform.row();
                let files = device(&env, d, &[]).unwrap();
                let prefix = format!("configs/{}/", d.hostname);
                let names: Vec<&str> = files
                    .iter()
                    .map(|f| f.path.strip_prefix(&prefix).unwrap())
                    .collect();
                for n in &names {
                    assert!(
                        row.files.contains(n),
                        "{}: {n} is not in the {} row",
                        d.hostname,
                        row.name
                    );
                }
                assert!(names.contains(&row.push.file), "{}", d.hostname);
                // Declared loaded over NETCONF: the OpenConfig payload beside them.
                let loaded = device(&env, d, &[d.platform]).unwrap();
                assert_eq!(loaded.len(), files.len() + 1, "{}", d.hostname);
                assert!(
                    loaded
                        .iter()
                        .any(|f| f.path == format!("{prefix}openconfig.xml"))
                );
                seen.insert(d.platform);
            }
        }
        assert_eq!(seen.len(), crate::model::Platform::ALL.len());
    }
}
