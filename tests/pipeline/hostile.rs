//! Hostile specs, built as CI builds a spec from a pull request: `railyard build` (the binary)
//! on every file of `tests/hostile/` (one per attack class of issue 25, each an example
//! inventory with one edit; its header says the class and the expected result) and on every
//! committed spec fuzz corpus file.
//!
//! Each build runs in a sandbox: a parent directory holding the spec, a sentinel file, and a
//! symlink `tmp` to a second directory outside it (a path that climbs out of `-o` lands on the
//! symlink and would write through it). `-o` is three levels down, so `../../../../tmp/x` from
//! `hosts/<model>/` reaches the trap. The build must either
//! - exit 1 with diagnostics in JSON, each with an `RY` code, at least one located
//!   (file:line:col), none with a raw control character; or
//! - exit 0 with nothing changed outside `-o` (both directories walked before and after,
//!   symlinks not followed), a manifest of plain relative paths naming regular files, and
//!   outputs holding no injected line (a line starting with one of the payload commands), no
//!   raw ESC, NUL or bidi control, no CSV cell that starts a formula with the payload, and no
//!   `${NAME}` placeholder but the secrets the spec declares (`bgp.auth_env`) and railyard's
//!   own SNMP communities.

use crate::common;

use crate::entry;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What a hostile spec's header says the build must do.
#[derive(Debug, PartialEq)]
enum Expect {
    /// Exit 1 with this code among the diagnostics, located.
    Refused(String),
    /// Exit 0 with clean outputs.
    Built,
    /// Either, with the checks of each (fuzz corpus files).
    Either,
}

/// The lines a payload tries to put on a line of their own (the hostile specs use exactly these).
const INJECTED: &[&str] = &[
    "touch /tmp/RAILYARD_PWNED",
    "ip route 0.0.0.0/0 10.66.66.66 tag 666",
    "username RAILYARD_PWNED",
];

/// The marker every payload carries.
const MARKER: &str = "RAILYARD_PWNED";

/// Placeholders railyard writes for secrets of its own (SNMP communities), besides `auth_env`.
const BUILT_IN_SECRETS: &[&str] = &["SNMP_TRAP_COMMUNITY", "SNMP_COMMUNITY"];

/// Every file under `root` (symlinks listed as links, never followed) with its content.
fn snapshot(root: &Path, skip: Option<&Path>) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read sandbox") {
            let path = entry.expect("read sandbox").path();
            if Some(path.as_path()) == skip {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).expect("stat");
            if meta.is_symlink() {
                let target = std::fs::read_link(&path).expect("readlink");
                out.insert(path, target.into_os_string().into_encoded_bytes());
            } else if meta.is_dir() {
                out.insert(path.clone(), b"<dir>".to_vec());
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

struct Sandbox {
    _parent: tempfile::TempDir,
    _outside: tempfile::TempDir,
    parent: PathBuf,
    outside: PathBuf,
    out: PathBuf,
}

impl Sandbox {
    fn new(spec: &str) -> Sandbox {
        let parent = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let p = parent.path().to_path_buf();
        std::fs::write(p.join("SENTINEL"), "a file of the user's").expect("write");
        std::fs::write(outside.path().join("SENTINEL"), "outside -o").expect("write");
        std::os::unix::fs::symlink(outside.path(), p.join("tmp")).expect("symlink");
        std::fs::create_dir_all(p.join("d1/d2")).expect("mkdir");
        std::fs::write(p.join("spec.yaml"), spec).expect("write");
        Sandbox {
            out: p.join("d1/d2/out"),
            outside: outside.path().to_path_buf(),
            parent: p,
            _parent: parent,
            _outside: outside,
        }
    }

    fn everything_but_out(&self) -> [BTreeMap<PathBuf, Vec<u8>>; 2] {
        [
            snapshot(&self.parent, Some(&self.out)),
            snapshot(&self.outside, None),
        ]
    }
}

/// Build `spec` in a sandbox and check the result against `expect`; `Err` says what failed.
fn build_and_check(spec: &str, expect: &Expect) -> Result<(), String> {
    let sb = Sandbox::new(spec);
    let before = sb.everything_but_out();
    let run = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["build", "spec.yaml", "-o", "d1/d2/out", "--format", "json"])
        .current_dir(&sb.parent)
        .output()
        .map_err(|e| format!("railyard does not run: {e}"))?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    // `--format json`: the diagnostics are the command's answer, on standard output.
    let stdout = String::from_utf8_lossy(&run.stdout);
    if before != sb.everything_but_out() {
        return Err(format!("files outside -o changed\n{stderr}"));
    }
    match (run.status.code(), expect) {
        (Some(1), Expect::Refused(code)) => refused(spec, &stdout, Some(code)),
        (Some(1), Expect::Either) => refused(spec, &stdout, None),
        (Some(0), Expect::Built | Expect::Either) => built(spec, &sb.out),
        (code, _) => Err(format!("exit {code:?}, expected {expect:?}\n{stderr}")),
    }
}

