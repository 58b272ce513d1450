//! Trust store: strict documents, resolution rules, thresholds, rotation and rollback, binding
//! of HMAC secrets.

use seal_verify::base64url;
use seal_verify::store::{
    accept_initial, count_signers, rotate, verify_signature, verify_signature_in_conversation,
    BindError, DocumentErrorKind, IntendedUse, KeySource, MatchedScope, MemoryTrustStore, Purpose,
    ResolveError, RotationError, SignedStoreDocument, StoreDocument, StoreLimits, StoreOperation,
    StoreSignature, TrustedDocument, VerifyFailure,
};
use seal_verify::{
    CompensatingControls, Ed25519SigningKey, HmacKey, HmacSecret, SignatureError, TagLength,
    TagLengthError, UnixTime,
};
use serde_json::{json, Value};

const NOW: UnixTime = UnixTime(1_800_000_000);
const HMAC_SECRET: [u8; 32] = [9; 32];

fn signer(n: u8) -> Ed25519SigningKey {
    Ed25519SigningKey::from_seed(&[n; 32]).unwrap()
}

fn ed_key(id: &str, n: u8, store_update: bool) -> Value {
    json!({
        "id": id,
        "algorithm": "ed25519",
        "public_key": base64url::encode(signer(n).public_key().as_bytes()),
        "not_before": 1_700_000_000u64,
        "not_after": 1_900_000_000u64,
        "status": "active",
        "scopes": {"frames": [], "manifest_approval": !store_update, "store_update": store_update},
    })
}

fn hmac_key_json(id: &str, tag_chars: u64) -> Value {
    let fingerprint = HmacSecret::from_bytes(&HMAC_SECRET).unwrap().fingerprint();
    json!({
        "id": id,
        "algorithm": "hmac-sha256",
        "secret_sha256": base64url::encode(fingerprint.as_bytes()),
        "tag_chars": tag_chars,
        "not_before": 1_700_000_000u64,
        "not_after": 1_900_000_000u64,
        "status": "active",
        "scopes": {
            "frames": [{"element": "channel", "attributes": {"source": ["telegram", "slack"]}}],
            "manifest_approval": false,
            "store_update": false,
        },
    })
}

fn document(version: u64, threshold: u64, keys: Vec<Value>) -> Value {
    json!({
        "type": "seal/trust-store/v1",
        "version": version,
        "expires": 1_850_000_000u64,
        "threshold": threshold,
        "keys": keys,
    })
}

fn parse(value: &Value) -> StoreDocument {
    StoreDocument::parse(value.to_string().as_bytes(), &StoreLimits::default()).unwrap()
}

fn parse_err(value: &Value) -> (String, DocumentErrorKind) {
    let error =
        StoreDocument::parse(value.to_string().as_bytes(), &StoreLimits::default()).unwrap_err();
    (error.path, error.kind)
}

fn sign(document: &StoreDocument, signers: &[(&str, u8)]) -> SignedStoreDocument {
    let signatures = signers
        .iter()
        .map(|(id, n)| StoreSignature::sign(document, id, &signer(*n)))
        .collect();
    let signed = SignedStoreDocument::new(document.clone(), signatures);
    // Every envelope used below also survives its own JSON form.
    let reparsed = SignedStoreDocument::parse(&signed.to_json(), &StoreLimits::default()).unwrap();
    assert_eq!(reparsed.to_json(), signed.to_json());
    reparsed
}

/// Version 1: roots r1, r2 (threshold 2), an HMAC frame key and a manifest approver.
fn genesis() -> TrustedDocument {
    let doc = parse(&document(
        1,
        2,
        vec![
            ed_key("r1", 1, true),
            ed_key("r2", 2, true),
            hmac_key_json("ingress", 22),
            ed_key("approver", 5, false),
        ],
    ));
    accept_initial(&sign(&doc, &[("r1", 1), ("r2", 2)]), NOW).unwrap()
}

// ----- documents -----

#[test]
fn a_valid_document_parses_with_every_field() {
    let trusted = genesis();
    let doc = trusted.document();
    assert_eq!(
        (doc.version(), doc.expires(), doc.threshold()),
        (1, UnixTime(1_850_000_000), 2)
    );
    assert_eq!(doc.keys().len(), 4);
    let ingress = doc.key("ingress").unwrap();
    assert_eq!(ingress.algorithm().name(), "hmac-sha256");
    assert_eq!(ingress.scopes().frames[0].element(), "channel");
    assert_eq!(
        ingress.fingerprint(),
        HmacSecret::from_bytes(&HMAC_SECRET).unwrap().fingerprint()
    );
    // Canonical bytes do not depend on how the input was spelled.
    let spaced =
        serde_json::to_string_pretty(&document(1, 1, vec![ed_key("r1", 1, true)])).unwrap();
    let compact = document(1, 1, vec![ed_key("r1", 1, true)]).to_string();
    let a = StoreDocument::parse(spaced.as_bytes(), &StoreLimits::default()).unwrap();
    let b = StoreDocument::parse(compact.as_bytes(), &StoreLimits::default()).unwrap();
    assert_eq!(a.canonical_bytes(), b.canonical_bytes());
    assert_eq!(a.digest(), b.digest());
}

