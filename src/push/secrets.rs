//! Secrets at push time: the one place that decides what a placeholder is, fills placeholders
//! from the environment, and hides the values again in everything railyard writes or prints.
//!
//! A placeholder is `${NAME}` with `NAME` matching `[A-Z_][A-Z0-9_]*` — nothing else (`$NAME`,
//! `${lower}`, `${NAME:-default}` and shell expansions such as `${NAME:?message}` are left as
//! they are). Renderers write placeholders where a secret goes (SNMP communities, BGP passwords
//! from `bgp.auth_env`); `build` never substitutes, so no output file ever holds a secret.
//!
//! Substitution respects the file's format, so a value can never change a file's structure:
//! XML (`.xml`) gets the value escaped; JSON (`.json`) gets it escaped as string content and the
//! placeholder must sit inside a string; YAML (`.yaml`, `.yml`) must parse to the same tree with
//! the value in place of the placeholder; line-oriented configs (everything else: `frr.conf`,
//! `startup-config`) refuse values with control characters, which would start a new command.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What replaces a secret in journals, logs, diffs and reports.
pub(super) const REDACTED: &str = "<redacted>";

/// Every placeholder name in `text`, sorted.
pub fn names(text: &[u8]) -> BTreeSet<String> {
    spans(text).into_iter().map(|(_, _, n)| n).collect()
}

/// `(start, end, name)` of every placeholder, in order.
fn spans(text: &[u8]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'$' && text.get(i + 1) == Some(&b'{') {
            let start = i + 2;
            let mut j = start;
            while j < text.len()
                && (text[j].is_ascii_uppercase() || text[j] == b'_' || text[j].is_ascii_digit())
            {
                j += 1;
            }
            let valid_first = text
                .get(start)
                .is_some_and(|c| c.is_ascii_uppercase() || *c == b'_');
            if j > start && valid_first && text.get(j) == Some(&b'}') {
                let name = String::from_utf8_lossy(&text[start..j]).into_owned();
                out.push((i, j + 1, name));
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// How a value is written into a file of some format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    Xml,
    Json,
    Yaml,
    /// One command per line (`frr.conf`, EOS `startup-config`).
    Lines,
}

impl Format {
    pub(super) fn of(file: &str) -> Format {
        let lower = file.to_ascii_lowercase();
        if lower.ends_with(".xml") {
            Format::Xml
        } else if lower.ends_with(".json") {
            Format::Json
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Format::Yaml
        } else {
            Format::Lines
        }
    }

    /// The value as it appears in the file.
    fn encode(self, value: &str) -> String {
        match self {
            Format::Xml => crate::output::markup::escaped(value),
            Format::Json => {
                let quoted = serde_json::Value::String(value.to_string()).to_string();
                quoted[1..quoted.len() - 1].to_string()
            }
            Format::Yaml | Format::Lines => value.to_string(),
        }
    }
}

/// Why a file could not be filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretError {
    /// Placeholders for variables the build did not declare (`configs/secrets.json`), each with
    /// the files holding one. Nothing was read from the environment for them.
    Undeclared(BTreeMap<String, BTreeSet<String>>),
    /// Variables that are unset (or empty), each with the files that need it.
    Unset(BTreeMap<String, BTreeSet<String>>),
    /// A value that would change the structure of a file.
    Unsafe {
        name: String,
        file: String,
        why: String,
    },
}

impl fmt::Display for SecretError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretError::Undeclared(vars) => {
                let list: Vec<String> = vars
                    .iter()
                    .map(|(n, files)| {
                        let files: Vec<&str> = files.iter().map(String::as_str).collect();
                        format!("${{{n}}} in {}", files.join(", "))
                    })
                    .collect();
                write!(
                    f,
                    "placeholder{} for a variable the build did not declare: {} — push fills only \
                     the secrets railyard declared for a device (bgp.auth_env, the SNMP \
                     community: configs/secrets.json); the file was edited after the build or \
                     is not railyard's. Nothing was read from the environment and nothing was \
                     sent to any device",
                    if vars.len() == 1 { "" } else { "s" },
                    list.join("; ")
                )
            }
            SecretError::Unset(vars) => {
                let list: Vec<String> = vars
                    .iter()
                    .map(|(n, files)| {
                        let files: Vec<&str> = files.iter().map(String::as_str).collect();
                        format!("${n} (needed by {})", files.join(", "))
                    })
                    .collect();
                write!(
                    f,
                    "environment variable{} not set: {} — export {} and re-run; nothing was sent \
                     to any device",
                    if vars.len() == 1 { "" } else { "s" },
                    list.join("; "),
                    if vars.len() == 1 { "it" } else { "them" }
                )
            }
            SecretError::Unsafe { name, file, why } => write!(
                f,
                "the value of ${name} cannot be placed in {file}: {why}; nothing was sent to any \
                 device"
            ),
        }
    }
}

impl std::error::Error for SecretError {}

