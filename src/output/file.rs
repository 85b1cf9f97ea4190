//! One output file and the sink producers hand files to.

use super::OutputGroup;

/// One output file, relative to the output directory, with the group it belongs to (`None`:
/// the manifest, which every build writes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub group: Option<OutputGroup>,
}

impl OutputFile {
    pub fn new(group: OutputGroup, path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            bytes: bytes.into(),
            group: Some(group),
        }
    }
}

/// Where rendered files go, as they are produced (from several threads, in no particular
/// order): collected in memory ([`super::Collector`]) or written at once (`railyard build`),
/// so the largest outputs never need to be held all together.
pub type Sink<'a> = dyn Fn(OutputFile) + Sync + 'a;
