//! The command line as a user runs it: exit codes, default example, atomic output.

use std::path::Path;

use crate::common::railyard_in as railyard;

fn inv(name: &str) -> String {
    format!("{}/inventories/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `build` with no spec reads ./cluster.yaml: in a directory holding a cluster's spec and its
/// `out/`, it rebuilds that cluster, never the built-in demo over it. Without a spec there it
/// refuses (exit 2, naming both ways out) and writes nothing; the demo is built on request.
#[test]
fn build_without_arguments_reads_cluster_yaml_and_never_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let none = railyard(dir.path(), &["build"]);
    let err = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cluster.yaml") && err.contains("--example"),
        "{err}"
    );
    assert!(
        !dir.path().join("out").exists(),
        "a refused build wrote out/"
    );

    let spec = std::fs::read_to_string(inv("tor-cluster.yaml")).unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), &spec).unwrap();
    let name_of = |out: &Path| -> String {
        let plan: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("plan.json")).unwrap()).unwrap();
        plan["cluster"]
            .as_str()
            .or(plan["name"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let first = railyard(dir.path(), &["build"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let again = railyard(dir.path(), &["build"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let expected = spec
        .lines()
        .find_map(|l| l.strip_prefix("name:"))
        .map(|n| n.trim().trim_matches('"').to_string())
        .unwrap();
    assert_eq!(
        name_of(&dir.path().join("out")),
        expected,
        "out/ is not cluster.yaml's build"
    );

    let demo = railyard(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "demo"],
    );
    assert!(
        demo.status.success(),
        "{}",
        String::from_utf8_lossy(&demo.stderr)
    );
    let cabling = std::fs::read_to_string(dir.path().join("demo/cabling.csv")).unwrap();
    assert!(
        cabling.starts_with("cable_id,label,a_device,a_port,b_device,b_port,speed,media,length_m")
    );
    assert_ne!(name_of(&dir.path().join("demo")), expected);
}

#[test]
fn manifest_lists_every_file_with_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        railyard(dir.path(), &["build", "--example", "lab-small", "-o", "o"])
            .status
            .success()
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("o/manifest.json")).unwrap())
            .unwrap();
    let files = m["files"].as_array().unwrap();
    let mut on_disk = 0;
    for entry in walk(&dir.path().join("o")) {
        // The manifest does not list itself, nor the build memo (bookkeeping, not output).
        if entry.ends_with("manifest.json") || entry.ends_with(".railyard-memo.json") {
            continue;
        }
        on_disk += 1;
        let rel = entry
            .strip_prefix(dir.path().join("o"))
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let listed = files
            .iter()
            .find(|f| f["path"] == rel.as_str())
            .unwrap_or_else(|| panic!("{rel} not in manifest"));
        let bytes = std::fs::read(&entry).unwrap();
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(listed["sha256"], hex.as_str(), "{rel}");
    }
    assert_eq!(on_disk, files.len());
}

fn walk(p: &Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(p).unwrap() {
        let e = e.unwrap().path();
        if e.is_dir() {
            v.extend(walk(&e))
        } else {
            v.push(e)
        }
    }
    v
}

#[test]
fn a_failed_build_leaves_earlier_outputs_untouched() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        railyard(dir.path(), &["build", "--example", "lab-small", "-o", "o"])
            .status
            .success()
    );
    let before = std::fs::read(dir.path().join("o/cabling.csv")).unwrap();
    std::fs::write(dir.path().join("bad.yaml"), "name: x\nscalable_units: {count: 0, nodes_per_su: 4, node_model: dgx-h100}\ncompute: {leaf: {model: sn5600}, spine: {model: sn5600}}\n").unwrap();
    let out = railyard(dir.path(), &["build", "bad.yaml", "-o", "o"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read(dir.path().join("o/cabling.csv")).unwrap(),
        before
    );
    // No temporary directories left beside it.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".o."))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        railyard(dir.path(), &["validate", &inv("spectrum-x-cloud.yaml")])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        railyard(dir.path(), &["validate", "does-not-exist.yaml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(railyard(dir.path(), &["frobnicate"]).status.code(), Some(2));
    std::fs::write(dir.path().join("bad.yaml"), "name: x\nscalable_unitz: 3\n").unwrap();
    let out = railyard(dir.path(), &["validate", "bad.yaml", "--format", "short"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.yaml:2:1: error[RY0003]: unknown key `scalable_unitz`"),
        "{err}"
    );
    assert!(err.contains("did you mean `scalable_units`"), "{err}");
}

#[test]
fn summary_json_has_the_documented_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = railyard(
        dir.path(),
        &["summary", &inv("dgx-b200-16su.yaml"), "--json"],
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["gpus"], 4096);
    assert_eq!(v["nodes"], 512);
    for k in ["leaf", "spine", "core", "storage", "inband", "oob"] {
        assert!(v["switches"][k].is_u64(), "switches.{k}");
    }
    for k in ["node-leaf", "leaf-spine", "spine-core"] {
        assert_eq!(v["links"][k], 4096, "links.{k}");
    }
    assert_eq!(v["oversubscription"]["leaf"], "1:1");
    // Non-blocking: half of 4096 × 400G.
    assert_eq!(v["bisection_gbps"], 4096 * 400 / 2);
    let table = railyard(dir.path(), &["summary", &inv("dgx-b200-16su.yaml")]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("GPUs / nodes      4096 / 512"));
}

