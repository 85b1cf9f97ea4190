//! Warning levels of the command line (docs/ci.md): `--deny CODE` and `--allow CODE`
//! (repeatable), `--strict`, `--baseline FILE` of accepted fingerprints and `--write-baseline
//! FILE`, applied to a compiled spec's findings before anything reads them (the design, the
//! report, the machine document). An error is never accepted or lowered.
//!
//! For each finding that is not an error, the first that applies:
//! 1. its fingerprint is in the baseline (or was just written to one): accepted;
//! 2. its code is `--allow`ed: accepted;
//! 3. its code is `--deny`ed: an error;
//! 4. `--strict` and it is a warning: an error (`info` is advisory and stays);
//! 5. as it is.
//!
//! So `--strict --baseline b.json` fails on a new warning and passes the known ones, and
//! `--deny RY0501 --baseline b.json` fails on spare ports that were not there before.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::{globals, input, machine};
use railyard::diag::{Code, Diagnostic, Level, Severity, SourceFile};
use railyard::spec::locate::KeyPaths;

/// The `format` a baseline file carries.
const BASELINE_FORMAT: &str = "railyard/baseline/v1";

/// A baseline: the findings a team accepted, by fingerprint; the other fields are for the
/// people reading the file in review.
#[derive(Serialize, Deserialize)]
struct Baseline {
    format: String,
    accepted: Vec<Accepted>,
}

#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
struct Accepted {
    file: String,
    code: String,
    #[serde(default)]
    key: Option<String>,
    fingerprint: String,
    message: String,
}

/// The levels the command line asks for.
struct Levels {
    deny: BTreeSet<&'static str>,
    allow: BTreeSet<&'static str>,
    strict: bool,
    baseline: BTreeSet<String>,
}

/// `compiled` with the command line's levels applied (and, with `--write-baseline`, its
/// findings written as the baseline of `src`).
pub fn apply(src: &SourceFile, compiled: railyard::Compiled) -> anyhow::Result<railyard::Compiled> {
    let g = globals::get();
    let mut levels = Levels {
        deny: codes(&g.deny, "--deny")?,
        allow: codes(&g.allow, "--allow")?,
        strict: g.strict,
        baseline: BTreeSet::new(),
    };
    if let Some(both) = levels.deny.intersection(&levels.allow).next() {
        bail!("{both} is both denied and allowed: give it to one of --deny and --allow");
    }
    if let Some(file) = &g.baseline {
        levels.baseline = read(file)?
            .accepted
            .into_iter()
            .map(|a| a.fingerprint)
            .collect();
    }
    // Fingerprints need the spec's key paths: only computed when a baseline is involved.
    let prints = (g.baseline.is_some() || g.write_baseline.is_some()).then(|| {
        let paths = KeyPaths::of(&src.text);
        move |d: &Diagnostic| machine::identify(src, paths.as_ref(), d)
    });
    if let (Some(file), Some(identify)) = (&g.write_baseline, &prints) {
        let written = write(file, src, &compiled, identify)?;
        levels.baseline.extend(written);
    }
    Ok(compiled.leveled(|d| {
        let known = prints
            .as_ref()
            .is_some_and(|identify| levels.baseline.contains(&identify(d).1));
        levels.of(d, known)
    }))
}

impl Levels {
    fn of(&self, d: &Diagnostic, in_baseline: bool) -> Level {
        if in_baseline || self.allow.contains(d.code.id) {
            Level::Accept
        } else if self.deny.contains(d.code.id) || (self.strict && d.severity == Severity::Warning)
        {
            Level::Fail
        } else {
            Level::Keep
        }
    }
}

/// The codes of `--deny`/`--allow`, each a known one.
fn codes(given: &[String], flag: &str) -> anyhow::Result<BTreeSet<&'static str>> {
    given
        .iter()
        .map(|id| match Code::find(id) {
            Some(c) => Ok(c.id),
            None => bail!(
                "{flag} {}: no such diagnostic code (`railyard explain` lists them)",
                railyard::output::terminal::escape_inline(id)
            ),
        })
        .collect()
}

fn read(file: &Path) -> anyhow::Result<Baseline> {
    let text = input::read_text(file, input::BASELINE)?;
    let baseline: Baseline = serde_json::from_str(&text)
        .with_context(|| format!("reading the baseline `{}`", file.display()))?;
    if baseline.format != BASELINE_FORMAT {
        bail!(
            "`{}` is not a railyard baseline (format `{BASELINE_FORMAT}`)",
            file.display()
        );
    }
    Ok(baseline)
}

/// Write every finding of `src` that is not an error into the baseline `file`, keeping the
/// entries of other files an existing baseline has (one baseline for a repository of specs);
/// returns the fingerprints written.
fn write(
    file: &Path,
    src: &SourceFile,
    compiled: &railyard::Compiled,
    identify: &impl Fn(&Diagnostic) -> (Option<String>, String),
) -> anyhow::Result<Vec<String>> {
    let name = railyard::diag::fingerprint::file_name(&src.name);
    let mut accepted: Vec<Accepted> = if file.exists() {
        read(file)?
            .accepted
            .into_iter()
            .filter(|a| a.file != name)
            .collect()
    } else {
        Vec::new()
    };
    let mine: Vec<Accepted> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Error)
        .map(|d| {
            let (key, fingerprint) = identify(d);
            Accepted {
                file: name.clone(),
                code: d.code.id.to_string(),
                key,
                fingerprint,
                message: d.message.clone(),
            }
        })
        .collect();
    let prints = mine.iter().map(|a| a.fingerprint.clone()).collect();
    accepted.extend(mine);
    accepted.sort();
    accepted.dedup();
    let baseline = Baseline {
        format: BASELINE_FORMAT.to_string(),
        accepted,
    };
    let json = serde_json::to_string_pretty(&baseline)?;
    std::fs::write(file, format!("{json}\n"))
        .with_context(|| format!("writing the baseline `{}`", file.display()))?;
    Ok(prints)
}
