//! Invariant I6: a tag is accepted only at the key's configured length, and any one-bit change
//! of key id, attribute, attribute order, body or tag fails. Frames use whole-character lengths
//! (the profiles and what a store binds), so two different lengths never share a character
//! count and a tag of another length fails before comparison. The suite also runs against a
//! verifier that compares tags by prefix (so it accepts a truncated tag) and must find a
//! counterexample.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_record::FrameSigningInput;
use seal_verify::{
    base64url, CompensatingControls, HmacKey, HmacSecret, SignatureError, TagConfig, TagLength,
    TagProfile,
};

/// Characters that default string strategies never produce: controls, format and bidi
/// characters, tag characters, variation selectors, characters next to the surrogate range,
/// fullwidth and lookalike brackets, and the escape characters of the frame grammar.
const HOSTILE: &[char] = &[
    '\u{0}',
    '\t',
    '\n',
    '\r',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{a0}',
    '\u{ad}',
    '\u{200b}',
    '\u{200d}',
    '\u{202e}',
    '\u{2066}',
    '\u{feff}',
    '\u{e0041}',
    '\u{e007f}',
    '\u{fe0f}',
    '\u{d7ff}',
    '\u{e000}',
    '\u{ff1c}',
    '\u{2039}',
    '\u{fe64}',
    '<',
    '>',
    '"',
    '\\',
    '/',
    '=',
    'é',
    '\u{10ffff}',
];

#[derive(Debug, Clone)]
struct Case {
    secret: Vec<u8>,
    length: TagLength,
    key_id: String,
    element: String,
    attributes: Vec<(String, String)>,
    body: Vec<u8>,
    mutation: Mutation,
}

#[derive(Debug, Clone)]
enum Mutation {
    KeyId(usize),
    AttributeValue(usize),
    SwapAttributes(usize),
    Body(usize),
    TagBit(usize),
    Truncate(usize),
    Extend(u8),
    OtherLength(TagLength),
}

fn hostile_string(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::char::range(' ', '~'),
            1 => prop::sample::select(HOSTILE),
            1 => any::<char>(),
        ],
        0..max,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// Whole-character lengths: the profiles and every length a store can bind.
fn frame_length() -> impl Strategy<Value = TagLength> {
    let compact = TagConfig {
        profile: TagProfile::Compact,
        controls: CompensatingControls {
            per_conversation_subkeys: true,
            replay_set: true,
        },
    }
    .tag_length()
    .unwrap();
    prop_oneof![
        Just(TagLength::STANDARD),
        Just(compact),
        (16u8..=42).prop_map(|chars| TagLength::from_chars(chars).unwrap()),
    ]
}

/// Every length a key can have, including bit lengths that leave padding bits in the text form.
fn tag_length() -> impl Strategy<Value = TagLength> {
    let compact = TagConfig {
        profile: TagProfile::Compact,
        controls: CompensatingControls {
            per_conversation_subkeys: true,
            replay_set: true,
        },
    }
    .tag_length()
    .unwrap();
    prop_oneof![
        Just(TagLength::STANDARD),
        Just(TagLength::FULL),
        Just(compact),
        (96u16..=256).prop_map(|bits| TagLength::from_bits(bits).unwrap()),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::KeyId),
        any::<usize>().prop_map(Mutation::AttributeValue),
        any::<usize>().prop_map(Mutation::SwapAttributes),
        any::<usize>().prop_map(Mutation::Body),
        any::<usize>().prop_map(Mutation::TagBit),
        any::<usize>().prop_map(Mutation::Truncate),
        any::<u8>().prop_map(Mutation::Extend),
        frame_length().prop_map(Mutation::OtherLength),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(any::<u8>(), 1..64),
        frame_length(),
        "[a-z0-9][a-z0-9._-]{0,15}",
        "[a-z][a-z0-9-]{0,7}",
        prop::collection::vec(hostile_string(12), 0..4),
        prop::collection::vec(any::<u8>(), 0..200),
        mutation(),
    )
        .prop_map(
            |(secret, length, key_id, element, values, body, mutation)| Case {
                secret,
                length,
                key_id,
                element,
                attributes: values
                    .into_iter()
                    .enumerate()
                    .map(|(index, value)| (format!("a{index}"), value))
                    .collect(),
                body,
                mutation,
            },
        )
}

/// A verifier under test: does `sig` verify for `message` under `key`?
type Verify = fn(&HmacKey, &[u8], &str) -> bool;

fn real_verify(key: &HmacKey, message: &[u8], sig: &str) -> bool {
    key.verify_text(message, sig).is_ok()
}

