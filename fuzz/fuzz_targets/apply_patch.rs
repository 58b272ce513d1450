#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_parse::fuzz::apply_patch(data) {
        panic!("{violation}");
    }
});
