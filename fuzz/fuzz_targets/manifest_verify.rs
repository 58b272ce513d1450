#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_verify::fuzz::manifest_verification(data) {
        panic!("{violation}");
    }
});
