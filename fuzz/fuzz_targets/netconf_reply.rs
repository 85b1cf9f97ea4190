#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| railyard_fuzz::netconf_reply::run(data));
