//! Progress of long runs on a terminal: a spinner naming the stage, then a bar while files are
//! written. indicatif draws nothing when stderr is not a terminal, so logs and CI stay clean.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new() -> Self {
        let target = if super::globals::get().quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Self { bar }
    }

    /// Name the stage now running.
    pub fn stage(&self, msg: &str) {
        self.bar.set_message(msg.to_string());
    }

    /// Switch to a bar over `n` files being written.
    pub fn writing(&self, n: usize) {
        self.bar.set_length(n as u64);
        self.bar.set_position(0);
        self.bar.set_style(
            ProgressStyle::with_template("{msg} {wide_bar} {pos}/{len} files [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        self.bar.set_message("writing");
    }

    /// Count files as they are written, their number not known in advance.
    pub fn streaming(&self, msg: &str) {
        self.bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}: {pos} files [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        self.bar.set_message(msg.to_string());
    }

    pub fn file_written(&self) {
        self.bar.inc(1);
    }

    /// Remove the progress line (before the final message or diagnostics are printed).
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}
