#![no_main]

/// `shlex` stands for the shell here (a process per input would slow the fuzzer a
/// thousandfold); the corpus replay in `tests/pipeline/fuzz_corpora.rs` reads with the real `sh`.
fn read_shell(text: &str) -> Option<Vec<String>> {
    shlex::split(text)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| railyard_fuzz::sinks::run_with(data, &read_shell));
