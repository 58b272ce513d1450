#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(violation) = seal_parse::shell::fuzz_check::shell_readable(data) {
        panic!("{violation}");
    }
});
