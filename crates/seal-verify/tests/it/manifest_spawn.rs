//! Manifest verification before spawn: the manifest recomputed from live state must hash to the
//! approved disclosure hash, and each kind of staleness has its own error.

use std::collections::{BTreeMap, HashMap};

use seal_record::{
    canonical_path, CanonicalPath, LineRange, Manifest, ManifestBuilder, ManifestLimits, PathError,
    Sha256Digest,
};
use seal_test_support::spellings::SRC_LIB_RS;
use seal_verify::{
    verify_before_spawn, FileDigests, LivePayload, LiveState, SpawnError, StaleItem,
};

const LIB: &[u8] = b"pub fn parse() {}\n";
const MAIN: &[u8] = b"fn main() {}\n";
const PAYLOAD: &[u8] = b"lines 1-1 of src/lib.rs and src/main.rs";
const POLICY: &[u8] = b"policy v3";
const MODEL: &str = "model-large-2";

fn range(text: &[u8]) -> [LineRange; 1] {
    [LineRange {
        start: 1,
        end: 1,
        sha256: Sha256Digest::of(text),
    }]
}

fn builder() -> ManifestBuilder {
    Manifest::builder()
        .run_id("run-42")
        .provider("example-provider")
        .model(MODEL)
        .purpose("review the parser change")
        .file("src/lib.rs", Sha256Digest::of(LIB), &range(LIB))
        .file("src/main.rs", Sha256Digest::of(MAIN), &range(MAIN))
        .redaction("api-key", 1)
        .external_tool("web-search")
        .estimated_tokens(900)
        .payload_sha256(Sha256Digest::of(PAYLOAD))
        .policy_sha256(Sha256Digest::of(POLICY))
}

fn manifest() -> Manifest {
    builder().build(&ManifestLimits::default()).unwrap()
}

/// The embedder's live files, keyed by whatever spelling it uses, canonicalized by the one
/// function the manifest builder uses.
fn files(entries: &[(&str, &[u8])]) -> BTreeMap<CanonicalPath, Sha256Digest> {
    entries
        .iter()
        .map(|(path, bytes)| (canonical_path(path).unwrap(), Sha256Digest::of(bytes)))
        .collect()
}

#[derive(Clone, Copy)]
struct Live<'a> {
    policy: &'a [u8],
    model: &'a str,
    payload: &'a [u8],
    lib: Option<&'a [u8]>,
    main: &'a [u8],
}

const LIVE: Live<'static> = Live {
    policy: POLICY,
    model: MODEL,
    payload: PAYLOAD,
    lib: Some(LIB),
    main: MAIN,
};

fn spawn(live: Live<'_>) -> Result<seal_verify::SpawnClearance, SpawnError> {
    let manifest = manifest();
    let mut entries: Vec<(&str, &[u8])> = vec![("./src//main.rs", live.main)];
    if let Some(lib) = live.lib {
        entries.push(("src/./lib.rs", lib));
    }
    let files = files(&entries);
    let state = LiveState {
        policy_sha256: Sha256Digest::of(live.policy),
        model: live.model,
        payload: LivePayload::Bytes(live.payload),
        files: &files,
    };
    verify_before_spawn(&manifest, &manifest.disclosure_hash(), &state)
}

fn kind(result: &Result<seal_verify::SpawnClearance, SpawnError>) -> String {
    match result {
        Ok(_) => "ok".to_owned(),
        Err(SpawnError::StalePolicy { .. }) => "stale_policy".to_owned(),
        Err(SpawnError::StaleModel { .. }) => "stale_model".to_owned(),
        Err(SpawnError::StaleManifest { item }) => match item {
            StaleItem::File { path } => format!("stale_file:{path}"),
            StaleItem::MissingFile { path } => format!("missing_file:{path}"),
            StaleItem::Payload => "stale_payload".to_owned(),
            other => format!("{other:?}"),
        },
        Err(other) => format!("{other:?}"),
    }
}

#[test]
fn unchanged_live_state_clears_with_the_approved_hash() {
    let clearance = spawn(LIVE).unwrap();
    assert_eq!(clearance.disclosure_hash(), manifest().disclosure_hash());
    assert_eq!(clearance.approval_id(), None);
}

