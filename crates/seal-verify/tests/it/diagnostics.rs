//! What the operator reads: the exact message of every error the key, store and spawn checks
//! return, and the `Debug` of the values an embedder logs (tags, verifiers, live state), which
//! shows what was checked and never a secret, a tag or a payload. Also the tag-length facts the
//! verifier relies on: which lengths are whole-character, and the bits every tag carries.

use std::collections::BTreeMap;

use crate::frames_support::{config, hmac_secret, master, sign, store, CONVERSATION, ELEMENT, NOW};
use seal_record::{canonical_path, CanonicalPath, Sha256Digest};
use seal_verify::store::{
    BindError, InsertError, IntendedUse, KeyRecordError, KeySource, Purpose, ResolveError,
    StoreOperation, VerifyFailure,
};
use seal_verify::{
    ApprovalError, CompensatingControls, Ed25519SigningKey, FrameVerifier, HmacKey, HmacSecret,
    LivePayload, LiveState, SignatureError, SpawnError, StaleItem, Tag, TagConfig, TagLength,
    TagLengthError, TagProfile, UnixTime, COMPACT_TAG_BITS, ED25519_SIGNATURE_BITS, MAX_TAG_BITS,
    MAX_TAG_CHARS, MIN_TAG_BITS, MIN_TAG_CHARS, STANDARD_TAG_BITS,
};

/// A key id an attacker could put in a document or a frame: a line break, a tab, a quote.
const HOSTILE_ID: &str = "k1\n\tforged\"";
/// How [`HOSTILE_ID`] reads in a message: every control character escaped.
const HOSTILE_SHOWN: &str = "k1\\n\\tforged\\\"";

fn digest(label: &str) -> Sha256Digest {
    Sha256Digest::of(label.as_bytes())
}

fn path(text: &str) -> CanonicalPath {
    canonical_path(text).unwrap()
}

/// A diagnostic is one line of printable text, lowercase at the start, without a trailing
/// period.
fn assert_operator_line(message: &str) {
    assert!(!message.is_empty(), "empty message");
    assert!(
        !message.chars().any(char::is_control),
        "control character in {message:?}"
    );
    assert!(!message.ends_with('.'), "trailing period in {message:?}");
    let first = message.chars().next().unwrap();
    assert!(!first.is_uppercase(), "capitalised: {message:?}");
}

fn assert_messages<E: std::fmt::Display>(cases: &[(E, &str)]) {
    for (error, expected) in cases {
        let shown = error.to_string();
        assert_eq!(shown, *expected);
        assert_operator_line(&shown);
    }
}

// ---------------------------------------------------------------------------------------------
// TagLengthError

#[test]
fn tag_length_errors_say_which_bound_or_control_is_missing() {
    assert_messages(&[
        (
            TagLengthError::BelowFloor {
                bits: 90,
                floor: 96,
            },
            "tag length of 90 bits is below the floor of 96",
        ),
        (
            TagLengthError::AboveMaximum {
                bits: 258,
                max: 256,
            },
            "tag length of 258 bits is above the maximum of 256",
        ),
        (
            TagLengthError::CompactWithoutSubkeys,
            "compact tags need per-conversation subkeys turned on",
        ),
        (
            TagLengthError::CompactWithoutReplaySet,
            "compact tags need a replay set turned on",
        ),
    ]);
}

#[test]
fn tag_length_errors_from_the_real_checks_carry_the_requested_length() {
    assert_eq!(
        TagLength::from_bits(MIN_TAG_BITS - 1)
            .unwrap_err()
            .to_string(),
        "tag length of 95 bits is below the floor of 96"
    );
    assert_eq!(
        TagLength::from_chars(MAX_TAG_CHARS + 1)
            .unwrap_err()
            .to_string(),
        "tag length of 258 bits is above the maximum of 256"
    );
    let compact = |per_conversation_subkeys, replay_set| TagConfig {
        profile: TagProfile::Compact,
        controls: CompensatingControls {
            per_conversation_subkeys,
            replay_set,
        },
    };
    assert_eq!(
        compact(false, true).tag_length().unwrap_err().to_string(),
        "compact tags need per-conversation subkeys turned on"
    );
    assert_eq!(
        compact(true, false).tag_length().unwrap_err().to_string(),
        "compact tags need a replay set turned on"
    );
}

