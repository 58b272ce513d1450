#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_render::fuzz::decode_strict(data) {
        panic!("{violation}");
    }
});