#[test]
fn each_stale_error_is_triggered_by_exactly_the_change_it_names() {
    let cases: [(&str, Live<'_>); 6] = [
        (
            "stale_policy",
            Live {
                policy: b"policy v4",
                ..LIVE
            },
        ),
        (
            "stale_model",
            Live {
                model: "model-large-3",
                ..LIVE
            },
        ),
        (
            "stale_payload",
            Live {
                payload: b"lines 1-2 of src/lib.rs and src/main.rs",
                ..LIVE
            },
        ),
        (
            "stale_file:src/lib.rs",
            Live {
                lib: Some(b"pub fn parse() {}\n\n"),
                ..LIVE
            },
        ),
        (
            "stale_file:src/main.rs",
            Live {
                main: b"fn main() { }\n",
                ..LIVE
            },
        ),
        ("missing_file:src/lib.rs", Live { lib: None, ..LIVE }),
    ];
    for (expected, live) in cases {
        assert_eq!(kind(&spawn(live)), expected);
    }
    assert_eq!(kind(&spawn(LIVE)), "ok");
}

/// Spawns the approved manifest with the approved policy, model and payload, and `files`.
fn spawn_with_files(files: &dyn FileDigests) -> Result<seal_verify::SpawnClearance, SpawnError> {
    let manifest = manifest();
    let state = LiveState {
        policy_sha256: Sha256Digest::of(POLICY),
        model: MODEL,
        payload: LivePayload::Bytes(PAYLOAD),
        files,
    };
    verify_before_spawn(&manifest, &manifest.disclosure_hash(), &state)
}

#[test]
fn every_provided_file_source_clears_unchanged_files_and_refuses_changed_or_missing_ones() {
    let changed: &[u8] = b"pub fn parse() { loop {} }\n";
    let cases: [(&str, Option<&[u8]>); 3] = [
        ("ok", Some(LIB)),
        ("stale_file:src/lib.rs", Some(changed)),
        ("missing_file:src/lib.rs", None),
    ];
    for (expected, lib) in cases {
        let mut entries: Vec<(&str, &[u8])> = vec![("src/main.rs", MAIN)];
        if let Some(lib) = lib {
            entries.push(("src/lib.rs", lib));
        }
        let ordered = files(&entries);
        let hashed: HashMap<CanonicalPath, Sha256Digest> = ordered.clone().into_iter().collect();
        let looked_up = |path: &CanonicalPath| ordered.get(path).copied();
        assert_eq!(kind(&spawn_with_files(&ordered)), expected, "BTreeMap");
        assert_eq!(kind(&spawn_with_files(&hashed)), expected, "HashMap");
        assert_eq!(kind(&spawn_with_files(&looked_up)), expected, "closure");
    }
}

#[test]
fn one_byte_changed_in_a_file_or_the_payload_is_stale() {
    for at in 0..LIB.len() {
        let mut lib = LIB.to_vec();
        lib[at] ^= 0x01;
        assert_eq!(
            kind(&spawn(Live {
                lib: Some(&lib),
                ..LIVE
            })),
            "stale_file:src/lib.rs"
        );
    }
    for at in 0..PAYLOAD.len() {
        let mut payload = PAYLOAD.to_vec();
        payload[at] ^= 0x80;
        assert_eq!(
            kind(&spawn(Live {
                payload: &payload,
                ..LIVE
            })),
            "stale_payload"
        );
    }
    // The payload may be given as a digest.
    let manifest = manifest();
    let files = files(&[("src/lib.rs", LIB), ("src/main.rs", MAIN)]);
    let state = LiveState {
        policy_sha256: Sha256Digest::of(POLICY),
        model: MODEL,
        payload: LivePayload::Digest(Sha256Digest::of(PAYLOAD)),
        files: &files,
    };
    assert!(verify_before_spawn(&manifest, &manifest.disclosure_hash(), &state).is_ok());
}

#[test]
fn any_field_change_changes_the_disclosure_hash() {
    let limits = ManifestLimits::default();
    let base = manifest().disclosure_hash();
    let variants: Vec<(&str, ManifestBuilder)> = vec![
        ("run_id", builder().run_id("run-43")),
        ("provider", builder().provider("example-providex")),
        ("model", builder().model("model-large-3")),
        ("purpose", builder().purpose("review the parser changf")),
        (
            "file digest",
            builder().file("src/extra.rs", Sha256Digest::of(b"x"), &range(b"x")),
        ),
        ("redaction", builder().redaction("password", 1)),
        ("tool", builder().external_tool("web-fetch")),
        ("tokens", builder().estimated_tokens(901)),
        (
            "payload",
            builder().payload_sha256(Sha256Digest::of(b"lines 1-1 of src/lib.rs and src/main.rt")),
        ),
        (
            "policy",
            builder().policy_sha256(Sha256Digest::of(b"policy v4")),
        ),
    ];
    let mut hashes = vec![base];
    for (name, variant) in variants {
        let hash = variant.build(&limits).unwrap().disclosure_hash();
        assert!(!hashes.contains(&hash), "{name}");
        hashes.push(hash);
    }
    // One byte of a range digest and one byte of a file digest.
    let mut lib = LIB.to_vec();
    lib[0] ^= 1;
    let changed = Manifest::builder()
        .run_id("run-42")
        .provider("example-provider")
        .model(MODEL)
        .purpose("review the parser change")
        .file("src/lib.rs", Sha256Digest::of(&lib), &range(LIB))
        .file("src/main.rs", Sha256Digest::of(MAIN), &range(MAIN))
        .redaction("api-key", 1)
        .external_tool("web-search")
        .estimated_tokens(900)
        .payload_sha256(Sha256Digest::of(PAYLOAD))
        .policy_sha256(Sha256Digest::of(POLICY))
        .build(&limits)
        .unwrap();
    assert_ne!(changed.disclosure_hash(), base);
    let changed_range = Manifest::builder()
        .run_id("run-42")
        .provider("example-provider")
        .model(MODEL)
        .purpose("review the parser change")
        .file("src/lib.rs", Sha256Digest::of(LIB), &range(&lib))
        .file("src/main.rs", Sha256Digest::of(MAIN), &range(MAIN))
        .redaction("api-key", 1)
        .external_tool("web-search")
        .estimated_tokens(900)
        .payload_sha256(Sha256Digest::of(PAYLOAD))
        .policy_sha256(Sha256Digest::of(POLICY))
        .build(&limits)
        .unwrap();
    assert_ne!(changed_range.disclosure_hash(), base);
    assert_ne!(changed_range.disclosure_hash(), changed.disclosure_hash());
    assert_eq!(
        builder().build(&limits).unwrap().disclosure_hash(),
        base,
        "rebuilding the same fields gives the same hash"
    );
}

#[test]
fn a_manifest_other_than_the_approved_one_does_not_spawn() {
    let manifest = manifest();
    let other = builder()
        .purpose("something else")
        .build(&ManifestLimits::default())
        .unwrap();
    let files = files(&[("src/lib.rs", LIB), ("src/main.rs", MAIN)]);
    let state = LiveState {
        policy_sha256: Sha256Digest::of(POLICY),
        model: MODEL,
        payload: LivePayload::Bytes(PAYLOAD),
        files: &files,
    };
    let error = verify_before_spawn(&other, &manifest.disclosure_hash(), &state).unwrap_err();
    assert!(matches!(error, SpawnError::NotApproved { .. }), "{error}");
}

#[test]
fn paths_that_spell_one_place_differently_are_one_place() {
    for spelling in SRC_LIB_RS {
        let live = files(&[(spelling, LIB), ("src/main.rs", MAIN)]);
        let manifest = manifest();
        let state = LiveState {
            policy_sha256: Sha256Digest::of(POLICY),
            model: MODEL,
            payload: LivePayload::Bytes(PAYLOAD),
            files: &live,
        };
        assert!(
            verify_before_spawn(&manifest, &manifest.disclosure_hash(), &state).is_ok(),
            "{spelling}"
        );
        // And the manifest built from that spelling is the same manifest.
        let built = Manifest::builder()
            .run_id("run-42")
            .provider("example-provider")
            .model(MODEL)
            .purpose("review the parser change")
            .file(spelling, Sha256Digest::of(LIB), &range(LIB))
            .file("src/main.rs", Sha256Digest::of(MAIN), &range(MAIN))
            .redaction("api-key", 1)
            .external_tool("web-search")
            .estimated_tokens(900)
            .payload_sha256(Sha256Digest::of(PAYLOAD))
            .policy_sha256(Sha256Digest::of(POLICY))
            .build(&ManifestLimits::default())
            .unwrap();
        assert_eq!(
            built.disclosure_hash(),
            manifest.disclosure_hash(),
            "{spelling}"
        );
    }
}

#[test]
fn dot_dot_escaping_the_root_and_backslashes_are_rejected() {
    assert!(matches!(
        canonical_path("../secret"),
        Err(PathError::EscapesRoot { .. })
    ));
    assert!(matches!(
        canonical_path("src/../../secret"),
        Err(PathError::EscapesRoot { .. })
    ));
    assert!(matches!(
        canonical_path("src\\lib.rs"),
        Err(PathError::Backslash { .. })
    ));
    assert!(matches!(
        canonical_path("/etc/passwd"),
        Err(PathError::Absolute { .. })
    ));
    assert!(builder()
        .file("../secret", Sha256Digest::of(b""), &range(b""))
        .build(&ManifestLimits::default())
        .is_err());
}

#[test]
fn a_closure_can_supply_live_file_digests() {
    let manifest = manifest();
    let digests = |path: &CanonicalPath| match path.as_str() {
        "src/lib.rs" => Some(Sha256Digest::of(LIB)),
        "src/main.rs" => Some(Sha256Digest::of(MAIN)),
        _ => None,
    };
    let state = LiveState {
        policy_sha256: Sha256Digest::of(POLICY),
        model: MODEL,
        payload: LivePayload::Bytes(PAYLOAD),
        files: &digests,
    };
    assert!(verify_before_spawn(&manifest, &manifest.disclosure_hash(), &state).is_ok());
}
