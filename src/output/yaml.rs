//! The one YAML writer of railyard's outputs (NVUE `startup.yaml`, intent dumps, the tenant
//! plan, netplan, Kueue and Slurm YAML). serde-saphyr quotes every string a YAML 1.1 reader
//! (NVUE's, Kubernetes') would take for a number, boolean or null.

use serde::Serialize;

/// A value the writer cannot express: a bug in railyard, never an empty or truncated file.
#[derive(Debug)]
pub struct YamlError(String);

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write YAML: {}", self.0)
    }
}

impl std::error::Error for YamlError {}

/// `value` as a YAML document.
pub fn to_string<T: Serialize>(value: &T) -> Result<String, YamlError> {
    serde_saphyr::to_string(value).map_err(|e| YamlError(e.to_string()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn strings_that_look_like_other_types_stay_strings() {
        // A YAML 1.1 reader (NVUE's) would take these as numbers, booleans or null when left
        // bare (`1:30` is base-60 90 in YAML 1.1).
        let v: BTreeMap<&str, &str> = BTreeMap::from([
            ("a", "3"),
            ("b", "on"),
            ("c", "1.0"),
            ("d", "yes"),
            ("e", "1:30"),
            ("f", "null"),
            ("g", "~"),
        ]);
        let text = to_string(&v).unwrap();
        for line in text.lines() {
            let (_, value) = line.split_once(": ").unwrap();
            assert!(value.starts_with('"') || value.starts_with('\''), "{line}");
        }
    }

    #[test]
    fn a_failure_is_an_error_not_an_empty_document() {
        struct Fails;
        impl Serialize for Fails {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        let e = to_string(&Fails).unwrap_err();
        assert!(e.to_string().starts_with("cannot write YAML: "), "{e}");
    }
}
