//! `--templates DIR`: read override templates from disk (the render stage does no I/O).

use std::path::Path;

use anyhow::{Context, bail};
use railyard::render::Templates;

use super::input;

fn walk(dir: &Path, root: &Path, t: &mut Templates) -> anyhow::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading template directory `{}`", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let meta = std::fs::symlink_metadata(&p)
            .with_context(|| format!("reading template override `{}`", p.display()))?;
        // Nothing in the directory is followed: a link to a directory could be a parent (a walk
        // that never ends), a link to a file could name any file the process can read
        // (`/proc/self/environ` would put the environment, CI secrets included, into every
        // config). Only regular files inside the directory are read (#38 item 1).
        if meta.is_symlink() {
            bail!(
                "`{}` is a symbolic link; template overrides are read only from regular files                  inside the directory, never through a link (copy the file in instead)",
                p.display()
            );
        }
        if meta.is_dir() {
            walk(&p, root, t)?;
            continue;
        }
        let name = p
            .strip_prefix(root)
            .unwrap_or(&p)
            .to_string_lossy()
            .replace('\\', "/");
        // These renderers embed their templates (the report, and the host files that run as
        // root on the nodes): an override would be ignored, so it is refused rather than
        // silently dropped.
        if name.starts_with("report/") {
            bail!(
                "`{}`: the report's page, CSS and script are built in and cannot be overridden",
                p.display()
            );
        }
        if name.starts_with("hosts/") {
            bail!(
                "`{}`: the node files (roce.sh, nccl.env, netplan, Slurm and Kueue files) are built in and cannot be overridden; only switch-config templates can",
                p.display()
            );
        }
        if name.starts_with("acceptance/") {
            bail!(
                "`{}`: the acceptance runners run as root on the nodes and are built in; they cannot be overridden",
                p.display()
            );
        }
        if name.starts_with("dayzero/") {
            bail!(
                "`{}`: the day-zero ZTP scripts run as root on unprovisioned switches and are built in; they cannot be overridden",
                p.display()
            );
        }
        if name.starts_with("export/") {
            bail!(
                "`{}`: the export files (containerlab's FRR daemons file) are built in and cannot be overridden",
                p.display()
            );
        }
        if !Templates::is_builtin(&name) {
            bail!(
                "`{}` overrides no built-in template (known: {})",
                p.display(),
                Templates::builtin_names().collect::<Vec<_>>().join(", ")
            );
        }
        // Not a link (asked again as it is opened), a regular file, bounded.
        let text = railyard::output::bounded::read_text_no_follow(&p, input::TEMPLATE)?;
        t.overrides.insert(name, text);
    }
    Ok(())
}

/// The templates to render with: built-ins, replaced file by file from `dir`.
pub fn load(dir: Option<&Path>) -> anyhow::Result<Templates> {
    let mut t = Templates::default();
    if let Some(dir) = dir {
        walk(dir, dir, &mut t)?;
    }
    Ok(t)
}
