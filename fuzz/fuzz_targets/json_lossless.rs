#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_parse::fuzz::lossless_json(data) {
        panic!("{violation}");
    }
});
