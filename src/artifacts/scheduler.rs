//! Placeholder: scheduler topology (Slurm topology.conf/yaml, Kueue) lands in its own commit.

use super::{Inputs, OutputFile};

pub fn files(_inputs: &Inputs<'_>) -> Vec<OutputFile> {
    Vec::new()
}
