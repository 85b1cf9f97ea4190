//! NVIDIA Cumulus Linux through NVUE, Cumulus Linux 5.15 (`state enabled`, `ipv4 address`,
//! `system ntp|dns|syslog`, BFD profiles: the forms the CL 5.15 "New and Changed NVUE Commands"
//! page introduced; the 5.16 object model keeps them).
//!
//! One source of truth, two serializations. [`build`] turns the intent into the typed NVUE
//! [`tree`]; the tree becomes one JSON value, and both files are written from that value:
//! - `startup.yaml`: NVUE's own file format (`/etc/nvue.d/startup.yaml`, `nv config show -o
//!   yaml`): a `- header:` entry, then `- set:` with the whole tree;
//! - `nv-set.sh`: applies `startup.yaml` as one revision (`nv config replace`, the secrets filled
//!   in with `nv set`, `nv config apply`), and carries the same value flattened into
//!   `nv set <path…> <value>` lines (a path ends at a leaf value or at an identifier that carries
//!   nothing, `{}`), the readable form, which `--nv-set` runs instead; framed by
//!   `templates/nvue/main.j2`. Why both: `docs/nvue.md`.
//!
//! No setting can be in one file and not the other; `tests/render/render_nvue.rs` checks it for every
//! NVUE switch of every example anyway, and `tests/render/nvue_schema.rs` validates `startup.yaml`
//! against NVUE's object model.

mod build;
mod tree;

use minijinja::{Environment, Value};
use serde::Serialize;
use serde_json::Value as Json;

use super::{RenderError, template, yaml};
use crate::intent::DeviceIntent;

/// The Cumulus Linux release the files target.
pub const RELEASE: &str = "5.15";
/// `version` of the startup file's header, as `nv config show` prints it on that release.
const HEADER_VERSION: &str = "Cumulus Linux 5.15.0";
/// The API generation of NVUE's object model (`/nvue_v1` in its OpenAPI document).
const API_VERSION: &str = "nvue_v1";
/// The header's schema-migration counter; NVUE writes 1.0.
const REV_ID: f64 = 1.0;

/// Top-level NVUE objects in the order the script configures them; anything else follows, sorted.
const SECTION_ORDER: [&str; 8] = [
    "system",
    "bridge",
    "interface",
    "router",
    "vrf",
    "evpn",
    "nve",
    "qos",
];

pub fn render(
    env: &Environment<'_>,
    d: &DeviceIntent,
) -> Result<Vec<(String, String)>, RenderError> {
    let (tree, notes) = build::tree(d);
    let fail = |file: &str, message: String| RenderError {
        device: d.hostname.clone(),
        template: file.to_string(),
        message,
    };
    let set = serde_json::to_value(&tree).map_err(|e| fail("startup.yaml", e.to_string()))?;
    let startup = yaml(
        &d.hostname,
        "startup.yaml",
        &(
            HeaderDoc {
                header: Header {
                    model: d.model.to_uppercase(),
                    nvue_api_version: API_VERSION,
                    rev_id: REV_ID,
                    version: HEADER_VERSION,
                },
            },
            SetDoc { set: &set },
        ),
    )?;
    let (sections, secret_fill) = sections(&set, &notes).map_err(|m| fail("nvue/main.j2", m))?;
    let script = ScriptView {
        release: RELEASE,
        sections,
        secret_fill,
        notes,
    };
    // The template names the switch only (hostname, role, model): the whole intent as a template
    // value would be a copy of every interface, for three strings.
    let ctx = minijinja::context! {
        d => Value::from_serialize(Named { hostname: &d.hostname, role: &d.role, model: &d.model }),
        nv => Value::from_serialize(&script),
    };
    let script = template(env, &d.hostname, "nvue/main.j2", ctx)?;
    Ok(vec![
        ("nv-set.sh".into(), script),
        ("startup.yaml".into(), startup),
    ])
}

/// What `templates/nvue/main.j2` reads of the intent.
#[derive(Serialize)]
struct Named<'a> {
    hostname: &'a str,
    role: &'a crate::model::Role,
    model: &'a str,
}

#[derive(Serialize)]
struct HeaderDoc {
    header: Header,
}

