//! The hand-off after the compiler: one [`Design`] holding what every stage produced for a spec
//! that compiled without errors. Every consumer (artifacts, report, labplan, export, impact,
//! acceptance, and the edges) reads `&Design`; none re-packs a subset of it or runs a stage again.
//! `compile` (in `lib.rs`) returns it beside the diagnostics, or none when any stage had an
//! error, so "compiled" has one test: whether there is a `Design`.

use crate::addressing::Allocation;
use crate::intent::Intents;
use crate::physical::PhysicalPlan;
use crate::spec::ClusterSpec;
use crate::topology::{Fabric, SchedulerTree};

/// Every stage's result for one spec.
pub struct Design {
    /// The parsed spec: later stages read its global knobs (QoS values, label keys, report size).
    pub spec: ClusterSpec,
    pub fabric: Fabric,
    /// Every link solved into parts (modules, cables, fibres), keyed by the fabric's link ids.
    pub physical: PhysicalPlan,
    pub allocation: Allocation,
    /// Per-switch and per-host intent, with the tenant plan.
    pub intents: Intents,
    /// The compute fabric as the scheduler sees it: its blocks are the ones Slurm, Kueue and the
    /// failure-impact analysis name.
    pub scheduler: SchedulerTree,
}
