//! No panic and canonical round trips on hostile store documents, envelopes and tag texts (the
//! checks behind the fuzz entry points), and resolution compared with a small reference model,
//! with a negative control that forgets revocation.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_verify::store::{
    check_record, FrameScope, IntendedUse, KeyRecord, KeyStatus, Purpose, Scopes, StoreOperation,
    Validity,
};
use seal_verify::{base64url, fuzz, Ed25519SigningKey, UnixTime, VerifyingKey};
use serde_json::json;

fn genesis_text() -> Vec<u8> {
    let key = Ed25519SigningKey::from_seed(&[1; 32]).unwrap();
    json!({
        "type": "seal/trust-store/v1",
        "version": 1,
        "expires": 1_850_000_000u64,
        "threshold": 1,
        "keys": [{
            "id": "root-1",
            "algorithm": "ed25519",
            "public_key": base64url::encode(key.public_key().as_bytes()),
            "not_before": 1_700_000_000u64,
            "not_after": 1_900_000_000u64,
            "status": "revoked",
            "revoked_at": 1_890_000_000u64,
            "scopes": {
                "frames": [{"element": "channel", "attributes": {"source": ["a", "b"]}}],
                "manifest_approval": true,
                "store_update": true
            }
        }]
    })
    .to_string()
    .into_bytes()
}

#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match *edit {
            Edit::Flip(at, mask) => {
                if let Some(byte) = bytes.get_mut(at % len) {
                    *byte ^= mask;
                }
            }
            Edit::Insert(at, byte) => bytes.insert(at % (bytes.len() + 1), byte),
            Edit::Delete(at) => {
                if !bytes.is_empty() {
                    bytes.remove(at % len);
                }
            }
        }
    }
    bytes
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            (any::<usize>(), any::<u8>()).prop_map(|(a, m)| Edit::Flip(a, m)),
            (
                any::<usize>(),
                prop::sample::select(b"{}[]\",:0123456789-etrfnul \\".to_vec())
            )
                .prop_map(|(a, b)| Edit::Insert(a, b)),
            any::<usize>().prop_map(Edit::Delete),
        ],
        1..4,
    )
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(1024))]

    #[test]
    fn mutated_documents_never_panic_and_stay_canonical(edits in edits()) {
        let bytes = apply(genesis_text(), &edits);
        fuzz::store_document(&bytes).map_err(TestCaseError::fail)?;
        let envelope = [b"{\"document\":".as_slice(), &bytes, b",\"signatures\":[]}"].concat();
        fuzz::store_envelope(&envelope).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        fuzz::store_document(&bytes).map_err(TestCaseError::fail)?;
        fuzz::store_envelope(&bytes).map_err(TestCaseError::fail)?;
        fuzz::tag_text(&bytes).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn tag_texts_from_the_alphabet_and_beyond(first in any::<u8>(), text in "[A-Za-z0-9_=+/ -]{0,48}") {
        let data = [&[first][..], text.as_bytes()].concat();
        fuzz::tag_text(&data).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn the_unmutated_document_is_accepted() {
    // The mutation property starts from a document that parses, so it exercises acceptance too.
    assert!(seal_verify::store::StoreDocument::parse(
        &genesis_text(),
        &seal_verify::store::StoreLimits::default()
    )
    .is_ok());
}

// ----- resolution against a reference model -----

#[derive(Debug, Clone)]
struct Model {
    not_before: u64,
    not_after: u64,
    status: KeyStatus,
    element: &'static str,
    allowed: Vec<&'static str>,
    manifest_approval: bool,
    store_update: bool,
}

#[derive(Debug, Clone)]
struct Query {
    sign: bool,
    purpose: u8,
    element: &'static str,
    source: Option<&'static str>,
    now: u64,
}

fn status() -> impl Strategy<Value = KeyStatus> {
    prop_oneof![
        Just(KeyStatus::Active),
        Just(KeyStatus::VerifyOnly),
        (0u64..40).prop_map(|at| KeyStatus::Revoked { at: UnixTime(at) }),
    ]
}

fn model() -> impl Strategy<Value = Model> {
    (
        0u64..40,
        0u64..40,
        status(),
        prop::sample::select(vec!["channel", "message"]),
        prop::sample::subsequence(vec!["a", "b", "c"], 1..=3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(x, y, status, element, allowed, manifest_approval, store_update)| Model {
                not_before: x.min(y),
                not_after: x.max(y),
                status,
                element,
                allowed,
                manifest_approval,
                store_update,
            },
        )
}

fn query() -> impl Strategy<Value = Query> {
    (
        any::<bool>(),
        0u8..3,
        prop::sample::select(vec!["channel", "message"]),
        prop::option::of(prop::sample::select(vec!["a", "b", "c", "d"])),
        0u64..45,
    )
        .prop_map(|(sign, purpose, element, source, now)| Query {
            sign,
            purpose,
            element,
            source,
            now,
        })
}

/// The reference: the rules of spec/trust-store.md section 6, written as one boolean.
fn reference(model: &Model, query: &Query, forget_revocation: bool) -> bool {
    let in_window = model.not_before <= query.now && query.now <= model.not_after;
    let status_ok = match model.status {
        KeyStatus::Active => true,
        KeyStatus::VerifyOnly => !query.sign,
        KeyStatus::Revoked { at } => forget_revocation || (query.now < at.0 && !query.sign),
    };
    let scope_ok = match query.purpose {
        0 => {
            query.element == model.element
                && query
                    .source
                    .is_some_and(|source| model.allowed.contains(&source))
        }
        1 => model.manifest_approval,
        _ => model.store_update,
    };
    in_window && status_ok && scope_ok
}

fn real(model: &Model, query: &Query) -> bool {
    let scope = FrameScope::new(
        model.element,
        vec![(
            "source".to_owned(),
            model
                .allowed
                .iter()
                .map(|value| (*value).to_owned())
                .collect(),
        )],
    )
    .unwrap();
    let key = VerifyingKey::Ed25519(Ed25519SigningKey::from_seed(&[3; 32]).unwrap().public_key());
    let record = KeyRecord::new(
        "k",
        key,
        Validity {
            not_before: UnixTime(model.not_before),
            not_after: UnixTime(model.not_after),
        },
        model.status,
        Scopes {
            frames: vec![scope],
            manifest_approval: model.manifest_approval,
            store_update: model.store_update,
        },
    )
    .unwrap();
    let attributes: Vec<(&str, &str)> = query
        .source
        .map(|source| vec![("id", "m1"), ("source", source)])
        .unwrap_or_default();
    let purpose = match query.purpose {
        0 => Purpose::Frame {
            element: query.element,
            attributes: &attributes,
        },
        1 => Purpose::ManifestApproval,
        _ => Purpose::StoreUpdate,
    };
    let operation = if query.sign {
        StoreOperation::Sign
    } else {
        StoreOperation::Verify
    };
    check_record(
        &record,
        &IntendedUse { operation, purpose },
        UnixTime(query.now),
    )
    .is_ok()
}

fn agree(model: &Model, query: &Query, forget_revocation: bool) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        real(model, query),
        reference(model, query, forget_revocation)
    );
    Ok(())
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn resolution_agrees_with_the_reference(model in model(), query in query()) {
        agree(&model, &query, false)?;
    }
}

#[test]
fn resolution_negative_control_forgetting_revocation_is_caught() {
    let mut runner = seal_test_support::seeded(2048);
    let result = runner.run(&(model(), query()), |(model, query)| {
        agree(&model, &query, true)
    });
    assert!(
        result.is_err(),
        "a reference that forgets revocation must disagree somewhere"
    );
}