/// The secret values of one push, for filling files and hiding the values again.
#[derive(Clone, Debug, Default)]
pub struct Secrets {
    /// name → value, as read from the environment.
    values: BTreeMap<String, String>,
}

impl Secrets {
    /// Read every variable `names` from `lookup` (the environment). Unset or empty variables
    /// are reported with the files that need them (`needed_by`).
    pub fn resolve(
        needed_by: &BTreeMap<String, BTreeSet<String>>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Secrets, SecretError> {
        let mut values = BTreeMap::new();
        let mut unset = BTreeMap::new();
        for (name, files) in needed_by {
            match lookup(name).filter(|v| !v.is_empty()) {
                Some(v) => {
                    values.insert(name.clone(), v);
                }
                None => {
                    unset.insert(name.clone(), files.clone());
                }
            }
        }
        if unset.is_empty() {
            Ok(Secrets { values })
        } else {
            Err(SecretError::Unset(unset))
        }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `bytes` of `file` with every placeholder replaced by its value, encoded for the file's
    /// format. Placeholders whose variable was not resolved are an error (`Unset`).
    pub fn fill(&self, file: &str, bytes: &[u8]) -> Result<Vec<u8>, SecretError> {
        let found = spans(bytes);
        if found.is_empty() {
            return Ok(bytes.to_vec());
        }
        let format = Format::of(file);
        let mut unset: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for (start, end, name) in &found {
            out.extend_from_slice(&bytes[at..*start]);
            match self.values.get(name) {
                Some(v) => {
                    check_value(name, file, v)?;
                    out.extend_from_slice(format.encode(v).as_bytes());
                }
                None => {
                    unset
                        .entry(name.clone())
                        .or_default()
                        .insert(file.to_string());
                }
            }
            at = *end;
        }
        out.extend_from_slice(&bytes[at..]);
        if !unset.is_empty() {
            return Err(SecretError::Unset(unset));
        }
        self.check_structure(format, file, bytes, &out)?;
        Ok(out)
    }

    /// Structured formats: the filled file must parse to the rendered tree with each placeholder
    /// string replaced by its value — a quote or newline in a value must not add keys or items.
    fn check_structure(
        &self,
        format: Format,
        file: &str,
        rendered: &[u8],
        filled: &[u8],
    ) -> Result<(), SecretError> {
        let parse = |b: &[u8]| -> Option<serde_json::Value> {
            let text = std::str::from_utf8(b).ok()?;
            match format {
                Format::Json => serde_json::from_str(text).ok(),
                Format::Yaml => serde_saphyr::from_str(text).ok(),
                Format::Xml | Format::Lines => None,
            }
        };
        if !matches!(format, Format::Json | Format::Yaml) {
            return Ok(());
        }
        let name = names(rendered).into_iter().next().unwrap_or_default();
        let Some(mut want) = parse(rendered) else {
            // `{"a": ${X}}` does not parse: the value would be bare JSON, able to add keys.
            return Err(SecretError::Unsafe {
                name,
                file: file.to_string(),
                why: format!(
                    "the file does not parse as {} with its placeholders, so the value's effect \
                     cannot be checked (a placeholder must sit inside a string)",
                    if format == Format::Json {
                        "JSON"
                    } else {
                        "YAML"
                    }
                ),
            });
        };
        self.fill_tree(&mut want);
        if parse(filled).as_ref() == Some(&want) {
            return Ok(());
        }
        Err(SecretError::Unsafe {
            name,
            file: file.to_string(),
            why: match format {
                Format::Json => "a placeholder must sit inside a JSON string".to_string(),
                _ => {
                    "the value changes the YAML structure (quote the placeholder in the template, \
                      or remove `: `, `#` or newlines from the value)"
                        .to_string()
                }
            },
        })
    }

    fn fill_tree(&self, v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => {
                let b = s.as_bytes();
                let found = spans(b);
                if found.is_empty() {
                    return;
                }
                let mut out = String::new();
                let mut at = 0;
                for (start, end, name) in found {
                    out.push_str(&s[at..start]);
                    out.push_str(self.values.get(&name).map(String::as_str).unwrap_or(""));
                    at = end;
                }
                out.push_str(&s[at..]);
                *s = out;
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| self.fill_tree(x)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| self.fill_tree(x)),
            _ => {}
        }
    }

    /// Every form a value may take in text railyard shows (raw and escaped), longest first.
    fn forms(&self) -> Vec<String> {
        let mut forms: BTreeSet<String> = BTreeSet::new();
        for v in self.values.values() {
            for f in [Format::Lines, Format::Xml, Format::Json] {
                forms.insert(f.encode(v));
            }
            // A JSON-escaped form inside JSON text (the journal is JSON lines).
            let j = serde_json::Value::String(Format::Json.encode(v)).to_string();
            forms.insert(j[1..j.len() - 1].to_string());
        }
        let mut forms: Vec<String> = forms.into_iter().filter(|f| !f.is_empty()).collect();
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        forms
    }

    /// `text` with every secret value replaced by `<redacted>`.
    pub fn redact(&self, text: &str) -> String {
        if self.values.is_empty() {
            return text.to_string();
        }
        let mut out = text.to_string();
        for f in self.forms() {
            if out.contains(&f) {
                out = out.replace(&f, REDACTED);
            }
        }
        out
    }

    /// A device's config with every value turned back into its placeholder, so a saved copy
    /// (for `--rollback`) holds no secret and is filled again when pushed.
    pub(crate) fn to_placeholders(&self, bytes: &[u8]) -> Vec<u8> {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return bytes.to_vec();
        };
        let mut pairs: Vec<(&String, &String)> = self.values.iter().collect();
        pairs.sort_by_key(|p| std::cmp::Reverse(p.1.len()));
        let mut out = text.to_string();
        for (name, value) in pairs {
            out = out.replace(value.as_str(), &format!("${{{name}}}"));
        }
        out.into_bytes()
    }
}