#[test]
fn unknown_fields_are_refused_with_their_path() {
    let mut value = document(1, 1, vec![ed_key("r1", 1, true)]);
    value["extra"] = json!(1);
    assert_eq!(
        parse_err(&value),
        (
            "$".to_owned(),
            DocumentErrorKind::UnknownField {
                name: "extra".to_owned()
            }
        )
    );
    let mut value = document(1, 1, vec![ed_key("r1", 1, true)]);
    value["keys"][0]["comment"] = json!("x");
    assert_eq!(
        parse_err(&value),
        (
            "$.keys[0]".to_owned(),
            DocumentErrorKind::UnknownField {
                name: "comment".to_owned()
            }
        )
    );
    let mut value = document(1, 1, vec![ed_key("r1", 1, true)]);
    value["keys"][0]["scopes"]["admin"] = json!(true);
    assert_eq!(parse_err(&value).0, "$.keys[0].scopes");
    // A field of the other algorithm, or revoked_at without the revoked status, is unknown too.
    let mut value = document(1, 1, vec![ed_key("r1", 1, true)]);
    value["keys"][0]["tag_chars"] = json!(22);
    assert!(matches!(
        parse_err(&value).1,
        DocumentErrorKind::UnknownField { .. }
    ));
    let mut value = document(1, 1, vec![ed_key("r1", 1, true)]);
    value["keys"][0]["revoked_at"] = json!(5);
    assert!(matches!(
        parse_err(&value).1,
        DocumentErrorKind::UnknownField { .. }
    ));
    let mut value = document(1, 1, vec![ed_key("r1", 1, true)]);
    value["keys"][0]["scopes"]["frames"] =
        json!([{"element": "channel", "attributes": {}, "x": 1}]);
    assert_eq!(parse_err(&value).0, "$.keys[0].scopes.frames[0]");
}

/// A mutation of a valid document, the path of the expected error, and a check of its kind.
type FieldCase = (
    Box<dyn Fn(&mut Value)>,
    &'static str,
    fn(&DocumentErrorKind) -> bool,
);

