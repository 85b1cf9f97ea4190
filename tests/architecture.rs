//! The stage order of ARCHITECTURE.md ("Architecture invariants"), enforced on the source: every
//! `crate::<module>` a module names (outside its `#[cfg(test)]` part) must be a stage before it
//! (or itself). A `use crate::spec` inside `render` fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every stage up to and including `intent`: what the stages beside `render` read.
const THROUGH_INTENT: &[&str] = &[
    "diag",
    "model",
    "catalog",
    "spec",
    "topology",
    "addressing",
    "tenancy",
    "intent",
];

/// What each module may name. Foundations (`diag`, `model`, `catalog`) are open to all stages;
/// `render` sees only intent (and the vendor data of `catalog`); the edge modules (`lab`,
/// `cabling`, `push`, `capture`) read what the stages produce; `cli` may use anything.
const ALLOWED: &[(&str, &[&str])] = &[
    ("diag", &[]),
    // Splitting independent items over the cores: knows no stage.
    ("parallel", &[]),
    ("model", &["diag"]),
    ("catalog", &["diag", "model"]),
    ("spec", &["diag", "model", "catalog"]),
    ("topology", &["diag", "model", "catalog", "spec"]),
    (
        "addressing",
        &["diag", "model", "catalog", "spec", "topology"],
    ),
    (
        "tenancy",
        &["diag", "model", "catalog", "spec", "topology", "addressing"],
    ),
    (
        "intent",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
        ],
    ),
    ("render", &["diag", "model", "catalog", "intent"]),
    ("artifacts", THROUGH_INTENT),
    // The virtual lab's plan, beside `artifacts`: read by the `lab` edge (and topology exports).
    ("labplan", THROUGH_INTENT),
    ("capture", &["diag", "model", "topology", "intent"]),
    ("cabling", &["diag", "model", "topology"]),
    ("push", &["diag", "model"]),
    (
        "lab",
        &[
            "diag",
            "model",
            "catalog",
            "spec",
            "topology",
            "addressing",
            "tenancy",
            "intent",
            "render",
            "labplan",
        ],
    ),
];

/// Items of the crate root every stage may name (the output-file type, the built-in spec text,
/// the splitting of work over the cores and the rebuild memo a producer consults); the pipeline entry points (`compile*`, `Compiled`) only the edges may call.
const ROOT_FOR_ALL: &[&str] = &[
    "OutputFile",
    "LAB_SMALL",
    "parallel",
    "Memo",
    "NoMemo",
    "unit_digest",
];
const ROOT_FOR_EDGES: &[&str] = &[
    "compile",
    "compile_for_platform",
    "compile_with",
    "Compiled",
];

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `crate::a` and every `a` of `use crate::{a, b::…}` in the non-test part of a file.
fn named(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let body = &group[..group.find('}').unwrap_or(group.len())];
            for part in body.split(',') {
                let name = ident(part.trim());
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

#[test]
fn every_stage_names_only_earlier_stages() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let modules: BTreeSet<&str> = allowed.keys().copied().collect();
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut checked = 0;
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src");
        let module = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|s| s.trim_end_matches(".rs"))
            .unwrap_or_default();
        if module == "cli" || module == "lib" || module == "main" {
            continue;
        }
        let may = allowed
            .get(module)
            .unwrap_or_else(|| panic!("src/{module} is not in the stage table: add it"));
        let edge = matches!(module, "lab" | "cabling" | "push" | "capture");
        checked += 1;
        for n in named(&std::fs::read_to_string(&f).expect("readable")) {
            let ok = n == module
                || may.contains(&n.as_str())
                || ROOT_FOR_ALL.contains(&n.as_str())
                || (edge && ROOT_FOR_EDGES.contains(&n.as_str()))
                || (!modules.contains(n.as_str())
                    && !ROOT_FOR_EDGES.contains(&n.as_str())
                    && n.chars().next().is_some_and(char::is_uppercase));
            if !ok {
                bad.push(format!("{}: crate::{n}", rel.display()));
            }
        }
    }
    assert!(checked > 50, "only {checked} files checked");
    assert!(bad.is_empty(), "stage order broken:\n{}", bad.join("\n"));
}

/// The check itself catches the mistake it exists for.
#[test]
fn a_spec_import_in_render_would_fail() {
    let names = named("use crate::spec::ClusterSpec;\nuse crate::{intent, model::Role};\n");
    assert!(names.contains("spec") && names.contains("intent") && names.contains("model"));
    let render: &[&str] = ALLOWED
        .iter()
        .find(|(m, _)| *m == "render")
        .map(|(_, a)| *a)
        .expect("render row");
    assert!(!render.contains(&"spec"));
}
