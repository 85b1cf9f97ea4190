//! Atomic, incremental output, into a directory that stays the user's wherever railyard did not
//! write (the rules: README, "Output directory"; what is at `-o`: `destination.rs`). The files
//! are written into a temporary directory beside the output directory (its stage). A new
//! output directory is the stage renamed; into an empty directory, or over a previous build,
//! the staged files move in as one transaction (`commit.rs`), with the previous build's files
//! this one no longer produces moved out. Only files the previous build's manifest lists are
//! ever replaced or removed: a user's file in the output directory stays where it is. Either
//! way a failed run leaves the previous outputs as they were.
//!
//! Nothing of the previous build is read back: a file is unchanged when the SHA-256 of its new
//! bytes (taken for the manifest anyway) equals the previous manifest's and the file still has
//! the stamp the memo recorded. Switch configs, label sheets and the workbook whose inputs did
//! not change are not even rendered: the writer is the build's [`railyard::output::Memo`]. Files are
//! written as they are rendered, by the rendering threads, and dropped once written: the output
//! is never all in memory at once. Each directory is created once. Every output path is joined
//! to a directory through [`railyard::output::path::join`]: a path that is not plain components
//! fails the build before anything is written.
//!
//! One subsystem of the command line, its parts each in a file: `destination.rs` (what `-o`
//! may be), `memo.rs` (the previous build's memo and manifest, never its outputs), `write.rs`
//! (staging, streaming and the atomic write), `commit.rs` (moving the staged files in).

mod commit;
mod destination;
mod memo;
mod write;

pub use write::{WriteStats, target, write_atomically, write_file_atomically, write_over};
