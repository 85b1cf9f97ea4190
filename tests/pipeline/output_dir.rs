//! The output directory is railyard's only where railyard wrote it (README, "Output
//! directory"), and the command line reads its inputs bounded: the real binary, run as a user
//! runs it, against directories the test lays out.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::railyard_in as railyard;

fn ok(dir: &Path, args: &[&str]) -> String {
    let o = railyard(dir, args);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?}: {stderr}");
    stderr
}

/// Refused as unusable input (exit 2); the message.
fn refused(dir: &Path, args: &[&str]) -> String {
    let o = railyard(dir, args);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

fn lab_small() -> String {
    fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/inventories/lab-small.yaml"
    ))
    .unwrap()
}

/// Everything under `p` as it is on disk, links not followed: relative path → bytes (a
/// directory: `dir`; a link: `-> target`).
fn snapshot(p: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![p.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(p).unwrap().to_string_lossy().into_owned();
            let meta = fs::symlink_metadata(&path).unwrap();
            let bytes = if meta.is_symlink() {
                format!("-> {}", fs::read_link(&path).unwrap().display()).into_bytes()
            } else if meta.is_dir() {
                stack.push(path);
                b"dir".to_vec()
            } else {
                fs::read(&path).unwrap()
            };
            out.insert(rel, bytes);
        }
    }
    out
}

fn manifest_paths(out: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).unwrap()).unwrap();
    m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// `railyard build site/cluster.yaml -o site` with only the spec there is refused, the spec
/// untouched; once `site` is a build, the spec kept in it survives rebuilds, also one that
/// drops files.
#[test]
fn the_spec_inside_the_output_directory_survives_build_and_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir(&site).unwrap();
    let one = lab_small();
    let two = one.replacen("count: 1", "count: 2", 1);
    fs::write(site.join("cluster.yaml"), &one).unwrap();
    let before = snapshot(&site);
    let e = refused(dir.path(), &["build", "site/cluster.yaml", "-o", "site"]);
    assert!(e.contains("refusing to write into `site`"), "{e}");
    assert_eq!(snapshot(&site), before);

    fs::remove_file(site.join("cluster.yaml")).unwrap();
    fs::write(dir.path().join("cluster.yaml"), &two).unwrap();
    ok(dir.path(), &["build", "cluster.yaml", "-o", "site"]);
    fs::rename(dir.path().join("cluster.yaml"), site.join("cluster.yaml")).unwrap();
    ok(dir.path(), &["build", "site/cluster.yaml", "-o", "site"]);
    assert_eq!(fs::read_to_string(site.join("cluster.yaml")).unwrap(), two);
    assert!(site.join("configs/leaf-su02-01").is_dir());
    // One SU fewer: SU 2's files go, the spec stays.
    fs::write(site.join("cluster.yaml"), &one).unwrap();
    ok(dir.path(), &["build", "site/cluster.yaml", "-o", "site"]);
    assert_eq!(fs::read_to_string(site.join("cluster.yaml")).unwrap(), one);
    assert!(!site.join("configs/leaf-su02-01").exists());
    assert!(!manifest_paths(&site).contains(&"cluster.yaml".to_string()));
}

/// Files a user adds to an output directory survive a rebuild, and so does a directory the
/// rebuild no longer needs when it holds one of them (only railyard's files leave it).
#[test]
fn a_users_files_survive_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let one = lab_small();
    fs::write(dir.path().join("one.yaml"), &one).unwrap();
    fs::write(
        dir.path().join("two.yaml"),
        one.replacen("count: 1", "count: 2", 1),
    )
    .unwrap();
    ok(dir.path(), &["build", "two.yaml", "-o", "o"]);
    let out = dir.path().join("o");
    let su2 = out.join("configs/leaf-su02-01");
    let railyards: Vec<_> = fs::read_dir(&su2)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!railyards.is_empty());
    assert!(out.join("configs/leaf-su02-02").is_dir());
    fs::write(out.join("NOTES.md"), "ours").unwrap();
    fs::write(su2.join("site-notes.txt"), "ours too").unwrap();
    ok(dir.path(), &["build", "one.yaml", "-o", "o"]);
    assert_eq!(fs::read_to_string(out.join("NOTES.md")).unwrap(), "ours");
    assert_eq!(
        fs::read_to_string(su2.join("site-notes.txt")).unwrap(),
        "ours too"
    );
    for f in railyards {
        assert!(!f.exists(), "{} left behind", f.display());
    }
    assert!(
        !out.join("configs/leaf-su02-02").exists(),
        "an emptied directory goes"
    );
    // The rebuild is what a fresh build writes, plus the user's files.
    ok(dir.path(), &["build", "one.yaml", "-o", "fresh"]);
    let mut got = snapshot(&out);
    assert!(got.remove("NOTES.md").is_some());
    assert!(got.remove("configs/leaf-su02-01/site-notes.txt").is_some());
    assert!(got.remove("configs/leaf-su02-01").is_some());
    let mut want = snapshot(&dir.path().join("fresh"));
    for memo in [&mut got, &mut want] {
        memo.remove(".railyard-memo.json");
    }
    assert_eq!(got, want);
}