// ---------------------------------------------------------------------------------------------
// TagLength::is_whole_chars

fn compact_length() -> TagLength {
    TagConfig {
        profile: TagProfile::Compact,
        controls: CompensatingControls {
            per_conversation_subkeys: true,
            replay_set: true,
        },
    }
    .tag_length()
    .unwrap()
}

fn every_valid_length() -> Vec<TagLength> {
    (MIN_TAG_BITS..=MAX_TAG_BITS)
        .map(|bits| TagLength::from_bits(bits).unwrap())
        .chain([compact_length()])
        .collect()
}

#[test]
fn whole_chars_holds_exactly_for_multiples_of_six_at_every_valid_length() {
    for length in every_valid_length() {
        assert_eq!(
            length.is_whole_chars(),
            length.bits() % 6 == 0,
            "{} bits",
            length.bits()
        );
        if length.is_whole_chars() {
            assert_eq!(length.text_len() * 6, usize::from(length.bits()));
        }
    }
    let whole = every_valid_length()
        .into_iter()
        .filter(|length| length.is_whole_chars())
        .count();
    // 96, 102, .., 252 (27 lengths) and the compact 30.
    assert_eq!(whole, 28);
}

#[test]
fn every_profile_a_frame_or_store_uses_is_whole_chars_and_full_length_is_not() {
    assert!(TagLength::STANDARD.is_whole_chars());
    assert_eq!(TagLength::STANDARD.bits(), STANDARD_TAG_BITS);
    assert!(compact_length().is_whole_chars());
    assert_eq!(compact_length().bits(), COMPACT_TAG_BITS);
    for chars in MIN_TAG_CHARS..=MAX_TAG_CHARS {
        let length = TagLength::from_chars(chars).unwrap();
        assert!(length.is_whole_chars(), "{chars} characters");
        assert_eq!(length.text_len(), usize::from(chars));
        let configured = TagConfig {
            profile: TagProfile::Chars(chars),
            controls: CompensatingControls::default(),
        };
        assert!(configured.tag_length().unwrap().is_whole_chars());
    }
    // 256 bits need 43 characters with 2 padding bits: a primitive-API length only.
    assert!(!TagLength::FULL.is_whole_chars());
    assert!(!TagLength::from_bits(128).unwrap().is_whole_chars());
}

#[test]
fn whole_char_lengths_never_share_a_character_count_and_other_lengths_always_do() {
    let lengths = every_valid_length();
    for length in &lengths {
        let sharing: Vec<u16> = lengths
            .iter()
            .filter(|other| other.bits() != length.bits() && other.text_len() == length.text_len())
            .map(|other| other.bits())
            .collect();
        let whole_sharing = lengths
            .iter()
            .filter(|other| other.bits() != length.bits())
            .filter(|other| other.text_len() == length.text_len() && other.is_whole_chars())
            .count();
        if length.is_whole_chars() {
            assert_eq!(whole_sharing, 0, "{} bits", length.bits());
        } else {
            assert!(!sharing.is_empty(), "{} bits shares nothing", length.bits());
        }
    }
}

/// The spec's reason for whole-character lengths: over one secret, a key of one whole-character
/// length refuses every tag of another on length alone, while 128 and 132 bits (both 22
/// characters) accept each other's tags whenever the 4 padding bits happen to be zero.
#[test]
fn only_a_length_that_is_not_whole_chars_accepts_tags_of_another_length() {
    let secret = || HmacSecret::from_bytes(&hmac_secret()).unwrap();
    let standard = HmacKey::new(secret(), TagLength::STANDARD);
    let shorter_whole = HmacKey::new(secret(), TagLength::from_chars(21).unwrap());
    let padded = HmacKey::new(secret(), TagLength::from_bits(128).unwrap());
    assert!(standard.tag_length().is_whole_chars());
    assert!(shorter_whole.tag_length().is_whole_chars());
    assert!(!padded.tag_length().is_whole_chars());
    assert_eq!(
        padded.tag_length().text_len(),
        standard.tag_length().text_len()
    );

    let mut cross_accepted = 0;
    for n in 0..256u32 {
        let message = n.to_be_bytes();
        let tag = standard.sign(&message).to_text();
        assert!(matches!(
            shorter_whole.verify_text(&message, &tag),
            Err(SignatureError::Length {
                expected: 21,
                found: 22
            })
        ));
        assert!(matches!(
            standard.verify_text(&message, &shorter_whole.sign(&message).to_text()),
            Err(SignatureError::Length {
                expected: 22,
                found: 21
            })
        ));
        if padded.verify_text(&message, &tag).is_ok() {
            cross_accepted += 1;
        }
    }
    // About one in 16; any at all is the flaw whole-character lengths rule out.
    assert!(cross_accepted > 0);
}

