//! Thin entry point: parse arguments, run the command, map the outcome to an exit code.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