/// A non-empty directory that is not a railyard build is refused and left byte for byte as it
/// was; `--move-aside` renames it beside (named on stderr) and builds a fresh one.
#[test]
fn a_foreign_directory_is_refused_then_moved_aside_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("foreign");
    fs::create_dir_all(foreign.join("photos")).unwrap();
    fs::write(foreign.join("thesis.tex"), "\\documentclass{article}").unwrap();
    fs::write(foreign.join("photos/a.jpg"), [0xff, 0xd8, 0xff]).unwrap();
    fs::write(
        foreign.join("manifest.json"),
        "{\"name\": \"some npm thing\"}",
    )
    .unwrap();
    let before = snapshot(&foreign);
    let e = refused(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "foreign"],
    );
    assert!(
        e.contains("`manifest.json`, `photos/`, `thesis.tex`") && e.contains("--move-aside"),
        "{e}"
    );
    assert!(e.contains("not a railyard manifest"), "{e}");
    assert_eq!(snapshot(&foreign), before);
    let e = refused(
        dir.path(),
        &["report", "--example", "lab-small", "-o", "foreign"],
    );
    assert!(e.contains("refusing to write into `foreign`"), "{e}");
    assert_eq!(snapshot(&foreign), before);

    let e = ok(
        dir.path(),
        &[
            "build",
            "--example",
            "lab-small",
            "-o",
            "foreign",
            "--move-aside",
        ],
    );
    let aside = dir.path().join("foreign.moved-aside");
    assert!(e.contains("foreign.moved-aside"), "{e}");
    assert_eq!(snapshot(&aside), before);
    assert!(manifest_paths(&foreign).contains(&"cabling.csv".to_string()));
    // Now a railyard build: rebuilt without the flag.
    ok(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "foreign"],
    );
}

/// `-o` naming a file or a device is refused, the file untouched; a link to a directory stands
/// for the directory (the link stays a link).
#[test]
fn a_file_is_refused_and_a_link_to_a_directory_followed() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("some-file"), "keep me").unwrap();
    let e = refused(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "some-file"],
    );
    assert!(
        e.contains("`some-file` is a regular file, not a directory"),
        "{e}"
    );
    assert_eq!(fs::read(dir.path().join("some-file")).unwrap(), b"keep me");
    let e = refused(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "/dev/null"],
    );
    assert!(e.contains("is a character device"), "{e}");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "nothing staged beside it");

    fs::create_dir(dir.path().join("real")).unwrap();
    symlink("real", dir.path().join("link")).unwrap();
    ok(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "link"],
    );
    ok(
        dir.path(),
        &["build", "--example", "lab-small", "-o", "link"],
    );
    assert!(dir.path().join("link").is_symlink());
    assert!(dir.path().join("real/manifest.json").is_file());
}

/// A symbolic link inside the output tree where railyard writes is refused, never followed:
/// what it points to is untouched, and so is the output.
#[test]
fn a_link_inside_the_output_tree_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    ok(dir.path(), &["build", "--example", "lab-small", "-o", "o"]);
    let out = dir.path().join("o");
    let victim = dir.path().join("victim");
    fs::create_dir(&victim).unwrap();
    // What the rebuild would write or remove in `portmaps/`, were the link followed.
    for f in fs::read_dir(out.join("portmaps")).unwrap() {
        fs::write(victim.join(f.unwrap().file_name()), "precious").unwrap();
    }
    fs::remove_dir_all(out.join("portmaps")).unwrap();
    symlink(&victim, out.join("portmaps")).unwrap();
    let (victim_before, out_before) = (snapshot(&victim), snapshot(&out));
    let e = refused(dir.path(), &["build", "--example", "lab-small", "-o", "o"]);
    assert!(e.contains("portmaps` is a symbolic link"), "{e}");
    assert_eq!(snapshot(&victim), victim_before);
    assert_eq!(snapshot(&out), out_before);

    // A link to a file where a file is written.
    fs::remove_file(out.join("portmaps")).unwrap();
    ok(dir.path(), &["build", "--example", "lab-small", "-o", "o"]);
    fs::remove_file(out.join("cabling.csv")).unwrap();
    symlink(victim.join("nodes.csv"), out.join("cabling.csv")).unwrap();
    let e = refused(dir.path(), &["build", "--example", "lab-small", "-o", "o"]);
    assert!(e.contains("cabling.csv` is a symbolic link"), "{e}");
    assert_eq!(snapshot(&victim), victim_before);
}

