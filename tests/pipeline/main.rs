//! The compiler as a whole, one test binary: the spec and its diagnostics, the stages' figures
//! against the reference architectures (fabric, access networks, physical layer, tenancy),
//! generated and hostile specs, the fuzz corpora, the command line and its output directory, the
//! README and examples, and the architecture's invariants. Each module is one former test file;
//! its header says what it checks.

#[path = "../common/mod.rs"]
mod common;
/// The fuzz targets' entry logic (`fuzz/src/`), included once for the modules that replay or
/// reuse it (`fuzz_corpora`, `hostile`, `spec_generator`).
#[path = "../../fuzz/src/lib.rs"]
mod entry;

mod access;
mod architecture;
mod cli;
mod conventions;
mod dayzero_dhcp;
mod dayzero_identities;
mod dayzero_order;
mod dayzero_ztp;
mod diagnostics;
mod diff_pairs;
mod examples;
mod facts;
mod fuzz_corpora;
mod harness_rows;
mod hostile;
mod hostile_bounds;
mod hostile_templates;
mod machine_output;
mod output_dir;
mod physical;
mod physical_catalog;
#[path = "../prereq/mod.rs"]
mod prereq;
mod properties;
#[path = "../pyenv/mod.rs"]
mod pyenv;
mod rack_scale;
mod readme;
mod sink_escapes;
mod spec_generator;
mod spec_reference;
mod tenancy;
mod warning_levels;
mod yaml_mistakes;
