//! Spec strings into every sink: arbitrary text → each identifier type of `model::ident` that
//! accepts it → each sink that type can reach, written through the sink's own escape or format
//! path and read back by that sink's parser.
//!
//! Invariant: the parser of every sink reads back exactly one token (shell word, config token,
//! YAML/JSON scalar, XML text or attribute value) and it equals the input. A second token, a
//! line of its own, or a changed value would mean a spec string could write something of its
//! own into a root shell script or a switch config.
//!
//! Sinks, and the reader of each:
//! - shell word (`output::shell::quote`, every generated script and remote command): read by a
//!   POSIX shell reader the caller hands in (`shlex` in the fuzz target; the real `sh` in the
//!   corpus replay, which has no `shlex`);
//! - FRR and EOS config lines: `<keyword> {{ value }}` rendered by the template environment the
//!   switch configs are rendered with (`render::Templates::default().environment()`), read back
//!   as FRR's and EOS's CLI read a line: split at whitespace;
//! - NVUE `startup.yaml` (`output::yaml::to_string`, via `serde_json::Value` as the NVUE
//!   renderer does): read by serde-saphyr;
//! - SONiC `config_db.json` (`serde_json::to_string_pretty`, as the SONiC renderer does): read
//!   by serde_json;
//! - XML element text and attribute values (`output::markup::escaped`: the report, label
//!   sheets, NCCL's topology file, NETCONF payloads): read by quick-xml;
//! - CSV cells (`output::csv::Writer`: `cabling.csv`, `bom.csv`, `netbox-cables.csv`, …): read
//!   by the csv crate, one record of one field that `output::csv::uncell` turns back into the
//!   input and that no spreadsheet reads as a formula (OWASP's leading characters).
//!
//! Free text ([`Text`]) is no config token: railyard writes it into YAML, JSON, XML/HTML and
//! shell words (quoted), never bare into a CLI line, so the config sinks take only the
//! identifier types.

use std::collections::BTreeMap;

use railyard::model::ident::{
    DomainName, EnvName, Host, IfName, IfPattern, IfnameList, LabelPrefix, Name, NodePath,
    RouteTarget, Text,
};
use railyard::output::{markup, shell};

/// A POSIX shell's reading of one line of shell text: its words, or `None` when it is not
/// shell syntax.
pub type ShellReader<'a> = &'a dyn Fn(&str) -> Option<Vec<String>>;