#[test]
fn schema_and_explain() {
    let dir = tempfile::tempdir().unwrap();
    let out = railyard(dir.path(), &["schema"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["properties"]["scalable_units"].is_object());
    let out = railyard(dir.path(), &["explain", "RY0204"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("leaf radix exceeded"));
    assert_eq!(
        railyard(dir.path(), &["explain", "RY9999"]).status.code(),
        Some(2)
    );
}

#[test]
fn two_cli_builds_are_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let spec = inv("dgx-superpod-h100.yaml");
    assert!(
        railyard(dir.path(), &["build", &spec, "-o", "a"])
            .status
            .success()
    );
    assert!(
        railyard(dir.path(), &["build", &spec, "-o", "b"])
            .status
            .success()
    );
    let a = std::fs::read(dir.path().join("a/manifest.json")).unwrap();
    let b = std::fs::read(dir.path().join("b/manifest.json")).unwrap();
    assert_eq!(a, b);
}

/// `build --help` names every top-level output of a build (of an example with every network,
/// tenants and racks), so a user learns from it what the directory will hold.
#[test]
fn build_help_names_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let help = railyard(dir.path(), &["build", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    for spec in [
        "spectrum-x-cloud-tenants.yaml",
        "dgx-superpod-h100-tenants.yaml",
    ] {
        let out = railyard(dir.path(), &["build", &inv(spec), "-o", "o"]);
        assert!(out.status.success(), "{spec}");
        for e in std::fs::read_dir(dir.path().join("o")).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                help.contains(&name),
                "`build --help` does not mention {name} ({spec}):\n{help}"
            );
        }
        // Per-switch config files of each OS.
        for file in std::fs::read_dir(dir.path().join("o/configs"))
            .unwrap()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        {
            let name = file.unwrap().file_name().to_string_lossy().into_owned();
            assert!(help.contains(&name), "`build --help` lacks {name} ({spec})");
        }
    }
}

/// Every file under `p`, relative path → bytes.
/// The deliverables under `p` by relative path (the build memo, `.railyard-memo.json`, is
/// bookkeeping, not output: its own test reads it).
fn tree(p: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walk(p)
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n != ".railyard-memo.json"))
        .map(|f| {
            let rel = f.strip_prefix(p).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(&f).unwrap())
        })
        .collect()
}

/// A rebuild over an existing output directory writes only what changed and says so; the result
/// is byte for byte what a fresh build writes. Growing the lab by one SU leaves the first SU's
/// leaf configs, and every file outside what the new SU touches, in place (the same inode).
#[test]
fn a_rebuild_rewrites_only_what_changed() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let one = std::fs::read_to_string(inv("lab-small.yaml")).unwrap();
    assert!(one.contains("count: 1"), "the lab has one SU");
    std::fs::write(dir.path().join("one.yaml"), &one).unwrap();
    std::fs::write(
        dir.path().join("two.yaml"),
        one.replacen("count: 1", "count: 2", 1),
    )
    .unwrap();
    let run = |spec: &str, out: &str| -> String {
        let o = railyard(dir.path(), &["build", spec, "-o", out]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stderr).unwrap()
    };
    let first = run("one.yaml", "o");
    let total = tree(&dir.path().join("o")).len();
    assert!(
        first.contains(&format!("{total} written, 0 unchanged")),
        "{first}"
    );
    let again = run("one.yaml", "o");
    assert!(
        again.contains(&format!("0 written, {total} unchanged")),
        "{again}"
    );

    let leaf = dir.path().join("o/configs/leaf-su01-01/nv-set.sh");
    let inode = std::fs::metadata(&leaf).unwrap().ino();
    let grown = run("two.yaml", "o");
    // `wrote N files to o: W written, U unchanged`
    let counts: Vec<usize> = grown
        .lines()
        .find(|l| l.starts_with("wrote "))
        .and_then(|l| l.split(": ").nth(1))
        .unwrap_or_else(|| panic!("{grown}"))
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let (written, unchanged) = (counts[0], counts[1]);
    assert!(unchanged > 0 && written > 0, "{grown}");
    assert_eq!(
        std::fs::metadata(&leaf).unwrap().ino(),
        inode,
        "SU 1's leaf untouched"
    );
    run("two.yaml", "fresh");
    assert_eq!(tree(&dir.path().join("o")), tree(&dir.path().join("fresh")));
}

