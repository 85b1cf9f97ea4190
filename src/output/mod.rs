//! Outputs, as every producer and every consumer of them sees them: the file and the sink it is
//! handed to, the group it belongs to (`build --only`), the manifest that lists every file of a
//! build (written and read by one type), the rebuild memo a producer consults, and the one
//! writer or escape function of each format railyard emits in several places (YAML, XML/HTML
//! text, POSIX shell words, CSV cells, ZPL field data, terminal text, template values of
//! line-oriented files, GitHub workflow commands, URI references),
//! the one join of a relative output path to a directory (`path`), the declaration of the
//! secrets push may fill (`secrets`), plus the natural order of names and lowercase hex digests.
//!
//! A foundation: it knows no stage, and every stage and edge may use it. It does no I/O but
//! reading files railyard is given: the one bounded read (`bounded`) and the one reader of a
//! build directory (`build_dir`), shared by the command line and push; writing an output
//! directory is the command line's (`src/cli/outdir/`).

pub mod bounded;
pub mod build_dir;
pub mod csv;
pub mod digest;
mod error;
mod file;
mod group;
pub mod line;
pub mod manifest;
pub mod markdown;
pub mod markup;
mod memo;
pub mod natural;
pub mod path;
pub mod secrets;
pub mod shell;
pub mod terminal;
pub mod uri;
pub mod workflow;
pub mod yaml;
pub mod zpl;

pub use error::{FileError, InFile};
pub use file::{OutputFile, Sink};
pub use group::{OutputGroup, Selection};
pub use manifest::{Collector, Manifest, ManifestEntry};
pub use memo::{Memo, NoMemo, unit_digest};
