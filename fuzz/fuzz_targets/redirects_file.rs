#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| edgesite_fuzz::redirects_file(data));