/// A rebuild carries a switch's configs, a label sheet and the workbook over without rendering
/// them when their inputs are the same (the memo beside the outputs says from what they were rendered),
/// but never a file edited in place since, and never across a change of templates.
#[test]
fn a_rebuild_renders_again_what_was_edited_or_whose_templates_changed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = inv("lab-small.yaml");
    let run = |args: &[&str]| -> String {
        let o = railyard(dir.path(), args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stderr).unwrap()
    };
    run(&["build", &spec, "-o", "o"]);
    let memo: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("o/.railyard-memo.json")).unwrap())
            .unwrap();
    let unit = &memo["units"]["configs/leaf-su01-01"];
    assert_eq!(unit["inputs"].as_str().map(str::len), Some(64), "{memo}");
    assert!(
        unit["files"]
            .as_array()
            .unwrap()
            .contains(&"configs/leaf-su01-01/nv-set.sh".into()),
        "{unit}"
    );
    assert!(memo["units"]["labels/leaf-su01-01"].is_object(), "{memo}");
    assert!(memo["units"]["cabling.xlsx"].is_object(), "{memo}");
    let fresh = tree(&dir.path().join("o"));

    // Edited in place: the unit is rendered again and the file restored, the rest kept.
    let script = dir.path().join("o/configs/leaf-su01-01/nv-set.sh");
    let label = dir.path().join("o/labels/leaf-su01-01.zpl");
    for f in [&script, &label] {
        let mut text = std::fs::read_to_string(f).unwrap();
        text.push_str("# edited by hand\n");
        std::fs::write(f, text).unwrap();
    }
    let again = run(&["build", &spec, "-o", "o"]);
    assert!(
        again.contains(&format!("2 written, {} unchanged", fresh.len() - 2)),
        "{again}"
    );
    assert_eq!(tree(&dir.path().join("o")), fresh);

    // A template override changes every NVUE script; nothing may come from the memo.
    let builtin = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/nvue/main.j2"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("site/nvue")).unwrap();
    std::fs::write(
        dir.path().join("site/nvue/main.j2"),
        format!("{builtin}# site override\n"),
    )
    .unwrap();
    run(&["build", &spec, "-o", "o", "--templates", "site"]);
    let overridden = tree(&dir.path().join("o"));
    let scripts: Vec<&String> = overridden
        .keys()
        .filter(|p| p.ends_with("/nv-set.sh"))
        .collect();
    assert!(!scripts.is_empty());
    for p in scripts {
        assert!(
            String::from_utf8_lossy(&overridden[p]).ends_with("# site override\n"),
            "{p} rendered with the override"
        );
    }
    // And back: the built-in templates again, byte for byte the first build.
    run(&["build", &spec, "-o", "o"]);
    assert_eq!(tree(&dir.path().join("o")), fresh);
}