// ---------------------------------------------------------------------------------------------
// Tag::bits and Tag's Debug

fn hmac(length: TagLength) -> HmacKey {
    HmacKey::new(HmacSecret::from_bytes(&hmac_secret()).unwrap(), length)
}

#[test]
fn a_tag_carries_its_keys_tag_length() {
    let lengths = [
        TagLength::STANDARD,
        TagLength::FULL,
        compact_length(),
        TagLength::from_bits(MIN_TAG_BITS).unwrap(),
        TagLength::from_bits(97).unwrap(),
        TagLength::from_bits(128).unwrap(),
        TagLength::from_chars(MIN_TAG_CHARS).unwrap(),
        TagLength::from_chars(MAX_TAG_CHARS).unwrap(),
    ];
    for length in lengths {
        let key = hmac(length);
        let tag = key.sign(b"message");
        assert_eq!(tag.bits(), length.bits());
        assert_eq!(tag.bits(), key.tag_length().bits());
        assert_eq!(tag.as_bytes().len(), length.byte_len());
        assert_eq!(tag.to_text().len(), length.text_len());
    }
    let signature = Ed25519SigningKey::from_seed(&[3; 32])
        .unwrap()
        .sign(b"message");
    assert_eq!(signature.bits(), ED25519_SIGNATURE_BITS);
    assert_eq!(signature.as_bytes().len(), 64);
}

/// Every spelling of a tag's value that could end up in a log line.
fn spellings(tag: &Tag) -> Vec<String> {
    let bytes = tag.as_bytes();
    let decimal = format!("{bytes:?}");
    vec![
        tag.to_text(),
        // The start of the text form, as a truncating logger would keep it.
        tag.to_text().chars().take(8).collect(),
        hex::encode(bytes),
        hex::encode_upper(bytes),
        decimal.trim_matches(['[', ']']).to_owned(),
    ]
}

