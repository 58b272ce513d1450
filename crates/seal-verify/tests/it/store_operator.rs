//! The operator's trust-store operations (`store::operator`): a store from a signed document,
//! keys added in code, signing documents and rotations, checking a rotation, and every
//! refusal with its text.

use std::error::Error as _;

use seal_verify::store::{
    check_rotation, sign_store_document, sign_store_rotation, KeyRefusal, MemoryTrustStore,
    Rotation, TrustError, Validity,
};
use seal_verify::{ApproverKey, Ed25519SigningKey};
use seal_verify::{CompensatingControls, FrameKey, UnixTime};

const NOW: UnixTime = UnixTime(1_800_000_000);

fn root() -> ApproverKey {
    ApproverKey::from_seed(&[3; 32]).unwrap()
}

fn other_root() -> ApproverKey {
    ApproverKey::from_seed(&[4; 32]).unwrap()
}

fn frame_key() -> FrameKey {
    FrameKey::from_secret(&[9; 32]).unwrap()
}

/// A store document of `version`, expiring at `expires`, listing `roots` (store-update keys,
/// valid until `expires`) and the HMAC key `ingress` (channel frames).
fn document(version: u64, expires: u64, roots: &[(&str, &ApproverKey)]) -> String {
    let mut keys: Vec<String> = roots
        .iter()
        .map(|(id, key)| {
            format!(
                r#"{{"id":"{id}","algorithm":"ed25519","public_key":"{}","not_before":0,"not_after":{expires},"status":"active","scopes":{{"frames":[],"manifest_approval":false,"store_update":true}}}}"#,
                key.public_key()
            )
        })
        .collect();
    let frame = frame_key();
    keys.push(format!(
        r#"{{"id":"ingress","algorithm":"hmac-sha256","secret_sha256":"{}","tag_chars":{},"not_before":0,"not_after":{expires},"status":"active","scopes":{{"frames":[{{"element":"channel","attributes":{{}}}}],"manifest_approval":false,"store_update":false}}}}"#,
        frame.secret_sha256(),
        frame.tag_chars()
    ));
    format!(
        r#"{{"type":"seal/trust-store/v1","version":{version},"expires":{expires},"threshold":1,"keys":[{}]}}"#,
        keys.join(",")
    )
}

fn signed(document: &str, signers: &[(&str, &ApproverKey)]) -> Vec<u8> {
    let signers: Vec<(&str, &Ed25519SigningKey)> = signers
        .iter()
        .map(|(id, key)| (*id, key.signing_key()))
        .collect();
    sign_store_document(document.as_bytes(), &signers).unwrap()
}

/// A document of `version` expiring at `expires` that lists [`root`] as `root`, signed by it.
fn rooted(version: u64, expires: u64) -> Vec<u8> {
    let root = root();
    signed(
        &document(version, expires, &[("root", &root)]),
        &[("root", &root)],
    )
}

fn window(not_before: u64, not_after: u64) -> Validity {
    Validity {
        not_before: UnixTime(not_before),
        not_after: UnixTime(not_after),
    }
}

#[test]
fn a_rotation_one_version_up_signed_by_both_thresholds_is_accepted() {
    let current = rooted(1, 1_900_000_000);
    let next = rooted(2, 2_000_000_000);
    assert_eq!(
        check_rotation(&current, &next, NOW).unwrap(),
        Rotation {
            from_version: 1,
            to_version: 2,
            expires: UnixTime(2_000_000_000)
        }
    );
    // Backwards, sideways and skipping a version are refused.
    let again = rooted(1, 1_900_000_000);
    let skip = rooted(3, 2_000_000_000);
    for (current, next) in [(&next, &current), (&current, &again), (&current, &skip)] {
        let error = check_rotation(current, next, NOW).unwrap_err();
        assert!(matches!(error, TrustError::Rotation(_)), "{error:?}");
        assert!(
            error.to_string().starts_with("rotation refused: "),
            "{error}"
        );
        assert!(error.source().is_some());
    }
    // An offer that has already expired is refused.
    let stale = rooted(2, 1_799_999_999);
    assert!(matches!(
        check_rotation(&current, &stale, NOW),
        Err(TrustError::Rotation(_))
    ));
}

