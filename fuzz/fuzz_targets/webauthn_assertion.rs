#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_verify::webauthn::fuzz_check::webauthn_assertion(data) {
        panic!("{violation}");
    }
});
