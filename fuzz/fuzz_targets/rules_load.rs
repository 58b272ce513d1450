#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_policy::rules::fuzz_check::rules_load(data) {
        panic!("{violation}");
    }
});
