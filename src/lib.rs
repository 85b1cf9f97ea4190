//! railyard: one declarative GPU-cluster spec in; every network artifact of that cluster out.
//!
//! The pipeline is a chain of pure stages (see `ARCHITECTURE.md`):
//! [`spec`] (YAML → typed spec) → [`topology`] (graph of devices, ports, cables) →
//! [`artifacts`] (cabling plan, port maps, BOM, plan, summary). Every stage reports problems into
//! [`diag::Diagnostics`] and keeps going, so a user sees every problem of a stage at once.

pub mod artifacts;
pub mod catalog;
pub mod diag;
pub mod model;
pub mod spec;
pub mod topology;

use diag::{Diagnostics, SourceFile};

/// The result of compiling a spec: the fabric when every stage succeeded, and all diagnostics.
pub struct Compiled {
    pub fabric: Option<topology::Fabric>,
    pub diagnostics: Diagnostics,
}

/// Run the pure stages on one spec file: parse, expand, check.
pub fn compile(src: &SourceFile) -> Compiled {
    let mut diagnostics = Diagnostics::default();
    let fabric = spec::parse(src, &mut diagnostics)
        .and_then(|s| topology::build(&s, catalog::builtin(), &mut diagnostics));
    let fabric = if diagnostics.has_errors() {
        None
    } else {
        fabric
    };
    Compiled {
        fabric,
        diagnostics,
    }
}

/// The built-in example cluster (`inventories/lab-small.yaml`), used when no spec is given.
pub const LAB_SMALL: &str = include_str!("../inventories/lab-small.yaml");
