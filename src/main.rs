//! Thin entry point: parse arguments, run the command, map the outcome to an exit code.

mod cli;

/// mimalloc instead of glibc's allocator: rendering a large fabric is mostly small strings made
/// and dropped on both cores at once, and glibc's malloc/free were a third of the profile of a
/// 16k-GPU build (arena contention and consolidation).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the 16th entry of `mi_option_e` in mimalloc.h, v2 and
/// v3; the Rust binding has no constant for it). The `purge_delay_index` test pins it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keep freed memory, in ordinary pages (mimalloc is built with `no_thp`, Cargo.toml, so it does
/// not ask for transparent huge pages). A build frees and reallocates hundreds of megabytes
/// in waves (a device's config, a label sheet): with mimalloc's default purge delay (1 s in v3,
/// 10 ms in v2) each wave faults its pages in again, zeroed by the kernel, and with transparent huge pages every
/// fault zeroes (or first compacts) 2 MiB: validating a 131k-GPU fabric took 1.3 s of user time
/// and 0.4-1.6 s of system time, half of the profile the kernel's `clear_page`; with both
/// choices the system time is a steady 0.3 s (ordinary page faults). A command runs once and
/// exits, so keeping the peak is free.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    // SAFETY: sets a process-wide integer option; mimalloc reads it on every purge decision.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

fn main() -> std::process::ExitCode {
    keep_freed_memory();
    cli::run()
}

#[cfg(test)]
mod tests {
    #[test]
    #[allow(unsafe_code)]
    fn purge_delay_index() {
        // purge_delay defaults to 1000 ms in mimalloc v3 (src/options.c), 10 ms in v2; the
        // options beside it default to 0 and 0.
        // SAFETY: reads a process-wide integer option.
        let v = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert!(
            [10, 1000, -1].contains(&v),
            "option 15 is not purge_delay: {v}"
        );
    }
}