/// Each identifier type's name, whether it is a config token, and whether it accepts `s`.
fn accepting(s: &str) -> Vec<(&'static str, bool)> {
    let types: [(&'static str, bool, bool); 11] = [
        ("Name", true, Name::parse(s).is_ok()),
        ("IfName", true, IfName::parse(s).is_ok()),
        ("IfPattern", true, IfPattern::parse(s).is_ok()),
        ("DomainName", true, DomainName::parse(s).is_ok()),
        ("Host", true, Host::parse(s).is_ok()),
        ("RouteTarget", true, RouteTarget::parse(s).is_ok()),
        ("EnvName", true, EnvName::parse(s).is_ok()),
        ("LabelPrefix", true, LabelPrefix::parse(s).is_ok()),
        ("NodePath", true, NodePath::parse(s).is_ok()),
        ("IfnameList", true, IfnameList::parse(s).is_ok()),
        ("Text", false, Text::parse(s).is_ok()),
    ];
    types
        .into_iter()
        .filter(|t| t.2)
        .map(|(name, token, _)| (name, token))
        .collect()
}

/// Check every sink for `data` (as UTF-8; other bytes are no spec string).
pub fn run_with(data: &[u8], read_shell: ShellReader<'_>) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    check(s, read_shell);
}

/// Check every sink that a type accepting `s` can reach.
pub fn check(s: &str, read_shell: ShellReader<'_>) {
    let types = accepting(s);
    if types.is_empty() {
        return;
    }
    let what = types.iter().map(|t| t.0).collect::<Vec<_>>().join("/");
    shell_word(s, &what, read_shell);
    nvue_yaml(s, &what);
    sonic_json(s, &what);
    xml(s, &what);
    csv_cell(s, &what);
    if types.iter().any(|t| t.1) {
        config_line(s, &what);
    }
}

fn shell_word(s: &str, what: &str, read_shell: ShellReader<'_>) {
    let quoted = shell::quote(s);
    let words = read_shell(&quoted);
    assert_eq!(
        words.as_deref(),
        Some(&[s.to_string()][..]),
        "{what} {s:?}: the shell reads {quoted:?} as other words"
    );
}

/// FRR (`ntp server`, `neighbor … description`) and EOS (`hostname`, `ip name-server`) lines,
/// rendered as the templates write a value.
fn config_line(s: &str, what: &str) {
    let env = railyard::render::Templates::default().environment();
    for keyword in ["hostname", "ntp server", "route-target both"] {
        let ctx = BTreeMap::from([("v", s)]);
        let line = env
            .render_str(&format!("{keyword} {{{{ v }}}}\n"), ctx)
            .unwrap_or_else(|e| panic!("{what} {s:?}: the template failed: {e}"));
        let lines: Vec<&str> = line.lines().collect();
        assert_eq!(lines.len(), 1, "{what} {s:?}: {line:?} is not one line");
        let tokens: Vec<&str> = lines[0].split_whitespace().collect();
        let mut expected: Vec<&str> = keyword.split(' ').collect();
        expected.push(s);
        assert_eq!(
            tokens, expected,
            "{what} {s:?}: the config line reads back as other tokens"
        );
    }
}

fn nvue_yaml(s: &str, what: &str) {
    let tree = serde_json::json!({ "set": { "system": { "hostname": s } } });
    let text =
        railyard::output::yaml::to_string(&tree).unwrap_or_else(|e| panic!("{what} {s:?}: {e}"));
    type Doc = BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>;
    let back: Doc = serde_saphyr::from_str(&text)
        .unwrap_or_else(|e| panic!("{what} {s:?}: YAML reader refuses {text:?}: {e}"));
    let value = back
        .get("set")
        .and_then(|m| m.get("system"))
        .and_then(|m| m.get("hostname"));
    assert_eq!(
        value.map(String::as_str),
        Some(s),
        "{what} {s:?}: the YAML reads back otherwise: {text:?}"
    );
}

fn sonic_json(s: &str, what: &str) {
    let tree = serde_json::json!({ "DEVICE_METADATA": { "localhost": { "hostname": s } } });
    let text = serde_json::to_string_pretty(&tree).unwrap_or_else(|e| panic!("{e}"));
    let back: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{what} {s:?}: JSON reader refuses {text:?}: {e}"));
    assert_eq!(
        back["DEVICE_METADATA"]["localhost"]["hostname"].as_str(),
        Some(s),
        "{what} {s:?}: the JSON reads back otherwise: {text:?}"
    );
}

/// `s` as an attribute value (both quote kinds) and as element text.
fn xml(s: &str, what: &str) {
    let e = markup::escaped(s);
    let doc = format!("<r a=\"{e}\" b='{e}'>{e}</r>");
    let mut reader = quick_xml::Reader::from_str(&doc);
    let mut attributes = Vec::new();
    let mut text = String::new();
    let mut elements = 0;
    loop {
        use quick_xml::events::Event;
        match reader.read_event() {
            Ok(Event::Start(start)) => {
                elements += 1;
                for a in start.attributes() {
                    let a = a.unwrap_or_else(|e| panic!("{what} {s:?}: {doc:?}: {e}"));
                    let v = a
                        .unescape_value()
                        .unwrap_or_else(|e| panic!("{what} {s:?}: {doc:?}: {e}"));
                    attributes.push(v.into_owned());
                }
            }
            Ok(Event::Text(t)) => text.push_str(
                &t.decode()
                    .unwrap_or_else(|e| panic!("{what} {s:?}: {doc:?}: {e}")),
            ),
            Ok(Event::GeneralRef(r)) => {
                text.push(
                    r.resolve_char_ref()
                        .ok()
                        .flatten()
                        .or_else(|| predefined(&r.decode().unwrap_or_default()))
                        .unwrap_or_else(|| panic!("{what} {s:?}: unknown reference in {doc:?}")),
                );
            }
            Ok(Event::End(_)) => {}
            Ok(Event::Eof) => break,
            other => panic!("{what} {s:?}: {doc:?} reads as {other:?}"),
        }
    }
    assert_eq!(elements, 1, "{what} {s:?}: {doc:?} is not one element");
    assert_eq!(
        attributes,
        [s, s],
        "{what} {s:?}: attributes read back otherwise"
    );
    assert_eq!(text, s, "{what} {s:?}: element text reads back otherwise");
}

/// XML's five predefined entities (XML 1.0 §4.6).
fn predefined(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        _ => return None,
    })
}

/// One CSV cell of every file railyard writes as CSV.
fn csv_cell(s: &str, what: &str) {
    use railyard::output::csv::{Column, Writer, uncell};
    let mut w = Writer::new(&[Column::text("value")]);
    w.row([s]);
    let bytes = w.finish().unwrap_or_else(|e| panic!("{what} {s:?}: {e}"));
    let rows: Vec<::csv::StringRecord> = ::csv::Reader::from_reader(&bytes[..])
        .records()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{what} {s:?}: the csv crate reads no CSV: {e}"));
    assert_eq!(rows.len(), 1, "{what} {s:?}: {} records", rows.len());
    assert_eq!(rows[0].len(), 1, "{what} {s:?}: {} fields", rows[0].len());
    let field = &rows[0][0];
    assert_eq!(uncell(field), s, "{what} {s:?}: read back as {field:?}");
    assert!(
        !field.starts_with(['=', '+', '-', '@', '\t', '\r']),
        "{what} {s:?}: a spreadsheet reads {field:?} as a formula"
    );
}
