//! The switch configs, one test binary: addressing and intent, each OS's renderer, the pinned
//! configs (`tests/snapshots/`), and the configs read by their real consumers (FRR's parser,
//! SONiC's YANG, pyavd, NVUE's object model, yanglint on OpenConfig). Each module is one former
//! test file; its header says what it checks.

#[path = "../common/mod.rs"]
mod common;
#[path = "../prereq/mod.rs"]
mod prereq;
#[path = "../pyenv/mod.rs"]
mod pyenv;

mod config_snapshots;
mod configs;
mod eos_avd;
mod nvue_schema;
mod openconfig;
mod render_eos;
mod render_nvue;
mod render_sonic;
mod sonic_yang;
