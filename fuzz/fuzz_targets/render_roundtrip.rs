#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_render::fuzz::render_then_decode(data) {
        panic!("{violation}");
    }
});