#[test]
fn every_field_is_validated() {
    let base = || document(1, 1, vec![ed_key("r1", 1, true), hmac_key_json("h", 22)]);
    let cases: Vec<FieldCase> = vec![
        (
            Box::new(|v| v["type"] = json!("seal/trust-store/v2")),
            "$.type",
            |k| matches!(k, DocumentErrorKind::DocumentType { .. }),
        ),
        (Box::new(|v| v["version"] = json!(0)), "$.version", |k| {
            matches!(k, DocumentErrorKind::OutOfRange { .. })
        }),
        (Box::new(|v| v["version"] = json!(1.5)), "$.version", |k| {
            matches!(k, DocumentErrorKind::NotAnInteger)
        }),
        (Box::new(|v| v["version"] = json!(-1)), "$.version", |k| {
            matches!(k, DocumentErrorKind::NotAnInteger)
        }),
        (Box::new(|v| v["version"] = json!("1")), "$.version", |k| {
            matches!(k, DocumentErrorKind::WrongType { .. })
        }),
        (
            Box::new(|v| v["threshold"] = json!(0)),
            "$.threshold",
            |k| matches!(k, DocumentErrorKind::OutOfRange { .. }),
        ),
        (
            Box::new(|v| v["threshold"] = json!(2)),
            "$.threshold",
            |k| {
                matches!(
                    k,
                    DocumentErrorKind::ThresholdUnreachable {
                        threshold: 2,
                        signers: 1
                    }
                )
            },
        ),
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("expires");
            }),
            "$",
            |k| matches!(k, DocumentErrorKind::MissingField { name: "expires" }),
        ),
        (Box::new(|v| v["keys"] = json!({})), "$.keys", |k| {
            matches!(k, DocumentErrorKind::WrongType { .. })
        }),
        (
            Box::new(|v| v["keys"][0]["id"] = json!("bad id")),
            "$.keys[0].id",
            |k| matches!(k, DocumentErrorKind::KeyId { .. }),
        ),
        (
            Box::new(|v| v["keys"][0]["id"] = json!("")),
            "$.keys[0].id",
            |k| matches!(k, DocumentErrorKind::KeyId { .. }),
        ),
        (
            Box::new(|v| v["keys"][1]["id"] = json!("r1")),
            "$.keys[1].id",
            |k| matches!(k, DocumentErrorKind::DuplicateKeyId { .. }),
        ),
        (
            Box::new(|v| v["keys"][0]["algorithm"] = json!("ED25519")),
            "$.keys[0].algorithm",
            |k| matches!(k, DocumentErrorKind::Algorithm { .. }),
        ),
        (
            Box::new(|v| v["keys"][0]["status"] = json!("enabled")),
            "$.keys[0].status",
            |k| matches!(k, DocumentErrorKind::Status { .. }),
        ),
        (
            Box::new(|v| v["keys"][0]["status"] = json!("revoked")),
            "$.keys[0]",
            |k| matches!(k, DocumentErrorKind::MissingField { name: "revoked_at" }),
        ),
        (
            Box::new(|v| {
                let t = v["keys"][0]["public_key"].as_str().unwrap().to_owned();
                v["keys"][0]["public_key"] = json!(format!("{t}="));
            }),
            "$.keys[0].public_key",
            |k| matches!(k, DocumentErrorKind::Base64(_)),
        ),
        (
            Box::new(|v| v["keys"][0]["public_key"] = json!(base64url::encode(&[1; 31]))),
            "$.keys[0].public_key",
            |k| {
                matches!(
                    k,
                    DocumentErrorKind::ByteLength {
                        expected: 32,
                        found: 31
                    }
                )
            },
        ),
        (
            Box::new(|v| v["keys"][1]["secret_sha256"] = json!("AAAA")),
            "$.keys[1].secret_sha256",
            |k| matches!(k, DocumentErrorKind::ByteLength { .. }),
        ),
        (
            Box::new(|v| v["keys"][1]["tag_chars"] = json!(15)),
            "$.keys[1].tag_chars",
            |k| {
                matches!(
                    k,
                    DocumentErrorKind::TagLength(TagLengthError::BelowFloor { .. })
                )
            },
        ),
        (
            Box::new(|v| v["keys"][1]["tag_chars"] = json!(4)),
            "$.keys[1].tag_chars",
            |k| matches!(k, DocumentErrorKind::TagLength(_)),
        ),
        (
            Box::new(|v| v["keys"][1]["tag_chars"] = json!(43)),
            "$.keys[1].tag_chars",
            |k| {
                matches!(
                    k,
                    DocumentErrorKind::TagLength(TagLengthError::AboveMaximum { .. })
                )
            },
        ),
        (
            Box::new(|v| v["keys"][0]["not_before"] = json!(1_950_000_000u64)),
            "$.keys[0]",
            |k| matches!(k, DocumentErrorKind::Record(_)),
        ),
        (
            Box::new(|v| v["keys"][1]["scopes"]["store_update"] = json!(true)),
            "$.keys[1]",
            |k| matches!(k, DocumentErrorKind::Record(_)),
        ),
        (
            Box::new(|v| v["keys"][1]["scopes"]["manifest_approval"] = json!(true)),
            "$.keys[1]",
            |k| matches!(k, DocumentErrorKind::Record(_)),
        ),
        (
            Box::new(|v| v["keys"][1]["scopes"]["manifest_approval"] = json!(1)),
            "$.keys[1].scopes.manifest_approval",
            |k| matches!(k, DocumentErrorKind::WrongType { .. }),
        ),
        (
            Box::new(|v| v["keys"][1]["scopes"]["frames"][0]["element"] = json!("Channel")),
            "$.keys[1].scopes.frames[0]",
            |k| matches!(k, DocumentErrorKind::Scope(_)),
        ),
        (
            Box::new(|v| v["keys"][1]["scopes"]["frames"][0]["attributes"] = json!({"sig": ["x"]})),
            "$.keys[1].scopes.frames[0]",
            |k| matches!(k, DocumentErrorKind::Scope(_)),
        ),
        (
            Box::new(|v| v["keys"][1]["scopes"]["frames"][0]["attributes"] = json!({"source": []})),
            "$.keys[1].scopes.frames[0]",
            |k| matches!(k, DocumentErrorKind::Scope(_)),
        ),
        (
            Box::new(|v| {
                v["keys"][1]["scopes"]["frames"][0]["attributes"] = json!({"source": [1]})
            }),
            "$.keys[1].scopes.frames[0].attributes[\"source\"][0]",
            |k| matches!(k, DocumentErrorKind::WrongType { .. }),
        ),
    ];
    for (index, (mutate, path, kind)) in cases.iter().enumerate() {
        let mut value = base();
        mutate(&mut value);
        let (found_path, found_kind) = parse_err(&value);
        assert_eq!(found_path, *path, "case {index}: {found_kind:?}");
        assert!(kind(&found_kind), "case {index}: {found_kind:?}");
    }
}

#[test]
fn json_outside_the_canonical_profile_is_refused() {
    let text = r#"{"type":"seal/trust-store/v1","type":"seal/trust-store/v1"}"#;
    let error = StoreDocument::parse(text.as_bytes(), &StoreLimits::default()).unwrap_err();
    assert!(matches!(error.kind, DocumentErrorKind::Json(_)), "{error}");
    let error = StoreDocument::parse(b"[]", &StoreLimits::default()).unwrap_err();
    assert_eq!(error.path, "$");
}

