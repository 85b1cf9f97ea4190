//! The options every command takes (`--quiet`, `--color`, the warning levels `--strict`,
//! `--deny`, `--allow`, `--baseline`, `--write-baseline` (`levels`), `--example`), set once from
//! the command line before the command runs.

use std::path::PathBuf;
use std::sync::OnceLock;

use clap::{Args, ValueEnum};

#[derive(Args, Clone, Debug, Default)]
pub struct GlobalArgs {
    /// Print only errors and what the command was asked for: no progress, no "wrote N files",
    /// no warnings.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Colour in diagnostics: `auto` (on a terminal, unless NO_COLOR is set), `always`, `never`.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "auto",
        value_name = "WHEN"
    )]
    pub color: ColorChoice,
    /// Warnings fail the command (exit 1), as errors do: for CI. Advisory findings (`info`, such
    /// as spare ports) do not. A spec accepts a known warning with
    /// `diagnostics: {allow: [RY0902]}`.
    #[arg(long, global = true)]
    pub strict: bool,
    /// Findings of this code fail the command, as errors do (repeatable).
    #[arg(long, global = true, value_name = "CODE")]
    pub deny: Vec<String>,
    /// Accept findings of this code: counted, not listed (repeatable; an error stays one).
    #[arg(long, global = true, value_name = "CODE")]
    pub allow: Vec<String>,
    /// Accept the findings whose fingerprints this file lists (`--write-baseline` writes it):
    /// known warnings pass, new ones are judged by the other levels (docs/ci.md).
    #[arg(long, global = true, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every warning and info finding of the spec into FILE as accepted (entries of other
    /// specs already in FILE are kept), and accept them in this run.
    #[arg(long, global = true, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Use a built-in example spec instead of a file (`railyard catalog` lists them).
    #[arg(long, global = true, value_name = "NAME", value_parser = example_names())]
    pub example: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

fn example_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(railyard::EXAMPLES.iter().map(|(name, _)| *name))
}

static GLOBALS: OnceLock<GlobalArgs> = OnceLock::new();

/// Record the command line's global options (once, before the command runs).
pub fn set(args: GlobalArgs) {
    let _ = GLOBALS.set(args);
}

/// The global options (defaults when none were set, as in unit tests).
pub fn get() -> &'static GlobalArgs {
    GLOBALS.get_or_init(GlobalArgs::default)
}

/// Whether diagnostics on standard error are coloured.
pub fn colour_on_stderr() -> bool {
    match get().color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none()
        }
    }
}