/// The diagnostics of a refused build: JSON, coded, located, no raw control character.
fn refused(spec: &str, stderr: &str, code: Option<&String>) -> Result<(), String> {
    if let Some(c) = stderr.chars().find(|&c| c.is_control() && c != '\n') {
        return Err(format!("raw control character {c:?} in the diagnostics"));
    }
    let doc: serde_json::Value = serde_json::from_str(stderr.trim())
        .map_err(|e| format!("the build's document is not JSON ({e}):\n{stderr}"))?;
    let diags: Vec<serde_json::Value> = doc["diagnostics"]
        .as_array()
        .cloned()
        .ok_or_else(|| format!("no diagnostics in the document:\n{stderr}"))?;
    let located = |d: &serde_json::Value| {
        d["file"] == "spec.yaml" && d["line"].as_u64() >= Some(1) && d["column"].as_u64() >= Some(1)
    };
    let coded = |d: &serde_json::Value| {
        d["code"].as_str().is_some_and(|c| {
            c.len() == 6 && c.starts_with("RY") && c[2..].bytes().all(|b| b.is_ascii_digit())
        })
    };
    if diags.is_empty() || !diags.iter().all(coded) || !diags.iter().any(located) {
        return Err(format!("no located, coded diagnostic:\n{stderr}"));
    }
    if let Some(code) = code
        && !diags
            .iter()
            .any(|d| d["code"] == code.as_str() && located(d))
    {
        return Err(format!("no located {code}:\n{stderr}"));
    }
    // Every line holding a placeholder is named by its own RY0006.
    for (i, line) in spec.lines().enumerate() {
        let at = |d: &serde_json::Value| d["code"] == "RY0006" && d["line"] == i + 1;
        if line.contains("${") && !line.trim_start().starts_with('#') && !diags.iter().any(at) {
            return Err(format!("no RY0006 at line {}: {line}\n{stderr}", i + 1));
        }
    }
    Ok(())
}

/// A successful build: manifest of plain relative paths, no injected line, no undeclared
/// placeholder, no formula cell, no raw control characters.
fn built(spec: &str, out: &Path) -> Result<(), String> {
    let manifest: serde_json::Value = std::fs::read(out.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("no readable manifest.json")?;
    let files = manifest["files"]
        .as_array()
        .ok_or("manifest lists no files")?;
    for f in files {
        let path = f["path"].as_str().ok_or("manifest entry without a path")?;
        let plain = |c: &str| {
            !c.is_empty()
                && c != "."
                && c != ".."
                && !c.contains('\\')
                && !c.contains(char::is_control)
        };
        if !path.split('/').all(plain) {
            return Err(format!(
                "manifest path {path:?} is not plain relative components"
            ));
        }
        let meta = std::fs::symlink_metadata(out.join(path))
            .map_err(|e| format!("manifest names {path}, not written: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{path} is not a regular file"));
        }
    }
    let mut declared: Vec<String> = BUILT_IN_SECRETS.iter().map(|s| s.to_string()).collect();
    declared.extend(auth_env(spec));
    for (path, bytes) in snapshot(out, None) {
        let Ok(text) = String::from_utf8(bytes) else {
            continue; // cabling.xlsx (a zip): its XML parts hold escaped text only
        };
        let name = path.display().to_string();
        if text == "<dir>" {
            continue;
        }
        clean_text(&name, &text, &declared)?;
        if name.ends_with(".csv") {
            no_formula(&name, &text)?;
        }
    }
    Ok(())
}