#[test]
fn limits_are_named() {
    let mut limits = StoreLimits::default();
    limits.max_keys = 1;
    let value = document(1, 1, vec![ed_key("r1", 1, true), ed_key("r2", 2, true)]);
    let error = StoreDocument::parse(value.to_string().as_bytes(), &limits).unwrap_err();
    assert_eq!(
        (error.path.as_str(), error.kind),
        ("$.keys", DocumentErrorKind::TooMany { max: 1 })
    );
    let mut limits = StoreLimits::default();
    limits.max_bytes = 10;
    let error = StoreDocument::parse(value.to_string().as_bytes(), &limits).unwrap_err();
    assert!(matches!(error.kind, DocumentErrorKind::Json(_)));
}

#[test]
fn envelopes_are_strict() {
    let doc = genesis().document().clone();
    let signed = sign(&doc, &[("r1", 1)]);
    let mut value: Value = serde_json::from_slice(&signed.to_json()).unwrap();
    value["signatures"][0]["sig"] = json!("AAAA");
    let error = SignedStoreDocument::parse(value.to_string().as_bytes(), &StoreLimits::default())
        .unwrap_err();
    assert_eq!(error.path, "$.signatures[0].sig");
    let mut value: Value = serde_json::from_slice(&signed.to_json()).unwrap();
    value["signatures"][0]["alg"] = json!("none");
    let error = SignedStoreDocument::parse(value.to_string().as_bytes(), &StoreLimits::default())
        .unwrap_err();
    assert_eq!(error.path, "$.signatures[0]");
    let mut value: Value = serde_json::from_slice(&signed.to_json()).unwrap();
    value["document"]["version"] = json!(0);
    let error = SignedStoreDocument::parse(value.to_string().as_bytes(), &StoreLimits::default())
        .unwrap_err();
    assert_eq!(error.path, "$.document.version");
}

// ----- thresholds -----

#[test]
fn duplicate_signatures_do_not_meet_a_threshold_of_two() {
    let doc = parse(&document(
        1,
        2,
        vec![ed_key("r1", 1, true), ed_key("r2", 2, true)],
    ));
    let signed = sign(&doc, &[("r1", 1), ("r1", 1), ("r1", 1)]);
    assert_eq!(count_signers(&doc, &signed, NOW), 1);
    assert_eq!(
        accept_initial(&signed, NOW).unwrap_err(),
        RotationError::OwnThreshold {
            threshold: 2,
            signers: 1
        }
    );
}

#[test]
fn one_key_under_two_ids_does_not_meet_a_threshold_of_two() {
    let doc = parse(&document(
        1,
        2,
        vec![
            ed_key("r1", 1, true),
            ed_key("r1-alias", 1, true),
            ed_key("r2", 2, true),
        ],
    ));
    let signed = sign(&doc, &[("r1", 1), ("r1-alias", 1)]);
    assert_eq!(count_signers(&doc, &signed, NOW), 1);
    assert!(accept_initial(&signed, NOW).is_err());
    let signed = sign(&doc, &[("r1", 1), ("r2", 2)]);
    assert_eq!(count_signers(&doc, &signed, NOW), 2);
    assert!(accept_initial(&signed, NOW).is_ok());
}

#[test]
fn a_threshold_counts_only_one_key_per_fingerprint_when_validating_the_document() {
    // Two ids, one key: the document cannot demand two signers.
    let value = document(
        1,
        2,
        vec![ed_key("r1", 1, true), ed_key("r1-alias", 1, true)],
    );
    assert!(matches!(
        parse_err(&value).1,
        DocumentErrorKind::ThresholdUnreachable {
            threshold: 2,
            signers: 1
        }
    ));
}

#[test]
fn signatures_that_do_not_count() {
    let doc = parse(&document(
        1,
        1,
        vec![ed_key("r1", 1, true), ed_key("approver", 5, false)],
    ));
    // A key without the store update scope, an unknown id, a key signing under another id.
    for signers in [&[("approver", 5)][..], &[("nobody", 1)], &[("r1", 5)]] {
        let signed = sign(&doc, signers);
        assert_eq!(count_signers(&doc, &signed, NOW), 0, "{signers:?}");
    }
    // A signature over another document.
    let other = parse(&document(
        1,
        1,
        vec![ed_key("r1", 1, true), ed_key("x", 6, false)],
    ));
    let foreign = StoreSignature::sign(&other, "r1", &signer(1));
    let signed = SignedStoreDocument::new(doc.clone(), vec![foreign]);
    assert_eq!(count_signers(&doc, &signed, NOW), 0);
    // A revoked or expired root.
    let mut value = document(1, 1, vec![ed_key("r1", 1, true), ed_key("r2", 2, true)]);
    value["keys"][0]["status"] = json!("revoked");
    value["keys"][0]["revoked_at"] = json!(NOW.0 - 1);
    value["keys"][1]["not_after"] = json!(NOW.0 - 1);
    let doc = parse(&value);
    assert_eq!(
        count_signers(&doc, &sign(&doc, &[("r1", 1), ("r2", 2)]), NOW),
        0
    );
}

