//! Embeds every file under `templates/` into the binary, so the renderer is self-contained and a
//! new template needs no list edited by hand; and fingerprints the sources, so a rebuild never
//! reuses a file an earlier railyard rendered differently (`RAILYARD_SOURCE_DIGEST`, see
//! `railyard::Memo`).

use std::fmt::Write as _;
use std::path::Path;

fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, root, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The manifest directory of this build, read when the script runs: `env!` would bake in the
/// directory the script was compiled in, and a target directory shared between checkouts
/// (hard-linked worktrees) would then list another checkout's templates.
fn manifest_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
}

fn main() {
    let root = manifest_dir().join("templates");
    println!("cargo:rerun-if-changed=templates");
    let mut names = Vec::new();
    walk(&root, &root, &mut names);
    let mut code = String::from(
        "/// Built-in templates: (name, text), sorted by name.\npub static BUILTIN: &[(&str, &str)] = &[\n",
    );
    for n in &names {
        let _ = writeln!(
            code,
            "    ({n:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/templates/{n}\"))),"
        );
    }
    code.push_str("];\n");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=catalog");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:rustc-env=RAILYARD_SOURCE_DIGEST={:016x}",
        source_digest()
    );
    println!("cargo:rustc-env=RAILYARD_COMMIT={}", commit());
    let out =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("templates.rs");
    // A new file, not the old one rewritten: a target directory hard-linked from another
    // checkout shares the old file's inode, and writing through it would change both.
    let _ = std::fs::remove_file(&out);
    if let Err(e) = std::fs::write(&out, code) {
        panic!("cannot write {}: {e}", out.display());
    }
}

/// FNV-1a (64 bits) over the name and bytes of every file the outputs depend on: the code, the
/// templates, the built-in catalog, the dependencies (versions and features) and the compiler. Only ever compared for
/// equality with an earlier build's, to tell whether the renderer changed.
fn source_digest() -> u64 {
    let manifest_dir = manifest_dir();
    let manifest = manifest_dir.as_path();
    let mut files = Vec::new();
    for dir in ["src", "templates", "catalog"] {
        let root = manifest.join(dir);
        let mut names = Vec::new();
        walk(&root, &root, &mut names);
        files.extend(names.into_iter().map(|n| format!("{dir}/{n}")));
    }
    files.extend(["Cargo.lock", "Cargo.toml", "build.rs"].map(String::from));
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for f in &files {
        eat(f.as_bytes());
        eat(&std::fs::read(manifest.join(f)).unwrap_or_default());
    }
    // The compiler too: std's formatting of floats and debug output can change with it.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if let Ok(out) = std::process::Command::new(rustc).arg("-vV").output() {
        eat(&out.stdout);
    }
    h
}

/// The commit built, for `railyard --version` only (no output file carries it, so outputs stay
/// byte-identical across commits): `git describe --always --dirty`, or "unknown commit" outside
/// a git checkout. A release build is redone when HEAD moves; a debug build keeps the commit of
/// its last build-script run, so committing does not rebuild every test binary.
fn commit() -> String {
    if std::env::var("PROFILE").is_ok_and(|p| p == "release") {
        for file in ["HEAD", "logs/HEAD"] {
            if let Some(p) = git(&["rev-parse", "--git-path", file]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
    }
    git(&["describe", "--always", "--dirty", "--abbrev=12"])
        .map_or_else(|| "unknown commit".to_string(), |c| format!("commit {c}"))
}

fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}