#[test]
fn tag_debug_shows_the_length_and_never_the_tag() {
    let cases = [
        (hmac(TagLength::STANDARD).sign(b"message"), 132),
        (hmac(TagLength::FULL).sign(b"message"), 256),
        (hmac(compact_length()).sign(b"message"), 30),
        (
            Ed25519SigningKey::from_seed(&[3; 32])
                .unwrap()
                .sign(b"message"),
            512,
        ),
    ];
    for (tag, bits) in cases {
        let shown = format!("{tag:?}");
        assert_eq!(shown, format!("Tag(<redacted>, {bits} bits)"));
        let pretty = format!("{tag:#?}");
        for spelling in spellings(&tag) {
            assert!(!shown.contains(&spelling), "{shown} shows {spelling}");
            assert!(!pretty.contains(&spelling), "{pretty} shows {spelling}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// FrameVerifier's Debug

#[test]
fn frame_verifier_debug_shows_conversation_time_and_config_but_no_key_or_tag() {
    let config = config();
    let store = store();
    let seen = seal_verify::MemoryReplayStore::new();
    let verifier = FrameVerifier::new(&config, &store, CONVERSATION, NOW, &seen);
    let frame = sign(&[("source", "telegram"), ("id", "m1")], "hello");
    // Derives and caches the conversation subkey of `k1`.
    assert_eq!(verifier.verify(&frame).unwrap().verified().count(), 1);

    let shown = format!("{verifier:?}");
    assert!(
        shown.starts_with("FrameVerifier { config: VerifyConfig {"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("element: \"{ELEMENT}\"")),
        "{shown}"
    );
    assert!(
        shown.contains("conversation_id: \"conversation-1\""),
        "{shown}"
    );
    assert!(shown.contains("now: UnixTime(1800000000)"), "{shown}");
    assert!(shown.ends_with(", .. }"), "{shown}");

    let secret = hmac_secret();
    let decimal = format!("{secret:?}");
    let sig = seal_test_support::quoted_attribute(&frame, "sig");
    for leaked in [
        hex::encode(&secret),
        decimal.trim_matches(['[', ']']).to_owned(),
        seal_verify::base64url::encode(&secret),
        sig.to_owned(),
        master().sign(b"hello").to_text(),
    ] {
        assert!(!shown.contains(&leaked), "{shown} shows {leaked}");
    }
    let pretty = format!("{verifier:#?}");
    assert!(!pretty.contains(sig), "{pretty}");
}

// ---------------------------------------------------------------------------------------------
// LiveState's Debug

#[test]
fn live_state_debug_shows_digests_and_model_never_payload_bytes() {
    const PAYLOAD: &[u8] = b"lines 1-3 of .env: API_KEY=sk-live-0123456789";
    let files: BTreeMap<CanonicalPath, Sha256Digest> =
        [(path("src/lib.rs"), digest("lib"))].into_iter().collect();
    let policy = digest("policy v3");
    let live = LiveState {
        policy_sha256: policy,
        model: "model-large-2",
        payload: LivePayload::Bytes(PAYLOAD),
        files: &files,
    };
    let shown = format!("{live:?}");
    assert_eq!(
        shown,
        format!(
            "LiveState {{ policy_sha256: Sha256Digest({}), model: \"model-large-2\", payload: \
             Sha256Digest({}), .. }}",
            policy.to_hex(),
            Sha256Digest::of(PAYLOAD).to_hex()
        )
    );
    let decimal = format!("{PAYLOAD:?}");
    for leaked in [
        "sk-live",
        "API_KEY",
        &hex::encode(PAYLOAD)[..16],
        &decimal.trim_matches(['[', ']'])[..16],
    ] {
        assert!(!shown.contains(leaked), "{shown} shows {leaked}");
    }
    // Bytes or their digest: the same state reads the same.
    let by_digest = LiveState {
        payload: LivePayload::Digest(Sha256Digest::of(PAYLOAD)),
        ..live
    };
    assert_eq!(format!("{by_digest:?}"), shown);
}

// ---------------------------------------------------------------------------------------------
// SpawnError

#[test]
fn spawn_errors_name_what_changed_with_both_sides() {
    let a = digest("approved");
    let b = digest("other");
    let (ah, bh) = (a.to_hex(), b.to_hex());
    assert_messages(&[
        (
            SpawnError::NotApproved {
                approved: a,
                manifest: b,
            },
            format!("manifest hash {bh} is not the approved hash {ah}").as_str(),
        ),
        (
            SpawnError::StalePolicy {
                approved: a,
                live: b,
            },
            format!("policy changed since approval: approved {ah}, live {bh}").as_str(),
        ),
        (
            SpawnError::StaleModel {
                approved: "model-large-2".to_owned(),
                live: "model-small-1".to_owned(),
            },
            "model changed since approval: approved `model-large-2`, live `model-small-1`",
        ),
        (
            SpawnError::StaleManifest {
                item: StaleItem::File {
                    path: path("src/lib.rs"),
                },
            },
            "file `src/lib.rs` changed since approval",
        ),
        (
            SpawnError::StaleManifest {
                item: StaleItem::MissingFile {
                    path: path("src/main.rs"),
                },
            },
            "file `src/main.rs` is missing since approval",
        ),
        (
            SpawnError::StaleManifest {
                item: StaleItem::Payload,
            },
            "payload changed since approval",
        ),
        (
            SpawnError::Recomputed {
                approved: a,
                recomputed: Some(b),
            },
            format!("recomputed manifest hash {bh} is not the approved hash {ah}").as_str(),
        ),
        (
            SpawnError::Recomputed {
                approved: a,
                recomputed: None,
            },
            format!("manifest cannot be rebuilt from live state (approved hash {ah})").as_str(),
        ),
        (
            SpawnError::Approval(ApprovalError::Reused {
                approval_id: "ap-7".to_owned(),
            }),
            "approval refused: approval id `ap-7` was already used",
        ),
        (
            SpawnError::Approval(ApprovalError::BadSignature(VerifyFailure::Signature(
                SignatureError::Mismatch,
            ))),
            "approval refused: approval signature refused: signature refused: tag does not match",
        ),
        (
            SpawnError::Approval(ApprovalError::Key(ResolveError::OutOfScope)),
            "approval refused: approver key refused: key is not scoped for this use",
        ),
    ]);
}

#[test]
fn spawn_errors_escape_the_model_they_quote() {
    let error = SpawnError::StaleModel {
        approved: "model-large-2".to_owned(),
        live: "model-large-2\u{202e}\n".to_owned(),
    };
    let shown = error.to_string();
    assert_eq!(
        shown,
        "model changed since approval: approved `model-large-2`, live `model-large-2\\u{202e}\\n`"
    );
    assert_operator_line(&shown);
}

// ---------------------------------------------------------------------------------------------
// BindError

#[test]
fn bind_errors_name_the_key_and_the_rule() {
    assert_messages(&[
        (
            BindError::UnknownKeyId {
                key_id: "k9".to_owned(),
            },
            "a secret was supplied for `k9`, which the document does not list",
        ),
        (
            BindError::NotHmac {
                key_id: "ed1".to_owned(),
            },
            "key `ed1` is not an hmac key",
        ),
        (
            BindError::DuplicateSecret {
                key_id: "k1".to_owned(),
            },
            "two secrets were supplied for `k1`",
        ),
        (
            BindError::SecretMismatch {
                key_id: "k1".to_owned(),
            },
            "the secret supplied for `k1` does not match its fingerprint",
        ),
        (
            BindError::WeakSecret {
                key_id: "k1".to_owned(),
                len: 16,
                min: 32,
            },
            "the secret of `k1` has 16 bytes, fewer than 32",
        ),
        (
            BindError::TagLength {
                key_id: "k-compact".to_owned(),
                error: TagLengthError::CompactWithoutReplaySet,
            },
            "key `k-compact`: compact tags need a replay set turned on",
        ),
        (
            BindError::Record(KeyRecordError::Window {
                not_before: UnixTime(20),
                not_after: UnixTime(10),
            }),
            "validity starts at 20, after it ends at 10",
        ),
        (
            BindError::Insert(InsertError::DuplicateKeyId {
                key_id: "k1".to_owned(),
            }),
            "key id `k1` is already present",
        ),
    ]);
}

#[test]
fn bind_errors_escape_the_key_id_they_quote() {
    let cases = [
        BindError::UnknownKeyId {
            key_id: HOSTILE_ID.to_owned(),
        },
        BindError::NotHmac {
            key_id: HOSTILE_ID.to_owned(),
        },
        BindError::DuplicateSecret {
            key_id: HOSTILE_ID.to_owned(),
        },
        BindError::SecretMismatch {
            key_id: HOSTILE_ID.to_owned(),
        },
        BindError::WeakSecret {
            key_id: HOSTILE_ID.to_owned(),
            len: 1,
            min: 32,
        },
        BindError::TagLength {
            key_id: HOSTILE_ID.to_owned(),
            error: TagLengthError::CompactWithoutSubkeys,
        },
    ];
    for error in cases {
        let shown = error.to_string();
        assert!(shown.contains(&format!("`{HOSTILE_SHOWN}`")), "{shown}");
        assert_operator_line(&shown);
    }
}

// ---------------------------------------------------------------------------------------------
// ResolveError

#[test]
fn resolve_errors_name_the_reason_the_key_is_refused() {
    assert_messages(&[
        (
            ResolveError::StoreExpired {
                expires: UnixTime(1_900_000_000),
                now: UnixTime(2_000_000_000),
            },
            "trust store expired at 1900000000, it is now 2000000000",
        ),
        (
            ResolveError::UnknownKey {
                key_id: "k9".to_owned(),
            },
            "no key `k9`",
        ),
        (
            ResolveError::SecretNotSupplied {
                key_id: "k2".to_owned(),
            },
            "the secret of key `k2` was not supplied",
        ),
        (
            ResolveError::NotYetValid {
                not_before: UnixTime(1_810_000_000),
            },
            "key is not valid before 1810000000",
        ),
        (
            ResolveError::KeyExpired {
                not_after: UnixTime(1_700_000_000),
            },
            "key is not valid after 1700000000",
        ),
        (
            ResolveError::Revoked {
                at: UnixTime(1_750_000_000),
            },
            "key is revoked since 1750000000",
        ),
        (ResolveError::VerifyOnly, "key may verify but not sign"),
        (ResolveError::OutOfScope, "key is not scoped for this use"),
    ]);
    for error in [
        ResolveError::UnknownKey {
            key_id: HOSTILE_ID.to_owned(),
        },
        ResolveError::SecretNotSupplied {
            key_id: HOSTILE_ID.to_owned(),
        },
    ] {
        let shown = error.to_string();
        assert!(shown.contains(&format!("`{HOSTILE_SHOWN}`")), "{shown}");
        assert_operator_line(&shown);
    }
}

#[test]
fn resolve_errors_from_the_store_read_as_the_operator_needs() {
    let store = store();
    let verify = IntendedUse {
        operation: StoreOperation::Verify,
        purpose: Purpose::Frame {
            element: ELEMENT,
            attributes: &[("source", "telegram")],
        },
    };
    let refused = |key_id: &str, now: UnixTime| {
        store
            .resolve(key_id, &verify, now)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(refused("k9", NOW), "no key `k9`");
    assert_eq!(refused("expired", NOW), "key is not valid after 1700000000");
    assert_eq!(refused("future", NOW), "key is not valid before 1810000000");
    assert_eq!(refused("revoked", NOW), "key is revoked since 1750000000");
    assert_eq!(refused("narrow", NOW), "key is not scoped for this use");
    assert_eq!(
        refused("k1", UnixTime(2_000_000_000)),
        "trust store expired at 1900000000, it is now 2000000000"
    );
}

// ---------------------------------------------------------------------------------------------
// Whole-character tag lengths where frames and stores bind them

#[test]
fn refused_tag_lengths_name_the_bits_and_the_rule() {
    assert_messages(&[(
        KeyRecordError::TagLengthNotWholeChars { bits: 128 },
        "an hmac key's tag length of 128 bits is not a whole number of base64url characters (a \
         multiple of 6 bits)",
    )]);
    assert_messages(&[(
        seal_verify::FrameRefusal::TagLengthNotWholeChars { bits: 100 },
        "a frame tag length of 100 bits is not a whole number of base64url characters (a \
         multiple of 6 bits)",
    )]);
}

// ---------------------------------------------------------------------------------------------
// Base64Error

#[test]
fn base64_errors_name_the_length_the_byte_or_the_bits() {
    use seal_verify::base64url::Base64Error;
    assert_messages(&[
        (
            Base64Error::Length {
                expected: 22,
                found: 21,
            },
            "base64url text has 21 characters, expected 22",
        ),
        (
            Base64Error::Alphabet {
                offset: 3,
                found: b'\n',
            },
            "byte `\\n` at offset 3 is not in the base64url alphabet",
        ),
        (
            Base64Error::TrailingBits,
            "base64url text has non-zero trailing bits",
        ),
        (
            Base64Error::NotWholeBytes { found: 5 },
            "base64url text of 5 characters does not encode whole bytes",
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// SubkeyError

#[test]
fn subkey_errors_name_the_conversation_id_problem() {
    use seal_verify::SubkeyError;
    assert_messages(&[
        (SubkeyError::EmptyConversationId, "conversation id is empty"),
        (
            SubkeyError::ConversationIdTooLong {
                len: 1025,
                max: 1024,
            },
            "conversation id of 1025 bytes is longer than 1024",
        ),
    ]);
}