// ----- rotation -----

fn next_document(version: u64) -> StoreDocument {
    parse(&document(
        version,
        2,
        vec![
            ed_key("r2", 2, true),
            ed_key("r3", 3, true),
            ed_key("r4", 4, true),
            hmac_key_json("ingress", 22),
        ],
    ))
}

#[test]
fn rotation_signed_by_both_thresholds_is_accepted() {
    let current = genesis();
    // r2 is in both documents; r1 (old) and r3 (new) complete each threshold.
    let next = sign(&next_document(2), &[("r1", 1), ("r2", 2), ("r3", 3)]);
    let rotated = rotate(&current, &next, NOW).unwrap();
    assert_eq!(rotated.document().version(), 2);
    // And again from version 2 to 3, signed by the keys of version 2.
    let third = sign(&next_document(3), &[("r3", 3), ("r4", 4)]);
    assert_eq!(
        rotate(&rotated, &third, NOW).unwrap().document().version(),
        3
    );
}

#[test]
fn rotation_signed_by_old_keys_only_is_refused() {
    let next = sign(&next_document(2), &[("r1", 1), ("r2", 2)]);
    assert_eq!(
        rotate(&genesis(), &next, NOW).unwrap_err(),
        RotationError::OwnThreshold {
            threshold: 2,
            signers: 1
        }
    );
}

#[test]
fn rotation_signed_by_new_keys_only_is_refused() {
    let next = sign(&next_document(2), &[("r3", 3), ("r4", 4)]);
    assert_eq!(
        rotate(&genesis(), &next, NOW).unwrap_err(),
        RotationError::CurrentThreshold {
            threshold: 2,
            signers: 0
        }
    );
}

#[test]
fn version_skip_and_rollback_are_refused() {
    let current = genesis();
    let all = [("r1", 1), ("r2", 2), ("r3", 3), ("r4", 4)];
    let skip = sign(&next_document(3), &all);
    assert_eq!(
        rotate(&current, &skip, NOW).unwrap_err(),
        RotationError::VersionSkip {
            current: 1,
            offered: 3
        }
    );
    let rotated = rotate(&current, &sign(&next_document(2), &all), NOW).unwrap();
    let equal = sign(&next_document(2), &all);
    assert_eq!(
        rotate(&rotated, &equal, NOW).unwrap_err(),
        RotationError::Rollback {
            current: 2,
            offered: 2
        }
    );
    let back = sign(genesis().document(), &[("r1", 1), ("r2", 2)]);
    assert_eq!(
        rotate(&rotated, &back, NOW).unwrap_err(),
        RotationError::Rollback {
            current: 2,
            offered: 1
        }
    );
}

#[test]
fn expired_documents_are_refused_and_an_expired_current_store_can_be_renewed() {
    let all = [("r1", 1), ("r2", 2), ("r3", 3), ("r4", 4)];
    let later = UnixTime(1_850_000_001);
    let next = sign(&next_document(2), &all);
    assert_eq!(
        rotate(&genesis(), &next, later).unwrap_err(),
        RotationError::Expired {
            expires: UnixTime(1_850_000_000),
            now: later
        }
    );
    assert!(matches!(
        accept_initial(&sign(genesis().document(), &[("r1", 1), ("r2", 2)]), later),
        Err(RotationError::Expired { .. })
    ));
    let mut value = document(2, 2, vec![ed_key("r2", 2, true), ed_key("r3", 3, true)]);
    value["expires"] = json!(1_899_000_000u64);
    let renewal = sign(&parse(&value), &all);
    assert_eq!(
        rotate(&genesis(), &renewal, later)
            .unwrap()
            .document()
            .version(),
        2
    );
}

// ----- resolution -----

fn bound_store() -> MemoryTrustStore {
    let secret = HmacSecret::from_bytes(&HMAC_SECRET).unwrap();
    MemoryTrustStore::from_trusted(
        &genesis(),
        &[("ingress", &secret)],
        CompensatingControls::default(),
    )
    .unwrap()
}

fn frame<'a>(element: &'a str, attributes: &'a [(&'a str, &'a str)]) -> IntendedUse<'a> {
    IntendedUse {
        operation: StoreOperation::Verify,
        purpose: Purpose::Frame {
            element,
            attributes,
        },
    }
}