/// Negative control: accepts any non-empty prefix of the expected tag.
fn prefix_verify(key: &HmacKey, message: &[u8], sig: &str) -> bool {
    !sig.is_empty() && key.sign(message).to_text().starts_with(sig)
}

fn signed_bytes(
    key_id: &str,
    length: TagLength,
    element: &str,
    attributes: &[(String, String)],
    body: &[u8],
) -> Vec<u8> {
    let pairs: Vec<(&str, &str)> = attributes
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    FrameSigningInput::new(
        key_id,
        "hmac-sha256",
        length.text_len(),
        element,
        &pairs,
        body,
    )
    .unwrap()
    .bytes()
    .to_vec()
}

fn flip_last_char(text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    match chars.last_mut() {
        Some(last) => *last = char::from_u32(u32::from(*last) ^ 1).unwrap(),
        None => chars.push('a'),
    }
    chars.into_iter().collect()
}

fn check_i6(case: &Case, verify: Verify) -> Result<(), TestCaseError> {
    let key = HmacKey::new(HmacSecret::from_bytes(&case.secret).unwrap(), case.length);
    let message = signed_bytes(
        &case.key_id,
        case.length,
        &case.element,
        &case.attributes,
        &case.body,
    );
    let sig = key.sign(&message).to_text();
    prop_assert_eq!(sig.len(), case.length.text_len());
    prop_assert!(verify(&key, &message, &sig), "the genuine tag must verify");

    let mut key_id = case.key_id.clone();
    let mut attributes = case.attributes.clone();
    let mut body = case.body.clone();
    let mut presented = sig.clone();
    let mut verifier = key;
    match &case.mutation {
        Mutation::KeyId(at) => {
            let index = at % key_id.len();
            let flipped = char::from(key_id.as_bytes()[index] ^ 1);
            key_id.replace_range(index..=index, &flipped.to_string());
        }
        Mutation::AttributeValue(at) => {
            if attributes.is_empty() {
                attributes.push(("a0".to_owned(), String::new()));
            } else {
                let index = at % attributes.len();
                attributes[index].1 = flip_last_char(&attributes[index].1);
            }
        }
        Mutation::SwapAttributes(at) => {
            prop_assume!(attributes.len() >= 2);
            let index = at % (attributes.len() - 1);
            attributes.swap(index, index + 1);
        }
        Mutation::Body(at) => {
            if body.is_empty() {
                body.push(0);
            } else {
                let bit = at % (body.len() * 8);
                body[bit / 8] ^= 0x80 >> (bit % 8);
            }
        }
        Mutation::TagBit(at) => {
            let bits = usize::from(case.length.bits());
            let mut packed = base64url::decode_bits(&sig, bits).unwrap();
            let bit = at % bits;
            packed[bit / 8] ^= 0x80 >> (bit % 8);
            presented = base64url::encode_bits(&packed, bits);
        }
        Mutation::Truncate(at) => {
            let keep = at % sig.len();
            presented.truncate(keep);
        }
        Mutation::Extend(extra) => {
            presented.push(char::from(b"AQgw-_"[usize::from(*extra) % 6]));
        }
        Mutation::OtherLength(other) => {
            prop_assume!(*other != case.length);
            verifier = HmacKey::new(HmacSecret::from_bytes(&case.secret).unwrap(), *other);
        }
    }
    let changed = if matches!(case.mutation, Mutation::OtherLength(_)) {
        // The frame input also names the tag length, as a verifier with the other key builds it.
        signed_bytes(
            &key_id,
            verifier.tag_length(),
            &case.element,
            &attributes,
            &body,
        )
    } else {
        signed_bytes(&key_id, case.length, &case.element, &attributes, &body)
    };
    prop_assert!(
        !verify(&verifier, &changed, &presented),
        "a changed frame or tag verified: {:?}",
        case.mutation
    );
    Ok(())
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn i6_only_the_genuine_tag_at_the_bound_length_verifies(case in case()) {
        check_i6(&case, real_verify)?;
    }

    #[test]
    fn i6_any_other_length_fails_before_comparison(
        secret in prop::collection::vec(any::<u8>(), 1..64),
        length in tag_length(),
        message in prop::collection::vec(any::<u8>(), 0..64),
        sig in "[A-Za-z0-9_-]{0,50}",
    ) {
        let key = HmacKey::new(HmacSecret::from_bytes(&secret).unwrap(), length);
        let result = key.verify_text(&message, &sig);
        if sig.len() == length.text_len() {
            let refused_on_length = matches!(result, Err(SignatureError::Length { .. }));
            prop_assert!(!refused_on_length, "a tag of the bound length was refused on length");
        } else {
            prop_assert_eq!(result, Err(SignatureError::Length { expected: length.text_len(), found: sig.len() }));
        }
        let bytes = sig.as_bytes();
        let binary = key.verify(&message, bytes);
        if bytes.len() != length.byte_len() {
            prop_assert_eq!(binary, Err(SignatureError::Length { expected: length.byte_len(), found: bytes.len() }));
        }
    }
}

