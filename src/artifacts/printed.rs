//! How values are printed in the documents: lengths, comment-safe text, generated YAML.

use crate::output::{FileError, InFile};

/// Metres as printed: `10`, `0.5`.
pub(crate) fn metres(m: f64) -> String {
    if (m - m.round()).abs() < 1e-9 {
        format!("{}", m.round() as i64)
    } else {
        format!("{m}")
    }
}

/// Text safe inside a `#` comment line (control characters, line breaks included, as spaces).
pub(crate) fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The generated document `path` as YAML, through the one YAML writer (Slurm, Kueue, netplan);
/// a failure is the file's error, never an empty file.
pub(crate) fn yaml<T: serde::Serialize>(path: &str, value: &T) -> Result<String, FileError> {
    crate::output::yaml::to_string(value).in_file(path)
}