/// The fields `nv config show -o yaml` writes, in its (alphabetical) order. `model` is the
/// platform's identifier; NVUE rewrites the header when it saves the file.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Header {
    model: String,
    nvue_api_version: &'static str,
    rev_id: f64,
    version: &'static str,
}

#[derive(Serialize)]
struct SetDoc<'a> {
    set: &'a Json,
}

#[derive(Serialize)]
struct ScriptView {
    release: &'static str,
    sections: Vec<Section>,
    /// The `nv unset`/`nv set` commands (without `nv `) that put the secrets into the pending
    /// revision after `nv config replace` loaded `startup.yaml` with their placeholders.
    secret_fill: Vec<String>,
    notes: build::Notes,
}

/// The `nv set` lines under one top-level object, each line its shell words joined by spaces
/// (joined here, not with a template filter: a 16k-GPU fabric has millions of lines, and
/// the filter over nested lists was a sixth of rendering NVUE).
#[derive(Serialize)]
struct Section {
    key: String,
    lines: Vec<String>,
}

/// The `nv set` lines per top-level object, and the commands that fill the secrets in.
fn sections(set: &Json, notes: &build::Notes) -> Result<(Vec<Section>, Vec<String>), String> {
    let Json::Object(top) = set else {
        return Err("the NVUE tree is not an object".into());
    };
    let mut keys: Vec<&String> = top.keys().collect();
    keys.sort_by_key(|k| {
        let rank = SECTION_ORDER
            .iter()
            .position(|s| s == k)
            .unwrap_or(SECTION_ORDER.len());
        (rank, k.as_str())
    });
    let mut fill = Vec::new();
    let mut sections = Vec::with_capacity(keys.len());
    for k in keys {
        let mut walk = Walk {
            notes,
            path: vec![k.as_str()],
            line: shell_word(k, notes),
            lines: Vec::new(),
            fill: &mut fill,
        };
        walk.node(&top[k])?;
        sections.push(Section {
            key: k.clone(),
            lines: walk.lines,
        });
    }
    Ok((sections, fill))
}

/// The walk that flattens one top-level object into `nv set` lines: every setting of the tree as
/// a path of keys down to a leaf value, or down to an identifier that carries nothing (`{}`). The
/// path's shell words are kept joined in `line` as the walk goes down (a leaf copies them once:
/// a 16k-GPU fabric has millions of lines). A value NVUE's CLI cannot take (list, boolean, null)
/// is a bug in the tree, reported rather than dropped.
struct Walk<'a, 'n> {
    notes: &'n build::Notes,
    /// The keys from the top-level object down to here, as in the tree.
    path: Vec<&'a str>,
    /// The same keys as shell words, joined by spaces.
    line: String,
    lines: Vec<String>,
    fill: &'n mut Vec<String>,
}

impl<'a> Walk<'a, '_> {
    fn node(&mut self, v: &'a Json) -> Result<(), String> {
        match v {
            Json::Object(m) if m.is_empty() => self.leaf(None),
            Json::Object(m) => {
                for (k, x) in m {
                    let len = self.line.len();
                    self.line.push(' ');
                    push_shell_word(&mut self.line, k, self.notes);
                    self.path.push(k);
                    self.node(x)?;
                    self.path.pop();
                    self.line.truncate(len);
                }
            }
            Json::String(s) => self.leaf(Some(s)),
            Json::Number(n) => self.leaf(Some(&n.to_string())),
            other => return Err(format!("`{}` holds {other}", self.path.join(" "))),
        }
        Ok(())
    }

    fn leaf(&mut self, value: Option<&str>) {
        let mut line = String::with_capacity(self.line.len() + value.map_or(0, |v| v.len() + 3));
        line.push_str(&self.line);
        if let Some(v) = value {
            line.push(' ');
            push_shell_word(&mut line, v, self.notes);
        }
        let secret =
            |w: &str| build::placeholder(w).is_some_and(|v| self.notes.secrets.contains_key(v));
        if self.path.iter().copied().chain(value).any(secret) {
            let path: Vec<String> = self
                .path
                .iter()
                .copied()
                .chain(value)
                .map(String::from)
                .collect();
            self.fill.extend(secret_fill(&path, &line, self.notes));
        }
        self.lines.push(line);
    }
}