/// `--only` writes exactly the selected groups, byte for byte as a full build writes them, with
/// a manifest of just those files; an unknown group is refused with the list of groups.
#[test]
fn only_writes_the_selected_groups() {
    let dir = tempfile::tempdir().unwrap();
    let spec = inv("spectrum-x-cloud-tenants.yaml");
    assert!(
        railyard(dir.path(), &["build", &spec, "-o", "all"])
            .status
            .success()
    );
    let o = railyard(
        dir.path(),
        &["build", &spec, "-o", "some", "--only", "cabling,plan"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all = tree(&dir.path().join("all"));
    let some = tree(&dir.path().join("some"));
    let want: Vec<&String> = all
        .keys()
        .filter(|p| {
            p.ends_with(".csv") && !p.starts_with("addresses") && !p.starts_with("labels/")
                || p.starts_with("portmaps/")
                || *p == "plan.json"
                || *p == "summary.json"
        })
        .collect();
    let got: Vec<&String> = some.keys().filter(|p| *p != "manifest.json").collect();
    assert_eq!(got, want);
    for p in got {
        assert_eq!(some[p], all[p], "{p}");
    }
    let manifest: serde_json::Value = serde_json::from_slice(&some["manifest.json"]).unwrap();
    assert_eq!(manifest["files"].as_array().unwrap().len(), want.len());
    // Each group alone: its files, as the full build wrote them (a group renders only what it
    // or the report needs, so each one is a separate path through the code). The top-level
    // entries of each group are written here from the README's table, not from the code.
    let groups: [(&str, &[&str]); 6] = [
        ("configs", &["configs", "intent", "tenants"]),
        (
            "cabling",
            &[
                "cabling.csv",
                "netbox-cables.csv",
                "portmaps",
                "bom.csv",
                "bom-not-included.csv",
                "optics-power.csv",
            ],
        ),
        ("addresses", &["addresses.csv"]),
        ("hosts", &["hosts", "scheduler"]),
        ("plan", &["plan.json", "summary.json"]),
        (
            "report",
            &["report.html", "cabling.xlsx", "labels", "sheets"],
        ),
    ];
    for (group, tops) in groups {
        let out = format!("only-{group}");
        let o = railyard(dir.path(), &["build", &spec, "-o", &out, "--only", group]);
        assert!(
            o.status.success(),
            "{group}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let some = tree(&dir.path().join(&out));
        let want: Vec<&String> = all
            .keys()
            .filter(|p| tops.contains(&p.split('/').next().unwrap_or(p)))
            .collect();
        assert!(!want.is_empty(), "{group}: files in a full build");
        let got: Vec<&String> = some.keys().filter(|p| *p != "manifest.json").collect();
        assert_eq!(got, want, "{group}");
        for p in got {
            assert_eq!(some[p], all[p], "{group}: {p}");
        }
    }
    // The office-printer label sheets: only on request, and then one per label file (the
    // installer sheets, `sheets/*.html`, are the report's).
    assert!(
        all.keys()
            .all(|p| !p.ends_with(".html") || p == "report.html" || p.starts_with("sheets/"))
    );
    let o = railyard(
        dir.path(),
        &["build", &spec, "-o", "only-labels", "--only", "labels"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sheets = tree(&dir.path().join("only-labels"));
    let zpl = all.keys().filter(|p| p.ends_with(".zpl")).count();
    assert!(zpl > 0);
    assert_eq!(sheets.len(), zpl + 1, "{:?}", sheets.keys());
    assert!(
        sheets
            .keys()
            .all(|p| p == "manifest.json" || (p.starts_with("labels/") && p.ends_with(".html")))
    );
    let bad = railyard(dir.path(), &["build", &spec, "--only", "label"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("one of: configs, cabling"));
}

/// The `railyard <command> [<word>]` a text names: in backticks, or (with `lines`) at the start
/// of a line, as in the README's code blocks.
fn commands_named(t: &str, lines: bool, into: &mut std::collections::BTreeSet<Vec<String>>) {
    let word = |w: &&str| {
        !w.is_empty()
            && !w.starts_with('-')
            && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
    };
    for (i, _) in t.match_indices("railyard ") {
        let quoted = t[..i].ends_with('`');
        let line_start = t[..i]
            .rsplit('\n')
            .next()
            .is_some_and(|l| l.trim().is_empty());
        if !(quoted || (lines && line_start)) {
            continue;
        }
        let words: Vec<&str> = t[i + 9..]
            .split(|c: char| c.is_whitespace() || c == '`' || c == '"' || c == ')')
            .take(2)
            .collect();
        let Some(first) = words.first().filter(|w| word(w)) else {
            continue;
        };
        let mut cmd = vec![first.to_string()];
        cmd.extend(words.get(1).filter(|w| word(w)).map(|w| w.to_string()));
        into.insert(cmd);
    }
}

/// Every `railyard <command> [<subcommand>]` the README, the diagnostics' explain texts and the
/// program's own messages (the source's string literals, the templates) name is a command the
/// binary has: its `--help` succeeds. The diagnostics told every DGX H200 spec to run
/// `railyard hosts import`, which does not exist.
#[test]
fn every_command_the_docs_and_messages_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let mut named = std::collections::BTreeSet::new();
    commands_named(&readme, false, &mut named);
    // The README's code blocks: a line there is a command (its prose may start a line with
    // "railyard" too).
    for block in readme.split("```").skip(1).step_by(2) {
        commands_named(block, true, &mut named);
    }
    for c in railyard::diag::ALL_CODES {
        commands_named(c.explain, false, &mut named);
    }
    for dir in ["src", "templates"] {
        for p in walk(&root.join(dir)) {
            commands_named(
                &std::fs::read_to_string(&p).unwrap_or_default(),
                false,
                &mut named,
            );
        }
    }
    assert!(named.iter().any(|c| c == &["ib", "import"]), "{named:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut missing = Vec::new();
    for cmd in &named {
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        if !railyard(dir.path(), &args).status.success() {
            // A second word may be an argument (`railyard export containerlab`): the command
            // alone must then exist.
            let alone = railyard(dir.path(), &[args[0], "--help"]);
            if cmd.len() == 1 || !alone.status.success() {
                missing.push(cmd.join(" "));
            }
        }
    }
    assert!(missing.is_empty(), "named but not commands: {missing:?}");
}
