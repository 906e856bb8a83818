#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| edgesite_fuzz::html_references(data));