#[test]
fn an_expired_store_is_renewed_by_rotation_not_bypassed() {
    let root = root();
    // The current document expired before now; its root key is still valid now.
    let current = rooted(1, 1_799_000_000);
    let long_lived_root = document(1, 1_799_000_000, &[("root", &root)]).replace(
        r#""not_after":1799000000,"status":"active","scopes":{"frames":[],"manifest_approval":false,"store_update":true}"#,
        r#""not_after":2000000000,"status":"active","scopes":{"frames":[],"manifest_approval":false,"store_update":true}"#,
    );
    let current_long = signed(&long_lived_root, &[("root", &root)]);
    let next = rooted(2, 2_000_000_000);
    assert_eq!(
        check_rotation(&current_long, &next, NOW)
            .unwrap()
            .to_version,
        2
    );
    // The current root's own window ended with the store: it cannot sign the handover now.
    assert!(matches!(
        check_rotation(&current, &next, NOW),
        Err(TrustError::Rotation(_))
    ));
    // As a first document, the expired store is not accepted at all.
    let error = MemoryTrustStore::from_signed_document(
        &current_long,
        &[("ingress", frame_key().secret())],
        NOW,
        CompensatingControls::default(),
    )
    .unwrap_err();
    assert!(matches!(error, TrustError::NotAccepted(_)), "{error:?}");
    assert!(error
        .to_string()
        .starts_with("store document not accepted: "));
    assert!(error.source().is_some());
}

#[test]
fn a_current_document_never_acceptable_is_named_as_such() {
    let (root, stranger) = (root(), other_root());
    // Lists `root` but is signed by a key it does not list under that id's public key.
    let text = document(1, 1_900_000_000, &[("root", &root)]);
    let forged = sign_store_document(text.as_bytes(), &[("root", stranger.signing_key())]).unwrap();
    let next = rooted(2, 2_000_000_000);
    let error = check_rotation(&forged, &next, NOW).unwrap_err();
    assert!(matches!(error, TrustError::NotAccepted(_)), "{error:?}");
    let error = check_rotation(b"{", &next, NOW).unwrap_err();
    assert!(matches!(error, TrustError::Document(_)), "{error:?}");
    assert!(
        error.to_string().starts_with("store document refused at "),
        "{error}"
    );
    assert!(error.source().is_some());
    let current = rooted(1, 1_900_000_000);
    assert!(matches!(
        check_rotation(&current, b"[]", NOW),
        Err(TrustError::Document(_))
    ));
}

#[test]
fn a_rotation_is_signed_by_a_root_only_the_current_document_lists() {
    let (old, new) = (root(), other_root());
    let current = signed(
        &document(1, 1_900_000_000, &[("old", &old)]),
        &[("old", &old)],
    );
    let next_text = document(2, 2_000_000_000, &[("new", &new)]);
    let signers = [("old", old.signing_key()), ("new", new.signing_key())];
    let next = sign_store_rotation(next_text.as_bytes(), &current, &signers).unwrap();
    assert_eq!(check_rotation(&current, &next, NOW).unwrap().to_version, 2);
    // Without the current document, `old` is not a key of the next one.
    let error = sign_store_document(next_text.as_bytes(), &signers).unwrap_err();
    assert_eq!(
        error,
        TrustError::UnknownSigner {
            key_id: "old".to_owned()
        }
    );
    assert_eq!(
        error.to_string(),
        "signer `old` is not a key of the document"
    );
    assert!(error.source().is_none());
    // A signer neither lists is refused by the rotation signer too.
    let error = sign_store_rotation(
        next_text.as_bytes(),
        &current,
        &[("nobody", new.signing_key())],
    )
    .unwrap_err();
    assert!(
        matches!(error, TrustError::UnknownSigner { .. }),
        "{error:?}"
    );
    // Signed by the new root alone, the handover lacks the current threshold.
    let only_new = sign_store_rotation(next_text.as_bytes(), &current, &signers[1..]).unwrap();
    assert!(matches!(
        check_rotation(&current, &only_new, NOW),
        Err(TrustError::Rotation(_))
    ));
    assert!(matches!(
        sign_store_rotation(next_text.as_bytes(), b"{", &signers),
        Err(TrustError::Document(_))
    ));
    assert!(matches!(
        sign_store_document(b"{}", &signers),
        Err(TrustError::Document(_))
    ));
}