#[test]
fn i6_negative_control_prefix_comparison_is_caught() {
    let mut runner = seal_test_support::seeded(512);
    let result = runner.run(&case(), |case| check_i6(&case, prefix_verify));
    let failure = result.expect_err("a prefix-comparing verifier must be caught");
    let text = format!("{failure}");
    assert!(text.contains("Truncate"), "{text}");
}

#[test]
fn i6_negative_control_passes_the_genuine_tag() {
    // The control is only wrong about shortened tags: it accepts every genuine tag, so the
    // counterexample above is about length, not a control that rejects everything.
    let key = HmacKey::new(
        HmacSecret::from_bytes(&[1; 32]).unwrap(),
        TagLength::STANDARD,
    );
    let sig = key.sign(b"m").to_text();
    assert!(prefix_verify(&key, b"m", &sig));
    assert!(prefix_verify(&key, b"m", &sig[..5]));
    assert!(!real_verify(&key, b"m", &sig[..5]));
}

/// Where frames and stores bind a length (a key record, a frame signer), an HMAC key of a
/// length that is not a whole number of characters is refused by name; every whole-character
/// length from the floor to the maximum is accepted.
#[test]
fn non_whole_character_hmac_lengths_are_refused_where_frames_bind_them() {
    use seal_verify::store::{KeyRecord, KeyRecordError, KeyStatus, Scopes, Validity};
    use seal_verify::{FrameRefusal, FrameSigner, SigningKey, UnixTime, VerifyingKey};
    let validity = Validity {
        not_before: UnixTime(0),
        not_after: UnixTime(10),
    };
    let mut accepted = 0;
    for bits in seal_verify::MIN_TAG_BITS..=seal_verify::MAX_TAG_BITS {
        let length = TagLength::from_bits(bits).unwrap();
        let key = HmacKey::new(HmacSecret::from_bytes(&[3; 32]).unwrap(), length);
        let signer = FrameSigner::new("k1", SigningKey::Hmac(&key), "c", seal_verify::UnixTime(0))
            .map(|_| ());
        let record = KeyRecord::new(
            "k1",
            VerifyingKey::Hmac(HmacKey::new(
                HmacSecret::from_bytes(&[3; 32]).unwrap(),
                length,
            )),
            validity,
            KeyStatus::Active,
            Scopes::default(),
        );
        if bits % 6 == 0 {
            assert!(record.is_ok() && signer.is_ok(), "{bits}");
            accepted += 1;
        } else {
            assert_eq!(
                record.unwrap_err(),
                KeyRecordError::TagLengthNotWholeChars { bits }
            );
            assert!(
                matches!(signer, Err(FrameRefusal::TagLengthNotWholeChars { bits: b }) if b == bits),
                "{bits}"
            );
        }
    }
    // 96, 102, .., 252: 27 whole-character lengths.
    assert_eq!(accepted, 27);
}

/// Why the refusal above matters (a control for it): over one secret, keys of 128 and 132 bits
/// write tags of the same 22 characters over the same signing input, and a 132-bit tag whose
/// four low bits happen to be zero (one in sixteen) is accepted by the 128-bit key.
#[test]
fn control_keys_of_128_and_132_bits_over_one_secret_accept_each_others_tags() {
    let secret = [4; 32];
    let short = HmacKey::new(
        HmacSecret::from_bytes(&secret).unwrap(),
        TagLength::from_bits(128).unwrap(),
    );
    let standard = HmacKey::new(
        HmacSecret::from_bytes(&secret).unwrap(),
        TagLength::STANDARD,
    );
    assert_eq!(
        TagLength::from_bits(128).unwrap().text_len(),
        TagLength::STANDARD.text_len()
    );
    let crossed = (0..256u32)
        .filter(|n| {
            let message = n.to_le_bytes();
            short
                .verify_text(&message, &standard.sign(&message).to_text())
                .is_ok()
        })
        .count();
    assert!(crossed > 0, "no 132-bit tag crossed over");
    assert!(crossed < 64, "{crossed} of 256 crossed over");
}
