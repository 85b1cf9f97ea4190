//! YAML for the rendered files (NVUE `startup.yaml`, the `intent/<device>.yaml` dumps), written
//! from inside `render` so that this stage depends on `intent` alone.
//!
//! A value the writer cannot express is a `RenderError` naming the file: an empty or truncated
//! file must never reach a switch.

use serde::Serialize;

use super::RenderError;

/// `value` as a YAML document. `device` and `file` name what was being written, for the error.
pub(crate) fn to_string<T: Serialize>(
    device: &str,
    file: &str,
    value: &T,
) -> Result<String, RenderError> {
    serde_saphyr::to_string(value).map_err(|e| RenderError {
        device: device.to_string(),
        template: file.to_string(),
        message: format!("cannot write YAML: {e}"),
    })
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
        let text = to_string("dev", "f.yaml", &v).unwrap();
        for line in text.lines() {
            let (_, value) = line.split_once(": ").unwrap();
            assert!(value.starts_with('"') || value.starts_with('\''), "{line}");
        }
    }

    #[test]
    fn a_failure_is_an_error_not_an_empty_file() {
        struct Fails;
        impl Serialize for Fails {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        let e = to_string("leaf1", "startup.yaml", &Fails).unwrap_err();
        assert_eq!(e.device, "leaf1");
        assert_eq!(e.template, "startup.yaml");
    }
}
