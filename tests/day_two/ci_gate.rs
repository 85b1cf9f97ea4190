//! railyard as a pull-request gate (#47, acceptance): `examples/ci/gate.sh`, a CI job's script
//! that reads only railyard's standard output (the JSON documents, with `jq`) and exit codes,
//! run by `dash` over nine kinds of pull request against one base branch, each with the outcome
//! a platform team expects:
//!
//! | pull request | gate |
//! |---|---|
//! | a comment edited | pass (nothing changes) |
//! | an SU's nodes installed (`populated`) | pass (additions only) |
//! | a spec added | pass (a creation plan) |
//! | a spec deleted | approval (everything removed) |
//! | the leaves moved from NVUE to SONiC | approval (disruptive) |
//! | the loopback pool moved | approval (renumbering) |
//! | a spec broken | fail (invalid, diff cannot compare) |
//! | a spec added with a new warning | fail (`--strict`, not in the baseline) |
//! | the same, its warning accepted in the baseline | pass |
//!
//! The base: lab-small with a second SU planned but empty, its advisory findings in the
//! baseline (`--write-baseline`), as the repository's main branch would hold them.

use crate::common::inventory;
use crate::prereq;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The gate's verdict on a pull request: (exit code, the per-spec lines, the last line).
struct Gate {
    code: Option<i32>,
    lines: Vec<String>,
    last: String,
}

fn railyard() -> &'static str {
    env!("CARGO_BIN_EXE_railyard")
}

fn gate(head: &Path, base: &Path) -> Gate {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ci/gate.sh");
    let out = Command::new("dash")
        .arg(script)
        .arg(base)
        .env("RAILYARD", railyard())
        .current_dir(head)
        .output()
        .expect("dash runs the gate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<String> = stdout.lines().map(str::to_string).collect();
    let last = lines.pop().unwrap_or_default();
    Gate {
        code: out.status.code(),
        lines,
        last,
    }
}

/// A repository checkout: `specs/` and `ci/`, copied from `from` when given.
fn checkout(root: &Path, name: &str, from: Option<&Path>) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("specs")).unwrap();
    std::fs::create_dir_all(dir.join("ci")).unwrap();
    if let Some(from) = from {
        for sub in ["specs", "ci"] {
            for e in std::fs::read_dir(from.join(sub)).unwrap().flatten() {
                std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
    dir
}

fn edit(dir: &Path, spec: &str, change: impl Fn(&str) -> String) {
    let path = dir.join("specs").join(spec);
    let before = std::fs::read_to_string(&path).unwrap();
    let after = change(&before);
    assert_ne!(before, after, "{spec}: the edit changed nothing");
    std::fs::write(path, after).unwrap();
}

/// `railyard validate SPEC --write-baseline ci/baseline.json` in `dir`.
fn accept(dir: &Path, spec: &str) {
    let o = Command::new(railyard())
        .args([
            "validate",
            spec,
            "--write-baseline",
            "ci/baseline.json",
            "-q",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// lab-small with a second SU planned, its nodes not installed yet.
fn base_spec() -> String {
    let text = inventory("lab-small.yaml");
    let planned = text.replace(
        "scalable_units: {count: 1, nodes_per_su: 4,",
        "scalable_units: {count: 2, nodes_per_su: 4, populated: [4, 0],",
    );
    assert_ne!(planned, text);
    planned
}

/// A second cluster whose leaves get Arista EOS on NVIDIA switches: a warning (RY0115).
fn warned_spec() -> String {
    inventory("lab-small.yaml").replace(
        "site: lab\n",
        "site: lab\nroce: {mtu: 9214}\nplatforms: {leaf: eos}\n",
    )
}

#[test]
fn nine_pull_requests_through_a_ci_gate_reading_only_stdout() {
    let jq = Command::new("jq").arg("--version").output().is_ok();
    let dash = Command::new("dash").arg("-c").arg("true").output().is_ok();
    if !prereq::require(
        "nine_pull_requests_through_a_ci_gate_reading_only_stdout",
        "jq",
        jq && dash,
        "apt-get install jq dash",
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let base = checkout(root, "base", None);
    std::fs::write(base.join("specs/lab.yaml"), base_spec()).unwrap();
    accept(&base, "specs/lab.yaml");

    type Change = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Change, i32, &str, &[&str])> = vec![
        (
            "a comment edited",
            Box::new(|h| edit(h, "lab.yaml", |t| format!("# reviewed in Q3\n{t}"))),
            0,
            "pass",
            &["specs/lab.yaml unchanged pass"],
        ),
        (
            "an SU's nodes installed",
            Box::new(|h| {
                edit(h, "lab.yaml", |t| {
                    t.replace("populated: [4, 0]", "populated: [4, 4]")
                })
            }),
            0,
            "pass",
            &["specs/lab.yaml safe pass"],
        ),
        (
            "a spec added",
            Box::new(|h| {
                let text = inventory("lab-small.yaml").replace("name: lab-small", "name: lab-two");
                std::fs::write(h.join("specs/two.yaml"), text).unwrap();
            }),
            0,
            "pass",
            &["specs/lab.yaml unchanged pass", "specs/two.yaml safe pass"],
        ),
        (
            "a spec deleted",
            Box::new(|h| std::fs::remove_file(h.join("specs/lab.yaml")).unwrap()),
            2,
            "approval",
            &["specs/lab.yaml disruptive approval"],
        ),
        (
            "the leaves moved from NVUE to SONiC",
            Box::new(|h| {
                edit(h, "lab.yaml", |t| {
                    t.replace("site: lab\n", "site: lab\nplatforms: {leaf: sonic}\n")
                })
            }),
            2,
            "approval",
            &["specs/lab.yaml disruptive approval"],
        ),
        (
            "the loopback pool moved",
            Box::new(|h| {
                edit(h, "lab.yaml", |t| {
                    t.replace(
                        "site: lab\n",
                        "site: lab\naddressing: {loopbacks: 10.9.0.0/16}\n",
                    )
                })
            }),
            2,
            "approval",
            &["specs/lab.yaml disruptive approval"],
        ),
        (
            "a spec broken",
            Box::new(|h| {
                edit(h, "lab.yaml", |t| {
                    t.replace("nodes_per_su: 4", "nodes_per_su: -4")
                })
            }),
            1,
            "fail",
            &["specs/lab.yaml cannot-compare fail"],
        ),
        (
            "a spec added with a new warning",
            Box::new(|h| std::fs::write(h.join("specs/eos.yaml"), warned_spec()).unwrap()),
            1,
            "fail",
            &["specs/eos.yaml safe fail", "specs/lab.yaml unchanged pass"],
        ),
        (
            "the same, its warning accepted in the baseline",
            Box::new(|h| {
                std::fs::write(h.join("specs/eos.yaml"), warned_spec()).unwrap();
                accept(h, "specs/eos.yaml");
            }),
            0,
            "pass",
            &["specs/eos.yaml safe pass", "specs/lab.yaml unchanged pass"],
        ),
    ];
    assert_eq!(cases.len(), 9);
    for (i, (what, change, code, outcome, lines)) in cases.iter().enumerate() {
        let head = checkout(root, &format!("pr{i}"), Some(&base));
        change(&head);
        let g = gate(&head, &base);
        assert_eq!(g.last, format!("gate: {outcome}"), "{what}: {:?}", g.lines);
        assert_eq!(g.code, Some(*code), "{what}");
        assert_eq!(g.lines, *lines, "{what}");
    }
}