#[test]
fn resolution_checks_scope() {
    let store = bound_store();
    let telegram = [("source", "telegram"), ("id", "m1")];
    let resolved = store
        .resolve("ingress", &frame("channel", &telegram), NOW)
        .unwrap();
    assert_eq!(resolved.scope, MatchedScope::Frame(0));
    assert_eq!(resolved.record.key().tag_bits(), 132);
    for (element, attributes) in [
        ("message", &telegram[..]),
        ("channel", &[("source", "email")][..]),
        ("channel", &[("id", "m1")][..]),
        ("channel", &[("source", "Telegram")][..]),
    ] {
        assert_eq!(
            store
                .resolve("ingress", &frame(element, attributes), NOW)
                .unwrap_err(),
            ResolveError::OutOfScope,
            "{element} {attributes:?}"
        );
    }
    let manifest = IntendedUse {
        operation: StoreOperation::Verify,
        purpose: Purpose::ManifestApproval,
    };
    assert_eq!(
        store.resolve("ingress", &manifest, NOW).unwrap_err(),
        ResolveError::OutOfScope
    );
    assert_eq!(
        store.resolve("approver", &manifest, NOW).unwrap().scope,
        MatchedScope::ManifestApproval
    );
    let update = IntendedUse {
        operation: StoreOperation::Verify,
        purpose: Purpose::StoreUpdate,
    };
    assert_eq!(
        store.resolve("approver", &update, NOW).unwrap_err(),
        ResolveError::OutOfScope
    );
    assert_eq!(
        store.resolve("r1", &update, NOW).unwrap().scope,
        MatchedScope::StoreUpdate
    );
    assert_eq!(
        store.resolve("nobody", &manifest, NOW).unwrap_err(),
        ResolveError::UnknownKey {
            key_id: "nobody".to_owned()
        }
    );
}

fn store_with_status(status: Value, extra: Option<(&str, Value)>) -> MemoryTrustStore {
    let mut key = hmac_key_json("ingress", 22);
    key["status"] = status;
    if let Some((name, value)) = extra {
        key[name] = value;
    }
    let doc = parse(&document(1, 1, vec![ed_key("r1", 1, true), key]));
    let trusted = accept_initial(&sign(&doc, &[("r1", 1)]), NOW).unwrap();
    let secret = HmacSecret::from_bytes(&HMAC_SECRET).unwrap();
    MemoryTrustStore::from_trusted(
        &trusted,
        &[("ingress", &secret)],
        CompensatingControls::default(),
    )
    .unwrap()
}

#[test]
fn key_status_and_window_are_enforced() {
    let source = [("source", "slack")];
    let verify = frame("channel", &source);
    let sign_use = IntendedUse {
        operation: StoreOperation::Sign,
        ..verify
    };

    let active = store_with_status(json!("active"), None);
    assert!(active.resolve("ingress", &verify, NOW).is_ok());
    assert!(active.resolve("ingress", &sign_use, NOW).is_ok());
    assert_eq!(
        active
            .resolve("ingress", &verify, UnixTime(1_699_999_999))
            .unwrap_err(),
        ResolveError::NotYetValid {
            not_before: UnixTime(1_700_000_000)
        }
    );
    assert!(active
        .resolve("ingress", &verify, UnixTime(1_700_000_000))
        .is_ok());

    let verify_only = store_with_status(json!("verify-only"), None);
    assert!(verify_only.resolve("ingress", &verify, NOW).is_ok());
    assert_eq!(
        verify_only.resolve("ingress", &sign_use, NOW).unwrap_err(),
        ResolveError::VerifyOnly
    );

    let revoked = store_with_status(json!("revoked"), Some(("revoked_at", json!(NOW.0))));
    assert_eq!(
        revoked.resolve("ingress", &verify, NOW).unwrap_err(),
        ResolveError::Revoked { at: NOW }
    );
    assert_eq!(
        revoked
            .resolve("ingress", &verify, UnixTime(NOW.0 + 10))
            .unwrap_err(),
        ResolveError::Revoked { at: NOW }
    );
    let before = UnixTime(NOW.0 - 1);
    assert!(revoked.resolve("ingress", &verify, before).is_ok());
    assert_eq!(
        revoked.resolve("ingress", &sign_use, before).unwrap_err(),
        ResolveError::VerifyOnly
    );

    let mut key = hmac_key_json("ingress", 22);
    key["not_after"] = json!(NOW.0 - 1);
    let doc = parse(&document(1, 1, vec![ed_key("r1", 1, true), key]));
    let trusted = accept_initial(&sign(&doc, &[("r1", 1)]), NOW).unwrap();
    let secret = HmacSecret::from_bytes(&HMAC_SECRET).unwrap();
    let expired_key = MemoryTrustStore::from_trusted(
        &trusted,
        &[("ingress", &secret)],
        CompensatingControls::default(),
    )
    .unwrap();
    assert_eq!(
        expired_key.resolve("ingress", &verify, NOW).unwrap_err(),
        ResolveError::KeyExpired {
            not_after: UnixTime(NOW.0 - 1)
        }
    );
}

#[test]
fn an_expired_store_resolves_nothing() {
    let store = bound_store();
    let manifest = IntendedUse {
        operation: StoreOperation::Verify,
        purpose: Purpose::ManifestApproval,
    };
    assert!(store
        .resolve("approver", &manifest, UnixTime(1_850_000_000))
        .is_ok());
    assert_eq!(
        store
            .resolve("approver", &manifest, UnixTime(1_850_000_001))
            .unwrap_err(),
        ResolveError::StoreExpired {
            expires: UnixTime(1_850_000_000),
            now: UnixTime(1_850_000_001)
        }
    );
}