/// The `bgp.auth_env` a spec declares (a flow mapping or a block key, as the inventories write it).
fn auth_env(spec: &str) -> Option<String> {
    let at = spec.find("auth_env:")? + "auth_env:".len();
    let name: String = spec[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    Some(name)
}

fn clean_text(name: &str, text: &str, declared: &[String]) -> Result<(), String> {
    for line in text.lines() {
        let start = line.trim_start().trim_start_matches(['\'', '"', '-', ' ']);
        if INJECTED.iter().any(|p| start.starts_with(p)) {
            return Err(format!("{name}: injected line {line:?}"));
        }
        if let Some(c) = line.chars().find(
            |&c| matches!(c, '\0' | '\u{1b}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'),
        ) {
            return Err(format!("{name}: raw {c:?} in {line:?}"));
        }
    }
    for (at, _) in text.match_indices("${") {
        let var: String = text[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !declared.contains(&var) {
            let around = &text[at..text.len().min(at + 40)];
            return Err(format!(
                "{name}: placeholder for an undeclared variable: {around:?}"
            ));
        }
    }
    Ok(())
}

/// The characters that begin a formula in a spreadsheet cell (OWASP "CSV Injection").
const FORMULA: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// No cell of a CSV file starts a formula, as a spreadsheet may cut it into cells: the CSV
/// reader's cells (`,` with quotes honoured), and every piece of each cell and of each raw line
/// split at any separator a spreadsheet may use (`,` `;` tab, OWASP), quotes ignored, one leading
/// `"` dropped (a reader that splits on `;` opens a quoted cell there). A piece that is a number
/// is a number, not a formula (`-2.5`). The reader's cells must not hold the payload in a
/// formula; the pieces must not start a formula at all (#38 item 4).
fn no_formula(name: &str, text: &str) -> Result<(), String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let formula = |piece: &str| {
        let piece = piece.strip_prefix('"').unwrap_or(piece);
        piece.starts_with(FORMULA) && piece.parse::<f64>().is_err()
    };
    for record in reader.records() {
        let record = record.map_err(|e| format!("{name}: not CSV: {e}"))?;
        for cell in &record {
            if cell.starts_with(FORMULA) && cell.contains(MARKER) {
                return Err(format!("{name}: formula cell {cell:?}"));
            }
            if let Some(p) = cell.split([',', ';', '\t', '\n']).find(|p| formula(p)) {
                return Err(format!(
                    "{name}: formula {p:?} behind a separator in {cell:?}"
                ));
            }
        }
    }
    for line in text.lines() {
        if let Some(p) = line.split([',', ';', '\t']).find(|p| formula(p)) {
            return Err(format!(
                "{name}: formula {p:?} behind a separator in {line:?}"
            ));
        }
    }
    Ok(())
}

/// The expected result a hostile spec's header states.
fn expectation(name: &str, text: &str) -> Expect {
    let header = |key: &str| {
        text.lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .unwrap_or_else(|| panic!("{name}: no `{key}` line in the header"))
    };
    assert!(!header("# class:").is_empty(), "{name}: no class");
    let expect = header("# expect:");
    if let Some(code) = expect.strip_prefix("refused ") {
        Expect::Refused(code.trim().to_string())
    } else if expect.starts_with("built") {
        Expect::Built
    } else {
        panic!("{name}: `# expect:` is `refused RYxxxx` or `built…`, not {expect:?}")
    }
}

/// Run `check` over `items` on two threads; every failure, with its name.
fn run_all(items: Vec<(String, String, Expect)>) -> Vec<String> {
    let items = std::sync::Mutex::new(items);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some((name, spec, expect)) = items.lock().expect("lock").pop() else {
                        break;
                    };
                    if let Err(e) = build_and_check(&spec, &expect) {
                        failures.lock().expect("lock").push(format!("{name}: {e}"));
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().expect("lock");
    f.sort();
    f
}

fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("read dir").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// The hostile specs, with the expectation each one's header states.
fn hostile_specs() -> Vec<(String, String, Expect)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut items = Vec::new();
    for path in files_of(&dir) {
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = expectation(&name, &text);
        items.push((name, text, expect));
    }
    items
}

#[test]
fn every_hostile_spec_is_refused_with_a_located_diagnostic_or_built_clean() {
    let started = Instant::now();
    let items = hostile_specs();
    assert!(items.len() >= 20, "only {} hostile specs", items.len());
    assert!(
        items.iter().any(|i| i.2 == Expect::Built),
        "no hostile spec is expected to build: the clean-output checks would check nothing"
    );
    let n = items.len();
    let failures = run_all(items);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{n} hostile specs in {:.1?}", started.elapsed());
}

/// The committed `spec` and `spec_catalog` fuzz corpora (the catalog bodies placed in the
/// cluster their target uses), within the fuzz targets' size bound.
#[test]
fn every_spec_fuzz_corpus_file_is_refused_or_built_clean() {
    let started = Instant::now();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut items = Vec::new();
    for (target, wrap) in [
        ("spec", (|t: &str| t.to_string()) as fn(&str) -> String),
        ("spec_catalog", entry::spec_catalog::spec_text),
    ] {
        for path in files_of(&corpus.join(target)) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // not UTF-8: no spec
            };
            let spec = wrap(&text);
            if !small(&spec) {
                continue;
            }
            let name = format!(
                "{target}/{}",
                path.file_name().expect("name").to_string_lossy()
            );
            items.push((name, spec, Expect::Either));
        }
    }
    assert!(items.len() >= 100, "only {} corpus specs", items.len());
    let n = items.len();
    let failures = run_all(items);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{n} fuzz corpus specs in {:.1?}", started.elapsed());
}

