//! Replays every committed fuzz corpus through the same entry points the fuzz targets call, so
//! the properties the fuzzers checked keep holding on stable in every test run.

use std::fs;
use std::path::Path;

type Check = fn(&[u8]) -> Result<(), String>;

const TARGETS: &[(&str, Check)] = &[
    ("frame_scan", seal_parse::fuzz::scan_frames),
    ("json_canonical", seal_parse::fuzz::canonical_json),
    ("json_lossless", seal_parse::fuzz::lossless_json),
    ("apply_patch", seal_parse::fuzz::apply_patch),
    ("escape_decode", seal_render::fuzz::decode_strict),
    ("render_roundtrip", seal_render::fuzz::render_then_decode),
    ("frame_render", seal_render::fuzz::frame_render),
    ("card_render", seal_render::fuzz::card_render),
    (
        "shell_segments",
        seal_parse::shell::fuzz_check::shell_segments,
    ),
    (
        "shell_readable",
        seal_parse::shell::fuzz_check::shell_readable,
    ),
    ("manifest_json", seal_record::fuzz::manifest_json),
    ("tlog_text", seal_record::fuzz::tlog_text),
    ("tlog_proof", seal_record::fuzz::tlog_proof),
    ("log_record", seal_record::fuzz::log_record),
    ("store_document", seal_verify::fuzz::store_document),
    ("store_envelope", seal_verify::fuzz::store_envelope),
    ("frame_verify", seal_verify::fuzz::frame_verification),
    ("manifest_verify", seal_verify::fuzz::manifest_verification),
    (
        "webauthn_registration",
        seal_verify::webauthn::fuzz_check::webauthn_registration,
    ),
    (
        "webauthn_assertion",
        seal_verify::webauthn::fuzz_check::webauthn_assertion,
    ),
    (
        "webauthn_registry",
        seal_verify::webauthn::fuzz_check::webauthn_registry,
    ),
    ("rules_load", seal_policy::rules::fuzz_check::rules_load),
    (
        "destructive_guard",
        seal_policy::destructive::fuzz_check::destructive_guard,
    ),
];

#[test]
fn every_corpus_input_satisfies_its_target_property() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for &(target, check) in TARGETS {
        let dir = root.join(target);
        let mut count = 0;
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let data = fs::read(&path).unwrap();
            if let Err(violation) = check(&data) {
                panic!("{target}: {}: {violation}", path.display());
            }
            count += 1;
        }
        assert!(count >= 5, "{target}: corpus has only {count} inputs");
    }
}
