//! What a shell and `man` need, generated from the command line's own definition by clap's
//! generators, so they never disagree with `--help`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::CommandFactory as _;

use super::Cli;
use super::stdout::out;

/// `railyard completions SHELL`: the completion script on standard output.
pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "railyard", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    ExitCode::SUCCESS
}

/// `railyard man [--dir DIR]`: railyard(1) on standard output, or a page per command
/// (`railyard.1`, `railyard-build.1`, …) written into DIR.
pub fn man(dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cmd = Cli::command();
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating `{}`", dir.display()))?;
            clap_mangen::generate_to(cmd, dir)
                .with_context(|| format!("writing the manual pages into `{}`", dir.display()))?;
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            out!("{}", String::from_utf8_lossy(&page));
        }
    }
    Ok(ExitCode::SUCCESS)
}
