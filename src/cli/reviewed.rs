//! `push --plan PLAN`: push only the build a reviewed plan was made from, as `terraform apply
//! PLANFILE` applies only its plan. `diff OLD NEW --out PLAN` records where NEW came from
//! (`railyard/plan/v1`, its `new`): a build directory's `manifest.json` SHA-256 (the digest of
//! every file it lists), or a spec's SHA-256 and the railyard that rendered it. What push is
//! about to send must be that:
//!
//! - the plan's new side a build: the pushed build directory's manifest has that SHA-256 (or,
//!   compiling a spec, the spec and this railyard are the ones that build's manifest records);
//! - the plan's new side a spec: the pushed build's manifest records that spec's SHA-256 and
//!   that railyard (or, compiling a spec, it is that spec and this is that railyard: railyard's
//!   builds are byte-identical for one spec and one railyard).
//!
//! A plan whose new side is nothing (a deleted spec) pushes nothing. Anything else is refused
//! before a device is contacted.

use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;

use railyard::diag::SourceFile;
use railyard::output::build_dir::{BuildDir, OpenError};
use railyard::output::digest::sha256_hex;
use railyard::output::manifest::RAILYARD;

const PLAN_FORMAT: &str = "railyard/plan/v1";

/// The fields of a plan push reads (the rest is the change, for people).
#[derive(Deserialize)]
struct Plan {
    format: String,
    new: Origin,
}

/// Where the plan's new side came from (`diff`'s `Origin`).
#[derive(Deserialize)]
struct Origin {
    kind: String,
    path: String,
    railyard: Option<String>,
    manifest_sha256: Option<String>,
    spec_sha256: Option<String>,
}

/// What push is about to send: a build directory's files (`--from`), or a spec compiled now.
pub enum Pushed<'a> {
    Build(&'a Path),
    Spec(&'a SourceFile),
}

/// What the pushed files were made from, as a plan names it.
struct Made {
    what: String,
    manifest_sha256: Option<String>,
    spec_sha256: Option<String>,
    railyard: Option<String>,
}

/// `Ok` when `pushed` is what the plan at `plan` was made from; the refusal says what differs.
pub fn check(plan: &Path, pushed: &Pushed<'_>) -> anyhow::Result<()> {
    let text = super::input::read_text(plan, super::input::PLAN)?;
    let p: Plan = serde_json::from_str(&text)
        .with_context(|| format!("reading the plan `{}`", plan.display()))?;
    if p.format != PLAN_FORMAT {
        bail!(
            "`{}` is not a railyard plan (`diff --out` writes format `{PLAN_FORMAT}`)",
            plan.display()
        );
    }
    let made = made(pushed)?;
    let same = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
    let matches = match p.new.kind.as_str() {
        "build" => {
            same(&made.manifest_sha256, &p.new.manifest_sha256)
                || (made.manifest_sha256.is_none()
                    && same(&made.spec_sha256, &p.new.spec_sha256)
                    && same(&made.railyard, &p.new.railyard))
        }
        "spec" => {
            same(&made.spec_sha256, &p.new.spec_sha256) && same(&made.railyard, &p.new.railyard)
        }
        _ => bail!(
            "the plan `{}` removes the design (its new side `{}` does not exist): nothing to push",
            plan.display(),
            p.new.path
        ),
    };
    if !matches {
        bail!(
            "refusing to push {}: it is not what the plan `{}` was made from ({} `{}`: {}); \
             what would be pushed: {}. Run `railyard diff` again for this build and review it",
            made.what,
            plan.display(),
            p.new.kind,
            p.new.path,
            digests(&p.new.manifest_sha256, &p.new.spec_sha256, &p.new.railyard),
            digests(&made.manifest_sha256, &made.spec_sha256, &made.railyard),
        );
    }
    Ok(())
}

fn made(pushed: &Pushed<'_>) -> anyhow::Result<Made> {
    Ok(match pushed {
        Pushed::Build(dir) => {
            let build = BuildDir::open(dir).map_err(|e| match e {
                OpenError::Unreadable(e) | OpenError::Malformed(e) => anyhow::anyhow!(e),
            })?;
            let m = build.manifest();
            Made {
                what: format!("the build `{}`", dir.display()),
                manifest_sha256: Some(build.manifest_sha256().to_string()),
                spec_sha256: m.spec_sha256.clone(),
                railyard: m.railyard.clone(),
            }
        }
        Pushed::Spec(src) => Made {
            what: format!("the spec `{}`", src.name),
            manifest_sha256: None,
            spec_sha256: Some(sha256_hex(src.text.as_bytes())),
            railyard: Some(RAILYARD.to_string()),
        },
    })
}

fn digests(manifest: &Option<String>, spec: &Option<String>, railyard: &Option<String>) -> String {
    let unknown = || "-".to_string();
    format!(
        "manifest SHA-256 {}, spec SHA-256 {}, railyard {}",
        manifest.clone().unwrap_or_else(unknown),
        spec.clone().unwrap_or_else(unknown),
        railyard.clone().unwrap_or_else(unknown)
    )
}
