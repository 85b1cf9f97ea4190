//! Pinned diagnostics: every spec under `tests/diagnostics/` is a deliberately broken (or wasteful)
//! cluster spec. Its first line is a `# ` comment naming what is wrong and the code(s) it must
//! produce; `warning-only` in that line marks a spec that must still compile.
//!
//! For each file the test snapshots a deterministic rendering of all diagnostics (source order,
//! `file:line:col: severity[code]: message` plus help and label lines) and checks programmatically:
//! - every code named in the header is reported;
//! - the spec fails to compile (an error, no fabric) unless the header says `warning-only`;
//! - every error carries a span into the spec, unless listed in [`SPANLESS_ERRORS`].
//!
//! Accept new or changed snapshots with `INSTA_UPDATE=always cargo test --test pipeline diagnostics::` and
//! review the `.snap` files under `tests/snapshots/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use railyard::diag::{ALL_CODES, Diagnostic, Severity, SourceFile};

/// Codes that no spec can trigger, with the reason; `every_code_is_pinned` skips them, and fails
/// once one of them is produced after all (then pin it with a spec and drop it from here).
const UNTRIGGERABLE: &[(&str, &str)] = &[
    (
        "RY1202",
        "about `railyard diff`'s two sides (made by different railyards), not a spec: pinned in tests/day_two/diff_railyards.rs",
    ),
    (
        "RY1201",
        "about `railyard diff`'s two sides, not a spec: pinned in tests/pipeline/machine_output.rs (a side that does not exist)",
    ),
    (
        "RY1101",
        "about a device identity file (`build --identities`), not a spec: pinned with located rows in tests/pipeline/dayzero_identities.rs",
    ),
    (
        "RY1102",
        "about a device identity file (`build --identities`), not a spec: pinned with located rows in tests/pipeline/dayzero_identities.rs",
    ),
    (
        "RY1103",
        "about a device identity file (`build --identities`), not a spec: pinned with located rows in tests/pipeline/dayzero_identities.rs",
    ),
    (
        "RY1104",
        "about the `build --provisioning-url` flag, not a spec: pinned located in the flag in tests/pipeline/dayzero_dhcp.rs",
    ),
    (
        "RY1105",
        "about a device identity file's row against the plan, not a spec: pinned located in tests/pipeline/dayzero_dhcp.rs",
    ),
    (
        "RY1106",
        "about the DHCP reservations of an identity file, not a spec: pinned located in tests/pipeline/dayzero_dhcp.rs",
    ),
    (
        "RY0611",
        "retired: every platform renders TCP-MD5 and GTSM now; the code stays reserved",
    ),
    (
        "RY0005",
        "input budget: needs a huge or alias-bomb document; not worth pinning as a fixture",
    ),
    (
        "RY0808",
        "the isolation proof checks railyard's own VRF assignment; no spec can make it disagree",
    ),
    (
        "RY0710",
        "checks railyard's own per-VRF prefixes; no spec can make them disagree (tests/pipeline/tenancy.rs shows it fires on a doctored intent)",
    ),
    (
        "RY0903",
        "about an InfiniBand capture (`railyard ib import`, `build --port-guids`), not a spec: pinned with located captures in tests/deliverables/partitions_opensm.rs",
    ),
    (
        "RY0904",
        "about an InfiniBand capture, not a spec: tests/deliverables/partitions_opensm.rs pins it on a miscabled capture",
    ),
    (
        "RY0905",
        "about InfiniBand captures that contradict each other, not a spec: tests/deliverables/partitions_opensm.rs pins it on two ports with one GUID",
    ),
    (
        "RY0910",
        "raised when an acceptance plan is made (`railyard acceptance plan`), not by compile: tests/day_two/acceptance.rs pins it, located at the node model",
    ),
];

/// Errors that are known to come without a span although they concern something the user wrote,
/// as (spec file, code). Each one is a reported defect; remove the entry once it is fixed.
const SPANLESS_ERRORS: &[(&str, &str)] = &[];

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics")
}

fn spec_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(spec_dir())
        .expect("tests/diagnostics exists")
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// The `# ` header: codes it names (`RYdddd`) and whether it says `warning-only`.
struct Header {
    codes: Vec<String>,
    warning_only: bool,
}

fn header(name: &str, text: &str) -> Header {
    let first = text.lines().next().unwrap_or("");
    assert!(
        first.starts_with("# "),
        "{name}: first line must be a `# ` comment saying what is wrong and which code it must produce"
    );
    let b = first.as_bytes();
    let mut codes = Vec::new();
    let mut i = 0;
    while i + 6 <= b.len() {
        if &b[i..i + 2] == b"RY" && b[i + 2..i + 6].iter().all(u8::is_ascii_digit) {
            codes.push(first[i..i + 6].to_string());
            i += 6;
        } else {
            i += 1;
        }
    }
    assert!(
        !codes.is_empty(),
        "{name}: the header names no code (RYdddd)"
    );
    Header {
        codes,
        warning_only: first.contains("warning-only"),
    }
}

