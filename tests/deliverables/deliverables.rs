//! No silent empty deliverable (issue #25): every inventory under `inventories/` is built by the
//! `railyard` binary, and every file its manifest lists is non-empty, has the size and SHA-256
//! the manifest gives, and is read to the end by a reader of its type:
//!
//! - JSON: serde_json; CSV: the csv crate, every row of the header's width; XML: quick-xml;
//! - YAML: PyYAML (every document), Markdown: markdown-it-py with GFM tables (every table line a
//!   parsed row), both in the project's Python venv (`tests/python/deliverables_read.py`);
//! - shell scripts and env files: `bash -n` or `sh -n`, after the script's own `#!` line;
//! - `cabling.xlsx`: calamine, every sheet; FRR configs: FRR's own parser (`vtysh -C`);
//! - `report.html`: headless Chromium with no console error and no request leaving the file,
//!   until the page's script says it is ready, with the cables and devices the cabling plan and
//!   `plan.json` have; `labels/*.html` (written on request: the builds ask for them with
//!   `--only …,labels`): the first sheet of each inventory loaded in Chromium (no console
//!   error, no request leaving the file) and parsed by Chromium's HTML parser (`DOMParser`),
//!   two labels for each cable of `cabling.csv` whose B end is in the sheet's rack (or switch),
//!   each label with its QR code (every sheet is drawn by the same code; parsing all 600 of the
//!   largest inventory took most of this test's browser time);
//! - `labels/*.zpl`: every label one `^XA` … `^XZ` format whose fields are opened by `^FH` and
//!   whose `^FD` data is printable ASCII with `_XX` escapes only (ZPL II Programming Guide: `^`
//!   and `~` are command prefixes), two labels per cable of `cabling.csv` over all files (the
//!   printer's own drawing of them: tests/deliverables/labels.rs);
//! - formats without a parser on this machine, read line by line against the grammar their
//!   consumer accepts (the consumers themselves run in the tests named beside each): EOS CLI
//!   (tests/render/eos_avd.rs), Slurm `Key=Value` lines (tests/deliverables/scheduler.rs), OpenSM options, root
//!   switches and partitions (tests/deliverables/partitions_opensm.rs).
//!
//! A file of a kind not named here fails the test until someone names its reader.
//!
//! One Chromium serves every page. The inventories are built side by side; each build's thread
//! then reads its files with every reader but the browser (in-process readers, Python, vtysh)
//! while other inventories still build, and the browser takes the inventories in the order
//! their builds finish.

use crate::browser;
use crate::prereq;
use crate::pyenv;

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use calamine::{Reader, Xlsx};
use railyard::output::Manifest;
use serde_json::{Value, json};

const TEST: &str = "every_deliverable_of_every_inventory_is_non_empty_and_parses";

/// The reader of each kind of output file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Json,
    Yaml,
    Csv,
    Xml,
    Shell,
    Xlsx,
    Report,
    Labels,
    Zpl,
    Markdown,
    Frr,
    Eos,
    Slurm,
    OpensmOptions,
    RootSwitches,
    Partitions,
    ImexNodes,
    /// `sheets/<rack>.html`, the installer sheets (tests/deliverables/installer_sheets.rs).
    InstallerSheet,
}

