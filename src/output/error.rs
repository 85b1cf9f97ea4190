//! Why an output file could not be produced: the file and the reason. Every producer of a
//! document (`artifacts`, `report`, `acceptance`) that can fail returns it instead of writing an
//! empty or partial file, and `railyard build` then writes nothing (the previous output
//! directory stays as it was).

use std::fmt::Display;

/// An output file that could not be produced, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The file, relative to the output directory (`report.html`, `hosts/nccl.env`, …).
    pub path: String,
    pub reason: String,
}

impl FileError {
    pub fn new(path: impl Into<String>, reason: impl Display) -> Self {
        Self {
            path: path.into(),
            reason: reason.to_string(),
        }
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write `{}`: {}", self.path, self.reason)
    }
}

impl std::error::Error for FileError {}

/// A failure of some writer (a template, a serializer, the zip container) as the
/// [`FileError`] of the file it was writing.
pub trait InFile<T> {
    fn in_file(self, path: &str) -> Result<T, FileError>;
}

impl<T, E: Display> InFile<T> for Result<T, E> {
    fn in_file(self, path: &str) -> Result<T, FileError> {
        self.map_err(|e| FileError::new(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_file_and_the_reason() {
        let e: Result<(), _> = Err("undefined value").in_file("report.html");
        assert_eq!(
            e.unwrap_err().to_string(),
            "cannot write `report.html`: undefined value"
        );
    }
}