fn severity(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// One block per diagnostic, in source order.
fn render(name: &str, src: &SourceFile, diags: &[&Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let place = match d.span {
            Some(s) => {
                let (line, col) = src.line_col(s.start);
                format!("{name}:{line}:{col}")
            }
            None => name.to_string(),
        };
        out.push_str(&format!(
            "{place}: {}[{}]: {}\n",
            severity(d),
            d.code.id,
            d.message
        ));
        if let Some(h) = &d.help {
            out.push_str(&format!("  help: {h}\n"));
        }
        if let Some(l) = &d.label {
            out.push_str(&format!("  label: {l}\n"));
        }
    }
    out
}

fn check_file(path: &Path) -> String {
    let name = file_name(path);
    let text = std::fs::read_to_string(path).expect("readable spec");
    let h = header(&name, &text);
    let src = SourceFile::new(name.clone(), text);
    let compiled = railyard::compile(&src);
    let diags = compiled.diagnostics.sorted();

    let found: BTreeSet<&str> = diags.iter().map(|d| d.code.id).collect();
    for code in &h.codes {
        assert!(
            found.contains(code.as_str()),
            "{name}: header names {code}, but the diagnostics are {found:?}:\n{}",
            render(&name, &src, &diags)
        );
    }
    let has_error = diags.iter().any(|d| d.severity == Severity::Error);
    if h.warning_only {
        assert!(
            !has_error && compiled.design.is_some(),
            "{name}: marked warning-only, but it does not compile cleanly:\n{}",
            render(&name, &src, &diags)
        );
    } else {
        assert!(
            has_error && compiled.design.is_none(),
            "{name}: expected at least one error and no fabric:\n{}",
            render(&name, &src, &diags)
        );
    }
    for d in &diags {
        if d.severity == Severity::Error
            && d.span.is_none()
            && !SPANLESS_ERRORS.contains(&(name.as_str(), d.code.id))
        {
            panic!(
                "{name}: error {} has no span (it should point into the spec): {}",
                d.code.id, d.message
            );
        }
        // Warnings too: a finding the user cannot place is one they cannot act on.
        assert!(
            d.severity != Severity::Warning || d.span.is_some(),
            "{name}: warning {} has no span: {}",
            d.code.id,
            d.message
        );
        if let Some(s) = d.span {
            assert!(
                (s.start as usize) <= src.text.len(),
                "{name}: span of {} starts past the end of the file",
                d.code.id
            );
        }
    }
    render(&name, &src, &diags)
}

#[test]
fn pinned_diagnostics() {
    crate::common::pinned_snapshots().bind(|| {
        insta::glob!("..", "diagnostics/*.yaml", |path| {
            let rendered = check_file(path);
            insta::assert_snapshot!("diagnostics__pinned_diagnostics", rendered);
        });
    });
}

#[test]
fn explain_covers_every_code() {
    let mut seen = BTreeSet::new();
    for c in ALL_CODES {
        assert!(!c.explain.trim().is_empty(), "{} has no explain text", c.id);
        assert!(!c.title.trim().is_empty(), "{} has no title", c.id);
        assert!(
            c.id.len() == 6
                && c.id.starts_with("RY")
                && c.id[2..].bytes().all(|b| b.is_ascii_digit()),
            "malformed code id `{}`",
            c.id
        );
        assert!(seen.insert(c.id), "duplicate code {}", c.id);
        assert_eq!(
            railyard::diag::Code::find(c.id).map(|f| f.id),
            Some(c.id),
            "Code::find does not find {}",
            c.id
        );
    }
    let ids: Vec<&str> = ALL_CODES.iter().map(|c| c.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted, "ALL_CODES is not in numeric order");
}

#[test]
fn every_code_is_pinned() {
    let mut found = BTreeSet::new();
    for path in spec_files() {
        let src = SourceFile::new(
            file_name(&path),
            std::fs::read_to_string(&path).expect("readable spec"),
        );
        for d in railyard::compile(&src).diagnostics.iter() {
            found.insert(d.code.id);
        }
    }
    let skipped: BTreeSet<&str> = UNTRIGGERABLE.iter().map(|(c, _)| *c).collect();
    let missing: Vec<&str> = ALL_CODES
        .iter()
        .map(|c| c.id)
        .filter(|id| !found.contains(id) && !skipped.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "no spec under tests/diagnostics/ produces {missing:?}"
    );
    for id in &skipped {
        assert!(
            ALL_CODES.iter().any(|c| c.id == *id),
            "UNTRIGGERABLE lists {id}, which is not a code"
        );
        assert!(
            !found.contains(id),
            "{id} is listed in UNTRIGGERABLE but a spec produces it now: remove it from the list"
        );
    }
}

/// Every [`SPANLESS_ERRORS`] entry must still be a spanless error, so the list shrinks as the
/// defects are fixed.
#[test]
fn spanless_allow_list_is_current() {
    for (file, code) in SPANLESS_ERRORS {
        let path = spec_dir().join(file);
        let src = SourceFile::new(
            *file,
            std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{file} exists")),
        );
        let compiled = railyard::compile(&src);
        assert!(
            compiled
                .diagnostics
                .iter()
                .any(|d| d.code.id == *code && d.severity == Severity::Error && d.span.is_none()),
            "{file}: {code} now has a span (or is gone); remove it from SPANLESS_ERRORS"
        );
    }
}

#[test]
fn at_least_24_pinned_specs() {
    let n = spec_files().len();
    assert!(n >= 24, "only {n} specs under tests/diagnostics/");
}