/// After `nv config replace`, a secret's placeholder is in the pending revision as written in
/// `startup.yaml`. A placeholder that is the setting's value is overwritten by the expanded
/// `nv set` line; one that is an identifier (the SNMP community is a key) is a setting of its
/// own, so it is unset first, by its literal name. `line` is `path` as shell words.
fn secret_fill(path: &[String], line: &str, notes: &build::Notes) -> Vec<String> {
    let Some(at) = path
        .iter()
        .position(|w| build::placeholder(w).is_some_and(|v| notes.secrets.contains_key(v)))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if at + 1 < path.len() {
        // A placeholder is `${` + a variable name + `}`: nothing in it needs more than '…'.
        let literal: Vec<String> = path[..=at]
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == at {
                    format!("'{w}'")
                } else {
                    shell_word(w, notes)
                }
            })
            .collect();
        out.push(format!("unset {}", literal.join(" ")));
    }
    out.push(format!("set {line}"));
    out
}

/// One shell word: left bare when it holds only characters the shell does not interpret, else
/// single-quoted (names and descriptions come from the spec and may hold anything). A secret's
/// placeholder is the one word the shell must expand.
fn shell_word(s: &str, notes: &build::Notes) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_shell_word(&mut out, s, notes);
    out
}

/// [`shell_word`], appended to `out`.
fn push_shell_word(out: &mut String, s: &str, notes: &build::Notes) {
    if build::placeholder(s).is_some_and(|var| notes.secrets.contains_key(var)) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    // Bytes, not chars: every byte of a non-ASCII character is ≥ 0x80, so it is quoted as before.
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'.' | b':' | b'/' | b'@' | b'+' | b'-' | b',' | b'=' | b'%'
                )
        });
    if plain {
        out.push_str(s);
    } else {
        out.push('\'');
        out.push_str(&s.replace('\'', r"'\''"));
        out.push('\'');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_the_shell_would_interpret_them() {
        let mut notes = build::Notes::default();
        notes
            .secrets
            .insert("SNMP_TRAP_COMMUNITY".into(), "community");
        let word = |s| shell_word(s, &notes);
        assert_eq!(word("swp1s0"), "swp1s0");
        assert_eq!(word("spine01:swp1"), "spine01:swp1");
        assert_eq!(word("a b"), "'a b'");
        assert_eq!(word("it's"), r"'it'\''s'");
        assert_eq!(word(""), "''");
        assert_eq!(word(build::SNMP_COMMUNITY), "\"${SNMP_TRAP_COMMUNITY}\"");
        // A placeholder-looking value that is no secret of this switch stays literal.
        assert_eq!(word("${HOME}"), "'${HOME}'");
    }

    #[test]
    fn flattening_stops_at_values_and_empty_identifiers() {
        let notes = build::Notes::default();
        let v = serde_json::json!({"interface": {"link": {"mtu": 9216, "state": {"up": {}}}, "type": "swp", "a b": {}}});
        let (found, fill) = sections(&v, &notes).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].lines,
            [
                "interface 'a b'",
                "interface link mtu 9216",
                "interface link state up",
                "interface type swp"
            ]
        );
        assert!(fill.is_empty());
        let bad = serde_json::json!({"interface": {"x": [1]}});
        assert!(sections(&bad, &notes).is_err());
    }

    #[test]
    fn a_secret_in_a_path_is_filled_after_the_replace() {
        let mut notes = build::Notes::default();
        notes
            .secrets
            .insert("SNMP_TRAP_COMMUNITY".into(), "community");
        let v = serde_json::json!({"system": {"snmp": {"community": {build::SNMP_COMMUNITY: {"v": "x"}}}}});
        let (found, fill) = sections(&v, &notes).unwrap();
        assert_eq!(
            found[0].lines,
            ["system snmp community \"${SNMP_TRAP_COMMUNITY}\" v x"]
        );
        assert_eq!(
            fill,
            [
                "unset system snmp community '${SNMP_TRAP_COMMUNITY}'",
                "set system snmp community \"${SNMP_TRAP_COMMUNITY}\" v x"
            ]
        );
    }
}
