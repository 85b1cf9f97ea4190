//! `--format sarif`: the diagnostics as one SARIF 2.1.0 log (OASIS, "Static Analysis Results
//! Interchange Format Version 2.1.0", errata01), what GitHub code scanning uploads. One run; the
//! tool's rules are the codes found, each with its `railyard explain` text; a result's level is
//! `error`, `warning` or `note` (railyard's `info`); its place is the file (a relative URI reference, `output::uri`), line and
//! column, and the spec key path as a logical location; `partialFingerprints` carries railyard's
//! fingerprint (`diag::fingerprint`) so code scanning follows a finding across edits. The
//! invocation says whether the command succeeded and, when it stopped without an answer, why.
//! Checked against the SARIF 2.1.0 JSON Schema by `tests/pipeline/machine_output.rs`.

use std::collections::BTreeMap;

use serde::Serialize;

use railyard::diag::{Code, Severity};
use railyard::output::uri;

use super::Finding;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of railyard's fingerprint in `partialFingerprints` (versioned as the scheme is).
const FINGERPRINT: &str = "railyard/v1";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    short_description: Text,
    full_description: Text,
    help: Text,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: u8,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    partial_fingerprints: BTreeMap<&'static str, &'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

/// The SARIF log of `findings`, for a command that exits `exit_code` (`error`: why it stopped).
pub fn render(findings: &[Finding], exit_code: u8, error: Option<&str>) -> String {
    let codes: Vec<&str> = findings
        .iter()
        .map(|f| f.code)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let rules = codes
        .iter()
        .filter_map(|id| Code::find(id))
        .map(|c| Rule {
            id: c.id,
            short_description: Text {
                text: c.title.to_string(),
            },
            full_description: Text {
                text: c.explain.to_string(),
            },
            help: Text {
                text: format!("railyard explain {}", c.id),
            },
        })
        .collect();
    let results = findings
        .iter()
        .map(|f| result(f, codes.iter().position(|c| *c == f.code).unwrap_or(0)))
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "railyard",
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            invocations: [Invocation {
                execution_successful: error.is_none(),
                exit_code,
                tool_execution_notifications: error
                    .map(|e| Notification {
                        level: "error",
                        message: Text {
                            text: e.to_string(),
                        },
                    })
                    .into_iter()
                    .collect(),
            }],
            results,
        }],
    };
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

fn result(f: &Finding, rule_index: usize) -> SarifResult<'_> {
    let mut text = f.message.clone();
    if let Some(help) = &f.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    SarifResult {
        rule_id: f.code,
        rule_index,
        level: match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        },
        message: Text { text },
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: uri::reference(&f.file),
                },
                region: f
                    .line
                    .zip(f.column)
                    .map(|(start_line, start_column)| Region {
                        start_line,
                        start_column,
                    }),
            },
            logical_locations: f
                .key
                .iter()
                .map(|k| LogicalLocation {
                    fully_qualified_name: k.clone(),
                    kind: "member",
                })
                .collect(),
        }],
        partial_fingerprints: BTreeMap::from([(FINGERPRINT, f.fingerprint.as_str())]),
    }
}
