//! Every committed fuzz corpus file, replayed on stable through the very entry logic the
//! libFuzzer targets run (`fuzz/src/`, included here by path), so the invariants the fuzzers
//! checked keep holding in the ordinary `cargo test`, and every finding stays fixed.
//!
//! Each target's corpus must exist and hold files: an empty directory would make its test pass
//! without checking anything. The inputs that once broke an invariant are also replayed by name
//! (`regression_*`), so a failure says which finding came back.

use crate::entry;

use std::path::{Path, PathBuf};

/// Replay every file of `fuzz/corpus/<target>/` through `run`, reporting all failing files.
fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    files.retain(|p| p.is_file());
    files.sort();
    assert!(
        files.len() >= 5,
        "{}: only {} corpus files; the corpus is missing",
        dir.display(),
        files.len()
    );
    let mut failed = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if std::panic::catch_unwind(|| run(&bytes)).is_err() {
            failed.push(f.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} {target} corpus files break an invariant (messages above):\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
    eprintln!("{target}: replayed {} corpus files", files.len());
}

#[test]
fn spec_corpus() {
    replay("spec", entry::spec::run);
}

#[test]
fn spec_catalog_corpus() {
    replay("spec_catalog", entry::spec_catalog::run);
}

#[test]
fn netconf_framing_corpus() {
    replay("netconf_framing", entry::netconf_framing::run);
}

#[test]
fn netconf_reply_corpus() {
    replay("netconf_reply", entry::netconf_reply::run);
}

#[test]
fn lldp_corpus() {
    replay("lldp", entry::lldp::run);
}

#[test]
fn push_targets_corpus() {
    replay("push_targets", entry::push_targets::run);
}

#[test]
fn push_journal_corpus() {
    replay("push_journal", entry::push_journal::run);
}

/// The words POSIX `sh` reads from one line of shell text (`set --` then each word printed with
/// a NUL after it), or `None` when `sh` refuses the text.
fn sh_words(text: &str) -> Option<Vec<String>> {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("set -- {text}\nprintf '%s\\0' \"$@\""))
        .output()
        .expect("sh runs");
    if !out.status.success() {
        return None;
    }
    let mut words: Vec<String> = String::from_utf8(out.stdout)
        .ok()?
        .split('\0')
        .map(str::to_string)
        .collect();
    // printf ends every word with a NUL: the piece after the last one is empty.
    words.pop().filter(String::is_empty)?;
    Some(words)
}

#[test]
fn sink_roundtrip_corpus() {
    replay("sink_roundtrip", |data| {
        entry::sinks::run_with(data, &sh_words)
    });
}

/// Replay one input that once broke an invariant (kept under `fuzz/corpus/<target>/`).
fn regression(target: &str, file: &str, run: fn(&[u8])) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target)
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    run(&bytes);
}

/// RY0001 pointed one byte into a multi-byte character (`line:column` then named the wrong
/// place); it now spans the whole character.
#[test]
fn regression_yaml_error_span_covers_a_whole_character() {
    regression(
        "spec",
        "regress-ry0001-span-splits-a-character",
        entry::spec::run,
    );
}

/// RY0001 at the very end of the text spanned a byte past it; it is now empty there.
#[test]
fn regression_yaml_error_span_at_end_of_text() {
    regression(
        "spec_catalog",
        "regress-ry0001-span-past-the-end",
        entry::spec_catalog::run,
    );
}

/// `xml:lang` (yuma123 puts it on every `error-message`) was written back as
/// `xmlns:a0="http://www.w3.org/XML/1998/namespace" a0:lang`, which XML forbids: the saved
/// pre-change config of `--rollback` became unreadable.
#[test]
fn regression_xml_namespace_attribute_is_written_with_its_own_prefix() {
    regression(
        "netconf_reply",
        "regress-xml-lang-attribute",
        entry::netconf_reply::run,
    );
}

/// `xmlns="a&amp;b"` names the namespace `a&b`; it was kept escaped, so re-reading written XML
/// changed every namespace holding `&`, `<` or `>`.
#[test]
fn regression_namespace_names_are_unescaped() {
    regression(
        "netconf_reply",
        "regress-escaped-namespace-name",
        entry::netconf_reply::run,
    );
}

/// An attribute with an unbound prefix (`p:x="1"`) lost its prefix and was read as `x`; like an
/// element with an unbound prefix, it is now malformed XML.
#[test]
fn regression_attribute_with_unbound_prefix_is_refused() {
    regression(
        "netconf_reply",
        "regress-unbound-attribute-prefix",
        entry::netconf_reply::run,
    );
}

/// `password:hunter2` (no space: one YAML key) made the error quote the key, password included.
#[test]
fn regression_targets_error_never_quotes_a_secret_key() {
    regression(
        "push_targets",
        "regress-secret-in-key",
        entry::push_targets::run,
    );
}

/// A prefixed `<nc:config>` with an unqualified data element: inside `<rpc>` (default namespace
/// base:1.0) the element took the base namespace; the payload now undeclares the default
/// namespace on its root (`xmlns=""`). Found by a 9-minute `netconf_reply` run.
#[test]
fn regression_unqualified_data_under_prefixed_config_keeps_no_namespace_inside_rpc() {
    regression(
        "netconf_reply",
        "regress-prefixed-config-unqualified-child",
        entry::netconf_reply::run,
    );
}

/// A tenant node range written last-first (`range: [99, 80]`) panicked in the node lookup; it is
/// now RY0803, "runs backwards". Found by a 5-minute `spec` run.
#[test]
fn regression_backwards_tenant_range_is_a_diagnostic() {
    regression("spec", "regress-tenant-range-backwards", entry::spec::run);
}

/// `<\r/>` parsed as an element with an empty name, which the writer turned into `</>`; an
/// element name must now start right after `<`. Found by a 1-minute `netconf_reply` run.
#[test]
fn regression_element_without_a_name_is_rejected() {
    regression(
        "netconf_reply",
        "regress-element-without-a-name",
        entry::netconf_reply::run,
    );
}

/// Element text `xmlns:v` was taken for an identityref in the xmlns namespace, which the writer
/// then bound to a generated prefix — forbidden XML. `xmlns:`/`xml:` text is plain text now.
/// Found by a 5-minute `netconf_reply` run.
#[test]
fn regression_xmlns_prefixed_text_is_plain_text() {
    regression(
        "netconf_reply",
        "regress-xmlns-prefixed-text",
        entry::netconf_reply::run,
    );
}

/// `<x:a1:…>` was read with the local name `a1:…` (quick-xml splits a QName at its first colon)
/// and written back under the undeclared prefix `a1`, which does not parse. Element and
/// attribute names take at most one colon now (Namespaces in XML 1.0 §3). Found after 7.5
/// minutes of a `netconf_reply` run.
#[test]
fn regression_name_with_two_colons_is_rejected() {
    regression(
        "netconf_reply",
        "regress-name-with-two-colons",
        entry::netconf_reply::run,
    );
}

/// Free text (`Text`) took U+FFFE and U+FFFF, which XML 1.0 cannot carry: the XML escape dropped
/// them, so a description read back from the report or an XML output was another string. Text
/// now refuses Unicode's noncharacters. Found by the `sink_roundtrip` seed corpus.
#[test]
fn regression_text_refuses_noncharacters() {
    regression("sink_roundtrip", "regress-text-noncharacter", |data| {
        entry::sinks::run_with(data, &sh_words)
    });
}