// ----- binding secrets -----

#[test]
fn secrets_are_bound_by_fingerprint() {
    let trusted = genesis();
    let none = CompensatingControls::default();
    let wrong = HmacSecret::from_bytes(&[8; 32]).unwrap();
    assert_eq!(
        MemoryTrustStore::from_trusted(&trusted, &[("ingress", &wrong)], none).unwrap_err(),
        BindError::SecretMismatch {
            key_id: "ingress".to_owned()
        }
    );
    let short = HmacSecret::from_bytes(&[9; 16]).unwrap();
    assert!(matches!(
        MemoryTrustStore::from_trusted(&trusted, &[("ingress", &short)], none).unwrap_err(),
        BindError::WeakSecret {
            len: 16,
            min: 32,
            ..
        }
    ));
    let right = HmacSecret::from_bytes(&HMAC_SECRET).unwrap();
    assert!(matches!(
        MemoryTrustStore::from_trusted(&trusted, &[("egress", &right)], none).unwrap_err(),
        BindError::UnknownKeyId { .. }
    ));
    assert!(matches!(
        MemoryTrustStore::from_trusted(&trusted, &[("r1", &right)], none).unwrap_err(),
        BindError::NotHmac { .. }
    ));
    assert!(matches!(
        MemoryTrustStore::from_trusted(&trusted, &[("ingress", &right), ("ingress", &right)], none)
            .unwrap_err(),
        BindError::DuplicateSecret { .. }
    ));
    // Without its secret the key stays listed and fails closed.
    let store = MemoryTrustStore::from_trusted(&trusted, &[], none).unwrap();
    let source = [("source", "slack")];
    assert_eq!(
        store
            .resolve("ingress", &frame("channel", &source), NOW)
            .unwrap_err(),
        ResolveError::SecretNotSupplied {
            key_id: "ingress".to_owned()
        }
    );
}

#[test]
fn compact_keys_bind_only_with_both_controls() {
    let doc = parse(&document(
        1,
        1,
        vec![ed_key("r1", 1, true), hmac_key_json("short", 5)],
    ));
    let trusted = accept_initial(&sign(&doc, &[("r1", 1)]), NOW).unwrap();
    let secret = HmacSecret::from_bytes(&HMAC_SECRET).unwrap();
    let subkeys_only = CompensatingControls {
        per_conversation_subkeys: true,
        replay_set: false,
    };
    assert_eq!(
        MemoryTrustStore::from_trusted(&trusted, &[("short", &secret)], subkeys_only).unwrap_err(),
        BindError::TagLength {
            key_id: "short".to_owned(),
            error: TagLengthError::CompactWithoutReplaySet
        }
    );
    let both = CompensatingControls {
        per_conversation_subkeys: true,
        replay_set: true,
    };
    let store = MemoryTrustStore::from_trusted(&trusted, &[("short", &secret)], both).unwrap();
    let source = [("source", "telegram")];
    let resolved = store
        .resolve("short", &frame("channel", &source), NOW)
        .unwrap();
    assert_eq!(resolved.record.key().tag_bits(), 30);
}

// ----- verification through the store -----

#[test]
fn verify_signature_returns_a_witness_or_a_named_failure() {
    let store = bound_store();
    let key = HmacKey::new(
        HmacSecret::from_bytes(&HMAC_SECRET).unwrap(),
        TagLength::STANDARD,
    );
    let sig = key.sign(b"signed bytes").to_text();
    let attributes = [("source", "telegram")];
    let purpose = Purpose::Frame {
        element: "channel",
        attributes: &attributes,
    };
    let verified =
        verify_signature(&store, "ingress", purpose, NOW, b"signed bytes", &sig).unwrap();
    assert_eq!(verified.key_id(), "ingress");
    assert_eq!(verified.scope(), MatchedScope::Frame(0));
    assert_eq!(verified.fingerprint(), key.fingerprint());
    assert_eq!(
        verify_signature(&store, "ingress", purpose, NOW, b"signed bytez", &sig).unwrap_err(),
        VerifyFailure::Signature(SignatureError::Mismatch)
    );
    assert!(matches!(
        verify_signature(&store, "ingress", purpose, NOW, b"signed bytes", &sig[..21]).unwrap_err(),
        VerifyFailure::Signature(SignatureError::Length {
            expected: 22,
            found: 21
        })
    ));
    assert!(matches!(
        verify_signature(&store, "approver", purpose, NOW, b"signed bytes", &sig).unwrap_err(),
        VerifyFailure::Key(ResolveError::OutOfScope)
    ));
    // The approver's Ed25519 signature checks only through its own record.
    let approval = signer(5).sign(b"manifest hash").to_text();
    let verified = verify_signature(
        &store,
        "approver",
        Purpose::ManifestApproval,
        NOW,
        b"manifest hash",
        &approval,
    )
    .unwrap();
    assert_eq!(verified.algorithm().name(), "ed25519");
    assert!(matches!(
        verify_signature(
            &store,
            "r1",
            Purpose::ManifestApproval,
            NOW,
            b"manifest hash",
            &approval
        ),
        Err(VerifyFailure::Key(ResolveError::OutOfScope))
    ));
}

