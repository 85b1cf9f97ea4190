//! The deliverables besides the configs, one test binary: the report, labels, every manifest file
//! read by a reader of its type, the host files (and NCCL's bootstrap on the kernel), the scheduler
//! topology (real slurmctld), the exports and the InfiniBand partitions (real OpenSM). Each module
//! is one former test file; its header says what it checks.

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../common/mod.rs"]
mod common;
#[path = "../prereq/mod.rs"]
mod prereq;
#[path = "../pyenv/mod.rs"]
mod pyenv;

mod deliverables;
mod exports;
mod hosts;
mod hosts_rack;
mod installer_sheets;
mod labels;
mod nccl_bootstrap;
mod partitions_opensm;
mod portmaps;
mod report;
mod report_view;
mod scheduler;
mod scheduler_blocks;
mod slurm_block_parser;
