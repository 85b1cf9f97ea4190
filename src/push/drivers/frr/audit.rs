//! The audit's read path for FRR: the device's `show running-config` (FRR's own rendering of its
//! running config, read with one `vtysh -c`, nothing written on the device) against the build's
//! `frr.conf` brought into the same form by a scratch FRR on the machine running railyard — the
//! `scratch.rs` script run locally (private network namespace, temporary directory removed on
//! exit), with the device's `frr defaults` profile and the device's daemons that are installed
//! here. The device-side scratch FRR that push uses is not an option: it writes temporary files
//! on the device.
//!
//! Without a local FRR (not installed, not root, no `unshare`) the build's file is compared in
//! railyard's canonical form directly (`canon::lines`), and the audit says so: then lines FRR
//! adds, drops or respells when it loads a file show as false drift — defaults of the profile
//! (`no bgp ebgp-requires-policy` under `datacenter`, a BFD profile's `detect-multiplier 3`),
//! abbreviations FRR expands, and the order of words FRR normalises.
//! A local FRR of another version than the device's can also differ in rendering; the note
//! names the local version.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::scratch;
use crate::meaning::frr::canon;
use std::collections::BTreeSet;

/// Where this machine's FRR daemons live.
const LOCAL_BINDIR: &str = "/usr/lib/frr";

/// The device's running config and the build's `frr.conf`, both read by one local scratch FRR
/// (so what a scratch FRR in a namespace renders differently from the device — `hostname`,
/// `no ip forwarding`, `service integrated-vtysh-config` — is the same on both sides), or, when
/// that cannot run, both in canonical form directly with a note saying what false drift that
/// can produce.
pub(crate) fn lines(
    running: &str,
    conf: &[u8],
    device_daemons: &[String],
) -> (BTreeSet<String>, BTreeSet<String>, Option<String>) {
    let daemons: Vec<String> = device_daemons
        .iter()
        .filter(|d| Path::new(LOCAL_BINDIR).join(d).is_file())
        .cloned()
        .collect();
    let profile = canon::defaults_profile(running);
    let read = |bytes: &[u8]| local_scratch(bytes, &profile, &daemons);
    match read(running.as_bytes()).and_then(|r| Ok((r, read(conf)?))) {
        Ok((dev, build)) => (canon::lines(&dev), canon::lines(&build), None),
        Err(why) => (
            canon::lines(running),
            canon::lines(&String::from_utf8_lossy(conf)),
            Some(format!(
                "frr.conf compared without a local scratch FRR ({why}): defaults FRR adds or \
                 drops and spellings it normalises may show as false drift"
            )),
        ),
    }
}

/// A private directory under the system temporary directory, removed on drop.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn local_scratch(conf: &[u8], profile: &str, daemons: &[String]) -> Result<String, String> {
    if !daemons.iter().any(|d| d == "zebra") {
        return Err(format!("no FRR daemons in {LOCAL_BINDIR}"));
    }
    let profile: String = profile
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("railyard-audit-{}-{nanos}", std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let dir = ScratchDir(dir);
    let conf_path = dir.0.join("build.conf");
    let out_path = dir.0.join("build.norm");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&conf_path)
        .and_then(|mut f| f.write_all(conf))
        .map_err(|e| format!("{}: {e}", conf_path.display()))?;
    let (Some(c), Some(o)) = (conf_path.to_str(), out_path.to_str()) else {
        return Err("temporary path is not UTF-8".into());
    };
    let cmd = scratch::normalize_command(c, o, &profile, daemons, LOCAL_BINDIR);
    let out = Command::new("sh")
        .arg("-c")
        .arg(&cmd)
        .output()
        .map_err(|e| format!("sh: {e}"))?;
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    if !out.status.success() || text.trim().is_empty() {
        return Err(format!(
            "local scratch FRR failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(text)
}
