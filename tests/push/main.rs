//! `railyard push` and `railyard audit`, one test binary, against real targets (netconfd behind
//! OpenSSH, FRR 8.4, the command drivers' stand-ins) started by `push_support`. Needs root
//! (`tests/prereq` otherwise). Each module is one former test file; its header says what it checks.

mod push_support;

mod audit;
mod push_cli;
mod push_contract;
mod push_fanout;
mod push_frr;
mod push_hostile;
mod push_netconf;
mod push_plan;
mod push_rendered;
mod push_resume;
mod push_secrets;
mod push_targets_trust;
