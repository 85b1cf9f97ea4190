//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use railyard::diag::SourceFile;
use railyard::model::{Network, Role, Tier};
use railyard::topology::Fabric;

/// The railyard binary run in `dir` (as a user runs it there: `./cluster.yaml` is found in it).
pub fn railyard_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs")
}

pub fn compile_text(name: &str, text: &str) -> Fabric {
    let c = railyard::compile(&SourceFile::new(name, text));
    match c.design.map(|d| d.fabric) {
        Some(f) => f,
        None => {
            let msgs: Vec<String> = c
                .diagnostics
                .sorted()
                .iter()
                .map(|d| format!("{}: {}", d.code.id, d.message))
                .collect();
            panic!("{name} did not compile:\n{}", msgs.join("\n"));
        }
    }
}

/// Every output file of a spec (configs, intent, artifacts, manifest).
pub fn outputs(text: &str) -> Vec<railyard::output::OutputFile> {
    outputs_of(text, &[])
}

/// The output files of the given groups only, plus the manifest (every group when `groups` is
/// empty). A test that reads the switch configs or the scheduler files alone skips rendering the
/// report, workbook and label sheets, the costliest outputs of the large examples.
pub fn outputs_of(
    text: &str,
    groups: &[railyard::output::OutputGroup],
) -> Vec<railyard::output::OutputFile> {
    let c = railyard::compile(&SourceFile::new("spec.yaml", text));
    let only = railyard::output::Selection::of(groups);
    match c.outputs_only(&railyard::render::Templates::default(), &only) {
        Some(Ok(files)) => files,
        Some(Err(e)) => panic!("render failed: {e}"),
        None => panic!(
            "spec did not compile: {:?}",
            c.diagnostics
                .sorted()
                .iter()
                .map(|d| format!("{}: {}", d.code.id, d.message))
                .collect::<Vec<_>>()
        ),
    }
}

/// One output file's text.
pub fn file(files: &[railyard::output::OutputFile], path: &str) -> String {
    let f = files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no output `{path}`"));
    String::from_utf8(f.bytes.clone()).expect("utf-8")
}

/// Every cabling row of a spec's build (header dropped), as text: what growing a cluster must
/// keep.
pub fn cabling_rows(text: &str) -> std::collections::BTreeSet<String> {
    file(&outputs(text), "cabling.csv")
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// Rows of `old` that `new` changed or dropped, at most five: a growth that renumbers nothing
/// leaves none.
pub fn rows_gone<'a>(
    old: &'a std::collections::BTreeSet<String>,
    new: &std::collections::BTreeSet<String>,
) -> Vec<&'a String> {
    old.iter().filter(|r| !new.contains(*r)).take(5).collect()
}

/// The data rows of a rendered CSV file (header dropped), split at commas (railyard's CSVs quote
/// nothing in the columns the tests read).
pub fn csv_rows(files: &[railyard::output::OutputFile], path: &str) -> Vec<Vec<String>> {
    file(files, path)
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

pub fn inventory(file: &str) -> String {
    std::fs::read_to_string(format!("{}/inventories/{file}", env!("CARGO_MANIFEST_DIR")))
        .expect("inventory exists")
}

/// Every output of an example inventory (`inventories/<file>`), rendered once per test binary
/// and shared by the tests that read the same example (a second render of the same spec would
/// only repeat the work: outputs are byte-identical, tests/deliverables/report.rs checks that).
pub fn example_outputs(file: &'static str) -> &'static [railyard::output::OutputFile] {
    type Cell = OnceLock<Vec<railyard::output::OutputFile>>;
    static MEMO: Mutex<BTreeMap<&'static str, &'static Cell>> = Mutex::new(BTreeMap::new());
    let cell: &'static Cell = MEMO
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(file)
        .or_insert_with(|| Box::leak(Box::default()));
    cell.get_or_init(|| outputs(&inventory(file)))
}

pub fn compile_inventory(file: &str) -> Fabric {
    compile_text(file, &inventory(file))
}

pub fn count_role(f: &Fabric, role: Role) -> usize {
    f.devices().filter(|d| d.role == role).count()
}

pub fn count_links(f: &Fabric, network: Network, tier: Tier) -> usize {
    f.links()
        .filter(|l| l.network == network && l.tier == tier)
        .count()
}

/// Links per (leaf, spine) pair of the compute fabric.
pub fn links_per_pair(f: &Fabric) -> BTreeMap<(String, String), usize> {
    let mut m = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| l.network == Network::Compute && l.tier == Tier::LeafSpine)
    {
        let key = (
            f.device_of(&l.a).name.clone(),
            f.device_of(&l.b).name.clone(),
        );
        *m.entry(key).or_default() += 1;
    }
    m
}

/// The intents of a spec that must compile.
pub fn intents(text: &str) -> railyard::intent::Intents {
    let c = railyard::compile(&SourceFile::new("spec.yaml", text));
    c.design.map(|d| d.intents).unwrap_or_else(|| {
        panic!(
            "did not compile: {:?}",
            c.diagnostics
                .sorted()
                .iter()
                .map(|d| format!("{}: {}", d.code.id, d.message))
                .collect::<Vec<_>>()
        )
    })
}

/// Run the real FRR parser (`vtysh -C`, Debian `frr`) on one generated config; panics with
/// FRR's own message when it rejects the file.
pub fn vtysh_accepts(dir: &std::path::Path, name: &str, bytes: &[u8], what: &str) {
    let vtysh = std::path::Path::new("/usr/bin/vtysh");
    assert!(
        vtysh.exists(),
        "vtysh not found: install Debian's `frr` package (scripts/test.sh does: apt-get install frr)"
    );
    let p = dir.join(name.replace('/', "_"));
    std::fs::write(&p, bytes).expect("write config");
    let out = std::process::Command::new(vtysh)
        .arg("-C")
        .arg("-f")
        .arg(&p)
        .output()
        .expect("run vtysh");
    assert!(
        out.status.success(),
        "FRR rejected {what}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// insta's settings for the pinned snapshots under `tests/snapshots/`: they keep the names they
/// had when their test file was a test binary of its own (`<file>__<name>.snap`, the caller
/// names the file), not names after the module path of the area binary the file is now part of.
pub fn pinned_snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots");
    s.set_prepend_module_to_snapshot(false);
    s
}
