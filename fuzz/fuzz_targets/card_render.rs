#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_render::fuzz::card_render(data) {
        panic!("{violation}");
    }
});
