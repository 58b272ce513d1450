#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_policy::destructive::fuzz_check::destructive_guard(data) {
        panic!("{violation}");
    }
});
