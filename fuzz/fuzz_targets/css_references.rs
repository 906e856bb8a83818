#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| edgesite_fuzz::css_references(data));
