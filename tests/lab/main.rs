//! The virtual lab, one test binary: network namespaces running FRR with the rendered configs.
//! Needs root. Every test that boots a lab takes the same file lock (`railyard-lab-tests.lock`), so
//! one lab runs at a time, also against other test processes. Each module is one former test
//! file; its header says what it checks.

mod lab_support;
#[path = "../prereq/mod.rs"]
mod prereq;

mod acceptance_lab;
mod dayzero_lab;
mod impact_lab;
mod lab;
