//! Thin entry point: parse arguments, run the command, map the outcome to an exit code.

mod cli;

/// mimalloc instead of glibc's allocator: rendering a large fabric is mostly small strings made
/// and dropped on both cores at once, and glibc's malloc/free were a third of the profile of a
/// 16k-GPU build (arena contention and consolidation).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