/// The variables a set of files needs: name → files (by the label given, e.g. the path).
pub(super) fn needed<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (label, bytes) in files {
        for n in names(bytes) {
            out.entry(n).or_default().insert(label.to_string());
        }
    }
    out
}

/// A value that cannot go into any configuration file.
fn check_value(name: &str, file: &str, v: &str) -> Result<(), SecretError> {
    if v.chars().any(|c| c.is_control() && c != '\t') {
        return Err(SecretError::Unsafe {
            name: name.to_string(),
            file: file.to_string(),
            why: "the value contains a control character (a newline would start a new \
                  configuration command)"
                .to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn only_upper_case_braced_names_are_placeholders() {
        let t = b"a ${SNMP_COMMUNITY} b ${_X1} $PLAIN ${lower} ${A:-d} ${9X} ${} ${SNMP:?msg} ${B";
        let n: Vec<String> = names(t).into_iter().collect();
        assert_eq!(n, vec!["SNMP_COMMUNITY", "_X1"]);
    }

    #[test]
    fn unset_names_the_variable_and_every_file() {
        let needed = needed([
            (
                "configs/l1/frr.conf",
                &b"neighbor x password ${BGP_PW}\n"[..],
            ),
            ("configs/l2/frr.conf", &b"${BGP_PW} ${SNMP}"[..]),
        ]);
        let e = Secrets::resolve(&needed, &env(&[("SNMP", "")])).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("$BGP_PW (needed by configs/l1/frr.conf, configs/l2/frr.conf)"),
            "{msg}"
        );
        assert!(
            msg.contains("$SNMP (needed by configs/l2/frr.conf)"),
            "{msg}"
        );
        assert!(msg.contains("nothing was sent"), "{msg}");
    }

    #[test]
    fn fills_per_format_and_redacts_every_form() {
        let needed = needed([("x", &b"${S}"[..])]);
        let s = Secrets::resolve(&needed, &env(&[("S", "p<&\"q")])).unwrap();
        let xml = s.fill("openconfig.xml", b"<c>${S}</c>").unwrap();
        assert_eq!(xml, b"<c>p&lt;&amp;&quot;q</c>");
        let json = s.fill("config_db.json", br#"{"c": "${S}"}"#).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(v["c"], "p<&\"q");
        let lines = s.fill("frr.conf", b"snmp ${S}\n").unwrap();
        assert_eq!(lines, b"snmp p<&\"q\n");
        for text in [
            String::from_utf8(xml).unwrap(),
            String::from_utf8(json).unwrap(),
            String::from_utf8(lines).unwrap(),
            serde_json::json!({ "diff": "+ snmp p<&\"q" }).to_string(),
        ] {
            let r = s.redact(&text);
            assert!(r.contains(REDACTED), "{r}");
            assert!(!r.contains("p<&") && !r.contains("p&lt;"), "{r}");
        }
        assert_eq!(s.to_placeholders(b"snmp p<&\"q\n"), b"snmp ${S}\n");
    }

    #[test]
    fn a_value_cannot_change_structure() {
        let needed = needed([("x", &b"${S}"[..])]);
        let s = Secrets::resolve(&needed, &env(&[("S", "a\nno router bgp")])).unwrap();
        let e = s.fill("frr.conf", b"password ${S}\n").unwrap_err();
        assert!(e.to_string().contains("$S"), "{e}");
        assert!(e.to_string().contains("frr.conf"), "{e}");
        let s = Secrets::resolve(&needed, &env(&[("S", "x: y")])).unwrap();
        let e = s.fill("startup.yaml", b"a:\n  b: ${S}\n").unwrap_err();
        assert!(e.to_string().contains("YAML"), "{e}");
        // Quoted in the template, the same value is fine.
        let ok = s.fill("startup.yaml", b"a:\n  b: '${S}'\n").unwrap();
        assert_eq!(ok, b"a:\n  b: 'x: y'\n");
        // JSON: a placeholder outside a string is refused.
        let s = Secrets::resolve(&needed, &env(&[("S", "1, \"k\": 2")])).unwrap();
        assert!(s.fill("c.json", br#"{"a": ${S}}"#).is_err());
    }
}