/// Whether the spec parses to a cluster the fuzz targets would compile (or does not parse: then
/// the build refuses it at once).
fn small(text: &str) -> bool {
    let src = railyard::diag::SourceFile::new("spec.yaml", text);
    let mut diags = railyard::diag::Diagnostics::default();
    railyard::spec::parse(&src, &mut diags).is_none_or(|s| entry::spec::small_enough(&s))
}

#[test]
fn the_sandbox_notices_a_file_written_through_the_trap() {
    let sb = Sandbox::new("name: x\n");
    let before = sb.everything_but_out();
    std::fs::write(sb.parent.join("tmp/roce.sh"), "x").expect("write through the link");
    assert_ne!(before, sb.everything_but_out());
}

/// Each hostile spec is the inventory its header names with a small edit: the attack is the
/// only thing that differs from a spec known to build.
#[test]
fn every_hostile_spec_is_an_inventory_with_a_small_edit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    for path in files_of(&dir) {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("read");
        let base = text
            .lines()
            .find_map(|l| l.strip_prefix("# base: inventories/"))
            .and_then(|l| l.split_once(".yaml"))
            .map(|(b, _)| format!("{b}.yaml"))
            .unwrap_or_else(|| panic!("{name}: no `# base: inventories/…` line"));
        let inventory = common::inventory(&base);
        let edited: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !inventory.lines().any(|i| i == *l))
            .collect();
        assert!(
            !edited.is_empty() && edited.len() <= 8,
            "{name}: {} lines differ from {base}: {edited:?}",
            edited.len()
        );
    }
}

/// The NetBox export (`railyard export netbox`) of every hostile spec whose class is CSV
/// formula injection: every CSV cell and every piece behind a separator starts no formula, and
/// every `slug` cell is a slug NetBox accepts on import — Django's `validate_slug`
/// (`^[-a-zA-Z0-9_]+\Z`) at most 100 characters (NetBox's `SlugField(max_length=100)`), as the
/// CSV reader gives it; a text beginning with punctuation once came out as `'-…` (#38).
#[test]
fn the_netbox_export_of_formula_text_has_importable_slugs_and_no_formula() {
    let csv_classes: Vec<_> = hostile_specs()
        .into_iter()
        .filter(|(name, _, _)| name.starts_with("csv-formula"))
        .collect();
    assert!(csv_classes.len() >= 2, "{csv_classes:?}");
    for (name, spec, _) in csv_classes {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("spec.yaml"), &spec).expect("spec");
        let o = Command::new(env!("CARGO_BIN_EXE_railyard"))
            .args(["export", "netbox", "spec.yaml", "-o", "netbox"])
            .current_dir(dir.path())
            .output()
            .expect("railyard export netbox");
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut slugs = 0;
        let written = snapshot(&dir.path().join("netbox"), None);
        for path in written
            .keys()
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        {
            let text = std::fs::read_to_string(path).expect("csv");
            let file = format!("{name}: {}", path.display());
            no_formula(&file, &text).unwrap_or_else(|e| panic!("{e}"));
            let mut reader = csv::Reader::from_reader(text.as_bytes());
            let headers = reader.headers().expect("header").clone();
            let Some(col) = headers.iter().position(|h| h == "slug") else {
                continue;
            };
            for record in reader.records() {
                let slug = record.expect("record")[col].to_string();
                let valid = !slug.is_empty()
                    && slug.len() <= 100
                    && slug
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                assert!(valid, "{file}: slug {slug:?} is not one NetBox accepts");
                slugs += 1;
            }
        }
        assert!(slugs > 0, "{name}: no slug column in the NetBox export");
    }
}
