#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| railyard_fuzz::lldp::run(data));
