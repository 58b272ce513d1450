#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_record::fuzz::tlog_proof(data) {
        panic!("{violation}");
    }
});
