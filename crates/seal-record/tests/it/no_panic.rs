//! I13 for this crate: no panic on any input, and large inputs take linear time (checked by
//! size, never by the clock).

use proptest::prelude::*;
use seal_parse::json::JsonLimits;
use seal_record::{
    canonical_path, unpae, verify_log, ApprovalAsked, FrameSigningInput, LogEntry, Manifest,
    ManifestLimits, SealedCall, Sha256Digest,
};

const VALID: &str = r#"{"_type":"seal/manifest/v1","estimated_tokens":1,"external_tools":["t"],"files":[{"path":"a/b","ranges":[{"end":2,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","start":1}],"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}],"model":"m","payload_sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","policy_sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","provider":"p","purpose":"x","redactions":[{"count":1,"type":"k"}],"run_id":"r","version":1}"#;

#[test]
fn the_seed_manifest_is_valid() {
    Manifest::from_json(VALID.as_bytes(), &ManifestLimits::default()).unwrap();
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn manifest_reader_never_panics_on_mutations(at in 0..VALID.len(), byte in any::<u8>(), cut in 0..VALID.len()) {
        let mut bytes = VALID.as_bytes().to_vec();
        bytes[at] = byte;
        let _ = Manifest::from_json(&bytes, &ManifestLimits::default());
        let _ = Manifest::from_json(&bytes[..cut], &ManifestLimits::default());
    }

    #[test]
    fn manifest_reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Manifest::from_json(&bytes, &ManifestLimits::default());
    }

    #[test]
    fn unpae_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..100)) {
        let _ = unpae(&bytes);
    }

    #[test]
    fn canonical_path_never_panics(path in any::<String>(), raw in "[./a\\\\]{0,20}") {
        let _ = canonical_path(&path);
        let _ = canonical_path(&raw);
    }

    #[test]
    fn log_verifier_never_panics(
        entries in prop::collection::vec(
            (any::<u64>(), any::<[u8; 32]>(), prop::collection::vec(any::<u8>(), 0..40), any::<[u8; 32]>()),
            0..5,
        ),
    ) {
        let entries: Vec<LogEntry> = entries
            .into_iter()
            .map(|(sequence, prev, record, hash)| LogEntry {
                sequence,
                prev_hash: Sha256Digest::from_bytes(prev),
                record,
                hash: Sha256Digest::from_bytes(hash),
            })
            .collect();
        let _ = verify_log(&entries);
    }

    #[test]
    fn records_never_panic(id in any::<String>(), tool in any::<String>(), reason in any::<String>(), args in any::<Vec<u8>>()) {
        let _ = ApprovalAsked::new(&id, &tool, Some(&id), Some(&reason));
        let _ = SealedCall::from_json_arguments(&id, &tool, &args, &JsonLimits::default());
    }
}

#[test]
fn many_attributes_and_large_bodies_are_handled() {
    let names: Vec<String> = (0..20_000).map(|i| format!("a{i}")).collect();
    let attributes: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "v")).collect();
    let body = vec![b'x'; 1 << 20];
    let input = FrameSigningInput::new("k", "a", 22, "channel", &attributes, &body).unwrap();
    assert!(input.bytes().len() < 2_000_000);
}

#[test]
fn a_large_manifest_is_handled() {
    let mut builder = Manifest::builder()
        .run_id("r")
        .provider("p")
        .model("m")
        .purpose("x")
        .estimated_tokens(1)
        .payload_sha256(Sha256Digest::of(b""))
        .policy_sha256(Sha256Digest::of(b""));
    for i in 0..10_000 {
        builder = builder.file(
            &format!("dir{}/file{i}.rs", i % 97),
            Sha256Digest::of(b""),
            &[seal_record::LineRange {
                start: 1,
                end: 2,
                sha256: Sha256Digest::of(b""),
            }],
        );
    }
    let manifest = builder.build(&ManifestLimits::default()).unwrap();
    let bytes = manifest.canonical_bytes();
    let back = Manifest::from_json(&bytes, &ManifestLimits::default()).unwrap();
    assert_eq!(back, manifest);
}
