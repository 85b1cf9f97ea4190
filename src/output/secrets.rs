//! `configs/secrets.json`: the secrets a build declares — every `${NAME}` placeholder the
//! renderers write on purpose, by variable, with what it is for and which devices' configs carry
//! it (never a value). One type writes it (`render`, only when there is a secret) and reads it
//! back (`push`, which fills these placeholders and no other: a `${NAME}` anywhere else — a
//! config edited after the build, a template override — is refused before anything is read from
//! the environment). Listed in the manifest like every file, so `push --from` checks it too.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{OutputFile, OutputGroup};

/// The declaration's path in the output directory.
pub const PATH: &str = "configs/secrets.json";

/// One declared variable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    /// What the value is (never the value).
    #[serde(rename = "for")]
    pub purpose: BTreeSet<String>,
    /// The devices whose configs carry the placeholder.
    pub devices: BTreeSet<String>,
}

/// Variable name → its declaration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    pub secrets: BTreeMap<String, Declared>,
}

impl Declaration {
    /// Declare `name` (for `purpose`) in `device`'s configs.
    pub fn declare(&mut self, name: &str, purpose: &str, device: &str) {
        let e = self.secrets.entry(name.to_string()).or_default();
        e.purpose.insert(purpose.to_string());
        e.devices.insert(device.to_string());
    }

    /// Whether `device`'s configs may carry `${name}`.
    pub fn allows(&self, name: &str, device: &str) -> bool {
        self.secrets
            .get(name)
            .is_some_and(|d| d.devices.contains(device))
    }

    /// `configs/secrets.json`: pretty JSON and a final newline.
    pub fn to_file(&self) -> OutputFile {
        // Strings only: serializing cannot fail.
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        OutputFile::new(OutputGroup::Configs, PATH, bytes)
    }

    /// A declaration read back; `Err` says why it is not one.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(bytes)
            .map_err(|e| format!("not a railyard secrets declaration: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_and_read_by_one_type() {
        let mut d = Declaration::default();
        d.declare("BGP_PW", "bgp.auth_env", "leaf1");
        d.declare("BGP_PW", "bgp.auth_env", "leaf2");
        let f = d.to_file();
        assert_eq!(f.path, PATH);
        let back = Declaration::parse(&f.bytes).unwrap();
        assert_eq!(back, d);
        assert!(back.allows("BGP_PW", "leaf2"));
        assert!(!back.allows("BGP_PW", "spine1"));
        assert!(!back.allows("AWS_SECRET_ACCESS_KEY", "leaf1"));
        assert!(Declaration::parse(b"{\"secrets\": 1}").is_err());
    }
}