#[test]
fn a_store_from_a_signed_document_binds_each_secret() {
    let envelope = rooted(1, 1_900_000_000);
    let key = frame_key();
    let store = MemoryTrustStore::from_signed_document(
        &envelope,
        &[("ingress", key.secret())],
        NOW,
        CompensatingControls::default(),
    )
    .unwrap();
    assert!(store.is_valid_at("ingress", NOW));
    assert!(store.is_valid_at("root", NOW));
    let wrong = FrameKey::from_secret(&[8; 32]).unwrap();
    let error = MemoryTrustStore::from_signed_document(
        &envelope,
        &[("ingress", wrong.secret())],
        NOW,
        CompensatingControls::default(),
    )
    .unwrap_err();
    assert!(matches!(error, TrustError::Secret(_)), "{error:?}");
    assert!(error.to_string().starts_with("frame key secret refused: "));
    assert!(error.source().is_some());
    assert!(matches!(
        MemoryTrustStore::from_signed_document(b"{", &[], NOW, CompensatingControls::default()),
        Err(TrustError::Document(_))
    ));
}

#[test]
fn keys_added_in_code_are_checked_step_by_step() {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    let valid = window(1_700_000_000, 1_850_000_000);
    store
        .add_frame_key("k1", frame_key().hmac_key(), "channel", valid)
        .unwrap();
    store
        .add_approver_key("approver", root().signing_key().public_key(), valid)
        .unwrap();
    let record = |id: &str| {
        store
            .records()
            .iter()
            .find(|record| record.id() == id)
            .unwrap()
    };
    assert_eq!(record("k1").scopes().frames.len(), 1);
    assert!(!record("k1").scopes().manifest_approval);
    assert!(record("approver").scopes().manifest_approval);
    assert!(record("approver").scopes().frames.is_empty());

    let refusal = |result: Result<(), TrustError>| match result.unwrap_err() {
        TrustError::Key { key_id, error } => (key_id, error),
        other => panic!("{other:?}"),
    };
    let (id, error) = refusal(store.add_frame_key("k2", frame_key().hmac_key(), "bad name", valid));
    assert_eq!(id, "k2");
    assert!(matches!(error, KeyRefusal::Scope(_)), "{error:?}");
    let (_, error) =
        refusal(store.add_frame_key("bad id", frame_key().hmac_key(), "channel", valid));
    assert!(matches!(error, KeyRefusal::Record(_)), "{error:?}");
    let inverted = window(1_850_000_000, 1_700_000_000);
    let (_, error) =
        refusal(store.add_frame_key("k3", frame_key().hmac_key(), "channel", inverted));
    assert!(matches!(error, KeyRefusal::Record(_)), "{error:?}");
    let (_, error) = refusal(store.add_frame_key("k1", frame_key().hmac_key(), "channel", valid));
    assert!(matches!(error, KeyRefusal::Insert(_)), "{error:?}");
    let (_, error) =
        refusal(store.add_approver_key("approver", root().signing_key().public_key(), valid));
    assert!(matches!(error, KeyRefusal::Insert(_)), "{error:?}");

    let error = store
        .add_frame_key("k1", frame_key().hmac_key(), "channel", valid)
        .unwrap_err();
    let TrustError::Key { error: refusal, .. } = &error else {
        unreachable!()
    };
    assert_eq!(error.to_string(), format!("key `k1` refused: {refusal}"));
    assert!(!refusal.to_string().is_empty());
    assert!(error.source().is_none());
}

#[test]
fn a_key_is_valid_inside_its_window_and_the_store_lifetime() {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .add_frame_key(
            "k1",
            frame_key().hmac_key(),
            "channel",
            window(100, 1_950_000_000),
        )
        .unwrap();
    store
        .add_frame_key("k2", frame_key().hmac_key(), "channel", window(200, 300))
        .unwrap();
    assert!(store.is_valid_at("k1", UnixTime(100)));
    assert!(!store.is_valid_at("k1", UnixTime(99)));
    assert!(store.is_valid_at("k1", UnixTime(1_900_000_000)));
    // The key's window runs on, the store's lifetime does not.
    assert!(!store.is_valid_at("k1", UnixTime(1_900_000_001)));
    assert!(store.is_valid_at("k2", UnixTime(300)));
    assert!(!store.is_valid_at("k2", UnixTime(301)));
    assert!(!store.is_valid_at("k3", UnixTime(250)));
}