/// A catalog node-model key that climbs out of the output directory writes nothing outside
/// it, whichever layer refuses it (the spec's grammar, or the writer's path check), and no
/// manifest lists a `..` path.
#[test]
fn a_catalog_key_cannot_write_outside_the_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    // `hosts/<model>/` from `w/a/b/o` climbs four levels to `w/`, then into `tmp/x`.
    let work = dir.path().join("w/a/b");
    fs::create_dir_all(&work).unwrap();
    let key = "../../../../tmp/x";
    let spec = lab_small().replace("lab-gpu-2rail", key);
    assert!(spec.contains(&format!("node_model: {key}")));
    fs::write(work.join("evil.yaml"), &spec).unwrap();
    let o = railyard(
        &work,
        &["build", "evil.yaml", "-o", "o", "--format", "short"],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    let writer = "output path `hosts/../../../../tmp/x/";
    assert!(
        stderr.contains(writer) || stderr.contains(": error[RY"),
        "{stderr}"
    );
    assert!(!dir.path().join("w/tmp").exists(), "written outside -o");
    assert!(!work.join("o").exists(), "{stderr}");
    let names: Vec<_> = fs::read_dir(&work).unwrap().collect();
    assert_eq!(names.len(), 1, "nothing left beside the output");
}

/// A spec that is not a regular file, or too large, is refused naming the file and the limit,
/// without reading it; so is an oversized template override or port-GUID CSV.
#[test]
fn inputs_are_read_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let e = refused(dir.path(), &["validate", "/dev/zero"]);
    assert!(
        e.contains("`/dev/zero` is a character device") && e.contains("16 MiB"),
        "{e}"
    );
    let big = dir.path().join("big.yaml");
    let mut text = lab_small();
    text.push_str(&format!("# {}\n", "x".repeat(16 << 20)));
    fs::write(&big, text).unwrap();
    let e = refused(dir.path(), &["build", "big.yaml"]);
    assert!(
        e.contains("spec `big.yaml` is 16.0 MiB, over the limit of 16 MiB"),
        "{e}"
    );
    assert!(!dir.path().join("out").exists());

    let frr = dir.path().join("site/frr");
    fs::create_dir_all(&frr).unwrap();
    fs::write(frr.join("bgp.j2"), "{# #}\n".repeat(200_000)).unwrap();
    let e = refused(
        dir.path(),
        &["build", "--example", "lab-small", "--templates", "site"],
    );
    assert!(e.contains("bgp.j2") && e.contains("limit of 1 MiB"), "{e}");
    let e = refused(
        dir.path(),
        &[
            "build",
            "--example",
            "lab-small",
            "--port-guids",
            "/dev/zero",
        ],
    );
    assert!(e.contains("port-GUID CSV `/dev/zero`"), "{e}");
}

/// `--only labels` into a full build adds the label sheets and removes nothing of the other
/// groups: every other file is byte for byte what the full build wrote, and the manifest still
/// lists every file with its digest (#46: it deleted 251 files and said "7 written").
#[test]
fn only_one_group_into_a_full_build_keeps_every_other_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("c.yaml"), lab_small()).unwrap();
    ok(dir.path(), &["build", "c.yaml", "-o", "out", "-q"]);
    let out = dir.path().join("out");
    let before = snapshot(&out);
    let said = ok(
        dir.path(),
        &["build", "c.yaml", "-o", "out", "--only", "labels"],
    );
    assert!(said.contains("kept"), "{said}");
    let after = snapshot(&out);
    for (path, bytes) in &before {
        if path == "manifest.json" || path.starts_with(".railyard") {
            continue;
        }
        assert_eq!(after.get(path), Some(bytes), "{path} changed or went");
    }
    let new: Vec<&String> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    assert!(
        new.iter().any(|p| p.ends_with(".html")),
        "no label sheet: {new:?}"
    );
    // The manifest lists every file, each with the SHA-256 of what is on disk.
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let listed: BTreeMap<String, String> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["sha256"].as_str().unwrap().into(),
            )
        })
        .collect();
    for (path, bytes) in after.iter().filter(|(_, b)| b.as_slice() != b"dir") {
        if path == "manifest.json" || path.starts_with(".railyard") {
            continue;
        }
        use sha2::Digest;
        let sha = format!("{:x}", sha2::Sha256::digest(bytes));
        assert_eq!(listed.get(path), Some(&sha), "{path}");
    }
    assert_eq!(manifest_paths(&out).len(), listed.len());
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::write(&dst, fs::read(&src).unwrap()).unwrap();
        }
    }
}

/// A build directory restored from a CI cache (every file new: new inodes, new times) is
/// recognised by content: the rebuild writes nothing (#47: it rewrote every file). A file
/// edited in the copy is written again.
#[test]
fn a_restored_build_directory_rebuilds_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("c.yaml"), lab_small()).unwrap();
    ok(dir.path(), &["build", "c.yaml", "-o", "out", "-q"]);
    copy_tree(&dir.path().join("out"), &dir.path().join("restored"));
    let said = ok(dir.path(), &["build", "c.yaml", "-o", "restored"]);
    assert!(said.contains(": 0 written,"), "{said}");
    fs::write(dir.path().join("restored/addresses.csv"), "edited\n").unwrap();
    let said = ok(dir.path(), &["build", "c.yaml", "-o", "restored"]);
    assert!(said.contains(": 1 written,"), "{said}");
    assert_eq!(
        fs::read(dir.path().join("restored/addresses.csv")).unwrap(),
        fs::read(dir.path().join("out/addresses.csv")).unwrap()
    );
}
