//! Standard output, where a command's answer goes (diagnostics, progress and "wrote N files" go
//! to standard error). `println!` panics when the reader has gone (`railyard explain | head`,
//! exit 101 with a panic message); here a closed pipe ends the process quietly with the status
//! a shell reports for a program stopped by SIGPIPE (128 + 13), as `cat` or `grep` would.
//! SIGPIPE itself stays ignored, as Rust sets it: push and the lab write to sockets and child
//! processes, where a vanished peer must be an error railyard handles, not a sudden death.

use std::io::Write as _;

/// 128 + SIGPIPE: what `sh` reports for a writer whose reader closed the pipe.
const CLOSED_PIPE: i32 = 141;

/// Write `args` to standard output; a closed pipe ends the process quietly.
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(CLOSED_PIPE);
        }
        eprintln!("error: writing to standard output: {e}");
        std::process::exit(2);
    }
}

/// `print!` to standard output, quiet on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::stdout::write(format_args!($($arg)*)) };
}

/// `println!` to standard output, quiet on a closed pipe.
macro_rules! outln {
    () => { $crate::cli::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