fn kind(path: &str) -> Kind {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match (name, ext) {
        ("report.html", _) => Kind::Report,
        (_, "html") if path.starts_with("labels/") => Kind::Labels,
        (_, "html") if path.starts_with("sheets/") => Kind::InstallerSheet,
        (_, "zpl") => Kind::Zpl,
        (_, "json") => Kind::Json,
        (_, "yaml") => Kind::Yaml,
        (_, "csv") => Kind::Csv,
        (_, "xml") => Kind::Xml,
        (_, "sh" | "env") => Kind::Shell,
        (_, "xlsx") => Kind::Xlsx,
        (_, "md") => Kind::Markdown,
        ("frr.conf", _) => Kind::Frr,
        ("startup-config", _) => Kind::Eos,
        ("topology.conf" | "topology-tree.conf" | "slurm-partition.conf", _) => Kind::Slurm,
        ("nodes_config.cfg", _) => Kind::ImexNodes,
        ("opensm.conf", _) => Kind::OpensmOptions,
        ("root-switches.txt", _) => Kind::RootSwitches,
        ("partitions.conf" | "partitions.conf.template", _) => Kind::Partitions,
        _ => panic!(
            "{path}: no reader is named for this kind of file in tests/deliverables/deliverables.rs"
        ),
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The readers outside this process that every build thread may run at once.
struct Readers {
    python: PathBuf,
    vtysh: PathBuf,
}

/// An inventory's files as read before the browser: how many, every failure, and the files
/// the browser reads.
struct Read {
    files: usize,
    failures: Vec<String>,
    later: Vec<(Kind, String)>,
}

#[test]
fn every_deliverable_of_every_inventory_is_non_empty_and_parses() {
    let (Some(chromium), Some(python), Some(vtysh)) = (
        browser::chromium(TEST),
        pyenv::python(TEST),
        prereq::program(TEST, "vtysh", "frr"),
    ) else {
        return;
    };
    let mut browser = browser::Browser::launch(&chromium);
    let readers = Readers { python, vtysh };
    let mut inventories: Vec<PathBuf> = std::fs::read_dir(root().join("inventories"))
        .expect("inventories/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    inventories.sort();
    assert!(inventories.len() >= 11, "{inventories:?}");
    let tmp = tempfile::tempdir().expect("tmp");
    let mut by_inventory: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut files = 0;
    std::thread::scope(|scope| {
        // Every build starts now; its thread reads what needs no browser as soon as it is done.
        let (done, finished) = std::sync::mpsc::channel();
        for spec in &inventories {
            let name = spec
                .file_stem()
                .expect("stem")
                .to_string_lossy()
                .into_owned();
            let out = tmp.path().join(&name);
            let (done, readers) = (done.clone(), &readers);
            scope.spawn(move || {
                let read = build(spec, &out).map(|()| read_without_browser(&out, readers));
                let _ = done.send((name, out, read));
            });
        }
        drop(done);
        // The browser reads the inventories in the order their builds finish.
        for (name, out, read) in finished {
            let found = match read {
                Ok(r) => {
                    files += r.files;
                    let mut found = r.failures;
                    found.extend(read_in_chromium(&mut browser, &out, &r.later));
                    found
                }
                Err(e) => vec![e],
            };
            by_inventory.insert(name, found);
        }
    });
    assert_eq!(
        by_inventory.len(),
        inventories.len(),
        "every build reported"
    );
    // The batched label count can fail: a label without its QR code is reported.
    let broken = tmp.path().join("broken-labels.html");
    let sheet = "<!DOCTYPE html><div class=\"label\"><svg class=\"qr\"><path d=\"M0 0\"/></svg></div>\
                 <div class=\"label\"><svg class=\"qr\"></svg></div>";
    std::fs::write(&broken, sheet).expect("write");
    let (_, bad) = parse_label_sheets(&mut browser, &[("broken-labels.html", broken)]);
    assert_eq!(bad.len(), 1, "a label without a QR code is seen: {bad:?}");
    let failures: Vec<String> = by_inventory
        .into_iter()
        .flat_map(|(name, found)| found.into_iter().map(move |f| format!("{name}: {f}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {files} deliverables do not read:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `railyard build SPEC -o OUT`, or why it failed.
fn build(spec: &Path, out: &Path) -> Result<(), String> {
    let run = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .arg("build")
        .arg(spec)
        .arg("-o")
        .arg(out)
        // Every group, and the label sheets that are written only on request.
        .args([
            "--only",
            "configs,cabling,addresses,hosts,plan,report,labels",
        ])
        .output()
        .expect("railyard runs");
    if run.status.success() {
        Ok(())
    } else {
        Err(format!("build failed: {}", lossy(&run.stderr)))
    }
}

/// Read every file of the manifest of the build in `out` with every reader but the browser;
/// the report and label sheets are left for [`read_in_chromium`].
fn read_without_browser(out: &Path, readers: &Readers) -> Read {
    let manifest = std::fs::read(out.join("manifest.json")).expect("manifest.json");
    let manifest = Manifest::parse(&manifest).expect("manifest parses");
    let mut failures = Vec::new();
    let mut later: Vec<(Kind, String)> = Vec::new();
    for entry in &manifest.files {
        let bytes = std::fs::read(out.join(&entry.path)).unwrap_or_default();
        let sha = railyard::output::digest::sha256_hex(&bytes);
        let read = if bytes.is_empty() {
            Err("empty".to_string())
        } else if bytes.len() != entry.bytes || sha != entry.sha256 {
            Err("not the size and SHA-256 the manifest gives".to_string())
        } else {
            read_here(kind(&entry.path), &out.join(&entry.path), &bytes)
        };
        match read {
            Ok(Some(k)) => later.push((k, entry.path.clone())),
            Ok(None) => {}
            Err(why) => failures.push(format!("{}: {why}", entry.path)),
        }
    }
    failures.extend(read_with_python(&readers.python, out, &later));
    failures.extend(read_with_vtysh(&readers.vtysh, out, &later));
    Read {
        files: manifest.files.len(),
        failures,
        later,
    }
}

/// Read a file in this process; `Ok(Some(kind))` when an outside reader reads it later.
fn read_here(kind: Kind, path: &Path, bytes: &[u8]) -> Result<Option<Kind>, String> {
    let text = || std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"));
    match kind {
        Kind::Json => serde_json::from_slice::<Value>(bytes)
            .map(|_| None)
            .map_err(|e| e.to_string()),
        Kind::Csv => read_csv(bytes).map(|()| None),
        Kind::Xml => read_xml(bytes).map(|()| None),
        Kind::Shell => read_shell(path, text()?).map(|()| None),
        Kind::Xlsx => read_xlsx(bytes).map(|()| None),
        Kind::Eos => read_eos(text()?).map(|()| None),
        Kind::Slurm => read_slurm(text()?).map(|()| None),
        Kind::OpensmOptions => read_opensm_options(text()?).map(|()| None),
        Kind::RootSwitches => read_root_switches(text()?).map(|()| None),
        Kind::Partitions => read_partitions(text()?).map(|()| None),
        Kind::ImexNodes => read_imex_nodes(text()?).map(|()| None),
        Kind::Yaml
        | Kind::Markdown
        | Kind::Frr
        | Kind::Report
        | Kind::Labels
        | Kind::InstallerSheet
        | Kind::Zpl => {
            text()?;
            Ok(Some(kind))
        }
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A header and rows of exactly its width.
fn read_csv(bytes: &[u8]) -> Result<(), String> {
    let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let width = r.headers().map_err(|e| e.to_string())?.len();
    if width == 0 {
        return Err("no header".into());
    }
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| e.to_string())?;
        if rec.len() != width {
            return Err(format!(
                "row {} has {} fields under a header of {width}",
                i + 2,
                rec.len()
            ));
        }
    }
    Ok(())
}

/// Well-formed to the end: matching tags, at least one element, every element closed.
fn read_xml(bytes: &[u8]) -> Result<(), String> {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_reader(bytes);
    let (mut buf, mut elements, mut depth) = (Vec::new(), 0, 0i64);
    loop {
        match r.read_event_into(&mut buf) {
            Ok(Event::Eof) => break,
            Ok(Event::Start(_)) => (elements, depth) = (elements + 1, depth + 1),
            Ok(Event::Empty(_)) => elements += 1,
            Ok(Event::End(_)) => depth -= 1,
            Ok(_) => {}
            Err(e) => return Err(format!("at byte {}: {e}", r.buffer_position())),
        }
        buf.clear();
    }
    if elements == 0 || depth != 0 {
        return Err(format!("{elements} element(s), {depth} left open"));
    }
    Ok(())
}

/// The shell the script names (`bash` or `sh`; env files are read by `sh`) parses it.
fn read_shell(path: &Path, text: &str) -> Result<(), String> {
    let first = text.lines().next().unwrap_or("");
    let shell = if first.starts_with("#!") && first.contains("bash") {
        "bash"
    } else {
        "sh"
    };
    let out = Command::new(shell)
        .arg("-n")
        .arg(path)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{shell} -n: {}", lossy(&out.stderr)))
    }
}

/// Every sheet reads, the Summary and at least one table among them.
fn read_xlsx(bytes: &[u8]) -> Result<(), String> {
    let mut wb: Xlsx<_> = Xlsx::new(Cursor::new(bytes.to_vec())).map_err(|e| e.to_string())?;
    let names = wb.sheet_names();
    if names.len() < 2 || names[0] != "Summary" {
        return Err(format!("sheets {names:?}"));
    }
    for name in names {
        let range = wb
            .worksheet_range(&name)
            .map_err(|e| format!("{name}: {e}"))?;
        if range.is_empty() {
            return Err(format!("sheet {name} is empty"));
        }
    }
    Ok(())
}

/// EOS CLI as EOS reads a startup-config: three spaces per level, a line at most one level
/// deeper than the command it belongs to, no tab or control character, `end` last.
fn read_eos(text: &str) -> Result<(), String> {
    let mut level = 0;
    let mut last = "";
    for (i, line) in text.lines().enumerate() {
        if line.chars().any(char::is_control) {
            return Err(format!("line {}: a control character", i + 1));
        }
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        if body.is_empty() || indent % 3 != 0 || indent / 3 > level + 1 {
            return Err(format!("line {}: `{line}` is not in a block", i + 1));
        }
        if !body.starts_with('!') {
            level = indent / 3;
        }
        last = body;
    }
    if last == "end" {
        Ok(())
    } else {
        Err(format!("ends with `{last}`, not `end`"))
    }
}

/// The lines that are not blank or `#` comments.
fn statements(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Slurm configuration lines: `Key=Value` words, the first a `SwitchName` or `PartitionName`.
fn read_slurm(text: &str) -> Result<(), String> {
    for (n, line) in statements(text) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let pairs = words.iter().all(|w| {
            w.split_once('=').is_some_and(|(k, v)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic()) && !v.is_empty()
            })
        });
        let first = ["SwitchName=", "PartitionName=", "BlockName=", "BlockSizes="]
            .iter()
            .any(|k| words[0].starts_with(k));
        if !pairs || !first {
            return Err(format!("line {n}: `{line}` is not a Slurm Key=Value line"));
        }
    }
    Ok(())
}

/// IMEX's nodes_config.cfg (NVIDIA IMEX service guide): one IP address per line, nothing else.
fn read_imex_nodes(text: &str) -> Result<(), String> {
    if text.lines().next().is_none() {
        return Err("no address".into());
    }
    match text
        .lines()
        .enumerate()
        .find(|(_, l)| l.parse::<std::net::IpAddr>().is_err())
    {
        Some((n, l)) => Err(format!("line {}: `{l}` is not an IP address", n + 1)),
        None => Ok(()),
    }
}

/// OpenSM options: `option value` lines.
fn read_opensm_options(text: &str) -> Result<(), String> {
    for (n, line) in statements(text) {
        let mut words = line.split_whitespace();
        let key_ok = words
            .next()
            .is_some_and(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        if !key_ok || words.next().is_none() {
            return Err(format!("line {n}: `{line}` is not an OpenSM option"));
        }
    }
    Ok(())
}

/// One switch (a GUID, or the name to replace by it) per line.
fn read_root_switches(text: &str) -> Result<(), String> {
    match statements(text).find(|(_, l)| l.split_whitespace().count() != 1) {
        Some((n, line)) => Err(format!("line {n}: `{line}` is not one switch")),
        None if statements(text).next().is_none() => Err("no switch".into()),
        None => Ok(()),
    }
}

/// OpenSM partitions: `name=pkey[, flag…] : member, … ;` statements, `#` comments.
fn read_partitions(text: &str) -> Result<(), String> {
    let code: String = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut parts: Vec<&str> = code.split(';').collect();
    if parts.pop().is_none_or(|rest| !rest.trim().is_empty()) {
        return Err("text after the last `;`".into());
    }
    for s in parts.iter().map(|s| s.trim()) {
        let (head, members) = s.split_once(':').ok_or_else(|| format!("`{s}`: no `:`"))?;
        let mut head = head.split(',').map(str::trim);
        let (name, pkey) = head
            .next()
            .and_then(|h| h.split_once('='))
            .ok_or_else(|| format!("`{s}`: no name=pkey"))?;
        let pkey_ok = pkey
            .strip_prefix("0x")
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .is_some_and(|k| k <= 0x7fff);
        let members_ok = members.split(',').all(|m| !m.trim().is_empty());
        if name.is_empty() || !pkey_ok || !members_ok || head.any(str::is_empty) {
            return Err(format!("`{s}` is not a partition"));
        }
    }
    Ok(())
}

/// YAML and Markdown files through the Python readers, in one run.
fn read_with_python(python: &Path, out: &Path, files: &[(Kind, String)]) -> Vec<String> {
    let list: Vec<(&str, PathBuf)> = files
        .iter()
        .filter_map(|(k, p)| match k {
            Kind::Yaml => Some(("yaml", out.join(p))),
            Kind::Markdown => Some(("markdown", out.join(p))),
            _ => None,
        })
        .collect();
    let mut child = Command::new(python)
        .arg(pyenv::script("deliverables_read.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    let input = serde_json::to_vec(&list).expect("json");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &input).expect("stdin");
    let done = child.wait_with_output().expect("python ends");
    assert!(done.status.success(), "{}", lossy(&done.stderr));
    let failures: Vec<String> = serde_json::from_slice(&done.stdout).expect("failures");
    let prefix = format!("{}/", out.display());
    failures
        .into_iter()
        .map(|f| f.replacen(&prefix, "", 1))
        .collect()
}

/// FRR configs through FRR's own parser.
fn read_with_vtysh(vtysh: &Path, out: &Path, files: &[(Kind, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(k, _)| *k == Kind::Frr)
        .filter_map(|(_, p)| {
            let run = Command::new(vtysh)
                .arg("-C")
                .arg("-f")
                .arg(out.join(p))
                .output()
                .expect("vtysh runs");
            (!run.status.success()).then(|| {
                format!(
                    "{p}: vtysh -C: {}{}",
                    lossy(&run.stdout),
                    lossy(&run.stderr)
                )
            })
        })
        .collect()
}

/// The report and the label sheets in Chromium: no console error, nothing loaded from outside
/// the file, the report's own readiness and counts, two labels per cable.
fn read_in_chromium(b: &mut browser::Browser, out: &Path, files: &[(Kind, String)]) -> Vec<String> {
    let cables = csv_rows(&out.join("cabling.csv"));
    let mut failures = Vec::new();
    let mut sheets = Vec::new();
    let mut zpl_labels = 0;
    let mut installer_sheet_loaded = false;
    for (k, p) in files {
        let path = out.join(p);
        match k {
            Kind::Report => {
                b.open(&path);
                let own = b.eval("JSON.stringify(window.railyardReport)");
                let own: Value =
                    serde_json::from_str(own.as_str().unwrap_or("null")).expect("railyardReport");
                let devices = plan_devices(out);
                if own["cables"] != json!(cables) || own["devices"] != json!(devices) {
                    failures.push(format!(
                        "{p}: the page counts {own}, the plan {cables} cables, {devices} devices"
                    ));
                }
            }
            Kind::Labels => {
                // Every sheet is drawn by the same code: the first is loaded as a page, parsed
                // and counted.
                if sheets.is_empty() {
                    b.load(&path);
                    failures.extend(page_failures(b, p));
                    sheets.push((p.as_str(), path));
                }
                continue;
            }
            Kind::InstallerSheet => {
                // One installer sheet loaded as a page: every sheet is the same template.
                if std::mem::replace(&mut installer_sheet_loaded, true) {
                    continue;
                }
                b.load(&path);
            }
            Kind::Zpl => {
                match std::fs::read_to_string(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|t| read_zpl(&t))
                {
                    Ok(n) => zpl_labels += n,
                    Err(e) => failures.push(format!("{p}: {e}")),
                }
                continue;
            }
            _ => continue,
        }
        failures.extend(page_failures(b, p));
    }
    let (labels, bad_sheets) = parse_label_sheets(b, &sheets);
    failures.extend(bad_sheets);
    match sheets.first() {
        Some((p, _)) => {
            let here = cables_ending_in(&out.join("cabling.csv"), p);
            if labels != 2 * here {
                failures.push(format!(
                    "{p}: {labels} labels for {here} cables ending there"
                ));
            }
        }
        None => failures.push("no label sheet written with --only labels".into()),
    }
    if zpl_labels != 2 * cables as u64 {
        failures.push(format!(
            "labels/*.zpl: {zpl_labels} labels for {cables} cables"
        ));
    }
    failures
}

/// The cables of `cabling.csv` whose B end is in the location of the label file `labels/<loc>.…`
/// (its rack, or its switch when the plan has no racks).
fn cables_ending_in(cabling: &Path, label_file: &str) -> u64 {
    let loc = label_file
        .trim_start_matches("labels/")
        .rsplit_once('.')
        .map_or("", |(l, _)| l);
    let bytes = std::fs::read(cabling).unwrap_or_default();
    let mut r = csv::Reader::from_reader(&bytes[..]);
    let header = r.headers().cloned().unwrap_or_default();
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(rack), Some(device)) = (col("b_rack"), col("b_device")) else {
        return 0;
    };
    let rows: Vec<csv::StringRecord> = r.records().flatten().collect();
    let racks = rows.iter().any(|row| !row[rack].is_empty());
    rows.iter()
        .filter(|row| (if racks { &row[rack] } else { &row[device] }) == loc)
        .count() as u64
}

/// The labels of a ZPL file, each one `^XA` … `^XZ` format; every `^FD` opened by `^FH` and
/// holding printable ASCII with `_XX` escapes only (ZPL II: `^` and `~` are command prefixes,
/// `^FH` makes `_` plus two hexadecimal digits one byte).
fn read_zpl(text: &str) -> Result<u64, String> {
    let mut labels = 0;
    for (i, form) in text.split("^XA").skip(1).enumerate() {
        let body = form
            .trim_end()
            .strip_suffix("^XZ")
            .ok_or_else(|| format!("label {i}: no ^XZ at its end"))?;
        if body.contains("^XZ") || body.contains('~') {
            return Err(format!("label {i}: a stray ^XZ or ~ command"));
        }
        for field in body.split("^FD").skip(1) {
            let data = field.split("^FS").next().unwrap_or("");
            if !field.contains("^FS") {
                return Err(format!("label {i}: ^FD without ^FS"));
            }
            if railyard::output::zpl::unfield(data).is_none()
                || data.bytes().any(|c| !(b' '..=b'~').contains(&c))
            {
                return Err(format!("label {i}: field data `{data}` is not escaped"));
            }
        }
        if body.matches("^FD").count() != body.matches("^FH^FD").count() {
            return Err(format!("label {i}: a ^FD not opened by ^FH"));
        }
        labels += 1;
    }
    if text
        .split("^XA")
        .next()
        .is_some_and(|lead| !lead.trim().is_empty())
    {
        return Err("text before the first ^XA".into());
    }
    Ok(labels)
}

/// The console errors of the page loaded last, and its requests that left the file.
fn page_failures(b: &browser::Browser, p: &str) -> Vec<String> {
    let mut failures: Vec<String> = b
        .errors()
        .into_iter()
        .map(|e| format!("{p}: {e}"))
        .collect();
    let outside: Vec<String> = b
        .requests()
        .into_iter()
        .filter(|u| !u.starts_with("file://") && !u.starts_with("data:"))
        .collect();
    if !outside.is_empty() {
        failures.push(format!("{p}: requests {outside:?}"));
    }
    failures
}

/// Label sheets per DevTools call: the text of the sheets crosses the socket as JSON, a few
/// megabytes a message.
const BATCH_BYTES: usize = 4 << 20;

/// The labels of every label sheet as Chromium's HTML parser reads it, each with its QR code (the
/// symbol drawn once, then used again for the B end): the total, and every sheet that fails.
fn parse_label_sheets(b: &mut browser::Browser, sheets: &[(&str, PathBuf)]) -> (u64, Vec<String>) {
    let (mut labels, mut failures) = (0, Vec::new());
    let mut batches: Vec<Vec<(&str, String)>> = vec![Vec::new()];
    let mut size = 0;
    for (p, path) in sheets {
        match std::fs::read_to_string(path) {
            Ok(text) if size + text.len() > BATCH_BYTES && size > 0 => {
                size = text.len();
                batches.push(vec![(*p, text)]);
            }
            Ok(text) => {
                size += text.len();
                batches.last_mut().expect("a batch").push((*p, text));
            }
            Err(e) => failures.push(format!("{p}: {e}")),
        }
    }
    for batch in batches.iter().filter(|b| !b.is_empty()) {
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let counts = b.call_with(COUNT_LABELS, json!(texts));
        for (i, (p, _)) in batch.iter().enumerate() {
            let (l, c) = (counts[i][0].as_u64(), counts[i][1].as_u64());
            match (l, c) {
                (Some(l), Some(c)) if l > 0 && l == c => labels += l,
                _ => failures.push(format!("{p}: {l:?} labels with {c:?} QR codes")),
            }
        }
    }
    (labels, failures)
}

/// Per sheet text: its labels and its labels' QR symbols, as Chromium's HTML parser reads them.
const COUNT_LABELS: &str = "function (texts) { return texts.map(t => { \
    const d = new DOMParser().parseFromString(t, 'text/html'); \
    return [d.querySelectorAll('.label').length, \
    d.querySelectorAll('.label svg.qr > path, .label svg.qr > use').length]; }); }";

/// The data rows of a CSV file (0 when it cannot be read: its own check says why).
fn csv_rows(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap_or_default();
    csv::Reader::from_reader(&bytes[..]).records().count()
}

fn plan_devices(out: &Path) -> usize {
    let plan = std::fs::read(out.join("plan.json")).unwrap_or_default();
    serde_json::from_slice::<Value>(&plan)
        .ok()
        .and_then(|p| p["devices"].as_array().map(Vec::len))
        .unwrap_or(0)
}

/// The readers refuse what their consumers refuse (each is a check that can fail).
#[test]
fn the_readers_refuse_broken_files() {
    assert!(read_csv(b"a,b\n1\n").is_err());
    assert!(read_csv(b"").is_err());
    assert!(read_xml(b"<a><b></a>").is_err());
    assert!(read_xml(b"<a>").is_err());
    assert!(read_xml(b"text").is_err());
    assert!(read_eos("hostname x\n      deep\nend\n").is_err());
    assert!(read_eos("hostname x\n").is_err());
    assert!(read_eos("router bgp 1\n   neighbor x\nend\n").is_ok());
    assert!(read_slurm("SwitchName=a Nodes\n").is_err());
    assert!(read_opensm_options("routing_engine\n").is_err());
    assert!(read_root_switches("spine 01\n").is_err());
    assert!(read_partitions("Default=0x7fff : ALL=limited ;\nx").is_err());
    assert!(read_partitions("t=0x8000 : ALL ;").is_err());
    assert!(read_partitions("Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n").is_ok());
    assert_eq!(read_zpl("^XA^FO1,1^FH^FDa_5Fb^FS^XZ\n^XA^XZ\n"), Ok(2));
    assert!(read_zpl("^XA^FO1,1^FDa^FS^XZ").is_err());
    assert!(read_zpl("^XA^FO1,1^FH^FDa_zz^FS^XZ").is_err());
    assert!(read_zpl("^XA^FO1,1^FH^FDa^FS").is_err());
    let dir = tempfile::tempdir().expect("tmp");
    let script = dir.path().join("x.sh");
    std::fs::write(&script, "#!/bin/sh\nif true; then\n").expect("write");
    assert!(read_shell(&script, "#!/bin/sh\nif true; then\n").is_err());
    assert_eq!(kind("configs/spine01/nv-set.sh"), Kind::Shell);
    assert!(std::panic::catch_unwind(|| kind("configs/x/unknown.bin")).is_err());
}
