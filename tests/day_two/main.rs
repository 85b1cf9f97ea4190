//! Day two, one test binary: `railyard diff`, `impact`, `acceptance` and `cabling verify` (real lldpd).
//! Each module is one former test file; its header says what it checks.

#[path = "../common/mod.rs"]
mod common;
#[path = "../prereq/mod.rs"]
mod prereq;

mod acceptance;
mod acceptance_rack;
mod acceptance_runners;
mod acceptance_trust;
mod cabling_verify;
mod cabling_verify_hosts;
mod ci_gate;
mod diff;
mod diff_markdown;
mod diff_nothing;
mod diff_railyards;
mod diff_tenants;
mod diff_truth;
mod diff_work_order;
mod impact;