#[test]
fn compact_keys_verify_only_with_a_conversation_subkey() {
    let doc = parse(&document(
        1,
        1,
        vec![ed_key("r1", 1, true), hmac_key_json("short", 5)],
    ));
    let trusted = accept_initial(&sign(&doc, &[("r1", 1)]), NOW).unwrap();
    let secret = HmacSecret::from_bytes(&HMAC_SECRET).unwrap();
    let both = CompensatingControls {
        per_conversation_subkeys: true,
        replay_set: true,
    };
    let store = MemoryTrustStore::from_trusted(&trusted, &[("short", &secret)], both).unwrap();
    let record = store
        .resolve("short", &frame("channel", &[("source", "slack")]), NOW)
        .unwrap()
        .record;
    let seal_verify::VerifyingKey::Hmac(master) = record.key() else {
        panic!("an hmac key")
    };
    assert_eq!(record.key().tag_text_len(), 5);
    let attributes = [("source", "slack")];
    let purpose = Purpose::Frame {
        element: "channel",
        attributes: &attributes,
    };
    let master_tag = master.sign(b"bytes").to_text();
    assert_eq!(
        verify_signature(&store, "short", purpose, NOW, b"bytes", &master_tag).unwrap_err(),
        VerifyFailure::CompactNeedsConversation
    );
    let in_a = master
        .conversation_subkey("conv-a")
        .unwrap()
        .sign(b"bytes")
        .to_text();
    let verified =
        verify_signature_in_conversation(&store, "short", purpose, NOW, "conv-a", b"bytes", &in_a)
            .unwrap();
    assert_eq!(verified.key_id(), "short");
    for (conversation, sig) in [("conv-b", &in_a), ("conv-a", &master_tag)] {
        assert_eq!(
            verify_signature_in_conversation(
                &store,
                "short",
                purpose,
                NOW,
                conversation,
                b"bytes",
                sig
            )
            .unwrap_err(),
            VerifyFailure::Signature(SignatureError::Mismatch),
            "{conversation}"
        );
    }
    assert!(matches!(
        verify_signature_in_conversation(&store, "short", purpose, NOW, "", b"bytes", &in_a),
        Err(VerifyFailure::Conversation(_))
    ));
    // Ed25519 signatures need no subkey.
    let approval = signer(1).sign(b"update").to_text();
    let manifest = parse(&document(
        1,
        1,
        vec![ed_key("r1", 1, true), ed_key("approver", 1, false)],
    ));
    let trusted = accept_initial(&sign(&manifest, &[("r1", 1)]), NOW).unwrap();
    let store = MemoryTrustStore::from_trusted(&trusted, &[], both).unwrap();
    assert!(verify_signature_in_conversation(
        &store,
        "approver",
        Purpose::ManifestApproval,
        NOW,
        "conv-a",
        b"update",
        &approval
    )
    .is_ok());
}

#[test]
fn a_bound_store_does_not_show_its_secrets() {
    let store = bound_store();
    let shown = format!("{store:?}");
    assert!(shown.contains("<redacted>"), "{shown}");
    assert!(!shown.contains("9, 9, 9"), "{shown}");
    assert!(!shown.contains("0909"), "{shown}");
}

/// The limits on a frame scope's attribute constraints and on each constraint's values accept
/// exactly their maximum and refuse one more, naming the limit and where it was exceeded.
#[test]
fn attribute_constraint_limits_are_exact() {
    let mut limits = StoreLimits::default();
    limits.max_attribute_constraints = 2;
    limits.max_attribute_values = 3;
    let with = |attributes: Value| {
        let mut value = document(1, 1, vec![ed_key("r1", 1, true), hmac_key_json("h", 22)]);
        value["keys"][1]["scopes"]["frames"][0]["attributes"] = attributes;
        StoreDocument::parse(value.to_string().as_bytes(), &limits)
    };
    assert!(with(json!({"source": ["a", "b", "c"], "lane": ["x", "y", "z"]})).is_ok());
    let error = with(json!({"source": ["a"], "lane": ["x"], "team": ["t"]})).unwrap_err();
    assert_eq!(
        (error.path.as_str(), error.kind),
        (
            "$.keys[1].scopes.frames[0].attributes",
            DocumentErrorKind::TooMany { max: 2 }
        )
    );
    let error = with(json!({"source": ["a", "b", "c", "d"]})).unwrap_err();
    assert_eq!(
        (error.path.as_str(), error.kind),
        (
            "$.keys[1].scopes.frames[0].attributes[\"source\"]",
            DocumentErrorKind::TooMany { max: 3 }
        )
    );
}
